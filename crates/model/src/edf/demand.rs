//! The processor-demand criterion (Baruah, Rosier & Howell 1990) with preempting work.
//!
//! `dbf_i(t) = max(0, floor((t + J_i - D_i) / T_i) + 1) C_i`: the work of task `i`'s jobs
//! that arrive and must finish in a window of length `t` (release jitter `J_i` moves a
//! release later, not its deadline). Ticks and interrupt handlers preempt any job:
//! `I(t) = sum_k ceil((t + J_k) / T_k) C_k`, their arrivals in the window. With the
//! blocking `B`, `h(t) = B + sum_i dbf_i(t) + I(t)`, and the set is schedulable when
//! `h(t) <= t` at every absolute deadline `t` in the first busy period (a miss at a
//! deadline `d` means the work due by `d` plus the work that preempted it exceeds the
//! window; between deadlines `dbf` does not grow). All in integer picoseconds, products
//! in 128 bits.

use super::workload::Workload;

/// `floor(a / b)` for `b > 0`.
fn floor_div(a: i128, b: i128) -> i128 {
    a.div_euclid(b)
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: i128, b: i128) -> i128 {
    -((-a).div_euclid(b))
}

/// `h(t)`, the demand in a window of length `t`.
pub fn h(w: &Workload, t: i64) -> i128 {
    let t = t as i128;
    let mut sum = w.blocking as i128;
    for x in &w.tasks {
        let n = floor_div(t + x.j as i128 - x.d as i128, x.t.max(1) as i128) + 1;
        sum += n.max(0) * x.c as i128;
    }
    sum + preempting(w, t)
}

/// `I(t)`, the preempting work arriving in a window of length `t`.
fn preempting(w: &Workload, t: i128) -> i128 {
    w.preempting
        .iter()
        .map(|p| ceil_div(t + p.j as i128, p.t.max(1) as i128).max(0) * p.c as i128)
        .sum()
}

/// Work arriving in a window of length `t` (every task's releases, jitter included).
pub fn arrivals(w: &Workload, t: i128) -> i128 {
    let jobs: i128 = w
        .tasks
        .iter()
        .map(|x| ceil_div(t + x.j as i128, x.t.max(1) as i128).max(0) * x.c as i128)
        .sum();
    w.blocking as i128 + jobs + preempting(w, t)
}

/// Why no busy period could be found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overload {
    /// Utilisation above 1 (or exactly 1: not shown to be bounded).
    Utilisation,
    /// A deadline no longer than the release jitter: that task cannot be on time.
    JitterPastDeadline(String),
    /// The busy period passed the horizon or the iteration budget.
    Horizon,
}

/// The longest synchronous busy period: the least `L > 0` with `arrivals(L) = L`.
/// Every deadline miss shows at a deadline inside it.
pub fn busy_period(w: &Workload, horizon: i64) -> Result<i64, Overload> {
    if w.utilisation() >= 1.0 {
        return Err(Overload::Utilisation);
    }
    let mut l: i128 = w.blocking as i128
        + w.tasks.iter().map(|x| x.c as i128).sum::<i128>()
        + w.preempting.iter().map(|x| x.c as i128).sum::<i128>();
    for _ in 0..10_000_000u32 {
        let next = arrivals(w, l);
        if next == l {
            return i64::try_from(l).map_err(|_| Overload::Horizon);
        }
        if next > horizon as i128 {
            return Err(Overload::Horizon);
        }
        l = next;
    }
    Err(Overload::Horizon)
}

/// The smallest absolute deadline `D_i - J_i` (from the start of the window), or why a
/// task can never be on time.
pub fn first_deadline(w: &Workload) -> Result<i64, Overload> {
    let mut min = i64::MAX;
    for x in &w.tasks {
        let d = x.d - x.j;
        if d <= 0 {
            return Err(Overload::JitterPastDeadline(x.name.clone()));
        }
        min = min.min(d);
    }
    Ok(min)
}

/// The plain check: `h(d) <= d` at every absolute deadline `d < L`, in increasing order.
/// Returns the first deadline that fails, and how many were checked. Used as the
/// reference for QPA (and bounded by `max_points`).
pub fn plain_check(w: &Workload, l: i64, max_points: usize) -> (Option<i64>, usize) {
    let mut points = Vec::new();
    for x in &w.tasks {
        let mut d = (x.d - x.j) as i128;
        while d < l as i128 && points.len() < max_points {
            points.push(d as i64);
            d += x.t.max(1) as i128;
        }
    }
    points.sort_unstable();
    points.dedup();
    let n = points.len();
    (points.into_iter().find(|&d| h(w, d) > d as i128), n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edf::workload::Job;

    fn job(c: i64, t: i64, d: i64) -> Job {
        Job {
            name: format!("c{c}t{t}"),
            c,
            t,
            d,
            j: 0,
        }
    }

    #[test]
    fn dbf_counts_jobs_due_in_the_window() {
        let w = Workload {
            tasks: vec![job(2, 10, 5)],
            ..Default::default()
        };
        // Due by 4: none; by 5: one; by 14: one; by 15: two.
        assert_eq!([h(&w, 4), h(&w, 5), h(&w, 14), h(&w, 15)], [0, 2, 2, 4]);
    }

    #[test]
    fn busy_period_of_a_textbook_set() {
        // C = (1, 2, 3), T = (4, 6, 12): L = 1+2+3 = 6 -> 2+2+3 = 7 -> 2+4+3 = 9
        // -> 3+4+3 = 10 -> 3+4+3 = 10.
        let w = Workload {
            tasks: vec![job(1, 4, 4), job(2, 6, 6), job(3, 12, 12)],
            ..Default::default()
        };
        assert_eq!(busy_period(&w, 1_000), Ok(10));
    }
}
