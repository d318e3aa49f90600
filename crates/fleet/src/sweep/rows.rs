//! The sweep's columns: one row per generated set and configuration. The schema is fixed
//! (configuration axes are named in `config`, not as columns), so every shard of every
//! sweep has the same columns and a shard without a header line can still be read.

use crate::table::{Cell, ColumnType, Table};

/// Column names and types, in file order (documented in docs/sweep.md).
pub const COLUMNS: [(&str, ColumnType); 14] = [
    ("config", ColumnType::Text),
    ("config_index", ColumnType::Int),
    ("utilisation", ColumnType::Float),
    ("util_index", ColumnType::Int),
    ("set", ColumnType::Int),
    ("seed", ColumnType::Int),
    ("tasks", ColumnType::Int),
    ("total_utilisation", ColumnType::Float),
    ("schedulable", ColumnType::Bool),
    ("tasks_missing", ColumnType::Int),
    ("worst_response_ratio", ColumnType::Float),
    ("sim_duration_ns", ColumnType::Float),
    ("sim_deadline_misses", ColumnType::Int),
    ("sim_worst_response_ratio", ColumnType::Float),
];

/// An empty table with the sweep's columns, then one text column per user label
/// (`--label KEY=VALUE`; the same value on every row).
pub fn schema(labels: &[(String, String)]) -> Table {
    let mut cols: Vec<(&str, ColumnType)> = COLUMNS.to_vec();
    cols.extend(labels.iter().map(|(k, _)| (k.as_str(), ColumnType::Text)));
    Table::new(&cols)
}

/// One analysed (and perhaps simulated) set under one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRow {
    pub config: String,
    pub config_index: usize,
    /// The requested total utilisation.
    pub utilisation: f64,
    pub util_index: usize,
    pub set: usize,
    /// The seed the set was generated with (`latscope generate --seed` gives it again).
    pub seed: u64,
    pub tasks: usize,
    /// The delivered total utilisation after rounding WCETs to whole nanoseconds.
    pub total_utilisation: f64,
    pub schedulable: bool,
    /// Tasks whose WCRT exceeds the deadline or is unknown.
    pub tasks_missing: usize,
    /// Largest WCRT / deadline; `None` when any task's WCRT is unknown.
    pub worst_response_ratio: Option<f64>,
    pub sim: Option<SimFigures>,
}

/// What a bounded simulation of the set showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimFigures {
    pub duration_ns: f64,
    pub deadline_misses: u64,
    /// Largest observed response / deadline; `None` when a task completed no job.
    pub worst_response_ratio: Option<f64>,
}

fn int(v: usize) -> Cell {
    Cell::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

impl SweepRow {
    pub fn cells(&self) -> Vec<Cell> {
        vec![
            Cell::Text(self.config.clone()),
            int(self.config_index),
            Cell::Float(self.utilisation),
            int(self.util_index),
            int(self.set),
            Cell::Int(i64::try_from(self.seed).unwrap_or(i64::MAX)),
            int(self.tasks),
            Cell::Float(self.total_utilisation),
            Cell::Bool(self.schedulable),
            int(self.tasks_missing),
            self.worst_response_ratio.into(),
            self.sim.map(|s| s.duration_ns).into(),
            self.sim
                .map(|s| i64::try_from(s.deadline_misses).unwrap_or(i64::MAX))
                .into(),
            self.sim.and_then(|s| s.worst_response_ratio).into(),
        ]
    }
}

/// The rows as a table, with the label columns of [`schema`].
pub fn table(rows: &[SweepRow], labels: &[(String, String)]) -> Table {
    let mut t = schema(labels);
    for r in rows {
        let mut cells = r.cells();
        cells.extend(labels.iter().map(|(_, v)| Cell::Text(v.clone())));
        // The cells are built to the schema above: the types always match.
        if let Err(e) = t.push_row(cells) {
            debug_assert!(false, "{e}");
        }
    }
    t
}
