//! Chains on a partitioned multicore (docs/analysis.md, "Chains across cores").
//!
//! An event link whose two tasks sit on one core is analysed inside that core's view
//! exactly as on one core (holistic jitter, [`super::analysis`]). An event link from a
//! task `a` on one core to a task `b` on another is carried by the inter-core interrupt:
//! when a job of `a` completes, its core raises an interrupt on `b`'s core, whose
//! handler (`L + kernel.costs.ipi`) releases `b`. The bound charges, on `b`'s core:
//!
//! - the inter-core interrupt as a handler of that core (entry `L` plus `ipi`) in front
//!   of `b` (its release path) and as interference on every task of the core, with a
//!   minimum inter-arrival time of `a`'s period shortened by how much `a`'s completions
//!   vary (`R_a - BCET_a`: every completion lies between `BCET_a` and `R_a` after the
//!   nominal release of the segment's first step, whose releases are at least `T_a`
//!   apart), and as blocking of the core's other handlers (it is the lowest interrupt
//!   priority);
//! - `a`'s worst response `R_a` (from the segment's first release) as `b`'s release
//!   jitter, so `b`'s worst response counts from that first release (Tindell & Clark's
//!   holistic analysis with the inter-core interrupt as the message's transmission).
//!
//! `R_a` depends on the other cores (their inter-core interrupts interfere on `a`'s
//! core), so the cores are analysed again until no `R_a` changes; each round can only
//! raise the responses, so the fixed point is the least one above the start and every
//! round's figures are below it. A sampled link across cores needs no interrupt: the
//! reader reads shared memory on its own period, so its bound is as on one core.
//!
//! When an event link across cores starts or ends at a task of an EDF core, the
//! predecessor's response is its EDF bound instead: [`super::edf_cores`] runs that fixed
//! point and this file only adds the chains' bounds ([`with_chains`]).

use super::analysis::{chain_bound, irq_response, mark_unbounded, wcrt_ps};
use crate::range::AnalysisError;
use crate::rta::cores::{analyze_cores_with, settled_view, TaskIpis};
use crate::rta::{AnalysisOptions, AnalysisResult};
use crate::system::cores::CoreIrq;
use crate::system::System;
use latscope_core::Picos;

/// Rounds of the cross-core fixed point before giving up.
const MAX_ROUNDS: usize = 256;

/// The partitioned analysis with the chains: the cross-core fixed point over the event
/// links between cores, then each chain's bound from the final responses.
pub(crate) fn analyze_cores_with_chains(
    sys: &System,
    opts: &AnalysisOptions,
) -> Result<AnalysisResult, AnalysisError> {
    if super::edf_cores::is_mixed(sys) {
        return Ok(super::edf_cores::analyze_mixed(sys, opts)?.fp);
    }
    let links = sys.cross_core_links();
    let n = sys.tasks.len();
    let mut tl = TaskIpis {
        jitter: vec![Picos::ZERO; n],
        delay: vec![Picos::ZERO; n],
    };
    // Per successor: the predecessor across cores whose response has no bound.
    let mut cut: Vec<Option<usize>> = vec![None; n];
    let mut res = analyze_cores_with(sys, opts, &tl)?;
    let mut converged = links.is_empty();
    for _ in 0..MAX_ROUNDS {
        if converged {
            break;
        }
        let mut changed = false;
        for &(b, a) in &links {
            if cut[b].is_some() {
                continue;
            }
            match wcrt_ps(&res, &sys.tasks[a].name) {
                Some(r) if Picos(r) != tl.delay[a] => {
                    tl.delay[a] = Picos(r);
                    tl.jitter[a] = Picos(r.saturating_sub(sys.tasks[a].bcet.0).max(0));
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
            converged = true;
            break;
        }
        res = analyze_cores_with(sys, opts, &tl)?;
    }
    // A task downstream of a cut (or of an unsettled cross-core link) has no bound.
    let mut why: Vec<Option<String>> = vec![None; n];
    for (x0, slot) in why.iter_mut().enumerate() {
        let mut x = x0;
        let mut hops = 0;
        while let Some(a) = sys.activator(x) {
            let cross = sys.tasks[a].core != sys.tasks[x].core;
            if let Some(p) = cut[x] {
                *slot = Some(format!(
                    "released across cores by task \"{}\", whose response is unbounded",
                    sys.tasks[p].name
                ));
                break;
            }
            if cross && !converged {
                *slot = Some(format!(
                    "the cross-core release jitter did not settle in {MAX_ROUNDS} rounds"
                ));
                break;
            }
            x = a;
            hops += 1;
            if hops > n {
                break;
            }
        }
    }
    for list in [
        &mut res.tasks,
        &mut res.tick_modes.pessimistic,
        &mut res.tick_modes.partitioned,
    ] {
        for t in list.iter_mut() {
            if let Some(w) = sys.task_index(&t.name).and_then(|i| why[i].as_ref()) {
                mark_unbounded(t, w);
            }
        }
    }
    Ok(with_chains(sys, opts, res, &tl))
}

/// `res` (the partitioned analysis with the task-sent inter-core interrupts `tl`
/// settled, unbounded tasks marked) with its verdicts recomputed, a note per event
/// link across cores and each chain's bound.
pub(super) fn with_chains(
    sys: &System,
    opts: &AnalysisOptions,
    mut res: AnalysisResult,
    tl: &TaskIpis,
) -> AnalysisResult {
    let links = sys.cross_core_links();
    res.schedulable = res.tasks.iter().all(|t| t.schedulable);
    for c in &mut res.cores {
        c.schedulable = res
            .tasks
            .iter()
            .filter(|t| c.tasks.iter().any(|n| **n == *t.name))
            .all(|t| t.schedulable);
    }
    for &(b, a) in &links {
        res.notes.push(
            format!(
                "task \"{}\" (core {}) is released by task \"{}\"'s completion on core {}: \
                 the inter-core interrupt (L + ipi) runs on core {} before it, and its \
                 release jitter includes \"{}\"'s worst response (holistic analysis, \
                 Tindell & Clark 1994)",
                sys.tasks[b].name,
                sys.tasks[b].core,
                sys.tasks[a].name,
                sys.tasks[a].core,
                sys.tasks[b].core,
                sys.tasks[a].name
            )
            .into(),
        );
    }
    // Each interrupt's handler response on its own core, in the settled view.
    let views: Vec<_> = (0..sys.platform.cores)
        .map(|c| settled_view(sys, opts, tl, c))
        .collect();
    let irq = |q: usize| -> Option<i64> {
        let v = views.get(sys.interrupts.get(q)?.core as usize)?;
        let k = v.interrupts.iter().position(|o| *o == CoreIrq::Own(q))?;
        irq_response(&v.sys, opts, k)
    };
    res.chains = sys
        .chains
        .iter()
        .map(|c| chain_bound(sys, &res, c, &irq))
        .collect();
    res
}
