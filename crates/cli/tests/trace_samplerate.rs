//! `latscope trace --samplerate` where it cannot apply (audit D22): a format with absolute
//! times ignores it with a warning and unchanged results; a file that states another rate
//! is an error naming the file and both rates; the same rate is accepted silently.

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
fn a_contradicting_rate_overrides_the_stated_one_with_a_warning() {
    // libsigrok's leniency: the user's rate wins over the file's, and the user is told.
    let sr = fixture("demo8.sr");
    let o = trace(&[&sr, "--samplerate", "2MHz", "--pulse", "D0", "--json", "-"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning")
            && err.contains(&sr)
            && err.contains("1 MHz")
            && err.contains("2 MHz"),
        "{err}"
    );
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
    // Twice the rate: every width is half as long, sample for sample.
    let (fast, slow) = (json(&o), json(&same));
    assert_eq!(fast["capture"]["samplerate_hz"], 2_000_000);
    let (f, s) = (
        fast["measurements"][0]["max_ns"].as_f64().unwrap(),
        slow["measurements"][0]["max_ns"].as_f64().unwrap(),
    );
    assert!(s > 0.0 && (f * 2.0 - s).abs() < 1e-6, "{f} vs {s}");
    let plain = trace(&[&sr, "--pulse", "D0", "--json", "-"]);
    assert_eq!(json(&same)["measurements"], json(&plain)["measurements"]);
    assert_eq!(json(&same)["capture"]["samplerate_hz"], 1_000_000);
}
