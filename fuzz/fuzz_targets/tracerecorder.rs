//! Fuzz the Percepio TraceRecorder importer (PSF streams and RingBuffer dumps): any input
//! must give an event trace that passes the model's checks, or a clean error.
#![no_main]

use latscope_trace::import::{events, Format, Options};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = events::read(
        Cursor::new(data),
        Format::TraceRecorder,
        "fuzz.psf",
        &Options::default(),
    ) {
        t.validate().expect("an accepted recording passes the model's checks");
        let _ = t.to_capture();
    }
});
