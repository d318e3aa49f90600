//! The ten-task set with the periods of Miranda, de Oliveira, Carminati: "Analysis of
//! FreeRTOS Overheads on Periodic Tasks", Table 1 (5, 10, 15, 20, 30, 40, 23, 12, 45,
//! 50 ms), rate-monotonic priorities, a tick of the real-kernel shape (piecewise: 1.5 us
//! base, 4.2 us first release, 2.207 us each further, 2.65 us the last; the base and the
//! further step are the paper's, the first/last steps are chosen for the shape), the
//! paper's Table 4 switch (1.5 us at one level, about 0.72 us per further level) and
//! L = 12 cycles at 84 MHz. Execution times are fixed, so the synchronous release at t = 0
//! is a critical instant the simulator reproduces.
//!
//! Checks: simulated <= analysed for every task in both tick modes and both switch
//! charges; the one-switch-per-event charge is never above the two-switch charge; and the
//! bound / worst simulated response ratio of each task, printed, is at most 1.25 with
//! the per-event charge (the target; with two switches per job it was above).

use latscope_core::Picos;
use latscope_model::rta::{analyze_mode, AnalysisOptions, SwitchCharge};
use latscope_model::system::TickMode;
use latscope_model::System;
use latscope_sim::*;

const TASKS: [(&str, u64, u64); 10] = [
    // name, period ms, WCET us
    ("A", 5, 600),
    ("B", 10, 1000),
    ("C", 15, 1200),
    ("D", 20, 1500),
    ("E", 30, 2000),
    ("F", 40, 2500),
    ("G", 23, 1500),
    ("H", 12, 1000),
    ("I", 45, 2500),
    ("J", 50, 3000),
];

fn system() -> System {
    system_with(&TASKS)
}

fn system_with(tasks: &[(&str, u64, u64)]) -> System {
    let mut t = String::from(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = 1000\n\
         [kernel.costs]\ntick_base = \"1.5us\"\ntick_first_release = \"4.2us\"\n\
         tick_per_release = \"2.207us\"\ntick_last_release = \"2.65us\"\n\
         switch_base = \"1.5us\"\nswitch_per_level = \"0.72us\"\n",
    );
    let mut by_period: Vec<_> = tasks.to_vec();
    by_period.sort_by_key(|x| x.1);
    for (rank, (name, p, c)) in by_period.iter().enumerate() {
        t += &format!(
            "[[task]]\nname = \"{name}\"\nperiod = \"{p}ms\"\nwcet = \"{c}us\"\npriority = {}\n",
            10 - rank
        );
    }
    System::from_toml_str(&t, "ten.toml").unwrap()
}

#[test]
fn ten_task_bounds_are_sound_and_tight() {
    let sys = system();
    let cfg = from_system(&sys, &FromSystemOptions::default()).unwrap();
    let mut sim = Sim::new(cfg, SimOptions::default()).unwrap();
    sim.run_until(Picos::from_ms(3_000));
    let rep = sim.report();
    let mut worst_ratio: f64 = 0.0;
    for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
        let ev = analyze_mode(&sys, &AnalysisOptions::default(), mode).unwrap();
        let job = analyze_mode(
            &sys,
            &AnalysisOptions {
                switch_charge: SwitchCharge::PerJob,
                ..Default::default()
            },
            mode,
        )
        .unwrap();
        for (a, b) in ev.iter().zip(&job) {
            let s = rep.tasks.iter().find(|t| *t.name == *a.name).unwrap();
            let m = s.max_response_ns.unwrap();
            let (e, j) = (a.wcrt_ns.unwrap(), b.wcrt_ns.unwrap());
            assert!(
                m <= e && e <= j,
                "{mode:?} {}: sim {m} per-event {e} per-job {j}",
                a.name
            );
            eprintln!(
                "{mode:?} {}: simulated {m:.0} ns, bound {e:.0} ns ({:.3}x), two switches per job {j:.0} ns ({:.3}x)",
                a.name,
                e / m,
                j / m
            );
            if mode == TickMode::Partitioned {
                worst_ratio = worst_ratio.max(e / m);
            }
        }
    }
    assert!(worst_ratio <= 1.25, "worst bound / simulated {worst_ratio}");
}

/// Short jobs (30 us each): a busy window spans one or two ticks while every
/// higher-priority task is released in it, so counting one preemption switch per
/// releasing tick (not one per job) lowers the bound; the simulation stays below it.
#[test]
fn one_switch_per_event_pays_off_on_short_windows() {
    let short: Vec<(&str, u64, u64)> = TASKS.iter().map(|&(n, p, _)| (n, p, 30)).collect();
    let sys = system_with(&short);
    let cfg = from_system(&sys, &FromSystemOptions::default()).unwrap();
    let mut sim = Sim::new(cfg, SimOptions::default()).unwrap();
    sim.run_until(Picos::from_ms(3_000));
    let rep = sim.report();
    let mut lower = 0;
    for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
        let ev = analyze_mode(&sys, &AnalysisOptions::default(), mode).unwrap();
        let job = analyze_mode(
            &sys,
            &AnalysisOptions {
                switch_charge: SwitchCharge::PerJob,
                ..Default::default()
            },
            mode,
        )
        .unwrap();
        for (a, b) in ev.iter().zip(&job) {
            let m = rep
                .tasks
                .iter()
                .find(|t| *t.name == *a.name)
                .unwrap()
                .max_response_ns
                .unwrap();
            let (e, j) = (a.wcrt_ns.unwrap(), b.wcrt_ns.unwrap());
            assert!(
                m <= e && e <= j,
                "{mode:?} {}: sim {m} per-event {e} per-job {j}",
                a.name
            );
            eprintln!("{mode:?} {}: simulated {m:.0} ns, per event {e:.0} ns ({:.3}x), per job {j:.0} ns ({:.3}x)", a.name, e / m, j / m);
            lower += usize::from(e < j);
        }
    }
    assert!(
        lower >= 10,
        "per-event lower than per-job for only {lower} task results"
    );
}
