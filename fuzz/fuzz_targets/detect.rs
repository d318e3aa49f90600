//! Fuzz format detection plus whichever importer it picks.
#![no_main]

use latscope_trace::import::{read_bytes, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = read_bytes(data, "fuzz-input", &Options::default());
});
