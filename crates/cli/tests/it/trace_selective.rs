//! `latscope trace` keeps the edges of the measured channels only, in every format that
//! can decode selectively (sigrok, VCD, CSV, Saleae CSV): a capture with many toggling
//! channels stays small when one channel is measured.
//!
//! Each case proves the point twice: `convert` of the same file (which needs every
//! channel) is refused under the same `--max-edges` budget, so the file really holds more
//! edges than that, while `trace` of one channel passes; and a VCD run under a small
//! address-space limit (`prlimit --as`) that decoding every channel would break.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_latscope")
}

fn run(args: &[&str]) -> Output {
    Command::new(exe()).args(args).output().unwrap()
}

/// `latscope ARGS` under `mb` MiB of address space.
fn limited(mb: u64, args: &[&str]) -> Output {
    Command::new("prlimit")
        .arg(format!("--as={}", mb << 20))
        .args(["timeout", "300"])
        .arg(exe())
        .args(args)
        .output()
        .expect("prlimit (util-linux) runs")
}

/// The JSON report of a successful run; panics with stderr otherwise.
fn json(o: &Output, what: &str) -> serde_json::Value {
    assert!(
        o.status.success(),
        "{what}: {:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Checks the one pulse measurement: `count` pulses of `width_ns` each, and that only the
/// channel `measured` was decoded.
fn check(v: &serde_json::Value, count: u64, width_ns: f64, measured: &str) {
    let m = &v["measurements"][0];
    assert_eq!(m["count"].as_u64(), Some(count), "{m}");
    assert_eq!(m["min_ns"].as_f64(), Some(width_ns), "{m}");
    assert_eq!(m["max_ns"].as_f64(), Some(width_ns), "{m}");
    let chans = v["capture"]["channels"].as_array().unwrap();
    assert!(chans.len() > 100, "{}", chans.len());
    for c in chans {
        let want = c["name"] == measured;
        assert_eq!(c["decoded"].as_bool(), Some(want), "{c}");
    }
}

fn refused_for_edges(o: &Output, file: &Path) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&file.display().to_string()) && err.contains("edges"),
        "{err}"
    );
}

/// A VCD with one `bits`-wide vector whose every bit toggles at every one of `steps`
/// timestamps (1 ns apart), written in chunks.
fn wide_vcd(path: &Path, bits: usize, steps: usize) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(
        f,
        "$timescale 1ns $end\n$scope module top $end\n$var wire {bits} ! bus [{}:0] $end\n\
         $upscope $end\n$enddefinitions $end",
        bits - 1
    )
    .unwrap();
    let zeros = format!("b{} !\n", "0".repeat(bits));
    let ones = format!("b{} !\n", "1".repeat(bits));
    for t in 0..steps {
        writeln!(f, "#{t}").unwrap();
        f.write_all(if t % 2 == 0 {
            zeros.as_bytes()
        } else {
            ones.as_bytes()
        })
        .unwrap();
    }
    writeln!(f, "#{steps}").unwrap();
}

#[test]
fn vcd_with_many_toggling_channels_keeps_only_the_measured_edges() {
    let dir = tempfile::tempdir().unwrap();
    // 1024 channels × 40,000 toggles: 41 M edges, 328 MB as 8-byte times if all were kept;
    // the measured bit has 40,000 (20,000 pulses of 1 ns)
    let p = dir.path().join("wide.vcd");
    wide_vcd(&p, 1024, 40_000);
    let f = p.display().to_string();
    let o = limited(256, &["trace", &f, "--pulse", "bus[0]", "--json", "-"]);
    check(&json(&o, "trace under 256 MiB"), 19_999, 1.0, "bus[0]");
    // the same measurement by index
    let o = run(&[
        "trace",
        &f,
        "--pulse",
        "#7",
        "--max-edges",
        "100000",
        "--json",
        "-",
    ]);
    check(&json(&o, "trace by index"), 19_999, 1.0, "bus[7]");
    // every channel does not fit that budget
    let out = dir.path().join("all.vcd").display().to_string();
    let o = run(&["convert", &f, &out, "--max-edges", "100000"]);
    refused_for_edges(&o, &p);
}

#[test]
fn csv_with_many_toggling_columns_keeps_only_the_measured_edges() {
    let dir = tempfile::tempdir().unwrap();
    // 200 channel columns toggling on every row, 4,000 rows at 1 µs: 800,000 edges; the
    // measured column has 4,000 (1,999 complete pulses of 1 µs after the first rise)
    let mut s = String::from("time_us");
    for k in 0..200 {
        write!(s, ",c{k}").unwrap();
    }
    s.push('\n');
    for r in 0..4000 {
        write!(s, "{r}").unwrap();
        let v = if r % 2 == 0 { ",0" } else { ",1" };
        for _ in 0..200 {
            s.push_str(v);
        }
        s.push('\n');
    }
    let p = dir.path().join("wide.csv");
    std::fs::write(&p, s).unwrap();
    let f = p.display().to_string();
    let o = run(&[
        "trace",
        &f,
        "--pulse",
        "c3",
        "--max-edges",
        "10000",
        "--json",
        "-",
    ]);
    check(&json(&o, "csv trace"), 1_999, 1000.0, "c3");
    // from a pipe too (read once, selecting as it goes)
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "cat '{f}' | '{}' trace - --pulse c3 --max-edges 10000 --json -",
            exe()
        ))
        .output()
        .unwrap();
    let v = json(&o, "csv trace from a pipe");
    assert_eq!(v["measurements"][0]["count"].as_u64(), Some(1_999));
    let out = dir.path().join("all.vcd").display().to_string();
    let o = run(&["convert", &f, &out, "--max-edges", "10000"]);
    refused_for_edges(&o, &p);
}
