//! `simulate` results: one row per task.

use crate::table::Cell;
use crate::table::ColumnType::{self, Float, Int, Text};
use latscope_results::simulate::SimulateResult;

pub const COLUMNS: &[(&str, ColumnType)] = &[
    ("task", Text),
    ("priority", Int),
    ("jobs", Int),
    ("released", Int),
    ("deadline_ns", Float),
    ("deadline_misses", Int),
    ("max_response_ns", Float),
    ("response_mean_ns", Float),
    ("response_p50_ns", Float),
    ("response_p99_ns", Float),
    ("preemptions", Int),
    ("overruns", Int),
    ("cpu_ns", Float),
    ("source", Text),
    ("kernel", Text),
    ("seed", Int),
    ("duration_ns", Float),
];

pub fn rows(d: &SimulateResult) -> Vec<Vec<Cell>> {
    d.tasks
        .iter()
        .map(|t| {
            vec![
                Cell::Text(t.name.clone()),
                Cell::Int(i64::from(t.priority)),
                super::int(t.jobs),
                super::int(t.released),
                Cell::Float(t.deadline_ns),
                super::int(t.deadline_misses),
                t.max_response_ns.into(),
                t.response.mean_ns.into(),
                t.response.p50_ns.into(),
                t.response.p99_ns.into(),
                super::int(t.preemptions),
                super::int(t.overruns),
                Cell::Float(t.cpu_ns),
                Cell::Text(d.source.clone()),
                Cell::Text(d.kernel.to_string()),
                super::int(d.seed),
                Cell::Float(d.duration_ns),
            ]
        })
        .collect()
}
