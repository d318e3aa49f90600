//! `read = "start"` through the CLI: `analyze` prints Dürr et al.'s reaction time and
//! data age with Davare et al.'s beside them, `--json` carries both, and a chain that
//! reads at release has neither the line nor the keys.

use crate::common::run;

const SYSTEM: &str = r#"[platform]
cpu_hz = 1_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 1000
[[task]]
name = "X"
period = "10ms"
wcet = "3ms"
priority = 3
[[task]]
name = "W"
period = "10ms"
wcet = "1ms"
priority = 2
[[task]]
name = "Rd"
period = "7ms"
wcet = "1ms"
priority = 1
[[chain]]
name = "wr"
steps = ["W", "Rd"]
links = ["sampled"]
"#;

fn analyze(text: &str, json: bool) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sys.toml");
    std::fs::write(&p, text).unwrap();
    let mut args: Vec<&std::ffi::OsStr> = vec!["analyze".as_ref(), p.as_os_str()];
    if json {
        args.push(std::ffi::OsStr::new("--json"));
        args.push(std::ffi::OsStr::new("-"));
    }
    run(&args)
}

#[test]
fn start_reads_show_duerr_and_davare() {
    let text = format!("{SYSTEM}read = \"start\"\n");
    let out = analyze(&text, true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &v["chains"][0];
    assert_eq!(c["read"], "start");
    assert_eq!(c["duerr_links"], serde_json::json!([0]));
    let (r, a) = (
        c["reaction_ns"].as_f64().unwrap(),
        c["age_ns"].as_f64().unwrap(),
    );
    let (dr, da) = (
        c["davare_reaction_ns"].as_f64().unwrap(),
        c["davare_age_ns"].as_f64().unwrap(),
    );
    assert!(r < dr && a < da, "{r} {dr} {a} {da}");
    let text_out = analyze(&text, false);
    let s = String::from_utf8_lossy(&text_out.stdout);
    assert!(
        s.contains("readers read at start: Dürr et al. 2019 on link 0; Davare et al. 2007"),
        "{s}"
    );
}

#[test]
fn release_reads_have_no_duerr_keys() {
    let out = analyze(SYSTEM, true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = v["chains"][0].as_object().unwrap();
    for k in ["read", "duerr_links", "davare_reaction_ns", "davare_age_ns"] {
        assert!(!c.contains_key(k), "{k}");
    }
    let s = String::from_utf8_lossy(&analyze(SYSTEM, false).stdout).to_string();
    assert!(!s.contains("read at start"), "{s}");
}
