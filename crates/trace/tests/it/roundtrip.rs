//! Round trips through every exporter give the same edges.

use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::Picos;
use latscope_trace::export;
use latscope_trace::import;

fn sample() -> Capture {
    Capture {
        source: "built in test".into(),
        samplerate_hz: Some(10_000_000),
        start: Picos::from_us(-20),
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
                name: "Task".into(),
                initial: true,
                edges: vec![Picos::from_us(-10), Picos::from_us(700)],
            },
            DigitalChannel {
                name: "idle".into(),
                initial: true,
                edges: vec![],
            },
        ],
        analog: vec![AnalogChannel {
            name: "V".into(),
            start: Picos::from_us(-20),
            interval: Picos::from_us(100),
            values: (0..20).map(|i| i as f32 * 0.25).collect(),
        }],
    }
}

#[test]
fn native_round_trip_is_exact() {
    let cap = sample();
    cap.validate().unwrap();
    let mut buf = Vec::new();
    export::native::write(&cap, &mut buf).unwrap();
    let back = import::native::read(&buf, "x.lscap").unwrap();
    assert_eq!(back, cap);
    // every truncation is a clean error
    for n in 0..buf.len() {
        assert!(import::native::read(&buf[..n], "x.lscap").is_err(), "{n}");
    }
}

#[test]
fn vcd_round_trip_same_edges() {
    let cap = sample();
    let mut buf = Vec::new();
    export::vcd::write(&cap, &mut buf).unwrap();
    let back = import::vcd::read(&buf[..], "x.vcd").unwrap();
    assert_eq!(back.start, cap.start);
    assert_eq!(back.end, cap.end);
    assert_eq!(back.samplerate_hz, cap.samplerate_hz);
    assert_eq!(back.channels, cap.channels);
    assert_eq!(back.analog, cap.analog);
}

#[test]
fn perfetto_slices_match_pulses() {
    let cap = sample();
    let mut buf = Vec::new();
    export::perfetto::write(&cap, &[], &mut buf).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    let tick: Vec<(f64, f64)> = ev
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 1)
        .map(|e| (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap()))
        .collect();
    let want: Vec<(f64, f64)> = cap.channels[0]
        .pulses(true)
        .map(|(a, b)| ((a - cap.start).as_us_f64(), (b - a).as_us_f64()))
        .collect();
    assert_eq!(tick.len(), want.len());
    for (g, w) in tick.iter().zip(&want) {
        assert!(
            (g.0 - w.0).abs() < 1e-9 && (g.1 - w.1).abs() < 1e-9,
            "{g:?} {w:?}"
        );
    }
}

#[test]
fn random_captures_round_trip_through_vcd_and_native() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    for case in 0..200 {
        let tick = [1i64, 10, 1000, 7, 1_000_000][rng.gen_range(0..5)];
        let start = Picos(rng.gen_range(-1_000_000i64..1_000_000) * tick);
        let mut channels = Vec::new();
        let mut end = start;
        for c in 0..rng.gen_range(1..6) {
            let mut t = start;
            let mut edges = Vec::new();
            for _ in 0..rng.gen_range(0..40) {
                t += Picos(rng.gen_range(if edges.is_empty() { 0 } else { 1 }..5000) * tick);
                edges.push(t);
            }
            end = end.max(t);
            channels.push(DigitalChannel {
                name: format!("ch{c}/{}", ["a", "[x]", "é", "$", "#"][c % 5]),
                initial: rng.gen(),
                edges,
            });
        }
        let cap = Capture {
            source: format!("case {case}"),
            samplerate_hz: if rng.gen() { Some(1_000_000) } else { None },
            start,
            end: end + Picos(rng.gen_range(0..3) * tick),
            channels,
            analog: vec![],
        };
        cap.validate().unwrap();
        let mut n = Vec::new();
        export::native::write(&cap, &mut n).unwrap();
        assert_eq!(import::native::read(&n, "r").unwrap(), cap, "case {case}");
        let mut v = Vec::new();
        export::vcd::write(&cap, &mut v).unwrap();
        let back = import::vcd::read(&v[..], "r.vcd")
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{}", String::from_utf8_lossy(&v)));
        assert_eq!(back.channels, cap.channels, "case {case}");
        assert_eq!((back.start, back.end), (cap.start, cap.end), "case {case}");
    }
}

#[test]
fn vcd_names_with_keywords_read_back() {
    // D19.11: a channel named `$end` (or containing a keyword or whitespace) was written as
    // `$var wire 1 " $end $end`, which latscope itself could not read back.
    let names = [
        "$end",
        "_end",
        "$var",
        "x $end y",
        "a\tb",
        "",
        "$dumpvars",
        "ok",
        "$end",
    ];
    let edges = |i: i64| vec![Picos::from_us(1 + i), Picos::from_us(20 + i)];
    let cap = Capture {
        source: "odd $end source".into(),
        samplerate_hz: Some(1_000_000),
        start: Picos(0),
        end: Picos::from_us(50),
        channels: names
            .iter()
            .enumerate()
            .map(|(i, n)| DigitalChannel {
                name: n.to_string(),
                initial: i % 2 == 0,
                edges: edges(i as i64),
            })
            .collect(),
        analog: vec![AnalogChannel {
            name: "$scope".into(),
            start: Picos(0),
            interval: Picos::from_us(10),
            values: vec![0.5, 1.5],
        }],
    };
    let mut buf = Vec::new();
    export::vcd::write(&cap, &mut buf).unwrap();
    let text = String::from_utf8(buf.clone()).unwrap();
    let back = import::vcd::read(&buf[..], "k.vcd").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let got: Vec<&str> = back.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        got,
        [
            "_end",
            "_end_2",
            "_var",
            "x__end_y",
            "a_b",
            "ch5",
            "_dumpvars",
            "ok",
            "_end_3"
        ]
    );
    assert_eq!(back.analog.len(), 1);
    assert_eq!(back.analog[0].name, "_scope");
    assert_eq!(back.analog[0].values, cap.analog[0].values);
    for (b, c) in back.channels.iter().zip(&cap.channels) {
        assert_eq!((b.initial, &b.edges), (c.initial, &c.edges), "{}", c.name);
    }
    // Deterministic: the same capture gives the same file.
    let mut again = Vec::new();
    export::vcd::write(&cap, &mut again).unwrap();
    assert_eq!(again, buf);
}
