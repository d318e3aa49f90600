//! `analyze` of an EDF kernel (`kernel.scheduler = "edf"`), end to end: a set that fixed
//! priority cannot schedule and EDF can (utilisation 0.971 with implicit deadlines:
//! Liu & Layland's EDF bound is 1, rate-monotonic misses), the JSON's `edf` object, the
//! verdict in `--check`, and `simulate` refusing what it cannot schedule yet.

mod common;
use common::*;

const SET: &str = r#"
[platform]
cpu_hz = "100 MHz"
[kernel]
tick_hz = 1000
SCHED
[[task]]
name = "A"
period = "5ms"
wcet = "2ms"
priority = 2
[[task]]
name = "B"
period = "7ms"
wcet = "4ms"
priority = 1
"#;

fn system(dir: &std::path::Path, sched: &str) -> String {
    write(
        dir,
        &format!("{}.toml", if sched.is_empty() { "fp" } else { "edf" }),
        &SET.replace("SCHED", sched),
    )
}

#[test]
fn edf_schedules_what_fixed_priority_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let fp = system(dir.path(), "");
    let edf = system(dir.path(), "scheduler = \"edf\"");
    // Fixed priority: B's response 4 + 2 ceil(R / 5) reaches 8 ms > 7 ms.
    let out = run(&["analyze", &fp, "--no-overheads", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let json = dir.path().join("edf.json");
    let out = run(&[
        "analyze",
        &edf,
        "--no-overheads",
        "--check",
        "--json",
        s(&json),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("schedulable under EDF"),
        "{}",
        stdout(&out)
    );
    let v = read_json(&json);
    assert_eq!(v["schedulable"], true);
    assert_eq!(v["edf"]["schedulable"], true);
    // The bounds by hand (no overheads): B released at 0 with A's job of deadline 5 ms
    // first: A 0-2, B 2-6 -> B's response 6 ms. A: its job at 5 ms (deadline 10 ms) waits
    // for B (deadline 7 ms) until 6 ms, runs 6-8: 3 ms; Spuri's worst is at least that.
    let bound = |n: &str| {
        v["edf"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .unwrap()["bound_ns"]
            .as_f64()
            .unwrap()
    };
    assert!(bound("B") >= 6e6 && bound("B") <= 7e6, "{v}");
    assert!(bound("A") >= 3e6 && bound("A") <= 5e6, "{v}");
    // Two more milliseconds of B: utilisation 1.257, refused with the reason.
    let over = write(
        dir.path(),
        "over.toml",
        &SET.replace("SCHED", "scheduler = \"edf\"")
            .replace("\"4ms\"", "\"6ms\""),
    );
    let out = run(&["analyze", &over, "--no-overheads", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("NOT schedulable under EDF: utilisation"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn overheads_are_charged_and_simulate_refuses_edf() {
    let dir = tempfile::tempdir().unwrap();
    let text = SET.replace(
        "SCHED",
        "scheduler = \"edf\"\n[kernel.costs]\ntick_base = \"5us\"\nswitch_base = \"2us\"",
    );
    let edf = write(dir.path(), "edf.toml", &text);
    let json = dir.path().join("edf.json");
    ok(&["analyze", &edf, "--json", s(&json)]);
    let v = read_json(&json);
    let a = &v["edf"]["tasks"][0];
    // Two switches per job on top of the WCET (the generic scan adds per-level costs of 0).
    assert_eq!(
        a["charged_wcet_ns"].as_f64().unwrap(),
        2_000_000.0 + 2.0 * 2_000.0,
        "{a}"
    );
    // The tick is preempting work: the utilisation counts it.
    let u = v["edf"]["utilisation"].as_f64().unwrap();
    let tasks = (2.004 / 5.0) + (4.004 / 7.0);
    assert!(u > tasks + 0.004, "{u} vs tasks alone {tasks}");
    let err = fails(&["simulate", &edf, "-D", "100ms"], 2);
    assert!(err.contains("fixed priority only"), "{err}");
}
