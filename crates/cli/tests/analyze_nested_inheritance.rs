//! `latscope analyze` on nested inheritance mutexes (docs/resources.md, "Nested
//! inheritance mutexes"): the task at the end of the chain gets no bound, in the text
//! (WCRT `unbounded`, `MISS`, a warning line) and in the JSON (`wcrt_ns` null,
//! `schedulable` false, `unbounded_reason`, a warning in `notes`); the others keep theirs.

use std::process::Command;

/// The chain of `inheritance_chain_across_two_mutexes` (crates/sim/tests/resources.rs):
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

const WHY: &str =
    "unbounded (nested inheritance mutexes: FreeRTOS does not pass inheritance along the chain)";

fn analyze(args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_latscope"))
        .arg("analyze")
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn nested_inheritance_is_reported_unbounded_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let sys = dir.path().join("chain.toml");
    std::fs::write(&sys, SYS).unwrap();
    let text = analyze(&[sys.as_os_str()]);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{text}"))
            .to_string()
    };
    assert!(
        row("H").contains("unbounded") && row("H").contains("MISS"),
        "{text}"
    );
    for t in ["X", "M", "L"] {
        assert!(
            !row(t).contains("unbounded") && row(t).contains("yes"),
            "{text}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("warning: H: ") && l.contains(WHY)),
        "{text}"
    );

    let json = dir.path().join("out.json");
    analyze(&["--json".as_ref(), json.as_os_str(), sys.as_os_str()]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["schedulable"], false);
    let tasks = v["tasks"].as_array().unwrap();
    let h = tasks.iter().find(|t| t["name"] == "H").unwrap();
    assert!(h["wcrt_ns"].is_null(), "{h}");
    assert_eq!(h["schedulable"], false);
    assert_eq!(h["unbounded_reason"], WHY);
    for t in tasks.iter().filter(|t| t["name"] != "H") {
        assert!(t["wcrt_ns"].is_number(), "{t}");
        assert!(t.get("unbounded_reason").is_none(), "{t}");
    }
    let notes = v["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.starts_with("warning: H: ") && n.contains(WHY))),
        "{notes:?}"
    );
}
