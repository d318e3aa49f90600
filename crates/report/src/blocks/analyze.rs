//! The section of a `latscope analyze` result, read from its typed document: the verdict
//! and the critical task first, then each task's slack against its deadline (both tick
//! accounting modes), the table, the response-time breakdown, the tick modes and the
//! utilisation figures.

use super::{Block, Builder, Cell, Table};
use crate::charts::{self, BarRow, BarScale, Response, SlackRow};
use crate::data::Tone;
use crate::units::{dur, num as fnum, pct};
use crate::ReportError;
use latscope_results::analyze::{AnalysisResult, AnalyzeResult, TaskResult as Task};
use latscope_results::Labelled;

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

/// The task that decides the verdict: the first (highest-priority) task that misses its
/// deadline or is unbounded, else the one with the least slack.
pub fn critical(tasks: &[Task]) -> Option<&Task> {
    tasks.iter().find(|t| !t.schedulable).or_else(|| {
        tasks
            .iter()
            .filter(|t| t.slack_ns.is_some_and(f64::is_finite))
            .min_by(|a, b| {
                let s = |t: &Task| t.slack_ns.unwrap_or(f64::INFINITY);
                s(a).total_cmp(&s(b))
            })
    })
}

/// How a task's response reads in words: "2.529 ms", "unbounded past 6 ms", "unbounded".
fn response_text(t: &Task) -> String {
    match (t.wcrt_ns, t.wcrt_above_ns) {
        (Some(w), _) => dur(w),
        (None, Some(d)) => format!("unbounded past {}", dur(d)),
        (None, None) => "unbounded".into(),
    }
}

fn response(t: &Task) -> Response {
    match (t.wcrt_ns, t.wcrt_above_ns) {
        (Some(w), _) => Response::Bounded(w),
        (None, Some(d)) => Response::Past(d),
        (None, None) => Response::Unbounded,
    }
}

/// The critical task in one line, e.g. "critical task: C, least slack 1.2 ms (WCRT 3.8
/// ms against a 5 ms deadline)" or "first miss: C, unbounded past 6 ms (deadline 6 ms)".
pub fn critical_line(tasks: &[Task]) -> Option<String> {
    let t = critical(tasks)?;
    Some(if t.schedulable {
        format!(
            "critical task: {}, least slack {} (WCRT {} against a {} deadline)",
            t.name,
            dur(t.slack_ns.unwrap_or(0.0)),
            response_text(t),
            dur(t.deadline_ns)
        )
    } else {
        let why = match t.wcrt_ns {
            Some(w) => format!(
                "WCRT {} misses its {} deadline by {}",
                dur(w),
                dur(t.deadline_ns),
                dur(w - t.deadline_ns)
            ),
            None => format!("{} (deadline {})", response_text(t), dur(t.deadline_ns)),
        };
        format!("first miss: {}, {why}", t.name)
    })
}

pub(super) fn analyze(
    b: &mut Builder,
    d: &Labelled<AnalyzeResult>,
    level: u8,
) -> Result<(), ReportError> {
    let a = &d.analysis;
    let tasks = &a.tasks;
    let n_ok = tasks.iter().filter(|t| t.schedulable).count();
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
    // The answer first: the verdict and the task that decides it.
    let msg = match critical_line(tasks) {
        Some(c) => format!("{msg}; {c}"),
        None => msg,
    };
    b.out.push(Block::Verdict(tone, msg));
    b.facts(settings(a));
    for n in &a.notes {
        b.note(n.to_string());
    }
    slack(b, a)?;
    task_table(b, tasks, level);
    breakdown(b, tasks)?;
    tick_modes(b, a, level);
    utilisation(b, a, level);
    Ok(())
}

fn settings(a: &AnalysisResult) -> Vec<(String, String)> {
    let yes = |x: bool| if x { "yes" } else { "no" }.to_string();
    vec![
        ("source".into(), a.source.clone()),
        ("model".into(), a.model.to_string()),
        ("tick mode".into(), a.tick_mode.to_string()),
        ("overheads".into(), yes(a.overheads)),
        ("tick release delay".into(), yes(a.tick_release_delay)),
        ("schedulable".into(), yes(a.schedulable)),
    ]
}

