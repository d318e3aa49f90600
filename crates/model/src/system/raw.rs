//! The file's structure as written (TOML or JSON), before validation. Values keep their
//! byte span in the TOML text (JSON values carry an empty span).

use super::model::{CacheState, ModelKind, Scheduler, TaskSelection, TickMode};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// A duration as written: a string with a unit; numbers are rejected with advice.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub(super) enum RawDur {
    Text(String),
    Int(i64),
    Float(f64),
}

/// A frequency: an integer (hertz) or a string with a unit ("84 MHz").
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub(super) enum RawFreq {
    Int(i64),
    Text(String),
}

pub(super) type SDur = Spanned<RawDur>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    pub(super) platform: Spanned<RawPlatform>,
    pub(super) kernel: Spanned<RawKernel>,
    #[serde(default)]
    pub(super) task: Vec<Spanned<RawTask>>,
    #[serde(default)]
    pub(super) interrupt: Vec<Spanned<RawInterrupt>>,
    #[serde(default)]
    pub(super) critical_sections: Option<RawCritical>,
    #[serde(default)]
    pub(super) resource: Vec<Spanned<super::resources::RawResource>>,
    #[serde(default)]
    pub(super) chain: Vec<Spanned<super::chains::RawChain>>,
    #[serde(default)]
    pub(super) core: Vec<Spanned<RawCore>>,
}

/// A `[[core]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCore {
    pub(super) id: Spanned<i64>,
    #[serde(default)]
    pub(super) scheduler: Option<Scheduler>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlatform {
    pub(super) cpu_hz: Spanned<RawFreq>,
    #[serde(default)]
    pub(super) irq_entry_cycles: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) cache: Option<RawCache>,
    /// Number of cores (partitioned multicore; default 1).
    #[serde(default)]
    pub(super) cores: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCache {
    #[serde(default)]
    pub(super) assume: Option<CacheState>,
    #[serde(default)]
    pub(super) warm: Option<SDur>,
    #[serde(default)]
    pub(super) cold: Option<SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawKernel {
    pub(super) tick_hz: Spanned<RawFreq>,
    #[serde(default)]
    pub(super) model: Option<ModelKind>,
    #[serde(default)]
    pub(super) task_selection: Option<TaskSelection>,
    #[serde(default)]
    pub(super) tick_mode: Option<TickMode>,
    #[serde(default)]
    pub(super) time_slicing: Option<bool>,
    #[serde(default)]
    pub(super) allow_equal_priorities: Option<bool>,
    #[serde(default)]
    pub(super) costs: Option<Spanned<RawCosts>>,
    #[serde(default)]
    pub(super) sleep_state: Vec<Spanned<RawSleep>>,
    #[serde(default)]
    pub(super) scheduler: Option<Scheduler>,
    /// Each core's own tick or one core's broadcast (`tick_broadcast.rs`).
    #[serde(default)]
    pub(super) tick_source: Option<Spanned<super::tick_broadcast::TickSource>>,
    #[serde(default)]
    pub(super) tick_core: Option<Spanned<i64>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCosts {
    // tick
    pub(super) tick_base: Option<SDur>,
    pub(super) tick_per_release: Option<SDur>,
    pub(super) tick_first_release: Option<SDur>,
    pub(super) tick_last_release: Option<SDur>,
    pub(super) switch_base: Option<SDur>,
    pub(super) switch_per_level: Option<SDur>,
    pub(super) switch_optimised: Option<SDur>,
    // listscan
    pub(super) check_per_thread: Option<SDur>,
    pub(super) insert_base: Option<SDur>,
    pub(super) insert_per_position: Option<SDur>,
    // listscan + irqpath
    pub(super) switch: Option<SDur>,
    // irqpath
    pub(super) tick: Option<SDur>,
    pub(super) warm: Option<RawStage>,
    pub(super) cold: Option<RawStage>,
    // every model: resource calls (docs/resources.md)
    pub(super) lock: Option<SDur>,
    pub(super) unlock: Option<SDur>,
    pub(super) inherit: Option<SDur>,
    // every model: the inter-core interrupt of a cross-core release (multicore)
    pub(super) ipi: Option<SDur>,
    // every model: one inter-core interrupt sent by a broadcasting tick core
    pub(super) ipi_send: Option<SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStage {
    #[serde(default)]
    pub(super) entry: Option<SDur>,
    #[serde(default)]
    pub(super) prologue: Option<SDur>,
    #[serde(default)]
    pub(super) send: Option<SDur>,
    #[serde(default)]
    pub(super) dispatch: Option<SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSleep {
    pub(super) name: Spanned<String>,
    #[serde(default)]
    pub(super) safety_margin_ticks: Option<Spanned<i64>>,
    pub(super) parts: BTreeMap<String, SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTask {
    pub(super) name: Spanned<String>,
    #[serde(default)]
    pub(super) period: Option<SDur>,
    #[serde(default)]
    pub(super) min_interarrival: Option<SDur>,
    pub(super) wcet: SDur,
    #[serde(default)]
    pub(super) bcet: Option<SDur>,
    pub(super) priority: Spanned<i64>,
    #[serde(default)]
    pub(super) deadline: Option<SDur>,
    #[serde(default)]
    pub(super) offset: Option<SDur>,
    #[serde(default)]
    pub(super) jitter: Option<SDur>,
    #[serde(default)]
    pub(super) blocking: Option<SDur>,
    #[serde(default)]
    pub(super) exec_time_file: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) critical: Vec<Spanned<super::resources::RawSection>>,
    #[serde(default)]
    pub(super) core: Option<Spanned<RawTaskCore>>,
}

/// A task's `core`: a core number (pinned) or a word (`"any"`: unpinned, global).
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub(super) enum RawTaskCore {
    Id(i64),
    Word(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInterrupt {
    pub(super) name: Spanned<String>,
    pub(super) min_interarrival: SDur,
    pub(super) wcet: SDur,
    #[serde(default)]
    pub(super) priority: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) above_kernel: Option<bool>,
    #[serde(default)]
    pub(super) releases: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) offset: Option<SDur>,
    #[serde(default)]
    pub(super) periodic: Option<bool>,
    #[serde(default)]
    pub(super) critical: Vec<Spanned<super::resources::RawSection>>,
    #[serde(default)]
    pub(super) core: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCritical {
    #[serde(default)]
    pub(super) kernel: Option<SDur>,
    #[serde(default)]
    pub(super) application: Option<SDur>,
}
