//! The report as a list of blocks (headings, tables, charts, notes), built from the inputs.
//! The same blocks render as HTML (with charts) and as Markdown (tables only).

use crate::charts::{self, BarRow, BarScale, Chart, Deviation};
use crate::data::{self, arr, num, num_any, text, text_any, tone_of, Bucket, Stats, Tone};
use crate::units::{dur, int, num as fnum, pct};
use crate::{Input, Kind, ReportError};
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
    /// Muted explanatory text.
    Note(String),
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
    /// A simulate result is present: captures are drawn with it, not on their own.
    with_simulate: bool,
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

/// Builds the report's blocks; `charts` = false skips every chart (Markdown).
pub fn build(inputs: &[Input], charts: bool) -> Result<Doc, ReportError> {
    let mut b = Builder {
        charts,
        out: Vec::new(),
        ids: HashMap::new(),
        last_env: None,
        with_simulate: inputs.iter().any(|i| i.kind == Kind::Simulate),
    };
    let full: Vec<(String, String)> = inputs
        .iter()
        .map(|i| (i.name.clone(), i.kind.name().to_string()))
        .collect();
    let shortened = short_names(inputs);
    let inputs = shortened.as_slice();
    if inputs.len() > 1 {
        overview(&mut b, inputs);
        comparisons(&mut b, inputs)?;
    }
    let captures: Vec<&Input> = inputs.iter().filter(|i| i.kind == Kind::Capture).collect();
    for input in inputs {
        b.heading(2, &input.name, Some(input.kind.name()));
        render(&mut b, input, 2, &captures)?;
    }
    Ok(Doc {
        blocks: b.out,
        inputs: full,
    })
}

/// Inputs named by the shortest path suffix that tells them apart (usually the file name);
/// the same file given twice gets " (2)".
fn short_names(inputs: &[Input]) -> Vec<Input> {
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
        .map(|(i, name)| Input {
            name,
            kind: i.kind,
            doc: i.doc.clone(),
        })
        .collect()
}

fn render(
    b: &mut Builder,
    input: &Input,
    level: u8,
    captures: &[&Input],
) -> Result<(), ReportError> {
    let d = &input.doc;
    match input.kind {
        Kind::Measure => measure(b, d, level),
        Kind::Trace => trace(b, d, level),
        Kind::Analyze => analyze(b, d, level),
        Kind::Simulate => simulate(b, d, level, captures),
        Kind::Scenario => scenario(b, d, &input.name, level),
        Kind::Series => series_input(b, d, level),
        Kind::Capture => capture_input(b, d, level),
    }
}

