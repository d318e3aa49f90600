//! Side-by-side sections for several inputs of the same kind, and the section of a
//! `latscope compare --json` document. Two measure, noise or trace results are compared
//! the way criterion reports a benchmark (see [`super::change`]): per statistic A, B, the
//! change, its interval and a verdict, then what differs between the runs; the first
//! input is A, each later one a B.

use super::change::{differing, Change, Changes};
use super::layout::*;
use super::measure;
use super::trace::{self, is_time_measurement};
use super::{Block, Builder, Cell, Table, View};
use crate::charts::{self};
use crate::data::{Bucket, Stats, Tone};
use crate::units::{dur, int};
use crate::{Document, Kind, ReportError};
use latscope_results::analyze::AnalyzeResult;
use latscope_results::compare::{self as cmp, CompareResult};
use latscope_results::measure::MeasureResult;
use latscope_results::noise::{CpuNoise, NoiseResult};
use latscope_results::trace::{Measurement, TraceResult};
use serde::Deserialize;
use serde_json::Value;

/// Band of "no change" for single figures: the compare gate's default threshold.
const BAND_PCT: f64 = 10.0;

/// The comparison `latscope compare A B --json` writes for two measure results (its
/// default threshold, gate and confidence), so the report's figures are the command's.
pub(super) fn compare_measure(
    a: (&str, &MeasureResult),
    b: (&str, &MeasureResult),
) -> CompareResult {
    let o = cmp::Options::default();
    let c = cmp::compare(a.1, b.1, &o);
    CompareResult::new(&c, o.threshold, a.0, b.0)
}

/// Overlaid histograms and percentile curves of measure results.
fn overlay(b: &mut Builder, ms: &[(String, &MeasureResult)]) -> Result<(), ReportError> {
    let hs: Vec<(String, Vec<Bucket>, Option<Stats>)> = ms
        .iter()
        .map(|(n, m)| {
            (
                n.clone(),
                measure::measure_hist(&m.total),
                Some(measure::stats(&m.total)),
            )
        })
        .filter(|h| !h.1.is_empty())
        .collect();
    if hs.len() < 2 {
        return Ok(());
    }
    let h2: Vec<(String, Vec<Bucket>)> = hs.iter().map(|h| (h.0.clone(), h.1.clone())).collect();
    b.figure(
        "Latency histograms, overlaid",
        "Wake-up latency of each run; count on a log axis.",
        || charts::histogram(&h2, "wake-up latency"),
    )?;
    b.figure(
        "Latency by percentile, overlaid",
        "HdrHistogram-style percentile plot: each step to the right is ten times rarer. The last stretch, to the axis end labelled max, is the largest sample.",
        || charts::cdf(&hs, "wake-up latency"),
    )
}

/// The section of a `latscope compare --json` document: its verdict and table, and the
/// overlaid distributions of A and B when their results are given with it.
pub(super) fn compare_document(b: &mut Builder, v: &View) -> Result<(), ReportError> {
    let Ok(d) = CompareResult::deserialize(v.doc) else {
        return Ok(());
    };
    // The page opens on this document's verdict (results::Verdict::compare, the line
    // `latscope compare` prints); the section does not say it a second time.
    let mut changes = Changes::of_document(&d);
    changes.verdict = None;
    changes.show(b);
    let runs: Vec<(String, &MeasureResult)> = v
        .attachments
        .iter()
        .filter_map(|a| match &a.result {
            Some(Document::Measure(m)) => Some((a.name.clone(), &**m)),
            _ => None,
        })
        .collect();
    if runs.len() == 2 {
        overlay(b, &runs)
    } else {
        b.note(
            "The overlaid histograms need A's and B's results: give them to latscope report \
             with the comparison (they are found by themselves where the comparison names them).",
        );
        Ok(())
    }
}

/// The overview line of a compare document: its verdict.
pub(super) fn compare_headline(d: &Value) -> (String, Option<Tone>) {
    match CompareResult::deserialize(d) {
        Ok(c) => {
            let worse = c.verdict == "worse";
            (
                format!("B {}: {}", c.verdict, c.b),
                Some(if worse { Tone::Bad } else { Tone::Good }),
            )
        }
        Err(_) => ("no comparison".into(), None),
    }
}

