//! Partitioned multicore analysis (docs/analysis.md, Multicore): every core is analysed
//! as a one-core system with its own tasks, interrupts, tick and switch costs
//! ([`System::core_view`]). A cross-core release reaches its task through the
//! inter-core interrupt on the task's core, which that core's analysis charges like any
//! handler; the releasing handler's worst response on its own core is added to the
//! task's release jitter, and its variation shortens the inter-core interrupt's minimum
//! inter-arrival time. Those responses depend on every core's interrupts (inter-core
//! interrupts interfere too), so they are found by a monotone fixed point over cores.

use super::prep::{prepare, switch_at};
use super::{AnalysisOptions, AnalysisResult, TaskResult, Totals};
use crate::overheads::tick::levels_scanned;
use crate::range::AnalysisError;
use crate::system::cores::CoreIrq;
use crate::system::System;
use latscope_core::Picos;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One core's share of `analyze --json` (present only when `platform.cores > 1`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct CoreResult {
    pub core: u32,
    /// The tasks pinned to the core, in descending priority order.
    pub tasks: Vec<String>,
    /// The interrupts the core takes: its own and the inter-core interrupts
    /// (`ipi<NAME>`) that relay a release from another core.
    pub interrupts: Vec<String>,
    /// Task utilisation (WCET / period) of the core.
    pub utilisation_tasks: f64,
    /// Tasks, interrupts and kernel overheads in the reported tick mode.
    pub utilisation: f64,
    /// Every task on the core meets its deadline.
    pub schedulable: bool,
}

/// Rounds of the cross-core fixed point before giving up (each round can only raise a
/// response; past the interrupts' own periods the responses are unbounded anyway).
const MAX_ROUNDS: usize = 256;

/// A handler's worst response on its core (`k`: index into the view's interrupts) from
/// its arrival to its end, and its shortest (`L`, the path and its WCET): its cost, one
/// blocking term (the longest kernel frame, critical section or lower-priority handler
/// that can hold it off), the wake-up and masking lateness every interrupt can see, and
/// the handlers of equal or higher priority. `None` when it exceeds its own minimum
/// inter-arrival time.
fn handler_response(sys: &System, opts: &AnalysisOptions, k: usize) -> Option<(Picos, Picos)> {
    let p = prepare(sys, opts);
    let e = |j: usize| p.l + p.irq_path + sys.interrupts[j].wcet;
    let me = &sys.interrupts[k];
    let mut block = p
        .tick_pessimistic
        .max(p.tick_base)
        .max(sys.critical_sections.longest())
        .max(p.masking);
    for t in &sys.tasks {
        block = block.max(switch_at(sys, opts, p.l, levels_scanned(t.priority, 0)));
    }
    for (j, x) in sys.interrupts.iter().enumerate() {
        if j != k && x.priority < me.priority {
            block = block.max(e(j));
        }
    }
    let base = block + p.irq_jitter + e(k);
    let mut r = base;
    loop {
        let mut next = base;
        for (j, x) in sys.interrupts.iter().enumerate() {
            if j == k || x.priority < me.priority {
                continue;
            }
            let t = x.min_interarrival.0.max(1) as i128;
            let n = (r.0 as i128 + p.irq_jitter.0 as i128 + t - 1) / t;
            let add = (n * e(j).0 as i128).min(i64::MAX as i128) as i64;
            next += Picos(add);
        }
        if next > me.min_interarrival {
            return None;
        }
        if next == r {
            return Some((r, e(k)));
        }
        r = next;
    }
}

/// The cross-core release paths: per interrupt, the release delay (its handler's worst
/// response) and the variation of its completions, and which have no bound.
struct Paths {
    delay: Vec<Picos>,
    jitter: Vec<Picos>,
    unbounded: Vec<bool>,
}

/// The chains' event links across cores, per predecessor task (index into the
/// system's tasks; empty: none): how much its completions vary (shortening the
/// inter-core interrupt's minimum inter-arrival time) and its worst completion after
/// its chain segment's first release (added to the successor's release jitter).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TaskIpis {
    pub jitter: Vec<Picos>,
    pub delay: Vec<Picos>,
}

impl TaskIpis {
    fn view(&self, sys: &System, c: u32, paths: &Paths) -> crate::system::cores::CoreView {
        sys.core_view_with(c, &paths.jitter, &paths.delay, &self.jitter, &self.delay)
    }

    /// [`TaskIpis::view`] with, on a core that receives a broadcast tick, the relayed
    /// tick's delay from the tick core's view ([`super::tick_relay`]). The relay does
    /// not enter the handlers' responses, so the fixed point over cores does without it.
    fn settled(
        &self,
        sys: &System,
        opts: &AnalysisOptions,
        c: u32,
        paths: &Paths,
    ) -> crate::system::cores::CoreView {
        let mut v = self.view(sys, c, paths);
        let tc = sys.kernel.tick_core;
        if sys.kernel.broadcasts_tick(sys.platform.cores) && c != tc {
            match super::tick_relay::relay(&self.view(sys, tc, paths).sys, opts) {
                Some(r) => v.sys.kernel.tick_relay = r,
                None => v.tick_unbounded = true,
            }
        }
        v
    }
}

