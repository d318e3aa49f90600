//! One sample from a `latscope trace --json` result (one format: trace JSON).

use super::values::{parse_count, CountError, MAX_COUNT, MAX_DURATION_NS};
use super::Sample;
use latscope_core::summary::ResultSummary;
use latscope_trace::measure::Measurement;
use latscope_trace::report::Report as TraceResult;
use serde::Deserialize;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TraceInputError {
    #[error("--trace {spec}: expected X=FILE, e.g. 10=run10.json")]
    Spec { spec: String },
    #[error("--trace {spec}: x {error}")]
    SpecCount { spec: String, error: CountError },
    #[error("{file}: not a latscope trace JSON result: {message}")]
    Format { file: String, message: String },
    #[error("{file}: no measurement \"{want}\" (measurements: {have})")]
    NoMeasurement {
        file: String,
        want: String,
        have: String,
    },
    #[error(
        "{file}: `{key}`: measurement \"{name}\" has no statistic `{field}` (statistics: {have})"
    )]
    NoStat {
        file: String,
        key: String,
        name: String,
        field: String,
        have: String,
    },
    #[error(
        "{file}: `{key}` is null: measurement \"{name}\" has no instance in the capture \
         (count 0), so there is nothing to fit"
    )]
    NoInstances {
        file: String,
        key: String,
        name: String,
    },
    #[error(
        "{file}: `{key}`: measurement \"{name}\" is in unit \"{unit}\", not a duration \
         (fit needs a pulse, latency or period measurement)"
    )]
    NotDuration {
        file: String,
        key: String,
        name: String,
        unit: String,
    },
    #[error("{file}: `{key}`: {message}")]
    BadValue {
        file: String,
        key: String,
        message: String,
    },
}

/// Parses a `--trace X=FILE` argument: X is a count ([`parse_count`]).
pub fn parse_trace_spec(spec: &str) -> Result<(u64, String), TraceInputError> {
    let (x, file) = spec
        .split_once('=')
        .filter(|(_, f)| !f.trim().is_empty())
        .ok_or_else(|| TraceInputError::Spec {
            spec: spec.to_string(),
        })?;
    let x = parse_count(x, MAX_COUNT).map_err(|error| TraceInputError::SpecCount {
        spec: spec.to_string(),
        error,
    })?;
    Ok((x, file.to_string()))
}

