//! Typed views of latscope JSON results for the report's sections.
//!
//! Summaries (`Stats`), histogram bins, worst instances, sweep points and environment
//! items are read as the types the producers write (the shared
//! `latscope_core::summary::ResultSummary` and its bins, under their documented keys;
//! `Input::from_value` has already checked every summary of a result, naming the key at
//! fault). A section a result does not carry yields an empty vector or `None` (the
//! section is skipped). The remaining accessors read generic shapes: CSV time series and
//! the named parts of an analysis breakdown.

use latscope_core::summary::{HistogramBin, ResultSummary};
use serde::Deserialize;
use serde_json::Value;

/// A numeric member, also accepting numbers written as strings.
pub fn num(v: &Value, key: &str) -> Option<f64> {
    match v.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

/// The first of several numeric members that is present.
pub fn num_any(v: &Value, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| num(v, k))
}

/// A string member; numbers and booleans are rendered as text.
pub fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The first of several string members that is present.
pub fn text_any(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| text(v, k))
}

/// A boolean member (also `"yes"`/`"no"`, `"true"`/`"false"`).
pub fn flag(v: &Value, key: &str) -> Option<bool> {
    match v.get(key)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "ok" | "pass" => Some(true),
            "false" | "no" | "fail" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// An array member, or an empty slice.
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Summary statistics of one latency population (all times in ns).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub count: Option<f64>,
    pub min: Option<f64>,
    pub mean: Option<f64>,
    pub stdev: Option<f64>,
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub p999: Option<f64>,
    pub p9999: Option<f64>,
    pub max: Option<f64>,
    pub overruns: Option<f64>,
    pub max_at: Option<f64>,
    /// Value resolution (`resolution_ns`, one sample period for sample-quantised data).
    pub resolution: Option<f64>,
}

/// What a summary carries beside the shared statistics: measure's overruns and trace's
/// resolution.
#[derive(serde::Deserialize)]
struct StatsDoc {
    #[serde(flatten)]
    summary: ResultSummary,
    #[serde(default)]
    overruns: Option<f64>,
    #[serde(default)]
    resolution_ns: Option<f64>,
}

impl Stats {
    /// Reads a summary as the typed summary every result writes
    /// ([`ResultSummary`]: `count`, `min_ns`, …, `p9999_ns`, `max_at_ns`) with measure's
    /// `overruns` and trace's `resolution_ns`; `None` when it is not one (not an object,
    /// a value of the wrong type, or no statistic at all).
    pub fn from_value(v: &Value) -> Option<Stats> {
        if !v.is_object() {
            return None;
        }
        let d = StatsDoc::deserialize(v).ok()?;
        let s = d.summary;
        if v.get("count").is_none() && s.present().is_empty() {
            return None;
        }
        Some(Stats {
            count: Some(s.count as f64),
            min: s.get("min"),
            mean: s.get("mean"),
            stdev: s.get("stdev"),
            p50: s.get("p50"),
            p90: s.get("p90"),
            p99: s.get("p99"),
            p999: s.get("p999"),
            p9999: s.get("p9999"),
            max: s.get("max"),
            overruns: d.overruns,
            max_at: s.max_at_ns.flatten(),
            resolution: d.resolution_ns.filter(|r| r.is_finite() && *r > 0.0),
        })
    }