/// Each task's response bar against its deadline, in both tick accounting modes when
/// they differ for some task (the reported mode alone otherwise).
fn slack(b: &mut Builder, a: &AnalysisResult) -> Result<(), ReportError> {
    let modes = [
        ("pessimistic", &a.tick_modes.pessimistic),
        ("partitioned", &a.tick_modes.partitioned),
    ];
    let by_name = |list: &[Task], name: &str| -> Option<Response> {
        list.iter().find(|t| &*t.name == name).map(response)
    };
    let differ = a.tasks.iter().any(|t| {
        let p = by_name(modes[0].1, &t.name);
        let q = by_name(modes[1].1, &t.name);
        p.is_some() && q.is_some() && p != q
    });
    let (names, rows): (Vec<String>, Vec<SlackRow>) = if differ {
        let names = modes.iter().map(|m| format!("{} tick", m.0)).collect();
        let rows = a
            .tasks
            .iter()
            .map(|t| SlackRow {
                label: t.name.to_string(),
                deadline_ns: t.deadline_ns,
                responses: modes
                    .iter()
                    .map(|m| by_name(m.1, &t.name).unwrap_or_else(|| response(t)))
                    .collect(),
            })
            .collect();
        (names, rows)
    } else {
        let rows = a
            .tasks
            .iter()
            .map(|t| SlackRow {
                label: t.name.to_string(),
                deadline_ns: t.deadline_ns,
                responses: vec![response(t)],
            })
            .collect();
        (vec![format!("{} tick", a.tick_mode)], rows)
    };
    b.figure(
        "Slack against the deadline",
        "Each task's worst-case response time (bar) and its deadline (dark tick) on one axis, highest priority at the top; the gap is the slack. Red: past the deadline or unbounded (an arrow where the analysis stopped).",
        || charts::slack(&rows, &names),
    )
}

fn task_table(b: &mut Builder, tasks: &[Task], level: u8) {
    if tasks.is_empty() {
        return;
    }
    b.heading(level + 1, "Response times", None);
    let observed = tasks.iter().any(|t| t.observed_max_ns.is_some());
    let mut headers: Vec<String> = [
        "task", "priority", "period", "WCET", "jitter", "blocking", "WCRT", "deadline", "slack",
    ]
    .map(String::from)
    .to_vec();
    if observed {
        headers.push("observed max".into());
    }
    headers.push("verdict".into());
    let rows = tasks
        .iter()
        .map(|t| {
            let mut row = vec![
                Cell::t(&*t.name).bold(),
                Cell::n(t.priority.to_string()),
                Cell::n(dur(t.period_ns)),
                Cell::n(dur(t.breakdown.wcet_ns)),
                Cell::n(dur(t.jitter.total_ns)),
                Cell::n(dur(t.blocking_ns)),
                match t.wcrt_ns {
                    Some(w) => Cell::n(dur(w)).bold(),
                    None => Cell::badge(response_text(t), Tone::Bad),
                },
                Cell::n(dur(t.deadline_ns)),
                Cell::n(t.slack_ns.map(dur).unwrap_or_else(|| "–".into())),
            ];
            if observed {
                row.push(Cell::n(
                    t.observed_max_ns.map(dur).unwrap_or_else(|| "–".into()),
                ));
            }
            row.push(if t.schedulable {
                Cell::badge("schedulable", Tone::Good)
            } else {
                Cell::badge("misses deadline", Tone::Bad)
            });
            row
        })
        .collect();
    b.table(Table { headers, rows });
}

/// The named parts of a task's response time (interference per interfering task summed
/// into one component).
fn parts(t: &Task) -> Vec<(String, f64)> {
    let k = &t.breakdown;
    let interference: f64 =
        k.interference.iter().map(|s| s.ns).sum::<f64>() + k.interference_others_ns;
    vec![
        ("wcet".into(), k.wcet_ns),
        ("own previous jobs".into(), k.own_previous_jobs_ns),
        ("interference".into(), interference),
        ("tick".into(), k.tick_ns),
        ("context switch".into(), k.context_switch_ns),
        ("interrupts".into(), k.interrupts_ns),
        ("blocking".into(), k.blocking_ns),
        ("jitter".into(), k.jitter_ns),
    ]
}

