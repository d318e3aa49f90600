//! Fuzz the sigrok importer with the selective-decoding check of `selective.rs` and the
//! analog check of `analog.rs`.
#![no_main]

use latscope_trace::import::Format;
use libfuzzer_sys::fuzz_target;

mod analog;
mod selective;

fuzz_target!(|data: &[u8]| {
    selective::check(data, Format::Sigrok);
    analog::check(data, Format::Sigrok);
});
