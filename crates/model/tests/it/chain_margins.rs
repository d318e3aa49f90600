//! Chains in `--sensitivity` and `--assign-priorities` (docs/analysis.md, "Chains in the
//! margins and the priority assignment"), on one core and across cores, and the bound of
//! an event link across cores worked by hand.

use latscope_model::priority::{assign_priorities, with_priorities};
use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::sensitivity::{scale_wcets, sensitivity};
use latscope_model::system::TickMode;
use latscope_model::System;

/// No kernel overheads and no tick-driven release delay: the textbook recurrence.
fn plain() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    }
}

/// A (T 10, C 2, top) releases B (C 3) through an event link, L (T 30, C 9) below both.
/// Every task has slack enough; the chain's deadline is the tighter requirement.
fn one_core(deadline: &str) -> System {
    let text = format!(
        "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n\
[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
[[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 3\n\
[[task]]\nname = \"L\"\nperiod = \"30ms\"\nwcet = \"9ms\"\npriority = 1\n\
[[chain]]\nname = \"ab\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\n{deadline}"
    );
    System::from_toml_str(&text, "m.toml").expect("valid")
}

/// Whether every task and every chain meets its deadline (the predicate, computed here
/// from the analysis alone).
fn all_met(sys: &System, opts: &AnalysisOptions) -> bool {
    let o = AnalysisOptions {
        tick_mode: Some(TickMode::Partitioned),
        ..opts.clone()
    };
    let r = analyze(sys, &o).expect("analysed");
    r.tasks.iter().all(|t| t.schedulable)
        && r.chains.iter().all(|c| c.meets_deadline != Some(false))
}

#[test]
fn scaling_factor_stops_at_the_chain_deadline() {
    let opts = plain();
    let with = one_core("deadline = \"8ms\"\n");
    let without = one_core("");
    let s = sensitivity(&with, &opts, TickMode::Partitioned).expect("margins");
    let f = s.scaling_exact.expect("a factor");
    // Exact on the grid: x passes, x + 1 misses, by the whole analysis.
    assert!(all_met(
        &scale_wcets(&with, f.numerator, f.denominator),
        &opts
    ));
    assert!(!all_met(
        &scale_wcets(&with, f.numerator + 1, f.denominator),
        &opts
    ));
    assert_eq!(s.critical_task.as_deref(), Some("chain \"ab\""));
    // The chain binds: without its deadline the tasks alone allow more.
    let free = sensitivity(&without, &opts, TickMode::Partitioned).expect("margins");
    let g = free.scaling_exact.expect("a factor");
    assert!(
        (g.numerator as i128) * (f.denominator as i128)
            > (f.numerator as i128) * (g.denominator as i128),
        "{f:?} vs {g:?}"
    );
    // The chain's bound is A's response plus B's (2 + 5 = 7 ms at factor 1) and grows at
    // least linearly with the factor, so the factor is above 1 and at most 8/7.
    let x = f.numerator as f64 / f.denominator as f64;
    assert!(x > 1.0 && x < 8.0 / 7.0 + 1e-9, "{x}");
    assert!(s.notes.iter().any(|n| n.contains("whole analysis")));
    // Each task's own margin respects the chain too.
    for m in &s.tasks {
        let i = with.task_index(&m.name).expect("task");
        let d = m.wcet_margin_ps.expect("margin");
        let mut grown = with.clone();
        grown.tasks[i].wcet.0 += d;
        assert!(all_met(&grown, &opts), "{}", m.name);
        grown.tasks[i].wcet.0 += 1;
        assert!(!all_met(&grown, &opts), "{}", m.name);
    }
}

#[test]
fn assignment_keeps_the_chain_within_its_deadline_or_names_it() {
    let opts = plain();
    // Priorities that put L above the chain: Audsley reorders, and the order returned
    // keeps the chain within its deadline.
    let mut sys = one_core("deadline = \"8ms\"\n");
    for (t, p) in sys.tasks.iter_mut().zip([1, 2, 4]) {
        t.priority = p;
    }
    assert!(!all_met(&sys, &opts));
    let a = assign_priorities(&sys, &opts, TickMode::Partitioned);
    assert!(!a.opa_compatible);
    let order = a.order.expect("an order");
    let prio: Vec<u32> = sys
        .tasks
        .iter()
        .map(|t| {
            order
                .iter()
                .find(|o| o.name == t.name)
                .expect("named")
                .priority
        })
        .collect();
    assert!(all_met(&with_priorities(&sys, &prio), &opts));
    // A deadline below the two WCETs together: no order can keep it.
    let tight = one_core("deadline = \"4ms\"\n");
    let a = assign_priorities(&tight, &opts, TickMode::Partitioned);
    assert!(a.order.is_none());
    let msg = a.failure.expect("failure").message;
    assert!(msg.contains("chain \"ab\""), "{msg}");
}

/// A on core 0 releases B on core 1; X (T 4, C 1) above B on core 1; `ipi` 10 us and
/// no other overheads. R_A = 2 ms. On core 1 the inter-core interrupt is B's release
/// path (10 us, in B's jitter with R_A: J_B = 2.01 ms) and, as every handler of the
/// core, interference in B's window (one arrival per 10 ms):
/// w = 3 + 0.01 ceil(w / 10) + 1 ceil(w / 4) ms: 3.01 -> 4.01 -> 5.01 -> 5.01 ms.
/// B's bound from A's release: J_B + w = 7.02 ms.
#[test]
fn event_link_across_cores_worked_by_hand() {
    let text = "[platform]\ncpu_hz = 1_000_000\ncores = 2\n[kernel]\ntick_hz = 1000\n\
[kernel.costs]\nipi = \"10us\"\n\
[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
[[task]]\nname = \"X\"\nperiod = \"4ms\"\nwcet = \"1ms\"\npriority = 5\ncore = 1\n\
[[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 3\ncore = 1\n\
[[chain]]\nname = \"ab\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\ndeadline = \"10ms\"\n";
    let sys = System::from_toml_str(text, "mc.toml").expect("valid");
    let r = analyze(&sys, &plain()).expect("analysed");
    let wcrt = |n: &str| {
        r.tasks
            .iter()
            .find(|t| &*t.name == n)
            .and_then(|t| t.wcrt_ps)
            .expect("bounded")
    };
    assert_eq!(wcrt("A"), 2_000_000_000);
    assert_eq!(wcrt("B"), 2_010_000_000 + 5_010_000_000);
    let c = &r.chains[0];
    assert_eq!(c.bound_ps, Some(wcrt("B")));
    assert_eq!(c.meets_deadline, Some(true));
    assert!(r.notes.iter().any(|n| n.contains("inter-core interrupt")));
    // The scaling factor on two cores is bounded by the chain's 10 ms.
    let s = sensitivity(&sys, &plain(), TickMode::Partitioned).expect("margins");
    let f = s.scaling_exact.expect("factor");
    assert!(all_met(
        &scale_wcets(&sys, f.numerator, f.denominator),
        &plain()
    ));
    assert!(!all_met(
        &scale_wcets(&sys, f.numerator + 1, f.denominator),
        &plain()
    ));
}
