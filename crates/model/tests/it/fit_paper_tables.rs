//! The safe piecewise tick fit on synthetic traces built from the published costs of
//! Miranda, de Oliveira, Carminati: "Analysis of FreeRTOS Overheads on Periodic Tasks"
//! (Cortex-M4 at 84 MHz, 1 ms tick): Table 1/2's ten periods (5, 10, 15, 20, 30, 40, 23,
//! 12, 45, 50 ms); a tick with no release costs 1.5 us (the observed best case, §7.1);
//! each released task costs its move to the ready list, at most 3.7 us (the worst
//! measured), plus 2.207 us (its share of the unmeasured 22.07 us, Table 2). The paper
//! measured the worst tick, all ten released, at 60.75 us.
//!
//! The paper publishes only the worst move (3.7 us); the traces draw each move uniformly
//! from [1.85, 3.7] us (down to half the worst — an assumption of this test, not a
//! published figure), with the worst forced on the ticks that release all ten.
//! Target (issue 13): the safe model's worst tick within +10 % of the trace's worst and
//! never below it, and within the same margin of the published 60.75 us.

use latscope_model::fit::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PERIODS_MS: [u64; 10] = [5, 10, 15, 20, 30, 40, 23, 12, 45, 50];
const BASE_NS: f64 = 1500.0;
const MOVE_WORST_NS: f64 = 3700.0;
const SHARE_NS: f64 = 2207.0;
const PUBLISHED_WORST_NS: f64 = 60_750.0;

fn trace(ticks: u64, all_every: u64, seed: u64) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..ticks)
        .map(|t| {
            let all = t % all_every == 0;
            let x = if all {
                10
            } else {
                PERIODS_MS.iter().filter(|&&p| t % p == 0).count()
            };
            let y: f64 = BASE_NS
                + (0..x)
                    .map(|_| {
                        let mv = if all {
                            MOVE_WORST_NS
                        } else {
                            rng.gen_range(MOVE_WORST_NS / 2.0..=MOVE_WORST_NS)
                        };
                        mv + SHARE_NS
                    })
                    .sum::<f64>();
            Sample {
                x: x as f64,
                y_ns: y,
                row: t as usize + 2,
            }
        })
        .collect()
}

#[test]
fn safe_tick_from_the_papers_costs_is_within_ten_percent_of_the_worst() {
    for seed in 0..5 {
        let s = trace(60_000, 10_000, seed);
        let r = fit_target(&s, Target::Tick, false).unwrap();
        let safe = r.piecewise.as_ref().map(|p| p.safe);
        let at = |x: f64| safe.map_or_else(|| r.upper_bound.at(x), |m| m.at(x));
        for x in &s {
            assert!(at(x.x) >= x.y_ns - 1e-6, "seed {seed} row {}", x.row);
        }
        let worst = s.iter().map(|x| x.y_ns).fold(0.0, f64::max);
        // The trace's worst is the paper's model with every move at its worst.
        assert!((worst - (BASE_NS + 10.0 * (MOVE_WORST_NS + SHARE_NS))).abs() < 1e-6);
        let w = at(10.0);
        assert!(
            w >= worst && w <= 1.10 * worst,
            "seed {seed}: {w} vs {worst}"
        );
        // Against the published measurement: the paper's own per-task model sums to
        // 60.57 us, 0.3 % below its measured 60.75 us; the fit lies within that and +10 %.
        assert!(
            (0.99 * PUBLISHED_WORST_NS..=1.10 * PUBLISHED_WORST_NS).contains(&w),
            "seed {seed}: {w}"
        );
        eprintln!(
            "seed {seed}: safe worst tick {w:.1} ns, trace worst {worst:.1} ns (+{:.3} %), \
             published {PUBLISHED_WORST_NS} ns; idle {:.1} ns; model {}",
            100.0 * (w / worst - 1.0),
            at(0.0),
            r.model
        );
        // The idle tick stays at the published best case.
        assert!(
            at(0.0) >= BASE_NS && at(0.0) <= 1.10 * BASE_NS,
            "{}",
            at(0.0)
        );
    }
}

/// A least-squares line through the same trace is unsafe at the worst tick or above the
/// +10 % margin at the idle one: the check above can fail.
#[test]
fn least_squares_alone_would_miss_the_worst_tick() {
    let s = trace(60_000, 10_000, 7);
    let r = fit_target(&s, Target::Tick, false).unwrap();
    let worst = s.iter().map(|x| x.y_ns).fold(0.0, f64::max);
    let ls = r.least_squares;
    assert!(ls.at(10.0) < worst, "{} vs {worst}", ls.at(10.0));
}
