//! The typed summary of a set of durations, as every result writes it: measure's
//! per-CPU statistics (`cpus[]`, `total`), trace's measurements (`measurements[]`) and
//! simulate's response-time and tick figures (`tasks[].response`, `tick`, `switches`).
//!
//! One type reads any of them back: the union of their fields under the JSON keys they
//! already use (count, min/max and where they happened, mean, stdev, mode, percentiles
//! up to p99.99, histogram). A field a result does not write is absent (`None`); a
//! statistic of an empty set is written as `null` and read as `Some(None)`, so a reader
//! can tell "not computed here" from "no instances". Its JSON Schema is
//! docs/summary.schema.json, generated from this type (see [`schema_json`]).

use crate::jsonnum;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A statistic: absent (`None`), `null` (`Some(None)`: no instances) or a value in ns.
pub type Stat = Option<Option<f64>>;

fn stat<'de, D: Deserializer<'de>>(d: D) -> Result<Stat, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

// Only called for `Some` (the fields skip `None`): `null`, or the number as
// [`jsonnum::write`] writes it (whole nanoseconds without a fraction).
fn put<S: Serializer>(v: &Stat, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(Some(x)) => jsonnum::write(*x, s),
        _ => s.serialize_none(),
    }
}

/// A computed statistic as the summary holds it: NaN (no instances) is `Some(None)`.
pub fn val(x: f64) -> Stat {
    Some(x.is_finite().then_some(x))
}

/// A statistic back as a plain number: NaN when absent or null.
pub fn nan(s: Stat) -> f64 {
    s.flatten().unwrap_or(f64::NAN)
}

/// One histogram bin: values in `[low_ns, high_ns)` (measure: 1 µs bins from the
/// histogram; trace: equal-width bins over the range).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistogramBin {
    #[serde(serialize_with = "jsonnum::whole")]
    pub low_ns: f64,
    #[serde(serialize_with = "jsonnum::whole")]
    pub high_ns: f64,
    pub count: u64,
}

/// The summary of a set of durations (see the module documentation). Statistics are in
/// nanoseconds; `min_at_ns`/`max_at_ns` are when the extreme happened (from the run's or
/// capture's start).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultSummary {
    /// Number of values summarised.
    #[serde(default)]
    pub count: u64,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_at_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_at_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub mean_ns: Stat,
    /// Sample standard deviation (n − 1).
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub stdev_ns: Stat,
    /// Most frequent value (histogram bin centre).
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub mode_ns: Stat,
    /// Nearest-rank percentiles (docs/statistics.md).
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub p50_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub p90_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub p99_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub p999_ns: Stat,
    #[serde(
        default,
        deserialize_with = "stat",
        serialize_with = "put",
        skip_serializing_if = "Option::is_none"
    )]
    pub p9999_ns: Stat,
    /// Non-empty bins in increasing order (measure: its log-linear histogram; trace:
    /// equal-width bins); absent where a result keeps no histogram (simulate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Vec<HistogramBin>>,
}

impl ResultSummary {
    /// The statistics by the names users give them (`latscope fit --stat`, limits).
    pub const STATS: [&'static str; 10] = [
        "min", "max", "mean", "stdev", "mode", "p50", "p90", "p99", "p999", "p9999",
    ];

    /// A statistic by name (`max`, `p99`, ...): `None` when the name is unknown or the
    /// result does not carry it, `Some(None)` when it is null (no instances).
    pub fn stat(&self, name: &str) -> Stat {
        match name {
            "min" => self.min_ns,
            "max" => self.max_ns,
            "mean" => self.mean_ns,
            "stdev" => self.stdev_ns,
            "mode" => self.mode_ns,
            "p50" => self.p50_ns,
            "p90" => self.p90_ns,
            "p99" => self.p99_ns,
            "p999" => self.p999_ns,
            "p9999" => self.p9999_ns,
            _ => None,
        }
    }

    /// A statistic by name as a number: `None` when absent or null.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.stat(name).flatten()
    }

    /// True when the summary carries nothing (an empty object).
    pub fn is_blank(&self) -> bool {
        self.count == 0 && self.present().is_empty() && self.histogram.is_none()
    }

    /// The names of the statistics this summary carries (present, null or not).
    pub fn present(&self) -> Vec<&'static str> {
        Self::STATS
            .iter()
            .copied()
            .filter(|s| self.stat(s).is_some())
            .collect()
    }
}

/// A summary that could not be read: the JSON key at fault and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{key}`: {message}")]
pub struct FieldError {
    /// The key (e.g. `max_ns`), or empty when the value is not an object.
    pub key: String,
    pub message: String,
}

