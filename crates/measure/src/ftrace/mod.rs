//! Spike attribution from kernel tracepoints (the timerlat tracer's split where the
//! kernel has it).
//!
//! * [`parse`]: ftrace text lines to events;
//! * [`attribute`]: one spike's interrupt/thread split and what held the CPU;
//! * [`lost`]: events the ring buffer lost, and which windows they leave incomplete;
//! * [`stalls`]: spikes of several CPUs that stalled together, grouped;
//! * [`steal`]: the hypervisor's steal time placed in a spike's window;
//! * [`timerlat`]: the timerlat tracer's lines, paired into split activations;
//! * [`correlate`]: trace events correlated with the measured samples;
//! * [`live`]: a private tracefs instance during a run, feeding the correlator;
//! * [`summary`]: the per-run `trace` object of the JSON;
//! * [`tracefs_error`]: why a tracefs instance could not be set up.

pub mod attribute;
pub mod correlate;
pub mod live;
pub mod lost;
pub mod parse;
pub mod stalls;
pub mod steal;
pub mod summary;
pub mod timerlat;
pub mod tracefs_error;

pub use attribute::{Blocker, Spike};
pub use summary::TraceSummary;
pub use tracefs_error::TracefsError;
