//! Known-answer tests of the response-time analysis against published worked examples,
//! and the FreeRTOS overheads paper's tick pseudo-tasks. Each published example cites its source; tests
//! worked by hand for this file say so.

use latscope_model::rta::{analyze, AnalysisOptions, TaskResult};
use latscope_model::System;

/// A system with a 1 kHz tick and no kernel costs; tasks as TOML snippets.
fn system(tasks: &str) -> System {
    let text = format!("[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n{tasks}");
    System::from_toml_str(&text, "test.toml").unwrap()
}

fn no_overheads() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        ..Default::default()
    }
}

fn wcrt_ms(r: &[TaskResult], name: &str) -> Option<f64> {
    let t = r.iter().find(|t| &*t.name == name).unwrap();
    t.wcrt_ns.map(|x| x / 1e6)
}

/// Published examples are in integer time units, mapped to whole milliseconds or
/// microseconds and compared exactly on `wcrt_ps`.
const MS: i64 = 1_000_000_000;
const US: i64 = 1_000_000;

/// The textbook model: no kernel overheads and no tick-driven release delay (the
/// examples' releases are exact; the 1 kHz tick of [`system`] must not move them).
fn textbook() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    }
}

/// A task's WCRT in whole `unit`s (picoseconds per unit); panics if it is not whole.
fn wcrt_in(r: &[TaskResult], name: &str, unit: i64) -> Option<i64> {
    let t = r.iter().find(|t| &*t.name == name).unwrap();
    t.wcrt_ps.map(|ps| {
        assert_eq!(ps % unit, 0, "{name}: {ps} ps is not a whole time unit");
        ps / unit
    })
}

/// Burns & Wellings, "Real-Time Systems and Programming Languages" (4th ed., 2009),
/// section 11.5 "Response-time analysis", the three-task example: a (T=7, C=3, P=3),
/// b (T=12, C=3, P=2), c (T=20, C=5, P=1); response times 3, 6 and 20 (c iterates
/// 5, 11, 14, 17, 20, 20).
#[test]
fn burns_wellings_three_tasks() {
    let s = system(
        r#"
[[task]]
name = "a"
period = "7ms"
wcet = "3ms"
priority = 3
[[task]]
name = "b"
period = "12ms"
wcet = "3ms"
priority = 2
[[task]]
name = "c"
period = "20ms"
wcet = "5ms"
priority = 1
"#,
    );
    let r = analyze(&s, &no_overheads()).unwrap();
    assert_eq!(wcrt_ms(&r.tasks, "a"), Some(3.0));
    assert_eq!(wcrt_ms(&r.tasks, "b"), Some(6.0));
    assert_eq!(wcrt_ms(&r.tasks, "c"), Some(20.0));
    assert!(r.schedulable);
    // Contract: descending priority.
    let names: Vec<&str> = r.tasks.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["a", "b", "c"]);
    // Breakdown of c adds up: 5 own + 3 jobs of a (9) + 2 jobs of b (6) = 20.
    let c = &r.tasks[2].breakdown;
    assert_eq!(c.wcet_ns, 5e6);
    let inter: Vec<(String, f64)> = c
        .interference
        .iter()
        .map(|x| (x.name.to_string(), x.ns))
        .collect();
    assert_eq!(inter, [("a".to_string(), 9e6), ("b".to_string(), 6e6)]);
}

/// J. P. Lehoczky, "Fixed priority scheduling of periodic task sets with arbitrary
/// deadlines", RTSS 1990, Example 3 (WCRTs 26 and 118 also reproduced by
/// brandenburg/response-time-analysis-rs, `src/fixed_priority/tests.rs`,
/// `fp_fp_rta_lehoczky90_ex3`, commit 0b83c4076014): t1 (C=26, T=70), t2 (C=62,
/// T=100), U = 0.991. The response times of t2's jobs in the busy period are 114, 102,
/// 116, 104, 118, 106, 94: the worst (118) is the fifth job, not the first, and exceeds
/// the period.
#[test]
fn lehoczky_arbitrary_deadlines() {
    let s = system(
        r#"
[[task]]
name = "t1"
period = "70ms"
wcet = "26ms"
priority = 2
[[task]]
name = "t2"
period = "100ms"
wcet = "62ms"
deadline = "120ms"
priority = 1
"#,
    );
    let r = analyze(&s, &no_overheads()).unwrap();
    let t2 = &r.tasks[1];
    assert_eq!(t2.wcrt_ns, Some(118e6));
    assert_eq!(t2.critical_job, 4);
    assert_eq!(t2.jobs_examined, 7);
    assert!(t2.schedulable);
    assert_eq!(wcrt_ms(&r.tasks, "t1"), Some(26.0));
    // The breakdown of job 5: 62 own + 4 * 62 earlier + 8 * 26 (t1) - 400 = 118.
    let b = &t2.breakdown;
    assert_eq!(b.own_previous_jobs_ns, 248e6);
    assert_eq!(b.window_offset_ns, -400e6);
    assert_eq!(b.interference[0].ns, 208e6);
    // With the deadline at the period it misses.
    let s2 = System::from_toml_str(
        &s.to_toml_string().replace("deadline = \"120ms\"\n", ""),
        "x",
    )
    .unwrap();
    assert!(!analyze(&s2, &no_overheads()).unwrap().tasks[1].schedulable);
}

