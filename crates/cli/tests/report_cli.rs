//! `latscope report` end to end: fixture results in, HTML or Markdown file out; bad input
//! gives exit status 2 and a message naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/fixtures")
        .join(name)
}

fn latscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_latscope"))
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
