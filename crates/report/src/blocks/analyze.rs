//! The section of a `latscope analyze` result: response times, breakdown, tick accounting
//! modes, utilisation.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self, BarRow, BarScale};
use crate::data::{self, arr, num, num_any, text, text_any, Tone};
use crate::units::{dur, int, num as fnum, pct};
use crate::ReportError;
use serde_json::Value;

/// Canonical order of response-time components; unknown ones come after, alphabetically.
pub(super) fn component_rank(name: &str) -> (usize, String) {
    let n = name.to_ascii_lowercase();
    let order = [
        "wcet",
        "own",
        "execution",
        "interference",
        "tick",
        "switch",
        "context",
        "interrupt",
        "irq",
        "blocking",
        "jitter",
        "release",
    ];
    let r = order
        .iter()
        .position(|o| n.starts_with(o))
        .unwrap_or(order.len());
    (r, n)
}

pub(super) fn analyze(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    b.facts(settings(d));
    for n in arr(d, "notes") {
        if let Some(t) = n.as_str() {
            b.note(t.to_string());
        }
    }
    if arr(d, "tasks").is_empty() {
        // Several analyses in one file and no main one: render each.
        for key in ["modes", "analyses", "tick_modes"] {
            if let Some(Value::Array(items)) = d.get(key) {
                for (i, sub) in items.iter().enumerate() {
                    let name = text_any(sub, &["name", "mode", "tick_mode"])
                        .unwrap_or_else(|| format!("#{}", i + 1));
                    b.heading(level + 1, &format!("Analysis: {name}"), None);
                    b.facts(data::scalars(sub, &[]));
                    analyze_tasks(b, sub, level + 1)?;
                }
                return Ok(());
            }
        }
    }
    analyze_tasks(b, d, level)?;
    tick_modes(b, d, level);
    Ok(())
}

/// The tasks of one analysis variant: `tick_modes.<mode>` as an array of tasks or an object
/// with `tasks`.
pub(super) fn mode_tasks(v: &Value) -> &[Value] {
    match v {
        Value::Array(a) => a.as_slice(),
        _ => arr(v, "tasks"),
    }
}

/// WCRT of each task under each tick accounting mode, with the pessimism removed.
pub(super) fn tick_modes(b: &mut Builder, d: &Value, level: u8) {
    let Some(Value::Object(modes)) = d.get("tick_modes").or_else(|| d.get("modes")) else {
        return;
    };
    if modes.is_empty() {
        return;
    }
    // Pessimistic first: it is the reference the partitioned mode improves on.
    let mut names: Vec<&String> = modes.keys().collect();
    names.sort_by_key(|n| if n.as_str() == "pessimistic" { 0 } else { 1 });
    let mut tasks: Vec<String> = Vec::new();
    for n in &names {
        for t in mode_tasks(&modes[n.as_str()]) {
            if let Some(x) = text(t, "name") {
                if !tasks.contains(&x) {
                    tasks.push(x);
                }
            }
        }
    }
    let reduction = arr(d, "pessimism_reduction");
    let mut headers = vec!["task".to_string()];
    headers.extend(names.iter().map(|n| format!("WCRT, {n}")));
    if !reduction.is_empty() {
        headers.push("reduction".into());
    }
    let rows = tasks
        .iter()
        .map(|task| {
            let mut row = vec![Cell::t(task).bold()];
            for n in &names {
                let t = mode_tasks(&modes[n.as_str()])
                    .iter()
                    .find(|t| text(t, "name").as_deref() == Some(task.as_str()));
                row.push(match t {
                    Some(t) if t.get("wcrt_ns").is_some_and(Value::is_null) => {
                        Cell::badge("unbounded", Tone::Bad)
                    }
                    Some(t) => {
                        let c = Cell::n(num(t, "wcrt_ns").map(dur).unwrap_or_else(|| "–".into()));
                        if data::flag(t, "schedulable") == Some(false) {
                            Cell::badge(c.text, Tone::Bad)
                        } else {
                            c
                        }
                    }
                    None => Cell::n("–"),
                });
            }
            if !reduction.is_empty() {
                let r = reduction
                    .iter()
                    .find(|r| text(r, "name").as_deref() == Some(task.as_str()));
                row.push(Cell::n(
                    r.and_then(|r| {
                        let ns = num(r, "reduction_ns")?;
                        Some(match num(r, "reduction_pct") {
                            Some(p) => format!("{} ({} %)", dur(ns), fnum(p, 3)),
                            None => dur(ns),
                        })
                    })
                    .unwrap_or_else(|| "–".into()),
                ));
            }
            row
        })
        .collect();
    b.heading(level + 1, "Tick accounting modes", None);
    b.note(
        "Pessimistic: every tick pays for all releases; partitioned: one pseudo-task per task \
         with that task's period (seed 001). The difference is pessimism removed.",
    );
    b.table(Table { headers, rows });
}

