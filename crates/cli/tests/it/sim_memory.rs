//! A simulation's memory does not grow with what it simulates beyond a bounded amount per
//! task: 10,000 generated tasks simulate under a 2 GiB address-space limit (`prlimit
//! --as`). Before the per-task histograms were allocated lazily this needed 2.2 GB.
//! Success only: no timing is asserted.

use std::process::Command;

use crate::common;
use common::{ok, BIN};

#[test]
fn ten_thousand_tasks_simulate_under_two_gib() {
    let d = tempfile::tempdir().unwrap();
    let sys = d.path().join("sys.toml");
    let sys = sys.to_str().unwrap();
    ok(&[
        "generate",
        "-n",
        "10000",
        "-u",
        "0.5",
        "--seed",
        "1",
        "--period-min",
        "1s",
        "--period-max",
        "10s",
        "-q",
        "-o",
        sys,
    ]);
    let json = d.path().join("sim.json");
    let out = Command::new("prlimit")
        .arg("--as=2147483648")
        .arg(BIN)
        .args(["simulate", sys, "-D", "200ms", "-q", "--json"])
        .arg(&json)
        .output()
        .expect("prlimit (util-linux) runs");
    assert!(
        out.status.success(),
        "simulate of 10,000 tasks under 2 GiB: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tasks = doc["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 10_000);
    let jobs: u64 = tasks.iter().map(|t| t["jobs"].as_u64().unwrap_or(0)).sum();
    assert!(jobs > 0, "some jobs completed in 200 ms");
}
