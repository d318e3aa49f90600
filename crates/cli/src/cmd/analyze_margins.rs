//! `latscope analyze --sensitivity` and `--assign-priorities`: printing the margins and
//! the priority assignment (the logic lives in `latscope_model::sensitivity` and
//! `latscope_model::priority`).

use latscope_core::Picos;
use latscope_model::sensitivity::Sensitivity;
use latscope_model::system::format_exact;
use std::io::Write;

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
    if p < 0 {
        format!("-{}", format_exact(Picos(-p)))
    } else {
        format_exact(Picos(p))
    }
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
            format_exact(Picos(1_000_000_000_000 / hz.max(1) as i64)),
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
