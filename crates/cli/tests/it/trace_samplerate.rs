//! `latscope trace --samplerate` where it cannot apply (audit D22): a format with absolute
//! times ignores it with a warning and unchanged results; a file that states another rate
//! is read at the given one, with a warning naming the file and both rates (libsigrok's
//! leniency: sessions saved with a wrong rate); the same rate is accepted silently.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../trace/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn trace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latscope"))
        .arg("trace")
        .args(args)
        .output()
        .expect("run latscope")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

#[test]
fn vcd_ignores_samplerate_with_a_warning() {
    let vcd = fixture("demo8.vcd");
    let plain = trace(&[&vcd, "--pulse", "#0", "--json", "-"]);
    assert!(plain.status.success());
    assert!(
        plain.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let with = trace(&[&vcd, "--samplerate", "2MHz", "--pulse", "#0", "--json", "-"]);
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    let err = String::from_utf8_lossy(&with.stderr);
    assert!(
        err.contains("warning")
            && err.contains("--samplerate 2 MHz has no effect on")
            && err.contains(&vcd)
            && err.contains("ignored"),
        "{err}"
    );
    // Ignored means ignored: every figure is the same as without the flag.
    let (a, b) = (json(&plain), json(&with));
    assert_eq!(a["measurements"], b["measurements"]);
    assert_eq!(b["capture"]["samplerate_hz"], serde_json::Value::Null);
    assert_eq!(b["measurements"][0]["max_ns"], 11000.0);
}

#[test]
fn a_contradicting_rate_overrides_with_a_warning_naming_the_file_and_both_rates() {
    let sr = fixture("demo8.sr");
    let o = trace(&[&sr, "--samplerate", "2MHz", "--pulse", "D0", "--json", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "latscope: warning: {sr} states samplerate 1 MHz; --samplerate 2 MHz overrides it \
             (every time is rescaled)"
        )
    );
    // every time is halved
    let plain = trace(&[&sr, "--pulse", "D0", "--json", "-"]);
    let (a, b) = (json(&plain), json(&o));
    assert_eq!(b["capture"]["samplerate_hz"], 2_000_000);
    assert_eq!(
        b["measurements"][0]["max_ns"].as_f64().unwrap() * 2.0,
        a["measurements"][0]["max_ns"].as_f64().unwrap()
    );
    assert_eq!(b["measurements"][0]["count"], a["measurements"][0]["count"]);
    // The rate the file states is accepted, without a warning, and changes nothing.
    let same = trace(&[&sr, "--samplerate", "1MHz", "--pulse", "D0", "--json", "-"]);
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert!(
        same.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    let plain = trace(&[&sr, "--pulse", "D0", "--json", "-"]);
    assert_eq!(json(&same)["measurements"], json(&plain)["measurements"]);
    assert_eq!(json(&same)["capture"]["samplerate_hz"], 1_000_000);
}
