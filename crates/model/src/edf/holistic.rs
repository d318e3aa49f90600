//! Event links between tasks under EDF: the holistic analysis of Tindell & Clark
//! ("Holistic schedulability analysis for distributed hard real-time systems",
//! Microprocessing and Microprogramming 40, 1994) with Spuri's bounds in place of the
//! fixed-priority responses.
//!
//! A task `b` released by task `a`'s completion inherits `a`'s arrival (the simulator
//! gives `b`'s job the arrival of the job that released it, so its absolute deadline is
//! that arrival plus `D_b`), and is released at most `R_a` after it: `R_a`, `a`'s Spuri
//! bound from its own nominal arrival, is `b`'s release jitter on top of the jitter its
//! file gives. Spuri's analysis takes release jitter (`D' = D - J`,
//! [`super::spuri`]), so `b`'s bound is again from the arrival of the first step of its
//! chain segment. A larger jitter can only raise the bounds, so the jitters start at the
//! files' and rise to the least fixed point; a predecessor without a bound leaves its
//! successors (transitively) without one, as does a fixed point not reached in
//! [`MAX_ROUNDS`].

use super::demand::{busy_period, first_deadline, Overload};
use super::spuri::response_bound;
use super::workload::Workload;
use crate::system::System;

/// The most rounds of the fixed point before giving up.
pub const MAX_ROUNDS: usize = 1000;

/// The settled workload and its bounds.
pub struct Settled {
    /// The busy period and the first deadline of the settled workload.
    pub window: Result<(i64, i64), Overload>,
    /// Spuri's bound per task (in `sys.tasks` order) from its segment's first arrival.
    pub bounds: Vec<Option<i64>>,
}

/// The busy period and each task's bound of `w`.
fn bounds_of(w: &Workload, horizon: i64) -> Settled {
    let window = busy_period(w, horizon).and_then(|l| first_deadline(w).map(|d| (l, d)));
    let bounds = match &window {
        Ok((l, _)) => (0..w.tasks.len())
            .map(|i| response_bound(w, i, *l, horizon).map(|b| b.0))
            .collect(),
        Err(_) => vec![None; w.tasks.len()],
    };
    Settled { window, bounds }
}

/// Sets the release jitter of every task released by another task's completion in `w`
/// (whose tasks are `sys.tasks`, in order) to its file jitter plus its predecessor's
/// bound, to the least fixed point, and returns the bounds. Without such links this is
/// the plain Spuri analysis of `w`.
pub fn settle(sys: &System, w: &mut Workload, horizon: i64) -> Settled {
    let links: Vec<(usize, usize)> = sys
        .event_links()
        .into_iter()
        .filter(|&(b, a)| b < w.tasks.len() && a < w.tasks.len())
        .collect();
    if links.is_empty() {
        return bounds_of(w, horizon);
    }
    for &(b, _) in &links {
        w.tasks[b].j = sys.tasks[b].jitter.0;
    }
    let mut cut = vec![false; w.tasks.len()];
    let mut converged = false;
    let mut s = bounds_of(w, horizon);
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for &(b, a) in &links {
            if cut[b] {
                continue;
            }
            match s.bounds[a].and_then(|r| sys.tasks[b].jitter.0.checked_add(r)) {
                Some(j) if j != w.tasks[b].j => {
                    w.tasks[b].j = j;
                    changed = true;
                }
                Some(_) => {}
                None => {
                    cut[b] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            converged = true;
            break;
        }
        s = bounds_of(w, horizon);
    }
    // A successor of a task without a bound has none either (its jitter is unknown);
    // without a fixed point, no successor has one.
    for _ in 0..links.len() {
        for &(b, a) in &links {
            if !converged || cut[b] || s.bounds[a].is_none() {
                s.bounds[b] = None;
            }
        }
    }
    s
}
