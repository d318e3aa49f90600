//! Spike attribution from ordinary kernel tracepoints (no timerlat tracer needed).
//!
//! * [`parse`]: ftrace text lines to events;
//! * [`attribute`]: one spike's interrupt/thread split and what held the CPU;
//! * [`live`]: a private tracefs instance during a run, correlated with the samples.

pub mod attribute;
pub mod live;
pub mod parse;

pub use attribute::{Blocker, Spike};
