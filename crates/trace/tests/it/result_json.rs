//! The `trace --json` document reads back into the typed result and writes the same
//! text again; its measurements carry the shared summary under the keys they always had.

use latscope_core::capture::{Capture, DigitalChannel};
use latscope_core::time::Picos;
use latscope_trace::measure::{self, Limit, Per, Settings};
use latscope_trace::report::Report;

fn capture() -> Capture {
    Capture {
        source: "built in test".into(),
        samplerate_hz: Some(10_000_000),
        start: Picos::ZERO,
        end: Picos::from_ms(2),
        channels: vec![
            DigitalChannel {
                name: "SysTick".into(),
                initial: false,
                edges: (0..40)
                    .map(|i| Picos::from_us(i / 2 * 50 + (i % 2) * 3) + Picos(100_000 * (i % 3)))
                    .collect(),
            },
            DigitalChannel {
                name: "idle".into(),
                initial: false,
                edges: vec![],
            },
        ],
        analog: vec![],
    }
}

fn report() -> Report {
    let cap = capture();
    let reqs = vec![
        measure::parse_pulse("SysTick").unwrap(),
        measure::parse_pulse("idle").unwrap(),
        measure::parse_period("SysTick:rise", Some(Picos::from_us(50))).unwrap(),
        measure::parse_busy("SysTick", &Per::Window(Picos::from_us(500))).unwrap(),
        measure::parse_count("SysTick", &Per::Window(Picos::from_us(500))).unwrap(),
    ];
    let ms = measure::run(&cap, &reqs, &Settings::default()).unwrap();
    let limits = vec![
        Limit::parse("SysTick.max<5us").unwrap(),
        Limit::parse("idle.max<5us").unwrap(),
    ];
    let out = measure::check_limits(&limits, &ms).unwrap();
    Report::new(&cap, "vcd", None, None, ms, out)
}

#[test]
fn round_trips_through_json() {
    let r = report();
    let text = serde_json::to_string_pretty(&r).unwrap();
    let back = Report::from_json(&text).unwrap();
    assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text);
    assert_eq!(back.measurements.len(), 5);
    assert_eq!(back.measurements[0].max_ns, r.measurements[0].max_ns);
    assert!(
        back.measurements[1].max_ns.is_nan(),
        "no instance reads back as NaN"
    );
    assert_eq!(back.limits, r.limits);
    assert!(!back.pass);
}

#[test]
fn measurements_keep_their_keys() {
    let v = serde_json::to_value(report()).unwrap();
    let m = &v["measurements"][0];
    for k in [
        "name",
        "kind",
        "definition",
        "unit",
        "count",
        "min_ns",
        "max_ns",
        "mean_ns",
        "stdev_ns",
        "mode_ns",
        "p50_ns",
        "p90_ns",
        "p99_ns",
        "p999_ns",
        "p9999_ns",
        "min_at_ns",
        "max_at_ns",
        "min_at_sample",
        "max_at_sample",
        "resolution_ns",
        "unmatched",
        "worst",
        "histogram",
    ] {
        assert!(m.get(k).is_some(), "measurements[0].{k} missing: {m}");
    }
    // 3 us pulses whose edges move by 0, 0.1, 0.2 us in turn: widths 3.1 us and 2.8 us;
    // whole nanoseconds are written as integers
    assert_eq!(m["min_ns"].as_i64(), Some(2800), "{m}");
    assert_eq!(m["max_ns"].as_i64(), Some(3100), "{m}");
    let empty = &v["measurements"][1];
    assert_eq!(empty["count"], 0);
    for k in ["min_ns", "max_ns", "mean_ns", "p99_ns", "max_at_ns"] {
        assert!(empty[k].is_null(), "{k}: {empty}");
    }
    assert!(v["measurements"][3]["busy_percent"]["overall"].is_number());
}

#[test]
fn a_wrong_kind_or_unit_is_an_error() {
    let mut v = serde_json::to_value(report()).unwrap();
    v["measurements"][0]["unit"] = "s".into();
    let e = Report::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains(r#""s" is not one of "ns", "count""#), "{e}");
    let mut v = serde_json::to_value(report()).unwrap();
    v["kind"] = "measure".into();
    assert!(Report::from_json(&v.to_string()).is_err());
}
