//! The section of a `latscope simulate` result, and the timeline and series inputs that
//! accompany it.

use super::layout::*;
use super::{Block, Builder, Cell, Table, View};
use crate::artifacts::{SeriesDoc, Timeline};
use crate::charts::{self};
use crate::data::{self, Tone};
use crate::units::{dur, int, num as fnum};
use crate::{Input, Kind, ReportError};
use latscope_results::simulate::{SimulateResult, SwitchGroup, TaskReport, TickReport};
use serde_json::Value;

/// A duration or "–" when there is none.
fn d_(v: Option<f64>) -> Cell {
    Cell::n(v.map(dur).unwrap_or_else(|| "–".into()))
}

/// The run's facts above its tables.
fn facts(d: &SimulateResult) -> Vec<(String, String)> {
    let mut f = vec![
        ("source".to_string(), d.source.clone()),
        ("kernel".to_string(), d.kernel.to_string()),
        ("seed".to_string(), d.seed.to_string()),
        ("duration".to_string(), dur(d.duration_ns)),
    ];
    if let Some(h) = d.hyperperiod_ns {
        f.push(("hyperperiod".into(), dur(h)));
    }
    f.push(("tick period".into(), dur(d.tick_period_ns)));
    f.push(("events".into(), int(d.events as f64)));
    f
}

/// Context switches grouped one way: the grouping's own columns (task pair, levels
/// scanned, priority distance) that any group has, then count, min, mean and max.
fn switch_table(groups: &[SwitchGroup]) -> Table {
    let has = |f: fn(&SwitchGroup) -> bool| groups.iter().any(f);
    let (from, to) = (has(|g| g.from.is_some()), has(|g| g.to.is_some()));
    let (levels, distance) = (has(|g| g.levels.is_some()), has(|g| g.distance.is_some()));
    let mut headers: Vec<String> = Vec::new();
    for (on, h) in [
        (from, "from"),
        (to, "to"),
        (levels, "levels"),
        (distance, "distance"),
    ] {
        if on {
            headers.push(h.into());
        }
    }
    headers.extend(["count", "min", "mean", "max"].map(String::from));
    let rows = groups
        .iter()
        .map(|g| {
            let mut r = Vec::new();
            let opt = |x: Option<String>| Cell::t(x.unwrap_or_else(|| "–".into()));
            if from {
                r.push(opt(g.from.clone()));
            }
            if to {
                r.push(opt(g.to.clone()));
            }
            if levels {
                r.push(Cell::n(g.levels.map_or("–".into(), |x| x.to_string())));
            }
            if distance {
                r.push(Cell::n(g.distance.map_or("–".into(), |x| x.to_string())));
            }
            r.push(Cell::n(int(g.count as f64)));
            r.push(Cell::n(dur(g.min_ns)));
            r.push(Cell::n(dur(g.mean_ns)));
            r.push(Cell::n(dur(g.max_ns)));
            r
        })
        .collect();
    Table { headers, rows }
}

fn tasks_table(tasks: &[TaskReport]) -> Table {
    let rows = tasks
        .iter()
        .map(|t| {
            let r = &t.response;
            vec![
                Cell::t(&t.name).bold(),
                Cell::n(int(t.jobs as f64)),
                d_(r.min_ns),
                d_(r.mean_ns),
                d_(r.p99_ns),
                d_(t.max_response_ns.or(r.max_ns)).bold(),
                d_(Some(t.deadline_ns)),
                if t.deadline_misses > 0 {
                    Cell::badge(int(t.deadline_misses as f64), Tone::Bad)
                } else {
                    Cell::badge("0", Tone::Good)
                },
                Cell::n(int(t.preemptions as f64)),
            ]
        })
        .collect();
    Table {
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
    }
}

/// The tick handler's figures.
fn tick_facts(t: &TickReport) -> Vec<(String, String)> {
    let mut f = vec![("count".to_string(), int(t.count as f64))];
    for (v, k) in [
        (t.min_ns, "min"),
        (t.max_ns, "max"),
        (t.mean_ns, "mean"),
        (t.p50_ns, "p50"),
        (t.p99_ns, "p99"),
        (t.max_latency_ns, "max latency"),
    ] {
        if let Some(v) = v {
            f.push((k.into(), dur(v)));
        }
    }
    f.push(("lost".into(), int(t.lost as f64)));
    f.push(("max released".into(), t.max_released.to_string()));
    f.push(("peak count".into(), int(t.peak_count as f64)));
    let list: Vec<String> = t.peaks_at_ns.iter().take(6).map(|x| dur(*x)).collect();
    if !list.is_empty() {
        f.push((
            "longest ticks at".into(),
            format!(
                "{}{}",
                list.join(", "),
                if t.peaks_at_ns.len() > 6 { ", …" } else { "" }
            ),
        ));
    }
    f
}

