//! The `analyze --json` document: the model's response-time analysis
//! ([`latscope_model::rta::AnalysisResult`], its keys at the top level) with the
//! simulator's offset-aware check and, when asked for, the margins and the priority
//! assignment. It lives here because the offset-aware check is a simulation; the CLI
//! and the Python binding write it, `report` reads it.

use crate::offsets::OffsetAware;
use latscope_model::priority::{Assigned, Assignment};
use latscope_model::rta::offsets::OffsetBound;
use latscope_model::rta::AnalysisResult;
use latscope_model::sensitivity::Sensitivity;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// `analyze --json` (docs/analyze.schema.json is generated from it).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalyzeDocument {
    #[serde(flatten)]
    pub analysis: AnalysisResult,
    /// The offset-aware worst responses (null when no task has an offset).
    pub offset_aware: Option<OffsetAware>,
    /// The sound offset-based bound, which also holds with jitter and sporadic interrupts
    /// (null when no task has an offset).
    #[serde(default)]
    pub offset_bound: Option<OffsetBound>,
    /// `--sensitivity`: the margins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<Sensitivity>,
    /// `--assign-priorities`: the order found (null when none was found).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub assignment: Option<Option<Vec<Assigned>>>,
    /// `--assign-priorities`: the whole outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignment_detail: Option<Assignment>,
    /// `--observed TRACE`: the bound checked against a recording.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<crate::observed::ObservedCheck>,
    /// `kernel.scheduler = "edf"`: the processor-demand verdict and the EDF bound per
    /// task (docs/analysis.md, EDF); `schedulable` is then this verdict and `tasks` the
    /// fixed-priority analysis of the same set, for comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edf: Option<latscope_model::edf::EdfResult>,
}

// A key that is present reads as `Some`, even when null.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Vec<Assigned>>>, D::Error> {
    Option::<Vec<Assigned>>::deserialize(d).map(Some)
}

impl AnalyzeDocument {
    pub fn new(
        analysis: AnalysisResult,
        offset_aware: Option<OffsetAware>,
        offset_bound: Option<OffsetBound>,
        sensitivity: Option<Sensitivity>,
        assignment: Option<Assignment>,
    ) -> AnalyzeDocument {
        AnalyzeDocument {
            analysis,
            offset_aware,
            offset_bound,
            sensitivity,
            assignment: assignment.as_ref().map(|a| a.order.clone()),
            assignment_detail: assignment,
            observed: None,
            edf: None,
        }
    }

    /// Reads an `analyze --json` result back.
    pub fn from_json(text: &str) -> Result<AnalyzeDocument, serde_json::Error> {
        serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
    }
}
