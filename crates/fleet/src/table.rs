//! A flat table of typed, nullable columns: what the sweep produces and what `export`
//! builds from results, written as CSV or Parquet by the format modules.

/// The values of one column. Every column of a table has the same length.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
    Text(Vec<Option<String>>),
}

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int,
    Float,
    Bool,
    Text,
}

impl ColumnType {
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Int => "integer",
            ColumnType::Float => "float",
            ColumnType::Bool => "boolean",
            ColumnType::Text => "text",
        }
    }

    fn empty(self) -> Values {
        match self {
            ColumnType::Int => Values::Int(Vec::new()),
            ColumnType::Float => Values::Float(Vec::new()),
            ColumnType::Bool => Values::Bool(Vec::new()),
            ColumnType::Text => Values::Text(Vec::new()),
        }
    }
}

/// One cell, for building tables row by row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl From<Option<i64>> for Cell {
    fn from(v: Option<i64>) -> Cell {
        v.map_or(Cell::Null, Cell::Int)
    }
}

impl From<Option<f64>> for Cell {
    fn from(v: Option<f64>) -> Cell {
        v.map_or(Cell::Null, Cell::Float)
    }
}

impl From<Option<String>> for Cell {
    fn from(v: Option<String>) -> Cell {
        v.map_or(Cell::Null, Cell::Text)
    }
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn column_type(&self) -> ColumnType {
        match self {
            Values::Int(_) => ColumnType::Int,
            Values::Float(_) => ColumnType::Float,
            Values::Bool(_) => ColumnType::Bool,
            Values::Text(_) => ColumnType::Text,
        }
    }

    /// The cell at `row`, as text for CSV (empty for null). Floats use Rust's shortest
    /// representation that reads back to the same value, so the text is deterministic.
    pub fn text_at(&self, row: usize) -> String {
        match self {
            Values::Int(v) => v[row].map(|x| x.to_string()),
            Values::Float(v) => v[row].map(|x| x.to_string()),
            Values::Bool(v) => v[row].map(|x| x.to_string()),
            Values::Text(v) => v[row].clone(),
        }
        .unwrap_or_default()
    }

    /// The cell at `row`.
    pub fn cell(&self, row: usize) -> Cell {
        match self {
            Values::Int(v) => v[row].into(),
            Values::Float(v) => v[row].into(),
            Values::Bool(v) => v[row].map_or(Cell::Null, Cell::Bool),
            Values::Text(v) => v[row].clone().into(),
        }
    }

    fn push(&mut self, cell: Cell) -> Result<(), Cell> {
        match (self, cell) {
            (Values::Int(v), Cell::Null) => v.push(None),
            (Values::Float(v), Cell::Null) => v.push(None),
            (Values::Bool(v), Cell::Null) => v.push(None),
            (Values::Text(v), Cell::Null) => v.push(None),
            (Values::Int(v), Cell::Int(x)) => v.push(Some(x)),
            (Values::Float(v), Cell::Float(x)) => v.push(Some(x)),
            (Values::Float(v), Cell::Int(x)) => v.push(Some(x as f64)),
            (Values::Bool(v), Cell::Bool(x)) => v.push(Some(x)),
            (Values::Text(v), Cell::Text(x)) => v.push(Some(x)),
            (_, other) => return Err(other),
        }
        Ok(())
    }

    fn extend_from(&mut self, other: &Values) -> bool {
        match (self, other) {
            (Values::Int(a), Values::Int(b)) => a.extend_from_slice(b),
            (Values::Float(a), Values::Float(b)) => a.extend_from_slice(b),
            (Values::Bool(a), Values::Bool(b)) => a.extend_from_slice(b),
            (Values::Text(a), Values::Text(b)) => a.extend_from_slice(b),
            _ => return false,
        }
        true
    }

    fn drain_front(&mut self, n: usize) -> Values {
        match self {
            Values::Int(v) => Values::Int(v.drain(..n).collect()),
            Values::Float(v) => Values::Float(v.drain(..n).collect()),
            Values::Bool(v) => Values::Bool(v.drain(..n).collect()),
            Values::Text(v) => Values::Text(v.drain(..n).collect()),
        }
    }
}

