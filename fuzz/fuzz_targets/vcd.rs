//! Fuzz the vcd importer with the selective-decoding check of `selective.rs` and the
//! analog check of `analog.rs` (`real` variables).
#![no_main]

use latscope_trace::import::Format;
use libfuzzer_sys::fuzz_target;

mod analog;
mod selective;

fuzz_target!(|data: &[u8]| {
    selective::check(data, Format::Vcd);
    analog::check(data, Format::Vcd);
});
