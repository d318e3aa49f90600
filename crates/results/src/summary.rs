//! The one summary of a set of durations and the one histogram bin every result writes
//! (measure's `total`/`cpus[]`, trace's `measurements[]`, `trace --tasks` figures,
//! simulate's response times): a consumer reads any of them as [`DurationSummary`],
//! whose JSON Schema is docs/summary.schema.json.

/// The summary of a set of durations (count, min/max and when, mean, stdev, mode,
/// percentiles to p99.99, histogram), under the keys every result writes.
pub use latscope_core::summary::ResultSummary as DurationSummary;
pub use latscope_core::summary::{nan, val, FieldError, HistogramBin, Stat};
