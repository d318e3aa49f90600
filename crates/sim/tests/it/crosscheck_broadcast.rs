//! The multicore cross-check (`crosscheck_multicore.rs`) with the tick broadcast from
//! one core (`kernel.tick_source = "broadcast"`, docs/analysis.md, Multicore, "One
//! core's tick broadcast"): the same random 2- and 4-core systems, each with a random
//! tick core and send cost. No simulated maximum may exceed its bound in either tick
//! mode; the simulator relays the tick core's tick ends, so responses count from the
//! nominal release on both sides.
//!
//! `LATSCOPE_BC_SETS=N` runs N systems (default 600) and prints the tightness histogram.

use latscope_core::Picos;
use latscope_model::rta::analyze;
use latscope_model::system::TickSource;
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;

use crate::common::run_multi_seeded;

fn sets() -> usize {
    std::env::var("LATSCOPE_BC_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600)
}

fn broadcast(k: usize) -> System {
    let mut sys = crate::crosscheck_multicore::system(k);
    sys.kernel.tick_source = TickSource::Broadcast;
    sys.kernel.tick_core = (k / 2) as u32 % sys.platform.cores;
    sys.kernel.ipi_send = Picos::from_ns(((k * 7919) % 2_001) as i64);
    System::from_toml_str(&sys.to_toml_string(), &format!("bc{k}")).expect("valid system")
}

#[test]
fn broadcast_tick_simulation_never_exceeds_bounds() {
    let n = sets();
    let mut compared = 0usize;
    let mut relayed = 0usize;
    let mut hist = [0usize; 11];
    for k in 0..n {
        let sys = broadcast(k);
        let r = analyze(&sys, &AnalysisOptions::default()).expect("analysed");
        let rep = run_multi_seeded(&sys, k, None, Picos::from_ms(400));
        for mode in [&r.tick_modes.partitioned, &r.tick_modes.pessimistic] {
            for a in mode {
                let s = rep.tasks.iter().find(|t| *t.name == *a.name).expect("task");
                let (Some(w), Some(m)) = (a.wcrt_ns, s.max_response_ns) else {
                    continue;
                };
                let core = sys.tasks[sys.task_index(&a.name).unwrap_or(0)].core;
                assert!(
                    m <= w,
                    "set {k} task {} (core {core}, tick core {}): simulated {m} ns > bound {w} ns\n{}",
                    a.name,
                    sys.kernel.tick_core,
                    sys.to_toml_string()
                );
                compared += 1;
                if std::ptr::eq(mode, &r.tick_modes.partitioned) {
                    hist[((m / w) * 10.0).floor().clamp(0.0, 10.0) as usize] += 1;
                    if core != sys.kernel.tick_core {
                        relayed += 1;
                    }
                }
            }
        }
    }
    println!("{n} sets, {compared} comparisons, {relayed} tasks on cores with a relayed tick");
    for (b, c) in hist.iter().enumerate() {
        println!("  {:.1}: {c}", b as f64 / 10.0);
    }
    assert!(compared > 4 * n, "{compared}");
    assert!(relayed > n, "{relayed}");
}

const TWO: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 12
cores = 2
[kernel]
tick_hz = 1000
tick_source = "broadcast"
[kernel.costs]
tick_base = "2us"
tick_per_release = "1us"
switch_base = "1us"
switch_per_level = "0us"
ipi = "3us"
ipi_send = "500ns"
[[task]]
name = "A"
period = "10ms"
wcet = "1ms"
priority = 2
[[task]]
name = "B"
period = "5ms"
wcet = "1ms"
priority = 2
core = 1
"#;

/// In the capture, core 1's tick handler starts exactly when core 0's ends, every
/// tick, and lasts `L + tick_base + ipi` (plus the releases); core 1 has no tick of its
/// own. B's response counts from its nominal release, so it includes the relay.
#[test]
fn core_one_ticks_when_core_zero_tick_ends() {
    let sys = System::from_toml_str(TWO, "two.toml").unwrap();
    let mut sim = MultiSim::new(
        &sys,
        &FromSystemOptions::default(),
        SimOptions {
            capture: true,
            ..Default::default()
        },
    )
    .expect("simulable");
    sim.run_until(Picos::from_ms(50));
    let cap = sim.capture();
    let ch = |n: &str| {
        cap.channels
            .iter()
            .find(|c| c.name == n)
            .unwrap_or_else(|| panic!("channel {n}"))
            .edges
            .clone()
    };
    let (t0, t1) = (ch("core0.tick"), ch("core1.tick"));
    assert_eq!(t0.len(), t1.len());
    assert!(t0.len() >= 2 * 49, "{}", t0.len());
    let l = Picos(1_200_000 / 1000); // 12 cycles at 100 MHz
    let us = Picos::from_us;
    for (k, pair) in t0.chunks(2).zip(t1.chunks(2)).enumerate() {
        let (rise0, fall0) = (pair.0[0], pair.0[1]);
        let (rise1, fall1) = (pair.1[0], pair.1[1]);
        // Core 0's tick: L + tick_base + one send (+ A's release on its ticks).
        assert!(fall0 - rise0 >= l + us(2) + Picos::from_ns(500), "tick {k}");
        assert_eq!(rise1, fall0, "tick {k}");
        assert!(fall1 - rise1 >= l + us(2) + us(3), "tick {k}");
    }
    let rep = sim.report();
    let b = rep.tasks.iter().find(|t| t.name == "B").unwrap();
    let max = b.max_response_ns.expect("ran");
    // The first job is ready at the scheduler's start; every later one is released by
    // a relayed tick: at least core 0's tick, then core 1's with B's release, then C.
    let relayed = l + us(2) + Picos::from_ns(500) + l + us(5) + us(1) + us(1000);
    assert!(max >= relayed.as_ns_f64(), "{max}");
    let r = analyze(&sys, &AnalysisOptions::default()).unwrap();
    let w = r
        .tasks
        .iter()
        .find(|t| &*t.name == "B")
        .unwrap()
        .wcrt_ns
        .unwrap();
    assert!(max <= w, "{max} > {w}");
}
