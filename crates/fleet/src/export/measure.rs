//! `measure` results: one row per measured CPU (the `cpus` array; a result without it
//! gives one row from `total` with a null `cpu`).

use crate::table::Cell;
use crate::table::ColumnType::{self, Bool, Float, Int, Text};
use latscope_results::measure::{MeasureResult, Stats};

pub const COLUMNS: &[(&str, ColumnType)] = &[
    ("cpu", Int),
    ("count", Int),
    ("min_ns", Float),
    ("mean_ns", Float),
    ("stdev_ns", Float),
    ("p50_ns", Float),
    ("p90_ns", Float),
    ("p99_ns", Float),
    ("p999_ns", Float),
    ("p9999_ns", Float),
    ("max_ns", Float),
    ("overruns", Int),
    ("wakes", Int),
    ("dropped_samples", Int),
    ("policy", Text),
    ("priority", Int),
    ("interval_ns", Float),
    ("duration_ns", Float),
    ("elapsed_ns", Float),
    ("started_unix_s", Float),
    ("interrupted", Bool),
];

/// The cells of one CPU's (or the total's) statistics, in [`COLUMNS`] order.
fn row(d: &MeasureResult, cpu: Option<u32>, s: &Stats, wakes: Cell, dropped: Cell) -> Vec<Cell> {
    let set = &d.settings;
    vec![
        cpu.map_or(Cell::Null, |c| Cell::Int(i64::from(c))),
        super::int(s.count),
        Cell::Float(s.min_ns as f64),
        Cell::Float(s.mean_ns),
        Cell::Float(s.stdev_ns),
        Cell::Float(s.p50_ns as f64),
        Cell::Float(s.p90_ns as f64),
        Cell::Float(s.p99_ns as f64),
        Cell::Float(s.p999_ns as f64),
        Cell::Float(s.p9999_ns as f64),
        Cell::Float(s.max_ns as f64),
        super::int(s.overruns),
        wakes,
        dropped,
        Cell::Text(set.policy.clone()),
        Cell::Int(i64::from(set.priority)),
        Cell::Float(set.interval_ns as f64),
        set.duration_ns.map(|x| x as f64).into(),
        Cell::Float(d.elapsed_ns as f64),
        Cell::Float(d.started_unix_s),
        Cell::Bool(d.interrupted),
    ]
}

pub fn rows(d: &MeasureResult) -> Vec<Vec<Cell>> {
    if d.cpus.is_empty() {
        return vec![row(d, None, &d.total, Cell::Null, Cell::Null)];
    }
    d.cpus
        .iter()
        .map(|c| {
            row(
                d,
                Some(c.cpu),
                &c.stats,
                super::int(c.wakes),
                super::int(c.dropped_samples),
            )
        })
        .collect()
}
