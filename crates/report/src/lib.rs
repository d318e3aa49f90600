//! latscope-report: self-contained HTML reports and Markdown summaries of latscope results.
//!
//! Input: the JSON written by `latscope measure`, `trace`, `analyze`, `simulate` and
//! `scenario`, `noise`, `fit` and `compare` (top-level `"kind"` and `"schema_version": 1`),
//! read into their typed documents ([`latscope_results`]); the CSV series, timelines and
//! sweep counts beside them through the types of [`artifacts`]. Sections that a file lacks
//! are skipped.
//!
//! Output: one HTML string that works offline (inline CSS, inline SVG charts drawn with
//! `plotters`, no script needed and no external reference), or a compact Markdown string for a
//! CI comment. Nothing here prints or touches the file system.
//!
//! ```
//! // A `measure --json` result (the report's test fixture).
//! let json = include_str!("../tests/fixtures/measure-b.json");
//! let input = latscope_report::Input::parse("run.json", json).unwrap();
//! let html = latscope_report::render_html(&[input], &Default::default()).unwrap();
//! assert!(html.contains("<table"));
//! ```

pub mod artifacts;
pub mod blocks;
pub mod charts;
pub mod data;
mod inputs;
pub mod render;
pub mod summaries;
pub mod units;

pub use latscope_results::Document;
use serde_json::Value;

/// The kinds of result latscope commands write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Measure,
    Trace,
    Analyze,
    Simulate,
    Scenario,
    /// `latscope noise`: OS and hardware noise per CPU, by source.
    Noise,
    /// `latscope fit`: kernel costs fitted to measured samples.
    Fit,
    /// `latscope compare --json`: two measure runs, per statistic the change with its
    /// confidence interval and the gate's verdict.
    Compare,
    /// A CSV time series (`time_ns,<value>,…`), e.g. `simulate --series` or `trace --series`.
    Series,
    /// A timeline: Perfetto / Chrome trace-event JSON (`simulate --perfetto`, `convert`) or
    /// latscope's own capture JSON; shown as a timeline excerpt around the worst case.
    Capture,
    /// The raw samples of `measure --samples` (CSV `phase,cpu,intended_ns,latency_ns,missed`
    /// or the binary `LATSCOPESMP1` file): latency over time per CPU, overruns marked.
    Samples,
    /// A design-space sweep (`latscope sweep`, CSV or Parquet), aggregated by the command
    /// line into schedulability counts per configuration and utilisation
    /// ([`blocks::sweep`]).
    Sweep,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Measure,
        Kind::Trace,
        Kind::Analyze,
        Kind::Simulate,
        Kind::Scenario,
        Kind::Noise,
        Kind::Fit,
        Kind::Compare,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Measure => "measure",
            Kind::Trace => "trace",
            Kind::Analyze => "analyze",
            Kind::Simulate => "simulate",
            Kind::Scenario => "scenario",
            Kind::Noise => "noise",
            Kind::Fit => "fit",
            Kind::Compare => "compare",
            Kind::Series => "series",
            Kind::Capture => "capture",
            Kind::Samples => "samples",
            Kind::Sweep => "sweep",
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
        "{file}: no \"kind\" member (expected one of measure, noise, trace, analyze, simulate, scenario, fit, compare); the file looks like {looks}"
    )]
    MissingKind { file: String, looks: String },
    #[error("{file}: unknown kind {kind:?} (expected one of measure, noise, trace, analyze, simulate, scenario, fit, compare); the file looks like {looks}")]
    UnknownKind {
        file: String,
        kind: String,
        looks: String,
    },
    #[error("{file}: not a latscope result: it looks like {looks}. {hint}")]
    NotAResult {
        file: String,
        looks: String,
        hint: String,
    },
    #[error("{file}: schema_version {found} is not supported (this latscope reads version {SCHEMA_VERSION})")]
    SchemaVersion { file: String, found: String },
    /// The result does not read as its kind's typed document (a missing or mistyped
    /// member; serde's message names it).
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("{file}: `{key}`: {message}")]
    Summary {
        file: String,
        key: String,
        message: String,
    },
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
    /// The result read into its typed document (`latscope_results`), for the kinds whose
    /// sections read through it (measure, trace, simulate); `None` for the others.
    pub result: Option<Document>,
    /// Artifacts that belong to this result (a scenario's tick-series CSV and capture), drawn
    /// in its sections rather than on their own.
    pub attachments: Vec<Input>,
}

