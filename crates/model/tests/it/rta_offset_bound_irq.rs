//! The offset-based bound with interrupts declared strictly periodic
//! (`IrqPhasing::Periodic`): a handler's offset keeps it out of a window it cannot reach
//! (bound strictly tighter), and changes nothing where it falls inside the window anyway.
//! Overheads and the tick-driven release delay are off so that the numbers can be
//! checked by hand.

use latscope_model::rta::offsets::{offset_bound, offset_bound_with, IrqPhasing};
use latscope_model::rta::AnalysisOptions;
use latscope_model::system::TickMode;
use latscope_model::System;

/// H (10 ms, 2 ms, priority 2), L (10 ms, 3 ms, priority 1), both at offset 0, and an
/// interrupt handler I (every 10 ms, 1 ms) first at `irq_offset`.
fn set(irq_offset: &str) -> System {
    let text = format!(
        "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n[kernel.costs]\n\
         tick_base = \"1.5us\"\nswitch_base = \"1.5us\"\n\
         [[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 2\n\
         [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"3ms\"\npriority = 1\n\
         [[interrupt]]\nname = \"I\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\n\
         offset = \"{irq_offset}\"\n"
    );
    System::from_toml_str(&text, "irq.toml").unwrap()
}

fn opts() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    }
}

/// L's bound in both tick modes: (offset-free, sporadic interrupts, periodic interrupts).
fn l_bounds(sys: &System) -> Vec<(i64, i64, i64)> {
    [TickMode::Partitioned, TickMode::Pessimistic]
        .into_iter()
        .map(|m| {
            let s = offset_bound(sys, &opts(), m).unwrap();
            let p = offset_bound_with(sys, &opts(), m, IrqPhasing::Periodic).unwrap();
            assert_eq!(s.interrupts, "sporadic");
            assert_eq!(p.interrupts, "periodic");
            let (s, p) = (&s.tasks[1], &p.tasks[1]);
            assert_eq!(s.name, "L");
            let free = (s.offset_free_ns.unwrap() * 1000.0).round() as i64;
            (free, s.wcrt_ps.unwrap(), p.wcrt_ps.unwrap())
        })
        .collect()
}

const MS: i64 = 1_000_000_000;

/// I first at 5 ms. Offset-free (and with I sporadic): L = 3 + 2 (H) + 1 (I) = 6 ms.
/// Periodic I: Z (the handlers alone) = 1 ms; for c = H or L (offset 0, no jitter),
/// g = gcd(10, 10) = 10 ms, d = ((5 - 0 + 0 + 1) mod 10) - 0 - 1 = 5 ms, so I counts
/// with jitter -5 ms: w = 3 + 2 + 1 * ceil((w - 5) / 10) gives w = 5 (ceil(0) = 0).
/// The schedule agrees: H 0-2, L 2-5, I 5-6. Bound 5 ms, strictly below 6 ms.
#[test]
fn an_interrupt_offset_outside_the_window_tightens_the_bound() {
    for (free, sporadic, periodic) in l_bounds(&set("5ms")) {
        assert_eq!(free, 6 * MS);
        assert_eq!(
            sporadic,
            6 * MS,
            "a sporadic handler keeps its offset-free charge"
        );
        assert_eq!(periodic, 5 * MS);
    }
}

/// I first at 2 ms: d = ((2 + 1) mod 10) - 1 = 2 ms, jitter -2 ms: w = 5 gives
/// ceil(3 / 10) = 1 handler, w = 6, ceil(4 / 10) = 1: 6 ms, the offset-free bound (H 0-2,
/// I 2-3, L 3-6: the handler does land inside L's window).
#[test]
fn an_interrupt_offset_inside_the_window_changes_nothing() {
    for (free, sporadic, periodic) in l_bounds(&set("2ms")) {
        assert_eq!((free, sporadic, periodic), (6 * MS, 6 * MS, 6 * MS));
    }
}

/// A task released by a periodic interrupt is phased with it: R (priority 3), released
/// by I (first at 5 ms). Sporadic I: R can arrive with L, L = 3 + 2 + 1 (I) + 1 (R) = 7 ms.
/// Periodic I (Z = 1 ms; R's jitter is the handler path, 1 ms):
/// - c = H or L (phase 0): d_R = ((5 + 1 + 1) mod 10) - 0 - 1 = 6 ms, d_I = 5 ms, so
///   neither reaches L's window: w = 3 + 2 = 5 ms;
/// - c = R (phase 5 ms, J_c = 1 ms): H and L lie 5 ms after it, d_H = d_L =
///   ((0 - 5 + 0 + 1) mod 10) - 1 - 1 = 4 ms: w = 3 + 2 + 1 + 1 = 7 from the window
///   start, L arriving 4 ms in: 3 ms.
///
/// The bound is 5 ms (schedule: I 5-6, R 6-7, H 10-12, L 12-15).
#[test]
fn a_task_released_by_a_periodic_interrupt_is_phased() {
    let text = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n[kernel.costs]\n\
                tick_base = \"1.5us\"\nswitch_base = \"1.5us\"\n\
                [[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 2\n\
                [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"3ms\"\npriority = 1\n\
                [[task]]\nname = \"R\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\npriority = 3\n\
                [[interrupt]]\nname = \"I\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\n\
                offset = \"5ms\"\nreleases = \"R\"\n";
    let sys = System::from_toml_str(text, "rel.toml").unwrap();
    for m in [TickMode::Partitioned, TickMode::Pessimistic] {
        let s = offset_bound(&sys, &opts(), m).unwrap();
        let p = offset_bound_with(&sys, &opts(), m, IrqPhasing::Periodic).unwrap();
        let l = |o: &latscope_model::rta::offsets::OffsetBound| {
            o.tasks.iter().find(|t| t.name == "L").unwrap().clone()
        };
        let (ls, lp) = (l(&s), l(&p));
        assert_eq!(ls.wcrt_ps, Some(7 * MS), "sporadic I: R is phase-less");
        assert_eq!(ls.window_start, None);
        assert_eq!(lp.wcrt_ps, Some(5 * MS), "{lp:?}");
        assert!(lp.window_start.is_some());
    }
}
