//! `latscope analyze --json` on a published worked example: Buttazzo, "Hard Real-Time
//! Computing Systems" (3rd ed., Springer 2011), section 7.6.3, Table 7.1 and the worked
//! B1 = 15, B2 = 12 of the algorithm of Figure 7.11 (read in the reproduction at
//! http://what-when-how.com/Tutorial/topic-424vv9g/Hard-Real-Time-Computing-Systems-Predictable-Scheduling-Algorithms-and-Applications-240.html).
//! The book subtracts one time unit from every section (discrete time); the system below
//! writes the lower tasks' sections one unit shorter than the table, so latscope's
//! continuous-time bound must equal the book's numbers. The model-level test with the
//! full derivation is crates/model/tests/it/published_blocking.rs.

use crate::common;

/// Table 7.1 (Sa, Sb, Sc per task, 1 unit = 1 ms), the lower tasks' sections shortened
/// by one unit: τ1 Sa 1, Sb 2 (as in the table: τ1 blocks nobody); τ2 Sb 9-1, Sc 3-1;
/// τ3 Sa 8-1, Sb 7-1; τ4 Sa 6-1, Sb 5-1, Sc 4-1.
const SYS: &str = r#"
[platform]
cpu_hz = 1_000_000
[kernel]
tick_hz = 1000

[[resource]]
name = "Sa"
protocol = "inheritance"
[[resource]]
name = "Sb"
protocol = "inheritance"
[[resource]]
name = "Sc"
protocol = "inheritance"

[[task]]
name = "t1"
period = "1s"
wcet = "3ms"
priority = 4
critical = [{ resource = "Sa", duration = "1ms" }, { resource = "Sb", duration = "2ms", at = "1ms" }]
[[task]]
name = "t2"
period = "1s"
wcet = "10ms"
priority = 3
critical = [{ resource = "Sb", duration = "8ms" }, { resource = "Sc", duration = "2ms", at = "8ms" }]
[[task]]
name = "t3"
period = "1s"
wcet = "13ms"
priority = 2
critical = [{ resource = "Sa", duration = "7ms" }, { resource = "Sb", duration = "6ms", at = "7ms" }]
[[task]]
name = "t4"
period = "1s"
wcet = "12ms"
priority = 1
critical = [{ resource = "Sa", duration = "5ms" }, { resource = "Sb", duration = "4ms", at = "5ms" }, { resource = "Sc", duration = "3ms", at = "9ms" }]
"#;

#[test]
fn buttazzo_table_7_1_through_analyze_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("buttazzo.toml");
    std::fs::write(&path, SYS).unwrap();
    let out = common::ok(&[
        "analyze".as_ref(),
        path.as_os_str(),
        "--no-overheads".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tasks = v["tasks"].as_array().unwrap();
    let by = |n: &str| tasks.iter().find(|t| t["name"] == n).unwrap();
    // Published: B1 = 15, B2 = 12. Same algorithm, not read: B3 = 5, B4 = 0.
    for (name, units) in [("t1", 15.0), ("t2", 12.0), ("t3", 5.0), ("t4", 0.0)] {
        assert_eq!(
            by(name)["blocking_ns"].as_f64(),
            Some(units * 1e6),
            "{name}"
        );
    }
    // B1 = B1^s: Sa's longest lower section (τ3, 7) and Sb's (τ2, 8).
    let mut from: Vec<(String, String, f64)> = by("t1")["blocking_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["task"].as_str().unwrap().into(),
                p["resource"].as_str().unwrap().into(),
                p["duration_ns"].as_f64().unwrap(),
            )
        })
        .collect();
    from.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(
        from,
        [
            ("t2".into(), "Sb".into(), 8e6),
            ("t3".into(), "Sa".into(), 7e6)
        ]
    );
}
