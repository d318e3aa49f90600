//! `latscope analyze --sensitivity` and `--assign-priorities`: printing the margins and
//! the priority assignment (the logic lives in `latscope_model::sensitivity` and
//! `latscope_model::priority`).

use anyhow::Context;
use latscope_core::time::human;
use latscope_model::priority::{update_priorities_toml, with_priorities, Assignment};
use latscope_model::sensitivity::Sensitivity;
use latscope_model::System;
use std::io::Write;
use std::path::Path;

/// Runs `f`; an arithmetic overflow inside the analysis (costs or periods so large that
/// a busy window passes 64-bit picoseconds) becomes an error instead of a panic.
pub fn guarded<T>(f: impl FnOnce() -> T) -> anyhow::Result<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    r.map_err(|_| {
        anyhow::anyhow!(
            "the analysis overflows 64-bit picoseconds (about 106 days): a cost, period or \
             latency in the file is far too large"
        )
    })
}

fn ps(p: i64) -> String {
    human::ps_sig(p as f64, human::PRECISE)
}

pub fn print_sensitivity(out: &mut impl Write, s: &Sensitivity) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(out, "margins ({} tick mode):", s.tick_mode)?;
    match (s.scaling_factor, &s.critical_task) {
        (Some(f), c) => writeln!(
            out,
            "  critical scaling factor {f:.6}: every task WCET x{f:.6} still meets every deadline{}",
            c.as_deref()
                .map(|c| format!("; just above, {c} misses first"))
                .unwrap_or_default()
        )?,
        (None, Some(c)) => writeln!(
            out,
            "  critical scaling factor: none ({c} misses even with every task WCET at zero)"
        )?,
        (None, None) => writeln!(out, "  critical scaling factor: none (no task has a WCET)")?,
    }
    let w = s
        .tasks
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "  {:<w$}  {:>14}  first to miss beyond it",
        "task", "WCET margin"
    )?;
    for t in &s.tasks {
        writeln!(
            out,
            "  {:<w$}  {:>14}  {}",
            t.name,
            t.wcet_margin_ps.map_or_else(
                || "none".to_string(),
                |p| format!("{}{}", if p > 0 { "+" } else { "" }, ps(p))
            ),
            t.critical_task.as_deref().unwrap_or("-")
        )?;
    }
    match s.max_tick_hz {
        Some(hz) => writeln!(
            out,
            "  highest tick rate {hz} Hz (tick period {}){}: {}",
            ps(1_000_000_000_000 / hz.max(1) as i64),
            s.max_tick_critical_task
                .as_deref()
                .map(|c| format!(", {c} misses first above it"))
                .unwrap_or_default(),
            s.max_tick_note
        )?,
        None => writeln!(out, "  highest tick rate: {}", s.max_tick_note)?,
    }
    Ok(())
}

pub fn print_assignment(out: &mut impl Write, a: &Assignment) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "priority assignment (Audsley, {} tick mode):",
        a.tick_mode
    )?;
    match (&a.order, &a.failure) {
        (Some(order), _) => {
            let list: Vec<String> = order
                .iter()
                .map(|x| format!("{} {}", x.name, x.priority))
                .collect();
            writeln!(
                out,
                "  every task meets its deadline with (highest first): {}",
                list.join(", ")
            )?;
        }
        (None, Some(f)) => {
            writeln!(out, "  {}", f.message)?;
            for c in &f.candidates {
                let d = human::ns_precise(c.deadline_ns);
                match c.wcrt_ns {
                    Some(w) => writeln!(
                        out,
                        "    {} at priority {}: WCRT {} > deadline {d}",
                        c.name,
                        f.priority,
                        human::ns_precise(w)
                    )?,
                    None => writeln!(
                        out,
                        "    {} at priority {}: misses its deadline {d} (the analysis stopped past it)",
                        c.name, f.priority
                    )?,
                }
            }
        }
        (None, None) => writeln!(out, "  no feasible assignment")?,
    }
    for n in &a.notes {
        writeln!(out, "  note: {n}")?;
    }
    Ok(())
}

/// Writes the assigned priorities into the system file: a TOML file keeps everything but
/// the `priority` values; a JSON file is rewritten from the model. The new text goes to
/// a temporary file beside it that replaces the file only once complete.
pub fn write_priorities(path: &Path, sys: &System, a: &Assignment) -> anyhow::Result<()> {
    let Some(order) = &a.order else {
        let why = a
            .failure
            .as_ref()
            .map_or("no feasible assignment", |f| f.message.as_str());
        anyhow::bail!("{}: not written: {why}", path.display());
    };
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let text = if is_json {
        let prio: Vec<u32> = sys
            .tasks
            .iter()
            .map(|t| {
                order
                    .iter()
                    .find(|x| x.name == t.name)
                    .map_or(t.priority, |x| x.priority)
            })
            .collect();
        with_priorities(sys, &prio).to_json_string() + "\n"
    } else {
        let orig =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        update_priorities_toml(&orig, order)
            .with_context(|| format!("updating the priorities of {}", path.display()))?
    };
    crate::out::write(path, "--write", &text)?;
    Ok(())
}

/// With `--breakdown`: where a task's blocking comes from (the critical sections of the
/// resources, and the file's own `blocking` or interrupts-disabled sections).
pub fn print_blocking_from(
    out: &mut impl Write,
    a: &latscope_model::rta::TaskResult,
) -> anyhow::Result<()> {
    if a.blocking_from.is_empty() {
        return Ok(());
    }
    let t = human::ns_precise;
    let computed: f64 = a.blocking_from.iter().map(|b| b.duration_ns).sum();
    let mut parts: Vec<String> = a
        .blocking_from
        .iter()
        .map(|b| {
            if b.resource == latscope_model::resource::nested::PREEMPTS_CHAIN {
                format!("{} preempting the chain {}", b.task, t(b.duration_ns))
            } else {
                format!("{} holding {} {}", b.task, b.resource, t(b.duration_ns))
            }
        })
        .collect();
    let given = a.blocking_ns - computed;
    if given > 0.0005 {
        parts.push(format!("given {}", t(given)));
    }
    writeln!(
        out,
        "    blocking {} = {}",
        t(a.blocking_ns),
        parts.join(" + ")
    )?;
    Ok(())
}
