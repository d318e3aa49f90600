//! `analyze` of an EDF kernel (`kernel.scheduler = "edf"`), end to end: a set that fixed
//! priority cannot schedule and EDF can (utilisation 0.971 with implicit deadlines:
//! Liu & Layland's EDF bound is 1, rate-monotonic misses), the JSON's `edf` object, the
//! verdict in `--check`, `simulate` scheduling by deadline within the bounds, and a
//! two-core system with one fixed-priority core and one EDF core.

use crate::common;
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
fn overheads_are_charged_and_simulate_stays_within_the_bounds() {
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
    // The simulator schedules by deadline: no miss, every response within its bound.
    let sj = dir.path().join("sim.json");
    ok(&["simulate", &edf, "-D", "1s", "--json", s(&sj)]);
    let sim = read_json(&sj);
    for (k, name) in ["A", "B"].iter().enumerate() {
        let t = task_named(&sim, name);
        assert_eq!(t["deadline_misses"], 0, "{t}");
        let seen = t["max_response_ns"].as_f64().unwrap();
        let bound = v["edf"]["tasks"][k]["bound_ns"].as_f64().unwrap();
        assert!(seen <= bound, "{name}: simulated {seen} > bound {bound}");
    }
    // Under fixed priority the same set misses B's deadline in simulation too.
    let fp = write(
        dir.path(),
        "fp.toml",
        &text.replace("scheduler = \"edf\"\n", ""),
    );
    ok(&["simulate", &fp, "-D", "1s", "--json", s(&sj)]);
    let sim = read_json(&sj);
    assert!(task_named(&sim, "B")["deadline_misses"].as_u64().unwrap() > 0);
}

/// Two cores: core 0 by fixed priority, core 1 by deadline (a `[[core]]` table), with a
/// release across cores (interrupt `adc` on core 0 releases `proc` on core 1 through the
/// inter-core interrupt).
const TWO: &str = r#"
[platform]
cpu_hz = "100 MHz"
cores = 2
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
switch_base = "2us"
ipi = "20us"
[[core]]
id = 1
scheduler = "SCHED1"
[[task]]
name = "ctl"
period = "10ms"
wcet = "3ms"
priority = 1
[[task]]
name = "A"
period = "5ms"
wcet = "2ms"
priority = 3
core = 1
[[task]]
name = "B"
period = "7ms"
wcet = "3.5ms"
priority = 2
core = 1
[[task]]
name = "proc"
min_interarrival = "50ms"
wcet = "1ms"
priority = 1
core = 1
[[interrupt]]
name = "adc"
min_interarrival = "50ms"
wcet = "30us"
priority = 1
releases = "proc"
"#;

#[test]
fn one_fixed_priority_core_and_one_edf_core() {
    let dir = tempfile::tempdir().unwrap();
    let fp = write(dir.path(), "fp.toml", &TWO.replace("SCHED1", "fp"));
    let edf = write(dir.path(), "edf.toml", &TWO.replace("SCHED1", "edf"));
    // By priority core 1 misses: B's response 3.5 + 2 ceil(R / 5) reaches 7.5 ms > 7 ms.
    let out = run(&["analyze", &fp, "--no-overheads", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let out = run(&["analyze", &edf, "--no-overheads", "--check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    // With the overheads: the EDF core's tasks have EDF bounds, ctl its RTA bound.
    let aj = dir.path().join("a.json");
    let out = ok(&["analyze", &edf, "--check", "--json", s(&aj)]);
    assert!(
        stdout(&out).contains("schedulable under EDF"),
        "{}",
        stdout(&out)
    );
    let a = read_json(&aj);
    assert_eq!(a["cores"][1]["schedulable"], true, "{a}");
    let edf_tasks = a["edf"]["tasks"].as_array().unwrap();
    let names: Vec<&str> = edf_tasks
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "B", "proc"]);
    // proc is released across cores: its jitter holds adc's response on core 0, and
    // the inter-core interrupt (L + ipi = 20 us) preempts core 1's jobs.
    let proc_jitter = edf_tasks[2]["jitter_ns"].as_f64().unwrap();
    assert!(proc_jitter >= 30_000.0, "{proc_jitter}");
    let bound = |n: &str| {
        edf_tasks.iter().find(|t| t["name"] == n).map_or_else(
            || task_named(&a, n)["wcrt_ns"].as_f64().unwrap(),
            |t| t["bound_ns"].as_f64().unwrap(),
        )
    };
    let sj = dir.path().join("s.json");
    ok(&["simulate", &edf, "-D", "2s", "--json", s(&sj)]);
    let sim = read_json(&sj);
    assert_eq!(sim["cores"].as_array().map(Vec::len), Some(2));
    for name in ["ctl", "A", "B", "proc"] {
        let t = task_named(&sim, name);
        assert_eq!(t["deadline_misses"], 0, "{t}");
        let seen = t["max_response_ns"].as_f64().unwrap();
        assert!(
            seen <= bound(name),
            "{name}: simulated {seen} > bound {}",
            bound(name)
        );
    }
    assert_eq!(task_named(&sim, "proc")["jobs"], 40);
    // The same file by priority on both cores misses B's deadline in simulation.
    let sjf = dir.path().join("sf.json");
    ok(&["simulate", &fp, "-D", "2s", "--json", s(&sjf)]);
    assert!(
        task_named(&read_json(&sjf), "B")["deadline_misses"]
            .as_u64()
            .unwrap()
            > 0
    );
}
