//! End-to-end tests of `latscope analyze --sensitivity` and `--assign-priorities
//! [--write]`: the JSON contract, the file edit and the untouched file on failure.

use std::process::{Command, Output};

const SYS: &str = r#"# priorities test
[platform]
cpu_hz = 84_000_000
[kernel]
tick_hz = 1000
task_selection = "optimised"
[kernel.costs]
tick_base = "2us"   # measured
switch_base = "1us"

[[task]]
name = "slow"
period = "20ms"
wcet = "5ms"
priority = 3 # was highest

[[task]]
name = "fast"
period = "5ms"
deadline = "3ms"
wcet = "2ms"
priority = 1

[[task]]
name = "mid"
period = "10ms"
wcet = "2ms"
priority = 2
"#;

fn latscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latscope"))
        .args(args)
        .output()
        .expect("run latscope")
}

#[test]
fn json_contract_and_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sys.toml");
    std::fs::write(&path, SYS).unwrap();
    let p = path.to_str().unwrap();
    let out = latscope(&[
        "analyze",
        p,
        "--sensitivity",
        "--assign-priorities",
        "--json",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["sensitivity"];
    // In the file's order `fast` misses: the factor is below 1 and names a task.
    assert!(s["scaling_factor"].as_f64().unwrap() < 1.0, "{s}");
    assert!(s["critical_task"].is_string());
    let tasks = s["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    assert_eq!(tasks[0]["name"], "slow");
    // `fast` misses behind 7 ms of higher-priority work whatever one WCET is: no
    // single-task margin exists, and each names `fast`.
    for t in tasks {
        assert!(t["wcet_margin_ns"].is_null(), "{t}");
        assert_eq!(t["critical_task"], "fast");
    }
    assert!(s["max_tick_hz"].is_u64() || s["max_tick_hz"].is_null());
    let a = v["assignment"].as_array().unwrap();
    let got: Vec<(String, u64)> = a
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap().to_string(),
                x["priority"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("fast".to_string(), 3),
            ("mid".to_string(), 2),
            ("slow".to_string(), 1)
        ]
    );

    let out = latscope(&["analyze", p, "--assign-priorities", "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let want = SYS
        .replace("priority = 3 # was highest", "priority = 1 # was highest")
        .replace(
            "deadline = \"3ms\"\nwcet = \"2ms\"\npriority = 1",
            "deadline = \"3ms\"\nwcet = \"2ms\"\npriority = 3",
        );
    assert_eq!(text, want);
    // Now schedulable as written, with a factor above 1.
    let out = latscope(&["analyze", p, "--sensitivity", "--json", "-", "--check"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["sensitivity"]["scaling_factor"].as_f64().unwrap() > 1.0);
    for t in v["sensitivity"]["tasks"].as_array().unwrap() {
        assert!(t["wcet_margin_ns"].as_f64().unwrap() > 0.0, "{t}");
    }
}

#[test]
fn infeasible_write_leaves_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sys.toml");
    let text = SYS.replace("wcet = \"5ms\"", "wcet = \"12ms\"");
    std::fs::write(&path, &text).unwrap();
    let p = path.to_str().unwrap();
    let out = latscope(&["analyze", p, "--assign-priorities", "--json", "-"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["assignment"].is_null());
    let msg = v["assignment_detail"]["failure"]["message"]
        .as_str()
        .unwrap();
    assert!(msg.contains("no feasible assignment"), "{msg}");
    let out = latscope(&["analyze", p, "--assign-priorities", "--write"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not written") && err.contains("sys.toml"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// `analyze --json` carries each task's blocking and where it comes from; `--breakdown`
/// prints it.
#[test]
fn blocking_from_in_json_and_breakdown() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("res.toml");
    std::fs::write(
        &path,
        "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n\
         [[resource]]\nname = \"uart\"\nprotocol = \"inheritance\"\n\
         [[task]]\nname = \"hi\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 2\nblocking = \"5us\"\n\
         critical = [{ resource = \"uart\", duration = \"10us\" }]\n\
         [[task]]\nname = \"lo\"\nperiod = \"20ms\"\nwcet = \"2ms\"\npriority = 1\n\
         critical = [{ resource = \"uart\", duration = \"300us\", at = \"1ms\" }]\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = latscope(&["analyze", p, "--json", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hi = &v["tasks"][0];
    assert_eq!(hi["name"], "hi");
    assert_eq!(hi["blocking_ns"], 305_000.0);
    assert_eq!(hi["blocking_from"][0]["task"], "lo");
    assert_eq!(hi["blocking_from"][0]["resource"], "uart");
    assert_eq!(hi["blocking_from"][0]["duration_ns"], 300_000.0);
    assert_eq!(v["tasks"][1]["blocking_ns"], 0.0);
    assert_eq!(v["tasks"][1]["blocking_from"].as_array().unwrap().len(), 0);
    let out = latscope(&["analyze", p, "--breakdown"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("blocking 305 µs = lo holding uart 300 µs + given 5 µs"),
        "{text}"
    );
}
