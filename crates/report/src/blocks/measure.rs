//! The section of a `latscope measure` result: wake-up latency tables and charts, idle
//! against loaded, sleep-length sweep, environment diagnosis.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, arr, num, text, tone_of, Bucket, Stats, Tone};
use crate::units::{dur, int};
use crate::{Input, Kind, ReportError};
use latscope_results::measure::{CompareJson, CpuStats, Item, MeasureResult, Stats as MStats};
use serde_json::Value;

/// A measure summary (`total`, `cpus[]`, a sweep point's or a phase's) as the report's
/// tables and charts take it.
pub(super) fn stats(s: &MStats) -> Stats {
    Stats {
        count: Some(s.count as f64),
        min: Some(s.min_ns as f64),
        mean: Some(s.mean_ns),
        stdev: Some(s.stdev_ns),
        p50: Some(s.p50_ns as f64),
        p90: Some(s.p90_ns as f64),
        p99: Some(s.p99_ns as f64),
        p999: Some(s.p999_ns as f64),
        p9999: Some(s.p9999_ns as f64),
        max: Some(s.max_ns as f64),
        overruns: Some(s.overruns as f64),
        max_at: Some(s.max_at_ns as f64),
        resolution: None,
    }
}

/// The histogram of a measure summary, in increasing order.
pub(super) fn measure_hist(s: &MStats) -> Vec<Bucket> {
    data::sorted_buckets(
        s.histogram
            .iter()
            .map(|b| (b.low_ns as f64, b.high_ns as f64, b.count)),
    )
}

/// The CPU label of a samples document's per-CPU entry.
pub(super) fn cpu_label(c: &Value, i: usize) -> String {
    match text(c, "cpu") {
        Some(s) => format!("CPU {s}"),
        None => format!("CPU #{i}"),
    }
}

/// The summary rows of a phase: all CPUs, then each CPU.
fn stats_rows(total: &MStats, cpus: &[CpuStats]) -> Vec<StatsRow> {
    let mut rows = vec![StatsRow {
        label: "all CPUs".into(),
        stats: stats(total),
    }];
    rows.extend(cpus.iter().map(|c| StatsRow {
        label: format!("CPU {}", c.cpu),
        stats: stats(&c.stats),
    }));
    rows
}

