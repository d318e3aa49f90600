//! Fuzz the cyclelog importer: any input must give a capture or a clean error.
#![no_main]

use latscope_trace::import::{read_bytes, Format, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        format: Some(Format::CycleLog),
        cpu_hz: Some(100_000_000),
        ..Default::default()
    };
    if let Ok(cap) = read_bytes(data, "fuzz-input", &opts) {
        // whatever an importer accepts must satisfy the capture invariants
        assert!(cap.validate().is_ok());
    }
});
