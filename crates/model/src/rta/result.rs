//! The analysis result as `analyze --json` writes it: per task, per tick mode, totals.

use super::{json, Interference};
use serde::Serialize;
use std::sync::Arc;

/// The whole analysis, serialisable as `latscope analyze --json`.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct AnalysisResult {
    #[serde(deserialize_with = "json::kind_word")]
    #[schemars(extend("const" = "analyze"))]
    pub kind: latscope_core::words::Word,
    pub schema_version: u32,
    pub source: String,
    #[serde(deserialize_with = "json::model_word")]
    pub model: latscope_core::words::Word,
    /// The tick mode of `tasks`.
    #[serde(deserialize_with = "json::tick_mode_word")]
    pub tick_mode: latscope_core::words::Word,
    pub overheads: bool,
    pub tick_release_delay: bool,
    /// Every task schedulable in the reported tick mode.
    pub schedulable: bool,
    /// Results in the reported tick mode, in descending priority order (ties: file order).
    pub tasks: Vec<TaskResult>,
    pub tick_modes: TickModes,
    pub pessimism_reduction: Vec<Reduction>,
    pub totals: Totals,
    /// Assumptions that shaped the numbers (human-readable).
    pub notes: Vec<std::borrow::Cow<'static, str>>,
    /// Per core, with `platform.cores > 1` only (absent on one core, so one-core
    /// documents are unchanged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cores: Vec<super::cores::CoreResult>,
    /// End-to-end chains in file order (absent without `[[chain]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<crate::chain::analysis::ChainResult>,
    /// The test behind the bounds when it is not the exact one-core analysis (global
    /// fixed priority: `"global-fp (Bertogna & Cirinei 2007), sufficient"`); absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TickModes {
    pub pessimistic: Vec<TaskResult>,
    pub partitioned: Vec<TaskResult>,
}

/// One task's result.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct TaskResult {
    // Shared by the analysis's results of the task: one reference count per result, not
    // a copy of the text (a plain comment: the JSON schema describes the name as before).
    pub name: Arc<str>,
    pub priority: u32,
    /// Worst-case response time from the nominal release; `None` (null) when unbounded
    /// or not found within the iteration budget.
    pub wcrt_ns: Option<f64>,
    pub deadline_ns: f64,
    pub period_ns: f64,
    /// `deadline - wcrt` (null with the WCRT).
    pub slack_ns: Option<f64>,
    pub schedulable: bool,
    /// Why the WCRT is unknown, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unbounded_reason: Option<String>,
    /// Set when the analysis stopped past the deadline (or the bound asked for) without
    /// `--exact-unbounded`: that bound in ns; the WCRT exceeds it ("unbounded past D",
    /// `wcrt_ns` null, not schedulable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wcrt_above_ns: Option<f64>,
    /// Jobs of this task in the longest level-i busy window examined.
    pub jobs_examined: u64,
    /// The job (0-based, in the busy window) with the largest response time.
    pub critical_job: u64,
    pub iterations: u64,
    /// Integer WCRT in picoseconds (exact; `wcrt_ns` is this divided by 1000).
    pub wcrt_ps: Option<i64>,
    pub jitter: JitterParts,
    pub breakdown: Breakdown,
    /// Blocking charged: the file's `blocking` (or the longest interrupts-disabled
    /// section, whichever is longer) plus the blocking computed from the resources.
    pub blocking_ns: f64,
    /// The critical sections that make up the computed blocking.
    pub blocking_from: Vec<crate::resource::blocking::BlockingPart>,
    /// `analyze --observed`: the worst response seen in the recording (ns), the release
    /// of that job (ns from the recording's start), its index among the task's complete
    /// jobs, and `observed_max_ns / wcrt_ns` (above 1: the WCET or the model is wrong for
    /// this system). Absent without `--observed` or when the recording has no complete
    /// job of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_max_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_at_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_job: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_ratio: Option<f64>,
}

/// The parts of a task's release jitter.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct JitterParts {
    pub file_ns: f64,
    pub tick_delay_ns: f64,
    pub tickless_ns: f64,
    pub irq_path_ns: f64,
    /// A kernel critical section masking the tick or the releasing interrupt
    /// (docs/resources.md).
    pub critical_ns: f64,
    pub total_ns: f64,
}

/// Where the WCRT goes; the items add up to `wcrt_ns` (when it is known).
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Breakdown {
    pub wcet_ns: f64,
    /// Earlier jobs of the same task in the busy window, `q * C_i`.
    pub own_previous_jobs_ns: f64,
    /// `-q * T_i`: the critical job is released q periods after the window starts.
    pub window_offset_ns: f64,
    /// Higher- or equal-priority tasks' execution (without their switches): the largest
    /// shares by default (`analyze --interference N|full`).
    pub interference: Interference,
    /// The higher- or equal-priority tasks' execution not listed in `interference` (0 and
    /// absent when every task is listed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interference_others_ns: f64,
    pub tick_ns: f64,
    pub context_switch_ns: f64,
    pub interrupts_ns: f64,
    pub blocking_ns: f64,
    pub jitter_ns: f64,
}
/// Per task: pessimistic WCRT minus partitioned WCRT.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Reduction {
    pub name: Arc<str>,
    pub pessimistic_ns: Option<f64>,
    pub partitioned_ns: Option<f64>,
    pub reduction_ns: Option<f64>,
    pub reduction_pct: Option<f64>,
}

/// Whole-system figures.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Totals {
    pub tasks: usize,
    pub interrupts: usize,
    pub utilisation_tasks: f64,
    pub utilisation_interrupts: f64,
    pub utilisation_tick_pessimistic: f64,
    pub utilisation_tick_partitioned: f64,
    pub utilisation_context_switch: f64,
    pub utilisation_time_slicing: f64,
    /// Tasks + interrupts + overheads in the reported tick mode.
    pub utilisation_total: f64,
    /// `n (2^(1/n) - 1)` (Liu & Layland 1973), for the tasks alone.
    pub liu_layland_bound: f64,
    /// `U_tasks <= bound` (sufficient only; implicit deadlines, no overheads).
    pub liu_layland_ok: bool,
    /// `prod (U_i + 1)` (Bini, Buttazzo & Buttazzo 2003).
    pub hyperbolic_product: f64,
    /// `prod (U_i + 1) <= 2` (sufficient only).
    pub hyperbolic_ok: bool,
    /// Least common multiple of the task periods (null on overflow).
    pub hyperperiod_ns: Option<f64>,
    pub tick_period_ns: f64,
    pub irq_entry_ns: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
