//! Why a chain step has no bounded response: the reason a chain's bound is missing
//! (`unbounded_reason` in `analyze --json`). Typed so that callers can tell a task from
//! an interrupt without reading the text; the text is what the analysis has always
//! written.

use thiserror::Error;

/// A step of a chain whose worst response is not bounded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StepUnbounded {
    /// A task without a bounded worst response; `why` is the task analysis's own reason
    /// when it gave one.
    #[error("{}", task_text(.task, .why.as_deref()))]
    Task { task: String, why: Option<String> },
    /// An interrupt handler whose response does not settle within its minimum
    /// inter-arrival time.
    #[error(
        "interrupt \"{irq}\": its handler's response does not settle within its minimum \
         inter-arrival time"
    )]
    Interrupt { irq: String },
}

fn task_text(task: &str, why: Option<&str>) -> String {
    match why {
        Some(w) => format!("task \"{task}\": {w}"),
        None => format!("task \"{task}\" has no bounded response"),
    }
}
