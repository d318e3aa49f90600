//! `latscope measure --rounds` and the `latscope compare` gate: per-round summaries,
//! refusal of runs that measured different things, the verdict from the spread between
//! rounds, and when the maximum joins the default gate. The verdict tests use documents
//! derived from one real run with controlled per-round figures, so they do not depend on
//! how quiet the machine is.

use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common;
use common::{run, s};

/// One real short run with 4 rounds (loop counts: robust on a busy machine).
fn base_run(dir: &Path) -> Value {
    let p = dir.join("base.json");
    let out = run(&[
        "measure",
        "--allow-fallback",
        "-q",
        "--cpus",
        "0",
        "--interval",
        "500us",
        "--loops",
        "80",
        "--rounds",
        "4",
        "--json",
        s(&p),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

#[test]
fn rounds_are_summarised_and_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let v = base_run(dir.path());
    let back = latscope_measure::Report::from_json(&v.to_string()).unwrap();
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        v,
        "reads back into the typed result unchanged"
    );
    let rounds = v["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 4);
    assert_eq!(v["settings"]["rounds"], 4);
    let sum: u64 = rounds.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(sum, v["total"]["count"].as_u64().unwrap());
    // 80 loops shared by 4 rounds: 20 wake-ups each (`--loops` counts wake-ups,
    // docs/measure.md), each one sample. Periods missed on a busy machine are overruns on
    // top of them, not taken out of them, so the count does not depend on the load.
    for r in rounds {
        assert_eq!(r["count"].as_u64().unwrap(), 20, "{r}");
    }
    let max = rounds.iter().map(|r| r["max_ns"].as_i64().unwrap()).max();
    assert_eq!(max, v["total"]["max_ns"].as_i64());
    // Bad combinations are refused.
    for extra in [
        vec!["--rounds", "0"],
        vec!["--rounds", "3", "--sweep", "100us..1ms"],
        vec!["--rounds", "10", "--loops", "5"],
        vec!["--rounds", "10", "--duration", "10ms"],
    ] {
        let mut args = vec!["measure", "--allow-fallback", "-q"];
        args.extend(extra.iter().copied());
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("round"),
            "{extra:?}"
        );
    }
}

/// A copy of `v` whose rounds have the given p50s (µs) and `n` samples each; the other
/// figures are kept consistent (p99 = 2 × p50, max = 3 × p50).
fn with_rounds(v: &Value, p50s_us: &[f64], n: u64) -> Value {
    let mut d = v.clone();
    let template = v["rounds"][0].clone();
    let rounds: Vec<Value> = p50s_us
        .iter()
        .map(|&p| {
            let mut r = template.clone();
            let ns = (p * 1000.0) as i64;
            r["count"] = n.into();
            r["min_ns"] = (ns / 2).into();
            r["p50_ns"] = ns.into();
            r["mean_ns"] = (ns as f64).into();
            r["p90_ns"] = (ns * 3 / 2).into();
            r["p99_ns"] = (ns * 2).into();
            r["p999_ns"] = (ns * 3).into();
            r["p9999_ns"] = (ns * 3).into();
            r["max_ns"] = (ns * 3).into();
            r["overruns"] = 0.into();
            r
        })
        .collect();
    d["rounds"] = Value::Array(rounds);
    d
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn the_rounds_decide_with_their_spread() {
    let dir = tempfile::tempdir().unwrap();
    let v = base_run(dir.path());
    let base = [40.0, 44.0, 38.0, 42.0, 41.0, 39.0, 43.0, 40.0, 42.0, 41.0];
    let a = write(dir.path(), "a.json", &with_rounds(&v, &base, 500));
    // Same distribution, different order and a little noise: not worse.
    let same: Vec<f64> = base.iter().rev().map(|x| x + 0.5).collect();
    let b_same = write(dir.path(), "b_same.json", &with_rounds(&v, &same, 500));
    // 25 % slower in every round: worse, with the change reported with its interval.
    let slow: Vec<f64> = base.iter().map(|x| x * 1.25).collect();
    let b_slow = write(dir.path(), "b_slow.json", &with_rounds(&v, &slow, 500));
    // 25 % slower on the median but the rounds scatter wildly: not proven.
    let wild_a = write(
        dir.path(),
        "wild_a.json",
        &with_rounds(&v, &[20.0, 80.0, 35.0, 60.0], 500),
    );
    let wild_b = write(
        dir.path(),
        "wild_b.json",
        &with_rounds(&v, &[25.0, 100.0, 40.0, 80.0], 500),
    );

    let out = run(&["compare", s(&a), s(&b_same)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("median of 10 rounds"), "{text}");
    assert!(text.contains("95% interval"), "{text}");

    let out = run(&["compare", s(&a), s(&b_slow)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("WORSE") && text.contains("p50 (+25.0 %"),
        "{text}"
    );
    assert!(text.contains("with 95 % confidence"), "{text}");
    // The better run is never worse.
    assert_eq!(run(&["compare", s(&b_slow), s(&a)]).status.code(), Some(0));
    // A threshold above the shift passes it.
    assert_eq!(
        run(&["compare", s(&a), s(&b_slow), "--threshold", "40%"])
            .status
            .code(),
        Some(0)
    );

    // The JSON carries the terminal's verdict and figures: one estimator per row.
    let j = dir.path().join("cmp.json");
    let out = run(&["compare", s(&a), s(&b_slow), "--json", s(&j)]);
    assert_eq!(out.status.code(), Some(1));
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(c["kind"], "compare");
    assert_eq!(c["verdict"], "worse");
    assert_eq!(c["method"], "rounds");
    let p50 = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "p50")
        .unwrap();
    let pct = p50["change_pct"].as_f64().unwrap();
    assert!((pct - 25.0).abs() < 0.05, "{p50}");
    assert!(p50["worse"].as_bool().unwrap() && p50["gated"].as_bool().unwrap());
    assert!(p50["lower"].as_f64().unwrap() <= pct && pct <= p50["upper"].as_f64().unwrap());
    let diff = p50["diff"].as_f64().unwrap();
    let a_p50 = p50["a"].as_f64().unwrap();
    assert!((diff - a_p50 * pct / 100.0).abs() < 1e-6 * a_p50, "{p50}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("p50 (+25.0 %"));
    // `--json -`: the document alone on stdout, the verdict on stderr.
    let out = run(&["compare", s(&a), s(&b_same), "--json", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let c: Value = serde_json::from_slice(&out.stdout).expect("stdout is the JSON alone");
    assert_eq!(c["verdict"], "not worse");
    assert!(String::from_utf8_lossy(&out.stderr).contains("PASS: B is not worse"));

    let out = run(&["compare", s(&wild_a), s(&wild_b)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");

    // The same two files without rounds: the single figures decide (and say so).
    let mut flat = v.clone();
    flat.as_object_mut().unwrap().remove("rounds");
    let fa = write(dir.path(), "flat_a.json", &flat);
    let out = run(&["compare", s(&fa), s(&fa)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("single figures"), "{text}");
    assert_eq!(
        run(&["compare", s(&a), s(&a), "--confidence", "120"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn max_joins_the_default_gate_only_with_enough_samples() {
    let dir = tempfile::tempdir().unwrap();
    let v = base_run(dir.path());
    let p50 = [40.0, 41.0, 39.0, 40.0, 42.0, 40.0];
    let mut b_max = with_rounds(&v, &p50, 5000);
    for r in b_max["rounds"].as_array_mut().unwrap() {
        let m = r["max_ns"].as_i64().unwrap();
        r["max_ns"] = (m * 2).into(); // only the maximum doubled
    }
    // Enough: 6 rounds of 5000 samples each.
    let a = write(dir.path(), "a.json", &with_rounds(&v, &p50, 5000));
    let b = write(dir.path(), "b.json", &b_max);
    let out = run(&["compare", s(&a), s(&b)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("max is gated") && text.contains("max (+"),
        "{text}"
    );
    // Too few samples per round: the maximum is shown but not gated.
    let mut b_few = b_max.clone();
    let mut a_few = with_rounds(&v, &p50, 5000);
    for d in [&mut b_few, &mut a_few] {
        for r in d["rounds"].as_array_mut().unwrap() {
            r["count"] = 200.into();
        }
    }
    let a = write(dir.path(), "a_few.json", &a_few);
    let b = write(dir.path(), "b_few.json", &b_few);
    let out = run(&["compare", s(&a), s(&b)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("max is not gated") && text.contains("200 samples"),
        "{text}"
    );
    // Asked for explicitly, it is gated whatever the counts.
    assert_eq!(
        run(&["compare", s(&a), s(&b), "--metrics", "max"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn runs_that_measured_different_things_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let v = base_run(dir.path());
    let a = write(dir.path(), "a.json", &v);
    type Edit = Box<dyn Fn(&mut Value)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "policy",
            Box::new(|d: &mut Value| d["settings"]["policy"] = "rr".into()),
        ),
        (
            "priority",
            Box::new(|d: &mut Value| d["settings"]["priority"] = 42.into()),
        ),
        (
            "interval",
            Box::new(|d: &mut Value| d["settings"]["interval_ns"] = 100_000.into()),
        ),
        (
            "mode",
            Box::new(|d: &mut Value| d["settings"]["timer_mode"] = "timerfd".into()),
        ),
        (
            "cpus",
            Box::new(|d: &mut Value| d["settings"]["cpus"] = serde_json::json!([0, 1])),
        ),
    ];
    for (name, edit) in edits {
        let mut d = v.clone();
        edit(&mut d);
        let b = write(dir.path(), "b.json", &d);
        let out = run(&["compare", s(&a), s(&b)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(name) && err.contains("--force"),
            "{name}: {err}"
        );
        assert!(out.stdout.is_empty(), "{name}: no verdict printed");
        let forced = run(&["compare", s(&a), s(&b), "--force"]);
        assert_ne!(forced.status.code(), Some(2), "{name}: --force compares");
    }
}

#[test]
fn append_gathers_interleaved_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.json");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "measure",
            "--allow-fallback",
            "-q",
            "--cpus",
            "0",
            "--interval",
            "500us",
            "--loops",
            "20",
            "--rounds",
            "2",
            "--append",
            "--json",
            s(&p),
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    assert!(run(&[]).status.success());
    let first: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert!(run(&[]).status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let back = latscope_measure::Report::from_json(&v.to_string()).unwrap();
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        v,
        "reads back into the typed result unchanged"
    );
    let rounds = v["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 4);
    assert_eq!(v["settings"]["rounds"], 4);
    assert_eq!(&rounds[..2], first["rounds"].as_array().unwrap().as_slice());
    let sum: u64 = rounds.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(sum, v["total"]["count"].as_u64().unwrap());
    let hsum: u64 = v["total"]["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(hsum, sum);
    let max = rounds.iter().map(|r| r["max_ns"].as_i64().unwrap()).max();
    assert_eq!(max, v["total"]["max_ns"].as_i64());
    // A run of another kind is refused before measuring; the file stays as it was.
    let before = std::fs::read(&p).unwrap();
    let out = run(&["--mode", "timerfd"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mode"));
    assert_eq!(std::fs::read(&p).unwrap(), before);
}
