//! A measure summary as JSON (`total`, `cpus[]`, `rounds[]`, sweep points and compare
//! phases of `measure --json`): the shared summary of every result
//! (`latscope_core::summary::ResultSummary`: count, min, mean, stdev, percentiles up to
//! p99.99, max and when it happened, histogram) beside measure's own figures (the CPU of
//! the maximum, overruns, histogram range, the interrupt/thread split).

use crate::output::{HistBucket, Stats};
use latscope_core::summary::{HistogramBin, ResultSummary, Stat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct StatsJson {
    #[serde(flatten)]
    pub summary: ResultSummary,
    /// CPU on which the maximum occurred.
    pub max_cpu: u32,
    pub overruns: u64,
    pub longest_overrun_run: u64,
    /// Samples above the histogram's range (counted at its top, `histogram_highest_ns`).
    pub histogram_overflow: u64,
    /// Negative samples (counted in the bucket at 0).
    pub histogram_underflow: u64,
    pub histogram_highest_ns: i64,
    /// The same histogram, lossless, in HdrHistogram's standard V2 encoding (base64):
    /// results merge exactly from it (`latscope merge`). Absent in results written
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hdr: Option<String>,
    /// When tracepoints were used: timer expiry → hrtimer handler, per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_latency_ns: Option<Box<Stats>>,
    /// When tracepoints were used: hrtimer handler → the measuring thread running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_latency_ns: Option<Box<Stats>>,
}

fn some(x: i64) -> Stat {
    Some(Some(x as f64))
}

impl From<Stats> for StatsJson {
    fn from(s: Stats) -> StatsJson {
        StatsJson {
            summary: ResultSummary {
                count: s.count,
                min_ns: some(s.min_ns),
                mean_ns: Some(Some(s.mean_ns)),
                stdev_ns: Some(Some(s.stdev_ns)),
                p50_ns: some(s.p50_ns),
                p90_ns: some(s.p90_ns),
                p99_ns: some(s.p99_ns),
                p999_ns: some(s.p999_ns),
                p9999_ns: some(s.p9999_ns),
                max_ns: some(s.max_ns),
                max_at_ns: some(s.max_at_ns),
                histogram: Some(
                    s.histogram
                        .iter()
                        .map(|b| HistogramBin {
                            low_ns: b.low_ns as f64,
                            high_ns: b.high_ns as f64,
                            count: b.count,
                        })
                        .collect(),
                ),
                ..ResultSummary::default()
            },
            max_cpu: s.max_cpu,
            overruns: s.overruns,
            longest_overrun_run: s.longest_overrun_run,
            histogram_overflow: s.histogram_overflow,
            histogram_underflow: s.histogram_underflow,
            histogram_highest_ns: s.histogram_highest_ns,
            hdr: s.hdr,
            irq_latency_ns: s.irq_latency_ns,
            thread_latency_ns: s.thread_latency_ns,
        }
    }
}

/// Why a JSON summary is not a complete measure summary (read back by `merge`, `compare`
/// and `fit`); serde puts the message after the place it was read from.
#[derive(Debug, thiserror::Error)]
pub enum StatsFieldError {
    #[error("missing field `{0}`")]
    Missing(&'static str),
    #[error("`{0}` is null")]
    Null(&'static str),
    #[error("`{key}` is {value}, expected whole nanoseconds")]
    NotWhole { key: &'static str, value: f64 },
}

fn need(v: Stat, key: &'static str) -> Result<f64, StatsFieldError> {
    match v {
        Some(Some(x)) if x.is_finite() => Ok(x),
        Some(_) => Err(StatsFieldError::Null(key)),
        None => Err(StatsFieldError::Missing(key)),
    }
}

fn whole(x: f64, key: &'static str) -> Result<i64, StatsFieldError> {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Ok(x as i64)
    } else {
        Err(StatsFieldError::NotWhole { key, value: x })
    }
}

fn int(v: Stat, key: &'static str) -> Result<i64, StatsFieldError> {
    whole(need(v, key)?, key)
}

impl TryFrom<StatsJson> for Stats {
    type Error = StatsFieldError;
    fn try_from(j: StatsJson) -> Result<Stats, StatsFieldError> {
        let s = j.summary;
        let histogram = s
            .histogram
            .ok_or(StatsFieldError::Missing("histogram"))?
            .into_iter()
            .map(|b| {
                Ok(HistBucket {
                    low_ns: whole(b.low_ns, "histogram[].low_ns")?,
                    high_ns: whole(b.high_ns, "histogram[].high_ns")?,
                    count: b.count,
                })
            })
            .collect::<Result<Vec<_>, StatsFieldError>>()?;
        Ok(Stats {
            count: s.count,
            min_ns: int(s.min_ns, "min_ns")?,
            mean_ns: need(s.mean_ns, "mean_ns")?,
            stdev_ns: need(s.stdev_ns, "stdev_ns")?,
            p50_ns: int(s.p50_ns, "p50_ns")?,
            p90_ns: int(s.p90_ns, "p90_ns")?,
            p99_ns: int(s.p99_ns, "p99_ns")?,
            p999_ns: int(s.p999_ns, "p999_ns")?,
            p9999_ns: int(s.p9999_ns, "p9999_ns")?,
            max_ns: int(s.max_ns, "max_ns")?,
            max_at_ns: int(s.max_at_ns, "max_at_ns")?,
            max_cpu: j.max_cpu,
            overruns: j.overruns,
            longest_overrun_run: j.longest_overrun_run,
            histogram,
            histogram_overflow: j.histogram_overflow,
            histogram_underflow: j.histogram_underflow,
            histogram_highest_ns: j.histogram_highest_ns,
            hdr: j.hdr,
            irq_latency_ns: j.irq_latency_ns,
            thread_latency_ns: j.thread_latency_ns,
        })
    }
}
