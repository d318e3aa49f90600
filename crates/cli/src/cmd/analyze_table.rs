//! `latscope analyze`'s human output: the analysis table with its breakdown, totals and
//! cores, and the offset-aware results beside the offset-free bound. One place decides
//! the layout, so the table and the offset lines stay aligned the same way.

use super::analyze::t;
use super::analyze_margins;
use latscope_model::rta::{AnalysisResult, TaskResult, Totals};
use std::io::Write;

/// The offset-based bound beside the offset-free bound.
pub(super) fn print_offset_bound(
    out: &mut impl Write,
    b: &latscope_model::rta::offsets::OffsetBound,
) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "offsets: offset-based bound ({} mode; holds with jitter and {}), beside the offset-free bound:",
        b.tick_mode,
        if b.interrupts == "periodic" {
            "interrupts declared periodic from their offsets"
        } else if b.interrupts == "mixed" {
            "the interrupts the system file declares periodic phased by their offsets, \
             the others sporadic"
        } else {
            "sporadic interrupts"
        }
    )?;
    if let Some(why) = &b.reason {
        writeln!(out, "  (equal to the offset-free bound: {why})")?;
    }
    for task in &b.tasks {
        writeln!(
            out,
            "  {:<16} {:>14} (offset-free bound {}){}",
            task.name,
            opt(task.wcrt_ns),
            opt(task.offset_free_ns),
            task.window_start
                .as_ref()
                .filter(|_| task.wcrt_ns != task.offset_free_ns)
                .map_or(String::new(), |c| format!(
                    ", worst window starts at {c}'s release"
                ))
        )?;
    }
    Ok(())
}