/// A named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub values: Values,
}

/// Columns of equal length.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub columns: Vec<Column>,
}

/// Rows that do not fit the table's columns.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TableError {
    #[error("a row has {got} cells for {want} columns")]
    Width { got: usize, want: usize },
    #[error("column {column:?} holds {want} values, not {got:?}")]
    Type {
        column: String,
        want: &'static str,
        got: Cell,
    },
    #[error("the columns differ: {0}")]
    Schema(String),
}

impl Table {
    /// An empty table with these columns.
    pub fn new(schema: &[(&str, ColumnType)]) -> Table {
        Table {
            columns: schema
                .iter()
                .map(|(n, t)| Column {
                    name: n.to_string(),
                    values: t.empty(),
                })
                .collect(),
        }
    }

    /// The same columns, no rows.
    pub fn empty_like(&self) -> Table {
        Table {
            columns: self
                .columns
                .iter()
                .map(|c| Column {
                    name: c.name.clone(),
                    values: c.values.column_type().empty(),
                })
                .collect(),
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }

    pub fn column(&self, name: &str) -> Option<&Values> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.values)
    }

    /// Appends one row; an integer fills a float column, anything else must match.
    pub fn push_row(&mut self, row: Vec<Cell>) -> Result<(), TableError> {
        if row.len() != self.columns.len() {
            return Err(TableError::Width {
                got: row.len(),
                want: self.columns.len(),
            });
        }
        for (c, cell) in self.columns.iter_mut().zip(row) {
            c.values.push(cell).map_err(|got| TableError::Type {
                column: c.name.clone(),
                want: c.values.column_type().name(),
                got,
            })?;
        }
        Ok(())
    }

    /// Appends the rows of a table with the same columns (names and types).
    pub fn append(&mut self, other: &Table) -> Result<(), TableError> {
        if !self.same_schema(other) {
            return Err(TableError::Schema(format!(
                "[{}] and [{}]",
                self.describe(),
                other.describe()
            )));
        }
        for (a, b) in self.columns.iter_mut().zip(&other.columns) {
            a.values.extend_from(&b.values);
        }
        Ok(())
    }

    /// Removes and returns the first `n` rows.
    pub fn take_front(&mut self, n: usize) -> Table {
        let n = n.min(self.rows());
        Table {
            columns: self
                .columns
                .iter_mut()
                .map(|c| Column {
                    name: c.name.clone(),
                    values: c.values.drain_front(n),
                })
                .collect(),
        }
    }

    pub fn same_schema(&self, other: &Table) -> bool {
        self.columns.len() == other.columns.len()
            && self
                .columns
                .iter()
                .zip(&other.columns)
                .all(|(a, b)| a.name == b.name && a.values.column_type() == b.values.column_type())
    }

    /// `name:type, …`
    pub fn describe(&self) -> String {
        self.columns
            .iter()
            .map(|c| format!("{}:{}", c.name, c.values.column_type().name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_checked_and_appended() {
        let mut t = Table::new(&[("a", ColumnType::Int), ("b", ColumnType::Float)]);
        t.push_row(vec![Cell::Int(1), Cell::Int(2)]).unwrap();
        t.push_row(vec![Cell::Null, Cell::Float(0.5)]).unwrap();
        assert_eq!(t.rows(), 2);
        assert_eq!(t.column("b").unwrap().text_at(0), "2");
        assert_eq!(t.column("a").unwrap().text_at(1), "");
        assert!(matches!(
            t.push_row(vec![Cell::Float(1.0), Cell::Null]),
            Err(TableError::Type { .. })
        ));
        assert!(matches!(
            t.push_row(vec![Cell::Null]),
            Err(TableError::Width { got: 1, want: 2 })
        ));
        let mut u = t.empty_like();
        u.append(&t).unwrap();
        u.append(&t).unwrap();
        assert_eq!(u.rows(), 4);
        let front = u.take_front(3);
        assert_eq!((front.rows(), u.rows()), (3, 1));
        let other = Table::new(&[("a", ColumnType::Int)]);
        assert!(u.append(&other).is_err());
    }
}
