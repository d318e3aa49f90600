//! the FreeRTOS overheads paper, Figure 4: the Table 1 task set simulated over 250 s. The tick handler's
//! duration peaks exactly at the instants where all ten tasks are released together:
//! the multiples of the hyperperiod (41.4 s), six of them in 250 s.

use latscope_core::Picos;
use latscope_model::System;
use latscope_sim::*;

fn table1() -> SimConfig {
    let text = include_str!("../data/table1.toml");
    let sys = System::from_toml_str(text, "table1.toml").expect("valid system");
    from_system(&sys, &FromSystemOptions::default()).expect("convertible")
}

#[test]
fn tick_duration_peaks_at_the_critical_instants() {
    let cfg = table1();
    assert_eq!(cfg.hyperperiod(), Some(Picos::from_ms(41_400)));
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            series: true,
            ..Default::default()
        },
    )
    .unwrap();
    sim.run_until(Picos::from_ms(250_000));
    let r = sim.report();
    let want: Vec<f64> = (1..=6).map(|k| k as f64 * 41.4e9).collect();
    assert_eq!(r.tick.peaks_at_ns, want);
    assert_eq!(r.tick.peak_count, 6);
    assert_eq!(r.tick.max_released, 10);
    // L + 1.5 us + 10 * 5.907 us = 0.142857 + 60.57 us (the paper measured 60.75 us)
    assert_eq!(r.tick.max_ns, Some(60_712.857));
    assert_eq!(r.tick.min_ns, Some(1_642.857));
    assert_eq!(r.tick.count, 249_999);
    // The series agrees: exactly the ticks at multiples of 41.4 s release all ten.
    let all: Vec<i64> = sim
        .series()
        .iter()
        .filter(|row| row.released == 10)
        .map(|row| row.time.0)
        .collect();
    assert_eq!(
        all,
        (1..=6)
            .map(|k| k * 41_400 * 1_000_000_000)
            .collect::<Vec<_>>()
    );
    // Every job of every task ran: 250 s / period jobs (first at 0), none missed.
    for (t, per) in r.tasks.iter().zip([5, 10, 15, 20, 30, 40, 23, 12, 45, 50]) {
        assert_eq!(t.released, 250_000_u64.div_ceil(per), "{}", t.name);
        assert_eq!(t.deadline_misses, 0, "{}", t.name);
    }
}

/// Running in slices (as the progress bar does) changes nothing.
#[test]
fn slicing_does_not_change_the_result() {
    let go = |slices: i64| {
        let mut sim = Sim::new(
            table1(),
            SimOptions {
                series: true,
                capture: true,
                percentiles: true,
                ..Default::default()
            },
        )
        .unwrap();
        let end = Picos::from_ms(2_000).0;
        for k in 1..=slices {
            sim.run_until(Picos(end * k / slices));
        }
        (
            serde_json::to_string(&sim.report()).unwrap(),
            sim.series().to_vec(),
            sim.capture(),
        )
    };
    assert_eq!(go(1), go(977));
}
