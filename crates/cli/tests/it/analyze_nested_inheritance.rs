//! `latscope analyze` on nested inheritance mutexes (docs/resources.md, "Nested
//! inheritance mutexes"): the task at the end of the chain gets the nested bound, at or
//! above the simulator's 5 ms, with the tasks preempting the chain in `blocking_from`, in
//! `--breakdown` and a note; the others keep theirs.

use crate::common;

/// The chain of `inheritance_chain_across_two_mutexes` (crates/sim/tests/it/resources.rs):
/// M holds B while it waits for A held by L; H takes B. The simulator gives H 5 ms.
const SYS: &str = r#"
[platform]
cpu_hz = 1_000_000
[kernel]
tick_hz = 1000

[[resource]]
name = "A"
protocol = "inheritance"
[[resource]]
name = "B"
protocol = "inheritance"

[[task]]
name = "L"
period = "20ms"
wcet = "4ms"
priority = 1
critical = [{ resource = "A", duration = "3ms" }]
[[task]]
name = "M"
period = "20ms"
wcet = "3ms"
priority = 2
offset = "1ms"
critical = [{ resource = "B", duration = "2ms" }, { resource = "A", duration = "1ms", at = "500us", inside = "B" }]
[[task]]
name = "X"
period = "20ms"
wcet = "1ms"
priority = 3
offset = "2ms"
[[task]]
name = "H"
period = "20ms"
wcet = "1ms"
priority = 4
offset = "2ms"
critical = [{ resource = "B", duration = "500us" }]
"#;

fn analyze(args: &[&std::ffi::OsStr]) -> String {
    let mut all: Vec<&std::ffi::OsStr> = vec!["analyze".as_ref()];
    all.extend_from_slice(args);
    common::stdout(&common::ok(&all))
}

#[test]
fn nested_inheritance_gets_the_chain_bound_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let sys = dir.path().join("chain.toml");
    std::fs::write(&sys, SYS).unwrap();
    let text = analyze(&["--breakdown".as_ref(), sys.as_os_str()]);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{text}"))
            .to_string()
    };
    for t in ["H", "X", "M", "L"] {
        assert!(!row(t).contains("unbounded"), "{text}");
    }
    assert!(
        text.lines().any(|l| l.contains("blocking")
            && l.contains("X preempting the chain")
            && l.contains("M preempting the chain")
            && l.contains("L holding A")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("nested inheritance mutexes: H: ")),
        "{text}"
    );

    let json = dir.path().join("out.json");
    analyze(&["--json".as_ref(), json.as_os_str(), sys.as_os_str()]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tasks = v["tasks"].as_array().unwrap();
    let h = tasks.iter().find(|t| t["name"] == "H").unwrap();
    // At least the hand-worked overhead-free 8 ms (crates/sim/tests/it/resources_crosscheck.rs).
    assert!(h["wcrt_ns"].as_f64().is_some_and(|w| w >= 8e6), "{h}");
    assert!(h.get("unbounded_reason").is_none(), "{h}");
    assert!(h["blocking_ns"].as_f64().is_some_and(|b| b >= 7e6), "{h}");
    let chain: Vec<&str> = h["blocking_from"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["resource"] == "(nested-mutex chain)")
        .filter_map(|b| b["task"].as_str())
        .collect();
    assert_eq!(chain, ["X", "M"], "{h}");
    for t in tasks {
        assert!(t["wcrt_ns"].is_number(), "{t}");
    }
}
