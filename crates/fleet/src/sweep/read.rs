//! Reading a sweep's output back (for `report` and `export`): Parquet, or CSV with or
//! without its header line (a shard after the first has none).

use super::{schema, COLUMNS};
use crate::table::{ColumnType, Table};
use std::path::Path;

/// A sweep file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {what}")]
pub struct ReadError {
    pub path: String,
    pub what: String,
}

/// Whether the text starts like a sweep CSV (its header line).
pub fn is_sweep_csv(head: &str) -> bool {
    let want: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
    head.lines().next().is_some_and(|l| {
        l.trim_end()
            .split(',')
            .take(want.len())
            .eq(want.iter().copied())
    })
}

/// Reads a sweep file (`.parquet` by extension or magic number, else CSV).
pub fn read(path: &Path) -> Result<Table, ReadError> {
    let err = |what: String| ReadError {
        path: path.display().to_string(),
        what,
    };
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let table = if bytes.starts_with(b"PAR1") {
        crate::parquet_file::read(path).map_err(|e| err(e.to_string()))?
    } else {
        let text = std::str::from_utf8(&bytes[..bytes.len().min(4096)]).unwrap_or("");
        let first = text.lines().next().unwrap_or("");
        let mut labels = Vec::new();
        if is_sweep_csv(text) {
            labels = first
                .trim_end()
                .split(',')
                .skip(COLUMNS.len())
                .map(|k| (k.to_string(), String::new()))
                .collect();
        } else if !first.contains(',') && !bytes.is_empty() {
            return Err(err(
                "neither a Parquet file nor a sweep CSV (no header line, no comma-separated \
                 values)"
                    .into(),
            ));
        }
        crate::csv_file::read(path, &schema(&labels)).map_err(|e| {
            err(format!(
                "{e} (a sweep CSV: a shard without the header line only reads after shard 1, \
                 concatenated)"
            ))
        })?
    };
    for (name, ty) in COLUMNS {
        match table.column(name) {
            Some(v)
                if v.column_type() == ty
                    || (ty == ColumnType::Float && v.column_type() == ColumnType::Int) => {}
            Some(v) => {
                return Err(err(format!(
                    "column {name:?} is {}, a sweep has {}",
                    v.column_type().name(),
                    ty.name()
                )))
            }
            None => {
                return Err(err(format!(
                    "no column {name:?}: not the output of `latscope sweep` (it has {})",
                    table.describe()
                )))
            }
        }
    }
    Ok(table)
}