/// J. P. Lehoczky, RTSS 1990 (as above), Example 2, in both priority orders, as
/// reproduced by brandenburg/response-time-analysis-rs (`src/fixed_priority/tests.rs`,
/// `fp_fp_rta_lehoczky90_ex2`, commit 0b83c4076014): t1 (C=52, T=100), t2 (C=52,
/// T=140). t1 higher: WCRTs 52 and 156; t2 higher: 108 and 52. Both lower-priority
/// results need the level-i busy window over several jobs: with t1 higher, t2's first
/// job ends at 156 > 140; with t2 higher, t1's jobs end at 104, 208 - 100 = 108 and
/// 260 - 200 = 60, the worst being the second.
#[test]
fn lehoczky_example_2_both_priority_orders() {
    for (p1, p2, r1, r2, critical) in [(2, 1, 52, 156, ("t2", 0)), (1, 2, 108, 52, ("t1", 1))] {
        let s = system(&format!(
            "[[task]]\nname = \"t1\"\nperiod = \"100ms\"\nwcet = \"52ms\"\npriority = {p1}\n\
             [[task]]\nname = \"t2\"\nperiod = \"140ms\"\nwcet = \"52ms\"\npriority = {p2}\n"
        ));
        let r = analyze(&s, &textbook()).unwrap();
        assert_eq!(wcrt_in(&r.tasks, "t1", MS), Some(r1), "t1 at priority {p1}");
        assert_eq!(wcrt_in(&r.tasks, "t2", MS), Some(r2), "t2 at priority {p2}");
        let low = r.tasks.iter().find(|t| &*t.name == critical.0).unwrap();
        assert_eq!(low.critical_job, critical.1, "{}", critical.0);
    }
}

