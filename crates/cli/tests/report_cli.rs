//! `latscope report` end to end: fixture results in, HTML or Markdown file out; bad input
//! gives exit status 2 and a message naming the file.

use std::path::{Path, PathBuf};

mod common;
use common::latscope;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/fixtures")
        .join(name)
}

#[test]
fn html_report_from_several_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let st = latscope()
        .arg("report")
        .args(
            [
                "measure.json",
                "simulate.json",
                "tick-series.csv",
                "scenario.json",
            ]
            .map(fixture),
        )
        .arg("-o")
        .arg(&out)
        .args(["--title", "Nightly run"])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<title>Nightly run</title>"));
    assert!(html.contains("data-chart=\"histogram\""));
    assert!(html.contains("data-chart=\"series\""));
    assert!(html.contains("data-chart=\"deviation\""));
    assert!(!html.contains("https://") && !html.contains("http://"));
}

#[test]
fn markdown_by_flag_and_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    for (args, file) in [(vec!["--format", "md"], "a.txt"), (vec![], "b.md")] {
        let out = dir.path().join(file);
        let st = latscope()
            .arg("report")
            .arg(fixture("analyze.json"))
            .arg("-o")
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        let md = std::fs::read_to_string(&out).unwrap();
        assert!(md.starts_with("# latscope report"), "{md}");
        assert!(md.contains("| task | priority |"), "{md}");
        assert!(!md.contains("<svg"));
    }
}

#[test]
fn malformed_input_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken-result.json");
    std::fs::write(&bad, "{\"kind\": \"measure\", ").unwrap();
    let st = latscope()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("x.html"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(
        err.contains("broken-result.json") && err.contains("not valid JSON"),
        "{err}"
    );
    assert!(!dir.path().join("x.html").exists());

    let unknown = dir.path().join("u.json");
    std::fs::write(&unknown, r#"{"kind":"horoscope","schema_version":1}"#).unwrap();
    let st = latscope()
        .arg("report")
        .arg(&unknown)
        .arg("-o")
        .arg(dir.path().join("y.html"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(
        err.contains("u.json") && err.contains("unknown kind"),
        "{err}"
    );

    let st = latscope()
        .arg("report")
        .arg(dir.path().join("missing.json"))
        .arg("-o")
        .arg(dir.path().join("z.html"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&st.stderr).contains("missing.json"));
}

#[test]
fn a_capture_on_its_own_is_a_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("vcd.html");
    let vcd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/fixtures/demo8.vcd");
    let st = latscope()
        .arg("report")
        .arg(&vcd)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("data-chart=\"timeline\""), "a timeline");
    assert!(html.contains("(capture)"), "listed as a capture");
}

#[test]
fn a_scenario_brings_its_artifacts_from_next_to_it() {
    // The scenario names its tick series by a path that no longer exists (a moved
    // directory): the file next to the JSON is used.
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("time_ns,duration_ns,released\n");
    for k in 1..20_000u64 {
        let v = if k == 12_345 { 60_712.857 } else { 1_642.857 };
        csv.push_str(&format!("{},{v},0\n", k * 1_000_000));
    }
    std::fs::write(dir.path().join("tick-series.csv"), csv).unwrap();
    // A simulate result as the command writes it (the report's fixture), its tick as the
    // series has it.
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/simulate.json");
    let mut sim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sim).unwrap()).unwrap();
    sim["tick"]["count"] = serde_json::json!(19_999);
    sim["tick"]["min_ns"] = serde_json::json!(1642.857);
    sim["tick"]["max_ns"] = serde_json::json!(60712.857);
    sim["tick"]["peaks_at_ns"] = serde_json::json!([12_345_000_000.0]);
    // A real scenario result (the report's fixture) holding that simulation alone, its
    // artifacts written elsewhere.
    let scn = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/scenario.json");
    let mut scn: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scn).unwrap()).unwrap();
    scn["artifacts"] = serde_json::json!(["/nonexistent/run/tick-series.csv"]);
    scn["results"] = serde_json::json!([sim]);
    let json = dir.path().join("scenario.json");
    std::fs::write(&json, scn.to_string()).unwrap();
    let out = dir.path().join("s.html");
    let st = latscope()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains("over the whole simulation"),
        "the full series is drawn, not the per-bucket maxima"
    );
    assert!(html.contains("worst 60.71 µs at 12.35 s"));
}

#[test]
fn unknown_kind_and_prose_are_refused_with_a_description() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, want) in [
        (
            "k.json",
            r#"{"kind":"benchmark","runs":[]}"#,
            "keys kind, runs",
        ),
        ("p.json", "just words\n", "just words"),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, text).unwrap();
        let out = dir.path().join(format!("{name}.html"));
        let st = latscope()
            .arg("report")
            .arg(&f)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&st.stderr);
        assert_eq!(st.status.code(), Some(2), "{err}");
        assert!(err.contains(name) && err.contains(want), "{err}");
        assert!(!out.exists(), "no report from bad input");
    }
}
