//! The section of a `latscope simulate` result, and the timeline and series inputs that
//! accompany it.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, arr, num, text, Tone};
use crate::units::{dur, int, num as fnum};
use crate::{Input, ReportError};
use serde_json::Value;

pub(super) fn simulate(
    b: &mut Builder,
    d: &Value,
    level: u8,
    captures: &[&Input],
) -> Result<(), ReportError> {
    b.facts(data::scalars(d, &["kind", "schema_version"]));
    let tasks = arr(d, "tasks");
    if !tasks.is_empty() {
        b.heading(level + 1, "Tasks", None);
        let misses: f64 = tasks.iter().filter_map(|t| num(t, "deadline_misses")).sum();
        b.out.push(if misses > 0.0 {
            Block::Verdict(Tone::Bad, format!("{} deadline misses", int(misses)))
        } else {
            Block::Verdict(Tone::Good, "no deadline missed".into())
        });
        let rows = tasks
            .iter()
            .map(|t| {
                let r = t.get("response").cloned().unwrap_or(Value::Null);
                let d_ = |v: Option<f64>| Cell::n(v.map(dur).unwrap_or_else(|| "–".into()));
                let m = num(t, "deadline_misses").unwrap_or(0.0);
                vec![
                    Cell::t(text(t, "name").unwrap_or_default()).bold(),
                    Cell::n(num(t, "jobs").map(int).unwrap_or_else(|| "–".into())),
                    d_(num(&r, "min_ns")),
                    d_(num(&r, "mean_ns")),
                    d_(num(&r, "p99_ns")),
                    d_(num(t, "max_response_ns").or(num(&r, "max_ns"))).bold(),
                    d_(num(t, "deadline_ns")),
                    if m > 0.0 {
                        Cell::badge(int(m), Tone::Bad)
                    } else {
                        Cell::badge("0", Tone::Good)
                    },
                    Cell::n(num(t, "preemptions").map(int).unwrap_or_else(|| "–".into())),
                ]
            })
            .collect();
        b.table(Table {
            headers: [
                "task",
                "jobs",
                "min response",
                "mean",
                "p99",
                "max response",
                "deadline",
                "misses",
                "preemptions",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        });
    }
    if let Some(tick) = d.get("tick") {
        b.heading(level + 1, "Tick handler", None);
        let mut f = Vec::new();
        for (k, v) in data::scalars(tick, &[]) {
            f.push((k, v));
        }
        if let Some(p) = tick.get("peaks_at_ns").and_then(Value::as_array) {
            let list: Vec<String> = p
                .iter()
                .take(6)
                .filter_map(Value::as_f64)
                .map(dur)
                .collect();
            if !list.is_empty() {
                f.push((
                    "longest ticks at".into(),
                    format!(
                        "{}{}",
                        list.join(", "),
                        if p.len() > 6 { ", …" } else { "" }
                    ),
                ));
            }
        }
        b.facts(f);
        let series = data::series(tick.get("series").or_else(|| d.get("tick_series")));
        if !series.is_empty() {
            b.figure(
                "Tick handler duration over time",
                "Duration of each tick handler run; the longest is circled.",
                || charts::time_series(&series, "tick duration", true, None),
            )?;
        }
    }
    if let Some(sw) = d.get("switches") {
        let g = arr(sw, "by_priority_distance");
        if !g.is_empty() {
            b.heading(level + 1, "Context switches by priority distance", None);
            b.table(generic_table(g));
        }
        let g = arr(sw, "by_levels");
        if !g.is_empty() {
            b.heading(level + 1, "Context switches by levels scanned", None);
            b.table(generic_table(g));
        }
    }
    let irqs = arr(d, "interrupts");
    if !irqs.is_empty() {
        b.heading(level + 1, "Interrupts", None);
        b.table(generic_table(irqs));
    }
    if let Some(cpu) = d.get("cpu") {
        let fr: Vec<data::Part> = cpu
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| {
                        Some(data::Part {
                            name: k.strip_suffix("_fraction")?.replace('_', " "),
                            value: v.as_f64()?,
                        })
                    })
                    .filter(|p| p.value > 0.0)
                    .collect()
            })
            .unwrap_or_default();
        let mut fr = fr;
        fr.sort_by_key(|p| share_rank(&p.name));
        if !fr.is_empty() {
            b.heading(level + 1, "Where the CPU time went", None);
            split_chart(
                b,
                "CPU time split",
                "Share of the simulated time spent in tasks, kernel overheads, idle and sleep.",
                fr,
            )?;
        }
    }
    for k in ["sleep", "list_scan"] {
        if let Some(o) = d.get(k) {
            let f = data::scalars(o, &[]);
            let all_zero = o
                .as_object()
                .is_some_and(|m| m.values().all(|v| v.is_null() || v.as_f64() == Some(0.0)));
            if !f.is_empty() && !all_zero {
                b.heading(level + 1, &k.replace('_', "-"), None);
                b.facts(f);
            }
        }
    }
    // Timeline excerpt around the worst case, from a capture given alongside.
    for c in captures {
        let worst = worst_instant(d);
        timeline_from_capture(b, &c.doc, worst, level)?;
    }
    Ok(())
}

