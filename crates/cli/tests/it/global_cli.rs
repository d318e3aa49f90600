//! `analyze` and `simulate` on unpinned tasks (global fixed priority, docs/analysis.md
//! and docs/simulator.md, Multicore (global)): the bound labelled sufficient in text and
//! JSON, `--check` exiting 1 when a task's bound misses, the simulated maximum never
//! above the bound, and a capture channel per core.

use crate::common;
use common::{fails, ok, read_json, stdout, task_named, write};

const TASKS: &str = r#"[[task]]
name = "ctl"
period = "5ms"
wcet = "1ms"
priority = 3
core = "any"
[[task]]
name = "proc"
period = "10ms"
wcet = "3ms"
priority = 2
core = "any"
[[task]]
name = "log"
period = "20ms"
wcet = "8ms"
priority = 1
core = "any"
[[interrupt]]
name = "adc"
min_interarrival = "1ms"
wcet = "20us"
core = 1
"#;

/// The system file: the shared two-core board and kernel, then this file's tasks.
fn system_toml() -> String {
    [common::TWO_CORES, TASKS].concat()
}

#[test]
fn analyze_and_simulate_global() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "g.toml", &system_toml());
    let aj = d.path().join("a.json");
    let out = ok(&["analyze", &f, "--json", aj.to_str().unwrap(), "--check"]);
    let text = stdout(&out);
    assert!(
        text.contains("method: global-fp (Bertogna & Cirinei 2007), sufficient"),
        "{text}"
    );
    let a = read_json(&aj);
    assert_eq!(
        a["method"],
        "global-fp (Bertogna & Cirinei 2007), sufficient"
    );
    assert_eq!(a["cores"].as_array().map(Vec::len), Some(2));
    assert_eq!(a["schedulable"], true);

    let sj = d.path().join("s.json");
    let vcd = d.path().join("s.vcd");
    ok(&[
        "simulate",
        &f,
        "--duration",
        "1s",
        "--json",
        sj.to_str().unwrap(),
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    let s = read_json(&sj);
    assert_eq!(s["cores"].as_array().map(Vec::len), Some(2));
    assert!(s["global"]["dispatches"].as_u64().unwrap() >= 200 + 100 + 50);
    for name in ["ctl", "proc", "log"] {
        let bound = task_named(&a, name)["wcrt_ns"].as_f64().unwrap();
        let seen = task_named(&s, name)["max_response_ns"].as_f64().unwrap();
        assert!(seen <= bound, "{name}: simulated {seen} > bound {bound}");
    }
    assert_eq!(task_named(&s, "proc")["jobs"], 100);
    let v = std::fs::read_to_string(&vcd).unwrap();
    for ch in ["core0", "core1", "ctl", "proc", "log"] {
        assert!(v.contains(&format!(" {ch} ")), "channel {ch} missing");
    }

    // A task whose bound misses: --check exits 1.
    let over = write(
        d.path(),
        "over.toml",
        &system_toml().replace("wcet = \"8ms\"", "wcet = \"19ms\""),
    );
    let out = common::run(&["analyze", &over, "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("sufficient"));

    // A pinned task among unpinned ones is refused naming it.
    let mixed = write(
        d.path(),
        "mixed.toml",
        &system_toml().replacen("core = \"any\"", "core = 1", 1),
    );
    let err = fails(&["analyze", &mixed], 2);
    assert!(
        err.contains("mixed.toml") && err.contains("task[0] \"ctl\"") && err.contains("pinned"),
        "{err}"
    );
}
