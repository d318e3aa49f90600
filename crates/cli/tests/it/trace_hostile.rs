//! Hostile and streamed inputs of `latscope trace` / `convert`, end to end.
//!
//! The hostile files are built at test time by `crates/trace/tests/corpus/bombs.py` (they
//! claim or inflate to gigabytes). Each run is under a 2 GB address-space limit
//! (`prlimit --as`) and a generous time limit (a hang detector, not a speed check): it must
//! end with exit status 2, one line on stderr naming the file and the place, no panic, and
//! no output file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_latscope")
}

fn fx(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../trace/tests/fixtures")
        .join(name)
}

/// `latscope ARGS` under 2 GB of address space and a 300 s limit.
fn limited(args: &[&str]) -> Output {
    Command::new("prlimit")
        .arg("--as=2147483648")
        .args(["timeout", "300"])
        .arg(exe())
        .args(args)
        .output()
        .expect("prlimit (util-linux) runs")
}

fn bombs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/corpus/bombs.py");
    let st = Command::new("python3")
        .arg(&script)
        .arg(dir.path())
        .status()
        .expect("python3 runs");
    assert!(st.success(), "bombs.py failed");
    dir
}

/// Exit 2, one stderr line naming `file` and containing every `want`, no panic, and no
/// file at `out`.
fn refused(o: &Output, file: &str, want: &[&str], out: &Path) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{file}: status {:?}, stderr: {err}",
        o.status
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{file}: one line expected: {err}");
    assert!(lines[0].starts_with("latscope: error: "), "{err}");
    assert!(lines[0].contains(file), "{file} not named: {err}");
    for w in want {
        assert!(lines[0].contains(w), "{file}: '{w}' missing: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists(), "{file}: {} was written", out.display());
}

#[test]
fn every_bomb_is_refused_quickly_in_bounded_memory() {
    let dir = bombs();
    let out = dir.path().join("never.json");
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "metadata_bomb.sr",
            &["--list"],
            &["entry 'metadata'", "inflates past 400 bytes"],
        ),
        (
            "metadata_huge.sr",
            &["--pulse", "D0"],
            &["entry 'metadata'", "implausibly large"],
        ),
        (
            "analog_bomb.sr",
            &["--list"],
            &["entry 'analog-1-9-1'", "inflates past 4096 bytes"],
        ),
        (
            "analog_huge.sr",
            &["--list"],
            &["entry 'analog-1-9-1'", "analog samples"],
        ),
        // measured, the samples would be spooled for the default levels: capped too
        (
            "analog_huge.sr",
            &["--pulse", "A0"],
            &["entry 'analog-1-9-1'", "analog samples", "--threshold"],
        ),
        (
            "toggle_every_sample.sr",
            &["--pulse", "D0"],
            &["entry 'logic-1', byte offset", "more than 100000000 edges"],
        ),
        (
            "shared_stream.sr",
            &["--pulse", "D0"],
            &["entry 'logic-1-", "overlaps entry"],
        ),
        (
            "wide_vectors.vcd",
            &["--list"],
            &["line 19", "more than 65536 channels"],
        ),
        (
            "ten_million_columns.csv",
            &["--pulse", "c1"],
            &["line 1", "longer than 1048576 bytes"],
        ),
    ];
    for (name, args, want) in cases {
        let p = dir.path().join(name);
        let file = p.display().to_string();
        let mut a: Vec<&str> = vec!["trace", &file];
        a.extend_from_slice(args);
        let json = out.display().to_string();
        if !args.contains(&"--list") {
            a.extend_from_slice(&["--json", &json]);
        }
        refused(&limited(&a), &file, want, &out);
        // convert writes nothing either
        let vcd = dir.path().join("never.vcd");
        let o = limited(&["convert", &file, &vcd.display().to_string()]);
        assert_eq!(o.status.code(), Some(2), "convert {name}");
        assert!(!vcd.exists(), "convert {name} wrote its output");
    }
}

#[test]
fn dev_zero_in_every_forced_format_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.json");
    let json = out.display().to_string();
    for (fmt, want) in [
        ("sigrok", "byte offset 0"),
        ("saleae-bin", "byte offset 0"),
        ("native", "byte offset 0"),
        ("vcd", "line 1"),
        ("csv", "line 1"),
        ("saleae-csv", "line 1"),
        ("scope-csv", "line 1"),
        ("cyclelog", "line 1"),
    ] {
        let o = limited(&[
            "trace",
            "/dev/zero",
            "--format",
            fmt,
            "--cpu-hz",
            "1MHz",
            "--pulse",
            "D0",
            "--json",
            &json,
        ]);
        refused(&o, "/dev/zero", &[want], &out);
    }
}

