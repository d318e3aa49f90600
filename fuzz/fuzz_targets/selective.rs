//! The check shared by the capture fuzz targets that decode selectively (sigrok, vcd,
//! csv): any input must give a capture or a clean error; a capture read whole must read
//! again with only channel #0 selected, with the same edges on it and none on the others;
//! and a pulse and a period measurement on it must not panic.

use latscope_trace::import::{read_bytes, Format, Options};
use latscope_trace::measure;

pub fn check(data: &[u8], format: Format) {
    let opts = Options {
        format: Some(format),
        cpu_hz: Some(100_000_000),
        ..Default::default()
    };
    let Ok(cap) = read_bytes(data, "fuzz-input", &opts) else {
        return;
    };
    // whatever an importer accepts must satisfy the capture invariants
    assert!(cap.validate().is_ok());
    if cap.channels.is_empty() {
        return;
    }
    let sel = Options {
        only_channels: Some(vec!["#0".into()]),
        ..opts.clone()
    };
    let one = read_bytes(data, "fuzz-input", &sel).expect("reads with a selection too");
    assert_eq!(one.channels.len(), cap.channels.len());
    assert_eq!(one.channels[0], cap.channels[0]);
    // (a channel named "#0" is selected by that name too)
    assert!(one.channels[1..]
        .iter()
        .all(|c| c.edges.is_empty() || c.name == "#0"));
    let reqs = [
        measure::parse_pulse("#0").expect("a pulse request"),
        measure::parse_period("#0:rise", None).expect("a period request"),
    ];
    let set = measure::Settings {
        worst: 3,
        bins: 10,
        ..Default::default()
    };
    let _ = measure::run(&cap, &reqs, &set);
}
