//! What `analyze` reports for an EDF kernel.

use super::demand::Overload;
use super::holistic::settle;
use super::qpa::qpa;
use super::workload::Workload;
use crate::range::AnalysisError;
use crate::rta::AnalysisOptions;
use crate::system::System;
use serde::{Deserialize, Serialize};

/// The busy period may not pass this many of the longest period (beyond, the set is
/// reported as not shown schedulable rather than iterated on).
const HORIZON_PERIODS: i64 = 1_000_000;

/// One task under EDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EdfTask {
    pub name: String,
    /// Response-time bound from the nominal arrival (Spuri 1996), in ns; null when
    /// none was found within the horizon.
    pub bound_ns: Option<f64>,
    pub deadline_ns: f64,
    pub period_ns: f64,
    /// Release jitter charged (the fixed-priority analysis's), in ns.
    pub jitter_ns: f64,
    /// WCET plus two context switches per job, in ns.
    pub charged_wcet_ns: f64,
    pub schedulable: bool,
}

/// The EDF analysis of a system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EdfResult {
    /// Every deadline met: the processor-demand test passed.
    pub schedulable: bool,
    /// Utilisation of the tasks with their overheads plus ticks and interrupt handlers.
    pub utilisation: f64,
    /// The synchronous busy period (ns); null when it has none within the horizon.
    pub busy_period_ns: Option<f64>,
    /// A window length at which the demand exceeds the window (ns): a deadline is missed
    /// by then.
    pub demand_exceeded_at_ns: Option<f64>,
    /// Points QPA examined.
    pub qpa_steps: u64,
    /// Why the set was not shown schedulable, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub tasks: Vec<EdfTask>,
}

fn ns(ps: i64) -> f64 {
    ps as f64 / 1000.0
}

/// The EDF analysis of `sys` (its tasks are scheduled by absolute deadline; interrupt
/// handlers and the tick preempt them).
pub fn analyze_edf(sys: &System, opts: &AnalysisOptions) -> Result<EdfResult, AnalysisError> {
    let mut w = Workload::of(sys, opts)?;
    let max_t = w.tasks.iter().map(|x| x.t).max().unwrap_or(1);
    let horizon = max_t.saturating_mul(HORIZON_PERIODS);
    let mut out = EdfResult {
        schedulable: false,
        utilisation: w.utilisation(),
        busy_period_ns: None,
        demand_exceeded_at_ns: None,
        qpa_steps: 0,
        reason: None,
        tasks: Vec::new(),
    };
    // Event links between tasks: their release jitter from the predecessors' bounds,
    // settled first; QPA then checks the settled workload.
    let settled = settle(sys, &mut w, horizon);
    let bounds = settled.bounds;
    match &settled.window {
        Ok((l, d_min)) => {
            out.busy_period_ns = Some(ns(*l));
            match qpa(&w, *l, *d_min) {
                Ok(steps) => {
                    out.qpa_steps = steps;
                    out.schedulable = true;
                }
                Err(t) => {
                    out.demand_exceeded_at_ns = Some(ns(t));
                    out.reason = Some(format!(
                        "the demand exceeds the processor in a window of {}",
                        latscope_core::Nanos(t / 1000)
                    ));
                }
            }
        }
        Err(why) => {
            out.reason = Some(match why {
                Overload::Utilisation => format!(
                    "utilisation {:.4} with overheads is not below 1",
                    out.utilisation
                ),
                Overload::JitterPastDeadline(n) => {
                    format!("task {n}: its release jitter reaches its deadline")
                }
                Overload::Horizon => "the busy period passes the analysis horizon".into(),
            });
        }
    }
    for (x, b) in w.tasks.iter().zip(bounds) {
        out.tasks.push(EdfTask {
            name: x.name.clone(),
            bound_ns: b.map(ns),
            deadline_ns: ns(x.d),
            period_ns: ns(x.t),
            jitter_ns: ns(x.j),
            charged_wcet_ns: ns(x.c),
            schedulable: b.is_some_and(|b| b <= x.d),
        });
    }
    Ok(out)
}