/// Blocking and release jitter, 18 tasks: N. Audsley, A. Burns, M. Richardson, K. Tindell
/// and A. J. Wellings, "Applying new scheduling theory to static priority pre-emptive
/// scheduling", Software Engineering Journal 8(5):284-292, 1993, Table 3 (presumably the
/// avionics case study the paper's abstract announces). The paper itself was not at hand;
/// the table is taken from two reproductions that agree on every number: SchedCAT (brandenburg/schedcat,
/// `tests/fp.py`, class `AudsleyExample`, commit 1e2fe471e3b9) and the Rust crate
/// `response-time-analysis` (brandenburg/response-time-analysis-rs,
/// `src/fixed_priority/tests.rs`, `fp_fnps_rta_audsley`, commit 19d941a68195, whose doc
/// comment names "Table 3" of the paper).
///
/// Columns (C, T, D, B, J, published R), in the table's order, which is the priority
/// order (deadline monotonic, highest first; latscope priorities 18 down to 1); times in
/// microseconds:
/// ```text
///  1   51     1000     1000     0     0      51
///  2 3000  2000000     5000   300     0    3504
///  3 2000    25000    25000   600     0    5906
///  4 5000    25000    25000   900     0   11512
///  5 1000    40000    40000  1350     0   13064
///  6 3000    50000    50000  1350     0   16217
///  7 5000    50000    50000   750     0   20821
///  8 8000    59000    59000   750     0   36637
///  9 9000    80000    80000  1350     0   47798
/// 10 2000    80000    80000   450     0   48949
/// 11 5000   100000   100000  1050     0   99150
/// 12 1000   200000   200000   450  1000   99550
/// 13 3000   200000   200000   450     0  140641
/// 14 1000   200000   200000   450     0  141692
/// 15 1000   200000   200000  1350     0  143694
/// 16 3000  1000000  1000000     0     0  145446
/// 17 1000  1000000  1000000     0     0  146497
/// 18 1000  1000000  1000000     0     0  147548
/// ```
/// Conventions mapped: B is the task's own blocking term (`blocking`); J is release jitter
/// (`jitter`). Both reproductions give the one jittered task (12) R = 99550, which is its
/// w, i.e. measured from its release (SchedCAT compares `expected + jitter` with its own
/// R, which includes the jitter). latscope's WCRT includes the task's own jitter, so it
/// reports 99550 + 1000 = 100550; every other task has J = 0 and R = w. Task 12's jitter is charged to the tasks below it
/// as `ceil((w + 1000)/200000)` jobs (one for each).
#[test]
fn audsley_1993_table3_blocking_and_jitter() {
    #[rustfmt::skip]
    let table: [(i64, i64, i64, i64, i64, i64); 18] = [
        (51, 1000, 1000, 0, 0, 51),
        (3000, 2000000, 5000, 300, 0, 3504),
        (2000, 25000, 25000, 600, 0, 5906),
        (5000, 25000, 25000, 900, 0, 11512),
        (1000, 40000, 40000, 1350, 0, 13064),
        (3000, 50000, 50000, 1350, 0, 16217),
        (5000, 50000, 50000, 750, 0, 20821),
        (8000, 59000, 59000, 750, 0, 36637),
        (9000, 80000, 80000, 1350, 0, 47798),
        (2000, 80000, 80000, 450, 0, 48949),
        (5000, 100000, 100000, 1050, 0, 99150),
        (1000, 200000, 200000, 450, 1000, 99550),
        (3000, 200000, 200000, 450, 0, 140641),
        (1000, 200000, 200000, 450, 0, 141692),
        (1000, 200000, 200000, 1350, 0, 143694),
        (3000, 1000000, 1000000, 0, 0, 145446),
        (1000, 1000000, 1000000, 0, 0, 146497),
        (1000, 1000000, 1000000, 0, 0, 147548),
    ];
    let mut tasks = String::new();
    for (i, (c, t, d, b, j, _)) in table.iter().enumerate() {
        tasks += &format!(
            "[[task]]\nname = \"t{:02}\"\nperiod = \"{t}us\"\nwcet = \"{c}us\"\n\
             deadline = \"{d}us\"\nblocking = \"{b}us\"\njitter = \"{j}us\"\npriority = {}\n",
            i + 1,
            18 - i
        );
    }
    let s = system(&tasks);
    let r = analyze(&s, &textbook()).unwrap();
    for (i, (_, _, _, b, j, published)) in table.iter().enumerate() {
        let name = format!("t{:02}", i + 1);
        assert_eq!(
            wcrt_in(&r.tasks, &name, US),
            Some(published + j),
            "{name}: published R {published} + own jitter {j}"
        );
        let t = &r.tasks[i];
        assert_eq!(&*t.name, name, "descending priority order");
        assert_eq!(t.breakdown.blocking_ns, *b as f64 * 1e3, "{name}");
        assert!(t.schedulable, "{name}");
    }
    assert!(r.schedulable);
}

