//! `analyze` results: one row per task in the reported tick mode.

use super::fields::{doc, item, Field};
use crate::table::ColumnType::{Bool, Float, Int, Text};
use serde_json::Value;

pub const FIELDS: &[Field] = &[
    item("task", Text).key("name"),
    item("priority", Int),
    item("period_ns", Float),
    item("deadline_ns", Float),
    item("wcrt_ns", Float),
    item("slack_ns", Float),
    item("schedulable", Bool),
    item("blocking_ns", Float),
    item("jobs_examined", Int),
    doc("source", Text, "/source"),
    doc("model", Text, "/model"),
    doc("tick_mode", Text, "/tick_mode"),
    doc("overheads", Bool, "/overheads"),
    doc("set_schedulable", Bool, "/schedulable"),
];

pub fn items(doc: &Value) -> Vec<&Value> {
    doc.get("tasks")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}
