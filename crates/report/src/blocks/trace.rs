//! The section of a `latscope trace` result: limits, measurements, per-measurement charts,
//! read from the typed document (`latscope_results::trace`).

use super::{Builder, Cell, Table};
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
pub(super) fn fin(x: f64) -> Option<f64> {
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
pub(super) fn worst(m: &Measurement) -> Vec<data::Point> {
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
        super::trace_measurement::measurement(b, m, level)?;
    }
    b.heading(level + 1, "Capture", None);
    b.facts(capture_facts(d));
    Ok(())
}