/// Settings of a noise run, by name, for what differs.
fn noise_settings(d: &NoiseResult) -> Vec<(String, String)> {
    let s = &d.settings;
    let cpus: Vec<String> = s.cpus.iter().map(u32::to_string).collect();
    vec![
        ("kernel".into(), d.kernel.clone()),
        ("cpus".into(), cpus.join(",")),
        ("policy".into(), format!("{} {}", s.policy, s.priority)),
        ("duration".into(), dur(s.duration_ns as f64)),
        ("threshold".into(), dur(s.threshold_ns as f64)),
        ("window".into(), dur(s.window_ns as f64)),
        ("classification".into(), d.classification.method.clone()),
        ("memory locked".into(), s.memory_locked.to_string()),
    ]
}

/// Per CPU in both: noise %, noise time, largest single gap, time per source.
fn noise_rows(a: &NoiseResult, b: &NoiseResult) -> Vec<Change> {
    let mut rows = Vec::new();
    for ca in &a.cpus {
        let Some(cb) = b.cpus.iter().find(|c| c.cpu == ca.cpu) else {
            continue;
        };
        let cpu = |what: &str| format!("CPU {} {what}", ca.cpu);
        let mut pct = Change::single(&cpu("noise"), ca.noise_pct, cb.noise_pct);
        pct.unit = Some("%".into());
        rows.push(pct);
        rows.push(Change::single(
            &cpu("noise time"),
            ca.noise_ns as f64,
            cb.noise_ns as f64,
        ));
        rows.push(Change::single(
            &cpu("largest single"),
            ca.max_single_ns as f64,
            cb.max_single_ns as f64,
        ));
        type Src = fn(&CpuNoise) -> i64;
        let sources: [(&str, Src); 7] = [
            ("hardware / hypervisor", |c| c.by_source.hw.total_ns),
            ("NMI", |c| c.by_source.nmi.total_ns),
            ("IRQ", |c| c.by_source.irq.total_ns),
            ("softirq", |c| c.by_source.softirq.total_ns),
            ("thread", |c| c.by_source.thread.total_ns),
            ("unaccounted", |c| c.by_source.unaccounted.total_ns),
            ("unclassified", |c| c.by_source.unclassified.total_ns),
        ];
        for (name, get) in sources {
            let (x, y) = (get(ca), get(cb));
            if x > 0 || y > 0 {
                rows.push(Change::single(&cpu(name), x as f64, y as f64));
            }
        }
    }
    rows
}

/// Capture and range of a trace result, by name, for what differs.
fn trace_settings(t: &TraceResult) -> Vec<(String, String)> {
    let c = &t.capture;
    let opt = |v: Option<f64>| v.map_or_else(|| "–".to_string(), dur);
    vec![
        ("capture".into(), c.source.clone()),
        ("format".into(), c.format.clone()),
        (
            "sample rate".into(),
            c.samplerate_hz
                .map_or_else(|| "–".into(), |r| format!("{} Hz", int(r as f64))),
        ),
        ("capture length".into(), dur(c.duration_ns)),
        ("from".into(), opt(t.range.from_ns)),
        ("to".into(), opt(t.range.to_ns)),
        ("limits".into(), t.limits.len().to_string()),
        ("pass".into(), t.pass.to_string()),
    ]
}

/// A trace measurement's statistics as single-figure changes.
fn measurement_rows(a: &Measurement, b: &Measurement) -> Vec<Change> {
    let (sa, sb) = (trace::stats(a), trace::stats(b));
    ["min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max"]
        .into_iter()
        .filter_map(|k| Some(Change::single(k, sa.stat(k)?, sb.stat(k)?)))
        .collect()
}

