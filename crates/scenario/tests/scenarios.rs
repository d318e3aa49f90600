//! Every bundled scenario runs (scaled down) and keeps the honesty rules: every row has a
//! role, compares with a named figure of its document, lists the figures it uses, and no
//! prediction uses its own figure. Predictions land within their tolerance, except the
//! misses pinned below, each of which must carry its explanation: a new miss, or a
//! pinned one that starts passing, fails the test with the rows printed.

use latscope_scenario::{audit, list, misses, run, Options, Outcome, Role};

fn quick(name: &str) -> Outcome {
    run(
        name,
        &Options {
            quick: true,
            out_dir: None,
        },
    )
    .expect(name)
}

/// The predictions known to miss, and why they must (see the explanations).
fn expected_misses(name: &str) -> Vec<&'static str> {
    match name {
        // The paper's first estimate: insertions only, 22 us short.
        "freertos-tick" => vec!["tick WCET from base + measured insertions (250 s simulated)"],
        // The line through 1 and 2 iterations extrapolates the first step; the loop-count
        // model cannot separate switches of equal count.
        "freertos-context-switch" => vec![
            "CS(A,D), 3 iterations in Table 4: line through 1 and 2 iterations",
            "CS(D,IDLE), 3 iterations in Table 4: line through 1 and 2 iterations",
            "CS(B,IDLE), 4 iterations in Table 4: line through 1 and 2 iterations",
            "CS(C,IDLE), 4 iterations in Table 4: line through 1 and 2 iterations",
            "CS(A,IDLE), 5 iterations in Table 4: line through 1 and 2 iterations",
            "distinct switch times involving task A",
            "distinct switch times involving task B",
            "distinct switch times involving task C",
        ],
        _ => vec![],
    }
}

fn check(name: &str) -> Outcome {
    let out = quick(name);
    assert_eq!(out.kind, "scenario");
    assert!(!out.rows.is_empty(), "{name}: no rows");
    for r in &out.rows {
        eprintln!(
            "{name}: {:<64} published {:>10.4} latscope {:>10.4} {} {} {:?} uses {:?}",
            r.figure,
            r.published,
            r.latscope,
            r.unit,
            r.role.as_str(),
            r.within,
            r.uses
        );
    }
    let problems = audit(&out);
    assert!(problems.is_empty(), "{name}: {problems:#?}");
    let mut got = misses(&out);
    got.sort_unstable();
    let mut want = expected_misses(name);
    want.sort_unstable();
    assert_eq!(got, want, "{name}: predictions outside tolerance");
    for r in out.rows.iter().filter(|r| r.is_miss()) {
        assert!(
            r.explanation.as_deref().is_some_and(|e| e.len() > 40),
            "{name}: miss without explanation: {}",
            r.figure
        );
    }
    assert!(out.summary.predictions > 0, "{name}: no predictions");
    readme_matches(&out);
    // Contract of `scenario run --json`: rows keep their keys, roles are the four, and
    // every prediction with a verdict carries a numeric tolerance and a boolean within.
    let json = serde_json::to_value(&out).unwrap();
    assert!(json.get("seed").is_none());
    assert!(json["source"].as_str().is_some_and(|s| !s.is_empty()));
    for r in json["rows"].as_array().unwrap() {
        for k in [
            "figure",
            "published",
            "latscope",
            "unit",
            "role",
            "tolerance",
            "within",
            "uses",
            "figure_id",
            "source",
            "method",
        ] {
            assert!(r.get(k).is_some(), "{name}: row without {k}: {r}");
        }
        let role = r["role"].as_str().unwrap_or("");
        assert!(
            ["input", "derived", "check", "prediction"].contains(&role),
            "{name}: row without a role: {r}"
        );
        if role == "input" {
            assert_eq!(r["uses"].as_array().map(Vec::len), Some(0), "{name}: {r}");
        }
        if role == "prediction" && r["within"].is_boolean() {
            assert!(r["tolerance"].is_number(), "{name}: {r}");
        }
    }
    out
}

/// The README's generated table is the table a run gives today (regenerate with
/// `scenarios/regenerate NAME` after a change).
fn readme_matches(out: &Outcome) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(&out.name)
        .join("README.md");
    let text = std::fs::read_to_string(&path).expect("README");
    let block = latscope_scenario::markdown::generated_part(&text)
        .unwrap_or_else(|| panic!("{}: no generated block", path.display()));
    let rows = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with('|'))
            .map(String::from)
            .collect()
    };
    let want = rows(&latscope_scenario::markdown::table(out));
    assert_eq!(
        rows(block),
        want,
        "{}: README table differs from the run; run scenarios/regenerate {}",
        out.name,
        out.name
    );
}

