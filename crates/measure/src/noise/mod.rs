//! `latscope noise`: how much of a busy CPU the OS and the hardware take, without the
//! kernel's osnoise/hwnoise tracers (missing on most cloud and VM kernels).
//!
//! * [`spin`]: the pinned threads that spin on the clock and see every gap;
//! * [`events`]: the trace lines classification reads (irq, softirq, sched, x86
//!   vectors, NMI);
//! * [`classify`]: one gap split into its sources (a gap no event covers is hardware);
//! * [`tracer`]: the private tracefs instance and the thread that classifies gaps live;
//! * [`gaplog`]: `--gaps FILE`, every classified gap as CSV;
//! * [`result`]: the JSON document and the per-CPU tally;
//! * [`merge`]: noise results of the same settings combined;
//! * [`openmetrics`]: the result as OpenMetrics text;
//! * [`run`]: one whole invocation.

pub mod classify;
pub mod events;
pub mod gaplog;
pub mod merge;
pub mod openmetrics;
pub mod result;
pub mod run;
pub mod spin;
pub mod tracer;

pub use result::NoiseReport;
pub use run::{NoisePlan, NoiseSpec};
