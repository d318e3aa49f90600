//! The section of a `latscope trace` result: limits, measurements, per-measurement charts,
//! read from the typed document (`latscope_results::trace`).

use super::layout::*;
use super::{Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, Bucket, Stats, Tone};
use crate::units::{dur, int, num as fnum};
use crate::ReportError;
use latscope_results::summary::{val, DurationSummary};
use latscope_results::trace::{LimitOutcome, Measurement, TraceResult};

/// Whether a trace measurement's values are durations (ns) rather than counts.
pub(super) fn is_time_measurement(m: &Measurement) -> bool {
    m.unit != "count"
}

/// A statistic of a measurement: NaN (no instance) is absent.
fn fin(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// A measurement's statistics as the report's tables and charts take them: the shared
/// summary (NaN, no instance, is null), with the resolution beside it.
pub(super) fn stats(m: &Measurement) -> Stats {
    Stats {
        summary: DurationSummary {
            count: m.count,
            min_ns: val(m.min_ns),
            max_ns: val(m.max_ns),
            max_at_ns: val(m.max_at_ns),
            mean_ns: val(m.mean_ns),
            stdev_ns: val(m.stdev_ns),
            p50_ns: val(m.p50_ns),
            p90_ns: val(m.p90_ns),
            p99_ns: val(m.p99_ns),
            p999_ns: val(m.p999_ns),
            p9999_ns: val(m.p9999_ns),
            ..DurationSummary::default()
        },
        overruns: None,
        resolution: m.resolution_ns.filter(|r| r.is_finite() && *r > 0.0),
    }
}

/// A measurement's histogram bins, in increasing order (bins with a non-finite or
/// inverted range dropped).
pub(super) fn buckets(m: &Measurement) -> Vec<Bucket> {
    data::sorted_buckets(m.histogram.iter().map(|b| (b.low_ns, b.high_ns, b.count)))
}

/// Worst instances as (at, value), largest first; equal values in time order.
fn worst(m: &Measurement) -> Vec<data::Point> {
    let mut w: Vec<data::Point> = m
        .worst
        .iter()
        .map(|i| (i.at_ns, i.value_ns))
        .filter(|(t, v)| t.is_finite() && v.is_finite())
        .collect();
    w.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.total_cmp(&b.0)));
    w
}

/// A limit's value in its unit.
fn limit_value(l: &LimitOutcome, x: f64) -> String {
    match l.unit {
        "ns" => dur(x),
        "percent" => format!("{} %", fnum(x, 4)),
        _ => fnum(x, 6),
    }
}

