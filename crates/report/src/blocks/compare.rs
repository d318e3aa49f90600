//! Side-by-side sections for several inputs of the same kind.

use super::layout::*;
use super::measure;
use super::trace::{self, is_time_measurement};
use super::{Builder, Cell, Table, View};
use crate::charts::{self};
use crate::data::{arr, text, Bucket, Stats, Tone};
use crate::units::dur;
use crate::{Document, Kind, ReportError};
use latscope_results::measure::MeasureResult;
use latscope_results::trace::{Measurement, TraceResult};
use serde_json::Value;

/// Side-by-side sections for inputs of the same kind.
pub(super) fn comparisons(b: &mut Builder, inputs: &[View]) -> Result<(), ReportError> {
    let of = |k: Kind| {
        inputs
            .iter()
            .filter(move |i| i.kind == k)
            .collect::<Vec<_>>()
    };
    let ms: Vec<(&View, &MeasureResult)> = of(Kind::Measure)
        .into_iter()
        .filter_map(|v| match v.result {
            Some(Document::Measure(m)) => Some((v, &**m)),
            _ => None,
        })
        .collect();
    if ms.len() > 1 {
        b.heading(2, "Comparison of measure runs", Some("compare"));
        let sets: Vec<StatsRow> = ms
            .iter()
            .map(|(v, m)| StatsRow {
                label: v.name.clone(),
                stats: measure::stats(&m.total),
            })
            .collect();
        b.table(stats_table("run", &sets));
        let hs: Vec<(String, Vec<Bucket>, Option<Stats>)> = ms
            .iter()
            .map(|(v, m)| {
                (
                    v.name.clone(),
                    measure::measure_hist(&m.total),
                    Some(measure::stats(&m.total)),
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
                "HdrHistogram-style percentile plot: each step to the right is ten times rarer. The last stretch, to the axis end labelled max, is the largest sample.",
                || charts::cdf(&hs, "wake-up latency"),
            )?;
        }
    }
    let ts: Vec<(&View, &TraceResult)> = of(Kind::Trace)
        .into_iter()
        .filter_map(|v| match v.result {
            Some(Document::Trace(t)) => Some((v, &t.result)),
            _ => None,
        })
        .collect();
    if ts.len() > 1 {
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
            let found: Vec<(&View, &Measurement)> = ts
                .iter()
                .filter_map(|(v, t)| {
                    t.measurements
                        .iter()
                        .find(|m| m.name == name)
                        .map(|m| (*v, m))
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
                    stats: trace::stats(m),
                })
                .collect();
            if timed {
                b.table(stats_table("input", &rows));
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
pub(super) fn task_matrix(inputs: &[&View], key: &str, what: &str) -> Table {
    let mut names: Vec<String> = Vec::new();
    for i in inputs {
        for t in arr(i.doc, "tasks") {
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
                let t = arr(i.doc, "tasks")
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
