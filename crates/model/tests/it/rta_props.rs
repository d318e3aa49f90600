//! Property tests: overheads never lower a response time; the partitioned tick mode is
//! never above the pessimistic one.

use latscope_model::rta::{analyze, analyze_mode, AnalysisOptions};
use latscope_model::system::TickMode;
use latscope_model::System;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct T {
    period_us: u32,
    wcet_permille: u32,
    prio: u32,
    jitter_us: u32,
}

fn task_strategy() -> impl Strategy<Value = T> {
    (500u32..50_000, 1u32..300, 0u32..8, 0u32..2000).prop_map(|(p, c, prio, j)| T {
        period_us: p,
        wcet_permille: c,
        prio,
        jitter_us: j,
    })
}

#[derive(Debug, Clone)]
struct Costs {
    l_cycles: u32,
    tick_base_ns: u32,
    per_release_ns: u32,
    switch_base_ns: u32,
    per_level_ns: u32,
    irq: bool,
    slicing: bool,
    optimised: bool,
}

fn costs_strategy() -> impl Strategy<Value = Costs> {
    (
        0u32..50,
        0u32..5000,
        0u32..8000,
        0u32..5000,
        0u32..1000,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(l, a, b, c, d, irq, slicing, optimised)| Costs {
            l_cycles: l,
            tick_base_ns: a,
            per_release_ns: b,
            switch_base_ns: c,
            per_level_ns: d,
            irq,
            slicing,
            optimised,
        })
}

fn build(tasks: &[T], c: &Costs) -> System {
    let mut s = format!(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = {}\n[kernel]\ntick_hz = 1000\n\
         time_slicing = {}\ntask_selection = \"{}\"\n[kernel.costs]\ntick_base = \"{}ns\"\n\
         tick_per_release = \"{}ns\"\nswitch_base = \"{}ns\"\nswitch_per_level = \"{}ns\"\n",
        c.l_cycles,
        c.slicing,
        if c.optimised { "optimised" } else { "generic" },
        c.tick_base_ns,
        c.per_release_ns,
        c.switch_base_ns,
        c.per_level_ns
    );
    for (i, t) in tasks.iter().enumerate() {
        let wcet_us = (t.period_us as u64 * t.wcet_permille as u64 / 1000).max(1);
        s += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{}us\"\nwcet = \"{wcet_us}us\"\npriority = {}\njitter = \"{}us\"\n",
            t.period_us, t.prio, t.jitter_us
        );
    }
    if c.irq {
        s += "[[interrupt]]\nname = \"irq\"\nmin_interarrival = \"3ms\"\nwcet = \"20us\"\n";
    }
    System::from_toml_str(&s, "prop.toml").unwrap()
}

fn r(x: Option<i64>) -> i128 {
    x.map_or(i128::MAX, |v| v as i128)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Charging the kernel's costs never lowers any response time.
    #[test]
    fn overheads_never_lower_a_response_time(
        tasks in prop::collection::vec(task_strategy(), 1..7),
        c in costs_strategy(),
    ) {
        let s = build(&tasks, &c);
        let with = analyze(&s, &AnalysisOptions::default()).unwrap();
        let without = analyze(&s, &AnalysisOptions { overheads: false, ..Default::default() }).unwrap();
        for (a, b) in with.tasks.iter().zip(&without.tasks) {
            prop_assert_eq!(&a.name, &b.name);
            prop_assert!(r(a.wcrt_ps) >= r(b.wcrt_ps), "{}: {:?} < {:?}", a.name, a.wcrt_ps, b.wcrt_ps);
        }
    }

    /// Raising any single cost never lowers any response time.
    #[test]
    fn raising_one_cost_never_lowers_a_response_time(
        tasks in prop::collection::vec(task_strategy(), 1..6),
        c in costs_strategy(),
        which in 0usize..5,
        extra in 1u32..3000,
    ) {
        let s = build(&tasks, &c);
        let mut c2 = c.clone();
        match which {
            0 => c2.l_cycles += extra % 40 + 1,
            1 => c2.tick_base_ns += extra,
            2 => c2.per_release_ns += extra,
            3 => c2.switch_base_ns += extra,
            _ => c2.per_level_ns += extra,
        }
        let s2 = build(&tasks, &c2);
        for mode in [TickMode::Pessimistic, TickMode::Partitioned] {
            let a = analyze_mode(&s, &AnalysisOptions::default(), mode).unwrap();
            let b = analyze_mode(&s2, &AnalysisOptions::default(), mode).unwrap();
            for (x, y) in a.iter().zip(&b) {
                prop_assert!(r(y.wcrt_ps) >= r(x.wcrt_ps), "{} {:?}: {:?} -> {:?}", x.name, mode, x.wcrt_ps, y.wcrt_ps);
            }
        }
    }

    /// The partitioned tick accounting is never above the pessimistic one.
    #[test]
    fn partitioned_never_above_pessimistic(
        tasks in prop::collection::vec(task_strategy(), 1..8),
        c in costs_strategy(),
    ) {
        let s = build(&tasks, &c);
        let res = analyze(&s, &AnalysisOptions::default()).unwrap();
        for (p, q) in res.tick_modes.pessimistic.iter().zip(&res.tick_modes.partitioned) {
            prop_assert!(r(q.wcrt_ps) <= r(p.wcrt_ps), "{}: {:?} > {:?}", p.name, q.wcrt_ps, p.wcrt_ps);
        }
    }

    /// The breakdown adds up to the WCRT.
    #[test]
    fn breakdown_adds_up(
        tasks in prop::collection::vec(task_strategy(), 1..6),
        c in costs_strategy(),
    ) {
        let s = build(&tasks, &c);
        let res = analyze(&s, &AnalysisOptions::default()).unwrap();
        for t in &res.tasks {
            if let Some(w) = t.wcrt_ns {
                let b = &t.breakdown;
                let sum = b.wcet_ns + b.own_previous_jobs_ns + b.window_offset_ns
                    + b.interference.iter().map(|x| x.ns).sum::<f64>() + b.interference_others_ns
                    + b.tick_ns + b.context_switch_ns + b.interrupts_ns + b.blocking_ns + b.jitter_ns;
                prop_assert!((sum - w).abs() < 1e-3 * w.max(1.0), "{}: {} vs {}", t.name, sum, w);
            }
        }
    }

    /// Without a per-release tick cost `analyze` computes one mode and reuses it for the
    /// other: the reused results equal a direct partitioned analysis.
    #[test]
    fn shortcut_without_per_release_cost_is_exact(
        tasks in prop::collection::vec(task_strategy(), 1..6),
        c in costs_strategy(),
        overheads in any::<bool>(),
    ) {
        let mut c = c;
        c.per_release_ns = 0;
        let s = build(&tasks, &c);
        let opts = AnalysisOptions { overheads, ..Default::default() };
        let res = analyze(&s, &opts).unwrap();
        let direct = analyze_mode(&s, &opts, TickMode::Partitioned).unwrap();
        prop_assert_eq!(&res.tick_modes.partitioned, &direct);
    }

    /// The accelerated fixed-point iteration gives exactly the plain iteration's results.
    #[test]
    fn acceleration_changes_no_result(
        tasks in prop::collection::vec(task_strategy(), 1..9),
        c in costs_strategy(),
        overheads in any::<bool>(),
    ) {
        // As drawn (equal priorities likely), and with distinct priorities (which enables
        // the start value taken from the next-higher task).
        let mut distinct = tasks.clone();
        for (k, t) in distinct.iter_mut().enumerate() {
            t.prio = (k as u32 * 7 + 3) % 17;
        }
        for s in [build(&tasks, &c), build(&distinct, &c)] {
            let fast = AnalysisOptions { overheads, ..Default::default() };
            let plain = AnalysisOptions { accelerate: false, ..fast.clone() };
            for mode in [TickMode::Pessimistic, TickMode::Partitioned] {
                let a = analyze_mode(&s, &fast, mode).unwrap();
                let b = analyze_mode(&s, &plain, mode).unwrap();
                for (x, y) in a.iter().zip(&b) {
                    prop_assert_eq!(x.wcrt_ps, y.wcrt_ps, "{} {:?}", x.name, mode);
                    prop_assert_eq!(x.critical_job, y.critical_job);
                    prop_assert_eq!(&x.breakdown, &y.breakdown);
                }
            }
        }
    }
}

