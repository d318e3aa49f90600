//! `analyze` of a system whose kernel schedules by earliest deadline
//! (`kernel.scheduler = "edf"`): the processor-demand verdict and the bound per task.

use latscope_model::edf::{analyze_edf, analyze_edf_cores, EdfResult};
use latscope_model::rta::{AnalysisOptions, AnalysisResult};
use latscope_model::system::{Scheduler, System};
use std::io::Write;

use super::analyze::t;

/// The EDF analysis when a core schedules by deadline (`None` for fixed priority). The
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
        let m = multicore(sys, opts, res)?;
        edf_chains(sys, opts, res, &m);
        return Ok(Some(m));
    }
    let e = analyze_edf(sys, opts)?;
    edf_chains(sys, opts, res, &e);
    res.schedulable = e.schedulable;
    res.notes.push(
        "kernel.scheduler = edf: `schedulable` is the EDF processor-demand verdict (QPA) and \
         `edf.tasks` the EDF bounds (Spuri); `tasks` are the fixed-priority bounds of the \
         same set by its priorities, for comparison"
            .into(),
    );
    Ok(Some(e))
}

/// The chains through tasks of EDF cores take those tasks' EDF bounds (Spuri, with the
/// release jitter of event links settled), not the fixed-priority ones.
fn edf_chains(sys: &System, opts: &AnalysisOptions, res: &mut AnalysisResult, e: &EdfResult) {
    if !(0..sys.chains.len()).any(|k| latscope_model::chain::edf::through_edf(sys, k)) {
        return;
    }
    res.chains = latscope_model::chain::edf::chains_with_edf(sys, opts, res, &e.tasks);
    res.notes.push(
        "chains through tasks on EDF cores add those tasks' EDF bounds (Spuri; a task \
         released by another's completion has that task's bound as release jitter)"
            .into(),
    );
}

/// A partitioned multicore with EDF cores: each EDF core analysed on its own
/// (`latscope_model::edf::cores`); its entry in `cores` carries the EDF verdict, the
/// fixed-priority cores keep theirs. The one `edf` object holds every EDF core's tasks;
/// its utilisation and busy period are the busiest EDF core's, its QPA steps the sum.
fn multicore(
    sys: &System,
    opts: &AnalysisOptions,
    res: &mut AnalysisResult,
) -> anyhow::Result<EdfResult> {
    let per = analyze_edf_cores(sys, opts)?;
    let mut m = EdfResult {
        schedulable: true,
        utilisation: 0.0,
        busy_period_ns: None,
        demand_exceeded_at_ns: None,
        qpa_steps: 0,
        reason: None,
        tasks: Vec::new(),
    };
    let mut edf_cores = Vec::new();
    for c in per {
        let r = c.result;
        edf_cores.push(c.core.to_string());
        m.schedulable &= r.schedulable;
        m.utilisation = m.utilisation.max(r.utilisation);
        m.busy_period_ns = match (m.busy_period_ns, r.busy_period_ns) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        m.demand_exceeded_at_ns = m.demand_exceeded_at_ns.or(r.demand_exceeded_at_ns);
        m.qpa_steps += r.qpa_steps;
        if let Some(why) = &r.reason {
            let why = format!("core {}: {why}", c.core);
            m.reason = Some(match m.reason.take() {
                Some(a) => format!("{a}; {why}"),
                None => why,
            });
        }
        if let Some(x) = res.cores.iter_mut().find(|x| x.core == c.core) {
            x.schedulable = r.schedulable;
        }
        m.tasks.extend(r.tasks);
    }
    res.schedulable = res.cores.iter().all(|c| c.schedulable);
    res.notes.push(
        format!(
            "EDF on core(s) {}: their verdicts in `cores` are the EDF processor-demand verdicts \
         (QPA) and `edf.tasks` their EDF bounds (Spuri), each core analysed with its own \
         tasks, interrupts and overheads; `tasks` are the fixed-priority bounds, for comparison",
            edf_cores.join(", ")
        )
        .into(),
    );
    Ok(m)
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
