//! Parquet output and input of a [`Table`] with the `parquet` crate's low-level column
//! writer (no Arrow): every column OPTIONAL (nulls allowed), integers INT64, floats
//! DOUBLE, booleans BOOLEAN, text BYTE_ARRAY annotated as UTF-8 strings; Snappy pages.
//!
//! Rows are cut into row groups of [`ROW_GROUP_ROWS`] counted from the start of the file,
//! so the same rows give the same bytes however they were pushed (a sweep written at once
//! and its shards concatenated by `latscope export` are identical files).

use crate::table::{Column, ColumnType, Table, Values};
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Rows per row group.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// A Parquet file that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ParquetError {
    #[error("{0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("{0}")]
    Table(#[from] crate::table::TableError),
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: column {column:?} has a Parquet type latscope does not read ({ty})")]
    Unsupported {
        path: String,
        column: String,
        ty: String,
    },
    #[error("{path}: row {row}, column {column:?}: {what}")]
    Cell {
        path: String,
        row: usize,
        column: String,
        what: String,
    },
}

fn schema_of(t: &Table) -> Result<Arc<Type>, ParquetError> {
    let mut fields = Vec::with_capacity(t.columns.len());
    for c in &t.columns {
        let (phys, logical) = match c.values.column_type() {
            ColumnType::Int => (Physical::INT64, None),
            ColumnType::Float => (Physical::DOUBLE, None),
            ColumnType::Bool => (Physical::BOOLEAN, None),
            ColumnType::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        };
        fields.push(Arc::new(
            Type::primitive_type_builder(&c.name, phys)
                .with_repetition(Repetition::OPTIONAL)
                .with_logical_type(logical)
                .build()?,
        ));
    }
    Ok(Arc::new(
        Type::group_type_builder("latscope")
            .with_fields(fields)
            .build()?,
    ))
}

/// Streams tables with one schema into a Parquet file.
pub struct ParquetSink<W: Write + Send> {
    writer: SerializedFileWriter<W>,
    pending: Table,
}

impl<W: Write + Send> ParquetSink<W> {
    /// A file whose columns are those of `schema` (its rows are not written).
    pub fn new(out: W, schema: &Table) -> Result<Self, ParquetError> {
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("latscope {}", env!("CARGO_PKG_VERSION")))
            .set_max_row_group_size(ROW_GROUP_ROWS)
            .build();
        Ok(ParquetSink {
            writer: SerializedFileWriter::new(out, schema_of(schema)?, Arc::new(props))?,
            pending: schema.empty_like(),
        })
    }

    /// Appends rows; full row groups are written out.
    pub fn push(&mut self, rows: &Table) -> Result<(), ParquetError> {
        self.pending.append(rows)?;
        while self.pending.rows() >= ROW_GROUP_ROWS {
            let group = self.pending.take_front(ROW_GROUP_ROWS);
            self.write_group(&group)?;
        }
        Ok(())
    }

    fn write_group(&mut self, t: &Table) -> Result<(), ParquetError> {
        let mut rg = self.writer.next_row_group()?;
        let mut cols = t.columns.iter();
        while let Some(mut cw) = rg.next_column()? {
            let Some(Column { values, .. }) = cols.next() else {
                break;
            };
            fn split<T: Clone, U>(v: &[Option<T>], f: impl Fn(&T) -> U) -> (Vec<U>, Vec<i16>) {
                let def = v.iter().map(|x| i16::from(x.is_some())).collect();
                (v.iter().flatten().map(f).collect(), def)
            }
            match values {
                Values::Int(v) => {
                    let (vals, def) = split(v, |x| *x);
                    cw.typed::<Int64Type>()
                        .write_batch(&vals, Some(&def), None)?;
                }
                Values::Float(v) => {
                    let (vals, def) = split(v, |x| *x);
                    cw.typed::<DoubleType>()
                        .write_batch(&vals, Some(&def), None)?;
                }
                Values::Bool(v) => {
                    let (vals, def) = split(v, |x| *x);
                    cw.typed::<BoolType>()
                        .write_batch(&vals, Some(&def), None)?;
                }
                Values::Text(v) => {
                    let (vals, def) = split(v, |x| ByteArray::from(x.as_str()));
                    cw.typed::<ByteArrayType>()
                        .write_batch(&vals, Some(&def), None)?;
                }
            }
            cw.close()?;
        }
        rg.close()?;
        Ok(())
    }

    /// Writes the last row group and the footer.
    pub fn finish(mut self) -> Result<W, ParquetError> {
        if self.pending.rows() > 0 {
            let group = self.pending.take_front(usize::MAX);
            self.write_group(&group)?;
        }
        Ok(self.writer.into_inner()?)
    }
}

