//! Importers: one module per format, and detection from content.
//!
//! [`open`] reads a file in the format named by [`Options::format`] or, when that is
//! `None`, the format [`detect`] recognises from the first bytes.

pub mod analog;
pub mod analog_input;
pub(crate) mod builder;
pub mod csv;
pub mod cyclelog;
pub mod events;
mod files;
mod importer;
pub mod limits;
mod merge;
pub mod native;
pub mod perf;
mod perf_holes;
mod perf_layout;
mod perf_tracepoint;
mod prefault;
pub mod saleae_bin;
pub mod saleae_csv;
pub mod scope_csv;
pub mod sigrok;
mod sigrok_inflate;
mod stream_open;
pub mod systemview;
pub(crate) mod text;
pub mod threshold;
pub mod tracerecorder;
pub mod vcd;
mod zip_scan;

pub use files::{load_files, Loaded};

use crate::error::{Error, Place, Result};
use latscope_core::capture::Capture;
pub use merge::{merge, open_merged, Merged};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
pub use stream_open::FIFO_WAIT;

/// A frequency as people write it, exactly: `1 MHz`, `12.5 MHz`, `200 kHz`, `500 Hz`.
pub fn format_hz(hz: u64) -> String {
    for (unit, name) in [
        (1_000_000_000u64, "GHz"),
        (1_000_000, "MHz"),
        (1_000, "kHz"),
    ] {
        if hz >= unit {
            let (whole, frac) = (hz / unit, hz % unit);
            if frac == 0 {
                return format!("{whole} {name}");
            }
            let digits = unit.ilog10() as usize;
            let f = format!("{frac:0digits$}");
            return format!("{whole}.{} {name}", f.trim_end_matches('0'));
        }
    }
    format!("{hz} Hz")
}

/// `--samplerate` against the rate a file states: the same rate (or none given) is fine; a
/// different one overrides the stated rate (as libsigrok lets a user correct a session
/// saved with a wrong rate), with a warning naming both, never silently.
pub(crate) fn check_stated_rate(
    file: &str,
    stated: Option<u64>,
    given: Option<u64>,
    warn: &Warnings,
) -> Result<()> {
    if let (Some(s), Some(g)) = (stated, given) {
        if s != g {
            warn.push(format!(
                "{file} states samplerate {}; --samplerate {} overrides it (every time is \
                 rescaled)",
                format_hz(s),
                format_hz(g)
            ));
        }
    }
    Ok(())
}

/// Every input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// sigrok / PulseView session (.sr, zip).
    Sigrok,
    /// Saleae Logic 2 digital CSV export.
    SaleaeCsv,
    /// Saleae Logic 2 binary export (v0 or v1, digital or analog).
    SaleaeBin,
    /// Value change dump.
    Vcd,
    /// Generic CSV: a time column and 0/1 channel columns (also sigrok-cli's CSV).
    Csv,
    /// Oscilloscope CSV: time (or index) and voltage columns.
    ScopeCsv,
    /// Cycle-counter log: `cycles label` lines.
    CycleLog,
    /// latscope's own format (.lscap).
    Native,
    /// Linux `perf.data` (`perf sched record`, `perf record -e 'sched:*'`): an event trace.
    Perf,
    /// Percepio TraceRecorder streaming recording (.psf): an event trace.
    TraceRecorder,
    /// SEGGER SystemView recording (.SVDat): an event trace.
    SystemView,
}

