//! The source documents' experiments as runnable scenarios.
//!
//! Each scenario sets up what its document describes (a task set, a kernel, a measuring
//! run), runs latscope's models, analysis, simulator or measurement on it, and returns a
//! "published vs latscope" table ([`Row`]) plus the full results of every run it made, so
//! `latscope report` can plot them. The bundled files live in `scenarios/NAME/` and are
//! compiled in, so the binary runs a scenario from any directory.

use serde::Serialize;
use std::path::PathBuf;

mod freertos_cs;
mod freertos_tick;
mod k4perf;
mod kernelperf;
mod linux_wakeup;
mod row;
mod simulated;
mod tickless;

pub use row::{Role, Row};

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
    /// The source document, as named in shared/seeds.
    pub seed: &'static str,
    /// One line on what it runs.
    pub summary: &'static str,
    /// Whether it measures the machine it runs on (results vary by machine).
    pub live: bool,
}

/// What a scenario run produced.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub kind: &'static str,
    pub schema_version: u32,
    pub name: String,
    pub title: String,
    pub seed: String,
    pub quick: bool,
    pub rows: Vec<Row>,
    /// Counts over `rows`: predictions, how many within tolerance, inputs.
    pub summary: Tally,
    /// Full JSON results of the runs the scenario made (analyze, simulate, trace,
    /// measure), each with its own `kind`.
    pub results: Vec<serde_json::Value>,
    /// Plain-words remarks: assumptions, choices where the document is silent.
    pub notes: Vec<String>,
    /// Files written to `out_dir`.
    pub artifacts: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Tally {
    pub predictions: usize,
    pub within: usize,
    pub inputs: usize,
}

impl Tally {
    pub fn of(rows: &[Row]) -> Tally {
        Tally {
            predictions: rows.iter().filter(|r| r.role == Role::Prediction).count(),
            within: rows.iter().filter(|r| r.within == Some(true)).count(),
            inputs: rows.iter().filter(|r| r.role == Role::Input).count(),
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
    fn new(info: &Info, opts: &Options) -> Outcome {
        Outcome {
            kind: "scenario",
            schema_version: 1,
            name: info.name.into(),
            title: info.title.into(),
            seed: info.seed.into(),
            quick: opts.quick,
            rows: Vec::new(),
            summary: Tally::default(),
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
