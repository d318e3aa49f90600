//! latscope-trace: import logic-analyzer and oscilloscope captures into the one capture
//! model ([`latscope_core::capture::Capture`]), compute timing figures from edge lists,
//! and export to VCD, latscope's native format and Perfetto.
//!
//! * [`import`]: one module per file format, plus content-based detection;
//! * [`measure`]: pulse widths, latencies, periods, busy fractions, counts, limits;
//! * [`export`]: VCD, native (`.lscap`), Perfetto (Chrome trace-event JSON);
//! * [`spec`]: the TOML spec file naming channels by role;
//! * [`tasks`]: task timing from an event recording (jobs, response, start latency).

pub mod chain;
pub mod error;
pub mod export;
pub mod import;
pub mod measure;
pub mod report;
pub mod spec;
pub mod tasks;

pub use error::{Error, Result};