impl Format {
    pub const ALL: [(&'static str, Format); 11] = [
        ("sigrok", Format::Sigrok),
        ("saleae-csv", Format::SaleaeCsv),
        ("saleae-bin", Format::SaleaeBin),
        ("vcd", Format::Vcd),
        ("csv", Format::Csv),
        ("scope-csv", Format::ScopeCsv),
        ("cyclelog", Format::CycleLog),
        ("native", Format::Native),
        ("perf", Format::Perf),
        ("tracerecorder", Format::TraceRecorder),
        ("systemview", Format::SystemView),
    ];
    pub fn parse(s: &str) -> Option<Format> {
        let l = s.to_ascii_lowercase();
        let l = match l.as_str() {
            "sr" => "sigrok",
            "lscap" => "native",
            "scope" => "scope-csv",
            "cycles" | "dwt" => "cyclelog",
            "saleae" => "saleae-csv",
            "perf.data" | "perf-data" => "perf",
            "psf" | "percepio" | "tracealyzer" => "tracerecorder",
            "svdat" | "sysview" => "systemview",
            x => x,
        };
        Format::ALL.iter().find(|(n, _)| *n == l).map(|&(_, f)| f)
    }
    /// The format names, as an error lists them.
    pub fn names() -> String {
        Format::ALL
            .iter()
            .map(|x| x.0)
            .collect::<Vec<_>>()
            .join(", ")
    }
    /// Event-trace formats (RTOS recorders, Linux scheduler traces): read as an
    /// [`latscope_core::events::EventTrace`], measured as a capture through
    /// [`latscope_core::events::EventTrace::to_capture`].
    pub fn is_event_trace(self) -> bool {
        matches!(
            self,
            Format::Perf | Format::TraceRecorder | Format::SystemView
        )
    }
    /// Formats whose reader seeks (a zip directory at the end, perf.data sections): a
    /// stream is spooled to a temporary file first.
    pub fn needs_seek(self) -> bool {
        matches!(self, Format::Sigrok) || self.is_event_trace()
    }
    pub fn name(self) -> &'static str {
        Format::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

/// A capture format name that latscope does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown format (use {})", Format::names())]
pub struct UnknownFormat;

/// A format by name or alias (`sigrok`/`sr`, `vcd`, `perf`…), as `--input-format` and the
/// Python binding's `format=` take it.
impl std::str::FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> std::result::Result<Format, UnknownFormat> {
        Format::parse(s).ok_or(UnknownFormat)
    }
}

/// Import settings that some formats need.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Sample rate for files that lack one (sigrok without `samplerate`, CSV sample
    /// indices), or to round float times to the sample grid (Saleae).
    pub samplerate_hz: Option<u64>,
    /// CPU clock of a cycle-counter log.
    pub cpu_hz: Option<u64>,
    /// Oscilloscope CSV: threshold in volts (default: midpoint of the 5th and 95th
    /// percentile levels).
    pub threshold: Option<f64>,
    /// Oscilloscope CSV: hysteresis in volts, total width around the threshold
    /// (default: 10 % of the 5–95 % level span).
    pub hysteresis: Option<f64>,
    /// Only these channels (names or `#index`) need edges: large sigrok captures then
    /// decode just those (the others stay listed, without edges). None = all.
    pub only_channels: Option<Vec<String>>,
    /// Most edges kept over all decoded channels of one file before the import is refused
    /// (None: [`limits::DEFAULT_MAX_EDGES`]).
    pub max_edges: Option<u64>,
    /// How long a FIFO may stay without a writer before the import gives up (None:
    /// [`FIFO_WAIT`]); tests shorten it.
    pub fifo_wait: Option<std::time::Duration>,
    /// Where importers leave warnings (an overridden sample rate, skipped lines) for the
    /// caller to print; libraries do not print.
    pub warnings: Warnings,
}

/// Warnings collected during an import (shared by the clones of one [`Options`]).
#[derive(Clone, Debug, Default)]
pub struct Warnings(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Warnings {
    pub fn push(&self, w: impl Into<String>) {
        if let Ok(mut v) = self.0.lock() {
            v.push(w.into());
        }
    }
    /// Takes every warning so far, oldest first.
    pub fn take(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

impl Options {
    pub(crate) fn edge_budget(&self) -> u64 {
        self.max_edges.unwrap_or(limits::DEFAULT_MAX_EDGES)
    }
}

/// Recognises a format from the first bytes of a file (up to a few KB).
/// The importers are asked in a fixed order: binary magics first, then the text formats
/// from the most specific header to the loosest (delimited columns).
pub fn detect(head: &[u8]) -> Option<Format> {
    use importer::Importer;
    if importer::Sigrok::sniff(head) {
        return Some(Format::Sigrok);
    }
    if importer::SaleaeBin::sniff(head) {
        return Some(Format::SaleaeBin);
    }
    if let Some(f) = events::detect(head) {
        return Some(f);
    }
    if importer::Native::sniff(head) {
        return Some(Format::Native);
    }
    if importer::Vcd::sniff(head) {
        return Some(Format::Vcd);
    }
    let text = String::from_utf8_lossy(head);
    let lines = importer::head_lines(&text);
    let first = lines.first()?;
    if first.starts_with(';') && text.contains("libsigrok") {
        return Some(Format::Csv);
    }
    if importer::ScopeCsv::sniff(head) {
        return Some(Format::ScopeCsv);
    }
    if importer::SaleaeCsv::sniff(head) {
        // Saleae's analog CSV export has the same header style, with voltages
        return Some(if csv::looks_analog(&lines) {
            Format::ScopeCsv
        } else {
            Format::SaleaeCsv
        });
    }
    if importer::CycleLog::sniff(head) {
        return Some(Format::CycleLog);
    }
    if first.contains(',') || first.contains(';') || first.contains('\t') {
        // 0/1 columns: logic; other numbers: voltages.
        if importer::Csv::sniff(head) {
            return Some(Format::Csv);
        }
        return Some(Format::ScopeCsv);
    }
    None
}

const UNRECOGNISED: &str = "unrecognised capture format; name it with --format (sigrok, \
     saleae-csv, saleae-bin, vcd, csv, scope-csv, cyclelog, native, perf, tracerecorder, \
     systemview)";

/// True for inputs that cannot be read twice or seeked: `-` (standard input), pipes,
/// FIFOs, character devices.
pub fn is_stream(path: &Path) -> bool {
    path.as_os_str() == "-" || std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// The name an input goes by in messages (`-` is "stdin").
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "stdin".into()
    } else {
        path.display().to_string()
    }
}

pub(crate) fn stem_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "ch".into())
}