/// Release jitter, machine-checked: the Prosa project's jitter-aware fixed-priority RTA
/// example (F. Cerqueira, F. Stutz, B. B. Brandenburg, "PROSA: A Case for Readable
/// Mechanized Schedulability Analysis", ECRTS 2016; repository PROSA-Project/prosa, file
/// `classic/implementation/uni/jitter/fp_rta_example.v`, commit e078c510ede8, `Fact
/// RTA_yields_these_bounds`, proved in Coq). Tasks (cost, period, deadline, jitter):
/// tsk1 (1, 5, 6, 1), tsk2 (1, 5, 6, 0), tsk3 (1, 6, 6, 1), rate-monotonic priorities.
/// Published bounds: tsk1 2, tsk2 2, tsk3 3, and `Fact schedulability_test_succeeds`.
///
/// Conventions mapped:
/// * Prosa's `RM` is `period(a) <= period(b)` (`classic/model/priority.v`): tsk1 and tsk2
///   (both period 5) are each of higher-or-equal priority to the other and interfere with
///   each other, as latscope's equal priorities do; so tsk1 and tsk2 get priority 2, tsk3
///   priority 1.
/// * Prosa's interference is `ceil((delta + J_j)/T_j) * C_j` over the higher-or-equal
///   tasks (`classic/analysis/uni/jitter/workload_bound_fp.v`), Tindell's term.
/// * The published bounds "only include the response-time bounds", i.e. they are measured
///   from the jittered release and exclude the task's own jitter (the test checks bound +
///   jitter <= deadline). latscope's WCRT includes the task's own jitter, so latscope
///   gives 2 + 1 = 3, 2 + 0 = 2 and 3 + 1 = 4; the test checks `wcrt - J_i` against the
///   published bounds.
#[test]
fn prosa_jitter_fp_rta_example() {
    let s = system(
        r#"
[[task]]
name = "tsk1"
period = "5ms"
wcet = "1ms"
deadline = "6ms"
jitter = "1ms"
priority = 2
[[task]]
name = "tsk2"
period = "5ms"
wcet = "1ms"
deadline = "6ms"
priority = 2
[[task]]
name = "tsk3"
period = "6ms"
wcet = "1ms"
deadline = "6ms"
jitter = "1ms"
priority = 1
"#,
    );
    let r = analyze(&s, &textbook()).unwrap();
    let published = [("tsk1", 2, 1), ("tsk2", 2, 0), ("tsk3", 3, 1)];
    for (name, bound, jitter) in published {
        let t = r.tasks.iter().find(|t| &*t.name == name).unwrap();
        assert_eq!(t.breakdown.jitter_ns, jitter as f64 * 1e6, "{name}");
        assert_eq!(wcrt_in(&r.tasks, name, MS), Some(bound + jitter), "{name}");
        assert!(t.schedulable, "{name}");
    }
    assert!(r.schedulable);
    // tsk3's window [0, 3) counts one job of each higher-or-equal task:
    // ceil((3 + J1)/5) = ceil((3 + J2)/5) = 1. (In this set the interfering tasks' jitter
    // changes no count; the hand-worked test below is the one where it does.)
    let inter: Vec<(String, f64)> = r.tasks[2]
        .breakdown
        .interference
        .iter()
        .map(|x| (x.name.to_string(), x.ns))
        .collect();
    assert_eq!(
        inter,
        [("tsk1".to_string(), 1e6), ("tsk2".to_string(), 1e6)]
    );
}

/// HAND-WORKED, not a published example: release jitter and blocking (the equations with
/// J and B of Audsley, Burns, Richardson, Tindell & Wellings 1993) applied to the Burns &
/// Wellings set above, modified with a jitter of 1 on a and blocking of 1 on a and b. It
/// stays because the published sets above leave two cases unexercised: an interfering
/// task's jitter that changes a job count (b at w = 7: ceil((7 + 1)/7) = 2 jobs of a, not
/// 1), and a deadline between w and w + J that decides the verdict. Worked by hand:
/// a: w = 1 + 3 = 4, R = 4 + J_a = 5;
/// b: w = 1 + 3 + ceil((w + 1)/7)*3: 7 -> 10 -> 10, R = 10;
/// c: w = 5 + ceil((w+1)/7)*3 + ceil(w/12)*3: 11 -> 14 -> 20 -> 20, R = 20.
#[test]
fn jitter_and_blocking_hand_worked() {
    let s = system(
        r#"
[[task]]
name = "a"
period = "7ms"
wcet = "3ms"
priority = 3
jitter = "1ms"
blocking = "1ms"
[[task]]
name = "b"
period = "12ms"
wcet = "3ms"
priority = 2
blocking = "1ms"
[[task]]
name = "c"
period = "20ms"
wcet = "5ms"
priority = 1
"#,
    );
    let r = analyze(&s, &textbook()).unwrap();
    assert_eq!(wcrt_ms(&r.tasks, "a"), Some(5.0));
    assert_eq!(wcrt_ms(&r.tasks, "b"), Some(10.0));
    assert_eq!(wcrt_ms(&r.tasks, "c"), Some(20.0));
    let a = &r.tasks[0];
    assert_eq!(a.breakdown.blocking_ns, 1e6);
    assert_eq!(a.breakdown.jitter_ns, 1e6);
    // The deadline test includes the task's own jitter: D = 4.5 ms < R = 5 ms misses,
    // although w = 4 ms alone would fit.
    let tight = System::from_toml_str(
        &s.to_toml_string()
            .replace("jitter = \"1ms\"", "jitter = \"1ms\"\ndeadline = \"4.5ms\""),
        "x",
    )
    .unwrap();
    let r = analyze(&tight, &textbook()).unwrap();
    assert!(!r.tasks[0].schedulable);
    assert_eq!(r.tasks[0].slack_ns, Some(-0.5e6));
}