/// A one-line headline of an input, for the overview table.
fn headline(input: &Input) -> (String, Option<Tone>) {
    let d = &input.doc;
    match input.kind {
        Kind::Measure => match d.get("total").and_then(Stats::from_value) {
            Some(s) => (
                format!(
                    "p99 {}, max {}",
                    s.p99.map(dur).unwrap_or_else(|| "–".into()),
                    s.max.map(dur).unwrap_or_else(|| "–".into())
                ),
                None,
            ),
            None => ("no summary".into(), None),
        },
        Kind::Trace => (
            format!("{} measurements", arr(d, "measurements").len()),
            None,
        ),
        Kind::Analyze => {
            let tasks = arr(d, "tasks");
            let ok = tasks
                .iter()
                .filter(|t| data::flag(t, "schedulable") == Some(true))
                .count();
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
        Kind::Simulate => {
            let misses: f64 = arr(d, "tasks")
                .iter()
                .filter_map(|t| num(t, "deadline_misses"))
                .sum();
            let tone = if misses > 0.0 { Tone::Bad } else { Tone::Good };
            (format!("{} deadline misses", int(misses)), Some(tone))
        }
        Kind::Scenario => {
            let (within, preds) = scenario_score(d);
            let tone = if within == preds {
                Tone::Good
            } else {
                Tone::Bad
            };
            (
                format!("{within} of {preds} predictions within tolerance"),
                Some(tone),
            )
        }
        Kind::Series => (format!("{} series", arr(d, "series").len()), None),
        Kind::Capture => (format!("{} tracks", arr(d, "tracks").len()), None),
    }
}

fn overview(b: &mut Builder, inputs: &[Input]) {
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

/// Side-by-side sections for inputs of the same kind.
fn comparisons(b: &mut Builder, inputs: &[Input]) -> Result<(), ReportError> {
    let of = |k: Kind| {
        inputs
            .iter()
            .filter(move |i| i.kind == k)
            .collect::<Vec<_>>()
    };
    let ms = of(Kind::Measure);
    if ms.len() > 1 {
        b.heading(2, "Comparison of measure runs", Some("compare"));
        let mut sets = Vec::new();
        for m in &ms {
            sets.push(StatsRow {
                label: m.name.clone(),
                stats: m
                    .doc
                    .get("total")
                    .and_then(Stats::from_value)
                    .unwrap_or_default(),
            });
        }
        b.table(stats_table("run", &sets));
        let hs: Vec<(String, Vec<Bucket>, Option<Stats>)> = ms
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    measure_hist(&m.doc),
                    m.doc.get("total").and_then(Stats::from_value),
                )
            })
            .filter(|h| !h.1.is_empty())
            .collect();
        if hs.len() > 1 {
            let h2: Vec<(String, Vec<Bucket>)> =
                hs.iter().map(|h| (h.0.clone(), h.1.clone())).collect();
            b.figure(
                "Latency histograms, overlaid",
                "Wake-up latency of each run; count on a log axis.",
                || charts::histogram(&h2, "wake-up latency"),
            )?;
            b.figure(
                "Latency by percentile, overlaid",
                "HdrHistogram-style percentile plot: each step to the right is ten times rarer.",
                || charts::cdf(&hs, "wake-up latency"),
            )?;
        }
    }
    let ts = of(Kind::Trace);
    if ts.len() > 1 {
        b.heading(2, "Comparison of trace results", Some("compare"));
        let mut names: Vec<String> = Vec::new();
        for t in &ts {
            for m in arr(&t.doc, "measurements") {
                if let Some(n) = text(m, "name") {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
        }
        for name in names {
            let found: Vec<(&Input, &Value)> = ts
                .iter()
                .filter_map(|t| {
                    arr(&t.doc, "measurements")
                        .iter()
                        .find(|m| text(m, "name").as_deref() == Some(name.as_str()))
                        .map(|m| (*t, m))
                })
                .collect();
            if found.len() < 2 {
                continue;
            }
            b.heading(3, &format!("{name} across inputs"), None);
            let timed = found.iter().all(|(_, m)| is_time_measurement(m));
            let rows: Vec<StatsRow> = found
                .iter()
                .map(|(t, m)| StatsRow {
                    label: t.name.clone(),
                    stats: Stats::from_value(m).unwrap_or_default(),
                })
                .collect();
            if timed {
                b.table(stats_table("input", &rows));
                let hs: Vec<(String, Vec<Bucket>)> = found
                    .iter()
                    .map(|(t, m)| (t.name.clone(), data::buckets(m.get("histogram"))))
                    .filter(|h| !h.1.is_empty())
                    .collect();
                if hs.len() > 1 {
                    b.figure(
                        &format!("{name}: histograms, overlaid"),
                        "Count on a log axis.",
                        || charts::histogram(&hs, &name),
                    )?;
                }
            }
        }
    }
    let an = of(Kind::Analyze);
    if an.len() > 1 {
        b.heading(2, "Comparison of analyses", Some("compare"));
        b.table(task_matrix(&an, "wcrt_ns", "WCRT"));
    }
    let sims = of(Kind::Simulate);
    if sims.len() > 1 {
        b.heading(2, "Comparison of simulations", Some("compare"));
        b.table(task_matrix(&sims, "max_response_ns", "max response"));
    }
    Ok(())
}

/// Task × input table of one duration field.
fn task_matrix(inputs: &[&Input], key: &str, what: &str) -> Table {
    let mut names: Vec<String> = Vec::new();
    for i in inputs {
        for t in arr(&i.doc, "tasks") {
            if let Some(n) = text(t, "name") {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    let mut headers = vec!["task".to_string()];
    headers.extend(inputs.iter().map(|i| format!("{what}: {}", i.name)));
    let rows = names
        .iter()
        .map(|n| {
            let mut row = vec![Cell::t(n)];
            for i in inputs {
                let t = arr(&i.doc, "tasks")
                    .iter()
                    .find(|t| text(t, "name").as_deref() == Some(n.as_str()));
                row.push(match t.map(|t| t.get(key)) {
                    Some(Some(Value::Null)) => Cell::badge("unbounded", Tone::Bad),
                    Some(Some(v)) => Cell::n(v.as_f64().map(dur).unwrap_or_else(|| "–".into())),
                    _ => Cell::n("–"),
                });
            }
            row
        })
        .collect();
    Table { headers, rows }
}

struct StatsRow {
    label: String,
    stats: Stats,
}

/// A latency summary table; columns that no row has are left out.
fn stats_table(first: &str, rows: &[StatsRow]) -> Table {
    type Get = fn(&Stats) -> Option<f64>;
    let cols: [(&str, Get, bool); 12] = [
        ("count", |s| s.count, false),
        ("min", |s| s.min, true),
        ("mean", |s| s.mean, true),
        ("stdev", |s| s.stdev, true),
        ("p50", |s| s.p50, true),
        ("p90", |s| s.p90, true),
        ("p99", |s| s.p99, true),
        ("p99.9", |s| s.p999, true),
        ("p99.99", |s| s.p9999, true),
        ("max", |s| s.max, true),
        ("max at", |s| s.max_at, true),
        ("overruns", |s| s.overruns, false),
    ];
    let used: Vec<&(&str, Get, bool)> = cols
        .iter()
        .filter(|c| rows.iter().any(|r| (c.1)(&r.stats).is_some()))
        .collect();
    let mut headers = vec![first.to_string()];
    headers.extend(used.iter().map(|c| c.0.to_string()));
    let rows = rows
        .iter()
        .map(|r| {
            let mut row = vec![Cell::t(&r.label)];
            for (name, get, is_time) in &used {
                let v = get(&r.stats);
                let s = match v {
                    None => "–".to_string(),
                    Some(v) if *is_time => dur(v),
                    Some(v) => int(v),
                };
                let mut c = Cell::n(s);
                if *name == "max" {
                    c = c.bold();
                }
                if *name == "overruns" && v.unwrap_or(0.0) > 0.0 {
                    c = Cell::badge(int(v.unwrap_or(0.0)), Tone::Warn);
                }
                row.push(c);
            }
            row
        })
        .collect();
    Table { headers, rows }
}

fn measure_hist(d: &Value) -> Vec<Bucket> {
    let h = data::buckets(d.get("histogram"));
    if !h.is_empty() {
        return h;
    }
    data::buckets(d.get("total").and_then(|t| t.get("histogram")))
}

fn cpu_label(c: &Value, i: usize) -> String {
    match text_any(c, &["cpu", "id", "name"]) {
        Some(s) => format!("CPU {s}"),
        None => format!("CPU #{i}"),
    }
}

/// Run settings: top-level scalars plus scalars of a few well-known nested objects.
fn settings(d: &Value) -> Vec<(String, String)> {
    let mut f = data::scalars(d, &["kind", "schema_version", "started_unix_s"]);
    for k in ["settings", "config", "parameters", "run", "host", "system"] {
        if let Some(o) = d.get(k) {
            f.extend(data::scalars(o, &["memory_lock_detail"]));
        }
    }
    // "policy requested: fifo" next to "policy: fifo" says nothing.
    let plain: Vec<(String, String)> = f.clone();
    f.retain(|(k, v)| match k.strip_suffix(" requested") {
        Some(base) => !plain.iter().any(|(k2, v2)| k2 == base && v2 == v),
        None => true,
    });
    f
}

fn measure(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    b.facts(settings(d));
    let mut rows = Vec::new();
    if let Some(s) = d.get("total").and_then(Stats::from_value) {
        rows.push(StatsRow {
            label: "all CPUs".into(),
            stats: s,
        });
    }
    for (i, c) in arr(d, "cpus").iter().enumerate() {
        if let Some(s) = Stats::from_value(c) {
            rows.push(StatsRow {
                label: cpu_label(c, i),
                stats: s,
            });
        }
    }
    if !rows.is_empty() {
        b.heading(level + 1, "Wake-up latency", None);
        b.table(stats_table("CPU", &rows));
    }
    if let Some(t) = d.get("total") {
        let over = num(t, "histogram_overflow").unwrap_or(0.0);
        if over > 0.0 {
            b.out.push(Block::Verdict(
                Tone::Warn,
                format!(
                    "{} samples lay above the histogram's range ({}): they count in max and mean, not in the charts",
                    int(over),
                    num(t, "histogram_highest_ns").map(dur).unwrap_or_else(|| "its top".into())
                ),
            ));
        }
    }
    let dropped: f64 = arr(d, "cpus")
        .iter()
        .filter_map(|c| num(c, "dropped_samples"))
        .sum();
    if dropped > 0.0 {
        b.out.push(Block::Verdict(
            Tone::Warn,
            format!(
                "{} raw samples were dropped from the --samples file (the statistics include them)",
                int(dropped)
            ),
        ));
    }
    let hist = measure_hist(d);
    let total = d.get("total").and_then(Stats::from_value);
    if !hist.is_empty() {
        let sets = vec![("all CPUs".to_string(), hist.clone())];
        b.figure(
            "Latency histogram",
            "Wake-up latency (actual − intended wake time), all CPUs; count on a log axis so single outliers stay visible.",
            || charts::histogram(&sets, "wake-up latency"),
        )?;
    }
    // Per-CPU percentile curves when per-CPU histograms exist, else the total.
    let per_cpu: Vec<(String, Vec<Bucket>, Option<Stats>)> = arr(d, "cpus")
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                cpu_label(c, i),
                data::buckets(c.get("histogram")),
                Stats::from_value(c),
            )
        })
        .filter(|c| !c.1.is_empty())
        .collect();
    if per_cpu.len() > 1 && per_cpu.len() <= 8 {
        b.figure(
            "Latency by percentile, per CPU",
            "HdrHistogram-style: each step to the right is ten times rarer; dots are the exact percentiles.",
            || charts::cdf(&per_cpu, "wake-up latency"),
        )?;
    } else if !hist.is_empty() {
        let sets = vec![("all CPUs".to_string(), hist, total)];
        b.figure(
            "Latency by percentile",
            "HdrHistogram-style: each step to the right is ten times rarer; dots are the exact percentiles.",
            || charts::cdf(&sets, "wake-up latency"),
        )?;
    }
    let series = data::series(d.get("series"));
    if !series.is_empty() {
        b.figure(
            "Latency over time",
            "Each sample's wake-up latency against time since the start of the run; the worst case is circled.",
            || charts::time_series(&series, "wake-up latency", true, None),
        )?;
    }
    let sweep = data::sweep(d);
    if !sweep.is_empty() {
        b.heading(level + 1, "Latency against sleep length", None);
        let rows: Vec<StatsRow> = sweep
            .iter()
            .map(|p| StatsRow {
                label: dur(p.interval_ns),
                stats: p.stats.clone(),
            })
            .collect();
        b.table(stats_table("sleep length", &rows));
        b.figure(
            "Wake-up latency against sleep length",
            "Seed 002's observation: longer sleeps wake up later (deeper idle states, frequency drops).",
            || charts::sweep(&sweep),
        )?;
    }
    if let Some(c) = d.get("compare") {
        compare_load(b, c, level)?;
    }
    environment(b, d, level);
    Ok(())
}

/// `compare: {idle: {...}, loaded: {...}}` (each a measure-like object, or just its total).
fn compare_load(b: &mut Builder, c: &Value, level: u8) -> Result<(), ReportError> {
    let Some(m) = c.as_object() else {
        return Ok(());
    };
    let mut rows = Vec::new();
    let mut hs = Vec::new();
    for (name, v) in m {
        // latscope computes its own difference row; `load` is the load's description.
        if name == "difference" || !v.is_object() {
            continue;
        }
        let stats = v
            .get("total")
            .and_then(Stats::from_value)
            .or_else(|| Stats::from_value(v));
        if let Some(s) = stats {
            let h = measure_hist(v);
            if !h.is_empty() {
                hs.push((name.clone(), h, Some(s.clone())));
            }
            rows.push(StatsRow {
                label: name.clone(),
                stats: s,
            });
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    // Idle first, then loaded, then anything else.
    let rank = |n: &str| match n {
        "idle" => 0,
        "loaded" => 1,
        _ => 2,
    };
    rows.sort_by_key(|r| rank(&r.label));
    hs.sort_by_key(|h| rank(&h.0));
    b.heading(level + 1, "Idle against loaded", None);
    if let Some(l) = text_any(c, &["load", "load_spec"]) {
        b.note(format!("Load: {l}"));
    }
    let mut t = stats_table("run", &rows);
    if rows.len() == 2 {
        let (a, z) = (&rows[0].stats, &rows[1].stats);
        let mut diff = vec![Cell::t("difference").bold()];
        for h in t.headers.iter().skip(1) {
            let pick = |s: &Stats| match h.as_str() {
                "min" => s.min,
                "mean" => s.mean,
                "p50" => s.p50,
                "p90" => s.p90,
                "p99" => s.p99,
                "p99.9" => s.p999,
                "p99.99" => s.p9999,
                "max" => s.max,
                _ => None,
            };
            diff.push(match (pick(a), pick(z)) {
                (Some(x), Some(y)) => {
                    let dlt = y - x;
                    let sign = if dlt > 0.0 { "+" } else { "" };
                    let tone = if dlt > 0.0 { Tone::Warn } else { Tone::Good };
                    Cell::badge(format!("{sign}{}", dur(dlt)), tone)
                }
                _ => Cell::n(""),
            });
        }
        t.rows.push(diff);
    }
    b.table(t);
    if hs.len() > 1 {
        let h2: Vec<(String, Vec<Bucket>)> =
            hs.iter().map(|h| (h.0.clone(), h.1.clone())).collect();
        b.figure(
            "Idle against loaded: histograms",
            "Count on a log axis.",
            || charts::histogram(&h2, "wake-up latency"),
        )?;
        b.figure(
            "Idle against loaded: percentiles",
            "Each step to the right is ten times rarer.",
            || charts::cdf(&hs, "wake-up latency"),
        )?;
    }
    Ok(())
}

fn environment(b: &mut Builder, d: &Value, level: u8) {
    let items = data::env_items(d);
    if items.is_empty() {
        return;
    }
    b.heading(level + 1, "Environment", None);
    let env = d.get("environment").cloned();
    if env.is_some() && env == b.last_env {
        b.note("Same environment diagnosis as the run above.");
        return;
    }
    b.last_env = env;
    let count = |t: Tone| items.iter().filter(|i| tone_of(&i.status) == t).count();
    let (bad, warn) = (count(Tone::Bad), count(Tone::Warn));
    let (tone, msg) = if bad > 0 {
        (
            Tone::Bad,
            format!("{bad} item(s) distort latency badly, {warn} may distort it"),
        )
    } else if warn > 0 {
        (Tone::Warn, format!("{warn} item(s) may distort latency"))
    } else {
        (
            Tone::Good,
            "nothing found that distorts latency".to_string(),
        )
    };
    b.out.push(Block::Verdict(tone, msg));
    let rows = items
        .iter()
        .map(|i| {
            vec![
                Cell::t(&i.name).bold(),
                Cell::badge(&i.status, tone_of(&i.status)),
                Cell::t(&i.value),
                Cell::t(&i.explanation),
            ]
        })
        .collect();
    b.table(Table {
        headers: vec![
            "item".into(),
            "status".into(),
            "value".into(),
            "effect on latency".into(),
        ],
        rows,
    });
}

/// Whether a trace measurement's values are durations (ns) rather than counts or fractions.
fn is_time_measurement(m: &Value) -> bool {
    match text(m, "unit") {
        None => true,
        Some(u) => matches!(u.as_str(), "ns" | "s" | "time" | "duration"),
    }
}

fn trace(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let mut f = data::scalars(d, &["kind", "schema_version"]);
    if let Some(c) = d.get("capture") {
        f.extend(data::scalars(c, &[]));
    }
    b.facts(f);
    let limits = arr(d, "limits");
    if !limits.is_empty() {
        b.heading(level + 1, "Limits", None);
        match data::flag(d, "pass") {
            Some(true) => b
                .out
                .push(Block::Verdict(Tone::Good, "every limit holds".into())),
            Some(false) => b
                .out
                .push(Block::Verdict(Tone::Bad, "a limit is exceeded".into())),
            None => {}
        }
        b.table(generic_table(limits));
    }
    let ms = arr(d, "measurements");
    if ms.is_empty() {
        b.note("This result holds no measurements.");
        return Ok(());
    }
    b.heading(level + 1, "Measurements", None);
    let mut rows = Vec::new();
    for m in ms {
        let timed = is_time_measurement(m);
        let unit = text(m, "unit").unwrap_or_default();
        let v = |keys: &[&str]| -> Cell {
            match num_any(m, keys) {
                Some(x) if timed => Cell::n(dur(x)),
                Some(x) => Cell::n(format!("{} {unit}", fnum(x, 4)).trim().to_string()),
                None => Cell::n("–"),
            }
        };
        let at = |keys: &[&str]| -> Cell {
            Cell::n(num_any(m, keys).map(dur).unwrap_or_else(|| "–".into()))
        };
        rows.push(vec![
            Cell::t(text(m, "name").unwrap_or_default()).bold(),
            Cell::t(text(m, "kind").unwrap_or_default()),
            Cell::n(num(m, "count").map(int).unwrap_or_else(|| "–".into())),
            v(&["min_ns", "min"]),
            at(&["min_at_ns"]),
            v(&["mean_ns", "mean"]),
            v(&["p50_ns", "p50"]),
            v(&["p99_ns", "p99"]),
            v(&["max_ns", "max"]).bold(),
            at(&["max_at_ns"]),
        ]);
    }
    b.table(Table {
        headers: [
            "measurement",
            "kind",
            "count",
            "min",
            "min at",
            "mean",
            "p50",
            "p99",
            "max",
            "max at",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
    for m in ms {
        let name = text(m, "name").unwrap_or_else(|| "measurement".into());
        let timed = is_time_measurement(m);
        let hist = data::buckets(m.get("histogram"));
        let series = data::series(m.get("series"));
        let worst = data::worst(m);
        if hist.is_empty() && series.is_empty() && worst.is_empty() {
            continue;
        }
        let kind = text(m, "kind").unwrap_or_default();
        b.heading(level + 1, &name, Some(&kind));
        let mut facts = Vec::new();
        for (k, label) in [
            ("resolution_ns", "resolution (±1 sample)"),
            ("unmatched", "unmatched events"),
            ("stdev_ns", "stdev"),
            ("mode_ns", "mode"),
        ] {
            if let Some(x) = num(m, k) {
                facts.push((
                    label.to_string(),
                    if k.ends_with("_ns") { dur(x) } else { int(x) },
                ));
            }
        }
        // Busy fraction: `busy_percent` {overall, min, max, …} and a per-window series.
        let busy = m.get("busy_percent");
        if let Some(bp) = busy {
            for (k, label) in [
                ("overall", "busy overall"),
                ("min", "busy, least window"),
                ("mean", "busy, mean window"),
                ("max", "busy, busiest window"),
            ] {
                if let Some(x) = num(bp, k) {
                    facts.push((label.to_string(), format!("{} %", fnum(x, 4))));
                }
            }
        }
        b.facts(facts);
        if busy.is_some() {
            let pct_series: Vec<data::Point> = arr(m, "series")
                .iter()
                .filter_map(|p| Some((num_any(p, &["at_ns", "t_ns"])?, num(p, "percent")?)))
                .collect();
            if pct_series.len() >= 2 {
                b.figure(
                    &format!("{name}: busy share per window"),
                    "Share of each window the channel was high: the kernel's overhead in percent, over time; the busiest window is circled.",
                    || charts::time_series(&pct_series, "busy (%)", false, None),
                )?;
            }
        }
        // A distribution needs a few values to be worth a chart.
        let enough = !matches!(num(m, "count"), Some(c) if c < 5.0);
        if timed && !hist.is_empty() && enough && busy.is_none() {
            let res = num(m, "resolution_ns");
            let quantised = data::quantised(&hist, res).is_some();
            // The first and last buckets reach no further than the exact min and max: a
            // bucket [9 µs, 12 µs) whose largest value is the max 9 µs is drawn up to 9 µs.
            let mut drawn = hist.clone();
            if let (true, Some(r)) = (quantised, res) {
                let lo = num_any(m, &["min_ns", "min"]);
                let hi = num_any(m, &["max_ns", "max"]);
                for k in &mut drawn {
                    if let Some(hi) = hi.filter(|h| *h >= k.low) {
                        k.high = k.high.min(hi + r);
                    }
                    if let Some(lo) = lo.filter(|l| *l < k.high) {
                        k.low = k.low.max(lo);
                    }
                }
                if data::quantised(&drawn, res).is_none() {
                    drawn = hist.clone();
                }
            }
            let sets = vec![(name.clone(), drawn, res)];
            b.figure(
                &format!("{name}: histogram"),
                if quantised {
                    "Count on a log axis, so that single outliers stay visible; values are whole samples and each bar spans the values it counts, half a sample either side (a one-sample bar is centred on its value)."
                } else {
                    "Count on a log axis, so that single outliers stay visible."
                },
                || charts::histogram_res(&sets, &name),
            )?;
            let sets = vec![(name.clone(), hist, Stats::from_value(m))];
            b.figure(
                &format!("{name}: by percentile"),
                "Each step to the right is ten times rarer; dots are the exact percentiles.",
                || charts::cdf(&sets, &name),
            )?;
        }
        if !series.is_empty() && enough && busy.is_none() {
            let hl = worst.first().copied().or_else(|| {
                match (num(m, "max_at_ns"), num_any(m, &["max_ns", "max"])) {
                    (Some(t), Some(v)) => Some((t, v)),
                    _ => None,
                }
            });
            b.figure(&format!("{name} over time"), "Value of each instance against its time in the capture; the worst case is circled.", || {
                charts::time_series(&series, &name, timed, hl)
            })?;
        }
        if !worst.is_empty() && enough {
            let rows = worst
                .iter()
                .take(10)
                .enumerate()
                .map(|(i, (t, v))| {
                    vec![
                        Cell::n(format!("{}", i + 1)),
                        Cell::n(if timed { dur(*v) } else { fnum(*v, 4) }),
                        Cell::n(dur(*t)),
                    ]
                })
                .collect();
            b.table(Table {
                headers: vec![
                    "rank".into(),
                    "value".into(),
                    "at (from capture start)".into(),
                ],
                rows,
            });
        }
    }
    Ok(())
}

/// Canonical order of response-time components; unknown ones come after, alphabetically.
fn component_rank(name: &str) -> (usize, String) {
    let n = name.to_ascii_lowercase();
    let order = [
        "wcet",
        "own",
        "execution",
        "interference",
        "tick",
        "switch",
        "context",
        "interrupt",
        "irq",
        "blocking",
        "jitter",
        "release",
    ];
    let r = order
        .iter()
        .position(|o| n.starts_with(o))
        .unwrap_or(order.len());
    (r, n)
}

fn analyze(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    b.facts(settings(d));
    for n in arr(d, "notes") {
        if let Some(t) = n.as_str() {
            b.note(t.to_string());
        }
    }
    if arr(d, "tasks").is_empty() {
        // Several analyses in one file and no main one: render each.
        for key in ["modes", "analyses", "tick_modes"] {
            if let Some(Value::Array(items)) = d.get(key) {
                for (i, sub) in items.iter().enumerate() {
                    let name = text_any(sub, &["name", "mode", "tick_mode"])
                        .unwrap_or_else(|| format!("#{}", i + 1));
                    b.heading(level + 1, &format!("Analysis: {name}"), None);
                    b.facts(data::scalars(sub, &[]));
                    analyze_tasks(b, sub, level + 1)?;
                }
                return Ok(());
            }
        }
    }
    analyze_tasks(b, d, level)?;
    tick_modes(b, d, level);
    Ok(())
}

/// The tasks of one analysis variant: `tick_modes.<mode>` as an array of tasks or an object
/// with `tasks`.
fn mode_tasks(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) => a.as_slice(),
        _ => arr(v, "tasks"),
    }
}

/// WCRT of each task under each tick accounting mode, with the pessimism removed.
fn tick_modes(b: &mut Builder, d: &Value, level: u8) {
    let Some(Value::Object(modes)) = d.get("tick_modes").or_else(|| d.get("modes")) else {
        return;
    };
    if modes.is_empty() {
        return;
    }
    // Pessimistic first: it is the reference the partitioned mode improves on.
    let mut names: Vec<&String> = modes.keys().collect();
    names.sort_by_key(|n| if n.as_str() == "pessimistic" { 0 } else { 1 });
    let mut tasks: Vec<String> = Vec::new();
    for n in &names {
        for t in mode_tasks(&modes[n.as_str()]) {
            if let Some(x) = text(t, "name") {
                if !tasks.contains(&x) {
                    tasks.push(x);
                }
            }
        }
    }
    let reduction = arr(d, "pessimism_reduction");
    let mut headers = vec!["task".to_string()];
    headers.extend(names.iter().map(|n| format!("WCRT, {n}")));
    if !reduction.is_empty() {
        headers.push("reduction".into());
    }
    let rows = tasks
        .iter()
        .map(|task| {
            let mut row = vec![Cell::t(task).bold()];
            for n in &names {
                let t = mode_tasks(&modes[n.as_str()])
                    .iter()
                    .find(|t| text(t, "name").as_deref() == Some(task.as_str()));
                row.push(match t {
                    Some(t) if t.get("wcrt_ns").is_some_and(Value::is_null) => {
                        Cell::badge("unbounded", Tone::Bad)
                    }
                    Some(t) => {
                        let c = Cell::n(num(t, "wcrt_ns").map(dur).unwrap_or_else(|| "–".into()));
                        if data::flag(t, "schedulable") == Some(false) {
                            Cell::badge(c.text, Tone::Bad)
                        } else {
                            c
                        }
                    }
                    None => Cell::n("–"),
                });
            }
            if !reduction.is_empty() {
                let r = reduction
                    .iter()
                    .find(|r| text(r, "name").as_deref() == Some(task.as_str()));
                row.push(Cell::n(
                    r.and_then(|r| {
                        let ns = num(r, "reduction_ns")?;
                        Some(match num(r, "reduction_pct") {
                            Some(p) => format!("{} ({} %)", dur(ns), fnum(p, 3)),
                            None => dur(ns),
                        })
                    })
                    .unwrap_or_else(|| "–".into()),
                ));
            }
            row
        })
        .collect();
    b.heading(level + 1, "Tick accounting modes", None);
    b.note(
        "Pessimistic: every tick pays for all releases; partitioned: one pseudo-task per task \
         with that task's period (seed 001). The difference is pessimism removed.",
    );
    b.table(Table { headers, rows });
}

fn analyze_tasks(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let tasks = arr(d, "tasks");
    if !tasks.is_empty() {
        b.heading(level + 1, "Response times", None);
        let n_ok = tasks
            .iter()
            .filter(|t| data::flag(t, "schedulable") == Some(true))
            .count();
        let (tone, msg) = if n_ok == tasks.len() {
            (Tone::Good, format!("all {} tasks schedulable", tasks.len()))
        } else {
            (
                Tone::Bad,
                format!(
                    "{} of {} tasks miss their deadline or are unbounded",
                    tasks.len() - n_ok,
                    tasks.len()
                ),
            )
        };
        b.out.push(Block::Verdict(tone, msg));
        let has = |k: &str| tasks.iter().any(|t| t.get(k).is_some());
        let opt_cols: Vec<(&str, &str)> = [
            ("period_ns", "period"),
            ("wcet_ns", "WCET"),
            ("jitter_ns", "jitter"),
            ("blocking_ns", "blocking"),
        ]
        .into_iter()
        .filter(|(k, _)| has(k))
        .collect();
        let mut headers = vec!["task".to_string(), "priority".to_string()];
        headers.extend(opt_cols.iter().map(|c| c.1.to_string()));
        let has_util = tasks
            .iter()
            .any(|t| num_any(t, &["utilisation", "utilization"]).is_some());
        headers.extend(["WCRT", "deadline", "slack"].map(String::from));
        if has_util {
            headers.push("utilisation".into());
        }
        headers.push("verdict".into());
        let rows = tasks
            .iter()
            .map(|t| {
                let mut row = vec![
                    Cell::t(text(t, "name").unwrap_or_default()).bold(),
                    Cell::n(text(t, "priority").unwrap_or_default()),
                ];
                for (k, _) in &opt_cols {
                    row.push(Cell::n(num(t, k).map(dur).unwrap_or_else(|| "–".into())));
                }
                let wcrt = num(t, "wcrt_ns");
                let dl = num(t, "deadline_ns");
                row.push(match (t.get("wcrt_ns"), wcrt) {
                    (Some(Value::Null), _) => Cell::badge("unbounded", Tone::Bad),
                    (_, Some(w)) => Cell::n(dur(w)).bold(),
                    _ => Cell::n("–"),
                });
                row.push(Cell::n(dl.map(dur).unwrap_or_else(|| "–".into())));
                let slack = num(t, "slack_ns").or(match (wcrt, dl) {
                    (Some(w), Some(d)) => Some(d - w),
                    _ => None,
                });
                row.push(Cell::n(slack.map(dur).unwrap_or_else(|| "–".into())));
                if has_util {
                    row.push(Cell::n(
                        num_any(t, &["utilisation", "utilization"])
                            .map(pct)
                            .unwrap_or_else(|| "–".into()),
                    ));
                }
                row.push(match data::flag(t, "schedulable") {
                    Some(true) => Cell::badge("schedulable", Tone::Good),
                    Some(false) => Cell::badge("misses deadline", Tone::Bad),
                    None => Cell::t("–"),
                });
                row
            })
            .collect();
        b.table(Table { headers, rows });
        breakdown(b, tasks)?;
    }
    utilisation(b, d, tasks, level)?;
    Ok(())
}

fn breakdown(b: &mut Builder, tasks: &[Value]) -> Result<(), ReportError> {
    type TaskParts = (String, Vec<data::Part>, Option<f64>, Option<f64>);
    let per_task: Vec<TaskParts> = tasks
        .iter()
        .map(|t| {
            (
                text(t, "name").unwrap_or_default(),
                data::parts_grouped(t.get("breakdown")),
                num(t, "deadline_ns"),
                num(t, "wcrt_ns"),
            )
        })
        .filter(|t| !t.1.is_empty())
        .collect();
    if per_task.is_empty() {
        return Ok(());
    }
    let mut comps: Vec<String> = Vec::new();
    for (_, parts, _, _) in &per_task {
        for p in parts {
            if !comps.contains(&p.name) {
                comps.push(p.name.clone());
            }
        }
    }
    // Only components that add something to some task.
    comps.retain(|c| {
        per_task
            .iter()
            .any(|t| t.1.iter().any(|p| &p.name == c && p.value > 0.0))
    });
    comps.sort_by_key(|c| component_rank(c));
    let rows: Vec<BarRow> = per_task
        .iter()
        .map(|(name, parts, dl, wcrt)| BarRow {
            label: name.clone(),
            values: comps
                .iter()
                .map(|c| parts.iter().filter(|p| &p.name == c).map(|p| p.value).sum())
                .collect(),
            marker: *dl,
            note: wcrt
                .map(|w| format!("R = {}", dur(w)))
                .unwrap_or_else(|| "unbounded".into()),
        })
        .collect();
    b.figure(
        "Response-time breakdown",
        "Where each task's worst-case response time comes from; the dark tick is the deadline (named after the bar when it lies beyond the axis).",
        || {
            charts::stacked_bars(
                "breakdown",
                &rows,
                &comps,
                BarScale::Time,
                "worst-case response time",
            )
        },
    )
}

fn utilisation(b: &mut Builder, d: &Value, tasks: &[Value], level: u8) -> Result<(), ReportError> {
    let top = d.get("utilisation").or_else(|| d.get("utilization"));
    let mut parts: Vec<data::Part> = match top {
        Some(Value::Object(_)) => data::parts(top),
        _ => Vec::new(),
    };
    // Totals such as "total" or bounds are facts, not slices.
    let mut facts = Vec::new();
    parts.retain(|p| {
        let n = p.name.to_ascii_lowercase();
        let is_fact = n.contains("total")
            || n.contains("bound")
            || n.contains("liu")
            || n.contains("hyperbolic")
            || n.contains("sum");
        if is_fact {
            facts.push((
                p.name.clone(),
                if p.value <= 1.5 {
                    pct(p.value)
                } else {
                    fnum(p.value, 4)
                },
            ));
        }
        !is_fact
    });
    if parts.is_empty() {
        if let Some(t) = d.get("totals") {
            let (p, f) = totals_split(t, text(d, "tick_mode").as_deref());
            parts = p;
            facts.extend(f);
        }
    }
    if parts.is_empty() {
        parts = tasks
            .iter()
            .filter_map(|t| {
                Some(data::Part {
                    name: text(t, "name")?,
                    value: num_any(t, &["utilisation", "utilization"])?,
                })
            })
            .collect();
    }
    parts.sort_by_key(|p| share_rank(&p.name));
    if let Some(Value::Number(n)) = top {
        facts.push(("total utilisation".into(), pct(n.as_f64().unwrap_or(0.0))));
    }
    if parts.is_empty() && facts.is_empty() {
        return Ok(());
    }
    b.heading(level + 1, "Utilisation", None);
    b.facts(facts);
    split_chart(
        b,
        "Utilisation split",
        "Share of the CPU taken by each task and each kernel overhead.",
        parts,
    )
}

/// `totals` of an analysis: `utilisation_<what>` fractions become the split (the tick in the
/// file's own accounting mode), the rest become facts.
fn totals_split(t: &Value, mode: Option<&str>) -> (Vec<data::Part>, Vec<(String, String)>) {
    let mut parts = Vec::new();
    let mut facts = Vec::new();
    let Some(m) = t.as_object() else {
        return (parts, facts);
    };
    for (k, v) in m {
        if let Some(what) = k
            .strip_prefix("utilisation_")
            .or_else(|| k.strip_prefix("utilization_"))
        {
            let Some(x) = v.as_f64() else { continue };
            if what == "total" {
                facts.push(("total utilisation".to_string(), pct(x)));
                continue;
            }
            let name = if let Some(tick_mode) = what.strip_prefix("tick_") {
                if mode.is_some_and(|m| m != tick_mode) {
                    facts.push((format!("tick utilisation, {tick_mode}"), pct(x)));
                    continue;
                }
                "tick".to_string()
            } else {
                what.replace('_', " ")
            };
            if x > 0.0 {
                parts.push(data::Part { name, value: x });
            }
        } else {
            match v {
                Value::Number(n) => {
                    let x = n.as_f64().unwrap_or(f64::NAN);
                    let val = if k.ends_with("_ns") {
                        dur(x)
                    } else if k.contains("bound") || k.contains("product") {
                        fnum(x, 4)
                    } else {
                        int(x)
                    };
                    facts.push((data::clean_key(k), val));
                }
                Value::Bool(x) => facts.push((data::clean_key(k), x.to_string())),
                _ => {}
            }
        }
    }
    (parts, facts)
}

/// Order of CPU shares: the work first, kernel overheads next, idle and sleep last.
fn share_rank(name: &str) -> usize {
    let n = name.to_ascii_lowercase();
    if n.contains("idle") || n.contains("unused") {
        9
    } else if n.contains("sleep") || n.contains("wake") {
        8
    } else if n.contains("task") {
        0
    } else {
        1
    }
}

/// A 100 % bar of fractions with an "idle" remainder, and its table.
fn split_chart(
    b: &mut Builder,
    title: &str,
    caption: &str,
    mut parts: Vec<data::Part>,
) -> Result<(), ReportError> {
    parts.retain(|p| p.value.is_finite() && p.value >= 0.0);
    if parts.is_empty() {
        return Ok(());
    }
    let sum: f64 = parts.iter().map(|p| p.value).sum();
    if sum < 0.999 && !parts.iter().any(|p| p.name.contains("idle")) {
        parts.push(data::Part {
            name: "idle (unused)".into(),
            value: 1.0 - sum,
        });
    }
    b.table(Table {
        headers: vec!["share".into(), "of the CPU".into()],
        rows: parts
            .iter()
            .map(|p| vec![Cell::t(&p.name), Cell::n(pct(p.value))])
            .collect(),
    });
    let comps: Vec<String> = parts.iter().map(|p| p.name.clone()).collect();
    let row = BarRow {
        label: "CPU".into(),
        values: parts.iter().map(|p| p.value).collect(),
        marker: None,
        note: String::new(),
    };
    b.figure(title, caption, || {
        charts::stacked_bars(
            "split",
            &[row],
            &comps,
            BarScale::Fraction,
            "share of CPU time",
        )
    })
}

fn simulate(b: &mut Builder, d: &Value, level: u8, captures: &[&Input]) -> Result<(), ReportError> {
    b.facts(data::scalars(d, &["kind", "schema_version"]));
    let tasks = arr(d, "tasks");
    if !tasks.is_empty() {
        b.heading(level + 1, "Tasks", None);
        let misses: f64 = tasks.iter().filter_map(|t| num(t, "deadline_misses")).sum();
        b.out.push(if misses > 0.0 {
            Block::Verdict(Tone::Bad, format!("{} deadline misses", int(misses)))
        } else {
            Block::Verdict(Tone::Good, "no deadline missed".into())
        });
        let rows = tasks
            .iter()
            .map(|t| {
                let r = t.get("response").cloned().unwrap_or(Value::Null);
                let d_ = |v: Option<f64>| Cell::n(v.map(dur).unwrap_or_else(|| "–".into()));
                let m = num(t, "deadline_misses").unwrap_or(0.0);
                vec![
                    Cell::t(text(t, "name").unwrap_or_default()).bold(),
                    Cell::n(num(t, "jobs").map(int).unwrap_or_else(|| "–".into())),
                    d_(num(&r, "min_ns")),
                    d_(num(&r, "mean_ns")),
                    d_(num(&r, "p99_ns")),
                    d_(num(t, "max_response_ns").or(num(&r, "max_ns"))).bold(),
                    d_(num(t, "deadline_ns")),
                    if m > 0.0 {
                        Cell::badge(int(m), Tone::Bad)
                    } else {
                        Cell::badge("0", Tone::Good)
                    },
                    Cell::n(num(t, "preemptions").map(int).unwrap_or_else(|| "–".into())),
                ]
            })
            .collect();
        b.table(Table {
            headers: [
                "task",
                "jobs",
                "min response",
                "mean",
                "p99",
                "max response",
                "deadline",
                "misses",
                "preemptions",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        });
    }
    if let Some(tick) = d.get("tick") {
        b.heading(level + 1, "Tick handler", None);
        let mut f = Vec::new();
        for (k, v) in data::scalars(tick, &[]) {
            f.push((k, v));
        }
        if let Some(p) = tick.get("peaks_at_ns").and_then(Value::as_array) {
            let list: Vec<String> = p
                .iter()
                .take(6)
                .filter_map(Value::as_f64)
                .map(dur)
                .collect();
            if !list.is_empty() {
                f.push((
                    "longest ticks at".into(),
                    format!(
                        "{}{}",
                        list.join(", "),
                        if p.len() > 6 { ", …" } else { "" }
                    ),
                ));
            }
        }
        b.facts(f);
        let series = data::series(tick.get("series").or_else(|| d.get("tick_series")));
        if !series.is_empty() {
            b.figure(
                "Tick handler duration over time",
                "Duration of each tick handler run; the longest is circled.",
                || charts::time_series(&series, "tick duration", true, None),
            )?;
        }
    }
    if let Some(sw) = d.get("switches") {
        let g = arr(sw, "by_priority_distance");
        if !g.is_empty() {
            b.heading(level + 1, "Context switches by priority distance", None);
            b.table(generic_table(g));
        }
        let g = arr(sw, "by_levels");
        if !g.is_empty() {
            b.heading(level + 1, "Context switches by levels scanned", None);
            b.table(generic_table(g));
        }
    }
    let irqs = arr(d, "interrupts");
    if !irqs.is_empty() {
        b.heading(level + 1, "Interrupts", None);
        b.table(generic_table(irqs));
    }
    if let Some(cpu) = d.get("cpu") {
        let fr: Vec<data::Part> = cpu
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| {
                        Some(data::Part {
                            name: k.strip_suffix("_fraction")?.replace('_', " "),
                            value: v.as_f64()?,
                        })
                    })
                    .filter(|p| p.value > 0.0)
                    .collect()
            })
            .unwrap_or_default();
        let mut fr = fr;
        fr.sort_by_key(|p| share_rank(&p.name));
        if !fr.is_empty() {
            b.heading(level + 1, "Where the CPU time went", None);
            split_chart(
                b,
                "CPU time split",
                "Share of the simulated time spent in tasks, kernel overheads, idle and sleep.",
                fr,
            )?;
        }
    }
    for k in ["sleep", "list_scan"] {
        if let Some(o) = d.get(k) {
            let f = data::scalars(o, &[]);
            let all_zero = o
                .as_object()
                .is_some_and(|m| m.values().all(|v| v.is_null() || v.as_f64() == Some(0.0)));
            if !f.is_empty() && !all_zero {
                b.heading(level + 1, &k.replace('_', "-"), None);
                b.facts(f);
            }
        }
    }
    // Timeline excerpt around the worst case, from a capture given alongside.
    for c in captures {
        let worst = worst_instant(d);
        timeline_from_capture(b, &c.doc, worst, level)?;
    }
    Ok(())
}

/// The instant worth zooming into: the longest tick, else the worst response's arrival.
/// Returns the instant, its label and the width of window that suits it.
fn worst_instant(d: &Value) -> Option<(f64, String, Option<f64>)> {
    // A tick is worth zooming into only when some ticks are longer than others.
    let ticks_differ = d
        .get("tick")
        .is_some_and(|t| match (num(t, "min_ns"), num(t, "max_ns")) {
            (Some(a), Some(b)) => b > a,
            _ => true,
        });
    if let Some(t) = d.get("tick").filter(|_| ticks_differ) {
        if let Some(p) = t
            .get("peaks_at_ns")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_f64)
        {
            return Some((
                p,
                format!(
                    "longest tick ({})",
                    num(t, "max_ns").map(dur).unwrap_or_default()
                ),
                num(d, "tick_period_ns").map(|p| 6.0 * p),
            ));
        }
    }
    arr(d, "tasks")
        .iter()
        .filter_map(|t| {
            let r = t.get("response")?;
            Some((num(r, "max_at_ns")?, num(r, "max_ns")?, text(t, "name")?))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(at, v, n)| {
            (
                at,
                format!("worst response of {n} ({})", dur(v)),
                Some(4.0 * v),
            )
        })
}

fn timeline_from_capture(
    b: &mut Builder,
    cap: &Value,
    focus: Option<(f64, String, Option<f64>)>,
    level: u8,
) -> Result<(), ReportError> {
    let tracks = capture_tracks(cap);
    if tracks.is_empty() {
        return Ok(());
    }
    let (t, label, span) = match focus {
        Some(f) => f,
        None => {
            // The longest busy interval (idle and sleep tracks are not of interest).
            let Some((t, w)) = tracks
                .iter()
                .filter(|(n, _)| {
                    let n = n.to_ascii_lowercase();
                    !(n.contains("idle") || n.contains("sleep"))
                })
                .flat_map(|(_, iv)| iv.iter().map(|&(a, b)| (a, b - a)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
            else {
                return Ok(());
            };
            (t, format!("longest interval ({})", dur(w)), None)
        }
    };
    let span = match span {
        Some(p) if p > 0.0 => p,
        _ => {
            let longest = tracks
                .iter()
                .flat_map(|(_, iv)| iv.iter().map(|&(a, b)| b - a))
                .fold(0.0, f64::max);
            (longest * 30.0).max(1000.0)
        }
    };
    let start = num(cap, "start_ns").unwrap_or(f64::NEG_INFINITY);
    let w0 = (t - span / 3.0).max(start);
    let window = (w0, w0 + span);
    b.heading(level + 1, "Timeline around the worst case", None);
    let f = label.clone();
    b.figure(
        "Timeline excerpt",
        &format!(
            "What ran around {} at {}: one row per channel of the virtual capture.",
            f,
            dur(t)
        ),
        || charts::timeline(&tracks, window, Some((t, label))),
    )
}

/// Tracks of a capture input (see `Input::parse`): `[(name, [(start_ns, end_ns)])]`.
fn capture_tracks(cap: &Value) -> Vec<(String, Vec<(f64, f64)>)> {
    arr(cap, "tracks")
        .iter()
        .filter_map(|t| {
            let name = text(t, "name")?;
            let iv: Vec<(f64, f64)> = arr(t, "intervals")
                .iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    Some((p.first()?.as_f64()?, p.get(1)?.as_f64()?))
                })
                .collect();
            Some((name, iv))
        })
        .collect()
}

fn capture_input(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let tracks = capture_tracks(d);
    if b.with_simulate {
        b.note("The timeline excerpt of this capture is shown with the simulation result.");
    }
    b.facts(vec![
        ("tracks".into(), tracks.len().to_string()),
        (
            "intervals".into(),
            int(tracks.iter().map(|t| t.1.len()).sum::<usize>() as f64),
        ),
    ]);
    if !b.charts || b.with_simulate {
        return Ok(());
    }
    timeline_from_capture(b, d, None, level)
}

fn series_input(b: &mut Builder, d: &Value, _level: u8) -> Result<(), ReportError> {
    let mut rows = Vec::new();
    let mut figures = Vec::new();
    for sr in arr(d, "series") {
        let pts = data::series(sr.get("points"));
        let name = text(sr, "name").unwrap_or_default();
        let unit = text(sr, "unit").unwrap_or_default();
        let timed = unit == "ns";
        let f = |v: f64| {
            if timed {
                dur(v)
            } else {
                format!("{} {unit}", fnum(v, 4)).trim().to_string()
            }
        };
        let Some(max) = pts
            .iter()
            .copied()
            .fold(None, |best: Option<data::Point>, p| match best {
                Some(b) if b.1 >= p.1 => Some(b),
                _ => Some(p),
            })
        else {
            continue;
        };
        let mean = pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64;
        rows.push(vec![
            Cell::t(&name).bold(),
            Cell::n(int(pts.len() as f64)),
            Cell::n(f(mean)),
            Cell::n(f(max.1)).bold(),
            Cell::n(dur(max.0)),
        ]);
        let word = data::clean_key(&name);
        let word = if timed || unit.is_empty() {
            word
        } else {
            format!("{word} ({unit})")
        };
        figures.push((data::clean_key(&name), word, pts, timed));
    }
    b.table(Table {
        headers: ["series", "points", "mean", "max", "max at"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    for (name, word, pts, timed) in figures {
        b.figure(
            &format!("{name} over time"),
            "Each value of the series against its time; the worst case is circled.",
            || charts::time_series(&pts, &word, timed, None),
        )?;
    }
    Ok(())
}

/// A table of an array of flat objects (durations formatted by their `_ns` suffix).
fn generic_table(items: &[Value]) -> Table {
    let mut keys: Vec<String> = Vec::new();
    for it in items {
        if let Some(m) = it.as_object() {
            for (k, v) in m {
                if !(v.is_object() || v.is_array() || keys.contains(k)) {
                    keys.push(k.clone());
                }
            }
        }
    }
    // Names first, then counts, then times.
    keys.sort_by_key(|k| {
        if k == "name" || k == "from" || k == "to" || k == "distance" || k == "levels" {
            0
        } else if k.ends_with("_ns") {
            2
        } else {
            1
        }
    });
    let rows = items
        .iter()
        .map(|it| {
            keys.iter()
                .map(|k| match it.get(k) {
                    Some(Value::Number(n)) => {
                        let x = n.as_f64().unwrap_or(f64::NAN);
                        Cell::n(if k.ends_with("_ns") {
                            dur(x)
                        } else if x.fract() == 0.0 && x.abs() >= 1000.0 {
                            int(x)
                        } else {
                            fnum(x, 6)
                        })
                    }
                    Some(Value::String(s)) => Cell::t(s),
                    Some(Value::Bool(v)) => Cell::t(v.to_string()),
                    _ => Cell::n("–"),
                })
                .collect()
        })
        .collect();
    Table {
        headers: keys.iter().map(|k| data::clean_key(k)).collect(),
        rows,
    }
}

/// Embedded measure runs that differ only in their sleep length (seed 002's 10 ms, 100 ms,
/// 1 s naive sleeps) shown together as latency against sleep length.
fn runs_as_sweep(b: &mut Builder, results: &[Value], level: u8) -> Result<(), ReportError> {
    let mut groups: Vec<(String, Vec<data::SweepPoint>)> = Vec::new();
    for r in results {
        if text(r, "kind").as_deref() != Some("measure") {
            continue;
        }
        let Some(s) = r.get("settings") else { continue };
        if text(s, "compare_load").is_some() || s.get("sweep").is_some_and(|v| !v.is_null()) {
            continue;
        }
        let (Some(interval_ns), Some(stats)) = (
            num(s, "interval_ns"),
            r.get("total").and_then(Stats::from_value),
        ) else {
            continue;
        };
        let key = format!(
            "{} sleep, SCHED_{}",
            text(s, "timer_mode").unwrap_or_default(),
            text(s, "policy").unwrap_or_default().to_uppercase()
        );
        let point = data::SweepPoint { interval_ns, stats };
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(point),
            None => groups.push((key, vec![point])),
        }
    }
    for (key, mut pts) in groups {
        pts.sort_by(|a, b| a.interval_ns.total_cmp(&b.interval_ns));
        pts.dedup_by(|a, b| a.interval_ns == b.interval_ns);
        if pts.len() < 3 {
            continue;
        }
        b.heading(
            level + 1,
            &format!("Latency against sleep length: {key}"),
            None,
        );
        let rows: Vec<StatsRow> = pts
            .iter()
            .map(|p| StatsRow {
                label: dur(p.interval_ns),
                stats: p.stats.clone(),
            })
            .collect();
        b.table(stats_table("sleep length", &rows));
        b.figure(
            &format!("Wake-up latency against sleep length ({key})"),
            "The runs above side by side: seed 002 saw longer sleeps wake up later.",
            || charts::sweep(&pts),
        )?;
    }
    Ok(())
}

/// A short description of an embedded result from its settings, e.g.
/// "relative sleep, 10 ms, SCHED_OTHER".
fn describe(r: &Value) -> Option<String> {
    match text(r, "kind")?.as_str() {
        "measure" => {
            let s = r.get("settings")?;
            let mut parts = Vec::new();
            if let Some(m) = text(s, "timer_mode") {
                parts.push(format!("{m} sleep"));
            }
            if let Some(i) = num(s, "interval_ns") {
                parts.push(dur(i));
            }
            if let Some(p) = text(s, "policy") {
                let prio = num(s, "priority").filter(|p| *p > 0.0);
                parts.push(match prio {
                    Some(x) => format!("SCHED_{} {}", p.to_uppercase(), int(x)),
                    None => format!("SCHED_{}", p.to_uppercase()),
                });
            }
            if let Some(l) = text(s, "compare_load") {
                parts.push(format!("idle vs {l}"));
            }
            if s.get("sweep").is_some_and(|v| !v.is_null()) {
                parts.push("sweep".into());
            }
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        _ => text_any(r, &["source"]).map(|s| {
            std::path::Path::new(&s)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or(s)
        }),
    }
}

/// (predictions within tolerance, predictions).
fn scenario_score(d: &Value) -> (usize, usize) {
    let preds: Vec<&Value> = arr(d, "rows")
        .iter()
        .filter(|r| text(r, "role").as_deref() == Some("prediction"))
        .collect();
    let within = preds
        .iter()
        .filter(|r| data::flag(r, "within") == Some(true))
        .count();
    (within, preds.len())
}

fn scenario(b: &mut Builder, d: &Value, name: &str, level: u8) -> Result<(), ReportError> {
    let f = data::scalars(
        d,
        &[
            "kind",
            "schema_version",
            "description",
            "summary",
            "title",
            "readme",
        ],
    );
    if let Some(t) = text(d, "title") {
        b.out.push(Block::Verdict(Tone::Neutral, t));
    }
    b.facts(f);
    if let Some(desc) = text_any(d, &["description", "summary"]) {
        b.note(desc);
    }
    for n in arr(d, "notes") {
        if let Some(t) = n.as_str() {
            b.note(t.to_string());
        }
    }
    let rows = arr(d, "rows");
    if !rows.is_empty() {
        b.heading(level + 1, "Published against latscope", None);
        let (within, preds) = scenario_score(d);
        let tone = if within == preds {
            Tone::Good
        } else {
            Tone::Bad
        };
        b.out.push(Block::Verdict(
            tone,
            format!(
                "{within} of {preds} predictions within tolerance; {}",
                match rows.len() - preds {
                    0 => "no figure is an input".to_string(),
                    1 => "1 figure is an input (given or calibrated), not counted as reproduced"
                        .to_string(),
                    k => format!(
                        "{k} figures are inputs (given or calibrated), not counted as reproduced"
                    ),
                }
            ),
        ));
        let show = |r: &Value, k: &str| -> String {
            match r.get(k) {
                Some(Value::Number(n)) => fnum(n.as_f64().unwrap_or(f64::NAN), 5),
                Some(Value::Null) | None => "–".into(),
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
            }
        };
        let mut devs = Vec::new();
        let has_source = rows
            .iter()
            .any(|r| text(r, "source").is_some_and(|s| !s.is_empty()));
        let trows = rows
            .iter()
            .map(|r| {
                let role = text(r, "role").unwrap_or_default();
                let unit = text(r, "unit").unwrap_or_default();
                let pubv = num(r, "published");
                let lat = num(r, "latscope");
                let dev = num(r, "deviation").or(match (pubv, lat) {
                    (Some(p), Some(l)) if p != 0.0 => Some((l - p) / p),
                    _ => None,
                });
                let tol = num(r, "tolerance");
                let tol_text = match (tol, num(r, "tolerance_abs")) {
                    (Some(t), _) => format!("±{}", pct(t)),
                    (None, Some(a)) => format!("±{} {unit}", fnum(a, 4)),
                    _ => "–".into(),
                };
                let verdict = if role == "prediction" {
                    match data::flag(r, "within") {
                        Some(true) => Cell::badge("within", Tone::Good),
                        Some(false) => Cell::badge("outside", Tone::Bad),
                        None => Cell::t("not compared"),
                    }
                } else if role.is_empty() {
                    Cell::badge("input", Tone::Neutral)
                } else {
                    // input, derived or check: shown, never counted.
                    Cell::badge(role.clone(), Tone::Neutral)
                };
                let figure = text(r, "figure").unwrap_or_default();
                if role == "prediction" {
                    if let Some(dv) = dev {
                        devs.push(Deviation {
                            label: figure.clone(),
                            deviation: dv,
                            tolerance: tol,
                            within: data::flag(r, "within"),
                        });
                    }
                }
                let mut row = vec![
                    Cell::t(figure).bold(),
                    Cell::n(show(r, "published")),
                    Cell::n(show(r, "latscope")),
                    Cell::t(unit),
                    Cell::n(
                        dev.map(|x| format!("{}{}", if x > 0.0 { "+" } else { "" }, pct(x)))
                            .unwrap_or_else(|| "–".into()),
                    ),
                    Cell::n(tol_text),
                    verdict,
                ];
                if has_source {
                    row.push(Cell::t(text(r, "source").unwrap_or_default()));
                }
                row
            })
            .collect();
        let mut headers: Vec<String> = [
            "figure",
            "published",
            "latscope",
            "unit",
            "deviation",
            "tolerance",
            "verdict",
        ]
        .map(String::from)
        .to_vec();
        if has_source {
            headers.push("source".into());
        }
        b.table(Table {
            headers,
            rows: trows,
        });
        b.figure(
            "Predictions against published figures",
            "Deviation of each latscope prediction from the document's figure; the green band is the tolerance stated in the scenario's README.",
            || charts::deviations(&devs),
        )?;
    }
    for (i, r) in arr(d, "results").iter().enumerate() {
        let label = text_any(r, &["name", "title", "label"])
            .or_else(|| describe(r))
            .unwrap_or_else(|| format!("{name} · results[{i}]"));
        match Input::from_value(&label, r.clone()) {
            Ok(sub) => {
                b.heading(
                    level + 1,
                    &format!("{}: {label}", sub.kind.name()),
                    Some(sub.kind.name()),
                );
                render(b, &sub, level + 1, &[])?;
            }
            Err(e) => b.note(format!("results[{i}] skipped: {e}")),
        }
    }
    runs_as_sweep(b, arr(d, "results"), level)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str) -> Input {
        Input::parse(name, r#"{"kind":"trace","schema_version":1}"#).unwrap()
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