/// Reads up to 8 KiB (less only at the end of the input).
pub(crate) fn read_head<R: Read>(r: &mut R, name: &str) -> Result<Vec<u8>> {
    let mut head = vec![0u8; 8192];
    let mut n = 0;
    while n < head.len() {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(name, e)),
        }
    }
    head.truncate(n);
    Ok(head)
}

fn detect_or_forced(head: &[u8], name: &str, forced: Option<Format>) -> Result<Format> {
    if let Some(f) = forced {
        return Ok(f);
    }
    if head.is_empty() {
        return Err(Error::format(name, Place::File, "the file is empty"));
    }
    detect(head).ok_or_else(|| Error::format(name, Place::File, UNRECOGNISED))
}

/// The format of a file, detected from its first bytes (for a regular file only: a stream
/// would lose them; [`open_merged`] detects streams itself).
pub fn detect_path(path: &Path) -> Result<Format> {
    let name = display_name(path);
    let mut f = File::open(path).map_err(|e| Error::io(&name, e))?;
    let head = read_head(&mut f, &name)?;
    detect_or_forced(&head, &name, None)
}

/// Reads a capture from a file, or from a stream (`-`, a pipe, a FIFO: see [`open_stream`]).
pub fn open(path: &Path, opts: &Options) -> Result<Capture> {
    if is_stream(path) {
        let (cap, _) = open_stream(path, opts)?;
        return Ok(cap);
    }
    open_named(path, &display_name(path), &stem_of(path), opts).map(|(c, _)| c)
}

pub(crate) fn open_named(
    path: &Path,
    name: &str,
    stem: &str,
    opts: &Options,
) -> Result<(Capture, Format)> {
    let mut f = File::open(path).map_err(|e| Error::io(name, e))?;
    let format = match opts.format {
        Some(f) => f,
        None => {
            let head = read_head(&mut f, name)?;
            f.seek(SeekFrom::Start(0)).map_err(|e| Error::io(name, e))?;
            detect_or_forced(&head, name, None)?
        }
    };
    Ok((read_format(f, format, name, stem, opts)?, format))
}

/// Most bytes spooled from a stream for a format that needs seeking: 64 GiB.
const MAX_SPOOL: u64 = 64 << 30;

/// A stream made seekable: its content in a temporary file (deleted when dropped).
pub struct Spooled {
    pub file: tempfile::NamedTempFile,
}

/// Reads the head of a stream, detects (or takes) its format and either reads it straight
/// on (every text format, Saleae binary, native: the head is chained back in front of the
/// rest, so nothing is lost) or, for a format that needs seeking (sigrok sessions are zip
/// files, whose directory is at the end), spools it to a temporary file first.
/// Returns the capture and its format.
pub fn open_stream(path: &Path, opts: &Options) -> Result<(Capture, Format)> {
    let name = display_name(path);
    match stream_input(path, opts)? {
        StreamInput::Loaded(c, f) => Ok((c, f)),
        StreamInput::Spooled(sp, f) => {
            let o = Options {
                format: Some(f),
                ..opts.clone()
            };
            open_named(sp.file.path(), &name, &stem_of(path), &o)
        }
    }
}

pub(crate) enum StreamInput {
    Loaded(Capture, Format),
    Spooled(Spooled, Format),
}