/// The same task sets on the cooperative list-scan kernel (costs from the property's
/// tick costs: check = tick base / 16, insertion = switch base + per-level per position).
fn build_listscan(tasks: &[T], c: &Costs) -> System {
    let mut s = format!(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = {}\n[kernel]\ntick_hz = 1000\n\
         model = \"listscan\"\n[kernel.costs]\ncheck_per_thread = \"{}ns\"\n\
         insert_base = \"{}ns\"\ninsert_per_position = \"{}ns\"\nswitch = \"{}ns\"\n",
        c.l_cycles,
        c.tick_base_ns / 16,
        c.switch_base_ns,
        c.per_level_ns,
        c.per_release_ns / 4,
    );
    for (i, t) in tasks.iter().enumerate() {
        let wcet_us = (t.period_us as u64 * t.wcet_permille as u64 / 3000).max(1);
        s += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{}us\"\nwcet = \"{wcet_us}us\"\npriority = {}\njitter = \"{}us\"\n",
            t.period_us, t.prio, t.jitter_us
        );
    }
    if c.irq {
        s += "[[interrupt]]\nname = \"irq\"\nmin_interarrival = \"3ms\"\nwcet = \"20us\"\n";
    }
    System::from_toml_str(&s, "prop-listscan.toml").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// List-scan kernel (audit D2): partitioned never above pessimistic, overheads never
    /// lower a bound, and the breakdown adds up.
    #[test]
    fn listscan_partitioned_never_above_pessimistic(
        tasks in prop::collection::vec(task_strategy(), 1..10),
        c in costs_strategy(),
    ) {
        let s = build_listscan(&tasks, &c);
        let res = analyze(&s, &AnalysisOptions::default()).unwrap();
        for (p, q) in res.tick_modes.pessimistic.iter().zip(&res.tick_modes.partitioned) {
            prop_assert!(r(q.wcrt_ps) <= r(p.wcrt_ps), "{}: {:?} > {:?}", p.name, q.wcrt_ps, p.wcrt_ps);
        }
        let without = analyze(&s, &AnalysisOptions { overheads: false, ..Default::default() }).unwrap();
        for (a, b) in res.tasks.iter().zip(&without.tasks) {
            prop_assert!(r(a.wcrt_ps) >= r(b.wcrt_ps), "{}: {:?} < {:?}", a.name, a.wcrt_ps, b.wcrt_ps);
        }
        for t in &res.tasks {
            if let Some(w) = t.wcrt_ns {
                let b = &t.breakdown;
                let sum = b.wcet_ns + b.own_previous_jobs_ns + b.window_offset_ns
                    + b.interference.iter().map(|x| x.ns).sum::<f64>() + b.interference_others_ns
                    + b.tick_ns + b.context_switch_ns + b.interrupts_ns + b.blocking_ns + b.jitter_ns;
                prop_assert!((sum - w).abs() < 1e-3 * w.max(1.0), "{}: {} vs {}", t.name, sum, w);
            }
        }
    }
}
