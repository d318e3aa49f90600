//! One measurement's part of a trace section: its facts, then the charts its kind and
//! data call for (jitter, busy share, histogram and percentiles, values over time, the
//! worst instances) and the table of the worst instances the charts link to.

use super::layout::*;
use super::trace::{buckets, fin, is_time_measurement, stats, worst};
use super::{Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, Bucket};
use crate::units::{dur, int, num as fnum};
use crate::ReportError;
use latscope_results::trace::{Measurement, WindowPoint};

/// The facts and charts of one measurement.
pub(super) fn measurement(b: &mut Builder, m: &Measurement, level: u8) -> Result<(), ReportError> {
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
    b.facts(facts(m));
    let is_period = m.kind == "period";
    if is_period && !hist.is_empty() {
        jitter_chart(b, m, &hist)?;
    }
    let busy = m.busy_percent.is_some();
    if busy {
        busy_chart(b, &name, windows)?;
    }
    // A distribution needs a few values to be worth a chart.
    let enough = m.count >= 5;
    if timed && !hist.is_empty() && enough && !busy && !is_period {
        distribution_charts(b, m, hist)?;
    }
    // Whether a chart carries the link of the worst-instance table below.
    let linked = !series.is_empty() && enough && !busy;
    if linked {
        series_chart(b, m, series, &worst, &link)?;
    }
    if !worst.is_empty() && enough && !linked {
        worst_chart(b, m, &worst, &link)?;
    }
    if !worst.is_empty() && enough {
        worst_table(b, m, &worst, &link);
    }
    Ok(())
}

/// The measurement's facts beside the summary table: resolution, unmatched events,
/// spread, and the lines the terminal prints for a busy share or a period.
fn facts(m: &Measurement) -> Vec<(String, String)> {
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
    if let Some(bp) = &m.busy_percent {
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
    facts
}

/// A period's histogram shifted to its deviation from the nominal period (or, without
/// one, from the mean), so that the jitter is not hidden by the period itself.
fn jitter_chart(b: &mut Builder, m: &Measurement, hist: &[Bucket]) -> Result<(), ReportError> {
    let name = &m.name;
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
        || charts::jitter_histogram(name, &shifted, lo, hi, &what),
    )
}

/// The busy share of each window over time (two windows at least make a line).
fn busy_chart(b: &mut Builder, name: &str, windows: &[WindowPoint]) -> Result<(), ReportError> {
    let pct_series: Vec<data::Point> = windows
        .iter()
        .filter_map(|p| Some((p.at_ns, p.percent?)))
        .filter(|(t, v)| t.is_finite() && v.is_finite())
        .collect();
    if pct_series.len() < 2 {
        return Ok(());
    }
    b.figure(
        &format!("{name}: busy share per window"),
        "Share of each window the channel was high: the kernel's overhead in percent, over time; the busiest window is circled.",
        || {
            let o = charts::SeriesOpts::new("busy share", charts::ValueUnit::Other("%".into()));
            charts::series_chart(
                &[charts::Line {
                    name: format!("{name}: busy share"),
                    points: pct_series,
                }],
                &o,
            )
        },
    )
}

/// A duration's histogram (bars drawn to the exact extremes) and its percentile curve.
fn distribution_charts(
    b: &mut Builder,
    m: &Measurement,
    hist: Vec<Bucket>,
) -> Result<(), ReportError> {
    let name = &m.name;
    let res = m.resolution_ns;
    let quantised = data::quantised(&hist, res).is_some();
    let drawn = drawn_buckets(m, &hist, quantised);
    let sets = vec![(name.clone(), drawn, res)];
    b.figure(
        &format!("{name}: histogram"),
        if quantised {
            "Count on a log axis, so that single outliers stay visible; values are whole samples and each bar spans the values it counts, half a sample either side (a one-sample bar is centred on its value)."
        } else {
            "Count on a log axis, so that single outliers stay visible."
        },
        || charts::histogram_res(&sets, name),
    )?;
    let sets = vec![(name.clone(), hist, Some(stats(m)))];
    b.figure(
        &format!("{name}: by percentile"),
        "Each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.",
        || charts::cdf(&sets, name),
    )
}

