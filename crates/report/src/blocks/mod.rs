//! The report as a list of blocks (headings, tables, charts, notes), built from the inputs.
//! The same blocks render as HTML (with charts) and as Markdown (tables only).

//!
//! One module per result kind (the way hyperfine keeps one exporter per format): `measure`,
//! `trace`, `analyze`, `simulate` (with the series and timeline inputs), `scenario`, `noise` and
//! `compare` (several inputs side by side); `layout` holds the tables and splits they share,
//! and [`crate::charts`] the charts.

mod analyze;
mod change;
mod compare;
mod fit;
mod layout;
mod measure;
mod noise;
mod scenario;
mod simulate;
pub mod sweep;
mod trace;
mod trace_chains;
mod trace_measurement;

use crate::artifacts::{SeriesDoc, SweepDoc, Timeline};
use crate::charts::Chart;
use crate::data::{self, Tone};
use crate::units::{dur, int};
use crate::{Document, Input, Kind, ReportError};
use latscope_results::{Status, Verdict};
use serde_json::Value;
use std::collections::HashMap;

/// One table cell.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    pub text: String,
    /// Shown as a coloured badge when set.
    pub tone: Option<Tone>,
    /// Right-aligned (numbers).
    pub num: bool,
    pub strong: bool,
}

impl Cell {
    pub fn t(s: impl Into<String>) -> Cell {
        Cell {
            text: s.into(),
            ..Cell::default()
        }
    }
    pub fn n(s: impl Into<String>) -> Cell {
        Cell {
            text: s.into(),
            num: true,
            ..Cell::default()
        }
    }
    pub fn badge(s: impl Into<String>, tone: Tone) -> Cell {
        Cell {
            text: s.into(),
            tone: Some(tone),
            ..Cell::default()
        }
    }
    pub fn bold(mut self) -> Cell {
        self.strong = true;
        self
    }
}

#[derive(Debug, Clone, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Clone)]
pub struct Figure {
    pub title: String,
    pub caption: String,
    pub chart: Chart,
}

#[derive(Debug, Clone)]
pub enum Block {
    /// A heading with an anchor id; level 2 = one input, 3 = a part of it, 4 = below.
    Heading {
        level: u8,
        id: String,
        title: String,
        kind: Option<String>,
    },
    Table(Table),
    Figure(Figure),
    /// Key/value pairs (run settings).
    Facts(Vec<(String, String)>),
    /// A one-line verdict with a tone.
    Verdict(Tone, String),
    /// The first screen of an input: its verdict ([`latscope_results::Verdict`], the same
    /// the terminal prints), the worst case with where and the one-line cause.
    Answer(latscope_results::Verdict),
    /// Muted explanatory text.
    Note(String),
    /// Links the rows of the table just before to the charts with the same `id`: row `i`
    /// names the instant `times[i]` (ns); the page script draws a crosshair there.
    Link {
        id: String,
        times: Vec<Option<f64>>,
    },
}

/// The built report.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    pub blocks: Vec<Block>,
    /// (name, kind) of each input, in order.
    pub inputs: Vec<(String, String)>,
}

struct Builder {
    charts: bool,
    out: Vec<Block>,
    ids: HashMap<String, usize>,
    /// The last environment shown, so identical ones (several runs of one scenario) are
    /// not repeated.
    last_env: Option<Value>,
    /// Titles of the sections in the contents so far, to keep them distinct.
    titles: HashMap<String, usize>,
    /// A simulate result is present: captures are drawn with it, not on their own.
    with_simulate: bool,
    /// The worst case of the first trace result (at, value, measurement), for the
    /// timeline of a capture given beside it.
    trace_worst: Option<(f64, f64, String)>,
}

