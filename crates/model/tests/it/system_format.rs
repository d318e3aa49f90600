//! The system description: the issue's example, round trips and error messages.

use latscope_core::Picos;
use latscope_model::system::{Arrival, KernelCosts, ModelKind, TaskSelection, TickMode};
use latscope_model::System;

const ISSUE_EXAMPLE: &str = r#"
[platform]
cpu_hz = 84_000_000
irq_entry_cycles = 12

[kernel]
tick_hz = 1000
model = "tick"                  # tick-driven fixed-priority kernel
task_selection = "generic"      # or "optimised"
tick_mode = "partitioned"       # or "pessimistic"
[kernel.costs]
tick_base = "1.5us"
tick_per_release = "5.907us"
switch_base = "1.5us"
switch_per_level = "0.7us"

[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 2
"#;

fn err(text: &str) -> String {
    match System::from_toml_str(text, "sys.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn issue_example_is_accepted_as_written() {
    let s = System::from_toml_str(ISSUE_EXAMPLE, "example.toml").unwrap();
    assert_eq!(s.platform.cpu_hz, 84_000_000);
    // L = 12 cycles at 84 MHz = 142.857 ns (rounded to the picosecond)
    assert_eq!(s.platform.irq_entry(), Picos(142_857));
    assert_eq!(s.kernel.tick_period(), Picos::from_ms(1));
    assert_eq!(s.kernel.model(), ModelKind::Tick);
    assert_eq!(s.kernel.task_selection, TaskSelection::Generic);
    assert_eq!(s.kernel.tick_mode, TickMode::Partitioned);
    let KernelCosts::Tick(c) = &s.kernel.costs else {
        panic!("not tick")
    };
    assert_eq!(c.tick_per_release, Picos::from_ns(5907));
    assert_eq!(c.optimised_switch_cost(), Picos::from_ns(1500));
    let a = &s.tasks[0];
    assert_eq!(a.arrival, Arrival::Periodic(Picos::from_ms(5)));
    assert_eq!(a.deadline, Picos::from_ms(5));
    assert_eq!(a.bcet, a.wcet);
    assert_eq!(a.priority, 2);
}

#[test]
fn toml_and_json_round_trip() {
    let text = r#"
[platform]
cpu_hz = "125 MHz"
irq_entry_cycles = 12
cache = { assume = "cold", warm = "0ns", cold = "3.1us" }
[kernel]
tick_hz = 1000
model = "irqpath"
[kernel.costs]
tick = "2us"
switch = "1us"
warm = { prologue = "14 cycles", send = "1.6us", dispatch = "440ns" }
cold = { entry = "3.3us", prologue = "1us", send = "20us", dispatch = "4.7us" }
[[kernel.sleep_state]]
name = "stop"
safety_margin_ticks = 2
parts = { cpu_wake = "80us", oscillator_restart = "720us", context_switch = "6.6us" }
[critical_sections]
kernel = "3us"
application = "12 cycles"
[[task]]
name = "ah"
min_interarrival = "1ms"
wcet = "10us"
bcet = "5us"
priority = 3
deadline = "100us"
[[task]]
name = "am"
period = "1ms"
wcet = "100us"
priority = 2
offset = "250us"
jitter = "5us"
blocking = "7us"
exec_time_file = "am.csv"
[[interrupt]]
name = "gpio"
min_interarrival = "1ms"
wcet = "232ns"
priority = 1
releases = "ah"
offset = "300us"
periodic = true
"#;
    let a = System::from_toml_str(text, "a.toml").unwrap();
    assert_eq!(a.tasks[0].released_by, Some(0));
    assert_eq!(a.interrupts[0].releases, Some(0));
    assert!(a.interrupts[0].periodic);
    assert_eq!(a.interrupts[0].offset, Picos::from_us(300));
    assert_eq!(
        a.kernel.sleep_states[0].wake_latency(),
        Picos::from_ns(806_600)
    );
    let back = System::from_toml_str(&a.to_toml_string(), "a.toml").unwrap();
    assert_eq!(a, back);
    let j = System::from_json_str(&a.to_json_string(), "a.toml").unwrap();
    assert_eq!(a, j);
}

#[test]
fn from_path_detects_json_and_resolves_files() {
    let dir = tempfile::tempdir().unwrap();
    let s = System::from_toml_str(ISSUE_EXAMPLE, "x").unwrap();
    let p = dir.path().join("sys.json");
    std::fs::write(&p, s.to_json_string()).unwrap();
    let j = System::from_path(&p).unwrap();
    assert_eq!(j.tasks, s.tasks);
    let missing = System::from_path(&dir.path().join("nope.toml")).unwrap_err();
    assert!(missing.to_string().contains("nope.toml"), "{missing}");
}

#[test]
fn unknown_key_names_file_line_and_table() {
    let text = ISSUE_EXAMPLE.replace("priority = 2", "priority = 2\nperoid = \"5ms\"");
    let e = err(&text);
    assert!(e.starts_with("sys.toml:22:"), "{e}");
    assert!(e.contains("task[0] \"A\""), "{e}");
    assert!(e.contains("peroid"), "{e}");
}

#[test]
fn missing_key_and_wrong_type() {
    let text = ISSUE_EXAMPLE.replace("wcet = \"1ms\"\n", "");
    let e = err(&text);
    assert!(e.contains("wcet"), "{e}");
    assert!(e.contains("task[0]"), "{e}");

    let text = ISSUE_EXAMPLE.replace("wcet = \"1ms\"", "wcet = 1");
    let e = err(&text);
    assert!(e.contains("sys.toml:20:"), "{e}");
    assert!(e.contains("key `wcet`"), "{e}");
    assert!(e.contains("no unit"), "{e}");

    let text = ISSUE_EXAMPLE.replace("priority = 2", "priority = \"high\"");
    let e = err(&text);
    assert!(e.contains("sys.toml:21:"), "{e}");
}

#[test]
fn impossible_values_are_rejected() {
    let two = format!(
        "{ISSUE_EXAMPLE}\n[[task]]\nname = \"B\"\nperiod = \"10ms\"\nwcet = \"11ms\"\npriority = 1\n"
    );
    let e = err(&two);
    assert!(e.contains("task[1] \"B\""), "{e}");
    assert!(e.contains("exceeds the deadline"), "{e}");
    assert!(e.contains("sys.toml:26:"), "{e}");

    let e = err(&ISSUE_EXAMPLE.replace("period = \"5ms\"", "period = \"0ms\""));
    assert!(
        e.contains("key `period`") && e.contains("greater than zero"),
        "{e}"
    );
    let e = err(&ISSUE_EXAMPLE.replace("period = \"5ms\"", "period = \"-5ms\""));
    assert!(e.contains("negative"), "{e}");
    let e = err(&ISSUE_EXAMPLE.replace("tick_hz = 1000", "tick_hz = 0"));
    assert!(e.contains("tick_hz"), "{e}");
    let e = err(&ISSUE_EXAMPLE.replace("model = \"tick\"", "model = \"edf\""));
    assert!(e.contains("edf") && e.contains("sys.toml:8:"), "{e}");
    let e = err(&ISSUE_EXAMPLE.replace("tick_base", "insert_base"));
    assert!(e.contains("listscan"), "{e}");

    let dup = format!(
        "{}\n[[task]]\nname = \"B\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 2\n",
        ISSUE_EXAMPLE.replace("tick_mode", "allow_equal_priorities = false\ntick_mode")
    );
    let e = err(&dup);
    assert!(e.contains("already used"), "{e}");
    let e = err(&format!(
        "{ISSUE_EXAMPLE}\n[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 1\n"
    ));
    assert!(e.contains("already used"), "{e}");
    let e = err(&format!(
        "{ISSUE_EXAMPLE}\n[[interrupt]]\nname = \"i\"\nmin_interarrival = \"1ms\"\nwcet = \"1us\"\nreleases = \"Z\"\n"
    ));
    assert!(
        e.contains("interrupt[0] \"i\"") && e.contains("\"Z\""),
        "{e}"
    );
}

#[test]
fn json_errors_name_table_and_key() {
    let s = System::from_toml_str(ISSUE_EXAMPLE, "x").unwrap();
    let j = s.to_json_string().replace("\"1ms\"", "\"2 parsecs\"");
    let e = System::from_json_str(&j, "sys.json")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("sys.json: "), "{e}");
    assert!(e.contains("task[0] \"A\", key `wcet`"), "{e}");
}

/// Audit D12: an interrupt that releases a task more often than the task's own
/// min_interarrival contradicts the file (the simulator releases a job at every
/// interrupt; the analysis trusted the task's inter-arrival time).
#[test]
fn interrupt_releasing_faster_than_the_task_is_an_error() {
    let base = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                [[task]]\nname = \"t0\"\nmin_interarrival = \"40ms\"\nwcet = \"4ms\"\npriority = 4\n\
                [[interrupt]]\nname = \"irq0\"\nwcet = \"10us\"\nreleases = \"t0\"\n";
    let e = err(&format!("{base}min_interarrival = \"3000us\"\n"));
    assert!(
        e.contains("sys.toml")
            && e.contains("interrupt[0] \"irq0\"")
            && e.contains("min_interarrival")
            && e.contains("3ms")
            && e.contains("40ms")
            && e.contains("\"t0\""),
        "{e}"
    );
    // Equal or longer is consistent.
    for ok in ["40ms", "50ms"] {
        let text = format!("{base}min_interarrival = \"{ok}\"\n");
        System::from_toml_str(&text, "sys.toml").unwrap();
    }
}

/// Audit D19.1: the OS error appears once when the error chain is printed.
#[test]
fn io_error_is_printed_once() {
    let e = System::from_path(std::path::Path::new("/nonexistent/latscope.toml")).unwrap_err();
    let mut chain = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        chain += &format!(": {s}");
        src = s.source();
    }
    assert_eq!(chain.matches("os error").count(), 1, "{chain}");
}

