//! The section of a `latscope measure` result: wake-up latency tables and charts, idle
//! against loaded, sleep-length sweep, environment diagnosis.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, arr, num, text_any, tone_of, Bucket, Stats, Tone};
use crate::units::{dur, int};
use crate::{Input, Kind, ReportError};
use serde_json::Value;

pub(super) fn measure_hist(d: &Value) -> Vec<Bucket> {
    let h = data::buckets(d.get("histogram"));
    if !h.is_empty() {
        return h;
    }
    data::buckets(d.get("total").and_then(|t| t.get("histogram")))
}

pub(super) fn cpu_label(c: &Value, i: usize) -> String {
    match text_any(c, &["cpu", "id", "name"]) {
        Some(s) => format!("CPU {s}"),
        None => format!("CPU #{i}"),
    }
}

/// The overruns the run counted that its samples file does not hold. With the default
/// `--overrun skip`, measure writes no row for a missed period, so the samples alone would
/// read "no overruns" and their chart would mark none: the count is taken from the result and
/// said above the chart, so a missed period is never silently absent.
fn unmarked_overruns(b: &mut Builder, total: Option<&Stats>, samples: &Value) {
    let counted = total.and_then(|t| t.overruns).unwrap_or(0.0);
    let in_file: f64 = arr(samples, "cpus")
        .iter()
        .filter_map(|c| num(c, "overruns"))
        .sum();
    if counted > in_file {
        b.out.push(Block::Verdict(
            Tone::Warn,
            format!(
                "{} overruns (periods missed) counted by the run; the samples file holds {} of them \
                 (with --overrun skip measure writes no row for a missed period), so the chart \
                 below cannot mark where the others happened",
                int(counted),
                int(in_file)
            ),
        ));
    }
}

/// Latency over time per CPU (cyclictest `-v` / jitterplot style) from raw samples, overruns
/// marked along the top; the first worst sample circled.
fn over_time(b: &mut Builder, s: &Value, link: Option<String>) -> Result<(), ReportError> {
    let lines: Vec<charts::Line> = arr(s, "cpus")
        .iter()
        .enumerate()
        .map(|(i, c)| charts::Line {
            name: cpu_label(c, i),
            points: data::series(c.get("points")),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    let marks: Vec<f64> = arr(s, "cpus")
        .iter()
        .flat_map(|c| data::series(c.get("missed")).into_iter().map(|p| p.0))
        .collect();
    let mut o = charts::SeriesOpts::new("wake-up latency", charts::ValueUnit::Time);
    o.marks = marks;
    o.mark_word = "overrun (period missed)".into();
    o.link = link;
    let n = lines.len();
    b.figure(
        "Latency over time",
        &format!(
            "Every sample's wake-up latency against its intended wake time{}; each pixel column shows the minimum and maximum of all samples in it, red ticks along the top mark overruns, the first worst sample is circled.",
            if n > 1 { ", one line per CPU" } else { "" }
        ),
        || charts::series_chart(&lines, &o),
    )
}

/// When each row of a samples stats table (all CPUs, then each CPU) had its worst sample.
fn max_times(d: &Value) -> Vec<Option<f64>> {
    let first_max = |pts: &[data::Point]| {
        pts.iter()
            .fold(None, |best: Option<data::Point>, p| match best {
                Some(q) if q.1 >= p.1 => Some(q),
                _ => Some(*p),
            })
            .map(|p| p.0)
    };
    let per: Vec<Vec<data::Point>> = arr(d, "cpus")
        .iter()
        .map(|c| data::series(c.get("points")))
        .collect();
    let all: Vec<data::Point> = per.iter().flatten().copied().collect();
    let mut out = vec![first_max(&all)];
    out.extend(per.iter().map(|p| first_max(p)));
    out
}

/// The raw samples of `measure --samples`: exact statistics, latency over time, histogram
/// and percentile curve.
pub(super) fn samples(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
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
    b.heading(level + 1, "Wake-up latency of the raw samples", None);
    b.note("Statistics computed from every raw sample (nearest-rank percentiles).");
    b.table(stats_table("CPU", &rows));
    let link = b.link_id("samples");
    b.link(&link, max_times(d));
    over_time(b, d, Some(link))?;
    let total = d.get("total");
    let hist = data::buckets(total.and_then(|t| t.get("histogram")));
    if !hist.is_empty() {
        let sets = vec![("all CPUs".to_string(), hist.clone())];
        b.figure(
            "Latency histogram",
            "Wake-up latency of every sample, 20 buckets per decade; count on a log axis so single outliers stay visible.",
            || charts::histogram(&sets, "wake-up latency"),
        )?;
        let sets: Vec<(String, Vec<Bucket>, Option<Stats>)> = arr(d, "cpus")
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    cpu_label(c, i),
                    data::buckets(c.get("histogram")),
                    Stats::from_value(c),
                )
            })
            .collect();
        b.figure(
            "Latency CDF (by percentile)",
            "Cumulative distribution on HdrHistogram's log tail axis: each step to the right is ten times rarer; dots are the exact percentiles of the samples, and the curve runs through them. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&sets, "wake-up latency"),
        )?;
    }
    Ok(())
}