impl Builder {
    fn id(&mut self, title: &str) -> String {
        let mut s: String = title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        while s.contains("--") {
            s = s.replace("--", "-");
        }
        let s = s.trim_matches('-').to_string();
        let s = if s.is_empty() { "section".into() } else { s };
        let n = self.ids.entry(s.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            s
        } else {
            format!("{s}-{n}")
        }
    }
    fn heading(&mut self, level: u8, title: &str, kind: Option<&str>) {
        // Sections in the contents never share a title.
        let title = if level <= 3 {
            let n = self.titles.entry(title.to_string()).or_insert(0);
            *n += 1;
            if *n == 1 {
                title.to_string()
            } else {
                format!("{title} ({n})")
            }
        } else {
            title.to_string()
        };
        let title = title.as_str();
        let id = self.id(title);
        self.out.push(Block::Heading {
            level,
            id,
            title: title.to_string(),
            kind: kind.map(str::to_string),
        });
    }
    fn table(&mut self, t: Table) {
        if !t.rows.is_empty() {
            self.out.push(Block::Table(t));
        }
    }
    /// Links the table just added to the charts of `id` (see [`Block::Link`]).
    fn link(&mut self, id: &str, times: Vec<Option<f64>>) {
        if matches!(self.out.last(), Some(Block::Table(_))) {
            self.out.push(Block::Link {
                id: id.to_string(),
                times,
            });
        }
    }
    /// A fresh id for a chart ↔ table link.
    fn link_id(&mut self, what: &str) -> String {
        self.id(&format!("link {what}"))
    }
    fn note(&mut self, s: impl Into<String>) {
        self.out.push(Block::Note(s.into()));
    }
    fn facts(&mut self, f: Vec<(String, String)>) {
        if !f.is_empty() {
            self.out.push(Block::Facts(f));
        }
    }
    /// Adds a chart (HTML only); `make` is not even called for Markdown.
    fn figure(
        &mut self,
        title: &str,
        caption: &str,
        make: impl FnOnce() -> Result<Option<Chart>, ReportError>,
    ) -> Result<(), ReportError> {
        if !self.charts {
            return Ok(());
        }
        if let Some(chart) = make()? {
            self.out.push(Block::Figure(Figure {
                title: title.to_string(),
                caption: caption.to_string(),
                chart,
            }));
        }
        Ok(())
    }
}

/// An input as the report shows it: under its short name, without copying its data.
pub(crate) struct View<'a> {
    pub name: String,
    pub kind: Kind,
    pub doc: &'a Value,
    pub result: Option<&'a Document>,
    pub attachments: &'a [Input],
}

impl<'a> View<'a> {
    pub(crate) fn of(i: &'a Input) -> View<'a> {
        View {
            name: i.name.clone(),
            kind: i.kind,
            doc: &i.doc,
            result: i.result.as_ref(),
            attachments: &i.attachments,
        }
    }
}

/// Builds the report's blocks; `charts` = false skips every chart (Markdown).
pub fn build(inputs: &[Input], charts: bool) -> Result<Doc, ReportError> {
    let mut b = Builder {
        charts,
        out: Vec::new(),
        ids: HashMap::new(),
        last_env: None,
        titles: HashMap::new(),
        with_simulate: inputs.iter().any(|i| i.kind == Kind::Simulate),
        trace_worst: inputs.iter().find_map(|i| match &i.result {
            Some(Document::Trace(t)) => Verdict::trace(t)
                .worst
                .and_then(|w| Some((w.at_ns?, w.value_ns, w.where_))),
            _ => None,
        }),
    };
    let full: Vec<(String, String)> = inputs
        .iter()
        .map(|i| (i.name.clone(), i.kind.name().to_string()))
        .collect();
    let shortened = short_names(inputs);
    let inputs = shortened.as_slice();
    if inputs.len() > 1 {
        overview(&mut b, inputs);
        compare::comparisons(&mut b, inputs)?;
    }
    let captures: Vec<&View> = inputs.iter().filter(|i| i.kind == Kind::Capture).collect();
    for input in inputs {
        b.heading(2, &input.name, Some(input.kind.name()));
        if let Some(v) = verdict_of(input) {
            b.out.push(Block::Answer(v));
        }
        render(&mut b, input, 2, &captures)?;
    }
    Ok(Doc {
        blocks: b.out,
        inputs: full,
    })
}

/// Inputs named by the shortest path suffix that tells them apart (usually the file name);
/// the same file given twice gets " (2)".
fn short_names(inputs: &[Input]) -> Vec<View<'_>> {
    let parts: Vec<Vec<&str>> = inputs
        .iter()
        .map(|i| i.name.split('/').filter(|p| !p.is_empty()).collect())
        .collect();
    let suffix = |p: &[&str], k: usize| p[p.len().saturating_sub(k)..].join("/");
    let mut names: Vec<String> = Vec::with_capacity(inputs.len());
    for (i, p) in parts.iter().enumerate() {
        let mut k = 1;
        while k < p.len()
            && parts
                .iter()
                .enumerate()
                .any(|(j, q)| j != i && q != p && suffix(q, k) == suffix(p, k))
        {
            k += 1;
        }
        let base = if p.is_empty() {
            inputs[i].name.clone()
        } else {
            suffix(p, k)
        };
        let seen = names
            .iter()
            .filter(|n| *n == &base || n.starts_with(&format!("{base} (")))
            .count();
        names.push(if seen == 0 {
            base
        } else {
            format!("{base} ({})", seen + 1)
        });
    }
    inputs
        .iter()
        .zip(names)
        .map(|(i, name)| View {
            name,
            kind: i.kind,
            doc: &i.doc,
            result: i.result.as_ref(),
            attachments: &i.attachments,
        })
        .collect()
}