/// Core `c`'s view with the cross-core release paths settled (as
/// [`analyze_cores_with`] analyses it).
pub(crate) fn settled_view(
    sys: &System,
    opts: &AnalysisOptions,
    tl: &TaskIpis,
    c: u32,
) -> crate::system::cores::CoreView {
    tl.settled(sys, opts, c, &release_paths(sys, opts, tl))
}

/// Every core's view with the cross-core release paths settled for the task-sent
/// inter-core interrupts `tl`, and per interrupt of the system whether its cross-core
/// release has no bounded path ([`core_views`] with the chains' event links across
/// cores; `crate::chain::edf_cores` reads EDF cores through them).
pub(crate) fn settled_views(
    sys: &System,
    opts: &AnalysisOptions,
    tl: &TaskIpis,
) -> (Vec<crate::system::cores::CoreView>, Vec<bool>) {
    let paths = release_paths(sys, opts, tl);
    let views = (0..sys.platform.cores)
        .map(|c| tl.view(sys, c, &paths))
        .collect();
    (views, paths.unbounded)
}

fn release_paths(sys: &System, opts: &AnalysisOptions, tl: &TaskIpis) -> Paths {
    let n = sys.interrupts.len();
    let mut paths = Paths {
        delay: vec![Picos::ZERO; n],
        jitter: vec![Picos::ZERO; n],
        unbounded: vec![false; n],
    };
    let crossing: Vec<usize> = (0..n)
        .filter(|&q| sys.cross_core_release(q).is_some())
        .collect();
    if crossing.is_empty() {
        return paths;
    }
    for round in 0..=MAX_ROUNDS {
        let mut changed = false;
        for c in 0..sys.platform.cores {
            let v = tl.view(sys, c, &paths);
            for (k, origin) in v.interrupts.iter().enumerate() {
                let CoreIrq::Own(q) = *origin else { continue };
                if !crossing.contains(&q) || paths.unbounded[q] {
                    continue;
                }
                match handler_response(&v.sys, opts, k) {
                    None => {
                        paths.unbounded[q] = true;
                        changed = true;
                    }
                    Some((r, min)) if r != paths.delay[q] => {
                        paths.delay[q] = r;
                        paths.jitter[q] = r - min;
                        changed = true;
                    }
                    Some(_) => {}
                }
            }
        }
        if !changed {
            return paths;
        }
        if round == MAX_ROUNDS {
            for &q in &crossing {
                paths.unbounded[q] = true;
            }
        }
    }
    paths
}

/// Every core's view with the cross-core release paths found by the fixed point (the
/// views [`analyze_cores`] analyses), and per interrupt of the system whether its
/// cross-core release has no bounded path. The EDF analysis of a partitioned system
/// reads the same views (`crate::edf::cores`).
pub fn core_views(
    sys: &System,
    opts: &AnalysisOptions,
) -> (Vec<crate::system::cores::CoreView>, Vec<bool>) {
    // Chains are analysed by the fixed-priority bounds (chain/cores.rs); the EDF cores'
    // views carry no task-sent inter-core interrupts.
    let paths = release_paths(sys, opts, &TaskIpis::default());
    let views = (0..sys.platform.cores)
        .map(|c| TaskIpis::default().settled(sys, opts, c, &paths))
        .collect();
    (views, paths.unbounded)
}

/// Why the tasks of a core that receives a broadcast tick have no bound when the relay
/// has none.
pub(crate) fn tick_unbounded_reason(sys: &System) -> String {
    format!(
        "the broadcast tick from core {} has no bounded relay: its tick handler's response \
         there reaches the tick period",
        sys.kernel.tick_core
    )
}

fn unbounded(r: &mut TaskResult, why: String) {
    r.wcrt_ns = None;
    r.wcrt_ps = None;
    r.slack_ns = None;
    r.schedulable = false;
    r.unbounded_reason = Some(why);
}

/// Analyses each core of a partitioned system and puts the results together: `tasks`
/// (and each tick mode's list) core by core, each core's in priority order; `cores`
/// with each core's utilisation and verdict.
pub(super) fn analyze_cores(
    sys: &System,
    opts: &AnalysisOptions,
) -> Result<AnalysisResult, AnalysisError> {
    if !sys.chains.is_empty() {
        return crate::chain::cores::analyze_cores_with_chains(sys, opts);
    }
    analyze_cores_with(sys, opts, &TaskIpis::default())
}