fn limits_table(limits: &[LimitOutcome]) -> Table {
    let rows = limits
        .iter()
        .map(|l| {
            vec![
                Cell::t(&l.limit).bold(),
                if l.pass {
                    Cell::badge("pass", Tone::Good)
                } else {
                    Cell::badge("fail", Tone::Bad)
                },
                Cell::n(
                    l.actual
                        .map(|a| limit_value(l, a))
                        .unwrap_or_else(|| "–".into()),
                ),
                Cell::n(limit_value(l, l.bound)),
                Cell::t(l.note.clone().unwrap_or_default()),
            ]
        })
        .collect();
    Table {
        headers: ["limit", "verdict", "actual", "bound", "note"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        rows,
    }
}

/// The capture's facts: source, format, rate, resolution, length.
fn capture_facts(d: &TraceResult) -> Vec<(String, String)> {
    let c = &d.capture;
    let mut f = vec![
        ("source".to_string(), c.source.clone()),
        ("format".to_string(), c.format.clone()),
    ];
    if let Some(r) = c.samplerate_hz {
        f.push(("samplerate".into(), format!("{} Hz", int(r as f64))));
    }
    if let Some(r) = c.resolution_ns {
        f.push(("resolution".into(), dur(r)));
    }
    f.push(("duration".into(), dur(c.duration_ns)));
    f.push(("channels".into(), c.channels.len().to_string()));
    if let Some(from) = d.range.from_ns {
        f.push(("range from".into(), dur(from)));
    }
    if let Some(to) = d.range.to_ns {
        f.push(("range to".into(), dur(to)));
    }
    f
}

pub(super) fn trace(b: &mut Builder, d: &TraceResult, level: u8) -> Result<(), ReportError> {
    // The verdict and the worst case open the section (the first screen, built with
    // every kind's in `blocks::build`); the limits' table follows, the capture's facts
    // come after the figures.
    if !d.limits.is_empty() {
        b.heading(level + 1, "Limits", None);
        b.table(limits_table(&d.limits));
    }
    super::trace_chains::chains(b, &d.chains, level);
    let ms = &d.measurements;
    if ms.is_empty() && !d.chains.is_empty() {
        b.heading(level + 1, "Capture", None);
        b.facts(capture_facts(d));
        return Ok(());
    }
    if ms.is_empty() {
        b.note("This result holds no measurements.");
        b.facts(capture_facts(d));
        return Ok(());
    }
    b.heading(level + 1, "Measurements", None);
    let mut rows = Vec::new();
    for m in ms {
        let timed = is_time_measurement(m);
        let v = |x: f64| -> Cell {
            match fin(x) {
                Some(x) if timed => Cell::n(dur(x)),
                Some(x) => Cell::n(format!("{} {}", fnum(x, 4), m.unit).trim().to_string()),
                None => Cell::n("–"),
            }
        };
        let at = |x: f64| -> Cell { Cell::n(fin(x).map(dur).unwrap_or_else(|| "–".into())) };
        rows.push(vec![
            Cell::t(&m.name).bold(),
            Cell::t(m.kind),
            Cell::n(int(m.count as f64)),
            v(m.min_ns),
            at(m.min_at_ns),
            v(m.mean_ns),
            v(m.p50_ns),
            v(m.p99_ns),
            v(m.max_ns).bold(),
            at(m.max_at_ns),
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
    b.note("Times (\"at\") count from the capture's start, as on every chart of this capture.");
    for m in ms {
        measurement(b, m, level)?;
    }
    b.heading(level + 1, "Capture", None);
    b.facts(capture_facts(d));
    Ok(())
}

/// The facts and charts of one measurement.
fn measurement(b: &mut Builder, m: &Measurement, level: u8) -> Result<(), ReportError> {
    let name = m.name.clone();
    let timed = is_time_measurement(m);
    let hist = buckets(m);
    let windows = m.series.as_deref().unwrap_or(&[]);
    let series: Vec<data::Point> = windows
        .iter()
        .map(|p| (p.at_ns, p.value))
        .filter(|(t, v)| t.is_finite() && v.is_finite())
        .collect();
    let worst = worst(m);
    if hist.is_empty() && series.is_empty() && worst.is_empty() {
        return Ok(());
    }
    b.heading(level + 1, &name, Some(m.kind));
    let link = b.link_id(&name);
    let mut facts = Vec::new();
    if let Some(r) = m.resolution_ns {
        facts.push(("resolution (±1 sample)".to_string(), dur(r)));
    }
    facts.push(("unmatched events".into(), int(m.unmatched as f64)));
    if let Some(x) = fin(m.stdev_ns) {
        facts.push(("stdev".into(), dur(x)));
    }
    if let Some(x) = fin(m.mode_ns) {
        facts.push(("mode".into(), dur(x)));
    }
    // Busy fraction: `busy_percent` {overall, min, max, …} and a per-window series.
    let busy = m.busy_percent.as_ref();
    if let Some(bp) = busy {
        for (x, label) in [
            (bp.overall, "busy overall"),
            (bp.min, "busy, least window"),
            (bp.mean, "busy, mean window"),
            (bp.max, "busy, busiest window"),
        ] {
            if let Some(x) = fin(x) {
                facts.push((label.to_string(), format!("{} %", fnum(x, 4))));
            }
        }
    }
    // The lines the terminal prints for a period: its frequency and its jitter against
    // the nominal period.
    if let Some(f) = m.frequency_hz {
        facts.push(("frequency".into(), format!("{} Hz", fnum(f, 7))));
    }
    if let Some(j) = &m.jitter {
        facts.push(("nominal period".into(), dur(j.nominal_ns)));
        for (x, label) in [
            (j.min_ns, "jitter, min"),
            (j.max_ns, "jitter, max"),
            (j.rms_ns, "jitter, rms"),
            (j.abs_max_ns, "jitter, largest |deviation|"),
        ] {
            facts.push((label.into(), dur(x)));
        }
    }
    b.facts(facts);
    let is_period = m.kind == "period";
    if is_period && !hist.is_empty() {
        let (centre, what) = match &m.jitter {
            Some(j) => (
                j.nominal_ns,
                format!("deviation from the nominal {}", dur(j.nominal_ns)),
            ),
            None => (
                fin(m.mean_ns).unwrap_or(0.0),
                "deviation from the mean period".to_string(),
            ),
        };
        let shifted: Vec<Bucket> = hist
            .iter()
            .map(|k| Bucket {
                low: k.low - centre,
                high: k.high - centre,
                count: k.count,
            })
            .collect();
        let lo = fin(m.min_ns).map(|v| v - centre);
        let hi = fin(m.max_ns).map(|v| v - centre);
        b.figure(
            &format!("{name}: jitter"),
            &format!(
                "Each period's {what}, on a linear axis so the jitter is not hidden by the period itself; count on a log axis."
            ),
            || charts::jitter_histogram(&name, &shifted, lo, hi, &what),
        )?;
    }
    if busy.is_some() {
        let pct_series: Vec<data::Point> = windows
            .iter()
            .filter_map(|p| Some((p.at_ns, p.percent?)))
            .filter(|(t, v)| t.is_finite() && v.is_finite())
            .collect();
        if pct_series.len() >= 2 {
            b.figure(
                &format!("{name}: busy share per window"),
                "Share of each window the channel was high: the kernel's overhead in percent, over time; the busiest window is circled.",
                || {
                    let o = charts::SeriesOpts::new(
                        "busy share",
                        charts::ValueUnit::Other("%".into()),
                    );
                    charts::series_chart(
                        &[charts::Line {
                            name: format!("{name}: busy share"),
                            points: pct_series,
                        }],
                        &o,
                    )
                },
            )?;
        }
    }
    // A distribution needs a few values to be worth a chart.
    let enough = m.count >= 5;
    if timed && !hist.is_empty() && enough && busy.is_none() && !is_period {
        let res = m.resolution_ns;
        let quantised = data::quantised(&hist, res).is_some();
        let (lo, hi) = (fin(m.min_ns), fin(m.max_ns));
        // The first and last buckets reach no further than the exact min and max: a
        // bucket [9 µs, 12 µs) whose largest value is the max 9 µs is drawn up to 9 µs.
        let mut drawn = hist.clone();
        if let (true, Some(r)) = (quantised, res) {
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
        } else {
            // Edges off the sample grid: the bucket holding the exact min starts there,
            // the one holding the exact max ends there.
            drawn = clip_to_extremes(&hist, lo, hi);
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
        let sets = vec![(name.clone(), hist, Some(stats(m)))];
        b.figure(
            &format!("{name}: by percentile"),
            "Each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.",
            || charts::cdf(&sets, &name),
        )?;
    }
    // Whether a chart carries the link of the worst-instance table below.
    let mut linked = false;
    if !series.is_empty() && enough && busy.is_none() {
        linked = true;
        // The instance the tables name (`max_at_ns`), else the first worst.
        let hl = match (fin(m.max_at_ns), fin(m.max_ns)) {
            (Some(t), Some(v)) => Some((t, v)),
            _ => worst.first().copied(),
        };
        let mut o = charts::SeriesOpts::new(
            &name,
            if timed {
                charts::ValueUnit::Time
            } else {
                charts::ValueUnit::Other(m.unit.to_string())
            },
        );
        o.highlight = hl;
        o.link = Some(link.clone());
        o.origin = "time from capture start".into();
        let line = charts::Line {
            name: name.clone(),
            points: series.clone(),
        };
        b.figure(
            &format!("{name} over time"),
            "Value of each instance against its time in the capture (each pixel column shows the minimum and maximum of all instances in it); the worst case the tables name is circled.",
            || charts::series_chart(&[line], &o),
        )?;
    }
    if !worst.is_empty() && enough && !linked {
        // No per-instance series in the result: the worst instances themselves, against
        // their time, so that each row of the table below points at a drawn point.
        let mut pts = worst.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut o = charts::SeriesOpts::new(
            &name,
            if timed {
                charts::ValueUnit::Time
            } else {
                charts::ValueUnit::Other(m.unit.to_string())
            },
        );
        o.highlight = worst.first().copied();
        o.link = Some(link.clone());
        o.origin = "time from capture start".into();
        let line = charts::Line {
            name: format!("{name}: worst instances"),
            points: pts,
        };
        b.figure(
            &format!("{name}: worst instances"),
            "The largest instances (the table below) against their time in the capture; the largest is circled. Point at a row to mark it here.",
            || charts::series_chart(&[line], &o),
        )?;
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
        b.link(&link, worst.iter().take(10).map(|w| Some(w.0)).collect());
    }
    Ok(())
}
