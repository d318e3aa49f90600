//! Margins (`analyze --sensitivity`): a hand-checkable known answer and the exactness
//! properties (each reported margin passes, one grid step beyond it misses), checked
//! with independent full analyses.

use latscope_core::Picos;
use latscope_model::rta::{analyze_mode, AnalysisOptions};
use latscope_model::sensitivity::{scale_wcets, sensitivity};
use latscope_model::system::TickMode;
use latscope_model::System;
use proptest::prelude::*;

fn schedulable(s: &System, opts: &AnalysisOptions, mode: TickMode) -> bool {
    analyze_mode(s, opts, mode).is_ok_and(|v| v.iter().all(|t| t.schedulable))
}

/// Hand-worked (Lehoczky, Sha & Ding 1989's characterisation, worked here by hand):
/// t1 = (C 1 ms, T 4 ms), t2 = (C 2 ms, T 6 ms), rate-monotonic, no overheads. t2's
/// demand at its scheduling points: W(4) = 1 + 2 = 3 ms (ratio 3/4), W(6) = 2 + 2 = 4 ms
/// (ratio 4/6); the smaller ratio is 2/3, so the critical scaling factor is 3/2, with t2
/// the first to miss. WCET margins alone: t1 may grow by 1 ms (t2: 2 + 2 (1 + d) <= 6),
/// t2 by 2 ms (R = 4 + ceil(R/4) = 6 at d = 2 ms).
#[test]
fn known_answer_two_tasks() {
    let s = System::from_toml_str(
        "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n\
         [[task]]\nname = \"t1\"\nperiod = \"4ms\"\nwcet = \"1ms\"\npriority = 2\n\
         [[task]]\nname = \"t2\"\nperiod = \"6ms\"\nwcet = \"2ms\"\npriority = 1\n",
        "ka.toml",
    )
    .unwrap();
    let opts = AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    };
    let m = sensitivity(&s, &opts, TickMode::Partitioned).unwrap();
    assert_eq!(m.scaling_factor, Some(1.5));
    assert_eq!(m.critical_task.as_deref(), Some("t2"));
    assert_eq!(m.tasks[0].wcet_margin_ps, Some(1_000_000_000));
    assert_eq!(m.tasks[0].critical_task.as_deref(), Some("t2"));
    assert_eq!(m.tasks[1].wcet_margin_ps, Some(2_000_000_000));
    assert_eq!(m.tasks[1].critical_task.as_deref(), Some("t2"));
    // Without overheads the tick rate does not matter (no release delay either).
    assert_eq!(m.max_tick_hz, None);
}

/// An unschedulable system has a factor below 1 and negative margins.
#[test]
fn overloaded_system_has_factor_below_one() {
    let s = System::from_toml_str(
        "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n\
         [[task]]\nname = \"a\"\nperiod = \"4ms\"\nwcet = \"3ms\"\npriority = 2\n\
         [[task]]\nname = \"b\"\nperiod = \"6ms\"\nwcet = \"3ms\"\npriority = 1\n",
        "over.toml",
    )
    .unwrap();
    let opts = AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    };
    let m = sensitivity(&s, &opts, TickMode::Partitioned).unwrap();
    let f = m.scaling_factor.unwrap();
    assert!(f < 1.0, "{f}");
    // b alone: R = C_b + ceil(R/4) 3 <= 6 needs C_b <= 0 with two jobs of a, or with
    // one job of a: C_b + 3 <= 4, C_b <= 1 ms: margin -2 ms.
    assert_eq!(m.tasks[1].wcet_margin_ps, Some(-2_000_000_000));
    // a alone: b needs 3 + ceil(R/4) C_a <= 6: C_a <= 1 ms (R = 4 + ..) or C_a = 1.5
    // with two jobs: 3 + 2 * 1.5 = 6: margin -1.5 ms.
    assert_eq!(m.tasks[0].wcet_margin_ps, Some(-1_500_000_000));
}

#[derive(Debug, Clone)]
struct T {
    period_us: u32,
    wcet_permille: u32,
    prio: u32,
    jitter_us: u32,
}

