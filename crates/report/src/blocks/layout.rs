//! Layout shared by every producer's section: summary tables, generic tables, run
//! settings and CPU-share splits.

use super::{Builder, Cell, Table};
use crate::charts::{self, BarRow, BarScale};
use crate::data::{self, Stats, Tone};
use crate::units::{dur, int, pct};
use crate::ReportError;

pub(super) struct StatsRow {
    pub label: String,
    pub stats: Stats,
}

/// A latency summary table; columns that no row has are left out.
pub(super) fn stats_table(first: &str, rows: &[StatsRow]) -> Table {
    // (column, whether it is a duration); `Stats::get` reads each by its column name.
    let cols: [(&str, bool); 12] = [
        ("count", false),
        ("min", true),
        ("mean", true),
        ("stdev", true),
        ("p50", true),
        ("p90", true),
        ("p99", true),
        ("p99.9", true),
        ("p99.99", true),
        ("max", true),
        ("max at", true),
        ("overruns", false),
    ];
    let used: Vec<&(&str, bool)> = cols
        .iter()
        .filter(|c| rows.iter().any(|r| r.stats.stat(c.0).is_some()))
        .collect();
    let mut headers = vec![first.to_string()];
    headers.extend(used.iter().map(|c| c.0.to_string()));
    let rows = rows
        .iter()
        .map(|r| {
            let mut row = vec![Cell::t(&r.label)];
            for (name, is_time) in &used {
                let v = r.stats.stat(name);
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

/// Order of CPU shares: the work first, kernel overheads next, idle and sleep last.
pub(super) fn share_rank(name: &str) -> usize {
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
pub(super) fn split_chart(
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

/// Histogram buckets trimmed to the exact extremes: the bucket that holds `min` starts at it,
/// the one that holds `max` ends at it (so a bar never shows values that did not occur).
pub(super) fn clip_to_extremes(
    hist: &[data::Bucket],
    min: Option<f64>,
    max: Option<f64>,
) -> Vec<data::Bucket> {
    hist.iter()
        .map(|k| {
            let mut k = *k;
            if let Some(lo) = min.filter(|l| *l >= k.low && *l < k.high) {
                k.low = lo;
            }
            if let Some(hi) = max.filter(|h| *h >= k.low && *h <= k.high) {
                k.high = hi;
            }
            k
        })
        .collect()
}