/// A release noticed only at the next tick: a 7.5 ms period is not a multiple of the
/// 1 ms tick, so the task gets one tick of release jitter.
#[test]
fn tick_release_delay() {
    let s = system("[[task]]\nname = \"x\"\nperiod = \"7.5ms\"\nwcet = \"1ms\"\npriority = 1\n");
    let r = analyze(&s, &no_overheads()).unwrap();
    assert_eq!(r.tasks[0].wcrt_ns, Some(2e6));
    assert_eq!(r.tasks[0].jitter.tick_delay_ns, 1e6);
    let off = AnalysisOptions {
        tick_release_delay: false,
        ..no_overheads()
    };
    assert_eq!(analyze(&s, &off).unwrap().tasks[0].wcrt_ns, Some(1e6));
}

/// Overload is reported, never a hang.
#[test]
fn overload_is_unbounded_not_a_hang() {
    let s = system(
        r#"
[[task]]
name = "a"
period = "2ms"
wcet = "1.5ms"
priority = 2
[[task]]
name = "b"
period = "3ms"
wcet = "1ms"
priority = 1
"#,
    );
    let r = analyze(&s, &no_overheads()).unwrap();
    assert_eq!(r.tasks[1].wcrt_ns, None);
    assert!(!r.tasks[1].schedulable);
    assert!(r.tasks[1].unbounded_reason.is_some());
    assert!(!r.schedulable);
    let j = serde_json::to_value(&r).unwrap();
    assert!(j["tasks"][1]["wcrt_ns"].is_null());
}

/// the FreeRTOS overheads paper (Miranda, de Oliveira, Carminati: "Analysis of FreeRTOS Overheads on
/// Periodic Tasks"), Table 1 tasks and Table 2 pseudo-tasks: base tick 1.5 us every
/// 1 ms, one pseudo-task per task with C = 3.7 + 2.207 = 5.907 us and the task's period.
/// Pessimistic: every tick pays 1.5 + 10 * 5.907 = 60.57 us (the paper measured a WCET of
/// 60.75 us with all ten released: the model is 0.18 us below its own measurement, a
/// rounding of the 22.07 us remainder split over ten tasks).
#[test]
fn seed001_table2_pseudo_tasks() {
    let mut tasks = String::new();
    for (n, p) in [
        ("A", 5),
        ("B", 10),
        ("C", 15),
        ("D", 20),
        ("E", 30),
        ("F", 40),
        ("G", 23),
        ("H", 12),
        ("I", 45),
        ("J", 50),
    ] {
        tasks += &format!(
            "[[task]]\nname = \"{n}\"\nperiod = \"{p}ms\"\nwcet = \"100us\"\npriority = 2\n"
        );
    }
    let text = format!(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 0\n[kernel]\ntick_hz = 1000\n\
         [kernel.costs]\ntick_base = \"1.5us\"\ntick_per_release = \"5.907us\"\n{tasks}"
    );
    let s = System::from_toml_str(&text, "seed001.toml").unwrap();
    let r = analyze(&s, &AnalysisOptions::default()).unwrap();
    let t = &r.totals;
    assert!((t.utilisation_tick_pessimistic - 60.57e-6 / 1e-3).abs() < 1e-12);
    let inv: f64 = [5., 10., 15., 20., 30., 40., 23., 12., 45., 50.]
        .iter()
        .map(|p| 1.0 / p)
        .sum();
    let want = 1.5e-3 + 5.907e-3 * inv; // us per ms
    assert!(
        (t.utilisation_tick_partitioned - want).abs() < 1e-12,
        "{}",
        t.utilisation_tick_partitioned
    );
    // Every task releases at the critical instant, so in a 1 ms-or-shorter window the
    // partitioned charge equals the pessimistic one; over longer windows it is smaller.
    for (a, b) in r
        .tick_modes
        .pessimistic
        .iter()
        .zip(&r.tick_modes.partitioned)
    {
        assert!(b.wcrt_ps.unwrap() <= a.wcrt_ps.unwrap(), "{}", a.name);
        assert!(b.breakdown.tick_ns <= a.breakdown.tick_ns);
    }
    // A: all ten equal-priority tasks interfere (10 * 100 us = 1 ms of work), so the
    // window spans two ticks: pessimistic 2 * 60.57 us, partitioned 2 * 1.5 us + 10
    // pseudo-tasks once each (59.07 us) + task A's second release... A's period is 5 ms:
    // it releases once in the window. Partitioned tick = 3 + 59.07 = 62.07 us.
    let pa = &r.tick_modes.pessimistic[0];
    let qa = &r.tick_modes.partitioned[0];
    assert_eq!(pa.breakdown.tick_ns, 2.0 * 60_570.0);
    assert_eq!(qa.breakdown.tick_ns, 3_000.0 + 59_070.0);
    assert_eq!(r.tick_mode, "partitioned");
}
