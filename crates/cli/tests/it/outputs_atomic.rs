//! Every command writes its outputs through a temporary file and a rename: a run that
//! fails leaves an earlier result byte for byte, and a run that succeeds leaves no
//! temporary file behind.

use std::path::{Path, PathBuf};

use crate::common;
use common::run;

fn repo(p: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(p)
        .display()
        .to_string()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_failed_run_keeps_the_earlier_result_and_a_good_one_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sys = repo("scenarios/freertos-tick/system.toml");
    let keep = d.join("keep.json");
    let series = d.join("ticks.csv");
    let cap = d.join("run.lscap");
    let (k, s, c) = (
        keep.to_str().unwrap(),
        series.to_str().unwrap(),
        cap.to_str().unwrap(),
    );

    // A good run writes each output whole and nothing else.
    let o = run(&[
        "simulate",
        &sys,
        "--duration",
        "50ms",
        "--quiet",
        "--json",
        k,
        "--series",
        s,
        "--capture",
        c,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(entries(d), ["keep.json", "run.lscap", "ticks.csv"]);
    let before: Vec<Vec<u8>> = [&keep, &series, &cap]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();

    // Runs that fail (a broken system file, an input that is not a capture) leave every
    // earlier output exactly as it was, and no temporary file.
    let bad = d.join("bad.toml");
    std::fs::write(&bad, "[platform]\ncpu_hz = \"fast\"\n").unwrap();
    for args in [
        vec![
            "simulate",
            bad.to_str().unwrap(),
            "--duration",
            "50ms",
            "--json",
            k,
        ],
        vec!["analyze", bad.to_str().unwrap(), "--json", k],
        vec!["trace", bad.to_str().unwrap(), "--pulse", "D0", "--json", k],
        vec!["convert", bad.to_str().unwrap(), c],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let after: Vec<Vec<u8>> = [&keep, &series, &cap]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(before == after, "an earlier output changed");
    assert_eq!(
        entries(d),
        ["bad.toml", "keep.json", "run.lscap", "ticks.csv"]
    );

    // An output into a directory that does not exist is an error naming it, not a panic.
    let o = run(&[
        "analyze",
        &sys,
        "--json",
        "/nonexistent-latscope-dir/a.json",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/nonexistent-latscope-dir"), "{err}");
}