pub(super) fn measure(
    b: &mut Builder,
    d: &Value,
    level: u8,
    attached: &[Input],
) -> Result<(), ReportError> {
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
        let sets = vec![(
            "all CPUs".to_string(),
            clip_to_extremes(
                &hist,
                total.as_ref().and_then(|t| t.min),
                total.as_ref().and_then(|t| t.max),
            ),
        )];
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
            "Latency CDF (by percentile), per CPU",
            "Cumulative distribution, HdrHistogram-style: each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&per_cpu, "wake-up latency"),
        )?;
    } else if !hist.is_empty() {
        let sets = vec![("all CPUs".to_string(), hist, total)];
        b.figure(
            "Latency CDF (by percentile)",
            "Cumulative distribution, HdrHistogram-style: each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&sets, "wake-up latency"),
        )?;
    }
    let series = data::series(d.get("series"));
    let raw = attached.iter().find(|a| a.kind == Kind::Samples);
    if let Some(r) = raw {
        let counted = d.get("total").and_then(Stats::from_value);
        unmarked_overruns(b, counted.as_ref(), &r.doc);
        over_time(b, &r.doc, None)?;
    } else if !series.is_empty() {
        b.figure(
            "Latency over time",
            "Each sample's wake-up latency against time since the start of the run; the worst case is circled.",
            || charts::time_series(&series, "wake-up latency", true, None),
        )?;
    } else if d.get("samples").is_some_and(|s| s.is_object()) {
        b.note(
            "Latency over time needs the raw samples: give the --samples file to latscope report \
             next to this result (it is found by itself when it sits where measure wrote it).",
        );
    } else {
        b.note(
            "Latency over time needs the raw samples: run measure with --samples run.csv and give \
             that file to latscope report.",
        );
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
            "As \"Wakeup Latency, CPU Frequency (Gotcha)\" observed on a Raspberry Pi 4: longer sleeps wake up later (deeper idle states, frequency drops).",
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
pub(super) fn compare_load(b: &mut Builder, c: &Value, level: u8) -> Result<(), ReportError> {
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
            "Each step to the right is ten times rarer. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&hs, "wake-up latency"),
        )?;
    }
    Ok(())
}

pub(super) fn environment(b: &mut Builder, d: &Value, level: u8) {
    let items = data::env_items(d);
    if items.is_empty() {
        return;
    }
    // Several runs of one machine (a scenario's embedded runs) share their diagnosis: the
    // table is shown once, later runs list only the items whose verdict differs.
    let key: Vec<(String, String)> = items
        .iter()
        .map(|i| (i.name.clone(), i.status.clone()))
        .collect();
    let shown = b.last_env.clone();
    b.last_env = Some(serde_json::json!(key));
    let items: Vec<data::EnvItem> = match shown
        .as_ref()
        .and_then(|v| serde_json::from_value::<Vec<(String, String)>>(v.clone()).ok())
    {
        Some(before) => {
            let changed: Vec<data::EnvItem> = items
                .into_iter()
                .filter(|i| !before.contains(&(i.name.clone(), i.status.clone())))
                .collect();
            if changed.is_empty() {
                b.note("Environment: the same diagnosis as the run above.");
            } else {
                // The table is shown once per page; a later run names what differs.
                let list: Vec<String> = changed
                    .iter()
                    .map(|i| format!("{} {} ({})", i.name, i.status, i.value))
                    .collect();
                b.note(format!(
                    "Environment: as the run above, except {}.",
                    list.join("; ")
                ));
            }
            return;
        }
        None => {
            b.heading(level + 1, "Environment", None);
            items
        }
    };
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