/// The instant worth zooming into: the longest tick, else the worst response's arrival.
/// Returns the instant, its label and the width of window that suits it.
pub(super) fn worst_instant(d: &Value) -> Option<(f64, String, Option<f64>)> {
    // A tick is worth zooming into only when some ticks are longer than others.
    let ticks_differ = d
        .get("tick")
        .is_some_and(|t| match (num(t, "min_ns"), num(t, "max_ns")) {
            (Some(a), Some(b)) => b > a,
            _ => true,
        });
    if let Some(t) = d.get("tick").filter(|_| ticks_differ) {
        if let Some(p) = t
            .get("peaks_at_ns")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_f64)
        {
            return Some((
                p,
                format!(
                    "longest tick ({})",
                    num(t, "max_ns").map(dur).unwrap_or_default()
                ),
                num(d, "tick_period_ns").map(|p| 6.0 * p),
            ));
        }
    }
    arr(d, "tasks")
        .iter()
        .filter_map(|t| {
            let r = t.get("response")?;
            Some((num(r, "max_at_ns")?, num(r, "max_ns")?, text(t, "name")?))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(at, v, n)| {
            (
                at,
                format!("worst response of {n} ({})", dur(v)),
                Some(4.0 * v),
            )
        })
}

pub(super) fn timeline_from_capture(
    b: &mut Builder,
    cap: &Value,
    focus: Option<(f64, String, Option<f64>)>,
    level: u8,
) -> Result<(), ReportError> {
    let tracks = capture_tracks(cap);
    if tracks.is_empty() {
        return Ok(());
    }
    let (t, label, span) = match focus {
        Some(f) => f,
        None => {
            // The longest busy interval (idle and sleep tracks are not of interest).
            let Some((t, w)) = tracks
                .iter()
                .filter(|(n, _)| {
                    let n = n.to_ascii_lowercase();
                    !(n.contains("idle") || n.contains("sleep"))
                })
                .flat_map(|(_, iv)| iv.iter().map(|&(a, b)| (a, b - a)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
            else {
                return Ok(());
            };
            (t, format!("longest interval ({})", dur(w)), None)
        }
    };
    let span = match span {
        Some(p) if p > 0.0 => p,
        _ => {
            let longest = tracks
                .iter()
                .flat_map(|(_, iv)| iv.iter().map(|&(a, b)| b - a))
                .fold(0.0, f64::max);
            (longest * 30.0).max(1000.0)
        }
    };
    let start = num(cap, "start_ns").unwrap_or(f64::NEG_INFINITY);
    let w0 = (t - span / 3.0).max(start);
    let window = (w0, w0 + span);
    b.heading(level + 1, "Timeline around the worst case", None);
    let f = label.clone();
    b.figure(
        "Timeline excerpt",
        &format!(
            "What ran around {} at {}: one row per channel of the virtual capture.",
            f,
            dur(t)
        ),
        || charts::timeline(&tracks, window, Some((t, label))),
    )
}

/// Tracks of a capture input (see `Input::parse`): `[(name, [(start_ns, end_ns)])]`.
pub(super) fn capture_tracks(cap: &Value) -> Vec<(String, Vec<(f64, f64)>)> {
    arr(cap, "tracks")
        .iter()
        .filter_map(|t| {
            let name = text(t, "name")?;
            let iv: Vec<(f64, f64)> = arr(t, "intervals")
                .iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    Some((p.first()?.as_f64()?, p.get(1)?.as_f64()?))
                })
                .collect();
            Some((name, iv))
        })
        .collect()
}

pub(super) fn capture_input(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let tracks = capture_tracks(d);
    if b.with_simulate {
        b.note("The timeline excerpt of this capture is shown with the simulation result.");
    }
    b.facts(vec![
        ("tracks".into(), tracks.len().to_string()),
        (
            "intervals".into(),
            int(tracks.iter().map(|t| t.1.len()).sum::<usize>() as f64),
        ),
    ]);
    if !b.charts || b.with_simulate {
        return Ok(());
    }
    timeline_from_capture(b, d, None, level)
}

pub(super) fn series_input(b: &mut Builder, d: &Value, _level: u8) -> Result<(), ReportError> {
    let mut rows = Vec::new();
    let mut figures = Vec::new();
    for sr in arr(d, "series") {
        let pts = data::series(sr.get("points"));
        let name = text(sr, "name").unwrap_or_default();
        let unit = text(sr, "unit").unwrap_or_default();
        let timed = unit == "ns";
        let f = |v: f64| {
            if timed {
                dur(v)
            } else {
                format!("{} {unit}", fnum(v, 4)).trim().to_string()
            }
        };
        let Some(max) = pts
            .iter()
            .copied()
            .fold(None, |best: Option<data::Point>, p| match best {
                Some(b) if b.1 >= p.1 => Some(b),
                _ => Some(p),
            })
        else {
            continue;
        };
        let mean = pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64;
        rows.push(vec![
            Cell::t(&name).bold(),
            Cell::n(int(pts.len() as f64)),
            Cell::n(f(mean)),
            Cell::n(f(max.1)).bold(),
            Cell::n(dur(max.0)),
        ]);
        let word = data::clean_key(&name);
        let word = if timed || unit.is_empty() {
            word
        } else {
            format!("{word} ({unit})")
        };
        figures.push((data::clean_key(&name), word, pts, timed));
    }
    b.table(Table {
        headers: ["series", "points", "mean", "max", "max at"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    for (name, word, pts, timed) in figures {
        b.figure(
            &format!("{name} over time"),
            "Each value of the series against its time; the worst case is circled.",
            || charts::time_series(&pts, &word, timed, None),
        )?;
    }
    Ok(())
}
