//! `measure` results: one row per measured CPU (the `cpus` array; a result without it
//! gives one row from `total` with a null `cpu`).

use super::fields::{doc, item, Field};
use crate::table::ColumnType::{Float, Int, Text};
use serde_json::Value;

pub const FIELDS: &[Field] = &[
    item("cpu", Int),
    item("count", Int),
    item("min_ns", Float),
    item("mean_ns", Float),
    item("stdev_ns", Float),
    item("p50_ns", Float),
    item("p90_ns", Float),
    item("p99_ns", Float),
    item("p999_ns", Float),
    item("p9999_ns", Float),
    item("max_ns", Float),
    item("overruns", Int),
    item("wakes", Int),
    item("dropped_samples", Int),
    doc("policy", Text, "/settings/policy"),
    doc("priority", Int, "/settings/priority"),
    doc("interval_ns", Float, "/settings/interval_ns"),
    doc("duration_ns", Float, "/settings/duration_ns"),
    doc("elapsed_ns", Float, "/elapsed_ns"),
    doc("started_unix_s", Float, "/started_unix_s"),
    doc(
        "interrupted",
        crate::table::ColumnType::Bool,
        "/interrupted",
    ),
];

pub fn items(doc: &Value) -> Vec<&Value> {
    match doc.get("cpus").and_then(Value::as_array) {
        Some(c) if !c.is_empty() => c.iter().collect(),
        _ => doc.get("total").into_iter().collect(),
    }
}
