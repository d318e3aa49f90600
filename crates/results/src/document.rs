//! Any latscope result, told apart by its top-level `"kind"` and read into its typed
//! document.

use crate::{analyze, compare, fit, measure, noise, simulate, tasks, trace};
use latscope_core::labels::Labels;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kinds [`Document`] reads, as the `"kind"` member spells them.
pub const KINDS: [&str; 8] = [
    "measure", "trace", "tasks", "analyze", "simulate", "fit", "noise", "compare",
];

/// A result document of any kind. Measure's and noise's types hold their `labels`; the others get
/// theirs from the command line beside the result ([`Labelled`]).
#[derive(Debug, Clone)]
pub enum Document {
    Measure(Box<measure::MeasureResult>),
    Trace(Box<Labelled<trace::TraceResult>>),
    Tasks(Box<Labelled<tasks::TaskTimingResult>>),
    Analyze(Box<Labelled<analyze::AnalyzeResult>>),
    Simulate(Box<Labelled<simulate::SimulateResult>>),
    Fit(Box<Labelled<fit::FitResult>>),
    /// `latscope noise --json`.
    Noise(Box<noise::NoiseResult>),
    /// `latscope compare --json`: the gate's verdict over two measure runs.
    Compare(Box<Labelled<compare::CompareResult>>),
}

/// A result with the top-level `labels` object the command writes beside it
/// (`--label KEY=VALUE` and the machine's own keys; absent in results written before
/// labels existed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Labelled<T> {
    #[serde(flatten)]
    pub result: T,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Labels>,
}

impl<T> std::ops::Deref for Labelled<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.result
    }
}

/// Why a JSON value is not a result document.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("no \"kind\" member (expected one of {kinds})", kinds = KINDS.join(", "))]
    MissingKind,
    #[error("unknown kind {0} (expected one of {kinds})", kinds = KINDS.join(", "))]
    UnknownKind(String),
    /// The document does not read as its kind's type: the serde message names the field.
    #[error("not a valid {kind} result: {source}")]
    Invalid {
        kind: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

impl Document {
    /// The `"kind"` of a JSON value, when it is one [`Document`] reads.
    pub fn kind_of(v: &Value) -> Result<&'static str, DocumentError> {
        match v.as_object().and_then(|m| m.get("kind")) {
            None => Err(DocumentError::MissingKind),
            Some(Value::String(k)) => KINDS
                .into_iter()
                .find(|x| x == k)
                .ok_or_else(|| DocumentError::UnknownKind(format!("{k:?}"))),
            Some(other) => Err(DocumentError::UnknownKind(other.to_string())),
        }
    }

    /// Reads a result of any kind.
    pub fn from_value(v: Value) -> Result<Document, DocumentError> {
        let kind = Document::kind_of(&v)?;
        let bad = |source| DocumentError::Invalid { kind, source };
        Ok(match kind {
            "measure" => Document::Measure(serde_json::from_value(v).map_err(bad)?),
            "trace" => Document::Trace(serde_json::from_value(v).map_err(bad)?),
            "tasks" => Document::Tasks(serde_json::from_value(v).map_err(bad)?),
            "analyze" => Document::Analyze(serde_json::from_value(v).map_err(bad)?),
            "simulate" => Document::Simulate(serde_json::from_value(v).map_err(bad)?),
            "noise" => Document::Noise(serde_json::from_value(v).map_err(bad)?),
            "compare" => Document::Compare(serde_json::from_value(v).map_err(bad)?),
            _ => Document::Fit(serde_json::from_value(v).map_err(bad)?),
        })
    }

    /// Reads a result from its JSON text (a leading byte-order mark is skipped); a
    /// member of the wrong type is an error with its line and column.
    pub fn from_json(text: &str) -> Result<Document, DocumentError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let v: Value = serde_json::from_str(text).map_err(|source| DocumentError::Invalid {
            kind: "JSON",
            source,
        })?;
        let kind = Document::kind_of(&v)?;
        let bad = |source| DocumentError::Invalid { kind, source };
        Ok(match kind {
            "measure" => Document::Measure(serde_json::from_str(text).map_err(bad)?),
            "trace" => Document::Trace(serde_json::from_str(text).map_err(bad)?),
            "tasks" => Document::Tasks(serde_json::from_str(text).map_err(bad)?),
            "analyze" => Document::Analyze(serde_json::from_str(text).map_err(bad)?),
            "simulate" => Document::Simulate(serde_json::from_str(text).map_err(bad)?),
            "noise" => Document::Noise(serde_json::from_str(text).map_err(bad)?),
            "compare" => Document::Compare(serde_json::from_str(text).map_err(bad)?),
            _ => Document::Fit(serde_json::from_str(text).map_err(bad)?),
        })
    }

    /// The `labels` object of the result (empty when it has none).
    pub fn labels(&self) -> Labels {
        let l = match self {
            Document::Measure(d) => return d.labels.clone(),
            Document::Noise(d) => return d.labels.clone(),
            Document::Trace(d) => &d.labels,
            Document::Tasks(d) => &d.labels,
            Document::Analyze(d) => &d.labels,
            Document::Simulate(d) => &d.labels,
            Document::Fit(d) => &d.labels,
            Document::Compare(d) => &d.labels,
        };
        l.clone().unwrap_or_default()
    }

    /// The `"kind"` this document is written with.
    pub fn kind(&self) -> &'static str {
        match self {
            Document::Measure(_) => "measure",
            Document::Trace(_) => "trace",
            Document::Tasks(_) => "tasks",
            Document::Analyze(_) => "analyze",
            Document::Simulate(_) => "simulate",
            Document::Fit(_) => "fit",
            Document::Noise(_) => "noise",
            Document::Compare(_) => "compare",
        }
    }

    /// The document as JSON again, as its producer writes it.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        fn v<T: Serialize>(t: &T) -> Result<Value, serde_json::Error> {
            serde_json::to_value(t)
        }
        match self {
            Document::Measure(d) => v(d),
            Document::Trace(d) => v(d),
            Document::Tasks(d) => v(d),
            Document::Analyze(d) => v(d),
            Document::Simulate(d) => v(d),
            Document::Fit(d) => v(d),
            Document::Noise(d) => v(d),
            Document::Compare(d) => v(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_are_told_apart_and_errors_say_why() {
        assert!(matches!(
            Document::from_value(json!({"total": {}})),
            Err(DocumentError::MissingKind)
        ));
        let e = Document::from_value(json!({"kind": "weather"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown kind \"weather\" (expected one of measure, trace, tasks, analyze, simulate, fit, noise, compare)"
        );
        let e = Document::from_value(json!({"kind": "trace", "schema_version": 1})).unwrap_err();
        assert!(
            matches!(e, DocumentError::Invalid { kind: "trace", .. }),
            "{e}"
        );
        assert!(e.to_string().contains("capture"), "{e}");
    }
}