pub(crate) fn stream_input(path: &Path, opts: &Options) -> Result<StreamInput> {
    let name = display_name(path);
    let mut r: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(stream_open::open_stream_path(
            path,
            &name,
            opts.fifo_wait.unwrap_or(FIFO_WAIT),
        )?)
    };
    let head = read_head(&mut r, &name)?;
    let format = detect_or_forced(&head, &name, opts.format)?;
    if !format.needs_seek() {
        let chained = std::io::Cursor::new(head).chain(r);
        let cap = read_stream(chained, format, &name, &stem_of(path), opts)?;
        return Ok(StreamInput::Loaded(cap, format));
    }
    if format == Format::Sigrok
        && !head.starts_with(b"PK\x03\x04")
        && !head.starts_with(b"PK\x05\x06")
    {
        return Err(Error::format(
            &name,
            Place::Byte(0),
            "not a sigrok session: a .sr file is a zip archive, which starts with 'PK'",
        ));
    }
    let mut file = tempfile::NamedTempFile::new()
        .map_err(|e| Error::io(&format!("{name} (spooling to a temporary file)"), e))?;
    let spool_err = |e| Error::io(&format!("{name} (spooling to a temporary file)"), e);
    let src = std::io::Cursor::new(head).chain(r);
    let n = if format == Format::Sigrok {
        // a session is checked record by record while it is copied (see `zip_scan`): one
        // that stops being a zip is refused there, not once the whole stream is on disk
        let mut check = zip_scan::StreamCheck::new(src);
        std::io::copy(&mut (&mut check).take(MAX_SPOOL + 1), file.as_file_mut())
            .map_err(|e| check.problem(&name).unwrap_or_else(|| spool_err(e)))?
    } else {
        std::io::copy(&mut src.take(MAX_SPOOL + 1), file.as_file_mut()).map_err(spool_err)?
    };
    if n > MAX_SPOOL {
        return Err(Error::format(
            &name,
            Place::Byte(MAX_SPOOL),
            "a sigrok session read from a stream is spooled to a temporary file, and this one \
             passes 64 GiB",
        ));
    }
    Ok(StreamInput::Spooled(Spooled { file }, format))
}

/// Reads from any seekable reader in the given format. `name` is the file name for
/// errors; `stem` names the single channel of per-channel formats (Saleae binary).
pub fn read_format<R: Read + Seek>(
    r: R,
    format: Format,
    name: &str,
    stem: &str,
    opts: &Options,
) -> Result<Capture> {
    let cap = match format {
        Format::Sigrok => importer::read_sigrok(r, name, opts)?,
        f if f.is_event_trace() => events::read(r, f, name, opts)?.to_capture(),
        _ => read_stream_inner(r, format, name, stem, opts)?,
    };
    check_range(cap, name)
}

/// Reads from a reader that cannot seek, in any format but sigrok (a zip needs seeking:
/// see [`open_stream`]).
pub fn read_stream<R: Read>(
    r: R,
    format: Format,
    name: &str,
    stem: &str,
    opts: &Options,
) -> Result<Capture> {
    let cap = read_stream_inner(r, format, name, stem, opts)?;
    check_range(cap, name)
}

fn check_range(cap: Capture, name: &str) -> Result<Capture> {
    // Every consumer subtracts edge times: keep them where differences cannot overflow.
    const LIMIT: i64 = 1 << 62;
    if cap.start.0 < -LIMIT || cap.end.0 > LIMIT || cap.end < cap.start {
        return Err(Error::format(
            name,
            Place::File,
            format!(
                "capture times out of range: start {} ps, end {} ps (at most ±{} ps, 53 days)",
                cap.start.0, cap.end.0, LIMIT
            ),
        ));
    }
    // times are whole picoseconds: a finer sample grid makes 0-ps pulses and a
    // "resolution ±0 ps"
    if let Some(r) = cap
        .samplerate_hz
        .filter(|&r| r > latscope_core::time::PS_PER_S as u64)
    {
        return Err(Error::format(
            name,
            Place::File,
            format!(
                "sample rate {} is above 1 THz: samples closer than the 1-ps time resolution",
                format_hz(r)
            ),
        ));
    }
    Ok(cap)
}

fn read_stream_inner<R: Read>(
    r: R,
    format: Format,
    name: &str,
    stem: &str,
    opts: &Options,
) -> Result<Capture> {
    use importer::Importer;
    match format {
        Format::Sigrok => importer::Sigrok::read(r, name, stem, opts),
        Format::SaleaeCsv => importer::SaleaeCsv::read(r, name, stem, opts),
        Format::SaleaeBin => importer::SaleaeBin::read(r, name, stem, opts),
        Format::Vcd => importer::Vcd::read(r, name, stem, opts),
        Format::Csv => importer::Csv::read(r, name, stem, opts),
        Format::ScopeCsv => importer::ScopeCsv::read(r, name, stem, opts),
        Format::CycleLog => importer::CycleLog::read(r, name, stem, opts),
        Format::Native => importer::Native::read(r, name, stem, opts),
        f @ (Format::Perf | Format::TraceRecorder | Format::SystemView) => {
            Err(Error::usage(format!(
                "{name}: a {} recording cannot be read from a stream without spooling",
                f.name()
            )))
        }
    }
}

/// Reads in-memory bytes (detecting the format unless `opts.format` is set).
pub fn read_bytes(bytes: &[u8], name: &str, opts: &Options) -> Result<Capture> {
    let format = match opts.format {
        Some(f) => f,
        None => detect(&bytes[..bytes.len().min(8192)])
            .ok_or_else(|| Error::format(name, Place::File, "unrecognised capture format"))?,
    };
    read_format(std::io::Cursor::new(bytes), format, name, "ch", opts)
}
