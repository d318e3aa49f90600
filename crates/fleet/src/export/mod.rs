//! Columnar export: latscope results as one flat table (rows and columns: docs/export.md).
//!
//! * `measure`: one row per run and CPU;
//! * `trace`: one row per run and measurement;
//! * `analyze`, `simulate`: one row per run and task;
//! * sweep files (CSV or Parquet written by `latscope sweep`): their rows, concatenated in
//!   the order given (shards 1..N give the unsharded sweep).
//!
//! JSON results start with `file` (the path as given) and `run` (its position among the
//! inputs, from 0), then the kind's columns, then one text column per label key found in
//! any input's top-level `labels` object (sorted; null where a run lacks it; a key that
//! is also a column name becomes `label_<key>`). All inputs must be of one kind.

mod analyze;
mod fields;
mod measure;
mod simulate;
mod trace;

use crate::table::{Cell, ColumnType, Table};
use fields::Field;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// An input that cannot be exported; names the file.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {what}")]
pub struct ExportError {
    pub file: String,
    pub what: String,
}

/// The kinds of JSON result `export` flattens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    Measure,
    Trace,
    Analyze,
    Simulate,
}

impl ResultKind {
    pub fn name(self) -> &'static str {
        match self {
            ResultKind::Measure => "measure",
            ResultKind::Trace => "trace",
            ResultKind::Analyze => "analyze",
            ResultKind::Simulate => "simulate",
        }
    }

    fn fields(self) -> &'static [Field] {
        match self {
            ResultKind::Measure => measure::FIELDS,
            ResultKind::Trace => trace::FIELDS,
            ResultKind::Analyze => analyze::FIELDS,
            ResultKind::Simulate => simulate::FIELDS,
        }
    }

    fn items(self, doc: &Value) -> Vec<&Value> {
        match self {
            ResultKind::Measure => measure::items(doc),
            ResultKind::Trace => trace::items(doc),
            ResultKind::Analyze => analyze::items(doc),
            ResultKind::Simulate => simulate::items(doc),
        }
    }

    /// The columns of this kind (without `file`, `run` and the labels).
    pub fn columns(self) -> Vec<(&'static str, ColumnType)> {
        self.fields().iter().map(|f| (f.name, f.ty)).collect()
    }
}

/// One input file.
#[derive(Debug, Clone)]
pub enum Input {
    Json {
        file: String,
        kind: ResultKind,
        doc: Value,
    },
    Sweep {
        file: String,
        table: Table,
    },
}

impl Input {
    fn file(&self) -> &str {
        match self {
            Input::Json { file, .. } | Input::Sweep { file, .. } => file,
        }
    }
    fn kind_name(&self) -> &'static str {
        match self {
            Input::Json { kind, .. } => kind.name(),
            Input::Sweep { .. } => "sweep",
        }
    }
}

/// Reads an input: a sweep file (Parquet, or CSV starting with the sweep's header), or
/// the JSON of measure, trace, analyze or simulate.
pub fn load(path: &Path) -> Result<Input, ExportError> {
    let file = path.display().to_string();
    let err = |what: String| ExportError {
        file: file.clone(),
        what,
    };
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    if bytes.starts_with(b"PAR1") || crate::sweep::is_sweep_csv(&head) {
        let table = crate::sweep::read(path).map_err(|e| err(e.what))?;
        return Ok(Input::Sweep { file, table });
    }
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| {
        err(format!(
            "not a latscope result (JSON of measure, trace, analyze or simulate) nor a sweep \
             file: {e}"
        ))
    })?;
    let kind = match doc.get("kind").and_then(Value::as_str) {
        Some("measure") => ResultKind::Measure,
        Some("trace") => ResultKind::Trace,
        Some("analyze") => ResultKind::Analyze,
        Some("simulate") => ResultKind::Simulate,
        Some(other) => {
            return Err(err(format!(
                "results of kind {other:?} are not exported (measure, trace, analyze, simulate \
                 and sweep files are)"
            )))
        }
        None => return Err(err("no \"kind\": not a latscope result".into())),
    };
    Ok(Input::Json { file, kind, doc })
}