pub(super) fn breakdown(b: &mut Builder, tasks: &[Task]) -> Result<(), ReportError> {
    if tasks.is_empty() {
        return Ok(());
    }
    let per_task: Vec<(&Task, Vec<(String, f64)>)> = tasks.iter().map(|t| (t, parts(t))).collect();
    let mut comps: Vec<String> = Vec::new();
    for (_, ps) in &per_task {
        for (name, v) in ps {
            // Only components that add something to some task.
            if *v > 0.0 && !comps.contains(name) {
                comps.push(name.clone());
            }
        }
    }
    comps.sort_by_key(|c| component_rank(c));
    let rows: Vec<BarRow> = per_task
        .iter()
        .map(|(t, ps)| BarRow {
            label: t.name.to_string(),
            values: comps
                .iter()
                .map(|c| ps.iter().filter(|p| &p.0 == c).map(|p| p.1).sum())
                .collect(),
            marker: Some(t.deadline_ns),
            note: match t.wcrt_ns {
                Some(w) => format!("R = {}", dur(w)),
                None => response_text(t),
            },
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

/// WCRT of each task under each tick accounting mode, with the pessimism removed.
pub(super) fn tick_modes(b: &mut Builder, a: &AnalysisResult, level: u8) {
    let m = &a.tick_modes;
    if m.pessimistic.is_empty() && m.partitioned.is_empty() {
        return;
    }
    let cell = |t: Option<&Task>| match t {
        Some(t) if t.wcrt_ns.is_none() => Cell::badge(response_text(t), Tone::Bad),
        Some(t) if !t.schedulable => Cell::badge(response_text(t), Tone::Bad),
        Some(t) => Cell::n(response_text(t)),
        None => Cell::n("–"),
    };
    let mut names: Vec<&str> = Vec::new();
    for t in m.pessimistic.iter().chain(&m.partitioned) {
        if !names.contains(&&*t.name) {
            names.push(&t.name);
        }
    }
    let rows = names
        .iter()
        .map(|name| {
            let r = a.pessimism_reduction.iter().find(|r| &*r.name == *name);
            vec![
                Cell::t(*name).bold(),
                cell(m.pessimistic.iter().find(|t| &*t.name == *name)),
                cell(m.partitioned.iter().find(|t| &*t.name == *name)),
                Cell::n(
                    r.and_then(|r| {
                        let ns = r.reduction_ns?;
                        Some(match r.reduction_pct {
                            Some(p) => format!("{} ({} %)", dur(ns), fnum(p, 3)),
                            None => dur(ns),
                        })
                    })
                    .unwrap_or_else(|| "–".into()),
                ),
            ]
        })
        .collect();
    b.heading(level + 1, "Tick accounting modes", None);
    b.note(
        "Pessimistic: every tick pays for all releases; partitioned: one pseudo-task per task \
         with that task's period (Miranda, de Oliveira, Carminati: Analysis of FreeRTOS Overheads on Periodic Tasks). The difference is pessimism removed.",
    );
    b.table(Table {
        headers: [
            "task",
            "WCRT, pessimistic",
            "WCRT, partitioned",
            "reduction",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
}

/// The whole-system figures: utilisation by what takes it, the quick sufficient tests,
/// the hyperperiod (a table; the per-task picture is the slack chart).
pub(super) fn utilisation(b: &mut Builder, a: &AnalysisResult, level: u8) {
    let t = &a.totals;
    let tick = if a.tick_mode == "pessimistic" {
        t.utilisation_tick_pessimistic
    } else {
        t.utilisation_tick_partitioned
    };
    let pass = |ok: bool| if ok { "pass" } else { "inconclusive" };
    let mut facts = vec![
        ("total utilisation".to_string(), pct(t.utilisation_total)),
        ("tasks".into(), pct(t.utilisation_tasks)),
        ("interrupts".into(), pct(t.utilisation_interrupts)),
        (format!("tick ({})", a.tick_mode), pct(tick)),
        ("context switches".into(), pct(t.utilisation_context_switch)),
        ("time slicing".into(), pct(t.utilisation_time_slicing)),
        (
            "Liu & Layland bound".into(),
            format!(
                "{} → {}",
                fnum(t.liu_layland_bound, 4),
                pass(t.liu_layland_ok)
            ),
        ),
        (
            "hyperbolic product".into(),
            format!(
                "{} → {}",
                fnum(t.hyperbolic_product, 4),
                pass(t.hyperbolic_ok)
            ),
        ),
    ];
    if let Some(h) = t.hyperperiod_ns {
        facts.push(("hyperperiod".into(), dur(h)));
    }
    b.heading(level + 1, "Utilisation", None);
    b.facts(facts);
}
