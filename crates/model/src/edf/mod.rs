//! Earliest-deadline-first scheduling (`kernel.scheduler = "edf"`): the processor-demand
//! test with QPA and per-task response-time bounds, with the kernel's overheads charged
//! as the fixed-priority analysis charges them (docs/analysis.md, "EDF").
//!
//! * [`workload`]: the system as EDF sees it: jobs with their overheads, and the work
//!   that preempts any job whatever its deadline (ticks, interrupt handlers);
//! * [`demand`]: the demand bound function, the busy period and the plain check of every
//!   deadline point (the reference QPA is tested against);
//! * [`qpa`]: Quick Processor-demand Analysis (Zhang & Burns 2009);
//! * [`spuri`]: response-time bounds per task (Spuri 1996);
//! * [`holistic`]: tasks released by another task's completion (chain event links);
//! * [`result`]: what `analyze` reports;
//! * [`cores`]: each EDF core of a partitioned multicore.

pub mod cores;
pub mod demand;
pub mod holistic;
pub mod qpa;
pub mod result;
pub mod spuri;
pub mod workload;

pub use cores::{analyze_edf_cores, EdfCore};
pub use result::{analyze_edf, EdfResult, EdfTask};
pub use workload::Workload;