/// The label keys of a result (its top-level `labels` object).
fn label_pairs(doc: &Value) -> Vec<(String, Option<String>)> {
    doc.get("labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        other => Some(other.to_string()),
                    };
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The inputs as one table. Inputs must all be of one kind.
pub fn table(inputs: &[Input]) -> Result<Table, ExportError> {
    let first = inputs.first().ok_or_else(|| ExportError {
        file: String::new(),
        what: "no inputs".into(),
    })?;
    if let Some(other) = inputs.iter().find(|i| i.kind_name() != first.kind_name()) {
        return Err(ExportError {
            file: other.file().to_string(),
            what: format!(
                "a {} result among {} results ({}); export one kind at a time",
                other.kind_name(),
                first.kind_name(),
                first.file()
            ),
        });
    }
    if let Input::Sweep { table, .. } = first {
        let mut out = table.empty_like();
        for i in inputs {
            if let Input::Sweep { file, table } = i {
                out.append(table).map_err(|e| ExportError {
                    file: file.clone(),
                    what: format!("its columns differ from {}: {e}", first.file()),
                })?;
            }
        }
        return Ok(out);
    }
    let Input::Json { kind, .. } = first else {
        return Ok(Table::default());
    };
    let kind = *kind;
    let fields = kind.fields();
    let keys: BTreeSet<String> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Json { doc, .. } => Some(label_pairs(doc)),
            Input::Sweep { .. } => None,
        })
        .flatten()
        .map(|(k, _)| k)
        .collect();
    let mut names: Vec<(String, ColumnType)> = vec![
        ("file".into(), ColumnType::Text),
        ("run".into(), ColumnType::Int),
    ];
    names.extend(kind.columns().iter().map(|(n, t)| (n.to_string(), *t)));
    let label_cols: Vec<String> = keys
        .iter()
        .map(|k| {
            if names.iter().any(|(n, _)| n == k) {
                format!("label_{k}")
            } else {
                k.clone()
            }
        })
        .collect();
    names.extend(label_cols.iter().map(|n| (n.clone(), ColumnType::Text)));
    let schema: Vec<(&str, ColumnType)> = names.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let mut out = Table::new(&schema);
    for (run, input) in inputs.iter().enumerate() {
        let Input::Json { file, doc, .. } = input else {
            continue;
        };
        let labels = label_pairs(doc);
        for (row, item) in kind.items(doc).into_iter().enumerate() {
            let mut cells = vec![Cell::Text(file.clone()), Cell::Int(run as i64)];
            for f in fields {
                cells.push(fields::cell(f, doc, item).map_err(|what| ExportError {
                    file: file.clone(),
                    what: format!("row {row}: {what}"),
                })?);
            }
            for k in &keys {
                cells.push(
                    labels
                        .iter()
                        .find(|(l, _)| l == k)
                        .and_then(|(_, v)| v.clone())
                        .into(),
                );
            }
            out.push_row(cells).map_err(|e| ExportError {
                file: file.clone(),
                what: e.to_string(),
            })?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(file: &str, doc: Value) -> Input {
        let kind = match doc["kind"].as_str().unwrap() {
            "measure" => ResultKind::Measure,
            "analyze" => ResultKind::Analyze,
            _ => ResultKind::Simulate,
        };
        Input::Json {
            file: file.into(),
            kind,
            doc,
        }
    }

    #[test]
    fn measure_rows_per_cpu_with_label_columns() {
        let a = json!({"kind":"measure","settings":{"policy":"fifo","interval_ns":1000000},
            "labels":{"host":"a","board":"rpi4"},
            "cpus":[{"cpu":0,"count":10,"min_ns":5,"p50_ns":7,"p99_ns":9,"max_ns":12,"overruns":1},
                    {"cpu":1,"count":20,"min_ns":4,"p50_ns":6,"p99_ns":8,"max_ns":30,"overruns":0}]});
        let b = json!({"kind":"measure","labels":{"host":"b","cpu":"x"},
            "total":{"count":5,"min_ns":1,"max_ns":2,"overruns":0}});
        let t = table(&[input("a.json", a), input("b.json", b)]).unwrap();
        assert_eq!(t.rows(), 3);
        let names = t.names();
        for c in [
            "cpu",
            "count",
            "min_ns",
            "p50_ns",
            "p99_ns",
            "max_ns",
            "overruns",
            "board",
            "host",
            "label_cpu",
        ] {
            assert!(names.contains(&c), "{c}: {names:?}");
        }
        assert_eq!(t.column("count").unwrap().text_at(1), "20");
        assert_eq!(t.column("run").unwrap().text_at(2), "1");
        assert_eq!(t.column("cpu").unwrap().text_at(2), "");
        assert_eq!(t.column("board").unwrap().text_at(2), "");
        assert_eq!(t.column("host").unwrap().text_at(2), "b");
        assert_eq!(t.column("policy").unwrap().text_at(0), "fifo");
    }

    #[test]
    fn kinds_do_not_mix_and_bad_values_name_the_member() {
        let a = json!({"kind":"analyze","tasks":[{"name":"A","priority":1,"schedulable":true}]});
        let s = json!({"kind":"simulate","tasks":[]});
        let e = table(&[input("a.json", a.clone()), input("s.json", s)]).unwrap_err();
        assert!(
            e.to_string().contains("s.json") && e.to_string().contains("one kind"),
            "{e}"
        );
        let bad = json!({"kind":"analyze","tasks":[{"name":"A","priority":"high"}]});
        let e = table(&[input("bad.json", bad)]).unwrap_err().to_string();
        assert!(e.contains("bad.json") && e.contains("priority"), "{e}");
        assert_eq!(table(&[input("a.json", a)]).unwrap().rows(), 1);
    }
}
