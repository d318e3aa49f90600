//! Durations on the command line are parsed by one function with one unit table: the
//! spellings people type are accepted, an unknown unit's error lists every unit, and a
//! negative value reaches latscope's parser (not clap's "unexpected argument '-1'").

use crate::common;
use common::{fails, ok};

fn table1() -> String {
    format!(
        "{}/../sim/tests/data/table1.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn spellings_are_accepted_and_mean_the_same() {
    // The simulated span is in the JSON: 2 s spelled four ways gives four equal results.
    let mut spans = Vec::new();
    for d in ["2s", "2 sec", "2secs", "2000ms"] {
        let out = ok(&["simulate", &table1(), "--duration", d, "--json", "-"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        spans.push(v["duration_ns"].clone());
    }
    assert!(spans[0].as_f64().is_some(), "{:?}", spans[0]);
    assert_eq!(spans[0].as_f64().unwrap(), 2e9);
    assert!(spans.iter().all(|s| *s == spans[0]), "{spans:?}");
}

#[test]
fn unknown_unit_lists_every_unit() {
    let e = fails(&["simulate", &table1(), "--duration", "10 parsecs"], 2);
    for u in ["ps", "ns", "µs", "usec", "ms", "secs", "min", "m,", "hours"] {
        assert!(e.contains(u), "{u} missing from: {e}");
    }
}

#[test]
fn negative_durations_are_refused_in_latscope_words() {
    for args in [
        &["simulate", &table1(), "--duration", "-1s"][..],
        &["simulate", &table1(), "--max-duration", "-5ms"][..],
        &[
            "generate",
            "-n",
            "3",
            "-u",
            "0.5",
            "--period-min",
            "-1ms",
            "-o",
            "-",
        ][..],
    ] {
        let e = fails(args, 2);
        assert!(e.contains("is negative"), "{args:?}: {e}");
        assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
    }
    let e = fails(&["measure", "--duration", "-1s", "--diagnose-only"], 2);
    assert!(!e.contains("unexpected argument"), "{e}");
    assert!(e.contains("-1s"), "{e}");
}

fn demo8() -> String {
    format!(
        "{}/../trace/tests/fixtures/demo8.sr",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn typed_flags_are_refused_by_clap_in_the_library_s_words() {
    // trace's duration, frequency and format flags are typed by clap through the
    // library's FromStr (Picos, Hz, Format, OutFormat): a bad value stops before any file
    // is read, in one line naming the flag, the value and the problem.
    let sr = demo8();
    for (flag, value, want) in [
        ("--window", "-1ms", "--window '-1ms': '-1ms' is negative"),
        (
            "--from",
            "10 parsecs",
            "--from '10 parsecs': unknown unit 'parsecs'",
        ),
        ("--to", "5", "--to '5': '5' has no unit"),
        (
            "--nominal",
            "1 fortnight",
            "--nominal '1 fortnight': unknown unit",
        ),
        ("--samplerate", "0", "--samplerate '0': must be positive"),
        (
            "--cpu-hz",
            "fast",
            "--cpu-hz 'fast': 'fast' is not a number",
        ),
        (
            "--input-format",
            "betamax",
            "--input-format 'betamax': unknown format (use sigrok, saleae-csv,",
        ),
    ] {
        let e = fails(&["trace", &sr, "--pulse", "D0", flag, value], 2);
        assert!(e.contains(want), "{flag} {value}: {e}");
        assert!(!e.contains("unexpected argument"), "{flag} {value}: {e}");
    }
    let e = fails(&["trace", &sr, "--pulse", "D0", "--from", "10 parsecs"], 2);
    assert!(e.contains("minutes") && e.contains("µs"), "{e}");
    let e = fails(&["convert", &sr, "-o", "-", "--format", "betamax"], 2);
    assert!(
        e.contains("--format 'betamax': unknown output format (vcd, native, perfetto)"),
        "{e}"
    );
    // The typed values reach the command: a window in another spelling gives the same
    // figures.
    let json = |w: &str| {
        let o = ok(&["trace", &sr, "--busy", "D0", "--window", w, "--json", "-"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["measurements"].clone()
    };
    assert_eq!(json("100us"), json("0.1 msec"));
}
