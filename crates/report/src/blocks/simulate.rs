//! The section of a `latscope simulate` result, and the timeline and series inputs that
//! accompany it.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, arr, num, text, Tone};
use crate::units::{dur, int, num as fnum};
use crate::{Input, Kind, ReportError};
use serde_json::Value;

pub(super) fn simulate(
    b: &mut Builder,
    d: &Value,
    level: u8,
    captures: &[&Input],
    attached: &[Input],
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
        // The whole series when it is at hand (a scenario's tick-series CSV); the JSON keeps
        // only the largest tick of each time bucket.
        let full: Option<Vec<data::Point>> = attached
            .iter()
            .filter(|a| a.kind == Kind::Series)
            .flat_map(|a| arr(&a.doc, "series").iter())
            .find(|s| text(s, "name").as_deref() == Some("duration_ns"))
            .map(|s| data::series(s.get("points")));
        let (series, caption) = match full {
            Some(f) if !f.is_empty() => (
                f,
                "Duration of every tick handler run over the whole simulation (each pixel column shows the shortest and the longest tick in it); the first longest is circled.".to_string(),
            ),
            _ => {
                let ts = tick.get("series").or_else(|| d.get("tick_series"));
                let note = ts.and_then(|t| text(t, "note"));
                (
                    data::series(ts),
                    match note {
                        Some(n) => format!(
                            "From the result's tick_series ({n}): the shorter ticks of each bucket are not in the JSON, so the baseline is not shown; give the --series CSV to see every tick."
                        ),
                        None => "Duration of each tick handler run; the first longest is circled.".into(),
                    },
                )
            }
        };
        if !series.is_empty() {
            b.figure("Tick handler duration over time", &caption, || {
                charts::time_series(&series, "tick duration", true, None)
            })?;
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
        timeline_from_capture(b, &c.doc, worst, level, "Timeline around the worst case")?;
    }
    Ok(())
}

/// The instant worth zooming into: the longest tick, else the worst response's arrival.
/// Returns the instant, its label and the width of window that suits it.
pub(crate) fn worst_instant(d: &Value) -> Option<(f64, String, Option<f64>)> {
    // The interrupt-to-task path: the interrupt whose handling took longest (a wake-up from
    // tickless sleep, a message to an actor), in a window four times that long.
    let irq = arr(d, "interrupts")
        .iter()
        .filter_map(|i| {
            let r = i.get("response")?;
            Some((num(r, "max_at_ns")?, num(r, "max_ns")?, text(i, "name")?))
        })
        .fold(None, |best: Option<(f64, f64, String)>, p| match best {
            Some(q) if q.1 >= p.1 => Some(q),
            _ => Some(p),
        });
    if let Some((at, v, n)) = irq.filter(|i| i.1 > 0.0) {
        return Some((
            at,
            format!("longest interrupt-to-task path of {n} ({})", dur(v)),
            Some(4.0 * v),
        ));
    }
    // A tick is worth zooming into when some ticks are longer than others, or when the
    // scheduler runs a list scan on every tick.
    let list_scan = d.get("list_scan").is_some_and(Value::is_object);
    let ticks_differ = d
        .get("tick")
        .is_some_and(|t| match (num(t, "min_ns"), num(t, "max_ns")) {
            (Some(a), Some(b)) => b > a,
            _ => true,
        });
    if let Some(t) = d.get("tick").filter(|_| ticks_differ || list_scan) {
        if let Some(p) = t
            .get("peaks_at_ns")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_f64)
        {
            let what = if list_scan {
                "list-scan scheduler run"
            } else {
                "longest tick"
            };
            let max = num(t, "max_ns");
            return Some((
                p,
                format!("{what} ({})", max.map(dur).unwrap_or_default()),
                // A window that fits the event: the tick fills about a twelfth of it.
                max.filter(|m| *m > 0.0).map(|m| 12.0 * m),
            ));
        }
    }
    arr(d, "tasks")
        .iter()
        .filter_map(|t| {
            let r = t.get("response")?;
            Some((num(r, "max_at_ns")?, num(r, "max_ns")?, text(t, "name")?))
        })
        // The first of equal worst responses.
        .fold(None, |best: Option<(f64, f64, String)>, p| match best {
            Some(q) if q.1 >= p.1 => Some(q),
            _ => Some(p),
        })
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
    heading: &str,
) -> Result<(), ReportError> {
    let tracks = capture_tracks(cap);
    if tracks.is_empty() {
        return Ok(());
    }
    let (t, label, span) = match focus {
        Some(f) => f,
        None => {
            // The first of the longest busy intervals (idle and sleep tracks are not of
            // interest): the instance a table would name.
            let Some((t, w)) = tracks
                .iter()
                .filter(|(n, _)| {
                    let n = n.to_ascii_lowercase();
                    !(n.contains("idle") || n.contains("sleep"))
                })
                .flat_map(|(_, iv)| iv.iter().map(|&(a, b)| (a, b - a)))
                .fold(None, |best: Option<(f64, f64)>, p| match best {
                    Some(q) if q.1 > p.1 || (q.1 == p.1 && q.0 <= p.0) => Some(q),
                    _ => Some(p),
                })
            else {
                return Ok(());
            };
            // A window that fits the event: it fills about a tenth of the width.
            (t, format!("longest interval ({})", dur(w)), Some(w * 10.0))
        }
    };
    let span = match span {
        Some(p) if p > 0.0 => p,
        _ => 1000.0,
    };
    let start = num(cap, "start_ns").unwrap_or(f64::NEG_INFINITY);
    let w0 = (t - span / 3.0).max(start);
    let window = (w0, w0 + span);
    b.heading(level + 1, heading, None);
    let f = label.clone();
    b.figure(
        "Timeline excerpt",
        &format!(
            "What ran around {} at {}: one row per channel of the capture, names as given. Zoom out or pan to see the neighbouring events.",
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
    timeline_from_capture(b, d, None, level, "Timeline around the longest interval")
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
        let min = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        rows.push(vec![
            Cell::t(&name).bold(),
            Cell::n(int(pts.len() as f64)),
            Cell::n(f(min)),
            Cell::n(f(mean)),
            Cell::n(f(max.1)).bold(),
            Cell::n(dur(max.0)),
        ]);
        // Channel and measurement names exactly as given; a CSV column such as
        // `duration_ns` reads "duration".
        let word = if name.ends_with("_ns") {
            data::clean_key(&name)
        } else {
            name.clone()
        };
        figures.push((word, pts, timed, unit));
    }
    b.table(Table {
        headers: ["series", "points", "min", "mean", "max", "max at"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    for (word, pts, timed, unit) in figures {
        let o = charts::SeriesOpts::new(
            &word,
            if timed {
                charts::ValueUnit::Time
            } else {
                charts::ValueUnit::Other(unit)
            },
        );
        b.figure(
            &format!("{word} over time"),
            "Each value of the series against its time (each pixel column shows the minimum and the maximum of all values in it); the first worst case is circled.",
            || {
                charts::series_chart(
                    &[charts::Line {
                        name: word.clone(),
                        points: pts,
                    }],
                    &o,
                )
            },
        )?;
    }
    Ok(())
}