/// The histogram's buckets as drawn: the first and last reach no further than the exact
/// min and max, so a bucket [9 µs, 12 µs) whose largest value is the max 9 µs is drawn up
/// to 9 µs (plus one sample on a sample grid, when that keeps the bars on the grid).
fn drawn_buckets(m: &Measurement, hist: &[Bucket], quantised: bool) -> Vec<Bucket> {
    let res = m.resolution_ns;
    let (lo, hi) = (fin(m.min_ns), fin(m.max_ns));
    let (true, Some(r)) = (quantised, res) else {
        // Edges off the sample grid: the bucket holding the exact min starts there,
        // the one holding the exact max ends there.
        return clip_to_extremes(hist, lo, hi);
    };
    let mut drawn = hist.to_vec();
    for k in &mut drawn {
        if let Some(hi) = hi.filter(|h| *h >= k.low) {
            k.high = k.high.min(hi + r);
        }
        if let Some(lo) = lo.filter(|l| *l < k.high) {
            k.low = k.low.max(lo);
        }
    }
    if data::quantised(&drawn, res).is_none() {
        return hist.to_vec();
    }
    drawn
}

/// The options of a values-over-time chart: the measurement's unit, the point to circle
/// and the link to the worst-instance table.
fn time_opts(m: &Measurement, highlight: Option<data::Point>, link: &str) -> charts::SeriesOpts {
    let mut o = charts::SeriesOpts::new(
        &m.name,
        if is_time_measurement(m) {
            charts::ValueUnit::Time
        } else {
            charts::ValueUnit::Other(m.unit.to_string())
        },
    );
    o.highlight = highlight;
    o.link = Some(link.to_string());
    o.origin = "time from capture start".into();
    o
}

/// Every instance's value against its time, the worst case the tables name circled.
fn series_chart(
    b: &mut Builder,
    m: &Measurement,
    series: Vec<data::Point>,
    worst: &[data::Point],
    link: &str,
) -> Result<(), ReportError> {
    let name = &m.name;
    // The instance the tables name (`max_at_ns`), else the first worst.
    let hl = match (fin(m.max_at_ns), fin(m.max_ns)) {
        (Some(t), Some(v)) => Some((t, v)),
        _ => worst.first().copied(),
    };
    let o = time_opts(m, hl, link);
    let line = charts::Line {
        name: name.clone(),
        points: series,
    };
    b.figure(
        &format!("{name} over time"),
        "Value of each instance against its time in the capture (each pixel column shows the minimum and maximum of all instances in it); the worst case the tables name is circled.",
        || charts::series_chart(&[line], &o),
    )
}

/// No per-instance series in the result: the worst instances themselves, against their
/// time, so that each row of the table below points at a drawn point.
fn worst_chart(
    b: &mut Builder,
    m: &Measurement,
    worst: &[data::Point],
    link: &str,
) -> Result<(), ReportError> {
    let name = &m.name;
    let mut pts = worst.to_vec();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let o = time_opts(m, worst.first().copied(), link);
    let line = charts::Line {
        name: format!("{name}: worst instances"),
        points: pts,
    };
    b.figure(
        &format!("{name}: worst instances"),
        "The largest instances (the table below) against their time in the capture; the largest is circled. Point at a row to mark it here.",
        || charts::series_chart(&[line], &o),
    )
}

/// The ten largest instances, ranked, linked to the chart that draws them.
fn worst_table(b: &mut Builder, m: &Measurement, worst: &[data::Point], link: &str) {
    let timed = is_time_measurement(m);
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
    b.link(link, worst.iter().take(10).map(|w| Some(w.0)).collect());
}