/// TOML's dotted keys are the same tables as headers (toml 0.8 rejected them under its
/// span tracking with "expected a borrowed string"; fixed by moving to toml 0.9).
#[test]
fn dotted_keys_are_the_same_tables() {
    let dotted = r#"
platform.cpu_hz = 84_000_000
platform.irq_entry_cycles = 12
kernel.tick_hz = 1000
kernel.model = "tick"
kernel.task_selection = "generic"
kernel.tick_mode = "partitioned"
kernel.costs.tick_base = "1.5us"
kernel.costs.tick_per_release = "5.907us"
kernel.costs.switch_base = "1.5us"
kernel.costs.switch_per_level = "0.7us"

[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 2
"#;
    let a = System::from_toml_str(dotted, "dotted.toml").unwrap();
    let b = System::from_toml_str(ISSUE_EXAMPLE, "example.toml").unwrap();
    assert_eq!(a.platform, b.platform);
    assert_eq!(a.kernel, b.kernel);
    assert_eq!(a.tasks, b.tasks);
    // An unknown dotted key is still located.
    let e = err(&dotted.replace("kernel.costs.switch_base", "kernel.costs.switch_bsae"));
    assert!(
        e.contains("sys.toml:10:") && e.contains("switch_bsae"),
        "{e}"
    );
}

/// JSON is read straight into the file structure (no TOML text in between): structural
/// errors name the table and the key the same way the TOML reader does.
#[test]
fn json_structure_errors_name_table_and_key() {
    let s = System::from_toml_str(ISSUE_EXAMPLE, "x").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&s.to_json_string()).unwrap();
    // Unknown key inside a task.
    v["task"][0]["colour"] = serde_json::json!("red");
    let e = System::from_json_str(&v.to_string(), "s.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("in task[0] \"A\": unknown field `colour`"),
        "{e}"
    );
    // Wrong type for a key of a nested table.
    let mut v: serde_json::Value = serde_json::from_str(&s.to_json_string()).unwrap();
    v["kernel"]["costs"]["tick_base"] = serde_json::json!([1, 2]);
    let e = System::from_json_str(&v.to_string(), "s.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("in kernel.costs, key `tick_base`"), "{e}");
    // Missing required key.
    let mut v: serde_json::Value = serde_json::from_str(&s.to_json_string()).unwrap();
    v["task"][0].as_object_mut().unwrap().remove("wcet");
    let e = System::from_json_str(&v.to_string(), "s.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("task[0] \"A\"") && e.contains("missing field `wcet`"),
        "{e}"
    );
    // JSON syntax errors keep line and column.
    let e = System::from_json_str("{\n \"platform\": }", "s.json")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("s.json:2:"), "{e}");
    // null where a value is required is an error, not a default.
    let mut v: serde_json::Value = serde_json::from_str(&s.to_json_string()).unwrap();
    v["task"][0]["priority"] = serde_json::Value::Null;
    assert!(System::from_json_str(&v.to_string(), "s.json").is_err());
}

