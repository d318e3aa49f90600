//! Chains through tasks on EDF cores (docs/analysis.md, "Chains on EDF cores").
//!
//! The chain bounds add up per-step responses from the release of each segment's first
//! step ([`super::analysis`]); on an EDF core those responses are Spuri's bounds
//! ([`crate::edf::spuri`]), with the release jitter an event link's predecessor induces
//! settled by [`crate::edf::holistic`]. This file puts those bounds in place of the
//! fixed-priority responses for the tasks of EDF cores and recomputes the bound of every
//! chain that passes through one; the other chains keep the fixed-priority result.
//!
//! With event links across cores into or out of an EDF core, the EDF bounds and the
//! core views come from the cross-core fixed point of [`super::edf_cores`], which
//! charges the inter-core interrupt on the receiving core.

use super::analysis::{chain_bound, irq_response, mark_unbounded, ChainResult};
use super::Step;
use crate::edf::EdfTask;
use crate::rta::{AnalysisOptions, AnalysisResult};
use crate::system::cores::CoreIrq;
use crate::system::{Scheduler, System};

/// Whether task `i` runs on a core that schedules by deadline.
fn on_edf(sys: &System, i: usize) -> bool {
    sys.tasks
        .get(i)
        .is_some_and(|t| sys.kernel.scheduler_of(t.core) == Scheduler::Edf)
}

/// Whether any step of chain `k` is a task on an EDF core.
pub fn through_edf(sys: &System, k: usize) -> bool {
    sys.chains.get(k).is_some_and(|c| {
        c.steps
            .iter()
            .any(|s| matches!(*s, Step::Task(i) if on_edf(sys, i)))
    })
}

/// The chain results of `sys` with the EDF bounds `edf` (every EDF core's tasks, as
/// `analyze`'s `edf.tasks`) for the tasks of EDF cores: `res.chains` with each chain
/// through such a task recomputed.
pub fn chains_with_edf(
    sys: &System,
    opts: &AnalysisOptions,
    res: &AnalysisResult,
    edf: &[EdfTask],
) -> Vec<ChainResult> {
    let mut view = res.clone();
    for t in view.tasks.iter_mut() {
        let Some(i) = sys.task_index(&t.name) else {
            continue;
        };
        if !on_edf(sys, i) {
            continue;
        }
        match edf
            .iter()
            .find(|e| *e.name == *t.name)
            .and_then(|e| e.bound_ns)
        {
            Some(b) => {
                t.wcrt_ps = Some((b * 1000.0).round() as i64);
                t.wcrt_ns = Some(b);
                t.unbounded_reason = None;
            }
            None => mark_unbounded(
                t,
                &format!(
                    "no EDF bound (Spuri) on core {}: the core is not shown schedulable or \
                     the busy period has no end within the horizon",
                    sys.tasks[i].core
                ),
            ),
        }
    }
    // Each interrupt's handler response on its own core (with the task-sent inter-core
    // interrupts settled when event links cross into or out of an EDF core).
    let views = if super::edf_cores::is_mixed(sys) {
        super::edf_cores::analyze_mixed(sys, opts).map_or_else(|_| Vec::new(), |m| m.views)
    } else if sys.platform.cores > 1 {
        crate::rta::cores::core_views(sys, opts).0
    } else {
        Vec::new()
    };
    let irq = |q: usize| -> Option<i64> {
        if sys.platform.cores <= 1 {
            return irq_response(sys, opts, q);
        }
        let v = views.get(sys.interrupts.get(q)?.core as usize)?;
        let k = v.interrupts.iter().position(|o| *o == CoreIrq::Own(q))?;
        irq_response(&v.sys, opts, k)
    };
    sys.chains
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let old = res.chains.iter().find(|r| r.name == c.name);
            match old {
                Some(o) if !through_edf(sys, k) => o.clone(),
                _ => chain_bound(sys, &view, c, &irq),
            }
        })
        .collect()
}
