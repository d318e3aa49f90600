//! A measured analog channel costs memory for its edges, not its samples.
//!
//! `crates/trace/tests/corpus/big_analog.py` builds, at test time, a sigrok session whose
//! analog channel holds 160 Mi float32 samples (640 MiB inflated, under 1 MB on disk): a
//! square wave with one edge every 1 Mi samples. `latscope trace --pulse A0` measures it
//! under a 256 MiB address-space limit (`prlimit --as`), with the default levels (the
//! samples spooled to a temporary file and read back) and with given ones (straight
//! through), so the samples cannot have been held; keeping them whole (`--list`, a
//! conversion) is refused at the import's sample cap instead.
//!
//! The pulses are known from how the file is built: parts of 1 Mi samples at 1 MHz
//! alternate 0 V and 3.3 V, starting low, so 160 parts make 79 complete high pulses of
//! exactly 1,048,576 µs, each edge half a sample before its part starts.

use crate::common;

use common::{read_json, s};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `latscope ARGS` under a 256 MiB address-space limit.
fn limited(args: &[&str]) -> Output {
    Command::new("prlimit")
        .arg(format!("--as={}", 256u64 << 20))
        .arg(common::BIN)
        .args(args)
        .output()
        .expect("prlimit (util-linux) runs")
}

fn build(dir: &Path) -> PathBuf {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/corpus/big_analog.py");
    let out = dir.join("big_analog.sr");
    let st = Command::new("python3")
        .arg(&script)
        .arg(&out)
        .args(["160", "4"])
        .status()
        .expect("python3 runs");
    assert!(st.success(), "big_analog.py failed");
    out
}

#[test]
fn a_measured_analog_channel_is_held_as_edges_only() {
    let dir = tempfile::tempdir().unwrap();
    let sr = build(dir.path());
    let sr_s = s(&sr);
    let levels: [&[&str]; 2] = [&[], &["--threshold", "1.65", "--hysteresis", "0.33"]];
    for extra in levels {
        let json = dir.path().join("out.json");
        let json_s = s(&json);
        let mut args = vec!["trace", sr_s, "--pulse", "A0", "--json", json_s];
        args.extend_from_slice(extra);
        let o = limited(&args);
        assert!(
            o.status.success(),
            "{extra:?}: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        let v = read_json(&json);
        let m = &v["measurements"][0];
        assert_eq!(m["count"], 79, "{extra:?}: {m}");
        assert_eq!(m["min_ns"], 1_048_576_000u64, "{extra:?}");
        assert_eq!(m["max_ns"], 1_048_576_000u64, "{extra:?}");
        // the first high pulse starts half a sample before part 2 (sample 1 Mi)
        assert_eq!(m["min_at_ns"], 1_048_575_500u64, "{extra:?}");
        std::fs::remove_file(&json).unwrap();
    }
    // kept whole, the same capture is past the import's sample cap: a clear refusal
    let o = limited(&["trace", sr_s, "--list"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("analog samples in all"), "{err}");
    assert!(
        err.contains("--pulse"),
        "the refusal says how to measure it: {err}"
    );
}
