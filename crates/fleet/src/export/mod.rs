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
mod measure;
mod simulate;
mod trace;

use crate::table::{Cell, ColumnType, Table};
use latscope_results::Document;
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

    /// The columns of this kind (without `file`, `run` and the labels).
    pub fn columns(self) -> Vec<(&'static str, ColumnType)> {
        match self {
            ResultKind::Measure => measure::COLUMNS,
            ResultKind::Trace => trace::COLUMNS,
            ResultKind::Analyze => analyze::COLUMNS,
            ResultKind::Simulate => simulate::COLUMNS,
        }
        .to_vec()
    }
}

/// A count as an integer cell (null past `i64::MAX`, which no real count reaches).
fn int(x: u64) -> Cell {
    i64::try_from(x).map_or(Cell::Null, Cell::Int)
}

/// One input file.
#[derive(Debug, Clone)]
pub enum Input {
    Json {
        file: String,
        kind: ResultKind,
        doc: Document,
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

/// A result document of a kind `export` does not flatten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "results of kind {0:?} are not exported (measure, trace, analyze, simulate \
     and sweep files are)"
)]
pub struct NotExported(pub &'static str);

/// The kind of a result document `export` flattens, or why it does not.
fn kind_of(doc: &Document) -> Result<ResultKind, NotExported> {
    Ok(match doc {
        Document::Measure(_) => ResultKind::Measure,
        Document::Trace(_) => ResultKind::Trace,
        Document::Analyze(_) => ResultKind::Analyze,
        Document::Simulate(_) => ResultKind::Simulate,
        other => return Err(NotExported(other.kind())),
    })
}

/// The rows of a result, in its kind's column order.
fn rows(doc: &Document) -> Vec<Vec<Cell>> {
    match doc {
        Document::Measure(d) => measure::rows(d),
        Document::Trace(d) => trace::rows(d),
        Document::Analyze(d) => analyze::rows(d),
        Document::Simulate(d) => simulate::rows(d),
        _ => Vec::new(),
    }
}

/// Reads an input: a sweep file (Parquet, or CSV starting with the sweep's header), or
/// the JSON of measure, trace, analyze or simulate, read into its typed document.
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
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        err(format!(
            "not a latscope result (JSON of measure, trace, analyze or simulate) nor a sweep \
             file: not UTF-8 text ({e})"
        ))
    })?;
    json_input(&file, text)
}

/// A JSON result given as text (`file` names it in errors).
pub fn json_input(file: &str, text: &str) -> Result<Input, ExportError> {
    let err = |what: String| ExportError {
        file: file.to_string(),
        what,
    };
    let doc = Document::from_json(text).map_err(|e| match e {
        latscope_results::DocumentError::Invalid {
            kind: "JSON",
            source,
        } => err(format!(
            "not a latscope result (JSON of measure, trace, analyze or simulate) nor a sweep \
             file: {source}"
        )),
        latscope_results::DocumentError::MissingKind => {
            err("no \"kind\": not a latscope result".into())
        }
        latscope_results::DocumentError::UnknownKind(k) => err(format!(
            "results of kind {k} are not exported (measure, trace, analyze, simulate and \
             sweep files are)"
        )),
        other => err(other.to_string()),
    })?;
    let kind = kind_of(&doc).map_err(|e| err(e.to_string()))?;
    Ok(Input::Json {
        file: file.to_string(),
        kind,
        doc,
    })
}

/// The label keys and values of a result (its top-level `labels` object).
fn label_pairs(doc: &Document) -> Vec<(String, Option<String>)> {
    doc.labels()
        .0
        .into_iter()
        .map(|(k, v)| (k, Some(v)))
        .collect()
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
        for row in rows(doc) {
            let mut cells = vec![Cell::Text(file.clone()), Cell::Int(run as i64)];
            cells.extend(row);
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
    use serde_json::{json, Value};

    /// A result written by the command (tests/fixtures), changed by `edit`.
    fn fixture(name: &str, edit: impl FnOnce(&mut Value)) -> Input {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        let mut v: Value = serde_json::from_str(&text).expect("fixture is JSON");
        edit(&mut v);
        json_input(name, &v.to_string()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn measure_rows_per_cpu_with_label_columns() {
        let a = fixture("measure.json", |_| {});
        // A run without per-CPU rows gives one row from its total, with a null cpu.
        let b = fixture("measure.json", |v| {
            v["cpus"] = json!([]);
            v["labels"] = json!({"host": "b", "cpu": "x"});
        });
        let t = table(&[a, b]).unwrap();
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
        let m: Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/measure.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let want = |p: &str| {
            m.pointer(p)
                .unwrap()
                .to_string()
                .trim_matches('"')
                .to_string()
        };
        assert_eq!(t.column("count").unwrap().text_at(1), want("/cpus/1/count"));
        assert_eq!(t.column("cpu").unwrap().text_at(1), want("/cpus/1/cpu"));
        assert_eq!(t.column("count").unwrap().text_at(2), want("/total/count"));
        assert_eq!(t.column("run").unwrap().text_at(2), "1");
        assert_eq!(t.column("cpu").unwrap().text_at(2), "");
        assert_eq!(t.column("board").unwrap().text_at(2), "");
        assert_eq!(t.column("board").unwrap().text_at(0), "rpi4");
        assert_eq!(t.column("host").unwrap().text_at(2), "b");
        assert_eq!(
            t.column("policy").unwrap().text_at(0),
            want("/settings/policy")
        );
    }

    #[test]
    fn kinds_do_not_mix_and_bad_values_name_the_member() {
        let a = fixture("analyze.json", |_| {});
        let s = fixture("simulate.json", |_| {});
        let e = table(&[a.clone(), s]).unwrap_err();
        assert!(
            e.to_string().contains("simulate.json") && e.to_string().contains("one kind"),
            "{e}"
        );
        let mut v: Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/analyze.json"),
            )
            .unwrap(),
        )
        .unwrap();
        v["tasks"][0]["priority"] = json!("high");
        let e = json_input("bad.json", &v.to_string())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("bad.json: ") && e.contains("\"high\""), "{e}");
        let tasks = match &a {
            Input::Json {
                doc: Document::Analyze(d),
                ..
            } => d.analysis.tasks.len(),
            _ => 0,
        };
        assert!(tasks > 0);
        assert_eq!(table(&[a]).unwrap().rows(), tasks);
        let e = json_input("f.json", r#"{"kind":"weather"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not exported"), "{e}");
    }

    #[test]
    fn trace_and_simulate_rows_carry_their_documents_figures() {
        let t = fixture("trace.json", |_| {});
        let Input::Json {
            doc: Document::Trace(d),
            ..
        } = &t
        else {
            panic!("a trace result");
        };
        let first = &d.measurements[0];
        let tab = table(std::slice::from_ref(&t)).unwrap();
        assert_eq!(tab.rows(), d.measurements.len());
        assert_eq!(tab.column("measurement").unwrap().text_at(0), first.name);
        assert_eq!(
            tab.column("count").unwrap().text_at(0),
            first.count.to_string()
        );
        let s = fixture("simulate.json", |_| {});
        let Input::Json {
            doc: Document::Simulate(d),
            ..
        } = &s
        else {
            panic!("a simulate result");
        };
        let tab = table(std::slice::from_ref(&s)).unwrap();
        assert_eq!(tab.rows(), d.tasks.len());
        assert_eq!(
            tab.column("jobs").unwrap().text_at(1),
            d.tasks[1].jobs.to_string()
        );
    }
}
