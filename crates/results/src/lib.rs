//! latscope-results: the result documents latscope's commands write (`--json`), as the
//! typed values the producers fill, for every consumer to read back through the same
//! types (the report, fleet export, fit, the Python binding).
//!
//! One module per kind names the document type and the types it is made of; the JSON
//! Schemas in docs/ are generated from these very types (crates/cli/tests/it/result_schemas.rs),
//! and crates/cli/tests/it/result_roundtrip.rs checks that what each command writes reads back
//! and writes again to the same JSON. [`Document`] reads any of them, telling them apart by
//! the top-level `"kind"`.
//!
//! The types are defined where they are produced (the measure, trace, model and sim
//! crates) and named here; a consumer depends on this crate and not on where a type
//! lives. The `scenario` kind's type is named here too ([`scenario`]), but [`Document`]
//! does not read it: a scenario result embeds results of the other kinds, which its
//! consumers (the report) read through [`Document`] one by one.

pub mod document;
pub mod summary;
pub mod verdict;

pub use document::{Document, DocumentError, Labelled, KINDS};
pub use verdict::{ScenarioTally, Status, Verdict, Worst};

/// `latscope measure --json`.
pub mod measure {
    pub use latscope_measure::env::{Item, Status};
    pub use latscope_measure::ftrace::lost::{CpuLoss, RingStats};
    pub use latscope_measure::ftrace::{Blocker, Spike, TraceSummary};
    /// The whole document.
    pub use latscope_measure::output::Report as MeasureResult;
    pub use latscope_measure::output::{
        CompareJson, CpuStats, Difference, Environment, HistBucket, PhaseJson, SamplesJson,
        SettingsJson, Stats, SweepPoint,
    };
    /// A measure summary as written: the shared [`crate::summary::DurationSummary`] with
    /// measure's own figures beside it.
    pub use latscope_measure::stats_json::StatsJson;
}

/// `latscope noise --json`: OS and hardware noise per CPU, by source.
pub mod noise {
    /// The whole document.
    pub use latscope_measure::noise::result::NoiseReport as NoiseResult;
    pub use latscope_measure::noise::result::{
        BySource, Classification, CpuNoise, NoiseSettingsJson, Row, SourceNoise,
    };
}

/// `latscope compare --json`: two measure runs compared statistic by statistic.
pub mod compare {
    /// The comparison `latscope compare` computes, for a consumer that compares two
    /// measure results itself (the report) and must get the same figures.
    pub use latscope_measure::compare::{compare, conflicting_settings, Options, Threshold};
    /// The whole document.
    pub use latscope_measure::compare_doc::CompareResult;
    pub use latscope_measure::compare_doc::{CompareRow, CpuRows, Differs};
}

/// `latscope trace --json` over a capture: the measurements.
pub mod trace {
    /// `chains[]`: chains measured with `--chain`.
    pub use latscope_trace::chain::{ChainLink, ChainResult};
    pub use latscope_trace::measure::{
        Bin, Instance, Jitter, LimitOutcome, Measurement, PercentStats, WindowPoint,
    };
    /// The whole document.
    pub use latscope_trace::report::Report as TraceResult;
    pub use latscope_trace::report::{CaptureInfo, Range};
}

/// `latscope trace --tasks --json` over an event recording: per-task timing.
pub mod tasks {
    pub use latscope_trace::tasks::result::*;
}

/// `latscope analyze --json`.
pub mod analyze {
    pub use latscope_model::rta::{AnalysisResult, TaskResult};
    /// The whole document: the analysis with the offset-aware figures beside it.
    pub use latscope_sim::analysis::AnalyzeDocument as AnalyzeResult;
}

/// `latscope simulate --json`.
pub mod simulate {
    /// The whole document.
    pub use latscope_sim::report::SimReport as SimulateResult;
    pub use latscope_sim::report::*;
}

/// `latscope fit --json`.
pub mod fit {
    /// The whole document.
    pub use latscope_model::fit::FitDocument as FitResult;
}

/// `latscope scenario run --json`: published figures against latscope's.
pub mod scenario {
    /// The one-line verdict every output of a scenario prints (terminal, Markdown, report).
    pub use latscope_scenario::markdown::banner;
    /// The whole document.
    pub use latscope_scenario::Outcome as ScenarioResult;
    pub use latscope_scenario::{Figure, Predictions, Role, Row, Tally, Verdict};
}
