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
pub mod linux_wakeup;
pub mod markdown;
mod robust;
mod row;
mod simulated;
pub mod terminal;
mod tickless;

pub use audit::{audit, derived_from_figure, misses};
pub use documents::Document;
pub use row::{Figure, Role, Row, Verdict};

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
    /// One sentence over the whole table: genuine predictions and their verdicts, and how
    /// many of the document's figures could not be predicted and why.
    #[serde(default)]
    pub headline: String,
    /// The genuine predictions (role `prediction`) and their verdicts: what the banners,
    /// the README table and the exit status count.
    #[serde(default)]
    pub predictions: Predictions,
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

/// The genuine predictions of a table (the JSON's top-level `predictions`).
#[derive(
    Clone, Copy, Debug, Default, Serialize, Deserialize, schemars::JsonSchema, PartialEq, Eq,
)]
pub struct Predictions {
    /// Rows with role `prediction` (each has a verdict: within or outside).
    pub genuine: usize,
    pub within: usize,
    /// Outside their tolerance, explained or not (`summary.explained` of them explained).
    pub outside: usize,
}

#[derive(
    Clone, Copy, Debug, Default, Serialize, Deserialize, schemars::JsonSchema, PartialEq, Eq,
)]
pub struct Tally {
    /// Genuine predictions (role `prediction`).
    pub predictions: usize,
    /// Predictions within their tolerance.
    pub within: usize,
    /// Predictions outside their tolerance (each carries an `explanation` when the miss
    /// is understood; it is still a miss).
    pub outside: usize,
    /// Of `outside`, those whose cause is known (`explanation`).
    pub explained: usize,
    /// Rows not compared here (`explanation` says why).
    pub not_compared: usize,
    /// Yes/no findings the model gives by construction (shown, never counted).
    pub findings: usize,
    pub inputs: usize,
    pub derived: usize,
    pub checks: usize,
}

impl Tally {
    pub fn of(rows: &[Row]) -> Tally {
        let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
        let v = |r: &Row| r.verdict_of();
        Tally {
            predictions: count(&|r| v(r).is_compared()),
            within: count(&|r| v(r) == Verdict::Within),
            outside: count(&|r| v(r).is_miss()),
            explained: count(&|r| v(r) == Verdict::OutsideExplained),
            not_compared: count(&|r| v(r) == Verdict::NotCompared),
            findings: count(&|r| r.role == Role::Finding),
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
    out.finish();
    Ok(out)
}

impl Outcome {
    /// Fills what follows from the rows: each row's verdict, the tally, the genuine
    /// predictions and the headline.
    pub fn finish(&mut self) {
        for r in &mut self.rows {
            r.verdict = r.verdict_of();
        }
        self.summary = Tally::of(&self.rows);
        self.predictions = Predictions {
            genuine: self.summary.predictions,
            within: self.summary.within,
            outside: self.summary.outside,
        };
        self.headline = self.headline_text();
    }

    /// The exit status of `scenario run`: 1 on a miss without explanation, or on any miss
    /// with `strict`; 0 otherwise.
    pub fn exit_status(&self, strict: bool) -> u8 {
        let bad = self.rows.iter().any(|r| match r.verdict_of() {
            Verdict::Outside => true,
            Verdict::OutsideExplained => strict,
            _ => false,
        });
        u8::from(bad)
    }

    /// "2 genuine predictions: 1 within, 1 outside (explained); of the document's 14
    /// figures used here, 5 are inputs, and 7 could not be predicted: ..."
    fn headline_text(&self) -> String {
        let t = &self.summary;
        let mut s = if t.predictions == 0 {
            "No genuine prediction: the document offers nothing latscope can predict \
             independently"
                .to_string()
        } else {
            let mut s = format!(
                "{} genuine prediction{}: {} within tolerance",
                t.predictions,
                if t.predictions == 1 { "" } else { "s" },
                t.within
            );
            if t.outside > 0 {
                s.push_str(&format!(", {} outside", t.outside));
                if t.explained == t.outside {
                    s.push_str(" (explained)");
                } else if t.explained > 0 {
                    s.push_str(&format!(" ({} explained)", t.explained));
                }
            }
            s
        };
        // Each figure of the document the table refers to, by its strongest role.
        let rank = |r: Role| match r {
            Role::Prediction => 0,
            Role::Input => 1,
            Role::Check => 2,
            Role::Derived => 3,
            Role::Finding => 4,
            Role::NotCompared => 5,
        };
        let mut best: Vec<(&str, Role)> = Vec::new();
        for r in &self.rows {
            match best.iter_mut().find(|(id, _)| *id == r.figure_id) {
                Some((_, role)) if rank(r.role) < rank(*role) => *role = r.role,
                Some(_) => {}
                None => best.push((&r.figure_id, r.role)),
            }
        }
        let n = |role: Role| best.iter().filter(|(_, r)| *r == role).count();
        let why: Vec<String> = [
            (
                Role::Derived,
                "the document's own arithmetic or a restatement of another row",
            ),
            (
                Role::Check,
                "went into the model (calibration, or a model chosen after seeing them)",
            ),
            (Role::Finding, "yes/no that the model gives by construction"),
            (
                Role::NotCompared,
                "not comparable here (other hardware, no number, no code)",
            ),
        ]
        .iter()
        .filter(|(r, _)| n(*r) > 0)
        .map(|(r, w)| format!("{} {w}", n(*r)))
        .collect();
        let unpredicted =
            n(Role::Derived) + n(Role::Check) + n(Role::Finding) + n(Role::NotCompared);
        s.push_str(&format!(
            ". Of the document's {} figures in the table, {} predicted, {} input{}",
            best.len(),
            n(Role::Prediction),
            n(Role::Input),
            if n(Role::Input) == 1 { "" } else { "s" },
        ));
        if unpredicted > 0 {
            s.push_str(&format!(
                ", {unpredicted} not predicted: {}",
                why.join("; ")
            ));
        }
        s.push('.');
        s
    }

    fn new(info: &Info, figures: &[Figure], opts: &Options) -> Outcome {
        Outcome {
            kind: "scenario",
            schema_version: 1,
            name: info.name.into(),
            title: info.title.into(),
            source: info.document.cite(),
            quick: opts.quick,
            headline: String::new(),
            predictions: Predictions::default(),
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
