//! Quick Processor-demand Analysis (Zhang & Burns, "Schedulability analysis for
//! real-time systems with EDF scheduling", IEEE Trans. Computers 58(9), 2009).
//!
//! Instead of checking `h(d) <= d` at every deadline below the busy period `L`, QPA walks
//! backwards from the last deadline before `L`: while `h(t) <= t`, it jumps to `h(t)` when
//! that is smaller (no deadline in `[h(t), t)` can fail, because `h` never decreases) or
//! else to the previous deadline. The set is schedulable iff the walk ends at or below
//! the first deadline with `h(t) <= d_min`. It needs `h` only to be non-decreasing,
//! which the preempting work keeps.

use super::demand::h;
use super::workload::Workload;

/// The largest absolute deadline strictly before `t` (none: `None`).
pub fn previous_deadline(w: &Workload, t: i64) -> Option<i64> {
    w.tasks
        .iter()
        .filter_map(|x| {
            let first = x.d - x.j;
            if first >= t {
                return None;
            }
            let period = x.t.max(1) as i128;
            // The largest k with first + k T < t.
            let k = (t as i128 - 1 - first as i128).div_euclid(period);
            Some((first as i128 + k * period) as i64)
        })
        .max()
}

/// The QPA verdict: `Ok(steps)` when schedulable, `Err(t)` with a window length at which
/// the demand exceeds the window (`h(t) > t`; the deadline a job misses at the latest).
pub fn qpa(w: &Workload, l: i64, d_min: i64) -> Result<u64, i64> {
    let Some(mut t) = previous_deadline(w, l.saturating_add(1)) else {
        return Ok(0);
    };
    let mut steps = 0u64;
    loop {
        steps += 1;
        let ht = h(w, t);
        if ht > t as i128 {
            return Err(t);
        }
        if ht <= d_min as i128 {
            return Ok(steps);
        }
        if ht < t as i128 {
            t = ht as i64;
        } else {
            match previous_deadline(w, t) {
                Some(p) => t = p,
                None => return Ok(steps),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edf::demand::{busy_period, first_deadline, plain_check};
    use crate::edf::workload::{Job, Preempting};
    use rand::{Rng, SeedableRng};

    /// QPA and the check of every deadline agree on 5,000 random sets with constrained
    /// deadlines, jitter and preempting work (half of them near full load, where the
    /// two can differ if either is wrong).
    #[test]
    fn qpa_agrees_with_the_plain_check_on_random_sets() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2009);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..5_000 {
            let n = rng.gen_range(1..=6);
            let mut w = Workload::default();
            for i in 0..n {
                let t = rng.gen_range(5..=200i64);
                let c = rng.gen_range(1..=(t / 3).max(1));
                let d = rng.gen_range(c..=t);
                let j = if rng.gen_bool(0.3) {
                    rng.gen_range(0..=(d - c))
                } else {
                    0
                };
                w.tasks.push(Job {
                    name: format!("t{i}"),
                    c,
                    t,
                    d,
                    j,
                });
            }
            if rng.gen_bool(0.5) {
                w.preempting.push(Preempting {
                    name: "tick".into(),
                    c: 1,
                    t: rng.gen_range(10..=50),
                    j: rng.gen_range(0..=3),
                });
            }
            w.blocking = if rng.gen_bool(0.3) {
                rng.gen_range(0..=3)
            } else {
                0
            };
            let (Ok(l), Ok(d_min)) = (busy_period(&w, 1 << 40), first_deadline(&w)) else {
                continue;
            };
            let (plain, _) = plain_check(&w, l, usize::MAX);
            let quick = qpa(&w, l, d_min);
            assert_eq!(
                plain.is_none(),
                quick.is_ok(),
                "{w:?}: plain {plain:?} qpa {quick:?}"
            );
            if let Err(t) = quick {
                assert!(h(&w, t) > t as i128);
                no += 1;
            } else {
                yes += 1;
            }
        }
        // Both verdicts occur often enough for the agreement to mean something.
        assert!(yes > 500 && no > 500, "{yes} schedulable, {no} not");
    }

    /// Zhang & Burns 2009's point: QPA needs far fewer steps than there are deadlines.
    #[test]
    fn qpa_walks_few_points() {
        let w = Workload {
            tasks: (1..=10)
                .map(|i| Job {
                    name: format!("t{i}"),
                    c: 85 * i,
                    t: 1_000 * i + 7 * i * i,
                    d: 900 * i,
                    j: 0,
                })
                .collect(),
            ..Default::default()
        };
        let l = busy_period(&w, 1 << 40).unwrap();
        let (plain, points) = plain_check(&w, l, usize::MAX);
        assert!(plain.is_none());
        let steps = qpa(&w, l, first_deadline(&w).unwrap()).unwrap();
        assert!(steps < points as u64, "{steps} steps, {points} deadlines");
    }
}
