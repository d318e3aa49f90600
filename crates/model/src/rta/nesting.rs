//! Bounds for tasks exposed to nested inheritance mutexes.

use super::analyze::analyze_mode_bounds;
use super::demand::Demand;
use super::prep::prepare;
use super::{AnalysisOptions, InterferenceDetail, TaskResult};
use crate::system::{System, TickMode};
use latscope_core::Picos;

/// The tasks below `i` but at or above `f` run while `i` waits on the chain: the bound
/// charges their whole jobs like interference, and they are lower-priority tasks running
/// while `i` is pending, so their shares move to `i`'s blocking (`blocking_from` names
/// them with [`crate::resource::nested::PREEMPTS_CHAIN`]). The breakdown still adds up.
pub(super) fn middle_as_blocking(sys: &System, i: usize, f: u32, r: &mut TaskResult) {
    let Some(p) = sys.tasks.get(i).map(|t| t.priority) else {
        return;
    };
    let middle = |k: usize| {
        k != i
            && sys
                .tasks
                .get(k)
                .is_some_and(|t| t.priority >= f && t.priority < p)
    };
    for s in r.breakdown.interference.take_where(middle) {
        let name = sys
            .tasks
            .get(s.task as usize)
            .map_or("?", |t| t.name.as_str());
        r.blocking_ns += s.ns;
        r.breakdown.blocking_ns += s.ns;
        r.blocking_from
            .push(crate::resource::blocking::BlockingPart {
                task: name.to_string(),
                resource: crate::resource::nested::PREEMPTS_CHAIN.to_string(),
                duration: Picos((s.ns * 1000.0).round() as i64),
                duration_ns: s.ns,
            });
    }
}

/// The bound of task `i` exposed to nested inheritance mutexes: its analysis with its
/// priority moved down to the floor of the chain's holders
/// ([`crate::resource::nested`]); its own priority is kept in the result. Without a
/// floor (never for an exposed task) it stays unbounded.
pub(super) fn nested_bound(
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
    i: usize,
    classic: &TaskResult,
) -> TaskResult {
    use crate::resource::{blocking, nested};
    let unbounded = || {
        let mut r = classic.clone();
        r.wcrt_ns = None;
        r.wcrt_ps = None;
        r.slack_ns = None;
        r.schedulable = false;
        r.unbounded_reason = Some(blocking::NESTED_INHERITANCE.into());
        r
    };
    let Some(f) = nested::analysis_priority(sys, i) else {
        return unbounded();
    };
    let low = nested::lowered(sys, i, f);
    // Every share, so that the middle tasks' ones can move to the blocking; limited after.
    let full = AnalysisOptions {
        interference: InterferenceDetail::Full,
        ..opts.clone()
    };
    let lp = prepare(&low, &full);
    let mut dem = Demand::with_capacity(low.tasks.len() + low.interrupts.len() + 2);
    let res = analyze_mode_bounds(&low, &full, &lp, mode, &mut dem, None, &mut Vec::new());
    let found = lp.order.iter().zip(res).find(|(&k, _)| k == i);
    match found {
        Some((_, mut r)) => {
            r.priority = classic.priority;
            middle_as_blocking(sys, i, f, &mut r);
            let b = &mut r.breakdown;
            b.interference.limit(opts.interference);
            b.interference_others_ns += b.interference.others_ns();
            r
        }
        None => unbounded(),
    }
}

/// Per task: why nested inheritance mutexes leave it without a sound bound, if they do
/// (docs/resources.md, "Nested inheritance mutexes").
pub(super) fn unbounded_by_nesting(sys: &System) -> Vec<Option<&'static str>> {
    use crate::resource::{blocking as b, Protocol};
    let r = &sys.resources;
    let deadlock = b::inheritance_deadlock_possible(sys);
    b::nested_inheritance_exposed(sys)
        .into_iter()
        .enumerate()
        .map(|(i, exposed)| {
            let takes = r
                .of_task(i)
                .iter()
                .any(|s| r.protocol(s) == Protocol::Inheritance);
            if deadlock && takes {
                Some(b::INHERITANCE_DEADLOCK)
            } else if exposed {
                Some(b::NESTED_INHERITANCE)
            } else {
                None
            }
        })
        .collect()
}