    /// Named percentile points present in this summary, as (fraction, ns).
    pub fn percentile_points(&self) -> Vec<(f64, f64, &'static str)> {
        let mut out = Vec::new();
        for (p, v, name) in [
            (0.5, self.p50, "p50"),
            (0.9, self.p90, "p90"),
            (0.99, self.p99, "p99"),
            (0.999, self.p999, "p99.9"),
            (0.9999, self.p9999, "p99.99"),
        ] {
            if let Some(v) = v {
                out.push((p, v, name));
            }
        }
        out
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

/// Histogram buckets of a summary's `histogram` (`[{low_ns, high_ns, count}]`, the
/// shared summary's bins), in increasing order; empty when absent or not bins. Buckets
/// with a non-finite or inverted range are dropped.
pub fn buckets(v: Option<&Value>) -> Vec<Bucket> {
    let Some(bins) = v.and_then(|v| Vec::<HistogramBin>::deserialize(v).ok()) else {
        return Vec::new();
    };
    sorted_buckets(bins.into_iter().map(|b| (b.low_ns, b.high_ns, b.count)))
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

/// One item of measure's environment diagnosis as written (`environment.items[]`).
#[derive(Deserialize)]
struct EnvDoc {
    name: String,
    status: String,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    effect: Option<String>,
}

/// `environment.items[]` of a measure result; empty when absent or not items.
pub fn env_items(doc: &Value) -> Vec<EnvItem> {
    doc.get("environment")
        .and_then(|e| e.get("items"))
        .and_then(|i| Vec::<EnvDoc>::deserialize(i).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|i| EnvItem {
            name: i.name,
            status: i.status,
            value: i.value.unwrap_or_default(),
            explanation: i.effect.unwrap_or_default(),
        })
        .collect()
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

/// A point of a time series: (time ns, value).
pub type Point = (f64, f64);

/// A time series in any of the accepted shapes:
/// `[{t_ns, value_ns}]` (time keys `t_ns`, `time_ns`, `at_ns`; value keys `value_ns`,
/// `duration_ns`, `latency_ns`, `value`), `[[t, v]]`, or `{t_ns: [...], value_ns: [...]}`
/// (also nested under `points`).
pub fn series(v: Option<&Value>) -> Vec<Point> {
    const T: &[&str] = &["t_ns", "time_ns", "at_ns", "start_ns", "t", "time"];
    const V: &[&str] = &[
        "value_ns",
        "duration_ns",
        "latency_ns",
        "response_ns",
        "value",
        "v",
        "duration",
    ];
    let mut out: Vec<Point> = match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|p| match p {
                Value::Array(t) if t.len() >= 2 => Some((t[0].as_f64()?, t[1].as_f64()?)),
                Value::Object(_) => Some((num_any(p, T)?, num_any(p, V)?)),
                _ => None,
            })
            .collect(),
        Some(obj @ Value::Object(_)) => {
            if let Some(p) = obj.get("points") {
                return series(Some(p));
            }
            let ts = T.iter().find_map(|k| obj.get(*k).and_then(Value::as_array));
            let vs = V.iter().find_map(|k| obj.get(*k).and_then(Value::as_array));
            match (ts, vs) {
                (Some(ts), Some(vs)) => ts
                    .iter()
                    .zip(vs)
                    .filter_map(|(t, v)| Some((t.as_f64()?, v.as_f64()?)))
                    .collect(),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    out.retain(|(t, v)| t.is_finite() && v.is_finite());
    out
}

/// The points of the series called `name` in a series document (what
/// [`crate::Input::parse`] makes of a CSV time series), when it has one.
pub fn named_series(doc: &Value, name: &str) -> Option<Vec<Point>> {
    arr(doc, "series")
        .iter()
        .find(|s| text(s, "name").as_deref() == Some(name))
        .map(|s| series(s.get("points")))
}

/// The `points` of one series of a series document.
pub fn points_of(series_entry: &Value) -> Vec<Point> {
    series(series_entry.get("points"))
}

/// The statistics of all samples of a raw-samples document (`measure --samples`, read by
/// [`crate::Input::parse_bytes`]).
pub fn samples_total(doc: &Value) -> Option<Stats> {
    doc.get("total").and_then(Stats::from_value)
}

/// A point of a sleep-length sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    pub interval_ns: f64,
    pub stats: Stats,
}

/// `sweep[]` of a measure result: `{interval_ns, total: {...}}`, by interval.
pub fn sweep(doc: &Value) -> Vec<SweepPoint> {
    let mut out: Vec<SweepPoint> = arr(doc, "sweep")
        .iter()
        .filter_map(|p| {
            Some(SweepPoint {
                interval_ns: p.get("interval_ns")?.as_f64()?,
                stats: p.get("total").and_then(Stats::from_value)?,
            })
        })
        .collect();
    out.sort_by(|a, b| a.interval_ns.total_cmp(&b.interval_ns));
    out
}

/// One named component of a response time or of a utilisation split.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    pub value: f64,
}

/// Flattens an object of numbers (nested objects give `outer inner` names, `_ns` suffixes are
/// removed) or an array of `{name, value_ns|value}` into named parts; zero parts are kept.
pub fn parts(v: Option<&Value>) -> Vec<Part> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<Part>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let k = clean_key(k);
                    let name = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix} {k}")
                    };
                    walk(&name, x, out);
                }
            }
            Value::Array(items) => {
                for it in items {
                    if let (Some(n), Some(x)) = (
                        text_any(it, &["name", "component", "task", "kind"]),
                        num_any(it, &["value_ns", "ns", "value", "time_ns", "fraction"]),
                    ) {
                        let name = if prefix.is_empty() {
                            n
                        } else {
                            format!("{prefix} {n}")
                        };
                        out.push(Part { name, value: x });
                    }
                }
            }
            Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    out.push(Part {
                        name: prefix.to_string(),
                        value: x,
                    });
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(v) = v {
        walk("", v, &mut out);
    }
    out.retain(|p| p.value.is_finite() && !p.name.is_empty());
    out
}

