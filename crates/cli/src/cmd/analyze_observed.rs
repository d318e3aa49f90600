//! `latscope analyze SYSTEM --observed TRACE`: each task's observed worst response (from
//! the recording's task timing, `latscope_trace::tasks`) beside its bound, matched by
//! name. An observation above its bound means the WCET or the model is wrong for this
//! system; `analyze` then exits 1.

use super::analyze::t as format_ns_f64;
use latscope_model::rta::AnalysisResult;
use latscope_sim::observed::ObservedCheck;
use latscope_trace::tasks::{self, TaskTimingResult};
use std::io::Write;
use std::path::Path;

/// Reads the recording, fills each task's observed figures into `res.tasks` and returns
/// the comparison and the task timing (for printing).
pub fn check(
    res: &mut AnalysisResult,
    path: &Path,
) -> anyhow::Result<(ObservedCheck, TaskTimingResult)> {
    let trace = crate::events_input::open(path, &Default::default())?;
    let timing = tasks::analyze(&trace, &tasks::Options::default());
    let mut check = ObservedCheck {
        recording: timing.recording.source.clone(),
        format: timing.recording.format.clone(),
        not_in_system: timing
            .tasks
            .iter()
            .filter(|t| !res.tasks.iter().any(|x| *x.name == *t.name))
            .map(|t| t.name.clone())
            .collect(),
        not_observed: Vec::new(),
        exceeded: Vec::new(),
        suspect: Vec::new(),
        lost_events: timing.lost_events.count,
    };
    for task in &mut res.tasks {
        let worst = timing
            .task(&task.name)
            .and_then(|t| t.worst.first().map(|w| (t, w)));
        let Some((_, w)) = worst else {
            check.not_observed.push(task.name.to_string());
            continue;
        };
        task.observed_max_ns = Some(w.response_ns);
        task.observed_at_ns = Some(w.release_ns);
        task.observed_job = Some(w.job);
        task.bound_ratio = task.wcrt_ns.filter(|&b| b > 0.0).map(|b| w.response_ns / b);
        let over = match task.wcrt_ns {
            Some(b) => w.response_ns > b,
            None => false,
        };
        if over {
            check.exceeded.push(task.name.to_string());
        }
        if w.suspect {
            check.suspect.push(task.name.to_string());
        }
    }
    Ok((check, timing))
}

/// The observations beside the bounds, the mismatched names and the verdict.
pub fn print(
    out: &mut impl Write,
    res: &AnalysisResult,
    c: &ObservedCheck,
    timing: &TaskTimingResult,
) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "observed in {} ({}): each task's worst response beside its bound",
        c.recording, c.format
    )?;
    let rows = rows(res, c);
    print_rows(out, &rows)?;
    if !c.not_in_system.is_empty() {
        writeln!(
            out,
            "tasks in the recording but not in the system (not checked): {}",
            c.not_in_system.join(", ")
        )?;
    }
    if !c.not_observed.is_empty() {
        writeln!(
            out,
            "tasks in the system without a complete job in the recording (not checked): {}",
            c.not_observed.join(", ")
        )?;
    }
    for l in super::trace_tasks::lost_lines(timing) {
        writeln!(out, "{l}")?;
    }
    print_exceeded(out, res, c)?;
    if c.exceeded.is_empty() {
        writeln!(
            out,
            "every observed response is within its bound ({} task(s) checked)",
            rows.len()
        )?;
    }
    Ok(())
}

/// One row per observed task: name, bound, observation, ratio, the worst job.
fn rows(res: &AnalysisResult, c: &ObservedCheck) -> Vec<[String; 5]> {
    res.tasks
        .iter()
        .filter_map(|t| {
            let obs = t.observed_max_ns?;
            Some([
                t.name.to_string(),
                t.wcrt_ns.map_or_else(|| "unbounded".into(), format_ns_f64),
                format_ns_f64(obs),
                t.bound_ratio
                    .map_or_else(|| "-".into(), |r| format!("{r:.3}")),
                format!(
                    "job {} released at {}{}",
                    t.observed_job.unwrap_or(0),
                    t.observed_at_ns.map_or_else(|| "?".into(), format_ns_f64),
                    if c.suspect.iter().any(|s| **s == *t.name) {
                        " (suspect: touches lost events)"
                    } else {
                        ""
                    }
                ),
            ])
        })
        .collect()
}

/// The header and the rows, aligned: names and jobs left, figures right.
fn print_rows(out: &mut impl Write, rows: &[[String; 5]]) -> anyhow::Result<()> {
    let header = ["task", "bound", "observed", "ratio", "worst job"];
    let mut w = header.map(str::len);
    for r in rows {
        for (wi, c) in w.iter_mut().zip(r) {
            *wi = (*wi).max(c.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        cells
            .iter()
            .zip(w)
            .enumerate()
            .map(|(i, (c, wi))| {
                if i == 0 || i == 4 {
                    format!("{c:<wi$}")
                } else {
                    format!("{c:>wi$}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    writeln!(out, "  {}", line(header))?;
    for r in rows {
        writeln!(out, "  {}", line(r.each_ref().map(String::as_str)))?;
    }
    Ok(())
}

/// One line per task whose observation exceeds its bound.
fn print_exceeded(
    out: &mut impl Write,
    res: &AnalysisResult,
    c: &ObservedCheck,
) -> anyhow::Result<()> {
    for name in &c.exceeded {
        if let Some(t) = res.tasks.iter().find(|t| *t.name == **name) {
            writeln!(
                out,
                "EXCEEDED: {name}: observed response {} (job {} released at {}) > bound {}: \
                 the WCET or the model is wrong for this system",
                t.observed_max_ns.map_or_else(|| "?".into(), format_ns_f64),
                t.observed_job.unwrap_or(0),
                t.observed_at_ns.map_or_else(|| "?".into(), format_ns_f64),
                t.wcrt_ns.map_or_else(|| "?".into(), format_ns_f64)
            )?;
        }
    }
    Ok(())
}
