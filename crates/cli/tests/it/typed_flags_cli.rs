//! measure's, noise's and trace's flags are typed values (issue 24, item 2): clap parses
//! each through the library's `FromStr` when it reads the command line, so a bad value
//! is refused before the command starts, in one line naming the flag, the value and the
//! problem, and before anything the command itself would have refused first.

use crate::common;
use common::{fails, ok};

fn demo8() -> String {
    format!(
        "{}/../trace/tests/fixtures/demo8.sr",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The one line of a refusal at parse time: exit 2, `latscope: error: FLAG 'VALUE': …`,
/// no usage text.
fn refused_when_read(args: &[&str], flag: &str, value: &str) -> String {
    let e = fails(args, 2);
    assert_eq!(e.lines().count(), 1, "{args:?}: one line: {e}");
    let start = format!("latscope: error: {flag} '{value}'");
    assert!(e.starts_with(&start), "{args:?}: {e}");
    assert!(
        !e.contains("Usage") && !e.contains("unexpected argument"),
        "{e}"
    );
    e
}

#[test]
fn measure_and_noise_refuse_a_bad_value_when_the_flag_is_read() {
    // `--label host=x` is refused by the command's own checks (PlanSpec/NoiseSpec), which
    // used to see the flags' text first: a refusal of the value itself comes before it.
    for (cmd, flag, value, says) in [
        ("measure", "--cpus", "3-1", "goes backwards"),
        ("measure", "--cpus", "0,x", "'x' is not a CPU number"),
        ("measure", "--sweep", "10us", "expected LOW..HIGH"),
        (
            "measure",
            "--sweep",
            "1ms..10us",
            "the high end must be larger",
        ),
        ("measure", "--interval", "-1ms", "must be greater than zero"),
        ("measure", "--duration", "10 parsecs", "minutes"),
        ("measure", "--pm-qos", "1500ns", "whole µs"),
        ("measure", "--load", "gpu:1", "unknown kind"),
        ("measure", "--compare-load", "cpu", "missing ':N'"),
        ("measure", "--policy", "deadline", "use fifo, rr or other"),
        (
            "measure",
            "--mode",
            "busy",
            "use absolute, relative or timerfd",
        ),
        ("measure", "--overrun", "drop", "use skip or catch-up"),
        (
            "measure",
            "--trace-above",
            "-5us",
            "must be greater than zero",
        ),
        ("measure", "--trace-buffer", "5T", "unknown unit"),
        ("measure", "--trace-events", "irq,bogus", "not a tracepoint"),
        (
            "measure",
            "--samples-format",
            "parquet",
            "use binary or csv",
        ),
        (
            "measure",
            "--timer-slack",
            "0ns",
            "must be greater than zero",
        ),
        ("noise", "--cpus", "1-", "not a CPU number"),
        ("noise", "--threshold", "-1us", "must be greater than zero"),
        ("noise", "--policy", "deadline", "use fifo, rr or other"),
        (
            "noise",
            "--trace-events",
            "irq,bogus",
            "unknown group 'bogus'",
        ),
    ] {
        let e = refused_when_read(&[cmd, flag, value, "--label", "host=x"], flag, value);
        assert!(e.contains(says), "{cmd} {flag} {value}: {e}");
        assert!(!e.contains("reserved"), "{cmd} {flag} {value}: {e}");
    }
}

#[test]
fn trace_refuses_a_bad_period_busy_count_or_per_before_opening_a_file() {
    // A capture that does not exist: the refusal of the flag comes first.
    let missing = "/nonexistent-latscope/cap.sr";
    for (flag, value, says) in [
        ("--period", "D1:sideways", "unknown edge 'sideways'"),
        ("--period", "D1,nominal=5", "has no unit"),
        ("--busy", "D2:rise", "unknown level 'rise'"),
        ("--busy", "D2,windw=1ms", "unknown option 'windw'"),
        (
            "--count",
            "D3,per=D0:middle",
            "unknown edge or level 'middle'",
        ),
        ("--per", "D0:middle", "unknown edge or level 'middle'"),
    ] {
        let e = fails(&["trace", missing, "--pulse", "D0", flag, value], 2);
        assert_eq!(e.lines().count(), 1, "{flag} {value}: {e}");
        assert!(e.starts_with("latscope: error: "), "{flag} {value}: {e}");
        assert!(
            e.contains(&format!("{flag} '{value}'")),
            "{flag} {value}: {e}"
        );
        assert!(e.contains(says), "{flag} {value}: {e}");
        assert!(!e.contains("nonexistent-latscope"), "{flag} {value}: {e}");
    }
}

/// The figures of `trace`'s measurements without the text they were written as.
fn figures(args: &[&str]) -> Vec<serde_json::Value> {
    let o = ok(args);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut ms = v["measurements"].as_array().unwrap().clone();
    for m in &mut ms {
        m.as_object_mut().unwrap().remove("definition");
    }
    ms
}

#[test]
fn a_spec_is_completed_by_nominal_window_or_per() {
    let sr = demo8();
    let with = |extra: &[&str]| {
        let mut a = vec!["trace", &sr, "--json", "-"];
        a.extend_from_slice(extra);
        figures(&a)
    };
    let inline = with(&["--period", "D1,nominal=4us"]);
    assert!(inline[0]["jitter"].is_object(), "{:?}", inline[0]);
    assert_eq!(with(&["--period", "D1", "--nominal", "4us"]), inline);
    // An inline nominal wins over --nominal.
    assert_eq!(
        with(&["--period", "D1,nominal=4us", "--nominal", "9us"]),
        inline
    );
    let per = with(&["--count", "D3:rise,per=D0"]);
    assert_eq!(with(&["--count", "D3:rise", "--per", "D0"]), per);
    let window = with(&["--busy", "D2,window=100us"]);
    assert_eq!(with(&["--busy", "D2", "--window", "100us"]), window);
    assert_ne!(
        with(&["--busy", "D2"]),
        window,
        "no window: the whole capture"
    );
    // A count with no windows at all is refused once the defaults are known.
    let e = fails(&["trace", &sr, "--count", "D3"], 2);
    assert!(e.contains("--count 'D3': say what to count per"), "{e}");
}

#[test]
fn typed_measure_values_reach_the_plan() {
    let o = ok(&[
        "measure",
        "--cpus",
        "0",
        "--interval",
        "0.2 msec",
        "--loops",
        "50",
        "--policy",
        "SCHED_OTHER",
        "--mode",
        "rel",
        "--overrun",
        "catch_up",
        "--allow-fallback",
        "--no-mlock",
        "--json",
        "-",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["settings"];
    assert_eq!(s["interval_ns"], 200_000);
    assert_eq!(s["policy_requested"], "other");
    assert_eq!(s["priority_requested"], 0, "other's default priority");
    assert_eq!(s["timer_mode"], "relative");
    assert_eq!(s["overrun_policy"], "catch-up");
    assert_eq!(s["cpus"], serde_json::json!([0]));
    assert_eq!(s["loops"], 50);
}
