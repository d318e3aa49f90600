//! An event chain across a fixed-priority core and an EDF core through the CLI: the
//! system is accepted (it was refused before), `analyze --json` bounds the chain with
//! the EDF core's Spuri bound relayed as release jitter, `--check` decides by that bound,
//! and `simulate --json` observes the chain within it. The figures are worked by hand in
//! `crates/model/tests/it/chain_edf_cores.rs`: `R_A` 2.01 ms, `B`'s Spuri bound 6.03 ms,
//! the chain (`R_C`) 9.05 ms.

use crate::common::*;

const SYS: &str = "[platform]\ncpu_hz = 1_000_000\ncores = 2\n[kernel]\ntick_hz = 1000\n\
[kernel.costs]\nipi = \"10us\"\n\
[[core]]\nid = 1\nscheduler = \"edf\"\n\
[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
[[task]]\nname = \"C\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\npriority = 3\n\
[[task]]\nname = \"X\"\nperiod = \"5ms\"\nwcet = \"1ms\"\npriority = 1\ncore = 1\n\
[[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 2\ncore = 1\n\
[[chain]]\nname = \"abc\"\nsteps = [\"A\", \"B\", \"C\"]\nlinks = [\"event\", \"event\"]\n\
deadline = \"DEADLINE\"\n";

#[test]
fn a_chain_across_an_edf_core_is_bounded_checked_and_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "sys.toml", &SYS.replace("DEADLINE", "9.05ms"));
    let plain = ["--no-overheads", "--no-release-delay"];
    let aj = dir.path().join("a.json");
    let mut args = vec!["analyze", &p, "--check", "--json", s(&aj)];
    args.extend(plain);
    ok(&args);
    let a = read_json(&aj);
    let c = &a["chains"][0];
    assert_eq!(c["bound_ns"].as_f64(), Some(9_050_000.0), "{c}");
    assert_eq!(c["meets_deadline"].as_bool(), Some(true), "{c}");
    let b = a["edf"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "B")
        .unwrap();
    assert_eq!(b["bound_ns"].as_f64(), Some(6_030_000.0), "{b}");
    assert_eq!(b["jitter_ns"].as_f64(), Some(2_020_000.0), "{b}");
    assert_eq!(task_named(&a, "C")["wcrt_ns"].as_f64(), Some(9_050_000.0));
    assert_eq!(a["cores"][1]["schedulable"], true, "{a}");
    // One nanosecond less and the chain misses: `--check` exits 1.
    let q = write(dir.path(), "q.toml", &SYS.replace("DEADLINE", "9.049ms"));
    let mut args = vec!["analyze", &q, "--check"];
    args.extend(plain);
    assert_eq!(run(&args).status.code(), Some(1));
    // The simulation (with the kernel's default costs) stays within the bound the
    // analysis gives with those costs.
    let dj = dir.path().join("d.json");
    ok(&["analyze", &p, "--json", s(&dj)]);
    let bound = read_json(&dj)["chains"][0]["bound_ns"].as_f64().unwrap();
    let sj = dir.path().join("s.json");
    ok(&["simulate", &p, "-D", "1s", "--json", s(&sj)]);
    let sim = read_json(&sj);
    let ch = &sim["chains"][0];
    assert!(ch["count"].as_u64().unwrap() >= 99, "{ch}");
    let seen = ch["max_ns"].as_f64().unwrap();
    assert!(seen <= bound, "{seen} > {bound}");
}
