//! Fuzz the saleae_bin importer: any input must give a capture or a clean error, and an
//! analog waveform measured while read must match it thresholded whole (`analog.rs`).
#![no_main]

use latscope_trace::import::Format;
use libfuzzer_sys::fuzz_target;

mod analog;

fuzz_target!(|data: &[u8]| analog::check(data, Format::SaleaeBin));