fn build(tasks: &[T], tick_ns: u32, per_release_ns: u32, switch_ns: u32, hz: u32) -> System {
    let mut s = format!(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = {hz}\n\
         [kernel.costs]\ntick_base = \"{tick_ns}ns\"\ntick_per_release = \"{per_release_ns}ns\"\n\
         switch_base = \"{switch_ns}ns\"\nswitch_per_level = \"100ns\"\n"
    );
    for (i, t) in tasks.iter().enumerate() {
        let wcet_us = (t.period_us as u64 * t.wcet_permille as u64 / 1000).max(1);
        s += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{}us\"\nwcet = \"{wcet_us}us\"\npriority = {}\njitter = \"{}us\"\n",
            t.period_us, t.prio, t.jitter_us
        );
    }
    System::from_toml_str(&s, "prop.toml").unwrap()
}

fn task_strategy() -> impl Strategy<Value = T> {
    (500u32..40_000, 1u32..300, 1u32..8, 0u32..500).prop_map(|(p, c, prio, j)| T {
        period_us: p,
        wcet_permille: c,
        prio,
        jitter_us: j,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, .. ProptestConfig::default() })]

    /// At the reported scaling factor the set is schedulable and one grid step above it
    /// is not; each WCET margin passes and one picosecond more misses; the tick rate
    /// passes and one hertz more misses. Each "misses" names the reported task.
    #[test]
    fn reported_margins_are_exact(
        tasks in prop::collection::vec(task_strategy(), 1..6),
        tick_ns in 0u32..20_000,
        per_release_ns in 0u32..5_000,
        switch_ns in 0u32..3_000,
        hz in prop::sample::select(vec![100u32, 250, 1000, 2000]),
        partitioned in any::<bool>(),
    ) {
        let s = build(&tasks, tick_ns, per_release_ns, switch_ns, hz);
        let opts = AnalysisOptions::default();
        let mode = if partitioned { TickMode::Partitioned } else { TickMode::Pessimistic };
        let m = sensitivity(&s, &opts, mode).unwrap();
        let first_miss = |x: &System| {
            analyze_mode(x, &opts, mode).expect("in range").into_iter().find(|t| !t.schedulable).map(|t| t.name.to_string())
        };
        match m.scaling_exact {
            Some(r) => {
                prop_assert!(schedulable(&scale_wcets(&s, r.numerator, r.denominator), &opts, mode));
                let above = scale_wcets(&s, r.numerator + 1, r.denominator);
                prop_assert!(!schedulable(&above, &opts, mode));
                prop_assert_eq!(first_miss(&above), m.critical_task.clone());
                prop_assert_eq!(r.denominator, s.tasks.iter().map(|t| t.wcet.0).max().unwrap());
            }
            None => prop_assert!(!schedulable(&scale_wcets(&s, 0, 1), &opts, mode)),
        }
        for (i, t) in m.tasks.iter().enumerate() {
            let with = |d: i64| {
                let mut x = s.clone();
                x.tasks[i].wcet = Picos(s.tasks[i].wcet.0 + d);
                x.tasks[i].bcet = x.tasks[i].bcet.min(x.tasks[i].wcet);
                x
            };
            match t.wcet_margin_ps {
                Some(d) => {
                    prop_assert!(schedulable(&with(d), &opts, mode), "{} at {}", t.name, d);
                    prop_assert!(!schedulable(&with(d + 1), &opts, mode), "{} at {}+1", t.name, d);
                    prop_assert_eq!(first_miss(&with(d + 1)), t.critical_task.clone());
                }
                None => prop_assert!(!schedulable(&with(-s.tasks[i].wcet.0), &opts, mode)),
            }
        }
        if let Some(hz) = m.max_tick_hz {
            let at = |h: u64| { let mut x = s.clone(); x.kernel.tick_hz = h; x };
            prop_assert!(schedulable(&at(hz), &opts, mode));
            prop_assert!(!schedulable(&at(hz + 1), &opts, mode));
            prop_assert_eq!(first_miss(&at(hz + 1)), m.max_tick_critical_task.clone());
        }
    }
}