pub(super) fn simulate(
    b: &mut Builder,
    d: &SimulateResult,
    level: u8,
    captures: &[&View],
    attached: &[Input],
) -> Result<(), ReportError> {
    b.facts(facts(d));
    if !d.tasks.is_empty() {
        b.heading(level + 1, "Tasks", None);
        let misses: u64 = d.tasks.iter().map(|t| t.deadline_misses).sum();
        b.out.push(if misses > 0 {
            Block::Verdict(Tone::Bad, format!("{} deadline misses", int(misses as f64)))
        } else {
            Block::Verdict(Tone::Good, "no deadline missed".into())
        });
        b.table(tasks_table(&d.tasks));
    }
    b.heading(level + 1, "Tick handler", None);
    b.facts(tick_facts(&d.tick));
    // The whole series when it is at hand (a scenario's tick-series CSV); the JSON keeps
    // only the instants of the longest ticks.
    let full: Vec<data::Point> = attached
        .iter()
        .filter(|a| a.kind == Kind::Series)
        .find_map(|a| SeriesDoc::of(&a.doc).named("duration_ns"))
        .unwrap_or_default();
    if !full.is_empty() {
        b.figure(
            "Tick handler duration over time",
            "Duration of every tick handler run over the whole simulation (each pixel column shows the shortest and the longest tick in it); the first longest is circled.",
            || charts::time_series(&full, "tick duration", true, None),
        )?;
    }
    let sw = &d.switches;
    if !sw.by_priority_distance.is_empty() {
        b.heading(level + 1, "Context switches by priority distance", None);
        b.table(switch_table(&sw.by_priority_distance));
    }
    if !sw.by_levels.is_empty() {
        b.heading(level + 1, "Context switches by levels scanned", None);
        b.table(switch_table(&sw.by_levels));
    }
    if !d.interrupts.is_empty() {
        b.heading(level + 1, "Interrupts", None);
        b.table(Table {
            headers: ["name", "count", "lost", "max latency", "max response"]
                .map(String::from)
                .to_vec(),
            rows: d
                .interrupts
                .iter()
                .map(|i| {
                    vec![
                        Cell::t(&i.name),
                        Cell::n(int(i.count as f64)),
                        Cell::n(int(i.lost as f64)),
                        d_(i.max_latency_ns),
                        d_(i.response.max_ns),
                    ]
                })
                .collect(),
        });
    }
    let c = &d.cpu;
    let mut fr: Vec<data::Part> = [
        ("tasks", c.tasks_fraction),
        ("tick", c.tick_fraction),
        ("switch", c.switch_fraction),
        ("interrupts", c.interrupts_fraction),
        ("scheduler", c.scheduler_fraction),
        ("idle", c.idle_fraction),
        ("sleep", c.sleep_fraction),
        ("wake", c.wake_fraction),
    ]
    .into_iter()
    .filter(|(_, v)| *v > 0.0)
    .map(|(n, v)| data::Part {
        name: n.to_string(),
        value: v,
    })
    .collect();
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
    let s = &d.sleep;
    if s.sleeps > 0 || s.wakeups > 0 {
        b.heading(level + 1, "sleep", None);
        let mut f = Vec::new();
        if let Some(st) = &s.state {
            f.push(("state".to_string(), st.clone()));
        }
        for (k, v) in [
            ("sleeps", s.sleeps),
            ("wakeups", s.wakeups),
            ("timer wakeups", s.timer_wakeups),
            ("interrupt wakeups", s.interrupt_wakeups),
        ] {
            f.push((k.to_string(), int(v as f64)));
        }
        b.facts(f);
    }
    if let Some(l) = &d.list_scan {
        b.heading(level + 1, "list-scan", None);
        let mut f: Vec<(String, String)> = [
            ("scheduler runs", l.scheduler_runs),
            ("lost ticks", l.lost_ticks),
            ("late runs", l.late_runs),
            ("overruns", l.overruns),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), int(v as f64)))
        .collect();
        if let Some(m) = l.delay.max_ns {
            f.push(("max delay".into(), dur(m)));
        }
        b.facts(f);
    }
    // Timeline excerpt around the worst case, from a capture given alongside.
    for c in captures {
        let worst = worst_instant(d);
        timeline_from_capture_at(
            b,
            c.doc,
            worst,
            level,
            "Timeline around the worst case",
            "time from simulation start",
        )?;
    }
    Ok(())
}

