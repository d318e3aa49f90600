//! The `simulate --json` document reads back into the typed result unchanged, with the
//! summaries written through the shared core summary (keys as before).

use latscope_core::Picos;
use latscope_model::System;
use latscope_sim::*;

const SYS: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 1000
model = "tick"
task_selection = "optimised"
[kernel.costs]
tick_base = "5us"
tick_per_release = "1us"
switch_base = "3.5us"
switch_per_level = "0us"
switch_optimised = "3.5us"
[[task]]
name = "fast"
period = "2ms"
wcet = "300us"
priority = 2
[[task]]
name = "slow"
period = "7ms"
wcet = "1ms"
priority = 3
[[task]]
name = "never"
period = "1h"
offset = "1s"
wcet = "1ms"
priority = 4
"#;

fn report() -> SimReport {
    let sys = System::from_toml_str(SYS, "t.toml").expect("valid system");
    let cfg = from_system(&sys, &FromSystemOptions::default()).unwrap();
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(50));
    s.report()
}

#[test]
fn round_trips_through_json() {
    let r = report();
    let text = serde_json::to_string_pretty(&r).unwrap();
    let back = SimReport::from_json(&text).unwrap();
    assert_eq!(back, r);
    assert_eq!(serde_json::to_string_pretty(&back).unwrap(), text);
}

#[test]
fn summaries_keep_their_keys() {
    let r = report();
    let v = serde_json::to_value(&r).unwrap();
    let keys = |x: &serde_json::Value| {
        let mut k: Vec<String> = x.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    // Every response summary has the same nine keys; a task without a completed job
    // has them null, not absent.
    let want = [
        "count",
        "max_at_ns",
        "max_ns",
        "mean_ns",
        "min_ns",
        "p50_ns",
        "p90_ns",
        "p999_ns",
        "p99_ns",
    ];
    for t in v["tasks"].as_array().unwrap() {
        assert_eq!(keys(&t["response"]), want, "{t}");
    }
    let never = &v["tasks"][2]["response"];
    assert_eq!(never["count"], 0);
    assert!(never["max_ns"].is_null() && never["p99_ns"].is_null());
    assert_eq!(
        v["tasks"][0]["response"]["count"].as_u64(),
        Some(r.tasks[0].jobs)
    );
    assert_eq!(
        v["tick"]["max_ns"].as_f64(),
        r.tick.max_ns,
        "tick max written from the report"
    );
    for k in [
        "count",
        "min_ns",
        "max_ns",
        "mean_ns",
        "p50_ns",
        "p99_ns",
        "lost",
        "peak_count",
    ] {
        assert!(v["tick"].get(k).is_some(), "tick.{k}");
    }
    for k in ["count", "min_ns", "mean_ns", "max_ns", "by_pair"] {
        assert!(v["switches"].get(k).is_some(), "switches.{k}");
    }
}

#[test]
fn a_wrong_word_is_an_error() {
    let mut v = serde_json::to_value(report()).unwrap();
    v["kernel"] = "rr".into();
    let e = SimReport::from_json(&v.to_string())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(r#""rr" is not one of "tick", "list-scan""#),
        "{e}"
    );
}
