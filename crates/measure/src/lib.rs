//! latscope-measure: Linux timer wake-up latency, measured right and explained.
//!
//! * [`settings`]: what to measure (validated, with the parsers for CPU lists, loads,
//!   sweeps);
//! * [`engine`]: the pinned, locked, allocation-free measuring threads;
//! * [`env`]: the environment diagnosis, read from a root directory (fixtures in tests);
//! * [`load`]: built-in background load and the PM QoS hold;
//! * [`samples`]: raw samples through a lock-free ring to a writer thread;
//! * [`output`]: the versioned JSON report and cyclictest's histogram format;
//! * [`compare`]: two reports side by side with a regression verdict;
//! * [`session`]: one whole `measure` invocation;
//! * [`schema`]: a checker for the JSON Schema subset of docs/measure-schema.json.
//!
//! Nothing here prints or exits; errors carry their context.

pub mod compare;
pub mod engine;
pub mod env;
pub mod load;
pub mod output;
pub mod samples;
pub mod schema;
pub mod session;
pub mod settings;

pub use output::Report;
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
/// still writes every output).
pub fn stop_on_signals(
    flag: &std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::io::Result<()> {
    signal_hook::flag::register(signal_hook::consts::SIGINT, flag.clone())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, flag.clone())?;
    Ok(())
}
