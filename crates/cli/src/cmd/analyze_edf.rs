//! `analyze` of a system whose kernel schedules by earliest deadline
//! (`kernel.scheduler = "edf"`): the processor-demand verdict and the bound per task.

use latscope_model::edf::{analyze_edf, EdfResult};
use latscope_model::rta::{AnalysisOptions, AnalysisResult};
use latscope_model::system::{Scheduler, System};
use std::io::Write;

use super::analyze::t;

/// The EDF analysis when core 0 schedules by deadline (`None` for fixed priority). The
/// fixed-priority result `res` then carries EDF's verdict in `schedulable` and says so in
/// its notes (its tasks stay the fixed-priority bounds, for comparison).
pub fn run(
    sys: &System,
    opts: &AnalysisOptions,
    res: &mut AnalysisResult,
) -> anyhow::Result<Option<EdfResult>> {
    let edf_cores = (0..sys.platform.cores)
        .filter(|&c| sys.kernel.scheduler_of(c) == Scheduler::Edf)
        .count();
    if edf_cores == 0 {
        return Ok(None);
    }
    if sys.platform.cores > 1 {
        anyhow::bail!(
            "EDF is analysed on one core only so far (platform.cores is {}); \
             use scheduler = \"fp\" on a multicore platform",
            sys.platform.cores
        );
    }
    let e = analyze_edf(sys, opts)?;
    res.schedulable = e.schedulable;
    res.notes.push(
        "kernel.scheduler = edf: `schedulable` is the EDF processor-demand verdict (QPA) and \
         `edf.tasks` the EDF bounds (Spuri); `tasks` are the fixed-priority bounds of the \
         same set by its priorities, for comparison"
            .into(),
    );
    Ok(Some(e))
}

/// The EDF table and verdict.
pub fn print(out: &mut impl Write, e: &EdfResult) -> anyhow::Result<()> {
    writeln!(
        out,
        "scheduler: EDF (processor demand with QPA, bounds by Spuri's busy-period analysis); utilisation {:.4} with overheads",
        e.utilisation
    )?;
    let header = [
        "task",
        "period",
        "deadline",
        "jitter",
        "C+switches",
        "bound",
        "ok",
    ];
    let rows: Vec<[String; 7]> = e
        .tasks
        .iter()
        .map(|x| {
            [
                x.name.clone(),
                t(x.period_ns),
                t(x.deadline_ns),
                t(x.jitter_ns),
                t(x.charged_wcet_ns),
                x.bound_ns.map_or_else(|| "-".into(), t),
                if x.schedulable { "yes" } else { "MISS" }.into(),
            ]
        })
        .collect();
    let mut width = header.map(str::len);
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        cells
            .iter()
            .zip(width)
            .enumerate()
            .map(|(i, (c, w))| {
                if i == 0 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    writeln!(out, "{}", line(&header))?;
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        writeln!(out, "{}", line(&cells))?;
    }
    if let Some(b) = e.busy_period_ns {
        writeln!(
            out,
            "busy period {}; QPA examined {} points",
            t(b),
            e.qpa_steps
        )?;
    }
    match (&e.reason, e.schedulable) {
        (_, true) => writeln!(
            out,
            "schedulable under EDF: the demand never exceeds the processor"
        )?,
        (Some(r), false) => writeln!(out, "NOT schedulable under EDF: {r}")?,
        (None, false) => writeln!(out, "NOT schedulable under EDF")?,
    }
    Ok(())
}
