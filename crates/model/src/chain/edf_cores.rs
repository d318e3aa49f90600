//! Event links across cores when a core schedules by deadline (docs/analysis.md, "Event
//! links across cores with EDF cores").
//!
//! This puts two analyses that already stand on their own together:
//!
//! - an event link from task `a` on one core to task `b` on another is carried by the
//!   inter-core interrupt `ipi<a` on `b`'s core ([`crate::system::System::core_view_with`]):
//!   a handler of `L + kernel.costs.ipi` at the lowest interrupt priority that releases
//!   `b`, with `a`'s period shortened by how much `a`'s completions vary
//!   (`R_a - BCET_a`) as its minimum inter-arrival time, and `R_a` added to `b`'s
//!   release jitter, exactly as between two fixed-priority cores ([`super::cores`]);
//! - on an EDF core that inter-core interrupt is one more handler of the core: the EDF
//!   analysis charges every handler as work that preempts any job whatever its deadline
//!   ([`crate::edf::workload`]), and `b`'s release jitter (its file jitter, `R_a`, the
//!   handler's path `L + ipi` and the kernel's masking) enters Spuri's bound as
//!   `D'_b = D_b - J_b` ([`crate::edf::spuri`]). The simulator gives `b`'s job the
//!   arrival of the job of `a` that released it, so `b`'s absolute deadline counts from
//!   the nominal arrival of its chain segment's first step, which is what `D'` assumes.
//!
//! `R_a` is `a`'s bound on its own core: the fixed-priority response there, or Spuri's
//! bound on an EDF core, both counted from the nominal arrival of the segment's first
//! step. Those bounds depend on the other cores through the inter-core interrupts and the
//! relayed jitter, so all cores are analysed again until no `R_a` changes. Each round
//! only raises a link's `R_a` (the larger of the previous figure and the new one), so
//! when no link changes, every predecessor's bound computed with the charged jitters is
//! within the jitter charged for it: the assumption every core's analysis starts from
//! holds for the figures it produces (the holistic argument of Tindell & Clark 1994).
//! Without that state within [`MAX_ROUNDS`] rounds, or when a predecessor has no bound,
//! the inter-core interrupt it sends has no minimum inter-arrival time, so no task on
//! the receiving core (nor downstream of one) gets a bound: "unbounded", never a loop.

use super::analysis::{mark_unbounded, wcrt_ps};
use super::cores::with_chains;
use crate::edf::EdfCore;
use crate::range::AnalysisError;
use crate::rta::cores::{analyze_cores_with, settled_views, TaskIpis};
use crate::rta::{AnalysisOptions, AnalysisResult};
use crate::system::cores::CoreView;
use crate::system::{Scheduler, System};
use latscope_core::Picos;

/// Rounds of the cross-core fixed point before giving up.
pub const MAX_ROUNDS: usize = 256;

/// The settled analysis of a system with event links across cores into or out of an
/// EDF core.
pub struct Mixed {
    /// The partitioned fixed-priority analysis with the settled inter-core interrupts
    /// and the chains' bounds (tasks of EDF cores: the fixed-priority figures, for
    /// comparison), as `analyze` returns it.
    pub fp: AnalysisResult,
    /// Every EDF core's analysis with the same inter-core interrupts.
    pub edf: Vec<EdfCore>,
    /// Every core's view with the settled inter-core interrupts, in core order.
    pub views: Vec<CoreView>,
    /// Rounds until no predecessor's bound changed (`None`: not settled).
    pub rounds: Option<usize>,
}

fn on_edf(sys: &System, i: usize) -> bool {
    sys.tasks
        .get(i)
        .is_some_and(|t| sys.kernel.scheduler_of(t.core) == Scheduler::Edf)
}

/// Whether `sys` has an event link across cores with a task of an EDF core at either
/// end (the systems this file analyses; every other system keeps its analysis).
pub fn is_mixed(sys: &System) -> bool {
    sys.platform.cores > 1
        && sys
            .cross_core_links()
            .iter()
            .any(|&(b, a)| on_edf(sys, a) || on_edf(sys, b))
}

/// Task `i`'s bound on its own core, from the nominal arrival of its chain segment's
/// first step, in picoseconds: Spuri's on an EDF core, the fixed-priority response
/// otherwise.
fn bound_ps(sys: &System, fp: &AnalysisResult, edf: &[EdfCore], i: usize) -> Option<i64> {
    let name = &sys.tasks.get(i)?.name;
    if on_edf(sys, i) {
        edf.iter()
            .flat_map(|c| &c.result.tasks)
            .find(|t| &t.name == name)?
            .bound_ns
            .map(|b| (b * 1000.0).round() as i64)
    } else {
        wcrt_ps(fp, name)
    }
}

