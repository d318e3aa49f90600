//! The section of a `latscope measure` result: wake-up latency tables and charts, idle
//! against loaded, sleep-length sweep, environment diagnosis.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, tone_of, Bucket, Samples, Stats, Tone};
use crate::units::{dur, int};
use crate::{Input, Kind, ReportError};
use latscope_results::measure::{
    CompareJson, CpuStats, Item, MeasureResult, Stats as MStats, StatsJson,
};
use serde_json::Value;

/// A measure summary (`total`, `cpus[]`, a sweep point's or a phase's) as the report's
/// tables and charts take it: the shared summary measure writes, with its overruns.
pub(super) fn stats(s: &MStats) -> Stats {
    Stats {
        summary: StatsJson::from(s.clone()).summary,
        overruns: Some(s.overruns as f64),
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
fn unmarked_overruns(b: &mut Builder, counted: f64, samples: &Samples) {
    let in_file: f64 = samples.cpus.iter().filter_map(|c| c.stats.overruns).sum();
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

/// How the lines of a samples file are named: by CPU, and by phase when the file holds
/// several (`names` gives a phase its name: idle/loaded, a sleep length).
fn line_name(s: &Samples, c: &data::SamplesCpu, names: &dyn Fn(u32) -> Option<String>) -> String {
    match names(c.phase).filter(|_| s.phases.len() > 1) {
        Some(n) => format!("CPU {}, {n}", c.cpu),
        None => s.label(c),
    }
}

/// Latency over time per CPU (cyclictest `-v` / jitterplot style) from raw samples, overruns
/// marked along the top (one mark per missed period, their count written beside them); the
/// first worst sample circled.
fn over_time(
    b: &mut Builder,
    s: &Samples,
    link: Option<String>,
    names: &dyn Fn(u32) -> Option<String>,
) -> Result<(), ReportError> {
    let lines: Vec<charts::Line> = s
        .cpus
        .iter()
        .map(|c| charts::Line {
            name: line_name(s, c, names),
            points: c.points.clone(),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    // One mark per missed period: a row that stands for k periods is k marks at its time.
    let marks: Vec<f64> = s
        .cpus
        .iter()
        .flat_map(|c| c.missed.iter())
        .flat_map(|&(t, k)| std::iter::repeat_n(t, (k.max(0.0) as usize).min(1000)))
        .collect();
    let mut o = charts::SeriesOpts::new("wake-up latency", charts::ValueUnit::Time);
    o.marks = marks;
    o.mark_word = "overrun (period missed)".into();
    o.link = link;
    let n = lines.len();
    b.figure(
        "Latency over time",
        &format!(
            "Every sample's wake-up latency against its intended wake time (from the start of its phase, as the table's \"max at\"){}; each pixel column shows the minimum and maximum of all samples in it, red ticks along the top mark overruns, the first worst sample is circled.",
            if n > 1 { ", one line per CPU" } else { "" }
        ),
        || charts::series_chart(&lines, &o),
    )
}

/// When each row of a samples stats table (all CPUs, then each entry) had its worst sample.
fn max_times(s: &Samples) -> Vec<Option<f64>> {
    let first_max = |pts: &mut dyn Iterator<Item = &data::Point>| {
        pts.fold(None, |best: Option<data::Point>, p| match best {
            Some(q) if q.1 >= p.1 => Some(q),
            _ => Some(*p),
        })
        .map(|p| p.0)
    };
    let mut out = vec![first_max(&mut s.cpus.iter().flat_map(|c| c.points.iter()))];
    out.extend(s.cpus.iter().map(|c| first_max(&mut c.points.iter())));
    out
}

/// The raw samples of `measure --samples`: exact statistics, latency over time, histogram
/// and percentile curve.
pub(super) fn samples(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let Some(s) = Samples::of(d) else {
        return Ok(());
    };
    let mut rows = vec![StatsRow {
        label: if s.phases.len() > 1 {
            "all CPUs and phases".into()
        } else {
            "all CPUs".into()
        },
        stats: s.total.clone(),
    }];
    rows.extend(s.cpus.iter().map(|c| StatsRow {
        label: s.label(c),
        stats: c.stats.clone(),
    }));
    b.heading(level + 1, "Wake-up latency of the raw samples", None);
    b.note("Statistics computed from every raw sample (nearest-rank percentiles).");
    b.table(stats_table("CPU", &rows));
    let link = b.link_id("samples");
    b.link(&link, max_times(&s));
    over_time(b, &s, Some(link), &|_| None)?;
    let hist = s.total.buckets();
    if !hist.is_empty() {
        let sets = vec![(rows[0].label.clone(), hist.clone())];
        b.figure(
            "Latency histogram",
            "Wake-up latency of every sample, 20 buckets per decade; count on a log axis so single outliers stay visible.",
            || charts::histogram(&sets, "wake-up latency"),
        )?;
        let sets: Vec<(String, Vec<Bucket>, Option<Stats>)> = s
            .cpus
            .iter()
            .map(|c| (s.label(c), c.stats.buckets(), Some(c.stats.clone())))
            .collect();
        b.figure(
            "Latency CDF (by percentile)",
            "Cumulative distribution on HdrHistogram's log tail axis: each step to the right is ten times rarer; dots are the exact percentiles of the samples, and the curve runs through them. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&sets, "wake-up latency"),
        )?;
    }
    Ok(())
}

/// The phases a result's figures come from, each named: `--compare-load`'s idle and
/// loaded phase, `--sweep`'s sleep lengths, or the one run (unnamed). The result's
/// top-level `total` is the idle phase of a comparison and all sleep lengths pooled in a
/// sweep: shown unlabelled it would pass for the whole run.
fn phases(d: &MeasureResult) -> Vec<(String, &MStats, &[CpuStats])> {
    if let Some(c) = &d.compare {
        return vec![
            ("idle".into(), &c.idle.total, c.idle.cpus.as_slice()),
            ("loaded".into(), &c.loaded.total, c.loaded.cpus.as_slice()),
        ];
    }
    let mut sweep: Vec<_> = d.sweep.iter().flatten().collect();
    sweep.sort_by_key(|p| p.interval_ns);
    if !sweep.is_empty() {
        return sweep
            .into_iter()
            .map(|p| {
                (
                    format!("sleep {}", dur(p.interval_ns as f64)),
                    &p.total,
                    p.cpus.as_slice(),
                )
            })
            .collect();
    }
    vec![(String::new(), &d.total, d.cpus.as_slice())]
}

/// The name of samples-file phase `i` of this result (idle/loaded, a sleep length).
fn phase_name(d: &MeasureResult, i: u32) -> Option<String> {
    phases(d)
        .into_iter()
        .nth(i as usize)
        .map(|p| p.0)
        .filter(|n| !n.is_empty())
}

/// The summary table of the run: per phase when it has several (each row names its
/// phase), a sweep's pooled total last and labelled so.
fn latency_table(b: &mut Builder, d: &MeasureResult) {
    let ph = phases(d);
    if ph.len() == 1 {
        b.table(stats_table("CPU", &stats_rows(&d.total, &d.cpus)));
        return;
    }
    let mut rows = Vec::new();
    if d.compare.is_some() {
        for (name, total, cpus) in &ph {
            rows.extend(stats_rows(total, cpus).into_iter().map(|mut r| {
                r.label = format!("{name}: {}", r.label);
                r
            }));
        }
        b.note("Two phases, each with its own rows: idle, then under load.");
        b.table(stats_table("CPU", &rows));
        return;
    } else {
        rows.extend(ph.iter().map(|(name, total, _)| StatsRow {
            label: name.clone(),
            stats: stats(total),
        }));
        rows.push(StatsRow {
            label: format!("all {} sleep lengths, pooled", ph.len()),
            stats: stats(&d.total),
        });
        b.note(
            "One row per sleep length (all CPUs), each with its own overruns; the last row \
             pools every sleep length.",
        );
    }
    b.table(stats_table("sleep length", &rows));
}

/// Histogram and percentile curves: one set per phase when the run has several (at most
/// eight, else the pooled total, labelled so), per CPU for a plain run with several CPUs.
fn distribution_charts(b: &mut Builder, d: &MeasureResult) -> Result<(), ReportError> {
    let ph = phases(d);
    let total = stats(&d.total);
    let sets: Vec<(String, Vec<Bucket>, Option<Stats>)> = if ph.len() > 1 && ph.len() <= 8 {
        ph.iter()
            .map(|(n, t, _)| {
                let st = stats(t);
                (
                    n.clone(),
                    clip_to_extremes(&measure_hist(t), st.min(), st.max()),
                    Some(st),
                )
            })
            .filter(|h| !h.1.is_empty())
            .collect()
    } else {
        let label = if ph.len() > 1 {
            format!("all {} sleep lengths, pooled", ph.len())
        } else {
            "all CPUs".to_string()
        };
        vec![(
            label,
            clip_to_extremes(&measure_hist(&d.total), total.min(), total.max()),
            Some(total.clone()),
        )]
        .into_iter()
        .filter(|h| !h.1.is_empty())
        .collect()
    };
    if sets.is_empty() {
        return Ok(());
    }
    let what = if ph.len() > 1 {
        "one set per phase"
    } else {
        "all CPUs"
    };
    let h2: Vec<(String, Vec<Bucket>)> = sets.iter().map(|h| (h.0.clone(), h.1.clone())).collect();
    b.figure(
        "Latency histogram",
        &format!("Wake-up latency (actual − intended wake time), {what}; count on a log axis so single outliers stay visible."),
        || charts::histogram(&h2, "wake-up latency"),
    )?;
    // Per-CPU percentile curves when a plain run has per-CPU histograms.
    let per_cpu: Vec<(String, Vec<Bucket>, Option<Stats>)> = if ph.len() == 1 {
        d.cpus
            .iter()
            .map(|c| {
                (
                    format!("CPU {}", c.cpu),
                    measure_hist(&c.stats),
                    Some(stats(&c.stats)),
                )
            })
            .filter(|c| !c.1.is_empty())
            .collect()
    } else {
        Vec::new()
    };
    const CDF: &str = "Cumulative distribution, HdrHistogram-style: each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.";
    if per_cpu.len() > 1 && per_cpu.len() <= 8 {
        b.figure("Latency CDF (by percentile), per CPU", CDF, || {
            charts::cdf(&per_cpu, "wake-up latency")
        })
    } else {
        let sets: Vec<(String, Vec<Bucket>, Option<Stats>)> = if ph.len() == 1 {
            vec![("all CPUs".to_string(), measure_hist(&d.total), Some(total))]
        } else {
            sets
        };
        b.figure("Latency CDF (by percentile)", CDF, || {
            charts::cdf(&sets, "wake-up latency")
        })
    }
}

pub(super) fn measure(
    b: &mut Builder,
    d: &MeasureResult,
    level: u8,
    attached: &[Input],
) -> Result<(), ReportError> {
    // The answer first (the verdict and the worst case are above, from the one verdict
    // function), with the environment's diagnosis beside it; the charts next; the
    // settings and the environment table last (issue 26: the page opened on settings and
    // kept the environment's verdict at its bottom).
    environment_verdict(b, &d.environment.items);
    b.heading(level + 1, "Wake-up latency", None);
    latency_table(b, d);
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
    distribution_charts(b, d)?;
    let raw = attached
        .iter()
        .filter(|a| a.kind == Kind::Samples)
        .find_map(|a| Samples::of(&a.doc));
    if let Some(r) = raw {
        // Every phase's overruns: the top-level total is one phase of a comparison.
        let counted: u64 = phases(d).iter().map(|p| p.1.overruns).sum();
        unmarked_overruns(b, counted as f64, &r);
        over_time(b, &r, None, &|i| phase_name(d, i))?;
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
        if d.compare.is_some() {
            // The table above is the comparison's phases: the sweep's points go here.
            let rows: Vec<StatsRow> = sweep
                .iter()
                .map(|p| StatsRow {
                    label: dur(p.interval_ns),
                    stats: p.stats.clone(),
                })
                .collect();
            b.table(stats_table("sleep length", &rows));
        }
        b.figure(
            "Wake-up latency against sleep length",
            "As \"Wakeup Latency, CPU Frequency (Gotcha)\" observed on a Raspberry Pi 4: longer sleeps wake up later (deeper idle states, frequency drops). The figures per sleep length are the table above.",
            || charts::sweep(&sweep),
        )?;
    }
    if let Some(c) = &d.compare {
        compare_load(b, c, level)?;
    }
    b.heading(level + 1, "Settings", None);
    b.facts(settings(d));
    environment(b, &d.environment.items, level);
    Ok(())
}

/// `--compare-load`: the idle and the loaded phase side by side, with their difference
/// (their histograms and percentiles are drawn above, one set per phase).
fn compare_load(b: &mut Builder, c: &CompareJson, level: u8) -> Result<(), ReportError> {
    let rows = [
        StatsRow {
            label: "idle".into(),
            stats: stats(&c.idle.total),
        },
        StatsRow {
            label: "loaded".into(),
            stats: stats(&c.loaded.total),
        },
    ];
    b.heading(level + 1, "Idle against loaded", None);
    b.note(format!("Load: {}", c.load));
    let mut t = stats_table("phase (all CPUs)", &rows);
    let (a, z) = (&rows[0].stats, &rows[1].stats);
    let mut diff = vec![Cell::t("difference").bold()];
    for h in t.headers.iter().skip(1) {
        let timed = !matches!(h.as_str(), "count" | "overruns" | "max at");
        diff.push(match (a.stat(h), z.stat(h)) {
            (Some(x), Some(y)) if timed => {
                let dlt = y - x;
                let sign = if dlt > 0.0 { "+" } else { "" };
                let tone = if dlt > 0.0 { Tone::Warn } else { Tone::Good };
                Cell::badge(format!("{sign}{}", dur(dlt)), tone)
            }
            _ => Cell::n(""),
        });
    }
    t.rows.push(diff);
    b.table(t);
    Ok(())
}

/// The environment's diagnosis in one line ("2 item(s) distort latency badly…"), for the
/// first screen; only for the first run of a page (later runs of one machine say what
/// differs beside their table, see [`environment`]).
fn environment_verdict(b: &mut Builder, items: &[Item]) {
    if items.is_empty() || b.last_env.is_some() {
        return;
    }
    let count = |t: Tone| {
        items
            .iter()
            .filter(|i| tone_of(i.status.as_str()) == t)
            .count()
    };
    let (bad, warn) = (count(Tone::Bad), count(Tone::Warn));
    let (tone, msg) = if bad > 0 {
        (
            Tone::Bad,
            format!("environment: {bad} item(s) distort latency badly, {warn} may distort it"),
        )
    } else if warn > 0 {
        (
            Tone::Warn,
            format!("environment: {warn} item(s) may distort latency"),
        )
    } else {
        (
            Tone::Good,
            "environment: nothing found that distorts latency".to_string(),
        )
    };
    b.out.push(Block::Verdict(tone, msg));
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
    b.last_env = serde_json::to_value(&key).ok();
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

#[cfg(test)]
mod tests {
    use crate::{render_markdown, Input, Options};
    use latscope_results::measure::MeasureResult;

    fn fixture() -> MeasureResult {
        let text = include_str!("../../tests/fixtures/measure.json");
        serde_json::from_str(text).unwrap()
    }

    fn md(d: &MeasureResult) -> String {
        let input = Input::parse("run.json", &serde_json::to_string(d).unwrap()).unwrap();
        render_markdown(&[input], &Options::default()).unwrap()
    }

    /// The cells of the first table row whose first cell is `first`.
    fn row(md: &str, first: &str) -> Option<Vec<String>> {
        let start = format!("| {first} |");
        md.lines().find(|l| l.starts_with(&start)).map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
    }

    #[test]
    fn a_sweep_is_split_per_sleep_length_and_its_pooled_row_says_so() {
        let mut d = fixture();
        d.compare = None;
        let pts = d.sweep.as_mut().unwrap();
        for (i, p) in pts.iter_mut().enumerate() {
            p.total.overruns = 10 * (i as u64 + 1);
        }
        d.total.overruns = 60;
        let text = md(&d);
        let header = text
            .lines()
            .find(|l| l.starts_with("| sleep length |"))
            .unwrap();
        let col = header
            .trim_matches('|')
            .split(" | ")
            .position(|h| h.trim() == "overruns")
            .unwrap();
        for p in d.sweep.as_ref().unwrap() {
            let label = format!("sleep {}", crate::units::dur(p.interval_ns as f64));
            let r = row(&text, &label).unwrap_or_else(|| panic!("{label}:\n{text}"));
            assert!(r[col].ends_with(&p.total.overruns.to_string()), "{r:?}");
        }
        let pooled = row(&text, "all 3 sleep lengths, pooled").expect("pooled row labelled");
        assert!(pooled[col].ends_with("60"), "{pooled:?}");
        assert!(
            row(&text, "all CPUs").is_none(),
            "no unlabelled total:\n{text}"
        );
    }

    #[test]
    fn a_comparison_under_load_has_rows_per_phase() {
        let mut d = fixture();
        d.sweep = None;
        let text = md(&d);
        let c = d.compare.as_ref().unwrap();
        for (phase, p) in [("idle", &c.idle), ("loaded", &c.loaded)] {
            let r = row(&text, &format!("{phase}: all CPUs")).expect(phase);
            assert!(
                r.iter()
                    .any(|x| *x == format!("**{}**", crate::units::dur(p.total.max_ns as f64))),
                "{phase} max: {r:?}"
            );
        }
        assert!(
            row(&text, "all CPUs").is_none(),
            "no unlabelled total:\n{text}"
        );
    }
}
