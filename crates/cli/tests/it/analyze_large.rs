//! Memory linear in the number of tasks (issue 29 item 2): 10,000 generated tasks analysed
//! with overheads, both tick modes and `--json`, under an address-space limit of 2 GB.
//! Before the breakdowns kept only their largest interference shares, the quadratic
//! share lists alone needed several GB for this set. No timing is asserted (the machine
//! may be busy); the figures are in docs/benchmarks.md.

use std::process::Command;

/// A Cortex-M4 with port-optimised task selection (10,000 priority levels do not make
/// every switch cost a scan) and light kernel costs, so that every task is bounded and
/// every breakdown is filled: with the FreeRTOS costs of bench/rta, 10,000 tasks'
/// releases and switches alone overload the CPU and most tasks end without a bound.
const TEMPLATE: &str = r#"[platform]
cpu_hz = 84_000_000
irq_entry_cycles = 12
[kernel]
tick_hz = 1000
model = "tick"
task_selection = "optimised"
tick_mode = "partitioned"
[kernel.costs]
tick_base = "1.5us"
tick_per_release = "10ns"
switch_base = "200ns"
switch_per_level = "0.72us"
[[interrupt]]
name = "uart"
min_interarrival = "200us"
wcet = "5us"
[[task]]
name = "placeholder"
period = "1ms"
wcet = "1us"
priority = 1
"#;

const TASKS: usize = 10_000;

#[test]
fn ten_thousand_tasks_with_json_fit_in_two_gigabytes() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        panic!("prlimit (util-linux) is needed for this test");
    }
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("template.toml");
    std::fs::write(&template, TEMPLATE).unwrap();
    let bin = env!("CARGO_BIN_EXE_latscope");
    let gen = Command::new(bin)
        .args([
            "generate",
            "-n",
            &TASKS.to_string(),
            "-u",
            "0.5",
            "--count",
            "1",
        ])
        .args([
            "--seed",
            "29",
            "--period-min",
            "10ms",
            "--period-max",
            "10s",
        ])
        .args(["--granularity", "1ms", "--template"])
        .arg(&template)
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        gen.status.success(),
        "generate: {}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let set = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("set-"))
        })
        .expect("a generated set");
    let json = dir.path().join("result.json");
    let out = Command::new("prlimit")
        .arg(format!("--as={}", 2u64 << 30))
        .arg(bin)
        .arg("analyze")
        .arg(&set)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "analyze under a 2 GB limit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for key in [
        "tasks",
        "/tick_modes/pessimistic",
        "/tick_modes/partitioned",
    ] {
        let v = if key.starts_with('/') {
            doc.pointer(key)
        } else {
            doc.get(key)
        };
        assert_eq!(
            v.and_then(|v| v.as_array()).map(Vec::len),
            Some(TASKS),
            "{key}"
        );
    }
    // Every breakdown names at most the default 8 interfering tasks and sums the rest.
    let tasks = doc["tasks"].as_array().unwrap();
    assert!(tasks.iter().all(|t| t["breakdown"]["interference"]
        .as_array()
        .map_or(0, Vec::len)
        <= 8));
    let bounded_low = tasks
        .iter()
        .rev()
        .find(|t| t["wcrt_ns"].is_number())
        .expect("some task bounded");
    let b = &bounded_low["breakdown"];
    let listed: f64 = b["interference"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ns"].as_f64().unwrap())
        .sum();
    let parts = [
        "wcet_ns",
        "own_previous_jobs_ns",
        "window_offset_ns",
        "tick_ns",
    ]
    .iter()
    .chain(&[
        "context_switch_ns",
        "interrupts_ns",
        "blocking_ns",
        "jitter_ns",
    ])
    .map(|k| b[*k].as_f64().unwrap())
    .sum::<f64>()
        + listed
        + b["interference_others_ns"].as_f64().unwrap_or(0.0);
    let wcrt = bounded_low["wcrt_ns"].as_f64().unwrap();
    assert!(
        (parts - wcrt).abs() <= 1e-6 * wcrt,
        "breakdown {parts} != wcrt {wcrt}"
    );
}
