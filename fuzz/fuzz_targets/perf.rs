//! Fuzz the perf.data importer: any input must give an event trace that passes the
//! model's checks (lost and inferred windows naming CPUs and actors that exist among
//! them) and that task timing reads, or a clean error (never a panic, an allocation bomb
//! or a hang).
#![no_main]

use latscope_trace::import::{events, Format, Options};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        max_edges: Some(1_000_000),
        ..Default::default()
    };
    if let Ok(tr) = events::read(Cursor::new(data), Format::Perf, "fuzz-input", &opts) {
        assert!(tr.validate().is_ok());
        // the capture view of whatever was accepted must be a valid capture
        assert!(tr.to_capture().validate().is_ok());
        // and task timing (lost and inferred windows per CPU among its inputs) must run
        let r = latscope_trace::tasks::analyze(&tr, &Default::default());
        assert_eq!(r.lost_events.windows.len(), tr.lost.len());
    }
});
