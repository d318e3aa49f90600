//! A chain through EDF tasks through the CLI: `analyze` bounds it with the tasks' EDF
//! bounds (Spuri, with the release jitter the event link induces), not with the
//! fixed-priority responses `tasks` keep for comparison, and `--check` decides by that
//! bound. The figures are worked by hand in `crates/model/tests/system_format.rs`
//! (`a_chain_through_edf_tasks_takes_spuris_bounds`): EDF chain bound 8 ms, the
//! fixed-priority one 7 ms.

use crate::common::run;

const SYS: &str = r#"
[platform]
cpu_hz = 100000000
[kernel]
tick_hz = 1000
scheduler = "edf"
[[task]]
name = "a"
period = "10ms"
wcet = "2ms"
priority = 2
[[task]]
name = "b"
min_interarrival = "10ms"
wcet = "3ms"
priority = 1
[[chain]]
name = "ab"
steps = ["a", "b"]
links = ["event"]
deadline = "DEADLINE"
"#;

#[test]
fn an_edf_chain_is_bounded_and_checked_by_its_edf_bound() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sys.toml");
    let plain = ["--no-overheads", "--no-release-delay"];
    let analyze = |extra: &[&str]| {
        let mut a: Vec<std::ffi::OsString> = vec!["analyze".into(), p.clone().into()];
        a.extend(plain.iter().chain(extra).map(std::ffi::OsString::from));
        run(&a)
    };
    std::fs::write(&p, SYS.replace("DEADLINE", "7ms")).unwrap();
    let out = analyze(&["--json", "-"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &v["chains"][0];
    assert_eq!(c["bound_ns"].as_f64(), Some(8e6), "{c}");
    assert_eq!(c["meets_deadline"].as_bool(), Some(false), "{c}");
    let b = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "b")
        .unwrap();
    assert_eq!(
        b["wcrt_ns"].as_f64(),
        Some(7e6),
        "fixed-priority figure kept"
    );
    assert_eq!(v["edf"]["schedulable"].as_bool(), Some(true));
    assert!(
        v["notes"].to_string().contains("EDF bounds (Spuri"),
        "{}",
        v["notes"]
    );
    // Every task meets its deadline; the chain (8 ms > 7 ms) does not.
    assert_eq!(analyze(&["--check"]).status.code(), Some(1));
    std::fs::write(&p, SYS.replace("DEADLINE", "8ms")).unwrap();
    let ok = analyze(&["--check"]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
}
