//! Opening an event recording for `trace --tasks`, `trace --system-out`, `fit TRACE` and
//! `analyze --observed TRACE`: a recorder's file (perf.data, TraceRecorder .psf, SystemView
//! .SVDat) through `latscope_trace::import::events::open`, or latscope's own event JSON —
//! the event-trace model as serde writes it (`latscope_core::events::EventTrace`), which
//! tests and converters from other tools can write. A capture (sigrok, VCD, CSV, …) is
//! refused with a message that says so.

use anyhow::Context;
use latscope_core::events::EventTrace;
use latscope_trace::import::{self, Options};
use std::io::Read;
use std::path::Path;

/// True when the file's first non-blank byte is `{` (a JSON object).
fn looks_json(path: &Path) -> bool {
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 256];
    let n = f.read(&mut head).unwrap_or(0);
    let text = &head[..n];
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    text.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

/// Reads latscope's event JSON and checks the model's rules.
fn read_json(path: &Path, name: &str) -> anyhow::Result<EventTrace> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {name}"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut trace: EventTrace = serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "{name}:{}:{}: not a latscope event recording (JSON of the event-trace model): {e}",
            e.line(),
            e.column()
        )
    })?;
    if trace.source.is_empty() {
        trace.source = name.to_string();
    }
    trace.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(trace)
}

/// Opens an event recording (see the module documentation).
pub fn open(path: &Path, opts: &Options) -> anyhow::Result<EventTrace> {
    let name = import::display_name(path);
    if opts.format.is_none() && !import::is_stream(path) && looks_json(path) {
        return read_json(path, &name);
    }
    if let Some(f) = opts.format.filter(|f| !f.is_event_trace()) {
        anyhow::bail!(
            "{name}: --format {} is a capture format; task timing needs an event recording \
             (perf, tracerecorder, systemview)",
            f.name()
        );
    }
    match import::events::open(path, opts) {
        Ok(t) => Ok(t),
        // A capture file: say so, rather than "unknown format".
        Err(e) if !import::is_stream(path) => match import::detect_path(path) {
            Ok(f) if !f.is_event_trace() => anyhow::bail!(
                "{name} is a {} capture, not an event recording: task timing needs the \
                 kernel's events (perf.data, TraceRecorder .psf, SystemView .SVDat); measure \
                 a capture with --pulse, --latency, --busy",
                f.name()
            ),
            _ => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

/// True when `path` is an event recording rather than a CSV or a capture: a recorder's
/// format detected from its content, or latscope's event JSON (an object with `events`
/// and `actors`).
pub fn is_recording(path: &Path) -> bool {
    if import::is_stream(path) {
        return false;
    }
    if looks_json(path) {
        return std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v.get("events").is_some() && v.get("actors").is_some());
    }
    import::detect_path(path).is_ok_and(|f| f.is_event_trace())
}
