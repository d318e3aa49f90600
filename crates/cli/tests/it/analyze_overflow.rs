//! An absurd but individually valid system file (hour-long per-level switch costs,
//! priorities four billion apart) must end in a clear error, not a panic or wrapped numbers.

use std::process::Command;

#[test]
fn overflowing_costs_are_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("ov.toml");
    std::fs::write(
        &f,
        r#"[platform]
cpu_hz = 84000000
[kernel]
tick_hz = 1000
model = "tick"
[kernel.costs]
tick_base = "1us"
tick_per_release = "1000h"
switch_base = "1us"
switch_per_level = "1000h"
[[task]]
name = "a"
period = "4ms"
wcet = "1ms"
priority = 4000000000
[[task]]
name = "b"
period = "8ms"
wcet = "1ms"
priority = 0
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_latscope"))
        .arg("analyze")
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ov.toml") && err.contains("overflows"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
