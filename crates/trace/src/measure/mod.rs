//! Measurements (see docs/trace.md).
