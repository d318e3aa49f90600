//! The JSON a real (short, unprivileged) run produces reads back into the same typed
//! report and writes the same text again (docs/measure.schema.json is generated from the
//! type; scripts/test.d/20-model-schema validates the CLI's output against it).

use latscope_measure::settings::{OverrunPolicy, Policy, Settings, Stop, TimerMode};
use latscope_measure::{session, Plan, Report};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The typed contract: the JSON reads back into the same report and the same text.
fn reads_back(r: &Report) {
    let text = r.to_json();
    let back = Report::from_json(&text).unwrap();
    assert_eq!(&back, r);
    assert_eq!(back.to_json(), text);
}

fn short_run(plan_edit: impl FnOnce(&mut Plan)) -> Report {
    let s = Settings {
        cpus: vec![0],
        policy: Policy::Other,
        priority: 0,
        mode: TimerMode::Absolute,
        interval_ns: 200_000,
        stop: Stop::Loops(25),
        overrun: OverrunPolicy::Skip,
        us_bins: 500,
        lock_memory: false,
        ..Settings::default()
    };
    let mut plan = Plan::new(s);
    plan.root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vm-guest");
    plan_edit(&mut plan);
    let prep = session::prepare(&plan).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    session::execute(&plan, &prep, &stop, &mut |_, _| {})
        .unwrap()
        .report
}

#[test]
fn plain_run_matches_schema_and_round_trips() {
    let r = short_run(|_| {});
    let text = r.to_json();
    reads_back(&r);
    assert_eq!(r.total.count, 25);
    assert_eq!(r.cpus.len(), 1);
    assert_eq!(r.total.histogram.iter().map(|b| b.count).sum::<u64>(), 25);
    // Diagnosis came from the fixture tree.
    assert_eq!(r.kernel, "6.18.44-fc");
    assert!(r
        .environment
        .items
        .iter()
        .any(|i| i.name == "cpuidle" && i.value.contains("haltpoll")));
    let back = Report::from_json(&text).unwrap();
    assert_eq!(back, r);
}

#[test]
fn sweep_and_compare_match_schema() {
    let r = short_run(|p| {
        p.sweep = Some((100_000, 400_000, 3));
        p.sweep_text = Some("100us..400us".into());
    });
    reads_back(&r);
    let sw = r.sweep.as_ref().unwrap();
    assert_eq!(
        sw.iter().map(|p| p.interval_ns).collect::<Vec<_>>(),
        vec![100_000, 200_000, 400_000]
    );
    assert_eq!(r.total.count, sw.iter().map(|p| p.total.count).sum::<u64>());

    let r = short_run(|p| {
        p.compare_load = Some(latscope_measure::settings::parse_load("cpu:1").unwrap());
    });
    reads_back(&r);
    let c = r.compare.as_ref().unwrap();
    assert_eq!(c.idle.total.count, 25);
    assert_eq!(c.loaded.total.count, 25);
    assert_eq!(
        c.difference.p50_ns,
        c.loaded.total.p50_ns - c.idle.total.p50_ns
    );
}

#[test]
fn broken_documents_are_rejected() {
    let r = short_run(|_| {});
    let mut v: Value = serde_json::from_str(&r.to_json()).unwrap();
    v["total"].as_object_mut().unwrap().remove("p99_ns");
    // Reading it back fails on the missing key, naming it.
    let e = Report::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("p99_ns"), "{e}");
    let mut v: Value = serde_json::from_str(&r.to_json()).unwrap();
    v["environment"]["items"][0]["status"] = Value::from("fine");
    let e = Report::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("fine"), "{e}");
    // A statistic of the wrong type is refused.
    let mut v: Value = serde_json::from_str(&r.to_json()).unwrap();
    v["cpus"][0]["max_ns"] = Value::from("big");
    assert!(Report::from_json(&v.to_string()).is_err());
    // Another kind of file is refused by kind.
    let e = Report::from_json(r#"{"kind":"trace","schema_version":1}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("kind"), "{e}");
}
