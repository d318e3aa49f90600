//! End-to-end tests of `latscope simulate`: the JSON/CSV contract other tools rely on,
//! byte-identical outputs for the same seed, the capture read back by `latscope trace`,
//! and errors that name their cause.

use std::path::PathBuf;

use crate::common;
use common::ok;

fn table1() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/data/table1.toml")
}

#[test]
fn contract_json_series_and_captures() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    let t1 = table1();
    let out = ok(&[
        "simulate".as_ref(),
        t1.as_os_str(),
        "--duration".as_ref(),
        "2s".as_ref(),
        "--json".as_ref(),
        p("a.json").as_os_str(),
        "--series".as_ref(),
        p("a.csv").as_os_str(),
        "--vcd".as_ref(),
        p("a.vcd").as_os_str(),
        "--perfetto".as_ref(),
        p("a.pf.json").as_os_str(),
        "--capture".as_ref(),
        p("a.lscap").as_os_str(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ticks: 1999"), "{text}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p("a.json")).unwrap()).unwrap();
    assert_eq!(j["kind"], "simulate");
    assert_eq!(j["schema_version"], 1);
    let tasks = j["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 10);
    for t in tasks {
        assert!(t["name"].is_string());
        assert!(t["jobs"].as_u64().unwrap() > 0);
        assert!(t["max_response_ns"].as_f64().unwrap() > 0.0);
        assert_eq!(t["deadline_misses"], 0);
    }
    assert_eq!(tasks[0]["jobs"], 400); // A: 5 ms period over 2 s
    assert_eq!(j["tick"]["count"], 1999);
    assert_eq!(j["tick"]["min_ns"], 1642.857);
    assert!(j["tick"]["max_ns"].as_f64().unwrap() > 1642.857);
    // CSV: header + one row per tick, durations agree with the JSON extremes
    let csv = std::fs::read_to_string(p("a.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("time_ns,duration_ns,released"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 1999);
    assert_eq!(rows[0][0], 1_000_000.0);
    let max = rows.iter().map(|r| r[1]).fold(0.0, f64::max);
    assert_eq!(Some(max), j["tick"]["max_ns"].as_f64());
    // VCD and Perfetto are written and non-trivial
    let vcd = std::fs::read_to_string(p("a.vcd")).unwrap();
    assert!(vcd.contains("$var wire 1") && vcd.contains(" tick $end"));
    let pf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p("a.pf.json")).unwrap()).unwrap();
    assert!(pf["traceEvents"].as_array().unwrap().len() > 1000);
    // latscope trace measures the simulated capture like a real one: same tick widths
    let out = ok(&[
        "trace".as_ref(),
        p("a.lscap").as_os_str(),
        "--pulse".as_ref(),
        "tick".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let tr: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &tr["measurements"][0];
    assert_eq!(m["count"], 1999);
    assert_eq!(m["max_ns"], j["tick"]["max_ns"]);
    assert_eq!(m["min_ns"], j["tick"]["min_ns"]);
}

#[test]
fn same_seed_same_bytes() {
    let d = tempfile::tempdir().unwrap();
    let t1 = table1();
    let go = |name: &str, seed: &str| {
        let j = d.path().join(format!("{name}.json"));
        let v = d.path().join(format!("{name}.vcd"));
        ok(&[
            "simulate".as_ref(),
            t1.as_os_str(),
            "-q".as_ref(),
            "--duration".as_ref(),
            "500ms".as_ref(),
            "--exec".as_ref(),
            "uniform".as_ref(),
            "--seed".as_ref(),
            seed.as_ref(),
            "--json".as_ref(),
            j.as_os_str(),
            "--vcd".as_ref(),
            v.as_os_str(),
        ]);
        (std::fs::read(j).unwrap(), std::fs::read(v).unwrap())
    };
    let a = go("a", "5");
    let b = go("b", "5");
    let c = go("c", "6");
    assert!(a == b, "same seed, different bytes");
    assert!(a.0 != c.0, "the seed has no effect");
}

#[test]
fn default_duration_is_one_hyperperiod() {
    let t1 = table1();
    let out = ok(&[
        "simulate".as_ref(),
        t1.as_os_str(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["duration_ns"], 41.4e9);
    assert_eq!(j["hyperperiod_ns"], 41.4e9);
    // the critical instant at 41.4 s is the end of the run (exclusive): not simulated
    assert!(j["tick"]["max_released"].as_u64().unwrap() < 10);
    let out = ok(&[
        "simulate".as_ref(),
        t1.as_os_str(),
        "--max-duration".as_ref(),
        "3s".as_ref(),
    ]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("longer than --max-duration"), "{s}");
}

#[test]
fn errors_name_their_cause() {
    let out = common::latscope()
        .args(["simulate", "/nonexistent/sys.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("/nonexistent/sys.toml"), "{e}");
    let t1 = table1();
    for (flag, val, want) in [
        ("--exec", "bogus", "--exec"),
        ("--duration", "10", "--duration"),
        ("--irq-arrivals", "x", "--irq-arrivals"),
        ("--sleep-state", "deep", "no sleep states"),
    ] {
        let out = common::latscope()
            .arg("simulate")
            .arg(&t1)
            .args([flag, val])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {val}: {e}");
        assert!(e.contains(want), "{flag} {val}: {e}");
    }
}

/// Each flag names itself when it is zero; an unsupported priority names the task and
/// the key, and the file once; a bad execution-time file names the file and line.
#[test]
fn errors_name_the_right_flag_task_and_line() {
    let t1 = table1();
    for (args, want) in [
        (
            vec!["--max-duration", "0s"],
            "--max-duration must be positive",
        ),
        (vec!["--duration", "0s"], "--duration must be positive"),
    ] {
        let out = common::latscope()
            .arg("simulate")
            .arg(&t1)
            .args(&args)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {e}");
    }
    let out = common::latscope()
        .arg("simulate")
        .arg(&t1)
        .args(["--sleep-state", "deep"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(e.matches("table1.toml").count(), 1, "{e}");
    // --max-duration only caps the default duration
    ok(&[
        "simulate".as_ref(),
        t1.as_os_str(),
        "--max-duration".as_ref(),
        "0s".as_ref(),
        "--duration".as_ref(),
        "10ms".as_ref(),
        "-q".as_ref(),
    ]);

    let d = tempfile::tempdir().unwrap();
    let sys = |prio: u32, extra: &str| {
        format!(
            "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\nmodel = \"tick\"\n\
             [kernel.costs]\ntick_base = \"2us\"\ntick_per_release = \"1us\"\n\
             switch_base = \"1us\"\nswitch_per_level = \"10ns\"\n\
             [[task]]\nname = \"a\"\nperiod = \"4ms\"\nwcet = \"1ms\"\npriority = {prio}\n{extra}"
        )
    };
    let p = d.path().join("big.toml");
    std::fs::write(&p, sys(70_000, "")).unwrap();
    let out = common::latscope()
        .arg("simulate")
        .arg(&p)
        .args(["--duration", "10ms", "-q"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("task 'a': key priority: 70000"), "{e}");
    assert_eq!(e.matches("big.toml").count(), 1, "{e}");
    // priorities above the old 4096 limit simulate
    std::fs::write(&p, sys(5000, "")).unwrap();
    ok(&[
        "simulate".as_ref(),
        p.as_os_str(),
        "--duration".as_ref(),
        "10ms".as_ref(),
        "-q".as_ref(),
    ]);

    std::fs::write(d.path().join("et2.txt"), "500us\n2ms\n").unwrap();
    std::fs::write(&p, sys(1, "exec_time_file = \"et2.txt\"\n")).unwrap();
    let out = common::latscope()
        .arg("simulate")
        .arg(&p)
        .args(["--duration", "10ms", "-q"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("et2.txt:2: 2 ms exceeds task \"a\"'s WCET 1 ms"),
        "{e}"
    );
    // a missing execution-time file: the OS error once
    std::fs::remove_file(d.path().join("et2.txt")).unwrap();
    let out = common::latscope().arg("simulate").arg(&p).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
}