/// One sample from a `latscope trace --json` result: `x` as given (e.g. the number of
/// tasks released in that capture), `y` the statistic `stat` (`max`, `p99`, `mean`, ...:
/// the field `<stat>_ns`) of the measurement called `measurement`. Errors name the file
/// and the JSON key (`measurements[2].max_ns`).
pub fn sample_from_trace_json(
    text: &str,
    file: &str,
    measurement: &str,
    stat: &str,
    x: u64,
    row: usize,
) -> Result<Sample, TraceInputError> {
    let fmt = |m: String| TraceInputError::Format {
        file: file.to_string(),
        message: m,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| fmt(e.to_string()))?;
    match v.get("kind").and_then(|k| k.as_str()) {
        Some("trace") => {}
        Some(k) => return Err(fmt(format!("its \"kind\" is \"{k}\", not \"trace\""))),
        None => return Err(fmt("no \"kind\": \"trace\"".into())),
    }
    // The result is read as the type `latscope trace` writes. When that fails, the
    // measurement and the key at fault are named.
    let doc = TraceResult::deserialize(&v).map_err(|e| bad_measurement(&v, file, e))?;
    let ms = &doc.measurements;
    let (i, m) = ms
        .iter()
        .enumerate()
        .find(|(_, m)| m.name == measurement)
        .ok_or_else(|| TraceInputError::NoMeasurement {
            file: file.to_string(),
            want: measurement.to_string(),
            have: ms
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    if m.unit != "ns" {
        return Err(TraceInputError::NotDuration {
            file: file.to_string(),
            key: format!("measurements[{i}].unit"),
            name: measurement.to_string(),
            unit: m.unit.to_string(),
        });
    }
    let field = format!("{stat}_ns");
    let key = format!("measurements[{i}].{field}");
    let Some(y) = statistic(m, stat) else {
        return Err(TraceInputError::NoStat {
            file: file.to_string(),
            key,
            name: measurement.to_string(),
            field,
            have: ResultSummary::STATS.join(", "),
        });
    };
    // A statistic of no instance is written as null (read as NaN).
    if y.is_nan() {
        return Err(TraceInputError::NoInstances {
            file: file.to_string(),
            key,
            name: measurement.to_string(),
        });
    }
    if !y.is_finite() || !(0.0..=MAX_DURATION_NS).contains(&y) {
        return Err(TraceInputError::BadValue {
            file: file.to_string(),
            key,
            message: format!("{y} ns is not a duration (expected 0 to {MAX_DURATION_NS:.0} ns)"),
        });
    }
    Ok(Sample {
        x: x as f64,
        y_ns: y,
        row,
    })
}

/// A measurement's statistic by the name users give it (`max`, `p99`, ...): `None` when
/// the name is none of [`ResultSummary::STATS`]; NaN when the measurement has no instance.
fn statistic(m: &Measurement, name: &str) -> Option<f64> {
    Some(match name {
        "min" => m.min_ns,
        "max" => m.max_ns,
        "mean" => m.mean_ns,
        "stdev" => m.stdev_ns,
        "mode" => m.mode_ns,
        "p50" => m.p50_ns,
        "p90" => m.p90_ns,
        "p99" => m.p99_ns,
        "p999" => m.p999_ns,
        "p9999" => m.p9999_ns,
        _ => return None,
    })
}

/// The samples of `latscope fit --trace X=FILE ...` (and the Python binding's
/// `fit(traces=...)`): one per `(x, trace result text, file name)`, the statistic `stat`
/// of `measurement`, with the name the fit reports them under.
pub fn samples_from_traces<'a>(
    traces: impl IntoIterator<Item = (u64, &'a str, &'a str)>,
    measurement: &str,
    stat: &str,
) -> Result<(String, Vec<Sample>), TraceInputError> {
    let mut samples = Vec::new();
    for (k, (x, text, file)) in traces.into_iter().enumerate() {
        samples.push(sample_from_trace_json(
            text,
            file,
            measurement,
            stat,
            x,
            k + 1,
        )?);
    }
    let name = format!("{} trace results ({measurement} {stat})", samples.len());
    Ok((name, samples))
}

/// Why a trace result did not read as the typed result: the measurement and key at
/// fault (`measurements[2].max_ns`) when one is, else serde's message.
fn bad_measurement(v: &serde_json::Value, file: &str, e: serde_json::Error) -> TraceInputError {
    let fmt = |message: String| TraceInputError::Format {
        file: file.to_string(),
        message,
    };
    let Some(ms) = v.get("measurements").and_then(|m| m.as_array()) else {
        return fmt(match v.get("measurements") {
            None => "no \"measurements\" array".into(),
            Some(_) => "\"measurements\" is not an array".into(),
        });
    };
    for (i, m) in ms.iter().enumerate() {
        if let Err(f) = ResultSummary::from_json(m) {
            return TraceInputError::BadValue {
                file: file.to_string(),
                key: if f.key.is_empty() {
                    format!("measurements[{i}]")
                } else {
                    format!("measurements[{i}].{}", f.key)
                },
                message: f.message,
            };
        }
        if let Err(e) = Measurement::deserialize(m) {
            return TraceInputError::BadValue {
                file: file.to_string(),
                key: format!("measurements[{i}]"),
                message: e.to_string(),
            };
        }
    }
    fmt(e.to_string())
}

#[cfg(test)]
mod trace_tests {
    use super::*;

    #[test]
    fn reads_a_statistic() {
        let m = r#"{"name":"SysTick","kind":"pulse","definition":"","unit":"ns","count":2,
            "max_ns":60750.0,"p99_ns":60000.0,"histogram":[],"unmatched":0,"worst":[]}"#;
        let t = format!(
            r#"{{"kind":"trace","schema_version":1,"capture":{{"source":"c.vcd","format":"vcd",
            "samplerate_hz":null,"resolution_ns":null,"start_ns":0,"end_ns":0,"duration_ns":0,
            "channels":[],"analog":[]}},"range":{{"from_ns":null,"to_ns":null}},
            "measurements":[{m}],"limits":[],"pass":true}}"#
        );
        let s = sample_from_trace_json(&t, "a.json", "SysTick", "max", 10, 1).unwrap();
        assert_eq!((s.x, s.y_ns), (10.0, 60750.0));
        let e = sample_from_trace_json(&t, "a.json", "Tick", "max", 1, 1).unwrap_err();
        assert!(e.to_string().contains("SysTick"), "{e}");
        // A statistic the result does not carry reads as null: no instance.
        let e = sample_from_trace_json(&t, "a.json", "SysTick", "p999", 1, 1).unwrap_err();
        assert!(e.to_string().contains("p999_ns` is null"), "{e}");
        assert!(sample_from_trace_json("{}", "b.json", "x", "max", 1, 1).is_err());
    }
}
