//! The source documents' experiments as runnable scenarios.
//!
//! Each scenario sets up what its document describes (a task set, a kernel, a measuring
//! run), runs latscope's models, analysis, simulator or measurement on it, and returns a
//! "published vs latscope" table ([`Row`]) plus the full results of every run it made, so
//! `latscope report` can plot them. The bundled files live in `scenarios/NAME/` and are
//! compiled in, so the binary runs a scenario from any directory.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

mod audit;
pub mod documents;
mod freertos_cs;
mod freertos_figures;
mod freertos_tick;
mod k4perf;
mod kernelperf;
mod linux_wakeup;
pub mod markdown;
mod robust;
mod row;
mod simulated;
mod tickless;
mod uart;

pub use audit::{audit, misses};
pub use documents::Document;
pub use row::{Figure, Role, Row};

/// How to run a scenario.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Scaled-down run (shorter simulations and measurements) for tests and CI.
    pub quick: bool,
    /// Where to write artifacts (captures, series); nothing is written when None.
    pub out_dir: Option<PathBuf>,
}

/// A scenario's name and what it reproduces.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Info {
    pub name: &'static str,
    pub title: &'static str,
    /// The source document.
    pub document: &'static Document,
    /// One line on what it runs.
    pub summary: &'static str,
    /// Whether it measures the machine it runs on (results vary by machine).
    pub live: bool,
}

latscope_core::words!(fn kind_word = ["scenario"]);

/// What a scenario run produced: the `scenario run --json` document (docs/scenario.schema.json is generated from it).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    #[serde(deserialize_with = "kind_word")]
    #[schemars(extend("const" = "scenario"))]
    pub kind: latscope_core::words::Word,
    pub schema_version: u32,
    pub name: String,
    pub title: String,
    /// The source document, by author and title.
    pub source: String,
    pub quick: bool,
    pub rows: Vec<Row>,
    /// Counts over `rows` by role and verdict.
    pub summary: Tally,
    /// Every published figure of the document the rows refer to (`figure_id`, `uses`).
    pub figures: Vec<Figure>,
    /// Full JSON results of the runs the scenario made (analyze, simulate, trace,
    /// measure), each with its own `kind`.
    pub results: Vec<serde_json::Value>,
    /// Plain-words remarks: assumptions, choices where the document is silent.
    pub notes: Vec<String>,
    /// Files written to `out_dir`.
    pub artifacts: Vec<PathBuf>,
}

#[derive(
    Clone, Copy, Debug, Default, Serialize, Deserialize, schemars::JsonSchema, PartialEq, Eq,
)]
pub struct Tally {
    pub predictions: usize,
    /// Predictions within their tolerance.
    pub within: usize,
    /// Predictions outside their tolerance (each carries an `explanation` when the miss
    /// is understood; it is still a miss).
    pub outside: usize,
    /// Predictions that could not be computed here (`explanation` says why).
    pub not_reproduced: usize,
    pub inputs: usize,
    pub derived: usize,
    pub checks: usize,
}

