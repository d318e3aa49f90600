//! latscope-measure: Linux timer wake-up latency, measured right and explained.
//!
//! * [`settings`]: what to measure (validated, with the parsers for CPU lists, loads,
//!   sweeps);
//! * [`engine`]: the pinned, locked, allocation-free measuring threads;
//! * [`env`]: the environment diagnosis, read from a root directory (fixtures in tests);
//! * [`ftrace`]: spike attribution from kernel tracepoints;
//! * [`merge`]: results merged from their JSON (`--append`, `latscope merge`);
//! * [`hdr`]: histograms in HdrHistogram's standard serialised form (`hdr` keys);
//! * [`idlecost`]: the idle states' cost measured with and without a PM QoS hold;
//! * [`load`]: built-in background load and the PM QoS hold;
//! * [`samples`]: raw samples through a lock-free ring to a writer thread;
//! * [`outfile`]: outputs written to a temporary file and renamed when complete;
//! * [`rivals`]: other real-time threads competing on the measured CPUs;
//! * [`metrics`], [`exposition`], [`publish`]: live metrics for Prometheus (`--listen`,
//!   `--openmetrics`): lock-free counters, their text format, the server and file;
//! * [`output`]: the versioned JSON report and cyclictest's histogram format;
//! * [`combine`]: `latscope merge`: runs of the same settings combined exactly;
//! * [`compare`]: two reports side by side with a regression verdict;
//! * [`gate`]: the rank test over per-round figures that decides that verdict;
//! * [`underload`]: why a loaded run can be faster than an idle one;
//! * [`plan_spec`]: the user's choices as given → a checked [`Plan`] (CLI and Python);
//! * [`values`]: the flags' text forms as typed values (`FromStr`, for clap and Python);
//! * [`session`]: one whole `measure` invocation;
//! * [`noise`]: `latscope noise`, OS and hardware noise seen by spinning threads;
//!
//! Nothing here prints or exits; errors carry their context.

pub mod bottom_line;
pub mod combine;
pub mod compare;
pub mod compare_doc;
pub mod engine;
pub mod env;
pub mod exposition;
pub mod ftrace;
pub mod gate;
pub mod hdr;
pub mod housekeeping;
pub mod idlecost;
pub mod load;
pub mod merge;
pub mod metrics;
pub mod noise;
pub mod outfile;
pub mod output;
pub mod plan_spec;
pub mod publish;
pub mod rivals;
pub mod samples;
pub mod session;
pub mod settings;
pub mod stats_json;
pub mod thread_error;
pub mod underload;
pub mod values;

pub use output::Report;
pub use plan_spec::PlanSpec;
pub use session::{execute, prepare, Outcome, Plan, Prepared};
pub use settings::Settings;

/// Every failure of this crate. `Input` is the user's to fix (exit 2 before anything
/// starts); the others name the file or resource involved.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    #[error("{0}")]
    Input(String),
    #[error(
        "real-time scheduling refused: {0}; pass --allow-fallback to measure as SCHED_OTHER anyway"
    )]
    RtRefused(String),
    #[error("{0}")]
    Setup(String),
    #[error("{path}: {msg}")]
    Output { path: String, msg: String },
    #[error("{what}{}: {msg}", if *line > 0 { format!(" line {line}") } else { String::new() })]
    Parse {
        what: String,
        line: usize,
        msg: String,
    },
}

/// Installs SIGINT and SIGTERM handlers that set `flag` (the run then ends early and
/// still writes every output). A second SIGINT or SIGTERM while the flag is already set
/// exits at once (status 130 or 143); outputs not yet renamed into place are then lost,
/// earlier results under the same names stay intact.
pub fn stop_on_signals(
    flag: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // Order matters: the conditional exit checks the flag before the second handler
    // sets it, so only a repeated signal exits.
    signal_hook::flag::register_conditional_shutdown(SIGINT, 130, flag.clone())?;
    signal_hook::flag::register_conditional_shutdown(SIGTERM, 143, flag.clone())?;
    signal_hook::flag::register(SIGINT, flag.clone())?;
    signal_hook::flag::register(SIGTERM, flag.clone())?;
    Ok(())
}
