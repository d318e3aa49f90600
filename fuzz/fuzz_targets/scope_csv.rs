//! Fuzz the scope_csv importer: any input must give a capture or a clean error, and a
//! column measured while read must match it thresholded whole (`analog.rs`).
#![no_main]

use latscope_trace::import::Format;
use libfuzzer_sys::fuzz_target;

mod analog;

fuzz_target!(|data: &[u8]| analog::check(data, Format::ScopeCsv));