impl Tally {
    pub fn of(rows: &[Row]) -> Tally {
        let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
        let pred = |r: &Row| r.role == Role::Prediction;
        Tally {
            predictions: count(&pred),
            within: count(&|r| pred(r) && r.within == Some(true)),
            outside: count(&|r| pred(r) && r.within == Some(false)),
            not_reproduced: count(&|r| pred(r) && r.within.is_none()),
            inputs: count(&|r| r.role == Role::Input),
            derived: count(&|r| r.role == Role::Derived),
            checks: count(&|r| r.role == Role::Check),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("no scenario named '{0}'; scenarios are: {1}")]
    Unknown(String, String),
    #[error("scenario {scenario}: bundled file {file}: {message}")]
    Bundled {
        scenario: &'static str,
        file: &'static str,
        message: String,
    },
    #[error("scenario {scenario}: {message}")]
    Run {
        scenario: &'static str,
        message: String,
    },
    #[error("scenario {scenario}: cannot write {path}: {source}")]
    Io {
        scenario: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Every bundled scenario, in the order of the issue that asked for them.
pub fn list() -> Vec<Info> {
    vec![
        freertos_tick::INFO,
        freertos_cs::INFO,
        kernelperf::INFO,
        tickless::INFO,
        k4perf::INFO,
        linux_wakeup::INFO,
    ]
}

/// Runs one scenario by name.
pub fn run(name: &str, opts: &Options) -> Result<Outcome, ScenarioError> {
    let mut out = match name {
        "freertos-tick" => freertos_tick::run(opts)?,
        "freertos-context-switch" => freertos_cs::run(opts)?,
        "kernelperf" => kernelperf::run(opts)?,
        "tickless-idle" => tickless::run(opts)?,
        "k4perf" => k4perf::run(opts)?,
        "linux-wakeup" => linux_wakeup::run(opts)?,
        _ => {
            let names: Vec<_> = list().iter().map(|i| i.name).collect();
            return Err(ScenarioError::Unknown(name.into(), names.join(", ")));
        }
    };
    out.summary = Tally::of(&out.rows);
    Ok(out)
}

impl Outcome {
    fn new(info: &Info, figures: &[Figure], opts: &Options) -> Outcome {
        Outcome {
            kind: "scenario",
            schema_version: 1,
            name: info.name.into(),
            title: info.title.into(),
            source: info.document.cite(),
            quick: opts.quick,
            rows: Vec::new(),
            summary: Tally::default(),
            figures: figures.to_vec(),
            results: Vec::new(),
            notes: Vec::new(),
            artifacts: Vec::new(),
        }
    }

    /// Writes `bytes` as `out_dir/file` when an output directory was given.
    pub(crate) fn artifact(
        &mut self,
        opts: &Options,
        scenario: &'static str,
        file: &str,
        bytes: &[u8],
    ) -> Result<(), ScenarioError> {
        if let Some(dir) = &opts.out_dir {
            let path = dir.join(file);
            std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, bytes))
                .map_err(|source| ScenarioError::Io {
                    scenario,
                    path: path.clone(),
                    source,
                })?;
            self.artifacts.push(path);
        }
        Ok(())
    }
}

/// Parses a bundled system description (compiled in from `scenarios/NAME/system.toml`).
fn load_system(
    scenario: &'static str,
    text: &str,
) -> Result<latscope_model::system::System, ScenarioError> {
    let path = format!("scenarios/{scenario}/system.toml");
    latscope_model::system::System::from_toml_str(text, &path).map_err(|e| ScenarioError::Bundled {
        scenario,
        file: "system.toml",
        message: e.to_string(),
    })
}

/// The bundled system text with the value of `key` (a `key = value` line) replaced:
/// a variant of a document's model that keeps everything else (the file's meaning is
/// the system format's, whatever the parser adds).
fn with_key(
    scenario: &'static str,
    text: &str,
    key: &str,
    value: &str,
) -> Result<String, ScenarioError> {
    let mut found = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let t = l.trim_start();
            if !found && t.starts_with(key) && t[key.len()..].trim_start().starts_with('=') {
                found = true;
                format!("{key} = {value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    if !found {
        return Err(ScenarioError::Bundled {
            scenario,
            file: "system.toml",
            message: format!("no `{key} = ...` line to vary"),
        });
    }
    Ok(lines.join("\n") + "\n")
}

/// Converts any error into a scenario run error.
fn run_err<E: std::fmt::Display>(scenario: &'static str) -> impl Fn(E) -> ScenarioError {
    move |e| ScenarioError::Run {
        scenario,
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_unknown_is_an_error() {
        let l = list();
        assert_eq!(l.len(), 6);
        let mut names: Vec<_> = l.iter().map(|i| i.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 6);
        let e = run("nope", &Options::default()).unwrap_err().to_string();
        assert!(e.contains("freertos-tick") && e.contains("nope"), "{e}");
    }
}
