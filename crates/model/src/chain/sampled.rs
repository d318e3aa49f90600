//! Sampled links whose reader reads when it starts (`read = "start"`): the tighter
//! reaction-time and data-age terms of M. Dürr, G. von der Brüggen, K.-H. Chen and
//! J.-J. Chen, "End-to-end timing analysis of sporadic cause-effect chains in
//! distributed systems", ACM TECS 18(5s) (EMSOFT 2019), Theorems 5.4 and 5.10.
//!
//! Their chains use implicit communication: a job copies its input when it starts and
//! publishes its output when it completes. When the writer `w` of a link outranks its
//! reader `r` on one fixed-priority core, a job of `r` released while a job of `w` is
//! pending cannot start before that job completes, so it already reads its value.
//! Per such link the reaction time's `R_w + T_r` (Davare et al.: the writer's response,
//! then waiting for the reader's next release) becomes `max(R_w, T_r)`, and the data
//! age's `T_w + R_w` becomes `T_w` (the reader cannot start between the writer's next
//! release and that job's completion). Every other link keeps Davare's terms, so the
//! result is never above Davare's.
//!
//! Where the argument holds here, and so where the terms are used (else Davare's):
//! the chain says `read = "start"`; writer and reader are tasks on one core scheduled by
//! fixed priority (not EDF, not the list-scan kernel, whose run queue lets a released
//! thread run before a higher one released later); the writer's priority is strictly
//! higher; the writer is alone in its segment (not released by an event link or an
//! interrupt: `R_w` counts from its own periodic release) and has no release jitter;
//! both are periodic. A reader that reads at its release does not get these terms:
//! `crates/sim/tests/it/chains_sampled_reads.rs` works a case above them. Definitions:
//! docs/analysis.md, "Sampled links read at start".

use super::{Chain, Link, ReadAt, Step};
use crate::system::{Arrival, ModelKind, Scheduler, System};

/// Whether sampled link `k` of `c` takes Dürr et al.'s terms (see the module text).
pub fn tightens(sys: &System, c: &Chain, k: usize) -> bool {
    if c.read != ReadAt::Start || c.links.get(k) != Some(&Link::Sampled) {
        return false;
    }
    // The writer heads its own segment: the chain's first step or a sampled reader.
    if k > 0 && c.links.get(k - 1) != Some(&Link::Sampled) {
        return false;
    }
    let (Some(Step::Task(w)), Some(Step::Task(r))) = (c.steps.get(k), c.steps.get(k + 1)) else {
        return false;
    };
    let (Some(tw), Some(tr)) = (sys.tasks.get(*w), sys.tasks.get(*r)) else {
        return false;
    };
    let periodic = |a: &Arrival| matches!(a, Arrival::Periodic(_));
    tw.released_by.is_none()
        && sys.activator(*w).is_none()
        && tw.jitter.0 == 0
        && periodic(&tw.arrival)
        && periodic(&tr.arrival)
        && tw.core == tr.core
        && sys.kernel.scheduler_of(tw.core) == Scheduler::Fp
        && sys.kernel.model() != ModelKind::Listscan
        && tw.priority > tr.priority
}

/// How much Dürr et al.'s terms take off Davare's for one link whose writer responds
/// within `r_w` and whose reader has period `t_r`: `(reaction, age)`.
/// Reaction: `R_w + T_r - max(R_w, T_r) = min(R_w, T_r)`; age: `R_w`.
pub fn cut(r_w: i64, t_r: i64) -> (i64, i64) {
    (r_w.min(t_r).max(0), r_w.max(0))
}
