//! Fuzz the SEGGER SystemView importer: any input must give an event trace that keeps the
//! model's rules (the importer validates it; here its capture view is built too, and every
//! lost-event window lies in order) or a one-line error naming the file, never a panic, a
//! hang or a large allocation.
#![no_main]

use latscope_trace::import::{events, Format, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let r = events::read(
        std::io::Cursor::new(data),
        Format::SystemView,
        "fuzz.SVDat",
        &Options::default(),
    );
    match r {
        Ok(t) => {
            assert!(t.validate().is_ok());
            assert!(t.lost.iter().all(|l| l.from <= l.to));
            let c = t.to_capture();
            assert_eq!(c.channels.len(), t.actors.len());
        }
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with("fuzz.SVDat"), "{m}");
            assert!(!m.contains('\n'), "{m}");
        }
    }
});
