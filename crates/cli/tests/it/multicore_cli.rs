//! `analyze` and `simulate` on a partitioned multicore system (docs/analysis.md and
//! docs/simulator.md, Multicore): the per-core JSON, `--check` on a core that misses,
//! the simulated bound never above the analysed one, and the error for a core that does
//! not exist.

use crate::common;
use common::{fails, ok, read_json, stdout, task_named, write};

const TASKS: &str = r#"[[task]]
name = "ctl"
period = "5ms"
wcet = "1ms"
priority = 3
[[task]]
name = "proc"
min_interarrival = "10ms"
wcet = "2ms"
priority = 2
core = 1
[[task]]
name = "log"
period = "20ms"
wcet = "6ms"
priority = 1
core = 1
[[interrupt]]
name = "adc"
min_interarrival = "10ms"
wcet = "30us"
priority = 1
releases = "proc"
"#;

/// The system file: the shared two-core board and kernel, then this file's tasks.
fn system_toml() -> String {
    [common::TWO_CORES, TASKS].concat()
}

#[test]
fn analyze_and_simulate_per_core() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "mc.toml", &system_toml());
    let aj = d.path().join("a.json");
    let out = ok(&["analyze", &f, "--json", aj.to_str().unwrap(), "--check"]);
    let text = stdout(&out);
    assert!(
        text.contains("core 0: tasks ctl; interrupts adc;"),
        "{text}"
    );
    assert!(
        text.contains("core 1: tasks proc, log; interrupts ipi<adc;"),
        "{text}"
    );
    let a = read_json(&aj);
    let cores = a["cores"].as_array().expect("cores");
    assert_eq!(cores.len(), 2);
    assert_eq!(cores[1]["tasks"], serde_json::json!(["proc", "log"]));
    assert_eq!(cores[1]["schedulable"], true);
    let u0 = cores[0]["utilisation"].as_f64().unwrap();
    let u1 = cores[1]["utilisation"].as_f64().unwrap();
    assert!(u0 > 0.2 && u1 > 0.5, "{u0} {u1}");
    let total = a["totals"]["utilisation_total"].as_f64().unwrap();
    assert!((total - (u0 + u1)).abs() < 1e-12);

    let sj = d.path().join("s.json");
    ok(&[
        "simulate",
        &f,
        "--duration",
        "1s",
        "--json",
        sj.to_str().unwrap(),
    ]);
    let s = read_json(&sj);
    assert_eq!(s["cores"].as_array().map(Vec::len), Some(2));
    for name in ["ctl", "proc", "log"] {
        let bound = task_named(&a, name)["wcrt_ns"].as_f64().unwrap();
        let seen = task_named(&s, name)["max_response_ns"].as_f64().unwrap();
        assert!(seen <= bound, "{name}: simulated {seen} > bound {bound}");
    }
    assert_eq!(task_named(&s, "proc")["jobs"], 100);

    // A core that misses: --check exits 1.
    let over = write(
        d.path(),
        "over.toml",
        &system_toml().replace("wcet = \"6ms\"", "wcet = \"16ms\""),
    );
    let out = common::run(&["analyze", &over, "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("core 1: tasks proc, log"));
    assert!(stdout(&out).contains("NOT schedulable"));

    // A core that does not exist names the file, the task and the value.
    let bad = write(
        d.path(),
        "bad.toml",
        &system_toml().replace("core = 1\n", "core = 5\n"),
    );
    let err = fails(&["analyze", &bad], 2);
    assert!(
        err.contains("bad.toml") && err.contains("task[1] \"proc\"") && err.contains("core 5"),
        "{err}"
    );
}
