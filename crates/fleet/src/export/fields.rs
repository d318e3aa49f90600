//! Reading cells out of a result's JSON leniently: a missing or null member is a null
//! cell, a value of the wrong type is an error naming the member.

use crate::table::{Cell, ColumnType};
use serde_json::Value;

/// How one column is read from a row's JSON object (`item`) or the result (`doc`).
pub struct Field {
    pub name: &'static str,
    pub ty: ColumnType,
    pub from: From,
    /// The member's key (defaults to the column name).
    pub key: &'static str,
}

/// Where a column's value lives.
#[derive(Clone, Copy)]
pub enum From {
    /// The row's own object (a CPU, a task, a measurement).
    Item,
    /// A member of the result, by JSON pointer (`/settings/interval_ns`).
    Doc,
    /// A member inside the row's own object, by JSON pointer (`/response/p99_ns`).
    ItemPointer,
}

impl Field {
    /// The same column read from another key of the row's object.
    pub const fn key(self, key: &'static str) -> Field {
        Field { key, ..self }
    }
}

pub const fn item(name: &'static str, ty: ColumnType) -> Field {
    Field {
        name,
        ty,
        from: From::Item,
        key: name,
    }
}

pub const fn doc(name: &'static str, ty: ColumnType, pointer: &'static str) -> Field {
    Field {
        name,
        ty,
        from: From::Doc,
        key: pointer,
    }
}

/// The cell of `f`, or what is wrong with the value.
pub fn cell(f: &Field, doc: &Value, item: &Value) -> Result<Cell, String> {
    let v = match f.from {
        From::Item => item.get(f.key),
        From::Doc => doc.pointer(f.key),
        From::ItemPointer => item.pointer(f.key),
    };
    let v = match v {
        None | Some(Value::Null) => return Ok(Cell::Null),
        Some(v) => v,
    };
    let wrong = |want: &str| {
        let at = match f.from {
            From::Item => f.key.to_string(),
            From::Doc | From::ItemPointer => f.key.trim_start_matches('/').replace('/', "."),
        };
        format!("{at}: {v} is not {want}")
    };
    Ok(match f.ty {
        ColumnType::Int => match (v.as_i64(), v.as_f64()) {
            (Some(x), _) => Cell::Int(x),
            (None, Some(x)) if x.fract() == 0.0 && x.abs() < 9.0e15 => Cell::Int(x as i64),
            _ => return Err(wrong("an integer")),
        },
        ColumnType::Float => Cell::Float(v.as_f64().ok_or_else(|| wrong("a number"))?),
        ColumnType::Bool => Cell::Bool(v.as_bool().ok_or_else(|| wrong("true or false"))?),
        ColumnType::Text => match v {
            Value::String(s) => Cell::Text(s.clone()),
            Value::Number(n) => Cell::Text(n.to_string()),
            Value::Bool(b) => Cell::Text(b.to_string()),
            _ => return Err(wrong("text")),
        },
    })
}