fn render(b: &mut Builder, input: &View, level: u8, captures: &[&View]) -> Result<(), ReportError> {
    let d = input.doc;
    match input.kind {
        Kind::Measure => match input.result {
            Some(Document::Measure(m)) => measure::measure(b, m, level, input.attachments),
            _ => Ok(()),
        },
        Kind::Trace => match input.result {
            Some(Document::Trace(t)) => trace::trace(b, t, level),
            _ => Ok(()),
        },
        Kind::Analyze => match input.result {
            Some(Document::Analyze(a)) => analyze::analyze(b, a, level),
            _ => Ok(()),
        },
        Kind::Simulate => match input.result {
            Some(Document::Simulate(s)) => {
                simulate::simulate(b, s, level, captures, input.attachments)
            }
            _ => Ok(()),
        },
        Kind::Scenario => scenario::scenario(b, input, level),
        Kind::Noise => noise::noise(b, d, level),
        Kind::Fit => match input.result {
            Some(Document::Fit(f)) => fit::fit(b, f, level),
            _ => Ok(()),
        },
        Kind::Compare => compare::compare_document(b, input),
        Kind::Series => simulate::series_input(b, d, level),
        Kind::Capture => simulate::capture_input(b, d, level),
        Kind::Samples => measure::samples(b, d, level),
        Kind::Sweep => sweep::sweep(b, d, level),
    }
}

/// The verdict of an input, from the one verdict function ([`Verdict`]), for the kinds
/// that have one (a capture, a series, raw samples or a sweep have none).
fn verdict_of(input: &View) -> Option<Verdict> {
    verdict_for(input.kind, input.doc, input.result)
}

/// The verdict of a parsed input: the scenario's tally, or [`Verdict::of`] its typed
/// document (every result kind but the scenario's reads into one).
pub(crate) fn verdict_for(kind: Kind, d: &Value, result: Option<&Document>) -> Option<Verdict> {
    match (kind, result) {
        (Kind::Scenario, _) => {
            serde_json::from_value::<latscope_results::scenario::ScenarioResult>(d.clone())
                .ok()
                .map(|o| Verdict::of_scenario(&o))
        }
        (_, Some(r)) => Some(Verdict::of(r)),
        _ => None,
    }
}

/// The tone a verdict is shown in.
pub(crate) fn status_tone(s: Status) -> Tone {
    match s {
        Status::Pass => Tone::Good,
        Status::Fail => Tone::Bad,
        Status::Info => Tone::Neutral,
    }
}

