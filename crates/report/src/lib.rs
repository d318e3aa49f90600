//! latscope-report: self-contained HTML reports and Markdown summaries of latscope results.
//!
//! Input: the JSON written by `latscope measure`, `trace`, `analyze`, `simulate` and
//! `scenario` (top-level `"kind"` and `"schema_version": 1`). The JSON is read leniently
//! through `serde_json::Value` (see [`data`]): sections that a file lacks are skipped.
//!
//! Output: one HTML string that works offline (inline CSS, inline SVG charts drawn with
//! `plotters`, no script needed and no external reference), or a compact Markdown string for a
//! CI comment. Nothing here prints or touches the file system.
//!
//! ```
//! let json = r#"{"kind":"measure","schema_version":1,
//!   "total":{"count":3,"min_ns":900,"mean_ns":1000,"p50_ns":1000,"p99_ns":1100,
//!            "p999_ns":1100,"max_ns":1100,"overruns":0}}"#;
//! let input = latscope_report::Input::parse("run.json", json).unwrap();
//! let html = latscope_report::render_html(&[input], &Default::default()).unwrap();
//! assert!(html.contains("<table"));
//! ```

pub mod blocks;
pub mod charts;
pub mod data;
mod inputs;
pub mod render;
pub mod units;

use serde_json::Value;

/// The kinds of result latscope commands write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Measure,
    Trace,
    Analyze,
    Simulate,
    Scenario,
    /// A CSV time series (`time_ns,<value>,…`), e.g. `simulate --series` or `trace --series`.
    Series,
    /// A timeline: Perfetto / Chrome trace-event JSON (`simulate --perfetto`, `convert`) or
    /// latscope's own capture JSON; shown as a timeline excerpt around the worst case.
    Capture,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Measure,
        Kind::Trace,
        Kind::Analyze,
        Kind::Simulate,
        Kind::Scenario,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Measure => "measure",
            Kind::Trace => "trace",
            Kind::Analyze => "analyze",
            Kind::Simulate => "simulate",
            Kind::Scenario => "scenario",
            Kind::Series => "series",
            Kind::Capture => "capture",
        }
    }

    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The schema version this report understands.
pub const SCHEMA_VERSION: u64 = 1;

/// Errors name the input file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{file}: not valid JSON: {source}")]
    Json {
        file: String,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "{file}: the top level is not a JSON object (expected a latscope result with a \"kind\")"
    )]
    NotObject { file: String },
    #[error(
        "{file}: no \"kind\" member (expected one of measure, trace, analyze, simulate, scenario)"
    )]
    MissingKind { file: String },
    #[error("{file}: unknown kind {kind:?} (expected one of measure, trace, analyze, simulate, scenario)")]
    UnknownKind { file: String, kind: String },
    #[error("{file}: schema_version {found} is not supported (this latscope reads version {SCHEMA_VERSION})")]
    SchemaVersion { file: String, found: String },
    #[error("{file}: line {line}: {message}")]
    Csv {
        file: String,
        line: usize,
        message: String,
    },
    #[error("no input files given")]
    NoInputs,
    #[error("could not draw the {chart} chart: {message}")]
    Chart {
        chart: &'static str,
        message: String,
    },
}

/// One parsed result file.
#[derive(Debug, Clone)]
pub struct Input {
    /// How the file is named in the report (usually its path).
    pub name: String,
    pub kind: Kind,
    pub doc: Value,
}

impl Input {
    /// Parses a result; `name` is used in error messages and in the report.
    /// Besides latscope's JSON results this accepts a CSV time series (header line, first
    /// column the time in ns) and a Perfetto trace-event JSON (`traceEvents`).
    pub fn parse(name: &str, text: &str) -> Result<Input, ReportError> {
        let first = text.trim_start().chars().next();
        if !matches!(first, Some('{') | Some('['))
            && text.lines().next().is_some_and(|l| l.contains(','))
        {
            return Ok(Input {
                name: name.to_string(),
                kind: Kind::Series,
                doc: inputs::csv_series(name, text)?,
            });
        }
        let doc: Value = serde_json::from_str(text).map_err(|source| ReportError::Json {
            file: name.to_string(),
            source,
        })?;
        Input::from_value(name, doc)
    }

    /// Checks `kind` and `schema_version` of an already parsed document.
    pub fn from_value(name: &str, doc: Value) -> Result<Input, ReportError> {
        let file = name.to_string();
        if !doc.is_object() {
            return Err(ReportError::NotObject { file });
        }
        if doc.get("kind").is_none() {
            if let Some(tracks) = inputs::capture_from(&doc) {
                return Ok(Input {
                    name: name.to_string(),
                    kind: Kind::Capture,
                    doc: tracks,
                });
            }
        }
        let kind = match doc.get("kind") {
            Some(Value::String(k)) => {
                Kind::from_name(k).ok_or_else(|| ReportError::UnknownKind {
                    file: file.clone(),
                    kind: k.clone(),
                })?
            }
            Some(other) => {
                return Err(ReportError::UnknownKind {
                    file,
                    kind: other.to_string(),
                })
            }
            None => return Err(ReportError::MissingKind { file }),
        };
        match doc.get("schema_version") {
            None => {}
            Some(v) if v.as_u64() == Some(SCHEMA_VERSION) => {}
            Some(v) => {
                return Err(ReportError::SchemaVersion {
                    file,
                    found: v.to_string(),
                })
            }
        }
        Ok(Input {
            name: name.to_string(),
            kind,
            doc,
        })
    }
}

/// Report options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Page title; default "latscope report".
    pub title: Option<String>,
}

/// A self-contained HTML page for the inputs (with a comparison section when several inputs
/// share a kind).
pub fn render_html(inputs: &[Input], opts: &Options) -> Result<String, ReportError> {
    if inputs.is_empty() {
        return Err(ReportError::NoInputs);
    }
    let doc = blocks::build(inputs, true)?;
    Ok(render::html(&doc, opts))
}

/// A compact Markdown summary (tables only), for a CI comment.
pub fn render_markdown(inputs: &[Input], opts: &Options) -> Result<String, ReportError> {
    if inputs.is_empty() {
        return Err(ReportError::NoInputs);
    }
    let doc = blocks::build(inputs, false)?;
    Ok(render::markdown(&doc, opts))
}
