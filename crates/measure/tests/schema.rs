//! The JSON a real (short, unprivileged) run produces matches docs/measure-schema.json,
//! and reads back into the same report.

use latscope_measure::settings::{OverrunPolicy, Policy, Settings, Stop, TimerMode};
use latscope_measure::{schema, session, Plan, Report};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn schema_doc() -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/measure-schema.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
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
    let v: Value = serde_json::from_str(&text).unwrap();
    let errs = schema::check(&schema_doc(), &v);
    assert!(errs.is_empty(), "{errs:#?}");
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
    let v: Value = serde_json::from_str(&r.to_json()).unwrap();
    let errs = schema::check(&schema_doc(), &v);
    assert!(errs.is_empty(), "{errs:#?}");
    let sw = r.sweep.as_ref().unwrap();
    assert_eq!(
        sw.iter().map(|p| p.interval_ns).collect::<Vec<_>>(),
        vec![100_000, 200_000, 400_000]
    );
    assert_eq!(r.total.count, sw.iter().map(|p| p.total.count).sum::<u64>());

    let r = short_run(|p| {
        p.compare_load = Some(latscope_measure::settings::parse_load("cpu:1").unwrap());
    });
    let v: Value = serde_json::from_str(&r.to_json()).unwrap();
    let errs = schema::check(&schema_doc(), &v);
    assert!(errs.is_empty(), "{errs:#?}");
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
    v["environment"]["items"][0]["status"] = Value::from("fine");
    let errs = schema::check(&schema_doc(), &v);
    assert_eq!(errs.len(), 2, "{errs:#?}");
    // Reading it back fails on the missing key, naming it.
    let e = Report::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(e.contains("p99_ns") || e.contains("fine"), "{e}");
    // Another kind of file is refused by kind.
    let e = Report::from_json(r#"{"kind":"trace","schema_version":1}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("kind"), "{e}");
}
