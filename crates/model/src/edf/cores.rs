//! EDF on a partitioned multicore (`[[core]] scheduler = "edf"`, or `kernel.scheduler`
//! on every core): each EDF core is analysed as a one-core EDF system with its own
//! tasks, interrupts, tick and switch costs, through the same core views the
//! fixed-priority analysis of the other cores uses ([`crate::rta::cores::core_views`]).
//! A task released from another core is released by the inter-core interrupt on its own
//! core (a handler of `L + ipi` that preempts any job) and carries the releasing
//! handler's worst response on its core as release jitter, exactly as under fixed
//! priority.

use super::result::{analyze_edf, EdfResult};
use crate::range::AnalysisError;
use crate::rta::cores::core_views;
use crate::rta::AnalysisOptions;
use crate::system::{Scheduler, System};

/// One EDF core's result.
#[derive(Debug, Clone, PartialEq)]
pub struct EdfCore {
    pub core: u32,
    pub result: EdfResult,
}

/// The EDF analysis of every core of `sys` that schedules by deadline, in core order.
/// A task released across cores by a handler whose response has no bound gets no bound.
pub fn analyze_edf_cores(
    sys: &System,
    opts: &AnalysisOptions,
) -> Result<Vec<EdfCore>, AnalysisError> {
    if crate::chain::edf_cores::is_mixed(sys) {
        return Ok(crate::chain::edf_cores::analyze_mixed(sys, opts)?.edf);
    }
    let (views, unbounded) = core_views(sys, opts);
    analyze_views(sys, opts, views, &unbounded)
}

/// The EDF analysis of the EDF cores among `views` (each core's view of `sys`, in core
/// order); `unbounded[q]`: the system's interrupt `q` releases a task across cores and
/// its handler has no bounded response, so that task gets no bound.
pub(crate) fn analyze_views(
    sys: &System,
    opts: &AnalysisOptions,
    views: Vec<crate::system::cores::CoreView>,
    unbounded: &[bool],
) -> Result<Vec<EdfCore>, AnalysisError> {
    let mut out = Vec::new();
    for v in views {
        if sys.kernel.scheduler_of(v.core) != Scheduler::Edf || v.sys.tasks.is_empty() {
            continue;
        }
        let mut r = analyze_edf(&v.sys, opts)?;
        if v.tick_unbounded {
            for t in r.tasks.iter_mut() {
                t.bound_ns = None;
                t.schedulable = false;
            }
            r.schedulable = false;
            r.reason
                .get_or_insert_with(|| crate::rta::cores::tick_unbounded_reason(sys));
        }
        for (x, origin) in v.sys.interrupts.iter().zip(&v.interrupts) {
            let (Some(k), crate::system::cores::CoreIrq::Ipi(q)) = (x.releases, *origin) else {
                continue;
            };
            if !unbounded.get(q).copied().unwrap_or(false) {
                continue;
            }
            let name = &v.sys.tasks[k].name;
            for t in r.tasks.iter_mut().filter(|t| &t.name == name) {
                t.bound_ns = None;
                t.schedulable = false;
            }
            r.schedulable = false;
            r.reason.get_or_insert_with(|| {
                format!(
                    "task {name}: its releasing interrupt \"{}\" has no bounded response on core {}",
                    sys.interrupts[q].name, sys.interrupts[q].core
                )
            });
        }
        out.push(EdfCore {
            core: v.core,
            result: r,
        });
    }
    Ok(out)
}