/// Side-by-side sections for inputs of the same kind.
pub(super) fn comparisons(b: &mut Builder, inputs: &[View]) -> Result<(), ReportError> {
    let of = |k: Kind| {
        inputs
            .iter()
            .filter(move |i| i.kind == k)
            .collect::<Vec<_>>()
    };
    compare_measures(b, &of(Kind::Measure))?;
    compare_noise(b, &of(Kind::Noise))?;
    compare_traces(b, &of(Kind::Trace))?;
    compare_analyses(b, &of(Kind::Analyze));
    compare_simulations(b, &of(Kind::Simulate));
    Ok(())
}

/// Two or more measure runs: their statistics side by side, each later run against the
/// first (with a warning when they measured different things), the histograms overlaid.
fn compare_measures(b: &mut Builder, views: &[&View]) -> Result<(), ReportError> {
    let ms: Vec<(&View, &MeasureResult)> = views
        .iter()
        .filter_map(|v| match v.result {
            Some(Document::Measure(m)) => Some((*v, &**m)),
            _ => None,
        })
        .collect();
    if ms.len() < 2 {
        return Ok(());
    }
    b.heading(2, "Comparison of measure runs", Some("compare"));
    let sets: Vec<StatsRow> = ms
        .iter()
        .map(|(v, m)| StatsRow {
            label: v.name.clone(),
            stats: measure::stats(&m.total),
        })
        .collect();
    b.table(stats_table("run", &sets));
    let (va, a) = ms[0];
    for (vb, m) in &ms[1..] {
        if ms.len() > 2 {
            b.heading(3, &format!("{} against {}", vb.name, va.name), None);
        }
        warn_conflicts(b, a, m);
        let d = compare_measure((&va.name, a), (&vb.name, m));
        Changes::of_document(&d).show(b);
    }
    let runs: Vec<(String, &MeasureResult)> =
        ms.iter().map(|(v, m)| (v.name.clone(), *m)).collect();
    overlay(b, &runs)
}

/// The warning that two measure runs' settings differ the way `latscope compare` refuses
/// without `--force`, so the reader does not take a changed setting for a change.
fn warn_conflicts(b: &mut Builder, a: &MeasureResult, m: &MeasureResult) {
    let conflicts = cmp::conflicting_settings(a, m);
    if conflicts.is_empty() {
        return;
    }
    let list: Vec<String> = conflicts
        .iter()
        .map(|(k, x, y)| format!("{k} {x} against {y}"))
        .collect();
    b.out.push(Block::Verdict(
        Tone::Warn,
        format!(
            "these runs measured different things ({}): latscope compare refuses them without --force",
            list.join(", ")
        ),
    ));
}