/// `latscope trace ARGS` with `input` on standard input; the JSON measurements.
fn measurements(args: &[&str], stdin: Option<&[u8]>) -> serde_json::Value {
    let mut c = Command::new(exe());
    c.arg("trace").args(args).args(["--json", "-"]);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    c.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut ch = c.spawn().unwrap();
    if let Some(data) = stdin {
        let mut w = ch.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = w.write_all(&data);
        });
    }
    let o = ch.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ms = v["measurements"].clone();
    assert!(ms.as_array().is_some_and(|a| !a.is_empty()), "{v}");
    ms
}

const MEAS: &[&str] = &[
    "--pulse",
    "D0",
    "--period",
    "D1:rise",
    "--busy",
    "D2,window=1ms",
];

#[test]
fn stdin_pipes_and_fifos_give_the_figures_of_the_file() {
    for f in ["demo8.csv", "demo8.vcd", "demo8.sr"] {
        let path = fx(f);
        let file = path.display().to_string();
        let mut a = vec![file.as_str()];
        a.extend_from_slice(MEAS);
        let want = measurements(&a, None);
        let bytes = std::fs::read(&path).unwrap();
        // '-' and /dev/stdin, both a pipe here
        for name in ["-", "/dev/stdin"] {
            let mut a = vec![name];
            a.extend_from_slice(MEAS);
            assert_eq!(measurements(&a, Some(&bytes)), want, "{f} via {name}");
        }
        // a FIFO, written by another thread
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("cap.fifo");
        let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(st.success());
        let fp = fifo.clone();
        let data = bytes.clone();
        let writer = std::thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new().write(true).open(fp).unwrap();
            let _ = w.write_all(&data);
        });
        let fname = fifo.display().to_string();
        let mut a = vec![fname.as_str()];
        a.extend_from_slice(MEAS);
        assert_eq!(measurements(&a, None), want, "{f} via a FIFO");
        writer.join().unwrap();
    }
}

#[test]
fn a_stream_error_names_stdin() {
    let mut c = Command::new(exe());
    c.args(["trace", "-", "--format", "vcd", "--list"]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut ch = c.spawn().unwrap();
    ch.stdin
        .take()
        .unwrap()
        .write_all(b"$var wire 1 ! a $end $enddefinitions $end\n#5 1!\n#3 0!\n")
        .unwrap();
    let o = ch.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("stdin: line 3: time goes backwards"), "{err}");
}

#[test]
fn a_fifo_without_a_writer_is_a_clear_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("nobody.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = dir.path().join("never.json");
    let f = fifo.display().to_string();
    // `timeout` is the hang detector: before, open() waited for a writer forever. The
    // wait is shortened through LATSCOPE_FIFO_WAIT; the message names the wait it used.
    let o = Command::new("timeout")
        .args(["120", exe(), "trace", &f, "--pulse", "D0", "--json"])
        .arg(&out)
        .env("LATSCOPE_FIFO_WAIT", "0.5")
        .output()
        .unwrap();
    refused(&o, &f, &["a FIFO with no writer", "within 0.5 s"], &out);
    // a wait that is not a number of seconds is refused, naming the variable
    let o = Command::new("timeout")
        .args(["120", exe(), "trace", &f, "--pulse", "D0"])
        .env("LATSCOPE_FIFO_WAIT", "soon")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("LATSCOPE_FIFO_WAIT=soon"), "{err}");
}

#[test]
fn a_session_on_stdin_that_stops_being_a_zip_is_refused_where_it_stops() {
    // demo8.sr up to its central directory, then zeros: before, all of it was spooled
    // to a temporary file and only then found not to be a zip
    let sr = std::fs::read(fx("demo8.sr")).unwrap();
    let dir_at = sr.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let mut c = Command::new(exe());
    c.args(["trace", "-", "--pulse", "D0"]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut ch = c.spawn().unwrap();
    let mut w = ch.stdin.take().unwrap();
    let head = sr[..dir_at].to_vec();
    // up to 1 GiB of zeros; counts what the reader took before it stopped
    let writer = std::thread::spawn(move || {
        let mut sent = 0u64;
        if w.write_all(&head).is_err() {
            return sent;
        }
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..1024 {
            if w.write_all(&zeros).is_err() {
                break;
            }
            sent += zeros.len() as u64;
        }
        sent
    });
    let o = ch.wait_with_output().unwrap();
    let sent = writer.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("stdin: byte offset {dir_at}")) && err.contains("not a zip record"),
        "{err}"
    );
    assert!(sent < 64 << 20, "{sent} bytes of zeros were read");
}
