//! `trace` results: one row per measurement (pulse, latency, period, busy, count, spec).

use crate::table::Cell;
use crate::table::ColumnType::{self, Bool, Float, Int, Text};
use latscope_results::trace::TraceResult;

pub const COLUMNS: &[(&str, ColumnType)] = &[
    ("measurement", Text),
    ("kind", Text),
    ("definition", Text),
    ("unit", Text),
    ("count", Int),
    ("min_ns", Float),
    ("mean_ns", Float),
    ("stdev_ns", Float),
    ("p50_ns", Float),
    ("p90_ns", Float),
    ("p99_ns", Float),
    ("p999_ns", Float),
    ("max_ns", Float),
    ("max_at_ns", Float),
    ("unmatched", Int),
    ("capture", Text),
    ("format", Text),
    ("capture_duration_ns", Float),
    ("pass", Bool),
];

/// A statistic: null when the measurement has no instance (NaN, JSON `null`).
fn stat(x: f64) -> Cell {
    if x.is_finite() {
        Cell::Float(x)
    } else {
        Cell::Null
    }
}

pub fn rows(d: &TraceResult) -> Vec<Vec<Cell>> {
    d.measurements
        .iter()
        .map(|m| {
            vec![
                Cell::Text(m.name.clone()),
                Cell::Text(m.kind.to_string()),
                Cell::Text(m.definition.clone()),
                Cell::Text(m.unit.to_string()),
                super::int(m.count),
                stat(m.min_ns),
                stat(m.mean_ns),
                stat(m.stdev_ns),
                stat(m.p50_ns),
                stat(m.p90_ns),
                stat(m.p99_ns),
                stat(m.p999_ns),
                stat(m.max_ns),
                stat(m.max_at_ns),
                super::int(m.unmatched),
                Cell::Text(d.capture.source.clone()),
                Cell::Text(d.capture.format.clone()),
                Cell::Float(d.capture.duration_ns),
                Cell::Bool(d.pass),
            ]
        })
        .collect()
}