/// One round: every core analysed with the inter-core interrupts `tl`.
fn round(
    sys: &System,
    opts: &AnalysisOptions,
    tl: &TaskIpis,
) -> Result<(AnalysisResult, Vec<EdfCore>, Vec<CoreView>), AnalysisError> {
    let fp = analyze_cores_with(sys, opts, tl)?;
    let (views, unbounded) = settled_views(sys, opts, tl);
    let edf = crate::edf::cores::analyze_views(sys, opts, views.clone(), &unbounded)?;
    Ok((fp, edf, views))
}

/// The cross-core fixed point over the event links of `sys` with each predecessor's
/// bound from its own core's scheduler, then the chains' bounds.
pub fn analyze_mixed(sys: &System, opts: &AnalysisOptions) -> Result<Mixed, AnalysisError> {
    let links = sys.cross_core_links();
    let n = sys.tasks.len();
    let mut tl = TaskIpis {
        jitter: vec![Picos::ZERO; n],
        delay: vec![Picos::ZERO; n],
    };
    // Per successor: the predecessor across cores whose bound is missing.
    let mut cut: Vec<Option<usize>> = vec![None; n];
    let (mut fp, mut edf, mut views) = round(sys, opts, &tl)?;
    let mut rounds = None;
    for r in 0..MAX_ROUNDS {
        let mut changed = false;
        for &(b, a) in &links {
            if cut[b].is_some() {
                continue;
            }
            match bound_ps(sys, &fp, &edf, a) {
                Some(ra) if Picos(ra) > tl.delay[a] => {
                    tl.delay[a] = Picos(ra);
                    tl.jitter[a] = Picos(ra.saturating_sub(sys.tasks[a].bcet.0).max(0));
                    changed = true;
                }
                Some(_) => {}
                None => {
                    cut[b] = Some(a);
                    changed = true;
                }
            }
        }
        if !changed {
            rounds = Some(r);
            break;
        }
        (fp, edf, views) = round(sys, opts, &tl)?;
    }
    // The cores that receive an inter-core interrupt without a minimum inter-arrival
    // time, and (transitively) the cores their tasks send to.
    let cores = sys.platform.cores as usize;
    let mut why: Vec<Option<String>> = vec![None; cores];
    for &(b, _) in &links {
        let c = sys.tasks[b].core as usize;
        let w = match cut[b] {
            Some(p) => format!(
                "core {c} takes the inter-core interrupt of task \"{}\" (core {}), whose \
                 response is unbounded",
                sys.tasks[p].name, sys.tasks[p].core
            ),
            None if rounds.is_none() => format!(
                "the cross-core release jitter into core {c} did not settle in \
                 {MAX_ROUNDS} rounds"
            ),
            None => continue,
        };
        if let Some(slot) = why.get_mut(c) {
            slot.get_or_insert(w);
        }
    }
    for _ in 0..cores {
        for &(b, a) in &links {
            let (ca, cb) = (sys.tasks[a].core as usize, sys.tasks[b].core as usize);
            if let (Some(w), true) = (why.get(ca).cloned().flatten(), cb < cores) {
                why[cb].get_or_insert(w);
            }
        }
    }
    for (c, w) in why.iter().enumerate() {
        let Some(w) = w else { continue };
        let on_c = |name: &str| {
            sys.task_index(name)
                .is_some_and(|i| sys.tasks[i].core as usize == c)
        };
        for list in [
            &mut fp.tasks,
            &mut fp.tick_modes.pessimistic,
            &mut fp.tick_modes.partitioned,
        ] {
            for t in list.iter_mut().filter(|t| on_c(&t.name)) {
                mark_unbounded(t, w);
            }
        }
        for e in edf.iter_mut().filter(|e| e.core as usize == c) {
            for t in &mut e.result.tasks {
                t.bound_ns = None;
                t.schedulable = false;
            }
            e.result.schedulable = false;
            e.result.reason.get_or_insert_with(|| w.clone());
        }
    }
    let mut fp = with_chains(sys, opts, fp, &tl);
    fp.notes.push(
        "event links across cores with an EDF core: a predecessor's release jitter on the \
         successor's core is its bound on its own core (Spuri on an EDF core, the \
         fixed-priority response otherwise); on an EDF core the inter-core interrupt is \
         charged as a handler that preempts any job"
            .into(),
    );
    Ok(Mixed {
        fp,
        edf,
        views,
        rounds,
    })
}
