//! `analyze` reports the offset-based bound (sets with jitter) beside the offset-free
//! bound, in the JSON (`offset_bound`) and the table.

use std::path::Path;
use std::process::{Command, Output};

/// H 10 ms / 2 ms above L 10 ms / 3 ms, both at 0, and handler I 10 ms / 1 ms at 5 ms
/// (docs/analysis.md, the hand-checked example).
const HLI: &str = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                   [[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 2\n\
                   [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"3ms\"\npriority = 1\n\
                   [[interrupt]]\nname = \"I\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\n\
                   offset = \"5ms\"\n";

/// `latscope analyze SYS --no-overheads --no-release-delay ARGS`.
fn analyze_plain(sys: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latscope"))
        .arg("analyze")
        .arg(sys)
        .args(["--no-overheads", "--no-release-delay"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn analyze_reports_the_offset_based_bound_with_jitter() {
    let d = tempfile::tempdir().unwrap();
    let text = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                [[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 2\n\
                jitter = \"1ms\"\n\
                [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 1\n\
                offset = \"5ms\"\n";
    let sys = d.path().join("j.toml");
    std::fs::write(&sys, text).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_latscope"))
            .arg("analyze")
            .arg(&sys)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--json", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Jitter: no exact simulated result, but the offset-based bound.
    assert_eq!(v["offset_aware"]["method"], "none");
    let b = &v["offset_bound"];
    assert_eq!(b["tick_mode"], v["tick_mode"]);
    let l = b["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "L")
        .unwrap();
    let free = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "L")
        .unwrap()["wcrt_ns"]
        .as_f64()
        .unwrap();
    assert_eq!(l["offset_free_ns"].as_f64().unwrap(), free);
    let bound = l["wcrt_ns"].as_f64().unwrap();
    assert!(bound >= 4e6 && bound < 0.6 * free, "{bound} vs {free}");
    assert!(l["window_start"].is_string());
    let out = run(&[]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("offset-based bound"), "{table}");
    // Without offsets the key is null.
    std::fs::write(&sys, text.replace("offset = \"5ms\"\n", "")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&run(&["--json", "-"]).stdout).unwrap();
    assert!(v["offset_bound"].is_null());
}

/// `--periodic-interrupts`: an interrupt offset alone turns the offset-based bound on,
/// and it phases the handler (H 0-2 ms, L 2-5 ms, handler at 5 ms: L's bound 5 ms
/// against 6 ms with the handler sporadic; no overheads, no release delay).
#[test]
fn analyze_phases_interrupts_declared_periodic() {
    let d = tempfile::tempdir().unwrap();
    let sys = d.path().join("i.toml");
    std::fs::write(&sys, HLI).unwrap();
    let run = |args: &[&str]| analyze_plain(&sys, args);
    let v: serde_json::Value = serde_json::from_slice(&run(&["--json", "-"]).stdout).unwrap();
    assert!(
        v["offset_bound"].is_null(),
        "no task offset, interrupts sporadic"
    );
    let out = run(&["--json", "-", "--periodic-interrupts"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = &v["offset_bound"];
    assert_eq!(b["interrupts"], "periodic");
    let l = &b["tasks"][1];
    assert_eq!(l["name"], "L");
    assert_eq!(l["offset_free_ns"].as_f64().unwrap(), 6e6);
    assert_eq!(l["wcrt_ns"].as_f64().unwrap(), 5e6);
    let table = String::from_utf8_lossy(&run(&["--periodic-interrupts"]).stdout).to_string();
    assert!(table.contains("interrupts declared periodic"), "{table}");
}

/// `periodic = true` on one interrupt in the system file phases that one without the
/// flag: with the only interrupt declared so, the figures equal `--periodic-interrupts`;
/// with a second, sporadic interrupt beside it the bound says "mixed".
#[test]
fn analyze_phases_the_interrupts_the_file_declares_periodic() {
    let d = tempfile::tempdir().unwrap();
    let base = HLI;
    let sys = d.path().join("i.toml");
    let run = |args: &[&str]| {
        let mut a = vec!["--json", "-"];
        a.extend_from_slice(args);
        let out = analyze_plain(&sys, &a);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    std::fs::write(&sys, base).unwrap();
    let flag = run(&["--periodic-interrupts"]);
    std::fs::write(&sys, format!("{base}periodic = true\n")).unwrap();
    let key = run(&[]);
    assert_eq!(key["offset_bound"], flag["offset_bound"]);
    assert_eq!(
        key["offset_bound"]["tasks"][1]["wcrt_ns"].as_f64(),
        Some(5e6)
    );
    // a second interrupt, sporadic, rarely arriving: "mixed". With L 0.1 ms shorter, H and
    // L and one J (10 µs) end at 4.91 ms, before I's phase at 5 ms: I no longer counts
    let mixed = format!(
        "{}periodic = true\n[[interrupt]]\nname = \"J\"\nmin_interarrival = \"100ms\"\n\
         wcet = \"10us\"\npriority = 2\n",
        base.replace("wcet = \"3ms\"", "wcet = \"2.9ms\"")
    );
    std::fs::write(&sys, &mixed).unwrap();
    let v = run(&[]);
    let b = &v["offset_bound"];
    assert_eq!(b["interrupts"], "mixed");
    let l = &b["tasks"][1];
    assert_eq!(l["wcrt_ns"].as_f64(), Some(4.91e6), "{b}");
    assert_eq!(l["offset_free_ns"].as_f64(), Some(5.91e6), "{b}");
    let out = Command::new(env!("CARGO_BIN_EXE_latscope"))
        .arg("analyze")
        .arg(&sys)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("declares periodic"), "{table}");
}
