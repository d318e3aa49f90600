//! Typed views of latscope results for the report's sections.
//!
//! A summary is the results crate's one summary of durations
//! ([`DurationSummary`], the type every result writes), held in [`Stats`] with what a table
//! row adds beside it (measure's overruns, trace's resolution). Histogram bins, sweep points
//! and environment items are read from the typed documents the sections get
//! (`latscope_results`); the raw samples of `measure --samples` are the typed [`Samples`]
//! that `Input::parse_bytes` fills. A section a result does not carry yields an empty vector
//! or `None` (the section is skipped).
//! The CSV series, timelines and sweep counts that are not results are read through
//! [`crate::artifacts`].

use latscope_results::summary::{DurationSummary, HistogramBin};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A point of a time series: (time ns, value).
pub type Point = (f64, f64);

/// One named component of a response time or of a utilisation split.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    pub value: f64,
}

/// The summary of one latency population as a table row or a chart takes it: the one
/// summary type of the results ([`DurationSummary`]: count, min/max and when, mean,
/// stdev, percentiles, histogram, all in ns) and what a row shows beside it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    #[serde(flatten)]
    pub summary: DurationSummary,
    /// Periods missed (measure's `overruns`); absent where a result has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overruns: Option<f64>,
    /// Value resolution (trace's `resolution_ns`, one sample period for sample-quantised
    /// data).
    #[serde(
        default,
        rename = "resolution_ns",
        skip_serializing_if = "Option::is_none"
    )]
    pub resolution: Option<f64>,
}

impl From<DurationSummary> for Stats {
    fn from(summary: DurationSummary) -> Stats {
        Stats {
            summary,
            overruns: None,
            resolution: None,
        }
    }
}

impl Stats {
    /// Reads a summary (`count`, `min_ns`, …, `p9999_ns`, `max_at_ns`, with measure's
    /// `overruns` and trace's `resolution_ns`) through its type; `None` when it is not one
    /// (not an object, a value of the wrong type, or no statistic at all).
    pub fn from_value(v: &Value) -> Option<Stats> {
        let mut s = Stats::deserialize(v).ok()?;
        if s.summary.is_blank() {
            return None;
        }
        s.resolution = s.resolution.filter(|r| r.is_finite() && *r > 0.0);
        Some(s)
    }

    /// A statistic by the name the tables use (`count`, `min`, `mean`, `stdev`, `p50`,
    /// `p90`, `p99`, `p99.9`/`p999`, `p99.99`/`p9999`, `max`, `max at`, `overruns`): `None`
    /// when absent or null (no instances).
    pub fn stat(&self, name: &str) -> Option<f64> {
        let s = &self.summary;
        match name {
            "count" => Some(s.count as f64),
            "min" => s.min_ns.flatten(),
            "mean" => s.mean_ns.flatten(),
            "stdev" => s.stdev_ns.flatten(),
            "mode" => s.mode_ns.flatten(),
            "p50" => s.p50_ns.flatten(),
            "p90" => s.p90_ns.flatten(),
            "p99" => s.p99_ns.flatten(),
            "p99.9" | "p999" => s.p999_ns.flatten(),
            "p99.99" | "p9999" => s.p9999_ns.flatten(),
            "max" => s.max_ns.flatten(),
            "max at" => s.max_at_ns.flatten(),
            "overruns" => self.overruns,
            _ => None,
        }
        .filter(|v| v.is_finite())
    }

    pub fn count(&self) -> Option<f64> {
        self.stat("count")
    }
    pub fn min(&self) -> Option<f64> {
        self.stat("min")
    }
    pub fn max(&self) -> Option<f64> {
        self.stat("max")
    }
    pub fn max_at(&self) -> Option<f64> {
        self.stat("max at")
    }

    /// Named percentile points present in this summary, as (fraction, ns, name).
    pub fn percentile_points(&self) -> Vec<(f64, f64, &'static str)> {
        [
            (0.5, "p50", "p50"),
            (0.9, "p90", "p90"),
            (0.99, "p99", "p99"),
            (0.999, "p999", "p99.9"),
            (0.9999, "p9999", "p99.99"),
        ]
        .into_iter()
        .filter_map(|(p, key, name)| Some((p, self.stat(key)?, name)))
        .collect()
    }