#[test]
fn kernelperf() {
    let o = check("kernelperf");
    assert!(o.summary.predictions >= 20);
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
    // The Table 2 model's worst case uses 60.75 us (through 2.207 us): a check, never a
    // prediction.
    for r in o.rows.iter().filter(|r| r.figure_id == "tick WCET") {
        if r.uses.iter().any(|u| u == "Table 2 share") {
            assert_ne!(r.role, Role::Prediction, "{}", r.figure);
        }
    }
}

#[test]
fn freertos_context_switch() {
    let o = check("freertos-context-switch");
    // The calibration on 1-3 iterations predicts the 4- and 5-iteration switches per pair.
    let first_step: Vec<_> = o
        .rows
        .iter()
        .filter(|r| r.role == Role::Prediction && r.figure.contains("first step"))
        .collect();
    assert_eq!(first_step.len(), 3);
    assert!(first_step.iter().all(|r| r.within == Some(true)));
}

/// At least 30 predictions over the five microcontroller scenarios, with their sources
/// named by title.
#[test]
fn thirty_predictions_across_the_microcontroller_documents() {
    let mut total = 0;
    for i in list().iter().filter(|i| !i.live) {
        let o = quick(i.name);
        total += o.summary.predictions;
        assert_eq!(o.source, i.document.cite());
    }
    assert!(total >= 30, "{total} predictions");
}

#[test]
fn every_listed_scenario_runs() {
    assert_eq!(list().len(), 6);
}

/// The audit itself must be able to fail: a prediction that uses its own figure, an
/// input with uses, an unknown figure and a missing explanation are all reported.
#[test]
fn audit_catches_broken_rows() {
    let mut o = quick("tickless-idle");
    assert!(audit(&o).is_empty());
    let p = o
        .rows
        .iter()
        .position(|r| r.role == Role::Prediction)
        .unwrap();
    let own = o.rows[p].figure_id.clone();
    o.rows[p].uses.push(own);
    let i = o.rows.iter().position(|r| r.role == Role::Input).unwrap();
    o.rows[i].uses.push("CPU wake".into());
    o.rows[i + 1].figure_id = "no such figure".into();
    o.rows[i + 2].method = "as in seed 000".into();
    let mut q = o.rows[p].clone();
    q.within = None;
    q.explanation = None;
    o.rows.push(q);
    let problems = audit(&o).join("\n");
    for want in [
        "uses its own published figure",
        "an input uses",
        "not a figure of the document",
        "without verdict or explanation",
        "'seed 0' in user-visible text",
    ] {
        assert!(problems.contains(want), "missing '{want}' in:\n{problems}");
    }
}

/// Live scenario: its figures depend on the machine, so only the structure is checked
/// (no assertion on which way a latency goes: the machine may be busy).
#[test]
fn linux_wakeup_runs_live() {
    let out = quick("linux-wakeup");
    let problems = audit(&out);
    assert!(problems.is_empty(), "{problems:#?}");
    for id in ["10 ms mean", "100 ms mean", "1 s mean"] {
        let rows: Vec<_> = out.rows.iter().filter(|r| r.figure_id == id).collect();
        assert_eq!(rows.len(), 3, "{id}: mean, median and trimmed mean");
        for r in &rows {
            assert!(r.latscope.is_finite() && r.latscope >= 0.0, "{}", r.figure);
            assert!(r.method.contains("median") && r.method.contains("trimmed mean"));
        }
    }
    for id in ["10 ms stdev", "100 ms stdev", "1 s stdev", "hogs stdev"] {
        assert!(
            out.rows
                .iter()
                .any(|r| r.figure_id == id && r.latscope >= 0.0),
            "{id}"
        );
    }
    let finding = out
        .rows
        .iter()
        .find(|r| r.figure_id == "longer later")
        .unwrap();
    assert!(finding.within.is_some());
    // The governor experiment: measured where possible, otherwise said why.
    for id in ["performance mean", "faster under load", "governor explains"] {
        let r = out.rows.iter().find(|r| r.figure_id == id).unwrap();
        assert!(r.within.is_some() || r.explanation.is_some(), "{id}");
    }
    assert!(out.results.iter().all(|r| r["kind"] == "measure"));
    assert!(out.results.iter().any(|r| r.get("compare").is_some()));
}
