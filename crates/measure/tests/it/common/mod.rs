//! Helpers shared by the trace fixture tests.

use latscope_measure::engine::RawSample;
use std::path::PathBuf;

/// A recorded trace under tests/fixtures/trace.
pub fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trace")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

/// A sample of cpu 1 whose timer expired at `abs` (phase start 100 s earlier).
pub fn sample(abs: i64, latency: i64) -> RawSample {
    RawSample {
        cpu: 1,
        phase: 0,
        missed: 0,
        intended_ns: abs - 100_000_000_000,
        latency_ns: latency,
        abs_ns: abs,
    }
}
