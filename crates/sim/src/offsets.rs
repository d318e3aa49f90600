//! The offset-aware worst response of a deterministic task set, by simulating its
//! feasibility interval.
//!
//! A set is *deterministic* here when every task is periodic and released by the tick
//! (no sporadic task, no interrupt), has no release jitter, no execution-time file and a
//! BCET equal to its WCET, and the kernel has no tickless sleep states. Its schedule,
//! kernel overheads included, is then a function of the offsets alone. With `H` the
//! least common multiple of the periods and the tick period and `O` the largest offset,
//! the schedule from `O + H` on repeats with period `H` (Leung & Whitehead, "On the
//! complexity of fixed-priority scheduling of periodic, real-time tasks", Performance
//! Evaluation 2(4), 1982, for a set whose utilisation is at most 1); every job released
//! in `[0, O + 2H)` is simulated to completion, so the largest response seen is the exact
//! worst response of the model with every job at its WCET. Preemptive fixed-priority
//! scheduling of independent tasks on one processor has no timing anomalies, so shorter
//! jobs do not respond later; kernel overheads that depend on coincidences (the tick's
//! first release, one switch per preemption) are an assumption of that argument.

use crate::{from_system, FromSystemOptions, Sim, SimOptions};
use latscope_core::Picos;
use latscope_model::system::{Arrival, System};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The largest simulated span accepted (10 minutes of simulated time).
pub const MAX_HORIZON: Picos = Picos(600 * 1_000_000_000_000);

/// One task's offset-aware worst response.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OffsetTask {
    pub name: String,
    /// The largest response over the feasibility interval; null when a job did not
    /// complete (overload).
    pub worst_ns: Option<f64>,
    pub deadline_misses: u64,
}

/// The offset-aware result, or why there is none.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OffsetAware {
    /// `simulated feasibility interval`, or `none`.
    #[serde(deserialize_with = "method_word")]
    pub method: latscope_core::words::Word,
    /// Why the exact check was not made (method `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `O + 2H` (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_ns: Option<f64>,
    pub tasks: Vec<OffsetTask>,
}

latscope_core::words!(fn method_word = ["none", "simulated feasibility interval"]);

fn none(reason: String) -> OffsetAware {
    OffsetAware {
        method: "none",
        reason: Some(reason),
        horizon_ns: None,
        tasks: Vec::new(),
    }
}

/// Why the set is not deterministic, if it is not.
pub fn nondeterminism(sys: &System) -> Option<String> {
    if !sys.interrupts.is_empty() {
        return Some(
            "interrupts arrive sporadically (min_interarrival), so the schedule is not a \
             function of the offsets"
                .into(),
        );
    }
    if !sys.kernel.sleep_states.is_empty() {
        return Some("tickless sleep states".into());
    }
    for t in &sys.tasks {
        let why = if matches!(t.arrival, Arrival::Sporadic(_)) {
            "is sporadic"
        } else if t.jitter != Picos::ZERO {
            "has release jitter"
        } else if t.bcet != t.wcet || t.exec_time_file.is_some() {
            "has a variable execution time"
        } else {
            continue;
        };
        return Some(format!("task \"{}\" {why}", t.name));
    }
    None
}

/// The offset-aware worst responses of a deterministic set (see the module
/// documentation), or the reason why they were not computed.
pub fn offset_aware(sys: &System) -> OffsetAware {
    if let Some(r) = nondeterminism(sys) {
        return none(format!(
            "not deterministic ({r}); no exact simulated result (the offset-based bound still applies)"
        ));
    }
    let tick = sys.kernel.tick_period().0.max(1);
    let periods = sys.tasks.iter().map(|t| t.period().0.max(0) as u64);
    let h = match latscope_core::arith::lcm_all(std::iter::once(tick as u64).chain(periods)) {
        Some(h) if h <= MAX_HORIZON.0 => h as i128,
        _ => {
            return none(format!(
                "the hyperperiod of the periods and the tick is over {} s",
                MAX_HORIZON.0 / 1_000_000_000_000
            ))
        }
    };
    let o = sys
        .tasks
        .iter()
        .map(|t| t.offset.0 as i128)
        .max()
        .unwrap_or(0);
    let horizon = o + 2 * h;
    if horizon > MAX_HORIZON.0 as i128 {
        return none(format!(
            "the feasibility interval O + 2H is over {} s",
            MAX_HORIZON.0 / 1_000_000_000_000
        ));
    }
    let cfg = match from_system(sys, &FromSystemOptions::default()) {
        Ok(c) => c,
        Err(e) => return none(format!("cannot simulate: {e}")),
    };
    let mut sim = match Sim::new(
        cfg,
        SimOptions {
            seed: 0,
            ..Default::default()
        },
    ) {
        Ok(s) => s,
        Err(e) => return none(format!("cannot simulate: {e}")),
    };
    // Jobs released before the horizon finish within their deadlines when the set is
    // schedulable; a deadline's worth more lets the last ones complete.
    let dmax = sys
        .tasks
        .iter()
        .map(|t| t.deadline.0 as i128)
        .max()
        .unwrap_or(0);
    sim.run_until(Picos((horizon + dmax).min(i64::MAX as i128) as i64));
    let rep = sim.report();
    OffsetAware {
        method: "simulated feasibility interval",
        reason: None,
        horizon_ns: Some(horizon as f64 / 1000.0),
        tasks: rep
            .tasks
            .iter()
            .map(|t| OffsetTask {
                name: t.name.clone(),
                worst_ns: t.max_response_ns,
                deadline_misses: t.deadline_misses,
            })
            .collect(),
    }
}
