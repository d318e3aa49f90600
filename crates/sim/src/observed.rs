//! `analyze --observed TRACE`: the bound checked against a recording, as the `analyze
//! --json` document writes it (key `observed`). Each task's own figures
//! (`observed_max_ns`, `observed_at_ns`, `observed_job`, `bound_ratio`) are in its entry of
//! `tasks`; this is what concerns the whole comparison: which recording, which names did
//! not match (listed, never dropped silently), which tasks exceeded their bound, and the
//! events the recorder lost.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ObservedCheck {
    /// The recording (file name) and its format.
    pub recording: String,
    pub format: String,
    /// Tasks of the recording that the system does not name.
    pub not_in_system: Vec<String>,
    /// Tasks of the system that the recording does not name, or names without a
    /// complete job.
    pub not_observed: Vec<String>,
    /// Tasks whose observed worst response exceeds their (known) bound.
    pub exceeded: Vec<String>,
    /// Tasks whose observed worst response comes from a job touching lost events.
    pub suspect: Vec<String>,
    /// Events the recorder lost, in total.
    pub lost_events: u64,
}