/// The offset-aware result beside the offset-free bound.
pub(super) fn print_offsets(
    out: &mut impl Write,
    r: &AnalysisResult,
    o: &latscope_sim::offsets::OffsetAware,
) -> anyhow::Result<()> {
    writeln!(out)?;
    match (o.reason.as_deref(), o.horizon_ns) {
        (Some(why), _) => writeln!(out, "offsets: no offset-aware result: {why}")?,
        (None, Some(h)) => {
            writeln!(
                out,
                "offsets: worst response over the simulated feasibility interval (O + 2H = {}), beside the offset-free bound:",
                t(h)
            )?;
            for task in &r.tasks {
                let Some(x) = o.tasks.iter().find(|x| *x.name == *task.name) else {
                    continue;
                };
                writeln!(
                    out,
                    "  {:<16} {:>14} (offset-free bound {})",
                    task.name,
                    opt(x.worst_ns),
                    opt(task.wcrt_ns)
                )?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn opt(ns: Option<f64>) -> String {
    ns.map_or_else(|| "unbounded".to_string(), t)
}

/// A task's WCRT cell: the value, `> D` when the analysis stopped past the bound, or
/// "unbounded".
fn wcrt_cell(r: &TaskResult) -> String {
    match (r.wcrt_ns, r.wcrt_above_ns) {
        (None, Some(b)) => format!("> {}", t(b)),
        (w, _) => opt(w),
    }
}

/// The analysis table: one row per task in the selected tick mode with the other mode's
/// WCRT beside it, then the breakdown (with `--breakdown`), the totals, the cores, what
/// the partitioned tick saves and the verdict.
pub(super) fn print_table(
    out: &mut impl Write,
    r: &AnalysisResult,
    breakdown: bool,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "{}: model {}, tick mode {}, overheads {}",
        r.source,
        r.model,
        r.tick_mode,
        if r.overheads { "on" } else { "off" }
    )?;
    print_task_rows(out, r)?;
    let shown = |n: &str| {
        n.starts_with("warning:") || n.starts_with(latscope_model::resource::nested::NOTE_PREFIX)
    };
    for n in r.notes.iter().filter(|n| shown(n)) {
        writeln!(out, "{n}")?;
    }
    if breakdown {
        writeln!(out)?;
        for a in &r.tasks {
            print_breakdown(out, a)?;
        }
    }
    print_totals(out, &r.totals)?;
    if let Some(m) = &r.method {
        writeln!(out, "method: {m}")?;
    }
    print_cores(out, r)?;
    let red: Vec<String> = r
        .pessimism_reduction
        .iter()
        .filter_map(|p| match (p.reduction_ns, p.reduction_pct) {
            (Some(ns), Some(pct)) if ns > 0.0 => Some(format!("{} {} ({pct:.1}%)", p.name, t(ns))),
            _ => None,
        })
        .collect();
    if !red.is_empty() {
        writeln!(out, "partitioned tick saves: {}", red.join(", "))?;
    }
    // The verdict every output shares (the report's first screen says the same).
    crate::verdict::write(out, &latscope_results::Verdict::analysis(r))?;
    Ok(())
}

/// The header and one aligned row per task (name left, figures right).
fn print_task_rows(out: &mut impl Write, r: &AnalysisResult) -> anyhow::Result<()> {
    let (other, other_name): (&[TaskResult], _) = if r.tick_mode == "partitioned" {
        (&r.tick_modes.pessimistic, "WCRT pess.")
    } else {
        (&r.tick_modes.partitioned, "WCRT part.")
    };
    let header = [
        "task", "prio", "period", "deadline", "jitter", "WCRT", "slack", "ok", other_name,
    ];
    let rows: Vec<[String; 9]> = r
        .tasks
        .iter()
        .zip(other)
        .map(|(a, b)| {
            [
                a.name.to_string(),
                a.priority.to_string(),
                t(a.period_ns),
                t(a.deadline_ns),
                t(a.jitter.total_ns),
                wcrt_cell(a),
                a.slack_ns.map_or_else(|| "-".into(), t),
                if a.schedulable { "yes" } else { "MISS" }.into(),
                wcrt_cell(b),
            ]
        })
        .collect();
    let mut width = header.map(str::len);
    for row in &rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    writeln!(out, "{}", aligned(&header, &width))?;
    for row in &rows {
        writeln!(out, "{}", aligned(row, &width))?;
    }
    Ok(())
}

/// One table line: the first cell left-aligned, the others right-aligned, two spaces
/// apart.
fn aligned<S: AsRef<str>>(cells: &[S], width: &[usize]) -> String {
    cells
        .iter()
        .zip(width)
        .enumerate()
        .map(|(i, (c, &w))| {
            let c = c.as_ref();
            if i == 0 {
                format!("{c:<w$}")
            } else {
                format!("{c:>w$}")
            }
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// `--breakdown`: where task `a`'s WCRT goes, the non-zero terms summed, and where its
/// blocking comes from.
fn print_breakdown(out: &mut impl Write, a: &TaskResult) -> anyhow::Result<()> {
    let b = &a.breakdown;
    let mut parts = vec![format!("wcet {}", t(b.wcet_ns))];
    if b.own_previous_jobs_ns != 0.0 {
        parts.push(format!(
            "earlier jobs {} - {}",
            t(b.own_previous_jobs_ns),
            t(-b.window_offset_ns)
        ));
    }
    for i in &b.interference {
        parts.push(format!("{} {}", i.name, t(i.ns)));
    }
    if b.interference_others_ns != 0.0 {
        parts.push(format!("other tasks {}", t(b.interference_others_ns)));
    }
    for (name, v) in [
        ("tick", b.tick_ns),
        ("switches", b.context_switch_ns),
        ("interrupts", b.interrupts_ns),
        ("blocking", b.blocking_ns),
        ("jitter", b.jitter_ns),
    ] {
        if v != 0.0 {
            parts.push(format!("{name} {}", t(v)));
        }
    }
    let why = a
        .unbounded_reason
        .as_deref()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    writeln!(
        out,
        "  {} = {}{}: {}",
        a.name,
        opt(a.wcrt_ns),
        why,
        parts.join(" + ")
    )?;
    analyze_margins::print_blocking_from(out, a)
}

/// Utilisation by part and the quick utilisation tests.
fn print_totals(out: &mut impl Write, x: &Totals) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "utilisation: tasks {:.2}%, interrupts {:.2}%, tick {:.2}% pessimistic / {:.2}% partitioned, \
         switches {:.2}%, time slicing {:.2}%, total {:.2}%",
        100.0 * x.utilisation_tasks,
        100.0 * x.utilisation_interrupts,
        100.0 * x.utilisation_tick_pessimistic,
        100.0 * x.utilisation_tick_partitioned,
        100.0 * x.utilisation_context_switch,
        100.0 * x.utilisation_time_slicing,
        100.0 * x.utilisation_total
    )?;
    writeln!(
        out,
        "quick checks (tasks only): Liu & Layland bound {:.4} -> {}, hyperbolic product {:.4} -> {}; hyperperiod {}",
        x.liu_layland_bound,
        if x.liu_layland_ok { "pass" } else { "inconclusive" },
        x.hyperbolic_product,
        if x.hyperbolic_ok { "pass" } else { "inconclusive" },
        x.hyperperiod_ns.map_or_else(|| "too large".into(), t)
    )?;
    Ok(())
}

/// One line per core of a partitioned multicore system.
fn print_cores(out: &mut impl Write, r: &AnalysisResult) -> anyhow::Result<()> {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    };
    for c in &r.cores {
        writeln!(
            out,
            "core {}: tasks {}; interrupts {}; utilisation {:.2}% (tasks {:.2}%) -> {}",
            c.core,
            list(&c.tasks),
            list(&c.interrupts),
            100.0 * c.utilisation,
            100.0 * c.utilisation_tasks,
            if c.schedulable {
                "schedulable"
            } else {
                "NOT schedulable"
            }
        )?;
    }
    Ok(())
}
