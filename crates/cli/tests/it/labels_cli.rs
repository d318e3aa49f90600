//! `--label KEY=VALUE` on every command that writes a result: the JSON's top-level
//! `labels` object holds the user's labels and the machine's keys; bad labels exit 2
//! before any work, naming the label.

use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common;
use common::run;

fn table1() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../sim/tests/data/table1.toml")
        .display()
        .to_string()
}

fn labels_of(p: &Path) -> serde_json::Map<String, Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    v["labels"]
        .as_object()
        .unwrap_or_else(|| panic!("{}: no labels object", p.display()))
        .clone()
}

fn check(labels: &serde_json::Map<String, Value>, what: &str) {
    assert_eq!(labels["board"], "rpi4", "{what}");
    assert_eq!(labels["rack"], "b=7", "{what}");
    for k in ["host", "kernel", "cpu_model", "latscope_version"] {
        let v = labels[k].as_str().unwrap_or("");
        assert!(!v.is_empty(), "{what}: {k} empty");
    }
    assert_eq!(labels["latscope_version"], env!("CARGO_PKG_VERSION"));
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    if !release.is_empty() {
        assert_eq!(labels["kernel"], release.as_str(), "{what}");
    }
}

#[test]
fn every_result_carries_the_labels() {
    let d = tempfile::tempdir().unwrap();
    let l = ["--label", "board=rpi4", "--label", "rack=b=7"];
    let sys = table1();
    let runs: Vec<(&str, Vec<String>)> = vec![
        (
            "analyze",
            vec!["analyze".into(), sys.clone(), "--json".into()],
        ),
        (
            "simulate",
            vec![
                "simulate".into(),
                sys.clone(),
                "--duration".into(),
                "10ms".into(),
                "-q".into(),
                "--json".into(),
            ],
        ),
        (
            "scenario",
            vec![
                "scenario".into(),
                "run".into(),
                "freertos-tick".into(),
                "--quick".into(),
                "--json".into(),
            ],
        ),
        (
            "measure",
            vec![
                "measure".into(),
                "--cpus".into(),
                "0".into(),
                "--policy".into(),
                "other".into(),
                "--loops".into(),
                "20".into(),
                "-q".into(),
                "--json".into(),
            ],
        ),
    ];
    for (name, mut args) in runs {
        let out = d.path().join(format!("{name}.json"));
        args.push(out.display().to_string());
        args.extend(l.iter().map(|s| s.to_string()));
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&a);
        // A scenario whose rows miss their tolerance exits 1 and still writes its JSON.
        let ok = o.status.success() || (name == "scenario" && o.status.code() == Some(1));
        assert!(ok, "{name}: {}", String::from_utf8_lossy(&o.stderr));
        check(&labels_of(&out), name);
    }
}

#[test]
fn trace_result_carries_the_labels() {
    let d = tempfile::tempdir().unwrap();
    let vcd = d.path().join("t.vcd");
    std::fs::write(
        &vcd,
        "$timescale 1ns $end\n$scope module top $end\n$var wire 1 ! A $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\n#100\n1!\n#300\n0!\n#1000\n1!\n#1200\n0!\n",
    )
    .unwrap();
    let out = d.path().join("t.json");
    let o = run(&[
        "trace",
        vcd.to_str().unwrap(),
        "--pulse",
        "A",
        "--json",
        out.to_str().unwrap(),
        "--label",
        "board=rpi4",
        "--label",
        "rack=b=7",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&labels_of(&out), "trace");
}

#[test]
fn bad_labels_exit_2_naming_the_label_and_write_nothing() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("a.json");
    let sys = table1();
    for (bad, why) in [
        (vec!["board"], "no '='"),
        (vec!["=rpi4"], "key is empty"),
        (vec!["a=1", "a=2"], "given twice"),
        (vec!["host=x"], "reserved"),
        (vec!["latscope_version=9"], "reserved"),
    ] {
        for cmd in ["analyze", "measure", "simulate"] {
            let mut args: Vec<String> = match cmd {
                "measure" => vec!["measure".into(), "--loops".into(), "5".into()],
                _ => vec![cmd.into(), sys.clone()],
            };
            args.push("--json".into());
            args.push(out.display().to_string());
            for b in &bad {
                args.push("--label".into());
                args.push(b.to_string());
            }
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = run(&a);
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} {bad:?}: {e}");
            assert!(e.contains(why), "{cmd} {bad:?}: {e}");
            assert!(e.contains("--label '"), "{cmd} {bad:?}: {e}");
            assert!(!out.exists(), "{cmd} {bad:?} wrote a result");
        }
    }
}