impl ResultSummary {
    /// Reads a summary from a JSON object; a value of the wrong type is an error naming
    /// its key (`max_ns`).
    pub fn from_json(v: &serde_json::Value) -> Result<ResultSummary, FieldError> {
        ResultSummary::deserialize(v).map_err(|e| {
            let bad = |k: &str| match v.get(k) {
                None | Some(serde_json::Value::Null) | Some(serde_json::Value::Number(_)) => false,
                Some(_) => true,
            };
            let key = Self::STATS
                .iter()
                .map(|s| format!("{s}_ns"))
                .chain(["count", "min_at_ns", "max_at_ns", "histogram"].map(String::from))
                .find(|k| k != "histogram" && bad(k))
                .or_else(|| {
                    v.get("histogram")
                        .is_some_and(|h| {
                            !h.is_array() || Vec::<HistogramBin>::deserialize(h).is_err()
                        })
                        .then(|| "histogram".to_string())
                })
                .unwrap_or_default();
            let message = match v.get(&key) {
                Some(x) if !key.is_empty() && key != "histogram" => format!("{x} is not a number"),
                _ => e.to_string(),
            };
            FieldError { key, message }
        })
    }
}

/// The JSON Schema of [`ResultSummary`] (docs/summary.schema.json is this text).
pub fn schema_json() -> String {
    let s = schemars::schema_for!(ResultSummary);
    serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_result_kind() {
        // measure (integers, p9999, histogram), trace (null stats, mode), simulate (subset)
        let m: ResultSummary = serde_json::from_str(
            r#"{"count":3,"min_ns":5,"mean_ns":6.5,"stdev_ns":1.0,"p50_ns":6,"p90_ns":7,
               "p99_ns":8,"p999_ns":8,"p9999_ns":8,"max_ns":8,"max_at_ns":100,"max_cpu":1,
               "histogram":[{"low_ns":0,"high_ns":1000,"count":3}]}"#,
        )
        .unwrap();
        assert_eq!(m.p9999_ns, Some(Some(8.0)));
        assert_eq!(m.histogram.as_ref().map(Vec::len), Some(1));
        assert_eq!(m.stat("mode"), None);
        let t: ResultSummary =
            serde_json::from_str(r#"{"count":0,"max_ns":null,"mode_ns":null}"#).unwrap();
        assert_eq!(t.stat("max"), Some(None));
        assert_eq!(t.stat("p99"), None);
        assert_eq!(t.present(), vec!["max", "mode"]);
        let s: ResultSummary =
            serde_json::from_str(r#"{"count":2,"min_ns":1.5,"max_ns":2.5,"p99_ns":2.5}"#).unwrap();
        assert_eq!(s.stat("min"), Some(Some(1.5)));
        assert_eq!(s.stat("bogus"), None);
    }

    #[test]
    fn round_trips_and_keeps_nulls() {
        let t: ResultSummary = serde_json::from_str(r#"{"count":0,"max_ns":null}"#).unwrap();
        let text = serde_json::to_string(&t).unwrap();
        assert_eq!(text, r#"{"count":0,"max_ns":null}"#);
        assert_eq!(serde_json::from_str::<ResultSummary>(&text).unwrap(), t);
    }

    #[test]
    fn writes_whole_numbers_as_integers() {
        let s = ResultSummary {
            count: 2,
            min_ns: val(1500.0),
            max_ns: val(2500.5),
            mode_ns: val(f64::NAN),
            histogram: Some(vec![HistogramBin {
                low_ns: 1000.0,
                high_ns: 2000.0,
                count: 1,
            }]),
            ..Default::default()
        };
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"count":2,"min_ns":1500,"max_ns":2500.5,"mode_ns":null,"histogram":[{"low_ns":1000,"high_ns":2000,"count":1}]}"#
        );
        assert_eq!(serde_json::from_str::<ResultSummary>(&text).unwrap(), s);
        assert!(nan(s.mode_ns).is_nan() && nan(s.p99_ns).is_nan());
        assert_eq!(s.get("max"), Some(2500.5));
    }

    #[test]
    fn a_wrong_type_is_an_error_naming_the_field() {
        let e = serde_json::from_str::<ResultSummary>(r#"{"count":1,"max_ns":"big"}"#).unwrap_err();
        assert!(e.to_string().contains("invalid type"), "{e}");
    }

    #[test]
    fn checked_in_schema_is_generated_from_the_type() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/summary.schema.json"
        );
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            on_disk == schema_json(),
            "docs/summary.schema.json is stale: regenerate it with \
             `cargo run -p latscope-core --example summary_schema > docs/summary.schema.json`"
        );
    }
}