/// [`analyze_cores`] with given inter-core interrupts for the chains' event links
/// across cores (the chains' own bounds are [`crate::chain::cores`]'s).
pub(crate) fn analyze_cores_with(
    sys: &System,
    opts: &AnalysisOptions,
    tl: &TaskIpis,
) -> Result<AnalysisResult, AnalysisError> {
    let paths = release_paths(sys, opts, tl);
    let mut merged: Option<AnalysisResult> = None;
    let mut cores = Vec::new();
    for c in 0..sys.platform.cores {
        let v = tl.settled(sys, opts, c, &paths);
        let interrupts: Vec<String> = v.sys.interrupts.iter().map(|x| x.name.clone()).collect();
        if v.sys.tasks.is_empty() {
            cores.push(CoreResult {
                core: c,
                tasks: Vec::new(),
                interrupts,
                utilisation_tasks: 0.0,
                utilisation: 0.0,
                schedulable: true,
            });
            continue;
        }
        let mut r = super::analyze(&v.sys, opts)?;
        if v.tick_unbounded {
            let why = tick_unbounded_reason(sys);
            for list in [
                &mut r.tasks,
                &mut r.tick_modes.pessimistic,
                &mut r.tick_modes.partitioned,
            ] {
                for t in list.iter_mut() {
                    unbounded(t, why.clone());
                }
            }
            r.schedulable = false;
        }
        // A task released across cores by a handler with no bounded response has none.
        for (x, origin) in v.sys.interrupts.iter().zip(&v.interrupts) {
            let (Some(k), CoreIrq::Ipi(q)) = (x.releases, *origin) else {
                continue;
            };
            if !paths.unbounded[q] {
                continue;
            }
            let name = &v.sys.tasks[k].name;
            let why = format!(
                "its releasing interrupt \"{}\" has no bounded response on core {}",
                sys.interrupts[q].name, sys.interrupts[q].core
            );
            for list in [
                &mut r.tasks,
                &mut r.tick_modes.pessimistic,
                &mut r.tick_modes.partitioned,
            ] {
                for t in list.iter_mut().filter(|t| *t.name == **name) {
                    unbounded(t, why.clone());
                }
            }
            r.schedulable = r.tasks.iter().all(|t| t.schedulable);
        }
        cores.push(CoreResult {
            core: c,
            tasks: r.tasks.iter().map(|t| t.name.to_string()).collect(),
            interrupts,
            utilisation_tasks: r.totals.utilisation_tasks,
            utilisation: r.totals.utilisation_total,
            schedulable: r.schedulable,
        });
        merged = Some(match merged {
            None => r,
            Some(mut m) => {
                m.schedulable &= r.schedulable;
                m.tasks.extend(r.tasks);
                m.tick_modes.pessimistic.extend(r.tick_modes.pessimistic);
                m.tick_modes.partitioned.extend(r.tick_modes.partitioned);
                m.pessimism_reduction.extend(r.pessimism_reduction);
                add_totals(&mut m.totals, &r.totals);
                for n in r.notes {
                    if !m.notes.contains(&n) {
                        m.notes.push(n);
                    }
                }
                m
            }
        });
    }
    // Validation guarantees at least one task, so one core has some.
    let Some(mut m) = merged else {
        return super::analyze(&sys.core_view(0, &[], &[]).sys, opts);
    };
    m.source = sys.source.clone();
    m.totals.tasks = sys.tasks.len();
    m.totals.interrupts = sys.interrupts.len();
    m.totals.hyperperiod_ns = super::hyperperiod(sys).map(|h| h.as_ns_f64());
    m.notes.push(
        format!(
            "partitioned multicore: {} cores, each analysed with its own tasks, interrupts, \
             tick and switches; utilisations are sums over the cores; a release across cores \
             pays the releasing handler's response on its core as jitter and the \
             inter-core interrupt (L + ipi) on the task's core",
            sys.platform.cores
        )
        .into(),
    );
    m.cores = cores;
    Ok(m)
}

/// Adds one core's utilisations; the sufficient tests hold when they hold on every core.
fn add_totals(m: &mut Totals, r: &Totals) {
    m.utilisation_tasks += r.utilisation_tasks;
    m.utilisation_interrupts += r.utilisation_interrupts;
    m.utilisation_tick_pessimistic += r.utilisation_tick_pessimistic;
    m.utilisation_tick_partitioned += r.utilisation_tick_partitioned;
    m.utilisation_context_switch += r.utilisation_context_switch;
    m.utilisation_time_slicing += r.utilisation_time_slicing;
    m.utilisation_total += r.utilisation_total;
    m.liu_layland_bound = m.liu_layland_bound.min(r.liu_layland_bound);
    m.liu_layland_ok &= r.liu_layland_ok;
    m.hyperbolic_product = m.hyperbolic_product.max(r.hyperbolic_product);
    m.hyperbolic_ok &= r.hyperbolic_ok;
}
