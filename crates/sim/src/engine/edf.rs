//! Earliest-deadline-first selection (`TickKernel::edf`): which ready job runs and when a
//! released job preempts the running one.
//!
//! The ready lists stay as they are (they hold who is ready); only the choice changes.
//! A scan over the tasks is enough: the simulator's sets are small, and the kernel's
//! cost of the choice is charged from the cost tables, not from this loop.

use super::*;

impl Sim {
    /// Task `i`'s order under EDF: its job's absolute deadline, then its arrival, then
    /// its index (deterministic ties). Idle and a task without a job come last.
    #[inline]
    fn edf_key(&self, i: usize) -> (i64, i64, usize) {
        if i >= self.n || !self.has_job[i] {
            return (i64::MAX, i64::MAX, i);
        }
        let a = self.job_arrival[i];
        (a.saturating_add(self.cfg.tasks[i].deadline.0), a, i)
    }

    /// Whether task `a`'s job would preempt task `b`'s: a higher priority under fixed
    /// priority, an earlier key ([`Sim::edf_key`]) under EDF.
    #[inline]
    pub(super) fn outranks(&self, a: usize, b: usize) -> bool {
        if self.edf {
            a < self.n && self.edf_key(a) < self.edf_key(b)
        } else {
            self.prio[a] > self.prio[b]
        }
    }

    /// The ready task with the earliest key, or idle when no task is ready.
    pub(super) fn edf_pick(&self) -> usize {
        let mut best = self.idle;
        for i in 0..self.n {
            if self.in_ready[i] && self.has_job[i] && self.edf_key(i) < self.edf_key(best) {
                best = i;
            }
        }
        best
    }
}