/// The instant worth zooming into: the longest tick, else the worst response's arrival.
/// Returns the instant, its label and the width of window that suits it.
pub(crate) fn worst_instant(d: &SimulateResult) -> Option<(f64, String, Option<f64>)> {
    // The first of the largest (value, at, name) by value.
    fn largest(it: impl Iterator<Item = (f64, f64, String)>) -> Option<(f64, f64, String)> {
        it.fold(None, |best: Option<(f64, f64, String)>, p| match best {
            Some(q) if q.1 >= p.1 => Some(q),
            _ => Some(p),
        })
    }
    // The interrupt-to-task path: the interrupt whose handling took longest (a wake-up from
    // tickless sleep, a message to an actor), in a window four times that long.
    let irq = largest(
        d.interrupts
            .iter()
            .filter_map(|i| Some((i.response.max_at_ns?, i.response.max_ns?, i.name.clone()))),
    );
    if let Some((at, v, n)) = irq.filter(|i| i.1 > 0.0) {
        return Some((
            at,
            // The interrupt's own response (arrival to handler end), not the path to the
            // task it releases: that one includes the switch and the task's start.
            format!(
                "longest interrupt handling of {n}, arrival to handler end ({})",
                dur(v)
            ),
            Some(4.0 * v),
        ));
    }
    // A tick is worth zooming into when some ticks are longer than others, or when the
    // scheduler runs a list scan on every tick.
    let list_scan = d.list_scan.is_some();
    let t = &d.tick;
    let ticks_differ = match (t.min_ns, t.max_ns) {
        (Some(a), Some(b)) => b > a,
        _ => true,
    };
    if ticks_differ || list_scan {
        if let Some(p) = t.peaks_at_ns.first() {
            let what = if list_scan {
                "list-scan scheduler run"
            } else {
                "longest tick"
            };
            return Some((
                *p,
                format!("{what} ({})", t.max_ns.map(dur).unwrap_or_default()),
                // A window that fits the event: the tick fills about a twelfth of it.
                t.max_ns.filter(|m| *m > 0.0).map(|m| 12.0 * m),
            ));
        }
    }
    // The first of equal worst responses.
    largest(
        d.tasks
            .iter()
            .filter_map(|t| Some((t.response.max_at_ns?, t.response.max_ns?, t.name.clone()))),
    )
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
    timeline_from_capture_at(b, cap, focus, level, heading, "time since start")
}

/// [`timeline_from_capture`] with the time axis titled by its origin.
pub(super) fn timeline_from_capture_at(
    b: &mut Builder,
    cap: &Value,
    focus: Option<(f64, String, Option<f64>)>,
    level: u8,
    heading: &str,
    origin: &str,
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
    let start = Timeline::of(cap).start_ns.unwrap_or(f64::NEG_INFINITY);
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
        || charts::timeline_at(&tracks, window, Some((t, label)), origin),
    )
}

/// Tracks of a capture input (see `Input::parse`): `[(name, [(start_ns, end_ns)])]`.
pub(super) fn capture_tracks(cap: &Value) -> Vec<(String, Vec<(f64, f64)>)> {
    Timeline::of(cap).tracks()
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
    // The longest interval of each track and when it began: what a capture alone
    // answers (in Markdown too, where no timeline is drawn).
    let rows: Vec<Vec<Cell>> = tracks
        .iter()
        .filter_map(|(n, iv)| {
            let (a, w) =
                iv.iter()
                    .map(|&(a, b)| (a, b - a))
                    .fold(None, |best: Option<(f64, f64)>, p| match best {
                        Some(q) if q.1 >= p.1 => Some(q),
                        _ => Some(p),
                    })?;
            Some(vec![
                Cell::t(n),
                Cell::n(int(iv.len() as f64)),
                Cell::n(dur(w)).bold(),
                Cell::n(dur(a)),
            ])
        })
        .collect();
    b.table(Table {
        headers: vec![
            "track".into(),
            "intervals".into(),
            "longest".into(),
            "at (from capture start)".into(),
        ],
        rows,
    });
    if !b.charts || b.with_simulate {
        return Ok(());
    }
    // With a trace result of the same capture, the timeline opens on its worst case
    // (both count from the capture's start).
    let focus = b
        .trace_worst
        .clone()
        .map(|(t, v, what)| (t, format!("worst {what} ({})", dur(v)), Some(12.0 * v)));
    let heading = if focus.is_some() {
        "Timeline around the trace's worst case"
    } else {
        "Timeline around the longest interval"
    };
    timeline_from_capture_at(b, d, focus, level, heading, "time from capture start")
}

pub(super) fn series_input(b: &mut Builder, d: &Value, _level: u8) -> Result<(), ReportError> {
    let mut rows = Vec::new();
    let mut figures = Vec::new();
    for sr in SeriesDoc::of(d).series {
        let pts = sr.points();
        let (name, unit) = (sr.name, sr.unit);
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
        let word = match name.strip_suffix("_ns") {
            Some(w) => w.replace('_', " "),
            None => name.clone(),
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
