//! CSV output and input of a [`Table`] (the `csv` crate): a header line of column names,
//! then one line per row; null cells are empty; floats in Rust's shortest round-trip form,
//! so the text is the same on every platform.

use crate::table::{Cell, ColumnType, Table};
use std::io::Write;
use std::path::Path;

/// A CSV file that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    #[error("{0}")]
    Csv(#[from] csv::Error),
    #[error("{path}: line {line}: {what}")]
    Bad {
        path: String,
        line: u64,
        what: String,
    },
}

/// Streams tables into CSV, with or without the header line.
pub struct CsvSink<W: Write> {
    w: csv::Writer<W>,
}

impl<W: Write> CsvSink<W> {
    pub fn new(out: W, schema: &Table, header: bool) -> Result<Self, CsvError> {
        let mut w = csv::WriterBuilder::new().from_writer(out);
        if header {
            w.write_record(schema.names())?;
        }
        Ok(CsvSink { w })
    }

    pub fn push(&mut self, t: &Table) -> Result<(), CsvError> {
        for r in 0..t.rows() {
            self.w
                .write_record(t.columns.iter().map(|c| c.values.text_at(r)))?;
        }
        Ok(())
    }

    pub fn finish(self) -> Result<W, CsvError> {
        self.w
            .into_inner()
            .map_err(|e| CsvError::Csv(csv::Error::from(e.into_error())))
    }
}

/// Reads a CSV file with the columns of `schema` (names and types). The header line may be
/// missing (a shard after the first of a sharded sweep has none): a first line equal to
/// the column names is the header, anything else is data.
pub fn read(path: &Path, schema: &Table) -> Result<Table, CsvError> {
    let name = path.display().to_string();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .map_err(|e| CsvError::Bad {
            path: name.clone(),
            line: 0,
            what: e.to_string(),
        })?;
    let mut t = schema.empty_like();
    let names = schema.names();
    for (k, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| CsvError::Bad {
            path: name.clone(),
            line: e.position().map_or(k as u64 + 1, |p| p.line()),
            what: e.to_string(),
        })?;
        let line = rec.position().map_or(k as u64 + 1, |p| p.line());
        let bad = |what: String| CsvError::Bad {
            path: name.clone(),
            line,
            what,
        };
        if k == 0 && rec.iter().eq(names.iter().copied()) {
            continue;
        }
        if rec.len() != names.len() {
            return Err(bad(format!(
                "{} fields, expected {} ({})",
                rec.len(),
                names.len(),
                names.join(",")
            )));
        }
        let mut cells = Vec::with_capacity(names.len());
        for (c, field) in schema.columns.iter().zip(rec.iter()) {
            let what = |ty: &str| format!("column {:?}: {field:?} is not {ty}", c.name);
            cells.push(if field.is_empty() {
                Cell::Null
            } else {
                match c.values.column_type() {
                    ColumnType::Int => {
                        Cell::Int(field.parse().map_err(|_| bad(what("an integer")))?)
                    }
                    ColumnType::Float => {
                        Cell::Float(field.parse().map_err(|_| bad(what("a number")))?)
                    }
                    ColumnType::Bool => {
                        Cell::Bool(field.parse().map_err(|_| bad(what("true or false")))?)
                    }
                    ColumnType::Text => Cell::Text(field.to_string()),
                }
            });
        }
        t.push_row(cells).map_err(|e| bad(e.to_string()))?;
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_and_without_header() {
        let mut t = Table::new(&[
            ("a", ColumnType::Int),
            ("b", ColumnType::Float),
            ("c", ColumnType::Text),
            ("d", ColumnType::Bool),
        ]);
        t.push_row(vec![
            Cell::Int(1),
            Cell::Float(0.1),
            Cell::Text("x, y".into()),
            Cell::Bool(true),
        ])
        .unwrap();
        t.push_row(vec![
            Cell::Null,
            Cell::Float(1e-9),
            Cell::Null,
            Cell::Bool(false),
        ])
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        for header in [true, false] {
            let mut s = CsvSink::new(Vec::new(), &t, header).unwrap();
            s.push(&t).unwrap();
            let bytes = s.finish().unwrap();
            let text = String::from_utf8(bytes.clone()).unwrap();
            assert_eq!(text.starts_with("a,b,c,d\n"), header, "{text}");
            assert!(text.contains("1,0.1,\"x, y\",true\n"), "{text}");
            let p = dir.path().join("t.csv");
            std::fs::write(&p, bytes).unwrap();
            assert_eq!(read(&p, &t).unwrap(), t);
        }
    }

    #[test]
    fn bad_cells_name_file_line_and_column() {
        let t = Table::new(&[("a", ColumnType::Int), ("b", ColumnType::Float)]);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.csv");
        std::fs::write(&p, "a,b\n1,2\nx,3\n").unwrap();
        let e = read(&p, &t).unwrap_err().to_string();
        assert!(
            e.contains("bad.csv") && e.contains("line 3") && e.contains("\"a\""),
            "{e}"
        );
        std::fs::write(&p, "a,b\n1\n").unwrap();
        assert!(read(&p, &t).is_err());
    }
}
