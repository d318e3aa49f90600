//! `latscope trace --chain`: where the steps' times come from (a capture, or an event
//! recording when a step names an actor's event) and the run over every chain.

use super::trace::InputArgs;
use anyhow::{Context, Result};
use latscope_core::capture::Capture;
use latscope_core::events::EventTrace;
use latscope_trace::chain::{self, ChainResult, ChainSpec, Sources};
use latscope_trace::import;
use latscope_trace::measure::Settings;
use std::path::PathBuf;

/// What [`InputArgs::load`] gives: the capture, the format's name, the decoded flags.
pub type Loaded = (Capture, String, Vec<bool>);

/// The event recording and its capture (`to_capture`, as every other measurement sees
/// it), the format's name and the decoded flags (all channels).
pub fn load_events(files: &[PathBuf], input: &InputArgs) -> Result<(Option<EventTrace>, Loaded)> {
    let [file] = files else {
        anyhow::bail!(
            "--chain with an actor's event (ready, switch, block, enter, exit) reads one \
             event recording; {} files were given",
            files.len()
        );
    };
    let opts = input.options()?;
    let tr = import::events::open(file, &opts).with_context(|| {
        "--chain with an actor's event (ready, switch, block, enter, exit) needs an event \
         recording (perf.data, TraceRecorder .psf, SystemView .SVDat); in a capture use an \
         edge: rise, fall or any"
    })?;
    for w in opts.warnings.take() {
        eprintln!("latscope: warning: {w}");
    }
    let cap = tr.to_capture();
    let decoded = vec![true; cap.channels.len()];
    let format = tr.format.clone();
    Ok((Some(tr), (cap, format, decoded)))
}

/// Every chain over the capture (or recording), in the range and with the worst-list
/// and histogram sizes of the other measurements.
pub fn measure(
    chains: &[ChainSpec],
    cap: &Capture,
    events: Option<&EventTrace>,
    set: &Settings,
) -> Result<Vec<ChainResult>> {
    let src = Sources {
        cap,
        events,
        from: set.from,
        to: set.to,
        worst: set.worst,
        bins: set.bins,
    };
    Ok(chain::measure_all(chains, &src)?)
}
