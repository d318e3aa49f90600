//! Worst-case response times under EDF (Spuri, "Analysis of deadline scheduled real-time
//! systems", INRIA research report 2772, 1996), with jitter and preempting work.
//!
//! A job of task `i` released at `a` (from the start of a busy period in which every
//! other task starts synchronously) has absolute deadline `a + D'_i`, `D' = D - J`. The
//! busy period that ends when it completes is the least fixed point of
//!
//! `L_i(a) = B + I(L) + (1 + floor(a / T_i)) C_i
//!          + sum_{j != i, D'_j <= a + D'_i} min(ceil((L + J_j) / T_j), 1 + floor((a + D'_i - D'_j) / T_j)) C_j`
//!
//! (other tasks' jobs with a deadline no later than its own, at most as many as arrive in
//! the window; `I` the preempting work), and its response from its release is
//! `max(C_i, L_i(a) - a)`. The worst is taken over the `a` in `[0, L)` where the
//! deadline of some job coincides: `a = k T_j + D'_j - D'_i >= 0`, and `a = k T_i`. The
//! bound from the nominal arrival adds `J_i`.

use super::workload::Workload;

fn ceil_div(a: i128, b: i128) -> i128 {
    -((-a).div_euclid(b))
}

/// The candidate release offsets of task `i` below `l` (capped at `max` offsets).
pub fn offsets(w: &Workload, i: usize, l: i64, max: usize) -> Vec<i64> {
    let me = &w.tasks[i];
    let di = me.d - me.j;
    let mut a = Vec::new();
    for (k, x) in w.tasks.iter().enumerate() {
        let step = x.t.max(1);
        let mut v = if k == i { 0 } else { x.d - x.j - di };
        if v < 0 {
            // The first coincidence at or after 0.
            let skip = (-v as i128 + step as i128 - 1) / step as i128;
            v = (v as i128 + skip * step as i128) as i64;
        }
        while v < l && a.len() < max {
            a.push(v);
            v = v.saturating_add(step);
        }
    }
    a.sort_unstable();
    a.dedup();
    a
}

/// The busy period of task `i`'s job released at `a`, or `None` past `horizon`.
fn busy(w: &Workload, i: usize, a: i64, horizon: i64) -> Option<i64> {
    let me = &w.tasks[i];
    let di = (me.d - me.j) as i128;
    let a = a as i128;
    let own = (1 + a.div_euclid(me.t.max(1) as i128)) * me.c as i128;
    let mut l: i128 = own + w.blocking as i128;
    for _ in 0..1_000_000u32 {
        let mut next = w.blocking as i128 + own;
        for (k, x) in w.tasks.iter().enumerate() {
            if k == i {
                continue;
            }
            let dj = (x.d - x.j) as i128;
            if dj > a + di {
                continue;
            }
            let t = x.t.max(1) as i128;
            let by_window = ceil_div(l + x.j as i128, t).max(0);
            let by_deadline = 1 + (a + di - dj).div_euclid(t);
            next += by_window.min(by_deadline) * x.c as i128;
        }
        for p in &w.preempting {
            next += ceil_div(l + p.j as i128, p.t.max(1) as i128).max(0) * p.c as i128;
        }
        if next == l {
            return i64::try_from(l).ok();
        }
        if next > horizon as i128 {
            return None;
        }
        l = next;
    }
    None
}

/// Task `i`'s bound from its nominal arrival (`J_i` plus the worst response from the
/// release), and the offset it was found at; `None` past `horizon`.
pub fn response_bound(w: &Workload, i: usize, l: i64, horizon: i64) -> Option<(i64, i64)> {
    let me = &w.tasks[i];
    let mut worst: Option<(i64, i64)> = None;
    for a in offsets(w, i, l, 1_000_000) {
        let b = busy(w, i, a, horizon)?;
        let r = me.c.max(b - a);
        if worst.is_none_or(|(wr, _)| r > wr) {
            worst = Some((r, a));
        }
    }
    worst.map(|(r, a)| (r.saturating_add(me.j), a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edf::demand::busy_period;
    use crate::edf::workload::Job;
    use rand::{Rng, SeedableRng};

    fn job(c: i64, t: i64, d: i64) -> Job {
        Job {
            name: format!("c{c}t{t}"),
            c,
            t,
            d,
            j: 0,
        }
    }

    /// A job-by-job EDF schedule of integer tasks released at given offsets, one time
    /// unit at a time (ties by earlier release, then task order). Returns each task's
    /// largest response. Independent of the analysis: it only runs the rule.
    fn simulate(tasks: &[Job], phase: &[i64], until: i64) -> Vec<i64> {
        let mut worst = vec![0i64; tasks.len()];
        // (deadline, release, task, remaining)
        let mut ready: Vec<(i64, i64, usize, i64)> = Vec::new();
        for now in 0..until {
            for (k, x) in tasks.iter().enumerate() {
                if now >= phase[k] && (now - phase[k]) % x.t == 0 {
                    ready.push((now + x.d, now, k, x.c));
                }
            }
            ready.sort_unstable();
            if let Some(first) = ready.first_mut() {
                first.3 -= 1;
                if first.3 == 0 {
                    let (_, rel, k, _) = ready.remove(0);
                    worst[k] = worst[k].max(now + 1 - rel);
                }
            }
        }
        worst
    }

    /// On random feasible sets of 2 or 3 small integer tasks, every phasing simulated
    /// over two hyperperiods stays within the bound, and the synchronous phasing (the
    /// worst for some task in most sets) reaches it for at least one task often.
    #[test]
    fn simulated_responses_never_exceed_the_bound() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1996);
        let (mut sets, mut reached) = (0, 0);
        while sets < 300 {
            let n = rng.gen_range(2..=3);
            let tasks: Vec<Job> = (0..n)
                .map(|_| {
                    let t = rng.gen_range(3..=9i64);
                    let c = rng.gen_range(1..=t / 2);
                    job(c, t, rng.gen_range(c..=t))
                })
                .collect();
            let w = Workload {
                tasks: tasks.clone(),
                ..Default::default()
            };
            let Ok(l) = busy_period(&w, 10_000) else {
                continue;
            };
            if crate::edf::demand::plain_check(&w, l, usize::MAX)
                .0
                .is_some()
            {
                continue;
            }
            sets += 1;
            let bounds: Vec<i64> = (0..n)
                .map(|i| response_bound(&w, i, l, 10_000).unwrap().0)
                .collect();
            let hyper = latscope_core::arith::lcm_all(tasks.iter().map(|x| x.t as u64)).unwrap();
            let mut seen = vec![0i64; n];
            let mut phase = vec![0i64; n];
            loop {
                let r = simulate(&tasks, &phase, 2 * hyper + 10);
                for k in 0..n {
                    seen[k] = seen[k].max(r[k]);
                    assert!(
                        r[k] <= bounds[k],
                        "{tasks:?} phase {phase:?}: {r:?} > {bounds:?}"
                    );
                }
                // Next phasing (the first task stays at 0).
                let mut k = 1;
                while k < n {
                    phase[k] += 1;
                    if phase[k] < tasks[k].t {
                        break;
                    }
                    phase[k] = 0;
                    k += 1;
                }
                if k == n {
                    break;
                }
            }
            if (0..n).any(|k| seen[k] == bounds[k]) {
                reached += 1;
            }
            for k in 0..n {
                assert!(
                    bounds[k] <= tasks[k].d,
                    "a feasible set's bound past D: {tasks:?}"
                );
            }
        }
        assert!(reached > 150, "bound reached in only {reached} of 300 sets");
    }
}
