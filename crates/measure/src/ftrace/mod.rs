//! Spike attribution from ordinary kernel tracepoints (no timerlat tracer needed).
//!
//! * [`parse`]: ftrace text lines to events;
//! * [`attribute`]: one spike's interrupt/thread split and what held the CPU;

pub mod attribute;
pub mod parse;

pub use attribute::{Blocker, Spike};
