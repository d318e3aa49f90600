//! An event chain across a fixed-priority core and an EDF core (docs/analysis.md, "Event
//! links across cores with EDF cores"), worked by hand, and what happens when a
//! predecessor has no bound.

use latscope_model::chain::edf::chains_with_edf;
use latscope_model::chain::edf_cores::analyze_mixed;
use latscope_model::edf::analyze_edf_cores;
use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::System;

/// No kernel overheads and no tick-driven release delay: the textbook recurrences (the
/// inter-core interrupt still costs its `ipi`, its handler's WCET).
fn plain() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    }
}

/// Core 0 (fixed priority): `A` (T 10, C 2, priority 4) and `C` (C 1, priority 3).
/// Core 1 (EDF): `X` (T 5, C 1, D 5) and `B` (C 3, D 10). The chain `A -> B -> C` of
/// event links crosses to the EDF core and back; `ipi = 10 us`. `x_wcet` is X's WCET.
fn system(x_wcet: &str) -> System {
    let text = format!(
        "[platform]\ncpu_hz = 1_000_000\ncores = 2\n[kernel]\ntick_hz = 1000\n\
[kernel.costs]\nipi = \"10us\"\n\
[[core]]\nid = 1\nscheduler = \"edf\"\n\
[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
[[task]]\nname = \"C\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\npriority = 3\n\
[[task]]\nname = \"X\"\nperiod = \"5ms\"\nwcet = \"{x_wcet}\"\npriority = 1\ncore = 1\n\
[[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 2\ncore = 1\n\
[[chain]]\nname = \"abc\"\nsteps = [\"A\", \"B\", \"C\"]\nlinks = [\"event\", \"event\"]\n\
deadline = \"10ms\"\n"
    );
    System::from_toml_str(&text, "edfx.toml").expect("accepted: no longer refused")
}

const MS: i64 = 1_000_000_000;
const US: i64 = 1_000_000;