/// `kernel.scheduler` and `[[core]]`: read, written back, read again the same; a core
/// the platform does not have and a core described twice are refused with the table named.
#[test]
fn scheduler_and_core_tables_round_trip_and_are_checked() {
    let base = r#"
[platform]
cpu_hz = "100 MHz"
[kernel]
tick_hz = 1000
scheduler = "edf"
[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 1
"#;
    let sys = latscope_model::system::System::from_toml_str(base, "edf.toml").unwrap();
    assert_eq!(sys.kernel.scheduler, latscope_model::system::Scheduler::Edf);
    let text = sys.to_toml_string();
    assert!(text.contains("scheduler = \"edf\""), "{text}");
    let back = latscope_model::system::System::from_toml_str(&text, "edf.toml").unwrap();
    assert_eq!(back.kernel, sys.kernel);
    let with_core = format!("{base}\n[[core]]\nid = 0\nscheduler = \"fp\"\n");
    let sys = latscope_model::system::System::from_toml_str(&with_core, "c.toml").unwrap();
    assert_eq!(
        sys.kernel.scheduler_of(0),
        latscope_model::system::Scheduler::Fp
    );
    let back =
        latscope_model::system::System::from_toml_str(&sys.to_toml_string(), "c.toml").unwrap();
    assert_eq!(back.kernel.cores, sys.kernel.cores);
    let e = latscope_model::system::System::from_toml_str(
        &format!("{base}\n[[core]]\nid = 1\n"),
        "c.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("core[0]") && e.contains("core 1 does not exist"),
        "{e}"
    );
    let e = latscope_model::system::System::from_toml_str(
        &format!("{base}\n[[core]]\nid = 0\n[[core]]\nid = 0\n"),
        "c.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("core[1]") && e.contains("described twice"),
        "{e}"
    );
    // A fixed-priority file is written as before: no scheduler key.
    let fp = base.replace("scheduler = \"edf\"\n", "");
    let sys = latscope_model::system::System::from_toml_str(&fp, "fp.toml").unwrap();
    assert!(!sys.to_toml_string().contains("scheduler"));
}

/// A chain through tasks on an EDF core adds their EDF bounds (Spuri 1996, with the
/// release jitter the event link induces), worked by hand without overheads:
///
/// `a` (T 10, C 2, D 10) releases `b` (C 3, D 10; its jobs take `a`'s arrival, so its
/// deadline counts from there). Round 1, `J_b = 0`: the synchronous busy period is
/// `L = 2 ceil(L/10) + 3 ceil(L/10) = 5`; `a`'s job at offset 0 (the only candidate
/// below 5) has deadline 10 and `b`'s job with deadline 10 counts too, so
/// `R_a = 2 + 3 = 5`. Round 2, `J_b = R_a = 5`, `D'_b = 10 - 5 = 5`: `L = 2 ceil(L/10) +
/// 3 ceil((L + 5)/10) = 5`; `a` at offset 0 again `2 + 3 = 5` (the next candidate,
/// `D'_b - D'_a + 10 = 5`, is not below `L`): `R_a = 5`, settled. `b` at offset 0
/// (its only candidate: `D'_a - D'_b = 5` is not below 5): `a`'s jobs have deadline
/// 10 > 0 + 5 and do not count, so `L = 3` and `b`'s bound is `3 + J_b = 8 ms`. The
/// chain's bound is `R_b = 8 ms`, composed of `a` 5 ms and `b` 3 ms. Under fixed
/// priority (a above b) the same chain is bounded by 7 ms: the reason a fixed-priority
/// response may not stand in for an EDF one.
#[test]
fn a_chain_through_edf_tasks_takes_spuris_bounds() {
    use latscope_model::rta::{analyze, AnalysisOptions};
    let text = r#"
[platform]
cpu_hz = 100000000
[kernel]
tick_hz = 1000
scheduler = "edf"
[[task]]
name = "a"
period = "10ms"
wcet = "2ms"
priority = 2
[[task]]
name = "b"
min_interarrival = "10ms"
wcet = "3ms"
priority = 1
[[chain]]
name = "ab"
steps = ["a", "b"]
links = ["event"]
deadline = "7ms"
"#;
    let sys = latscope_model::system::System::from_toml_str(text, "edf-chain.toml").unwrap();
    let opts = AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    };
    let ms = |x: f64| x * 1e6;
    let res = analyze(&sys, &opts).unwrap();
    // The fixed-priority figure, for comparison: R_a = 2 ms, J_b = 2 ms and b's window
    // `w = 3 + 2 ceil(w/10) = 5`, so R_b = 2 + 5 = 7 ms.
    assert_eq!(res.chains[0].bound_ns, Some(ms(7.0)));
    let e = latscope_model::edf::analyze_edf(&sys, &opts).unwrap();
    assert!(e.schedulable, "{e:?}");
    let bound = |n: &str| e.tasks.iter().find(|t| t.name == n).unwrap().bound_ns;
    assert_eq!(bound("a"), Some(ms(5.0)));
    assert_eq!(bound("b"), Some(ms(8.0)));
    let b = e.tasks.iter().find(|t| t.name == "b").unwrap();
    assert_eq!(b.jitter_ns, ms(5.0), "b's release jitter is a's bound");
    let chains = latscope_model::chain::edf::chains_with_edf(&sys, &opts, &res, &e.tasks);
    let c = &chains[0];
    assert_eq!(c.bound_ns, Some(ms(8.0)));
    assert_eq!(c.bound_ps, Some(8_000_000_000));
    let parts: Vec<(&str, f64)> = c
        .composition
        .iter()
        .map(|p| (p.step.as_str(), p.ns))
        .collect();
    assert_eq!(parts, vec![("a", ms(5.0)), ("b", ms(3.0))]);
    // 8 ms is past the 7 ms deadline the fixed-priority bound (7 ms) would have met.
    assert_eq!(c.meets_deadline, Some(false));
    assert_eq!(res.chains[0].meets_deadline, Some(true));
}