/// A one-line headline of an input, for the overview table: its verdict where it has
/// one (a failed trace reads as failed), else what it holds.
fn headline(input: &View) -> (String, Option<Tone>) {
    if let Some(v) = verdict_of(input) {
        return (v.headline(), Some(status_tone(v.status)));
    }
    let d = input.doc;
    match input.kind {
        Kind::Measure => match input.result {
            Some(Document::Measure(m)) => (
                format!(
                    "p99 {}, max {}",
                    dur(m.total.p99_ns as f64),
                    dur(m.total.max_ns as f64)
                ),
                None,
            ),
            _ => ("no summary".into(), None),
        },
        Kind::Trace => match input.result {
            Some(Document::Trace(t)) => (format!("{} measurements", t.measurements.len()), None),
            _ => ("no measurements".into(), None),
        },
        Kind::Analyze => match input.result {
            Some(Document::Analyze(a)) => {
                let tasks = &a.analysis.tasks;
                let ok = tasks.iter().filter(|t| t.schedulable).count();
                let tone = if ok == tasks.len() {
                    Tone::Good
                } else {
                    Tone::Bad
                };
                (
                    format!("{ok} of {} tasks schedulable", tasks.len()),
                    Some(tone),
                )
            }
            _ => ("no analysis".into(), None),
        },
        Kind::Simulate => {
            let misses: u64 = match input.result {
                Some(Document::Simulate(s)) => s.tasks.iter().map(|t| t.deadline_misses).sum(),
                _ => 0,
            };
            let tone = if misses > 0 { Tone::Bad } else { Tone::Good };
            (
                format!("{} deadline misses", int(misses as f64)),
                Some(tone),
            )
        }
        Kind::Scenario => {
            let (within, preds, unexplained) = scenario::scenario_score(d);
            let tone = match (preds - within.min(preds), unexplained) {
                (0, _) => Tone::Good,
                (_, 0) => Tone::Warn,
                _ => Tone::Bad,
            };
            let text = match (preds, preds - within.min(preds), unexplained) {
                (0, _, _) => "no genuine prediction".to_string(),
                (_, 0, _) => format!("{within} of {preds} predictions within tolerance"),
                (_, _, 0) => format!(
                    "{within} of {preds} predictions within tolerance, the misses explained"
                ),
                _ => format!(
                    "{within} of {preds} predictions within tolerance, {unexplained} miss(es) unexplained"
                ),
            };
            (text, Some(tone))
        }
        Kind::Noise => noise::headline(d),
        Kind::Fit => match input.result {
            Some(Document::Fit(f)) => {
                let (h, t) = fit::headline(f);
                (h, Some(t))
            }
            _ => ("no fit".into(), None),
        },
        Kind::Compare => compare::compare_headline(d),
        Kind::Series => (format!("{} series", SeriesDoc::of(d).series.len()), None),
        Kind::Capture => (format!("{} tracks", Timeline::of(d).len()), None),
        Kind::Samples => match data::samples_total(d) {
            Some(s) => (
                format!(
                    "{} samples, max {}",
                    s.count().map(int).unwrap_or_default(),
                    s.max().map(dur).unwrap_or_default()
                ),
                None,
            ),
            None => ("no samples".into(), None),
        },
        Kind::Sweep => (
            format!("{} configurations", SweepDoc::of(d).curves.len()),
            None,
        ),
    }
}

fn overview(b: &mut Builder, inputs: &[View]) {
    b.heading(2, "Overview", None);
    let rows = inputs
        .iter()
        .map(|i| {
            let (h, tone) = headline(i);
            vec![
                Cell::t(&i.name),
                Cell::t(i.kind.name()),
                match tone {
                    Some(t) => Cell::badge(h, t),
                    None => Cell::t(h),
                },
            ]
        })
        .collect();
    b.table(Table {
        headers: vec!["input".into(), "kind".into(), "headline".into()],
        rows,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str) -> Input {
        Input::parse(name, "time_ns,duration_ns\n0,1\n").unwrap()
    }

    #[test]
    fn names_are_short_and_distinct() {
        let n = |v: &[&str]| -> Vec<String> {
            short_names(&v.iter().map(|x| input(x)).collect::<Vec<_>>())
                .into_iter()
                .map(|i| i.name)
                .collect()
        };
        assert_eq!(n(&["/a/b/run.json", "/a/c/x.json"]), ["run.json", "x.json"]);
        assert_eq!(
            n(&["/a/b/run.json", "/a/c/run.json"]),
            ["b/run.json", "c/run.json"]
        );
        assert_eq!(n(&["x.json", "x.json"]), ["x.json", "x.json (2)"]);
    }
}
