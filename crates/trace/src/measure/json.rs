//! A measurement as JSON (`measurements[]` of `latscope trace --json`): its statistics
//! are the shared summary of every result (`latscope_core::summary::ResultSummary`:
//! count, min/max and where they happened, mean, stdev, mode, percentiles, histogram),
//! beside what only a trace measurement has (definition, unit, sample indices, worst
//! instances, jitter, busy percentages, windows).

use super::{Bin, Instance, Jitter, Measurement, PercentStats, WindowPoint};
use latscope_core::summary::{nan, val, HistogramBin, ResultSummary};
use latscope_core::words::Word;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

latscope_core::words!(fn kind_word = ["pulse", "latency", "period", "busy", "count"]);
latscope_core::words!(fn unit_word = ["ns", "count"]);

/// The JSON form of [`Measurement`] (`values`, kept for `--series`, is not written).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct MeasurementJson {
    pub name: String,
    /// `pulse`, `latency`, `period`, `busy` or `count`.
    #[serde(deserialize_with = "kind_word")]
    pub kind: Word,
    pub definition: String,
    /// Unit of the `*_ns` statistics: "ns", or "count" for count measurements (their
    /// `*_ns` fields then hold pulse counts).
    #[serde(deserialize_with = "unit_word")]
    pub unit: Word,
    /// The statistics; `null` when `count` is 0 (no instance in the range).
    #[serde(flatten)]
    pub summary: ResultSummary,
    /// Sample index (from the capture start) of the min / max, when the rate is known.
    pub min_at_sample: Option<i64>,
    pub max_at_sample: Option<i64>,
    /// One sample period: every edge time is uncertain by ±1 sample.
    pub resolution_ns: Option<f64>,
    pub unmatched: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmatched_to: Option<u64>,
    pub worst: Vec<Instance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_hz: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Jitter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_percent: Option<PercentStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<Vec<WindowPoint>>,
}

impl MeasurementJson {
    /// Everything but the per-instance values (bounded: worst list, bins, windows).
    fn of(m: &Measurement) -> MeasurementJson {
        MeasurementJson {
            name: m.name.clone(),
            kind: m.kind,
            definition: m.definition.clone(),
            unit: m.unit,
            summary: ResultSummary {
                count: m.count,
                min_ns: val(m.min_ns),
                max_ns: val(m.max_ns),
                min_at_ns: val(m.min_at_ns),
                max_at_ns: val(m.max_at_ns),
                mean_ns: val(m.mean_ns),
                stdev_ns: val(m.stdev_ns),
                mode_ns: val(m.mode_ns),
                p50_ns: val(m.p50_ns),
                p90_ns: val(m.p90_ns),
                p99_ns: val(m.p99_ns),
                p999_ns: val(m.p999_ns),
                p9999_ns: val(m.p9999_ns),
                histogram: Some(
                    m.histogram
                        .iter()
                        .map(|b| HistogramBin {
                            low_ns: b.low_ns,
                            high_ns: b.high_ns,
                            count: b.count,
                        })
                        .collect(),
                ),
            },
            min_at_sample: m.min_at_sample,
            max_at_sample: m.max_at_sample,
            resolution_ns: m.resolution_ns,
            unmatched: m.unmatched,
            unmatched_to: m.unmatched_to,
            worst: m.worst.clone(),
            frequency_hz: m.frequency_hz,
            jitter: m.jitter.clone(),
            busy_percent: m.busy_percent.clone(),
            series: m.series.clone(),
        }
    }
}

impl Serialize for Measurement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        MeasurementJson::of(self).serialize(s)
    }
}

impl JsonSchema for Measurement {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Measurement".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        MeasurementJson::json_schema(g)
    }
}

/// Why a JSON measurement cannot be read back: serde puts this after the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("measurement has no `histogram`")]
pub struct NoHistogram;

impl TryFrom<MeasurementJson> for Measurement {
    type Error = NoHistogram;
    fn try_from(j: MeasurementJson) -> Result<Measurement, NoHistogram> {
        let s = j.summary;
        let histogram = s
            .histogram
            .ok_or(NoHistogram)?
            .into_iter()
            .map(|b| Bin {
                low_ns: b.low_ns,
                high_ns: b.high_ns,
                count: b.count,
            })
            .collect();
        Ok(Measurement {
            name: j.name,
            kind: j.kind,
            definition: j.definition,
            unit: j.unit,
            count: s.count,
            min_ns: nan(s.min_ns),
            max_ns: nan(s.max_ns),
            mean_ns: nan(s.mean_ns),
            stdev_ns: nan(s.stdev_ns),
            mode_ns: nan(s.mode_ns),
            p50_ns: nan(s.p50_ns),
            p90_ns: nan(s.p90_ns),
            p99_ns: nan(s.p99_ns),
            p999_ns: nan(s.p999_ns),
            p9999_ns: nan(s.p9999_ns),
            min_at_ns: nan(s.min_at_ns),
            max_at_ns: nan(s.max_at_ns),
            min_at_sample: j.min_at_sample,
            max_at_sample: j.max_at_sample,
            resolution_ns: j.resolution_ns,
            unmatched: j.unmatched,
            unmatched_to: j.unmatched_to,
            worst: j.worst,
            histogram,
            frequency_hz: j.frequency_hz,
            jitter: j.jitter,
            busy_percent: j.busy_percent,
            series: j.series,
            values: Vec::new(),
        })
    }
}
