//! Priority assignment (`latscope analyze --assign-priorities`): Audsley's optimal
//! priority assignment (OPA) over the full analysis (overheads, blocking, jitter, the
//! chosen tick mode).
//!
//! N. C. Audsley, "Optimal priority assignment and feasibility of static priority tasks
//! with arbitrary start times", University of York, YCS 164, 1991: for each priority
//! level from the lowest up, find a task that meets its deadline there with every other
//! unassigned task above it; if none exists at some level, no priority order works.
//!
//! OPA is optimal only when the schedulability test of a task does not depend on the
//! relative order of the tasks above it (nor of those below it) — Davis & Burns, "Priority
//! assignment for global fixed priority pre-emptive scheduling in multiprocessor real-time
//! systems", RTSS 2009, conditions 1–3. latscope's analysis meets them with port-optimised
//! task selection, the interrupt-path and list-scan models, or without overheads (release
//! jitter, blocking, the tick and interrupts do not depend on the order). With FreeRTOS's
//! generic task selection the switch into a higher-priority task scans the levels between
//! the two priorities, so a task's interference depends on *which* higher task sits at
//! which number: the test is not OPA-compatible. There, each candidate is tested with the
//! unassigned higher tasks in rate-monotonic order (the shortest period on the highest
//! number, where its many switches cost the most levels), and the final order is
//! analysed again as a whole: an assignment is only returned when that analysis passes.
//! An assignment may then be missed where one exists (`opa_compatible` is false and the
//! notes say so).
//!
//! The priority numbers used are the file's own when they are all distinct (so the
//! switch costs by levels stay those of the file's numbering), else `1..=n`.

mod search;
mod write;

pub use search::assign_priorities;
pub use write::{update_priorities_toml, WriteError};

use crate::rta::AnalysisOptions;
use crate::system::{KernelCosts, System, TaskSelection};
use serde::Serialize;

/// The outcome (`assignment` and `assignment_detail` in `analyze --assign-priorities
/// --json`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Assignment {
    /// Tasks in descending priority with their new numbers, or `None` when no order was
    /// found.
    pub order: Option<Vec<Assigned>>,
    /// When none was found: the level that could not be filled.
    pub failure: Option<Failure>,
    /// Whether the analysis is OPA-compatible for this system (then "none found" means
    /// "none exists").
    pub opa_compatible: bool,
    #[serde(deserialize_with = "crate::rta::json::tick_mode_word")]
    pub tick_mode: latscope_core::words::Word,
    pub notes: Vec<String>,
}

/// A task and its assigned priority number.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Assigned {
    pub name: String,
    pub priority: u32,
}

/// The level no unassigned task can take.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Failure {
    /// The priority number of the level (the lowest not yet filled).
    pub priority: u32,
    /// How many levels below it were filled.
    pub levels_filled: usize,
    /// Each candidate's response time at that level (null: unbounded or past the
    /// deadline), with its deadline.
    pub candidates: Vec<Candidate>,
    /// A human-readable summary naming the task that cannot be placed.
    pub message: String,
}

/// A task tried at the failing level.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Candidate {
    pub name: String,
    pub wcrt_ns: Option<f64>,
    pub deadline_ns: f64,
}

/// Whether the analysis of a task is independent of the order of the others above and
/// below it (see the module documentation).
pub fn opa_compatible(sys: &System, opts: &AnalysisOptions) -> bool {
    // A task exposed to nested inheritance mutexes is bounded as if at the lowest priority
    // of the intermediate holders below it (resource/nested.rs): its result then depends
    // on the relative order of the lower tasks, which Audsley's optimality proof excludes.
    if crate::resource::nested::intermediate_floor(sys).is_some() {
        return false;
    }
    if !opts.overheads {
        return true;
    }
    match (&sys.kernel.costs, sys.kernel.task_selection) {
        (KernelCosts::Tick(c), TaskSelection::Generic) => c.switch_per_level.0 == 0,
        _ => true,
    }
}

/// The priority numbers to hand out, ascending.
pub fn priority_values(sys: &System) -> Vec<u32> {
    let mut v: Vec<u32> = sys.tasks.iter().map(|t| t.priority).collect();
    v.sort_unstable();
    v.dedup();
    if v.len() == sys.tasks.len() {
        v
    } else {
        (1..=sys.tasks.len() as u32).collect()
    }
}

/// The system with these priority numbers (by task index).
pub fn with_priorities(sys: &System, prio: &[u32]) -> System {
    let mut s = sys.clone();
    for (t, &p) in s.tasks.iter_mut().zip(prio) {
        t.priority = p;
    }
    s
}
