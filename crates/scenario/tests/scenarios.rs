//! Every bundled scenario runs (scaled down) and its predictions land within the
//! tolerance its README states. A prediction outside tolerance fails the test with the
//! row printed, so a model change that breaks a reproduction is caught here.

use latscope_scenario::{list, run, Options, Role};

fn check(name: &str) -> latscope_scenario::Outcome {
    let out = run(
        name,
        &Options {
            quick: true,
            out_dir: None,
        },
    )
    .expect(name);
    assert_eq!(out.kind, "scenario");
    assert!(!out.rows.is_empty(), "{name}: no rows");
    for r in &out.rows {
        eprintln!(
            "{name}: {:<60} published {:>10.4} latscope {:>10.4} {} {:?} {:?}",
            r.figure, r.published, r.latscope, r.unit, r.role, r.within
        );
        assert!(
            r.latscope.is_finite(),
            "{name}: {} is not a number",
            r.figure
        );
    }
    let bad: Vec<_> = out
        .rows
        .iter()
        .filter(|r| r.role == Role::Prediction && r.within != Some(true))
        .map(|r| {
            format!(
                "{}: published {} latscope {}",
                r.figure, r.published, r.latscope
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{name}: predictions outside tolerance: {bad:#?}"
    );
    assert!(out.summary.predictions > 0, "{name}: no predictions");
    // Contract of `scenario run --json`: every prediction carries a numeric `tolerance`
    // and a boolean `within`.
    let json = serde_json::to_value(&out).unwrap();
    for r in json["rows"].as_array().unwrap() {
        for k in [
            "figure",
            "published",
            "latscope",
            "unit",
            "role",
            "tolerance",
            "within",
        ] {
            assert!(r.get(k).is_some(), "{name}: row without {k}: {r}");
        }
        if r["role"] == "prediction" {
            assert!(r["tolerance"].is_number(), "{name}: {r}");
            assert!(r["within"].is_boolean(), "{name}: {r}");
        }
    }
    out
}

#[test]
fn kernelperf() {
    let o = check("kernelperf");
    assert!(o.summary.predictions >= 6);
}

#[test]
fn k4perf() {
    check("k4perf");
}

#[test]
fn tickless_idle() {
    check("tickless-idle");
}

#[test]
fn freertos_tick() {
    let o = check("freertos-tick");
    assert!(o.results.iter().any(|r| r["kind"] == "analyze"));
}

#[test]
fn freertos_context_switch() {
    check("freertos-context-switch");
}

#[test]
fn every_listed_scenario_runs() {
    assert_eq!(list().len(), 6);
}

/// Live scenario: its figures depend on the machine, so only the structure is checked —
/// every published figure gets a measured counterpart and every run's JSON is attached.
#[test]
fn linux_wakeup_runs_live() {
    let out = run(
        "linux-wakeup",
        &Options {
            quick: true,
            out_dir: None,
        },
    )
    .expect("linux-wakeup");
    assert!(out.rows.len() >= 6, "{:#?}", out.rows);
    for r in &out.rows {
        assert!(
            r.latscope.is_finite() && r.latscope >= 0.0,
            "{}: {}",
            r.figure,
            r.latscope
        );
    }
    assert_eq!(out.summary.predictions, 1);
    assert!(out.results.iter().all(|r| r["kind"] == "measure"));
    assert!(out.results.iter().any(|r| r.get("compare").is_some()));
}
