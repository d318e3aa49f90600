//! `trace` results: one row per measurement (pulse, latency, period, busy, count, spec).

use super::fields::{doc, item, Field};
use crate::table::ColumnType::{Bool, Float, Int, Text};
use serde_json::Value;

pub const FIELDS: &[Field] = &[
    item("measurement", Text).key("name"),
    item("kind", Text),
    item("definition", Text),
    item("unit", Text),
    item("count", Int),
    item("min_ns", Float),
    item("mean_ns", Float),
    item("stdev_ns", Float),
    item("p50_ns", Float),
    item("p90_ns", Float),
    item("p99_ns", Float),
    item("p999_ns", Float),
    item("max_ns", Float),
    item("max_at_ns", Float),
    item("unmatched", Int),
    doc("capture", Text, "/capture/source"),
    doc("format", Text, "/capture/format"),
    doc("capture_duration_ns", Float, "/capture/duration_ns"),
    doc("pass", Bool, "/pass"),
];

pub fn items(doc: &Value) -> Vec<&Value> {
    doc.get("measurements")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}