    /// The summary's histogram, in increasing order (empty when it keeps none).
    pub fn buckets(&self) -> Vec<Bucket> {
        buckets(self.summary.histogram.as_deref().unwrap_or(&[]))
    }
}

/// One histogram bucket: `count` values in `[low, high)` nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    pub low: f64,
    pub high: f64,
    pub count: f64,
}

/// For sample-quantised data (every value a multiple of `res`, e.g. pulse widths from a
/// capture at one sample per `res` ns) whose buckets are on the sample grid (both edges whole
/// multiples of `res`, as `latscope trace` writes them), the bucket `[low, high)` holds the
/// values `low, low + res, …, high − res`. Returns, per non-empty bucket in order, the smallest
/// and the largest value it can hold and its count; `None` when the resolution is unknown or
/// any edge is off the grid (HDR buckets, interpolated times).
pub fn quantised(b: &[Bucket], res: Option<f64>) -> Option<Vec<(f64, f64, f64)>> {
    let res = res.filter(|r| r.is_finite() && *r > 0.0)?;
    let on_grid = |x: f64| ((x / res) - (x / res).round()).abs() <= 1e-3;
    let mut out = Vec::new();
    for k in b.iter().filter(|k| k.count > 0.0) {
        if !on_grid(k.low) || !on_grid(k.high) || k.high - k.low < res * 0.999 {
            return None;
        }
        let lo = (k.low / res).round() * res;
        let hi = (k.high / res).round() * res - res;
        // The edge itself when it is the value (no float noise such as 2999.9999).
        let lo = if (lo - k.low).abs() <= res * 1e-3 {
            k.low
        } else {
            lo
        };
        out.push((lo, hi.max(lo), k.count));
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Buckets of the results' histogram bins, in increasing order; a bin with a non-finite
/// or inverted range is dropped.
pub fn buckets(bins: &[HistogramBin]) -> Vec<Bucket> {
    sorted_buckets(bins.iter().map(|b| (b.low_ns, b.high_ns, b.count)))
}

/// Buckets of `(low_ns, high_ns, count)` bins in increasing order; a bin with a
/// non-finite or inverted range is dropped.
pub fn sorted_buckets(bins: impl IntoIterator<Item = (f64, f64, u64)>) -> Vec<Bucket> {
    let mut out: Vec<Bucket> = bins
        .into_iter()
        .filter(|(low, high, _)| low.is_finite() && high.is_finite() && high >= low)
        .map(|(low, high, count)| Bucket {
            low,
            high,
            count: count as f64,
        })
        .collect();
    out.sort_by(|a, b| a.low.total_cmp(&b.low));
    out
}

/// One environment diagnosis item.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvItem {
    pub name: String,
    pub status: String,
    pub value: String,
    pub explanation: String,
}

/// How an environment status (or any verdict word) should be coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Good,
    Warn,
    Bad,
    Neutral,
}

pub fn tone_of(status: &str) -> Tone {
    match status.to_ascii_lowercase().as_str() {
        "ok" | "good" | "pass" | "passed" | "green" | "fine" | "yes" | "within" => Tone::Good,
        "warn" | "warning" | "caution" | "degraded" | "amber" | "yellow" | "notice" => Tone::Warn,
        "bad" | "fail" | "failed" | "error" | "critical" | "red" | "outside" | "danger" => {
            Tone::Bad
        }
        _ => Tone::Neutral,
    }
}

/// A point of a sleep-length sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    pub interval_ns: f64,
    pub stats: Stats,
}

/// The raw samples of `measure --samples` (CSV or binary) as the report reads them: exact
/// statistics of all samples, then one entry per CPU and phase with its points and its
/// overruns. Filled by `Input::parse_bytes` and kept as the input's JSON; read back through
/// this type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Samples {
    /// All samples of every CPU and phase.
    pub total: Stats,
    /// Phases in the file (`--compare-load`: 0 idle, 1 loaded); one phase: `[0]`.
    #[serde(default)]
    pub phases: Vec<u32>,
    #[serde(default)]
    pub cpus: Vec<SamplesCpu>,
}

