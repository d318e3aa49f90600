//! Fuzz the reader of `latscope measure --json` results (used by `latscope compare`):
//! any input must give a report or a clean error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = latscope_measure::Report::from_json(text);
    }
});
