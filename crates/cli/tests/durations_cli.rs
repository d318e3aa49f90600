//! Durations on the command line are parsed by one function with one unit table: the
//! spellings people type are accepted, an unknown unit's error lists every unit, and a
//! negative value reaches latscope's parser (not clap's "unexpected argument '-1'").

mod common;
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
