//! The typed summaries a result carries, checked when the result is read: every place
//! a result writes the one summary of durations (`latscope_results::summary::DurationSummary`)
//! is read as that type, and a value of the wrong type is an error naming the file and the
//! path to it (`measurements[2].max_ns`) instead of a section silently left out.
//!
//! The places, by kind: measure `total`, `cpus[]`, `rounds[]`, `sweep[].total`,
//! `sweep[].cpus[]`, `compare.idle|loaded.total|cpus[]`; trace `measurements[]`;
//! simulate `tasks[].response`, `tick`, `switches`, `interrupts[].response`; a scenario's
//! nested `results[]` by their own kind. Each kind's places are one small type below;
//! `serde_path_to_error` names the path of the first value that does not read.

use latscope_results::compare::CompareResult;
use latscope_results::noise::NoiseResult;
use latscope_results::summary::DurationSummary;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// Measure: the summaries of the run, of its rounds, sweep points and compare phases.
// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct MeasurePlaces {
    #[serde(default)]
    total: Option<DurationSummary>,
    #[serde(default)]
    cpus: Option<Vec<DurationSummary>>,
    #[serde(default)]
    rounds: Option<Vec<DurationSummary>>,
    #[serde(default)]
    sweep: Option<Vec<Phase>>,
    #[serde(default)]
    compare: Option<ComparePhases>,
}

/// A phase's `total` and `cpus[]` (the run, a sweep point, a compare phase).
// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct Phase {
    #[serde(default)]
    total: Option<DurationSummary>,
    #[serde(default)]
    cpus: Option<Vec<DurationSummary>>,
}

// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct ComparePhases {
    #[serde(default)]
    idle: Option<Phase>,
    #[serde(default)]
    loaded: Option<Phase>,
}

/// Trace: one summary per measurement.
// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct TracePlaces {
    #[serde(default)]
    measurements: Option<Vec<DurationSummary>>,
}

/// Simulate: the response times of tasks and interrupts, the tick and the switches.
// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct SimulatePlaces {
    #[serde(default)]
    tasks: Option<Vec<Responded>>,
    #[serde(default)]
    interrupts: Option<Vec<Responded>>,
    #[serde(default)]
    tick: Option<DurationSummary>,
    #[serde(default)]
    switches: Option<DurationSummary>,
}

// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct Responded {
    #[serde(default)]
    response: Option<DurationSummary>,
}

/// Scenario: its embedded results, each checked by its own kind.
// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct ScenarioPlaces {
    #[serde(default)]
    results: Option<Vec<Value>>,
}

/// The `kind` of an embedded result.
// The fields are read for their types only: a value that does not read is the error.
#[allow(dead_code)]
#[derive(Deserialize)]
struct Kinded {
    #[serde(default)]
    kind: Option<String>,
}

/// The path and message of the first value of `doc` that does not read as `T`.
fn check<T: DeserializeOwned>(doc: &Value) -> Option<(String, String)> {
    match serde_path_to_error::deserialize::<_, T>(doc) {
        Ok(_) => None,
        Err(e) => Some((e.path().to_string(), e.into_inner().to_string())),
    }
}

/// The first summary of `doc` (a result of `kind`) that does not read: (path, message).
pub fn first_bad(kind: &str, doc: &Value) -> Option<(String, String)> {
    match kind {
        "measure" => check::<MeasurePlaces>(doc),
        "trace" => check::<TracePlaces>(doc),
        "simulate" => check::<SimulatePlaces>(doc),
        // Read whole by their types: a noise or compare section reads nothing else.
        "noise" => check::<NoiseResult>(doc),
        "compare" => check::<CompareResult>(doc),
        "scenario" => {
            let places: ScenarioPlaces = serde_json::from_value(doc.clone()).ok()?;
            places
                .results
                .unwrap_or_default()
                .iter()
                .enumerate()
                .find_map(|(i, r)| {
                    let kind = Kinded::deserialize(r).ok()?.kind?;
                    first_bad(&kind, r).map(|(key, msg)| (format!("results[{i}].{key}"), msg))
                })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn names_the_key_at_fault() {
        let t = v(r#"{"kind": "trace", "measurements": [
            {"name": "a", "count": 1, "max_ns": 5},
            {"name": "b", "count": 1, "max_ns": "big"}]}"#);
        let (k, m) = first_bad("trace", &t).unwrap();
        assert_eq!(k, "measurements[1].max_ns");
        assert!(m.contains("\"big\""), "{m}");
        let m =
            v(r#"{"total": {"count": 2, "p99_ns": 3}, "cpus": [{"count": 2, "histogram": 7}]}"#);
        assert_eq!(first_bad("measure", &m).unwrap().0, "cpus[0].histogram");
        let m = v(r#"{"sweep": [{"total": {"count": 2}}, {"cpus": [{"min_ns": "x"}]}]}"#);
        assert_eq!(
            first_bad("measure", &m).unwrap().0,
            "sweep[1].cpus[0].min_ns"
        );
        let s = v(
            r#"{"tasks": [{"response": {"count": 1, "max_ns": null}}], "tick": {"count": true}}"#,
        );
        assert_eq!(first_bad("simulate", &s).unwrap().0, "tick.count");
        let sc =
            v(r#"{"results": [{"kind": "trace", "measurements": [{"name": "x", "min_ns": []}]}]}"#);
        assert_eq!(
            first_bad("scenario", &sc).unwrap().0,
            "results[0].measurements[0].min_ns"
        );
        assert!(first_bad(
            "trace",
            &v(r#"{"measurements": [{"count": 0, "max_ns": null}]}"#)
        )
        .is_none());
    }

    #[test]
    fn a_result_with_a_bad_summary_is_an_error_naming_file_and_key() {
        let text = r#"{"kind":"trace","schema_version":1,
            "measurements":[{"name":"a","count":1,"p99_ns":"x"}]}"#;
        let e = crate::Input::parse("t.json", text).unwrap_err().to_string();
        assert!(
            e.starts_with("t.json: `measurements[0].p99_ns`: invalid type: string \"x\""),
            "{e}"
        );
    }
}
