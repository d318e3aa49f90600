//! End-to-end tests of `latscope analyze`, `generate` and `fit`.

use std::path::Path;

use crate::common;
use common::{run, write};

const EXAMPLE: &str = r#"
[platform]
cpu_hz = 84_000_000
irq_entry_cycles = 12

[kernel]
tick_hz = 1000
model = "tick"                  # tick-driven fixed-priority kernel
task_selection = "generic"      # or "optimised"
tick_mode = "partitioned"       # or "pessimistic"
[kernel.costs]
tick_base = "1.5us"
tick_per_release = "5.907us"
switch_base = "1.5us"
switch_per_level = "0.7us"

[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 2

[[task]]
name = "B"
period = "10ms"
wcet = "3ms"
priority = 1
"#;

#[test]
fn analyze_json_contract() {
    let d = tempfile::tempdir().unwrap();
    let sys = write(d.path(), "sys.toml", EXAMPLE);
    let out = run(&["analyze", &sys, "--json", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "analyze");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["tick_mode"], "partitioned");
    let tasks = v["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0]["name"], "A");
    assert_eq!(tasks[0]["priority"], 2);
    for t in tasks {
        assert!(t["wcrt_ns"].as_f64().unwrap() > t["breakdown"]["wcet_ns"].as_f64().unwrap());
        assert!(t["deadline_ns"].is_number());
        assert_eq!(t["schedulable"], true);
    }
    let pess = v["tick_modes"]["pessimistic"][1]["wcrt_ns"]
        .as_f64()
        .unwrap();
    let part = v["tick_modes"]["partitioned"][1]["wcrt_ns"]
        .as_f64()
        .unwrap();
    assert!(part < pess, "{part} {pess}");
    assert!(
        v["pessimism_reduction"][1]["reduction_ns"]
            .as_f64()
            .unwrap()
            > 0.0
    );

    // Overrides.
    let out = run(&[
        "analyze",
        &sys,
        "--json",
        "-",
        "--no-overheads",
        "--tick-mode",
        "pessimistic",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tick_mode"], "pessimistic");
    assert_eq!(v["tasks"][1]["wcrt_ns"].as_f64(), Some(4e6)); // 3 + 1 ms (one job of A)

    // Table on stdout, JSON file.
    let j = d.path().join("r.json");
    let out = run(&[
        "analyze",
        &sys,
        "--json",
        j.to_str().unwrap(),
        "--breakdown",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("WCRT") && text.contains("schedulable"),
        "{text}"
    );
    assert!(j.exists());
}

#[test]
fn analyze_errors_and_check() {
    let d = tempfile::tempdir().unwrap();
    let bad = write(
        d.path(),
        "bad.toml",
        &EXAMPLE.replace("wcet = \"3ms\"", "wcet = \"3 parsecs\""),
    );
    let out = run(&["analyze", &bad]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:26:") && err.contains("task[1] \"B\"") && err.contains("wcet"),
        "{err}"
    );

    let over = write(
        d.path(),
        "over.toml",
        &EXAMPLE.replace("wcet = \"3ms\"", "wcet = \"9ms\""),
    );
    let out = run(&["analyze", &over, "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["analyze", &over]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MISS"));
}

#[test]
fn generate_then_analyze() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("sets");
    let out = run(&[
        "generate",
        "-n",
        "12",
        "-u",
        "0.5",
        "--count",
        "3",
        "--seed",
        "9",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = std::fs::read_to_string(dir.join("set-0002.toml")).unwrap();
    let one = d.path().join("one.json");
    let out = run(&[
        "generate",
        "-n",
        "12",
        "-u",
        "0.5",
        "--seed",
        "11",
        "--out",
        one.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let out = run(&["analyze", one.to_str().unwrap(), "--json", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tasks"].as_array().unwrap().len(), 12);
    // Seed 9 + 2 is seed 11: the same tasks.
    let b = run(&[
        "generate", "-n", "12", "-u", "0.5", "--seed", "11", "--out", "-",
    ]);
    assert_eq!(a, String::from_utf8_lossy(&b.stdout));
    let out = run(&["generate", "-n", "0", "-u", "0.5", "--out", "-"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fit_writes_parameters() {
    let d = tempfile::tempdir().unwrap();
    let sys = write(d.path(), "sys.toml", EXAMPLE);
    // the FreeRTOS overheads paper, Table 4: worst context switch per loop iterations.
    let csv = write(
        d.path(),
        "cs.csv",
        "levels,us\n1,1.5\n2,2.875\n3,3.255\n4,3.875\n5,4.375\n",
    );
    let out = run(&[
        "fit", &csv, "--target", "switch", "--x", "levels", "--y", "us", "--unit", "us", "--write",
        &sys, "--json", "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "fit");
    assert_eq!(v["samples"], 5);
    let text = std::fs::read_to_string(&sys).unwrap();
    // The safe line with the smallest largest excess over the five points (a brute-force
    // search over slopes gives the same): 718.75 ns per level through (2, 2.875 us), so
    // 2.15625 us at one level; largest excess 656.25 ns (at 1 and 5 levels).
    assert!(text.contains("switch_per_level = \"718.75ns\""), "{text}");
    assert!(text.contains("switch_base = \"2.15625us\""), "{text}");
    assert!((v["upper_max_excess_ns"].as_f64().unwrap() - 656.25).abs() < 1e-6);
    let out = run(&[
        "fit", &csv, "--target", "insert", "--x", "levels", "--y", "us", "--unit", "us", "--write",
        &sys,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("listscan"));
}

#[test]
fn fit_from_trace_results() {
    let d = tempfile::tempdir().unwrap();
    let sys = write(d.path(), "sys.toml", EXAMPLE);
    // the FreeRTOS overheads paper: 1.5 us with nothing released, 60.75 us measured with all ten released.
    let mut args: Vec<String> = [
        "fit",
        "--target",
        "tick",
        "--measurement",
        "SysTick",
        "--json",
        "-",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // A real trace result (demo8.vcd's D0 pulses) with its measurement renamed SysTick
    // and its maximum set to the paper's figure: fit reads typed trace results.
    let real = run(&[
        "trace",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../trace/tests/fixtures/demo8.vcd"
        ),
        "--pulse",
        "D0",
        "--json",
        "-",
    ]);
    assert!(
        real.status.success(),
        "{}",
        String::from_utf8_lossy(&real.stderr)
    );
    let template: serde_json::Value = serde_json::from_slice(&real.stdout).unwrap();
    for (x, y) in [(0, 1500), (10, 60750)] {
        let mut t = template.clone();
        t["measurements"][0]["name"] = "SysTick".into();
        t["measurements"][0]["max_ns"] = y.into();
        let f = write(d.path(), &format!("t{x}.json"), &t.to_string());
        args.push("--trace".into());
        args.push(format!("{x}={f}"));
    }
    args.push("--write".into());
    args.push(sys.clone());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&refs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&sys).unwrap();
    assert!(text.contains("tick_per_release = \"5.925us\""), "{text}");
    assert!(text.contains("tick_base = \"1.5us\""), "{text}");
    // A measurement that is not there names the ones that are.
    let bad = run(&[
        "fit",
        "--target",
        "tick",
        "--measurement",
        "Tick",
        "--trace",
        &format!("0={}", d.path().join("t0.json").display()),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SysTick"));
}

#[test]
fn generate_output_rules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A trailing slash names a directory that is created, even for one set.
    let newdir = format!("{}/newdir/", d.display());
    let o = run(&[
        "generate",
        "--tasks",
        "3",
        "--utilisation",
        "0.6",
        "--out",
        &newdir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(d.join("newdir/set-0000.toml").is_file());
    // Standard output takes one set only; --count 0 is an error.
    let o = run(&[
        "generate",
        "--tasks",
        "3",
        "--utilisation",
        "0.5",
        "--count",
        "2",
        "--out",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!Path::new("-").exists());
    let o = run(&[
        "generate",
        "--tasks",
        "3",
        "--utilisation",
        "0.5",
        "--count",
        "0",
        "--out",
        &newdir,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--count"));
}

/// With task offsets, `analyze` reports the offset-aware worst response (simulated
/// feasibility interval) beside the offset-free bound, in the table and the JSON; the
/// existing keys stay.
#[test]
fn analyze_reports_the_offset_aware_result() {
    let d = tempfile::tempdir().unwrap();
    let text = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                [[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 2\n\
                [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 1\n\
                offset = \"5ms\"\n";
    let sys = write(d.path(), "o.toml", text);
    let out = run(&["analyze", &sys, "--json", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "analyze");
    assert!(v["tasks"].is_array() && v["tick_modes"].is_object());
    let o = &v["offset_aware"];
    assert_eq!(o["method"], "simulated feasibility interval", "{o}");
    let l = o["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "L")
        .unwrap();
    let worst = l["worst_ns"].as_f64().unwrap();
    let bound = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "L")
        .unwrap()["wcrt_ns"]
        .as_f64()
        .unwrap();
    assert!(worst < 0.6 * bound, "{worst} vs {bound}");
    let out = run(&["analyze", &sys]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("offset-free bound"), "{table}");
    // Without offsets: no offset-aware result (null).
    let sys = write(d.path(), "n.toml", &text.replace("offset = \"5ms\"\n", ""));
    let out = run(&["analyze", &sys, "--json", "-"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["offset_aware"].is_null());
}

/// `generate --periods`: listed periods only (a bare number takes the last unit), uniform
/// periods within the range on the granularity, the default unchanged by naming it, and
/// bad lists refused naming the flag and the value.
#[test]
fn generate_period_distributions() {
    let periods_of = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "generate", "-n", "40", "-u", "0.5", "--seed", "3", "--out", "-",
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("period = "))
            .map(|p| p.trim_matches('"').to_string())
            .collect()
    };
    let choice = periods_of(&["--periods", "choice:2,20,200ms"]);
    assert_eq!(choice.len(), 40);
    assert!(
        choice
            .iter()
            .all(|p| ["2ms", "20ms", "200ms"].contains(&p.as_str())),
        "{choice:?}"
    );
    for want in ["2ms", "20ms", "200ms"] {
        assert!(
            choice.iter().any(|p| p == want),
            "{want} never drawn: {choice:?}"
        );
    }
    let uniform = periods_of(&[
        "--periods",
        "uniform",
        "--period-min",
        "30ms",
        "--period-max",
        "60ms",
        "--granularity",
        "10ms",
    ]);
    assert!(
        uniform
            .iter()
            .all(|p| ["30ms", "40ms", "50ms", "60ms"].contains(&p.as_str())),
        "{uniform:?}"
    );
    assert_eq!(periods_of(&[]), periods_of(&["--periods", "log-uniform"]));
    assert_ne!(periods_of(&[]), choice);
    for (bad, said) in [
        ("choice:2,x", "choice:2,x"),
        ("normal", "normal"),
        ("choice:3ms,2500us", "2.5 ms"),
    ] {
        let o = run(&[
            "generate",
            "-n",
            "4",
            "-u",
            "0.5",
            "--periods",
            bad,
            "--out",
            "-",
        ]);
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(said), "{bad}: {e}");
        assert!(o.stdout.is_empty());
    }
    let help = String::from_utf8(run(&["generate", "--help"]).stdout).unwrap();
    assert!(
        help.contains("--periods") && help.contains("choice:"),
        "{help}"
    );
}