/// Like [`parts`], but a nested object or array (e.g. interference per higher-priority task)
/// becomes one part holding its sum; `total` members are left out.
pub fn parts_grouped(v: Option<&Value>) -> Vec<Part> {
    let Some(Value::Object(m)) = v else {
        return parts(v);
    };
    let mut out = Vec::new();
    for (k, x) in m {
        let name = clean_key(k);
        if name.contains("total") {
            continue;
        }
        let value = match x {
            Value::Number(n) => n.as_f64(),
            Value::Object(_) | Value::Array(_) => {
                Some(parts(Some(x)).iter().map(|p| p.value).sum())
            }
            _ => None,
        };
        if let Some(value) = value.filter(|v| v.is_finite()) {
            out.push(Part { name, value });
        }
    }
    out
}

/// `wcet_ns` → `wcet`, `context_switch` → `context switch`.
pub fn clean_key(k: &str) -> String {
    let k = k
        .strip_suffix("_ns")
        .or_else(|| k.strip_suffix("_fraction"))
        .unwrap_or(k);
    k.replace('_', " ")
}

/// Scalar members of an object (strings, numbers, booleans), for "run settings" tables.
pub fn scalars(v: &Value, skip: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(m) = v.as_object() {
        for (k, x) in m {
            if skip.contains(&k.as_str()) {
                continue;
            }
            let s = match x {
                Value::String(s) => s.clone(),
                Value::Number(n) => {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    if k.ends_with("_ns") {
                        crate::units::dur(f)
                    } else if k.ends_with("_hz") {
                        format!("{} Hz", crate::units::int(f))
                    } else if f.fract() == 0.0 && f.abs() >= 10_000.0 {
                        crate::units::int(f)
                    } else {
                        n.to_string()
                    }
                }
                Value::Bool(b) => b.to_string(),
                _ => continue,
            };
            out.push((clean_key(k), s));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stats_read_contract_keys() {
        let s = Stats::from_value(&json!({"count": 10, "min_ns": 1, "mean_ns": 2.5,
            "p50_ns": 2, "p99_ns": 9, "p999_ns": 9, "max_ns": 10, "overruns": 0}))
        .unwrap();
        assert_eq!(s.count, Some(10.0));
        assert_eq!(s.max, Some(10.0));
        assert_eq!(s.percentile_points().len(), 3);
        assert!(Stats::from_value(&json!({"foo": 1})).is_none());
        // Typed: the guessed alternatives of old are not read, a wrong type is no summary.
        let s = Stats::from_value(&json!({"count": 3, "min": 1, "max_ns": 4})).unwrap();
        assert_eq!((s.min, s.max), (None, Some(4.0)));
        assert!(Stats::from_value(&json!({"count": 3, "max_ns": "4"})).is_none());
        // null statistics (no instance) read as absent values.
        let s = Stats::from_value(&json!({"count": 0, "max_ns": null})).unwrap();
        assert_eq!((s.count, s.max), (Some(0.0), None));
    }

    #[test]
    fn buckets_are_the_summary_bins() {
        let b = buckets(Some(&json!([
            {"low_ns": 10, "high_ns": 20, "count": 3},
            {"low_ns": 0, "high_ns": 10, "count": 1},
            {"low_ns": 30, "high_ns": 20, "count": 3}
        ])));
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].low, 0.0);
        assert_eq!(b[1].count, 3.0);
        assert!(buckets(None).is_empty());
        // Not bins: nothing drawn (Input::from_value reports it with the file and key).
        assert!(buckets(Some(&json!([{"low_ns": 0}, "junk"]))).is_empty());
    }

    #[test]
    fn series_shapes() {
        let a = series(Some(&json!([{"t_ns": 1, "value_ns": 2}, [3, 4]])));
        assert_eq!(a, vec![(1.0, 2.0), (3.0, 4.0)]);
        let b = series(Some(&json!({"time_ns": [1, 2], "duration_ns": [5, 6]})));
        assert_eq!(b, vec![(1.0, 5.0), (2.0, 6.0)]);
        assert!(series(Some(&json!("x"))).is_empty());
    }

    #[test]
    fn parts_flatten() {
        let p = parts(Some(
            &json!({"wcet_ns": 5, "interference": {"A": 2, "B": 1}}),
        ));
        let mut names: Vec<_> = p.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        assert_eq!(names, ["interference A", "interference B", "wcet"]);
    }

    #[test]
    fn tones() {
        assert_eq!(tone_of("OK"), Tone::Good);
        assert_eq!(tone_of("warn"), Tone::Warn);
        assert_eq!(tone_of("bad"), Tone::Bad);
        assert_eq!(tone_of("info"), Tone::Neutral);
    }
}
