//! `simulate` results: one row per task.

use super::fields::{doc, item, Field};
use crate::table::ColumnType::{Float, Int, Text};
use serde_json::Value;

pub const FIELDS: &[Field] = &[
    item("task", Text).key("name"),
    item("priority", Int),
    item("jobs", Int),
    item("released", Int),
    item("deadline_ns", Float),
    item("deadline_misses", Int),
    item("max_response_ns", Float),
    doc_item("response_mean_ns", "/response/mean_ns"),
    doc_item("response_p50_ns", "/response/p50_ns"),
    doc_item("response_p99_ns", "/response/p99_ns"),
    item("preemptions", Int),
    item("overruns", Int),
    item("cpu_ns", Float),
    doc("source", Text, "/source"),
    doc("kernel", Text, "/kernel"),
    doc("seed", Int, "/seed"),
    doc("duration_ns", Float, "/duration_ns"),
];

/// A number inside the task's own object, by JSON pointer.
const fn doc_item(name: &'static str, pointer: &'static str) -> Field {
    Field {
        name,
        ty: Float,
        from: super::fields::From::ItemPointer,
        key: pointer,
    }
}

pub fn items(doc: &Value) -> Vec<&Value> {
    doc.get("tasks")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}