/// Reads a Parquet file written by latscope (or any flat file of INT64/INT32, DOUBLE/FLOAT,
/// BOOLEAN and string columns) into a table.
pub fn read(path: &Path) -> Result<Table, ParquetError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| ParquetError::Io {
        path: name.clone(),
        source,
    })?;
    let reader = SerializedFileReader::new(file)?;
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    let mut schema = Vec::new();
    for c in descr.columns() {
        let ty = match (c.physical_type(), c.logical_type_ref()) {
            (Physical::INT64 | Physical::INT32, _) => ColumnType::Int,
            (Physical::DOUBLE | Physical::FLOAT, _) => ColumnType::Float,
            (Physical::BOOLEAN, _) => ColumnType::Bool,
            (Physical::BYTE_ARRAY, Some(LogicalType::String)) => ColumnType::Text,
            (p, l) => {
                return Err(ParquetError::Unsupported {
                    path: name,
                    column: c.name().to_string(),
                    ty: format!("{p:?} {l:?}"),
                })
            }
        };
        schema.push((c.name().to_string(), ty));
    }
    let names: Vec<(&str, ColumnType)> = schema.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let mut table = Table::new(&names);
    for (r, row) in reader.get_row_iter(None)?.enumerate() {
        let row = row?;
        let mut cells = Vec::with_capacity(names.len());
        for (i, (col, field)) in row.get_column_iter().enumerate() {
            use crate::table::Cell;
            let cell = match field {
                Field::Null => Cell::Null,
                Field::Long(x) => Cell::Int(*x),
                Field::Int(x) => Cell::Int(i64::from(*x)),
                Field::Double(x) => Cell::Float(*x),
                Field::Float(x) => Cell::Float(f64::from(*x)),
                Field::Bool(x) => Cell::Bool(*x),
                Field::Str(s) => Cell::Text(s.clone()),
                other => {
                    return Err(ParquetError::Cell {
                        path: name,
                        row: r,
                        column: col.clone(),
                        what: format!("unsupported value {other}"),
                    })
                }
            };
            let _ = i;
            cells.push(cell);
        }
        table.push_row(cells).map_err(|e| ParquetError::Cell {
            path: name.clone(),
            row: r,
            column: String::new(),
            what: e.to_string(),
        })?;
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Cell;

    fn sample(n: usize) -> Table {
        let mut t = Table::new(&[
            ("i", ColumnType::Int),
            ("f", ColumnType::Float),
            ("b", ColumnType::Bool),
            ("s", ColumnType::Text),
        ]);
        for k in 0..n {
            t.push_row(vec![
                Cell::Int(k as i64),
                if k % 3 == 0 {
                    Cell::Null
                } else {
                    Cell::Float(k as f64 / 7.0)
                },
                Cell::Bool(k % 2 == 0),
                Cell::Text(format!("row {k}")),
            ])
            .unwrap();
        }
        t
    }

    #[test]
    fn round_trips_and_is_independent_of_push_sizes() {
        let t = sample(1000);
        let mut a = ParquetSink::new(Vec::new(), &t).unwrap();
        a.push(&t).unwrap();
        let a = a.finish().unwrap();
        let mut b = ParquetSink::new(Vec::new(), &t).unwrap();
        let mut rest = t.clone();
        while rest.rows() > 0 {
            b.push(&rest.take_front(77)).unwrap();
        }
        assert_eq!(a, b.finish().unwrap());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.parquet");
        std::fs::write(&p, &a).unwrap();
        assert_eq!(read(&p).unwrap(), t);
    }

    #[test]
    fn not_parquet_is_an_error_naming_nothing_false() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.parquet");
        std::fs::write(&p, b"a,b\n1,2\n").unwrap();
        assert!(read(&p).is_err());
        assert!(read(&dir.path().join("missing.parquet"))
            .unwrap_err()
            .to_string()
            .contains("missing.parquet"));
    }
}
