//! `latscope scenario` end to end: the table, the JSON contract (roles, `uses`), the
//! Markdown block the READMEs embed, the README's scenario table, and the exit status
//! (0 when every miss is explained, 1 on a miss without explanation; `--strict`: 1 on any
//! miss).

use crate::common;
use common::latscope;

#[test]
fn run_writes_table_json_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sub/k4.json");
    let md = dir.path().join("k4.md");
    let out = latscope()
        .args(["scenario", "run", "k4perf", "--quick", "--json"])
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("source: K4perf"), "{text}");
    assert!(
        text.contains("derived") && text.contains("not compared"),
        "{text}"
    );
    assert!(!text.to_lowercase().contains("seed"), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows
        .iter()
        .all(|r| r["uses"].is_array() && r["role"].is_string()));
    assert!(rows
        .iter()
        .any(|r| r["role"] == "derived" && r["uses"].as_array().unwrap().len() == 2));
    assert!(v["figures"].as_array().is_some_and(|f| f.len() > 10));
    let m = std::fs::read_to_string(&md).unwrap();
    assert!(
        m.starts_with("<!-- generated: latscope scenario run k4perf"),
        "{m}"
    );
    assert!(
        m.contains("| cold cache: actor activation | prediction | 29 | 31.976 |"),
        "{m}"
    );
    assert!(
        m.contains("Tolerances, from the document's own resolution"),
        "{m}"
    );
    assert!(v["predictions"]["genuine"].as_u64().is_some(), "{v}");
    assert!(m.trim_end().ends_with("<!-- end of generated block -->"));
}

#[test]
fn an_explained_miss_exits_0_and_says_why_strict_exits_1() {
    let out = latscope()
        .args(["scenario", "run", "freertos-tick", "--quick"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("outside (explained)"), "{text}");
    assert!(
        text.contains("why (tick WCET from base + measured insertions"),
        "{text}"
    );
    let strict = latscope()
        .args(["scenario", "run", "freertos-tick", "--quick", "--strict"])
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1), "{strict:?}");
}

/// `scenario table` makes the README's table from `scenario run --json` results.
#[test]
fn table_from_json_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for n in ["tickless-idle", "kernelperf"] {
        let j = dir.path().join(format!("{n}.json"));
        let out = latscope()
            .args(["scenario", "run", n, "--quick", "--json"])
            .arg(&j)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        files.push(j);
    }
    let out = latscope()
        .args(["scenario", "table"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let t = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = t.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 2, "{t}");
    assert!(
        rows[0].starts_with("| `tickless-idle` |") && rows[0].contains("none"),
        "{t}"
    );
    assert!(rows[1].contains("11 of 11 within tolerance"), "{t}");
    assert!(t.starts_with("<!-- scenario table: "), "{t}");
}

#[test]
fn both_outputs_on_stdout_is_an_error() {
    let out = latscope()
        .args([
            "scenario",
            "run",
            "k4perf",
            "--quick",
            "--json",
            "-",
            "--markdown",
            "-",
        ])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--markdown -"), "{err}");
}

#[test]
fn list_names_documents_by_title() {
    let out = latscope().args(["scenario", "list"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(
        "source: Miranda, de Oliveira, Carminati: Analysis of FreeRTOS Overheads on Periodic Tasks"
    ));
    assert!(!text.to_lowercase().contains("seed"), "{text}");
}

/// `scenario run -o DIR` writes the artefacts (the report among them) into DIR; `--output`
/// and the old `--out` do the same.
#[test]
fn run_output_directory_and_its_old_spelling() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["-o", "--output", "--out"] {
        let out_dir = dir.path().join(format!("out{flag}"));
        let out = latscope()
            .args(["scenario", "run", "kernelperf", "--quick", flag])
            .arg(&out_dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{flag}: {out:?}");
        let page = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
        assert!(page.contains("<html"), "{flag}: no report");
    }
}