pub(super) fn analyze_tasks(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let tasks = arr(d, "tasks");
    if !tasks.is_empty() {
        b.heading(level + 1, "Response times", None);
        let n_ok = tasks
            .iter()
            .filter(|t| data::flag(t, "schedulable") == Some(true))
            .count();
        let (tone, msg) = if n_ok == tasks.len() {
            (Tone::Good, format!("all {} tasks schedulable", tasks.len()))
        } else {
            (
                Tone::Bad,
                format!(
                    "{} of {} tasks miss their deadline or are unbounded",
                    tasks.len() - n_ok,
                    tasks.len()
                ),
            )
        };
        b.out.push(Block::Verdict(tone, msg));
        let has = |k: &str| tasks.iter().any(|t| t.get(k).is_some());
        let opt_cols: Vec<(&str, &str)> = [
            ("period_ns", "period"),
            ("wcet_ns", "WCET"),
            ("jitter_ns", "jitter"),
            ("blocking_ns", "blocking"),
        ]
        .into_iter()
        .filter(|(k, _)| has(k))
        .collect();
        let mut headers = vec!["task".to_string(), "priority".to_string()];
        headers.extend(opt_cols.iter().map(|c| c.1.to_string()));
        let has_util = tasks
            .iter()
            .any(|t| num_any(t, &["utilisation", "utilization"]).is_some());
        headers.extend(["WCRT", "deadline", "slack"].map(String::from));
        if has_util {
            headers.push("utilisation".into());
        }
        headers.push("verdict".into());
        let rows = tasks
            .iter()
            .map(|t| {
                let mut row = vec![
                    Cell::t(text(t, "name").unwrap_or_default()).bold(),
                    Cell::n(text(t, "priority").unwrap_or_default()),
                ];
                for (k, _) in &opt_cols {
                    row.push(Cell::n(num(t, k).map(dur).unwrap_or_else(|| "–".into())));
                }
                let wcrt = num(t, "wcrt_ns");
                let dl = num(t, "deadline_ns");
                row.push(match (t.get("wcrt_ns"), wcrt) {
                    (Some(Value::Null), _) => Cell::badge("unbounded", Tone::Bad),
                    (_, Some(w)) => Cell::n(dur(w)).bold(),
                    _ => Cell::n("–"),
                });
                row.push(Cell::n(dl.map(dur).unwrap_or_else(|| "–".into())));
                let slack = num(t, "slack_ns").or(match (wcrt, dl) {
                    (Some(w), Some(d)) => Some(d - w),
                    _ => None,
                });
                row.push(Cell::n(slack.map(dur).unwrap_or_else(|| "–".into())));
                if has_util {
                    row.push(Cell::n(
                        num_any(t, &["utilisation", "utilization"])
                            .map(pct)
                            .unwrap_or_else(|| "–".into()),
                    ));
                }
                row.push(match data::flag(t, "schedulable") {
                    Some(true) => Cell::badge("schedulable", Tone::Good),
                    Some(false) => Cell::badge("misses deadline", Tone::Bad),
                    None => Cell::t("–"),
                });
                row
            })
            .collect();
        b.table(Table { headers, rows });
        breakdown(b, tasks)?;
    }
    utilisation(b, d, tasks, level)?;
    Ok(())
}

pub(super) fn breakdown(b: &mut Builder, tasks: &[Value]) -> Result<(), ReportError> {
    type TaskParts = (String, Vec<data::Part>, Option<f64>, Option<f64>);
    let per_task: Vec<TaskParts> = tasks
        .iter()
        .map(|t| {
            (
                text(t, "name").unwrap_or_default(),
                data::parts_grouped(t.get("breakdown")),
                num(t, "deadline_ns"),
                num(t, "wcrt_ns"),
            )
        })
        .filter(|t| !t.1.is_empty())
        .collect();
    if per_task.is_empty() {
        return Ok(());
    }
    let mut comps: Vec<String> = Vec::new();
    for (_, parts, _, _) in &per_task {
        for p in parts {
            if !comps.contains(&p.name) {
                comps.push(p.name.clone());
            }
        }
    }
    // Only components that add something to some task.
    comps.retain(|c| {
        per_task
            .iter()
            .any(|t| t.1.iter().any(|p| &p.name == c && p.value > 0.0))
    });
    comps.sort_by_key(|c| component_rank(c));
    let rows: Vec<BarRow> = per_task
        .iter()
        .map(|(name, parts, dl, wcrt)| BarRow {
            label: name.clone(),
            values: comps
                .iter()
                .map(|c| parts.iter().filter(|p| &p.name == c).map(|p| p.value).sum())
                .collect(),
            marker: *dl,
            note: wcrt
                .map(|w| format!("R = {}", dur(w)))
                .unwrap_or_else(|| "unbounded".into()),
        })
        .collect();
    b.figure(
        "Response-time breakdown",
        "Where each task's worst-case response time comes from; the dark tick is the deadline (named after the bar when it lies beyond the axis).",
        || {
            charts::stacked_bars(
                "breakdown",
                &rows,
                &comps,
                BarScale::Time,
                "worst-case response time",
            )
        },
    )
}

