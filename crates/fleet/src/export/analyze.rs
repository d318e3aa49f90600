//! `analyze` results: one row per task in the reported tick mode.

use crate::table::Cell;
use crate::table::ColumnType::{self, Bool, Float, Int, Text};
use latscope_results::analyze::AnalyzeResult;

pub const COLUMNS: &[(&str, ColumnType)] = &[
    ("task", Text),
    ("priority", Int),
    ("period_ns", Float),
    ("deadline_ns", Float),
    ("wcrt_ns", Float),
    ("slack_ns", Float),
    ("schedulable", Bool),
    ("blocking_ns", Float),
    ("jobs_examined", Int),
    ("source", Text),
    ("model", Text),
    ("tick_mode", Text),
    ("overheads", Bool),
    ("set_schedulable", Bool),
];

pub fn rows(d: &AnalyzeResult) -> Vec<Vec<Cell>> {
    let a = &d.analysis;
    a.tasks
        .iter()
        .map(|t| {
            vec![
                Cell::Text(t.name.to_string()),
                Cell::Int(i64::from(t.priority)),
                Cell::Float(t.period_ns),
                Cell::Float(t.deadline_ns),
                t.wcrt_ns.into(),
                t.slack_ns.into(),
                Cell::Bool(t.schedulable),
                Cell::Float(t.blocking_ns),
                super::int(t.jobs_examined),
                Cell::Text(a.source.clone()),
                Cell::Text(a.model.to_string()),
                Cell::Text(a.tick_mode.to_string()),
                Cell::Bool(a.overheads),
                Cell::Bool(a.schedulable),
            ]
        })
        .collect()
}