/// The settled figures, by hand (all in ms; BCET = WCET, so a completion varies by
/// `R - C`):
///
/// - `A` on core 0 (FP, top): `w = 2 + 0.01 ceil(w / T_ipi<B)` = 2.01 as long as the
///   inter-core interrupt from `B` comes at most once in 2.01 ms. `R_A = 2.01`.
/// - `B` on core 1 (EDF), released by `ipi<A` (cost 0.01, minimum inter-arrival
///   `10 - (2.01 - 2) = 9.99`): `J_B = R_A + 0.01` (the handler's path) `= 2.02`,
///   `D'_B = 10 - 2.02 = 7.98`; `X`: `J 0`, `D' 5`. Synchronous busy period:
///   `L = 1 + 3 + 0.01 = 4.01` (one job each and one `ipi<A`). Spuri's candidates for
///   `B`: `a = 0` and `a = D'_X - D'_B + 5 = 2.02`. At `a = 0` (deadline 7.98) `X`'s
///   first job (deadline 5) counts: `L_B = 3 + 1 + 0.01 = 4.01`, response 4.01. At
///   `a = 2.02` (deadline 10) still one `X` job fits the window: `L_B = 4.01`,
///   response `max(3, 4.01 - 2.02) = 3`. `R_B = 4.01 + J_B = 6.03`.
///   (`X`: candidates 0 and `D'_B - D'_X = 2.98`; at 2.98 `B`'s job counts, so
///   `L_X = 1 + 3 + 0.01 = 4.01` and the response is `4.01 - 2.98 = 1.03`: `R_X = 1.03`.)
/// - Back on core 0: `ipi<B` has minimum inter-arrival `10 - (6.03 - 3) = 6.97`, still
///   above 2.01, so `R_A` stays 2.01: settled. `C`: `J_C = R_B + 0.01 = 6.04`,
///   `w = 1 + 2 ceil(w / 10) + 0.01 ceil(w / 6.97) = 3.01`, `R_C = 6.04 + 3.01 = 9.05`.
///
/// The chain's bound is `R_C = 9.05`, composed of `A` 2.01, `B` 4.02, `C` 3.02; it meets
/// its 10 ms deadline. Had `B`'s fixed-priority figure (priority 2 above `X`:
/// `2.02 + 3 + 0.01 = 5.03`) been relayed instead of its EDF bound, `C` would have
/// come out at `5.04 + 3.01 = 8.05`, below what EDF can produce.
#[test]
fn a_chain_from_a_fixed_priority_core_through_an_edf_core_and_back_by_hand() {
    let sys = system("1ms");
    let opts = plain();
    let res = analyze(&sys, &opts).expect("analysed");
    let wcrt = |n: &str| {
        res.tasks
            .iter()
            .find(|t| &*t.name == n)
            .and_then(|t| t.wcrt_ps)
            .expect("bounded")
    };
    assert_eq!(wcrt("A"), 2 * MS + 10 * US);
    assert_eq!(wcrt("C"), 9 * MS + 50 * US);
    // B's fixed-priority figure stays in `tasks`, for comparison only.
    assert_eq!(wcrt("B"), 5 * MS + 30 * US);
    let edf = analyze_edf_cores(&sys, &opts).expect("EDF cores");
    assert_eq!(edf.len(), 1);
    let e = &edf[0].result;
    assert!(e.schedulable, "{e:?}");
    let task = |n: &str| e.tasks.iter().find(|t| t.name == n).expect("task");
    assert_eq!(task("B").jitter_ns, 2_020_000.0);
    assert_eq!(task("B").bound_ns, Some(6_030_000.0));
    assert_eq!(task("X").bound_ns, Some(1_030_000.0));
    assert_eq!(e.busy_period_ns, Some(4_010_000.0));
    let chains = chains_with_edf(&sys, &opts, &res, &e.tasks);
    let c = &chains[0];
    assert_eq!(c.bound_ps, Some(9 * MS + 50 * US));
    assert_eq!(c.meets_deadline, Some(true));
    let parts: Vec<(&str, f64)> = c
        .composition
        .iter()
        .map(|p| (p.step.as_str(), p.ns))
        .collect();
    assert_eq!(
        parts,
        vec![("A", 2_010_000.0), ("B", 4_020_000.0), ("C", 3_020_000.0)]
    );
    let m = analyze_mixed(&sys, &opts).expect("mixed");
    assert!(m.rounds.is_some(), "settled");
    // Core 1's view takes the inter-core interrupt from A, core 0's the one from B.
    let names = |c: usize| -> Vec<String> {
        m.views[c]
            .sys
            .interrupts
            .iter()
            .map(|x| x.name.clone())
            .collect()
    };
    assert_eq!(names(0), vec!["ipi<B".to_string()]);
    assert_eq!(names(1), vec!["ipi<A".to_string()]);
    assert!(res.notes.iter().any(|n| n.contains("Spuri on an EDF core")));
}

/// With `X` at 4.5 ms of every 5 the EDF core is overloaded (3 / 10 + 4.5 / 5 > 1): `B`
/// has no bound, so the inter-core interrupt it sends to core 0 has no minimum
/// inter-arrival time and no task of core 0 is bounded; the chain is unbounded. The
/// analysis returns (no endless iteration).
#[test]
fn an_unbounded_predecessor_leaves_the_receiving_core_unbounded() {
    let sys = system("4500us");
    let opts = plain();
    let res = analyze(&sys, &opts).expect("analysed");
    for n in ["A", "C"] {
        let t = res.tasks.iter().find(|t| &*t.name == n).expect("task");
        assert_eq!(t.wcrt_ps, None, "{n}");
        assert!(
            t.unbounded_reason
                .as_deref()
                .is_some_and(|w| w.contains("inter-core interrupt of task \"B\"")),
            "{t:?}"
        );
    }
    assert!(!res.schedulable);
    let edf = analyze_edf_cores(&sys, &opts).expect("EDF cores");
    let e = &edf[0].result;
    assert!(!e.schedulable);
    assert!(e.tasks.iter().all(|t| t.bound_ns.is_none()));
    let chains = chains_with_edf(&sys, &opts, &res, &e.tasks);
    assert_eq!(chains[0].bound_ps, None);
    assert!(chains[0].unbounded_reason.is_some());
}