/// Two or more noise runs: each later run against the first, and every run's and CPU's
/// noise per window overlaid.
fn compare_noise(b: &mut Builder, views: &[&View]) -> Result<(), ReportError> {
    let ns: Vec<(&View, NoiseResult)> = views
        .iter()
        .filter_map(|v| Some((*v, NoiseResult::deserialize(v.doc).ok()?)))
        .collect();
    if ns.len() < 2 {
        return Ok(());
    }
    b.heading(2, "Comparison of noise runs", Some("compare"));
    let (va, a) = &ns[0];
    for (vb, n) in &ns[1..] {
        if ns.len() > 2 {
            b.heading(3, &format!("{} against {}", vb.name, va.name), None);
        }
        let mut c = Changes::single(&va.name, &vb.name, noise_rows(a, n), BAND_PCT);
        c.settings = differing(&noise_settings(a), &noise_settings(n));
        c.show(b);
    }
    let lines: Vec<charts::Line> = ns
        .iter()
        .flat_map(|(v, n)| {
            let window = n.settings.window_ns.max(1) as f64;
            n.cpus.iter().map(move |c| charts::Line {
                name: format!("{}, CPU {}", v.name, c.cpu),
                points: c
                    .windows
                    .iter()
                    .enumerate()
                    .map(|(k, w)| (k as f64 * window, *w))
                    .filter(|p| p.1.is_finite())
                    .collect(),
            })
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    let o = charts::SeriesOpts::new("noise", charts::ValueUnit::Other("%".into()));
    b.figure(
        "Noise % per window, overlaid",
        "The share of each window the spinning thread lost, per run and CPU.",
        || charts::series_chart(&lines, &o),
    )
}

/// Two or more trace results: every measurement that two or more of them hold, compared
/// across them (in the order the measurements first appear).
fn compare_traces(b: &mut Builder, views: &[&View]) -> Result<(), ReportError> {
    let ts: Vec<(&View, &TraceResult)> = views
        .iter()
        .filter_map(|v| match v.result {
            Some(Document::Trace(t)) => Some((*v, &t.result)),
            _ => None,
        })
        .collect();
    if ts.len() < 2 {
        return Ok(());
    }
    b.heading(2, "Comparison of trace results", Some("compare"));
    let mut names: Vec<&str> = Vec::new();
    for (_, t) in &ts {
        for m in &t.measurements {
            if !names.contains(&m.name.as_str()) {
                names.push(&m.name);
            }
        }
    }
    for name in names {
        let with: Vec<(&View, &TraceResult, &Measurement)> = ts
            .iter()
            .filter_map(|(v, t)| {
                t.measurements
                    .iter()
                    .find(|m| m.name == name)
                    .map(|m| (*v, *t, m))
            })
            .collect();
        compare_measurement(b, name, &with)?;
    }
    Ok(())
}

/// One trace measurement across the inputs that hold it: a statistics table, each later
/// input against the first, histograms and percentile curves overlaid. Counts are not
/// compared (their statistics are not durations); one input alone is no comparison.
fn compare_measurement(
    b: &mut Builder,
    name: &str,
    with: &[(&View, &TraceResult, &Measurement)],
) -> Result<(), ReportError> {
    let found: Vec<(&View, &Measurement)> = with.iter().map(|w| (w.0, w.2)).collect();
    if found.len() < 2 {
        return Ok(());
    }
    b.heading(3, &format!("{name} across inputs"), None);
    let timed = found.iter().all(|(_, m)| is_time_measurement(m));
    if !timed {
        return Ok(());
    }
    let rows: Vec<StatsRow> = found
        .iter()
        .map(|(t, m)| StatsRow {
            label: t.name.clone(),
            stats: trace::stats(m),
        })
        .collect();
    b.table(stats_table("input", &rows));
    let (fa, ta, ma) = with[0];
    for (fb, tb, mb) in &with[1..] {
        let mut c = Changes::single(&fa.name, &fb.name, measurement_rows(ma, mb), BAND_PCT);
        c.settings = differing(&trace_settings(ta), &trace_settings(tb));
        c.show(b);
    }
    let hs: Vec<(String, Vec<Bucket>)> = found
        .iter()
        .map(|(t, m)| (t.name.clone(), trace::buckets(m)))
        .filter(|h| !h.1.is_empty())
        .collect();
    if hs.len() > 1 {
        b.figure(
            &format!("{name}: histograms, overlaid"),
            "Count on a log axis.",
            || charts::histogram(&hs, name),
        )?;
    }
    let cs: Vec<(String, Vec<Bucket>, Option<Stats>)> = found
        .iter()
        .map(|(t, m)| (t.name.clone(), trace::buckets(m), Some(trace::stats(m))))
        .filter(|h| !h.1.is_empty())
        .collect();
    if cs.len() > 1 {
        b.figure(
            &format!("{name}: by percentile, overlaid"),
            "Each step to the right is ten times rarer; the last stretch is the largest instance.",
            || charts::cdf(&cs, name),
        )?;
    }
    Ok(())
}

/// Two or more analyses: each task's worst-case response time per input.
fn compare_analyses(b: &mut Builder, views: &[&View]) {
    let an: Vec<TaskColumn> = views
        .iter()
        .filter_map(|v| {
            let a = AnalyzeResult::deserialize(v.doc).ok()?;
            let tasks = a.analysis.tasks.iter();
            Some((
                v.name.clone(),
                tasks.map(|t| (t.name.to_string(), t.wcrt_ns)).collect(),
            ))
        })
        .collect();
    if an.len() > 1 {
        b.heading(2, "Comparison of analyses", Some("compare"));
        b.table(task_matrix(&an, "WCRT", "unbounded"));
    }
}

/// Two or more simulations: each task's largest response seen per input.
fn compare_simulations(b: &mut Builder, views: &[&View]) {
    let sims: Vec<TaskColumn> = views
        .iter()
        .filter_map(|v| match v.result {
            Some(Document::Simulate(s)) => Some((
                v.name.clone(),
                s.tasks
                    .iter()
                    .map(|t| (t.name.clone(), t.max_response_ns))
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    if sims.len() > 1 {
        b.heading(2, "Comparison of simulations", Some("compare"));
        b.table(task_matrix(&sims, "max response", "no response"));
    }
}

/// One input's column of a task × input table: its name and (task, duration) pairs.
type TaskColumn = (String, Vec<(String, Option<f64>)>);

/// Task × input table of one duration per task (`None`: shown as `none`, a bad badge).
pub(super) fn task_matrix(inputs: &[TaskColumn], what: &str, none: &str) -> Table {
    let mut names: Vec<&str> = Vec::new();
    for (_, tasks) in inputs {
        for (n, _) in tasks {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
    }
    let mut headers = vec!["task".to_string()];
    headers.extend(inputs.iter().map(|i| format!("{what}: {}", i.0)));
    let rows = names
        .iter()
        .map(|n| {
            let mut row = vec![Cell::t(*n)];
            for (_, tasks) in inputs {
                row.push(match tasks.iter().find(|t| t.0 == *n) {
                    Some((_, None)) => Cell::badge(none, Tone::Bad),
                    Some((_, Some(v))) => Cell::n(dur(*v)),
                    None => Cell::n("–"),
                });
            }
            row
        })
        .collect();
    Table { headers, rows }
}

#[cfg(test)]
mod tests {
    use crate::{render_markdown, Input, Options};

    fn md(docs: &[(&str, String)]) -> String {
        let inputs: Vec<Input> = docs
            .iter()
            .map(|(n, d)| Input::parse(n, d).unwrap())
            .collect();
        render_markdown(&inputs, &Options::default()).unwrap()
    }

    /// The cells of the first table row whose first cell is `**first**`.
    fn row(md: &str, first: &str) -> Vec<String> {
        let start = format!("| **{first}** |");
        let line = md
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no row {first}:\n{md}"));
        line.trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    }

    #[test]
    fn two_noise_runs_give_the_change_per_figure_and_the_settings_that_differ() {
        let a = super::super::noise::tests::result();
        let mut b = a.clone();
        b.settings.window_ns = 2_000_000_000;
        b.cpus[0].noise_pct = 0.05;
        b.cpus[0].by_source.thread.total_ns = 300_000;
        let text = md(&[
            ("a.json", serde_json::to_string(&a).unwrap()),
            ("b.json", serde_json::to_string(&b).unwrap()),
        ]);
        let r = row(&text, "CPU 1 noise");
        let (x, y) = (a.cpus[0].noise_pct, b.cpus[0].noise_pct);
        assert_eq!(r[3], format!("{:+.2} %", (y - x) * 100.0 / x), "{text}");
        assert!(r[5].ends_with("regressed"), "{r:?}");
        let r = row(&text, "CPU 1 thread");
        let (x, y) = (350_000.0, 300_000.0);
        assert_eq!(r[3], format!("{:+.2} %", (y - x) * 100.0 / x));
        assert!(r[5].ends_with("improved"), "{r:?}");
        // Unchanged figures are no change; only the window differs among the settings.
        assert!(row(&text, "CPU 1 IRQ")[5].ends_with("no change"));
        let w = row(&text, "window");
        let dur = crate::units::dur;
        assert_eq!((&w[1], &w[2]), (&dur(1e9), &dur(2e9)), "{text}");
        for same in ["policy", "duration", "threshold", "kernel", "cpus"] {
            let start = format!("| **{same}** |");
            assert!(
                !text.lines().any(|l| l.starts_with(&start)),
                "{same}: {text}"
            );
        }
    }
}