/// The run's settings as the facts above its tables.
fn settings(d: &MeasureResult) -> Vec<(String, String)> {
    let s = &d.settings;
    let mut f = vec![
        ("tool".to_string(), d.tool.clone()),
        ("kernel".to_string(), d.kernel.clone()),
        (
            "cpus".to_string(),
            s.cpus
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("policy".to_string(), s.policy.clone()),
        ("priority".to_string(), s.priority.to_string()),
    ];
    // "policy requested: fifo" next to "policy: fifo" says nothing.
    if s.policy_requested != s.policy {
        f.push(("policy requested".into(), s.policy_requested.clone()));
    }
    if s.priority_requested != s.priority {
        f.push((
            "priority requested".into(),
            s.priority_requested.to_string(),
        ));
    }
    if let Some(why) = &s.fallback {
        f.push(("fallback".into(), why.clone()));
    }
    f.push(("timer mode".into(), s.timer_mode.clone()));
    f.push(("interval".into(), dur(s.interval_ns as f64)));
    if let Some(x) = s.duration_ns {
        f.push(("duration".into(), dur(x as f64)));
    }
    if let Some(x) = s.loops {
        f.push(("loops".into(), int(x as f64)));
    }
    f.push(("elapsed".into(), dur(d.elapsed_ns as f64)));
    f.push(("overrun policy".into(), s.overrun_policy.clone()));
    if let Some(x) = s.pm_qos_us {
        f.push(("pm qos".into(), dur(f64::from(x) * 1000.0)));
    }
    if !s.load.is_empty() {
        f.push(("load".into(), s.load.join(", ")));
    }
    if let Some(x) = &s.compare_load {
        f.push(("compare load".into(), x.clone()));
    }
    if let Some(x) = &s.sweep {
        f.push(("sweep".into(), x.clone()));
    }
    f.push(("memory locked".into(), s.memory_locked.to_string()));
    f.push(("timer slack".into(), dur(s.timer_slack_ns as f64)));
    if let Some(x) = s.rounds {
        f.push(("rounds".into(), x.to_string()));
    }
    if let Some(x) = s.trace_above_ns {
        f.push(("trace above".into(), dur(x as f64)));
    }
    if d.interrupted {
        f.push(("interrupted".into(), "true".into()));
    }
    f
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
    d: &MeasureResult,
    level: u8,
    attached: &[Input],
) -> Result<(), ReportError> {
    b.facts(settings(d));
    b.heading(level + 1, "Wake-up latency", None);
    b.table(stats_table("CPU", &stats_rows(&d.total, &d.cpus)));
    let t = &d.total;
    if t.histogram_overflow > 0 {
        b.out.push(Block::Verdict(
            Tone::Warn,
            format!(
                "{} samples lay above the histogram's range ({}): they count in max and mean, not in the charts",
                int(t.histogram_overflow as f64),
                dur(t.histogram_highest_ns as f64)
            ),
        ));
    }
    let dropped: u64 = d.cpus.iter().map(|c| c.dropped_samples).sum();
    if dropped > 0 {
        b.out.push(Block::Verdict(
            Tone::Warn,
            format!(
                "{} raw samples were dropped from the --samples file (the statistics include them)",
                int(dropped as f64)
            ),
        ));
    }
    let hist = measure_hist(t);
    let total = stats(t);
    if !hist.is_empty() {
        let sets = vec![(
            "all CPUs".to_string(),
            clip_to_extremes(&hist, total.min, total.max),
        )];
        b.figure(
            "Latency histogram",
            "Wake-up latency (actual − intended wake time), all CPUs; count on a log axis so single outliers stay visible.",
            || charts::histogram(&sets, "wake-up latency"),
        )?;
    }
    // Per-CPU percentile curves when per-CPU histograms exist, else the total.
    let per_cpu: Vec<(String, Vec<Bucket>, Option<Stats>)> = d
        .cpus
        .iter()
        .map(|c| {
            (
                format!("CPU {}", c.cpu),
                measure_hist(&c.stats),
                Some(stats(&c.stats)),
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
        let sets = vec![("all CPUs".to_string(), hist, Some(total.clone()))];
        b.figure(
            "Latency CDF (by percentile)",
            "Cumulative distribution, HdrHistogram-style: each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&sets, "wake-up latency"),
        )?;
    }
    let raw = attached.iter().find(|a| a.kind == Kind::Samples);
    if let Some(r) = raw {
        unmarked_overruns(b, Some(&total), &r.doc);
        over_time(b, &r.doc, None)?;
    } else if d.samples.is_some() {
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
    let mut sweep: Vec<data::SweepPoint> = d
        .sweep
        .iter()
        .flatten()
        .map(|p| data::SweepPoint {
            interval_ns: p.interval_ns as f64,
            stats: stats(&p.total),
        })
        .collect();
    sweep.sort_by(|a, b| a.interval_ns.total_cmp(&b.interval_ns));
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
    if let Some(c) = &d.compare {
        compare_load(b, c, level)?;
    }
    environment(b, &d.environment.items, level);
    Ok(())
}

/// `--compare-load`: the idle and the loaded phase side by side, with their difference.
fn compare_load(b: &mut Builder, c: &CompareJson, level: u8) -> Result<(), ReportError> {
    let rows = vec![
        StatsRow {
            label: "idle".into(),
            stats: stats(&c.idle.total),
        },
        StatsRow {
            label: "loaded".into(),
            stats: stats(&c.loaded.total),
        },
    ];
    let hs: Vec<(String, Vec<Bucket>, Option<Stats>)> = [("idle", &c.idle), ("loaded", &c.loaded)]
        .into_iter()
        .map(|(n, p)| (n.to_string(), measure_hist(&p.total), Some(stats(&p.total))))
        .filter(|h| !h.1.is_empty())
        .collect();
    b.heading(level + 1, "Idle against loaded", None);
    b.note(format!("Load: {}", c.load));
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

fn environment(b: &mut Builder, items: &[Item], level: u8) {
    let items: Vec<data::EnvItem> = items
        .iter()
        .map(|i| data::EnvItem {
            name: i.name.clone(),
            status: i.status.as_str().to_string(),
            value: i.value.clone(),
            explanation: i.effect.clone(),
        })
        .collect();
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
