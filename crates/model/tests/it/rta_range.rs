//! Arithmetic that cannot panic: the analysis refuses inputs past its range with an error
//! naming the task (or kernel table), and never panics or wraps, under any build profile.
//! `cargo test` builds with the dev profile, whose overflow checks turn any wrapped
//! integer operation into a panic, so these tests fail if an overflow is reached.

use latscope_model::rta::{analyze, analyze_mode, AnalysisOptions};
use latscope_model::system::TickMode;
use latscope_model::{AnalysisError, System};
use proptest::prelude::*;

fn sys(text: &str) -> System {
    System::from_toml_str(text, "r.toml").unwrap()
}

const HEAD: &str =
    "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = 1000\n";

#[test]
fn an_overflowing_switch_names_the_task() {
    // Hour-long per-level switch cost with priorities four billion apart: the switch out
    // of "a" down to the idle task scans 4e9 levels.
    let s = sys(&format!(
        "{HEAD}[kernel.costs]\ntick_base = \"1us\"\ntick_per_release = \"1us\"\n\
         switch_base = \"1us\"\nswitch_per_level = \"1h\"\n\
         [[task]]\nname = \"a\"\nperiod = \"4ms\"\nwcet = \"1ms\"\npriority = 4000000000\n\
         [[task]]\nname = \"b\"\nperiod = \"8ms\"\nwcet = \"1ms\"\npriority = 0\n"
    ));
    let e = analyze(&s, &AnalysisOptions::default()).unwrap_err();
    let AnalysisError::OutOfRange { place, .. } = &e;
    assert_eq!(place, "task \"a\"", "{e}");
    assert!(
        e.to_string().contains("overflows the analysis range"),
        "{e}"
    );
    // The same through one tick mode.
    assert!(analyze_mode(&s, &AnalysisOptions::default(), TickMode::Pessimistic).is_err());
    // Without overheads the switches are not charged: the set is analysable.
    let r = analyze(
        &s,
        &AnalysisOptions {
            overheads: false,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(r.tasks.iter().all(|t| t.wcrt_ps.is_some()));
}

#[test]
fn an_overflowing_tick_names_the_kernel_costs() {
    let s = sys(&format!(
        "{HEAD}[kernel.costs]\ntick_base = \"1us\"\ntick_per_release = \"1000h\"\n\
         [[task]]\nname = \"a\"\nperiod = \"4ms\"\nwcet = \"1ms\"\npriority = 2\n"
    ));
    let e = analyze(&s, &AnalysisOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("kernel.costs: tick_per_release is 3600000 s"),
        "{e}"
    );
}

#[test]
fn many_large_jobs_together_are_refused_not_wrapped() {
    // Each job is within range (0.9 days), four together are not (3.7 days).
    let mut t = HEAD.to_string();
    for i in 0..4 {
        t += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"200000s\"\nwcet = \"80000s\"\npriority = {i}\n"
        );
    }
    let e = analyze(&sys(&t), &AnalysisOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("the system: one job of every task"), "{e}");
    // Two of them fit.
    let mut t = HEAD.to_string();
    for i in 0..2 {
        t += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"200000s\"\nwcet = \"80000s\"\npriority = {i}\n"
        );
    }
    let r = analyze(&sys(&t), &AnalysisOptions::default()).unwrap();
    assert!(r.schedulable);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// Any accepted system file, however large its numbers: the analysis answers with a
    /// result or an error, never a panic; a result never holds a wrapped (negative or
    /// below-WCET) response time.
    #[test]
    fn huge_inputs_never_panic(
        exps in prop::collection::vec((0u32..20, 1u32..9, 0u32..u32::MAX, 0u32..20), 1..6),
        cost_exp in prop::collection::vec(0u32..20, 5),
        slicing in any::<bool>(),
        optimised in any::<bool>(),
        listscan in any::<bool>(),
    ) {
        // Durations from 1 ns to 10^19 ns (past i64 picoseconds, saturated by the parser
        // or refused by it).
        let d = |e: u32| format!("\"{}ns\"", 10u128.pow(e).min(9_000_000_000_000_000));
        let mut t = format!(
            "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = 1000\n\
             time_slicing = {slicing}\ntask_selection = \"{}\"\n",
            if optimised { "optimised" } else { "generic" }
        );
        if listscan {
            t += &format!(
                "model = \"listscan\"\n[kernel.costs]\ncheck_per_thread = {}\ninsert_base = {}\n\
                 insert_per_position = {}\nswitch = {}\n",
                d(cost_exp[0]), d(cost_exp[1]), d(cost_exp[2]), d(cost_exp[3])
            );
        } else {
            t += &format!(
                "[kernel.costs]\ntick_base = {}\ntick_per_release = {}\nswitch_base = {}\n\
                 switch_per_level = {}\n",
                d(cost_exp[0]), d(cost_exp[1]), d(cost_exp[2]), d(cost_exp[3])
            );
        }
        for (i, (pe, ratio, prio, je)) in exps.iter().enumerate() {
            let period = 10u128.pow(*pe).min(9_000_000_000_000_000);
            let wcet = (period * *ratio as u128 / 10).max(1);
            t += &format!(
                "[[task]]\nname = \"t{i}\"\nperiod = \"{period}ns\"\nwcet = \"{wcet}ns\"\n\
                 deadline = \"{}ns\"\npriority = {prio}\njitter = {}\n",
                period.max(wcet), d(*je)
            );
        }
        t += &format!(
            "[[interrupt]]\nname = \"x\"\nmin_interarrival = {}\nwcet = \"1us\"\n",
            d(cost_exp[4].max(4))
        );
        let Ok(s) = System::from_toml_str(&t, "p.toml") else { return Ok(()) };
        let opts = AnalysisOptions { max_iterations: 20_000, ..Default::default() };
        if let Ok(r) = analyze(&s, &opts) {
            for m in [&r.tick_modes.pessimistic, &r.tick_modes.partitioned] {
                for x in m.iter() {
                    let task = &s.tasks[s.task_index(&x.name).unwrap()];
                    if let Some(w) = x.wcrt_ps {
                        prop_assert!(w >= task.wcet.0, "{} < wcet in\n{t}", w);
                    }
                }
            }
        }
    }
}
