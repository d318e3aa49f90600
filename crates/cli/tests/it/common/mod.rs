//! Helpers shared by the CLI's integration tests (one module of the `it` test binary,
//! taken by each test module with `use crate::common;`).

use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// The `latscope` binary built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_latscope");

/// A command running the binary, to add arguments, stdin or environment to.
pub fn latscope() -> Command {
    Command::new(BIN)
}

/// Runs the binary with `args` and returns what it did, whatever its exit status.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    latscope()
        .args(args)
        .output()
        .expect("the latscope binary runs")
}

/// Runs the binary with `args`; fails the test, with the arguments and both output
/// streams, unless it exits 0.
pub fn ok<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "latscope {:?} exited {:?}\nstdout:\n{}\nstderr:\n{}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the binary with `args`; fails the test unless it exits with `code`. Returns
/// standard error.
pub fn fails<S: AsRef<OsStr>>(args: &[S], code: i32) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "latscope {:?}\nstdout:\n{}\nstderr:\n{err}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stdout),
    );
    err
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A path as an argument (test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A JSON file, failing the test with its text when it does not parse.
pub fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", p.display()))
}

/// Writes `text` to `dir/name` and returns the path as an argument.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    s(&p).to_string()
}

/// The entry named `name` of a result's `tasks` array; fails the test, naming the task,
/// when there is none.
pub fn task_named<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("no tasks array in {doc}"))
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no task {name} in the result"))
}

/// Linux perf: `perf` on PATH, or Debian's versioned `perf_X.Y` (linux-perf installs
/// the binary under that name and a wrapper that may refuse a kernel it does not know).
pub fn find_perf() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path).chain([std::path::PathBuf::from("/usr/bin")]) {
        let p = dir.join("perf");
        if p.is_file() {
            return Some(p);
        }
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for f in rd.flatten() {
                let n = f.file_name().to_string_lossy().into_owned();
                if n.starts_with("perf_") && n[5..].chars().all(|c| c.is_ascii_digit() || c == '.')
                {
                    return Some(f.path());
                }
            }
        }
    }
    None
}

/// A live perf test that cannot run here: a failure, unless LATSCOPE_SKIP_PERF=1 says to
/// skip it knowingly (docs/testing.md lists that skip).
pub fn perf_skip_allowed(why: &str) {
    if std::env::var("LATSCOPE_SKIP_PERF").as_deref() == Ok("1") {
        eprintln!("perf live test skipped (LATSCOPE_SKIP_PERF=1): {why}");
    } else {
        panic!(
            "{why}; install Debian's linux-perf (scripts/test.sh does) or set \
             LATSCOPE_SKIP_PERF=1 to skip this test knowingly"
        );
    }
}

/// The board and kernel of the multicore tests (global_cli, multicore_cli): two cores at
/// 84 MHz, the tick and switch costs of the single-core examples and a 4 µs IPI. Each
/// file appends its own tasks and interrupts.
pub const TWO_CORES: &str = r#"
[platform]
cpu_hz = 84_000_000
irq_entry_cycles = 12
cores = 2
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "1.5us"
tick_per_release = "5.907us"
switch_base = "1.5us"
switch_per_level = "0.72us"
ipi = "4us"
"#;

/// The head of the chain tests' system (chains_cli, trace_chain_cli): one 125 MHz core,
/// the interrupt-driven `handler` and the `filter` it feeds. Each file appends its own
/// `control` task, the `adc` interrupt and its chains.
pub const CHAIN_HEAD: &str = r#"
[platform]
cpu_hz = "125 MHz"
irq_entry_cycles = 12
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
switch_base = "1us"
[[task]]
name = "handler"
min_interarrival = "1ms"
wcet = "50us"
priority = 5
[[task]]
name = "filter"
min_interarrival = "1ms"
wcet = "200us"
priority = 4
"#;

/// The tests that load the machine on purpose while measuring it (a SCHED_FIFO thread of
/// this process in noise_cli and measure_trace_live) share one binary with the others:
/// they take this lock so that one's load is never the other's noise.
static LIVE: Mutex<()> = Mutex::new(());

/// Holds the live-measurement lock until the guard is dropped.
pub fn live() -> MutexGuard<'static, ()> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}