impl Input {
    /// Parses a result; `name` is used in error messages and in the report.
    /// Besides latscope's JSON results this accepts a CSV time series (header line, first
    /// column the time in ns) and a Perfetto trace-event JSON (`traceEvents`).
    pub fn parse(name: &str, text: &str) -> Result<Input, ReportError> {
        let first = text.trim_start().chars().next();
        if !matches!(first, Some('{') | Some('[')) {
            if let Some(looks) = inputs::not_tabular(text) {
                return Err(ReportError::NotAResult {
                    file: name.to_string(),
                    looks,
                    hint: inputs::HINT.to_string(),
                });
            }
            if inputs::is_samples_csv(text) {
                return Ok(Input::new(
                    name,
                    Kind::Samples,
                    inputs::samples_csv(name, text)?,
                ));
            }
            return Ok(Input::new(
                name,
                Kind::Series,
                inputs::csv_series(name, text)?,
            ));
        }
        let doc: Value = serde_json::from_str(text).map_err(|source| ReportError::Json {
            file: name.to_string(),
            source,
        })?;
        Input::from_value(name, doc)
    }

    /// Parses a file's bytes: like [`Input::parse`], and also the binary raw samples of
    /// `measure --samples x.bin`. Other binary files are an error that says what they look like.
    pub fn parse_bytes(name: &str, bytes: &[u8]) -> Result<Input, ReportError> {
        if bytes.starts_with(inputs::SAMPLES_MAGIC) {
            return Ok(Input::new(
                name,
                Kind::Samples,
                inputs::samples_bin(name, bytes)?,
            ));
        }
        let binary = bytes[..bytes.len().min(8192)].contains(&0);
        match std::str::from_utf8(bytes) {
            Ok(text) if !binary => Input::parse(name, text),
            _ => Err(ReportError::NotAResult {
                file: name.to_string(),
                looks: inputs::describe_binary(bytes),
                hint: inputs::HINT.to_string(),
            }),
        }
    }

    /// An input of a known kind.
    pub fn new(name: &str, kind: Kind, doc: Value) -> Input {
        Input {
            name: name.to_string(),
            kind,
            doc,
            result: None,
            attachments: Vec::new(),
        }
    }

    /// Checks `kind` and `schema_version` of an already parsed document.
    pub fn from_value(name: &str, doc: Value) -> Result<Input, ReportError> {
        let file = name.to_string();
        let head = artifacts::Head::of(&doc);
        // A timeline already in the report's own form (what the command line makes of a
        // capture file): `{"tracks": [{name, intervals: [[start_ns, end_ns]]}]}`.
        if head.kind.is_none() && head.tracks.as_ref().is_some_and(Value::is_array) {
            return Ok(Input::new(name, Kind::Capture, doc));
        }
        if head.kind.is_none() {
            if let Some(tracks) = inputs::capture_from(&doc) {
                return Ok(Input::new(name, Kind::Capture, tracks));
            }
        }
        if !doc.is_object() {
            return Err(ReportError::NotObject { file });
        }
        let kind = match &head.kind {
            Some(Value::String(k)) => {
                Kind::from_name(k).ok_or_else(|| ReportError::UnknownKind {
                    file: file.clone(),
                    kind: k.clone(),
                    looks: inputs::describe_json(&doc),
                })?
            }
            Some(other) => {
                return Err(ReportError::UnknownKind {
                    file,
                    kind: other.to_string(),
                    looks: inputs::describe_json(&doc),
                })
            }
            None => {
                return Err(ReportError::MissingKind {
                    file,
                    looks: inputs::describe_json(&doc),
                })
            }
        };
        match &head.schema_version {
            None => {}
            Some(v) if v.as_u64() == Some(SCHEMA_VERSION) => {}
            Some(v) => {
                return Err(ReportError::SchemaVersion {
                    file,
                    found: v.to_string(),
                })
            }
        }
        if let Some((key, message)) = summaries::first_bad(kind.name(), &doc) {
            return Err(ReportError::Summary { file, key, message });
        }
        let result = match kind {
            Kind::Trace
            | Kind::Measure
            | Kind::Simulate
            | Kind::Analyze
            | Kind::Fit
            | Kind::Noise
            | Kind::Compare => {
                Some(
                    Document::from_value(doc.clone()).map_err(|e| ReportError::Invalid {
                        file: file.clone(),
                        message: e.to_string(),
                    })?,
                )
            }
            _ => None,
        };
        let mut input = Input::new(name, kind, doc);
        input.result = result;
        Ok(input)
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