/// The samples of one CPU in one phase.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplesCpu {
    pub cpu: u32,
    #[serde(default)]
    pub phase: u32,
    #[serde(flatten)]
    pub stats: Stats,
    /// (intended wake time, latency) in ns; the time counts from the phase's start, as
    /// measure's `max_at_ns` does. At most 200,000 (the envelope of longer runs).
    #[serde(default)]
    pub points: Vec<Point>,
    /// (intended wake time, periods) of each missed-period row (`--overrun catch-up`).
    #[serde(default)]
    pub missed: Vec<Point>,
}

impl Samples {
    /// The samples document an input holds (`None` when it is not one).
    pub fn of(doc: &Value) -> Option<Samples> {
        Samples::deserialize(doc).ok()
    }

    /// How a CPU entry is named: `CPU 2`, with the phase when the file has several
    /// (`CPU 2, loaded` for `--compare-load`).
    pub fn label(&self, c: &SamplesCpu) -> String {
        if self.phases.len() > 1 {
            let phase = match (self.phases.len(), c.phase) {
                (2, 0) => "idle".to_string(),
                (2, 1) => "loaded".to_string(),
                (_, p) => format!("phase {p}"),
            };
            format!("CPU {}, {phase}", c.cpu)
        } else {
            format!("CPU {}", c.cpu)
        }
    }
}

/// The statistics of all samples of a raw-samples document (`measure --samples`, read by
/// [`crate::Input::parse_bytes`]).
pub fn samples_total(doc: &Value) -> Option<Stats> {
    Samples::of(doc).map(|s| s.total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_results::summary::val;

    #[test]
    fn stats_read_the_shared_summary() {
        let text = r#"{"count": 10, "min_ns": 1, "mean_ns": 2.5, "p50_ns": 2, "p99_ns": 9,
            "p999_ns": 9, "max_ns": 10, "overruns": 0}"#;
        let s = Stats::from_value(&serde_json::from_str(text).unwrap()).unwrap();
        assert_eq!(s.count(), Some(10.0));
        assert_eq!(s.max(), Some(10.0));
        assert_eq!(s.summary.max_ns, val(10.0));
        assert_eq!(s.overruns, Some(0.0));
        assert_eq!(s.percentile_points().len(), 3);
        let v = |t: &str| serde_json::from_str::<Value>(t).unwrap();
        assert!(Stats::from_value(&v(r#"{"foo": 1}"#)).is_none());
        // Typed: the guessed alternatives of old are not read, a wrong type is no summary.
        let s = Stats::from_value(&v(r#"{"count": 3, "min": 1, "max_ns": 4}"#)).unwrap();
        assert_eq!((s.min(), s.max()), (None, Some(4.0)));
        assert!(Stats::from_value(&v(r#"{"count": 3, "max_ns": "4"}"#)).is_none());
        // null statistics (no instance) read as absent values.
        let s = Stats::from_value(&v(r#"{"count": 0, "max_ns": null}"#)).unwrap();
        assert_eq!((s.count(), s.max()), (Some(0.0), None));
    }

    #[test]
    fn buckets_are_the_summary_bins() {
        let bin = |low_ns, high_ns, count| HistogramBin {
            low_ns,
            high_ns,
            count,
        };
        let b = buckets(&[bin(10.0, 20.0, 3), bin(0.0, 10.0, 1), bin(30.0, 20.0, 3)]);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].low, 0.0);
        assert_eq!(b[1].count, 3.0);
        assert!(buckets(&[]).is_empty());
    }

    #[test]
    fn tones() {
        assert_eq!(tone_of("OK"), Tone::Good);
        assert_eq!(tone_of("warn"), Tone::Warn);
        assert_eq!(tone_of("bad"), Tone::Bad);
        assert_eq!(tone_of("info"), Tone::Neutral);
    }
}
