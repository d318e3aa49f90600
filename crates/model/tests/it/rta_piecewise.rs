//! The piecewise tick cost (first, further and last released task): file meaning, the
//! writer, and what the analysis charges in both tick modes.

use latscope_model::rta::{analyze_mode, AnalysisOptions};
use latscope_model::system::{KernelCosts, TickMode};
use latscope_model::System;

fn sys(costs: &str) -> System {
    let mut t = format!(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = 1000\n\
         [kernel.costs]\ntick_base = \"1.5us\"\nswitch_base = \"1.5us\"\n{costs}"
    );
    // the FreeRTOS overheads paper Table 1's periods (ms) and priorities, 5 % utilisation each.
    for (i, p) in [10u32, 15, 20, 25, 30, 35, 40, 45, 50, 55]
        .iter()
        .enumerate()
    {
        t += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{p}ms\"\nwcet = \"{}us\"\npriority = {}\n",
            p * 50,
            10 - i
        );
    }
    System::from_toml_str(&t, "pw.toml").unwrap()
}

fn wcrts(s: &System, mode: TickMode) -> Vec<i64> {
    analyze_mode(s, &AnalysisOptions::default(), mode)
        .unwrap()
        .iter()
        .map(|t| t.wcrt_ps.unwrap())
        .collect()
}

#[test]
fn only_per_release_keeps_the_straight_line() {
    let s = sys("tick_per_release = \"5.907us\"\n");
    let KernelCosts::Tick(c) = &s.kernel.costs else {
        panic!()
    };
    assert_eq!(c.first_release(), c.tick_per_release);
    assert_eq!(c.tick_first_release, None);
    assert_eq!(c.last_release(), c.tick_per_release);
    assert_eq!(c.tick_cost(10).0, 1_500_000 + 10 * 5_907_000);
    // The writer leaves the defaults out; the piecewise keys are written when they differ.
    assert!(!s.to_toml_string().contains("tick_first_release"));
    let p = sys(
        "tick_first_release = \"9us\"\ntick_per_release = \"2us\"\ntick_last_release = \"3us\"\n",
    );
    let text = p.to_toml_string();
    assert!(text.contains("tick_first_release = \"9us\""), "{text}");
    assert!(text.contains("tick_last_release = \"3us\""), "{text}");
    let back = System::from_toml_str(&text, "b").unwrap();
    assert_eq!(back.kernel.costs, p.kernel.costs);
    let j = System::from_json_str(&p.to_json_string(), "b.json").unwrap();
    assert_eq!(j.kernel.costs, p.kernel.costs);
}

#[test]
fn piecewise_keys_belong_to_the_tick_model() {
    let t = "[platform]\ncpu_hz = 1000000\n[kernel]\ntick_hz = 1000\nmodel = \"listscan\"\n\
             [kernel.costs]\ntick_first_release = \"1us\"\n\
             [[task]]\nname = \"a\"\nperiod = \"1ms\"\nwcet = \"1us\"\npriority = 1\n";
    let e = System::from_toml_str(t, "x.toml").unwrap_err().to_string();
    assert!(
        e.contains("tick_first_release") && e.contains("\"tick\""),
        "{e}"
    );
}

/// A steep first step: the piecewise bound lies between the straight line through the
/// further steps (which ignores the first step's excess, unsafe) and the safe straight
/// line that charges the first step's cost for every release.
#[test]
fn piecewise_bound_is_between_the_two_straight_lines() {
    // The last step no dearer than a further one (X = f - p = 10 us).
    let pw = sys("tick_first_release = \"12us\"\ntick_per_release = \"2us\"\ntick_last_release = \"1.5us\"\n");
    let low = sys("tick_per_release = \"2us\"\n");
    // C(r) <= 1.5 + r * 12 for every r: the single line that is safe for this kernel.
    let safe = sys("tick_per_release = \"12us\"\n");
    for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
        let (p, l, s) = (wcrts(&pw, mode), wcrts(&low, mode), wcrts(&safe, mode));
        for k in 0..p.len() {
            assert!(
                l[k] <= p[k] && p[k] <= s[k],
                "{mode:?} task {k}: {l:?} {p:?} {s:?}"
            );
        }
        // ... and strictly below it somewhere (partitioned: the high-priority tasks, whose
        // windows hold more ticks than releases; pessimistic: every task).
        assert!(p[0] < s[0], "{mode:?}: {p:?} vs {s:?}");
        if mode == TickMode::Pessimistic {
            assert!(p[9] < s[9], "{mode:?}: {p:?} vs {s:?}");
        }
    }
    // Pessimistic: every tick pays C(10) = 1.5 + 12 + 8 * 2 + 1.5 = 31 us (+ L).
    let r = latscope_model::analyze(&pw, &AnalysisOptions::default()).unwrap();
    let l_ns = 12.0 / 84.0 * 1000.0;
    let expect = (31e3 + l_ns) / 1e6;
    assert!((r.totals.utilisation_tick_pessimistic - expect).abs() < 1e-9);
}