pub(super) fn utilisation(
    b: &mut Builder,
    d: &Value,
    tasks: &[Value],
    level: u8,
) -> Result<(), ReportError> {
    let top = d.get("utilisation").or_else(|| d.get("utilization"));
    let mut parts: Vec<data::Part> = match top {
        Some(Value::Object(_)) => data::parts(top),
        _ => Vec::new(),
    };
    // Totals such as "total" or bounds are facts, not slices.
    let mut facts = Vec::new();
    parts.retain(|p| {
        let n = p.name.to_ascii_lowercase();
        let is_fact = n.contains("total")
            || n.contains("bound")
            || n.contains("liu")
            || n.contains("hyperbolic")
            || n.contains("sum");
        if is_fact {
            facts.push((
                p.name.clone(),
                if p.value <= 1.5 {
                    pct(p.value)
                } else {
                    fnum(p.value, 4)
                },
            ));
        }
        !is_fact
    });
    if parts.is_empty() {
        if let Some(t) = d.get("totals") {
            let (p, f) = totals_split(t, text(d, "tick_mode").as_deref());
            parts = p;
            facts.extend(f);
        }
    }
    if parts.is_empty() {
        parts = tasks
            .iter()
            .filter_map(|t| {
                Some(data::Part {
                    name: text(t, "name")?,
                    value: num_any(t, &["utilisation", "utilization"])?,
                })
            })
            .collect();
    }
    parts.sort_by_key(|p| share_rank(&p.name));
    if let Some(Value::Number(n)) = top {
        facts.push(("total utilisation".into(), pct(n.as_f64().unwrap_or(0.0))));
    }
    if parts.is_empty() && facts.is_empty() {
        return Ok(());
    }
    b.heading(level + 1, "Utilisation", None);
    b.facts(facts);
    split_chart(
        b,
        "Utilisation split",
        "Share of the CPU taken by each task and each kernel overhead.",
        parts,
    )
}

/// `totals` of an analysis: `utilisation_<what>` fractions become the split (the tick in the
/// file's own accounting mode), the rest become facts.
pub(super) fn totals_split(
    t: &Value,
    mode: Option<&str>,
) -> (Vec<data::Part>, Vec<(String, String)>) {
    let mut parts = Vec::new();
    let mut facts = Vec::new();
    let Some(m) = t.as_object() else {
        return (parts, facts);
    };
    for (k, v) in m {
        if let Some(what) = k
            .strip_prefix("utilisation_")
            .or_else(|| k.strip_prefix("utilization_"))
        {
            let Some(x) = v.as_f64() else { continue };
            if what == "total" {
                facts.push(("total utilisation".to_string(), pct(x)));
                continue;
            }
            let name = if let Some(tick_mode) = what.strip_prefix("tick_") {
                if mode.is_some_and(|m| m != tick_mode) {
                    facts.push((format!("tick utilisation, {tick_mode}"), pct(x)));
                    continue;
                }
                "tick".to_string()
            } else {
                what.replace('_', " ")
            };
            if x > 0.0 {
                parts.push(data::Part { name, value: x });
            }
        } else {
            match v {
                Value::Number(n) => {
                    let x = n.as_f64().unwrap_or(f64::NAN);
                    let val = if k.ends_with("_ns") {
                        dur(x)
                    } else if k.contains("bound") || k.contains("product") {
                        fnum(x, 4)
                    } else {
                        int(x)
                    };
                    facts.push((data::clean_key(k), val));
                }
                Value::Bool(x) => facts.push((data::clean_key(k), x.to_string())),
                _ => {}
            }
        }
    }
    (parts, facts)
}
