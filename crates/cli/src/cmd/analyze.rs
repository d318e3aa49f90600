//! `latscope analyze`: response-time analysis of a system description with kernel
//! overheads. Logic lives in `latscope_model::rta`; this file parses flags and prints.

use super::analyze_margins;
use anyhow::Context;
use latscope_core::time::{human, parse_nonneg_duration};
use latscope_core::Picos;
use latscope_model::rta::{
    analyze, analyze_mode, AnalysisOptions, AnalysisResult, InterferenceDetail, SwitchCharge,
    TaskResult,
};
use latscope_model::system::TickMode;
use latscope_model::System;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ModeArg {
    /// Every tick pays for releasing all n tasks
    Pessimistic,
    /// Base tick every tick plus one pseudo-task per task with that task's period (Miranda, de Oliveira, Carminati)
    Partitioned,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SwitchArg {
    /// One switch per completion and one per preemption, as a PendSV-style kernel
    /// (FreeRTOS on Cortex-M) does them and the simulator charges them
    PerEvent,
    /// Two switches (in and out) per higher-priority job: for kernels whose switch-out
    /// and switch-in are separate (conservative)
    PerJob,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope analyze system.toml
  latscope analyze system.toml --tick-mode pessimistic --breakdown
  latscope analyze system.toml --json result.json --check
  latscope analyze system.toml --no-overheads --json -
  latscope analyze system.toml --sensitivity
  latscope analyze system.toml --assign-priorities --write
  latscope analyze system.toml --observed run.psf --json result.json

--observed TRACE reads an event recording (perf.data, TraceRecorder .psf, SystemView
.SVDat; see docs/event-traces.md), computes each task's worst observed response (release
to block) and puts it beside the task's bound with the ratio and the job where it
happened. Tasks are matched by name; unmatched names are listed. An observation above its
bound exits 1: the WCET or the model is wrong for this system. Lost events are reported.

The system format is described in docs/system-format.md and the analysis (equations,
assumptions, sources) in docs/analysis.md. Both tick modes are always computed; the
table shows the selected one and the other one's WCRT beside it. When a task has an
offset, two offset-aware results follow the table (and the JSON keys offset_aware and
offset_bound): the exact worst response of a deterministic set (simulated over its
feasibility interval) and a sound offset-based bound that also holds with jitter and
sporadic interrupts, each beside the offset-free bound.")]
pub struct Args {
    /// System description (TOML, or JSON by extension or content)
    pub system: PathBuf,
    /// Write the full result as JSON to this file (`-` for standard output)
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// Tick accounting shown in the table and in `tasks` (default: the file's kernel.tick_mode)
    #[arg(long, value_enum)]
    pub tick_mode: Option<ModeArg>,
    /// Do not charge kernel overheads (tick, context switches, interrupt entry latency,
    /// tickless wake-up, kernel critical sections); interrupt handlers' WCETs and task
    /// blocking are still charged
    #[arg(long)]
    pub no_overheads: bool,
    /// Do not add the tick-driven release delay (tick-released tasks: one tick on top of
    /// the jitter when the period or offset is not a whole number of ticks, else the
    /// jitter rounded up to whole ticks)
    #[arg(long)]
    pub no_release_delay: bool,
    /// Compute every task's WCRT exactly, also past its deadline. By default a task's
    /// analysis stops once its response time passes its deadline (or --stop-past): it
    /// misses the deadline whatever the value, which is then reported as "unbounded past
    /// D" (JSON: `wcrt_ns` null, `wcrt_above_ns` the bound passed)
    #[arg(long, conflicts_with = "stop_past")]
    pub exact_unbounded: bool,
    /// Iterate a task past its deadline up to this response time before reporting it
    /// unbounded (default: the deadline)
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_nonneg_duration,
        allow_hyphen_values = true
    )]
    pub stop_past: Option<Picos>,
    /// How many higher-priority tasks each task's breakdown names: a number (the largest
    /// shares; the rest summed in `interference_others_ns`) or `full` (every one: n^2 / 2
    /// shares for n tasks)
    #[arg(long, value_name = "N|full", default_value = "8")]
    pub interference: InterferenceDetail,
    /// The default now (kept for scripts that pass it)
    #[arg(long, hide = true, conflicts_with = "exact_unbounded")]
    pub stop_at_deadline: bool,
    /// How context switches are charged
    #[arg(long, value_enum, default_value = "per-event")]
    pub switch_charge: SwitchArg,
    /// Print each task's WCRT breakdown (own WCET, interference, tick, switches, ...)
    #[arg(long)]
    pub breakdown: bool,
    /// Exit with status 1 when any task misses its deadline
    #[arg(long)]
    pub check: bool,
    /// Run the analysis N times and print the mean time per run on standard error (for
    /// benchmarks; parsing and printing are not timed)
    #[arg(long, value_name = "N")]
    pub repeat: Option<u32>,
    /// Margins: the critical scaling factor of all task WCETs, each task's WCET margin
    /// alone and the highest tick rate that stays schedulable, each with the task that
    /// misses first beyond it (JSON: top-level `sensitivity`)
    #[arg(long)]
    pub sensitivity: bool,
    /// Find a priority order under which every task meets its deadline (Audsley's optimal
    /// priority assignment over this analysis), or name the task that cannot be placed
    /// (JSON: top-level `assignment`)
    #[arg(long)]
    pub assign_priorities: bool,
    /// With --assign-priorities: write the found priorities into the system file (only
    /// the `priority` keys change; comments and layout stay)
    #[arg(long, requires = "assign_priorities")]
    pub write: bool,
    /// Declare every interrupt strictly periodic: it arrives every `min_interarrival`,
    /// first at its `offset` (as `simulate --irq-arrivals worst` runs it). The offset-based bound
    /// then phases the handlers and the tasks they release like periodic tasks (JSON:
    /// `offset_bound.interrupts` = "periodic"); without it only the interrupts whose
    /// system-file entry says `periodic = true` are ("mixed"), the others sporadic
    #[arg(long)]
    pub periodic_interrupts: bool,
    /// Check the bounds against an event recording (perf.data, TraceRecorder .psf,
    /// SystemView .SVDat): each task's observed worst response beside its bound, matched
    /// by name (JSON: `observed_max_ns`, `observed_at_ns`, `observed_job`, `bound_ratio`
    /// per task, and `observed`); exit 1 when an observation exceeds its bound
    #[arg(long, value_name = "TRACE")]
    pub observed: Option<PathBuf>,
    #[command(flatten)]
    pub labels: crate::labels::LabelArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let labels = args.labels.resolve()?;
    let sys = System::from_path(&args.system)
        .with_context(|| format!("reading system description {}", args.system.display()))?;
    let opts = AnalysisOptions {
        tick_mode: args.tick_mode.map(|m| match m {
            ModeArg::Pessimistic => TickMode::Pessimistic,
            ModeArg::Partitioned => TickMode::Partitioned,
        }),
        overheads: !args.no_overheads,
        tick_release_delay: !args.no_release_delay,
        stop_at_deadline: args.stop_at_deadline || !args.exact_unbounded,
        stop_bound: args.stop_past,
        interference: args.interference,
        switch_charge: match args.switch_charge {
            SwitchArg::PerEvent => SwitchCharge::PerEvent,
            SwitchArg::PerJob => SwitchCharge::PerJob,
        },
        ..Default::default()
    };
    let multicore = sys.platform.cores > 1;
    if multicore && args.observed.is_some() {
        anyhow::bail!(
            "{}: --observed analyses one core; \
             this system has platform.cores = {} (docs/analysis.md, Multicore)",
            args.system.display(),
            sys.platform.cores
        );
    }
    let mut res = analyze(&sys, &opts).with_context(|| args.system.display().to_string())?;
    let edf = super::analyze_edf::run(&sys, &opts, &mut res)
        .with_context(|| args.system.display().to_string())?;
    let observed = match &args.observed {
        Some(p) => Some(
            super::analyze_observed::check(&mut res, p)
                .with_context(|| format!("--observed {}", p.display()))?,
        ),
        None => None,
    };
    if let Some(n) = args.repeat.filter(|&n| n > 0) {
        let start = std::time::Instant::now();
        for _ in 0..n {
            let _ = std::hint::black_box(analyze(std::hint::black_box(&sys), &opts));
        }
        let per = start.elapsed().as_secs_f64() / n as f64;
        let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
        let start = std::time::Instant::now();
        for _ in 0..n {
            let _ = std::hint::black_box(analyze_mode(std::hint::black_box(&sys), &opts, mode));
        }
        let one = start.elapsed().as_secs_f64() / n as f64;
        eprintln!(
            "analysis time: {:.3} us per run ({n} runs, {} tasks, both tick modes); {:.3} us for the {} mode alone",
            per * 1e6,
            sys.tasks.len(),
            one * 1e6,
            mode.name()
        );
    }
    let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
    let margins = if args.sensitivity {
        Some(
            analyze_margins::guarded(|| {
                latscope_model::sensitivity::sensitivity(&sys, &opts, mode)
            })
            .with_context(|| args.system.display().to_string())?
            .with_context(|| args.system.display().to_string())?,
        )
    } else {
        None
    };
    let assignment = if args.assign_priorities {
        Some(
            analyze_margins::guarded(|| {
                latscope_model::priority::assign_priorities(&sys, &opts, mode)
            })
            .with_context(|| args.system.display().to_string())?,
        )
    } else {
        None
    };
    // Offsets (phases): beside the offset-free bound, the offset-aware worst response of
    // a deterministic set (simulated feasibility interval), when any task has an offset.
    // (one core only: the offset-aware results simulate and analyse a single core)
    let offset_aware = (!multicore && sys.tasks.iter().any(|t| t.offset != Picos::ZERO))
        .then(|| latscope_sim::offsets::offset_aware(&sys));
    // And a sound offset-based bound, which also holds with jitter and sporadic
    // interrupts (docs/analysis.md, "Offsets: a sound bound with jitter").
    // With --periodic-interrupts, the handlers' phases count too.
    let irq = if args.periodic_interrupts {
        latscope_model::rta::offsets::IrqPhasing::Periodic
    } else {
        latscope_model::rta::offsets::IrqPhasing::Sporadic
    };
    // interrupts phased: every one with the flag, else those the system file declares
    // `periodic = true`
    let phased_irq = sys
        .interrupts
        .iter()
        .any(|x| (args.periodic_interrupts || x.periodic) && x.offset != Picos::ZERO);
    let offset_bound =
        if !multicore && (phased_irq || sys.tasks.iter().any(|t| t.offset != Picos::ZERO)) {
            Some(
                latscope_model::rta::offsets::offset_bound_with(&sys, &opts, mode, irq)
                    .with_context(|| args.system.display().to_string())?,
            )
        } else {
            None
        };
    let to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(path) = &args.json {
        let mut doc = latscope_sim::analysis::AnalyzeDocument::new(
            res.clone(),
            offset_aware.clone(),
            offset_bound.clone(),
            margins.clone(),
            assignment.clone(),
        );
        doc.observed = observed.as_ref().map(|(c, _)| c.clone());
        doc.edf = edf.clone();
        crate::labels::write_json(path, &doc, &labels)?;
    }
    if !to_stdout {
        let mut out = std::io::stdout().lock();
        match &edf {
            Some(e) => {
                // Several cores: the per-core lines and the fixed-priority cores' tasks
                // come from the table, the EDF cores' bounds from the EDF table below.
                if multicore {
                    print_table(&mut out, &res, args.breakdown)?;
                }
                super::analyze_edf::print(&mut out, e)?
            }
            None => print_table(&mut out, &res, args.breakdown)?,
        }
        super::analyze_chains::print(&mut out, &res)?;
        if let Some(m) = &margins {
            analyze_margins::print_sensitivity(&mut out, m)?;
        }
        if let Some(a) = &assignment {
            analyze_margins::print_assignment(&mut out, a)?;
        }
        if let Some(o) = &offset_aware {
            print_offsets(&mut out, &res, o)?;
        }
        if let Some(b) = &offset_bound {
            print_offset_bound(&mut out, b)?;
        }
        if let Some((c, timing)) = &observed {
            super::analyze_observed::print(&mut out, &res, c, timing)?;
        }
    }
    if let (true, Some(a)) = (args.write, &assignment) {
        analyze_margins::write_priorities(&args.system, &sys, a)?;
        if !to_stdout {
            println!("wrote the priorities into {}", args.system.display());
        }
    }
    if let Some((c, _)) = &observed {
        if !c.exceeded.is_empty() {
            if to_stdout {
                eprintln!(
                    "latscope: observed responses exceed their bounds ({}): the WCET or the \
                     model is wrong for this system",
                    c.exceeded.join(", ")
                );
            }
            return Ok(ExitCode::from(1));
        }
    }
    // A chain past its end-to-end deadline fails the check as a task does.
    let chain_missed = res.chains.iter().any(|c| c.meets_deadline == Some(false));
    Ok(if args.check && (!res.schedulable || chain_missed) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The offset-based bound beside the offset-free bound.
fn print_offset_bound(
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
fn print_offsets(
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
                let Some(x) = o.tasks.iter().find(|x| x.name == task.name) else {
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

/// A time for the table: the human form with [`human::PRECISE`] digits, so a value
/// given to the nanosecond prints exactly (the JSON output carries the exact values).
pub(super) fn t(ns: f64) -> String {
    human::ns_precise(ns)
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

fn print_table(out: &mut impl Write, r: &AnalysisResult, breakdown: bool) -> anyhow::Result<()> {
    let other: &[TaskResult] = if r.tick_mode == "partitioned" {
        &r.tick_modes.pessimistic
    } else {
        &r.tick_modes.partitioned
    };
    let other_name = if r.tick_mode == "partitioned" {
        "WCRT pess."
    } else {
        "WCRT part."
    };
    writeln!(
        out,
        "{}: model {}, tick mode {}, overheads {}",
        r.source,
        r.model,
        r.tick_mode,
        if r.overheads { "on" } else { "off" }
    )?;
    let header = [
        "task", "prio", "period", "deadline", "jitter", "WCRT", "slack", "ok", other_name,
    ];
    let mut rows: Vec<[String; 9]> = Vec::new();
    for (a, b) in r.tasks.iter().zip(other) {
        rows.push([
            a.name.clone(),
            a.priority.to_string(),
            t(a.period_ns),
            t(a.deadline_ns),
            t(a.jitter.total_ns),
            wcrt_cell(a),
            a.slack_ns.map_or_else(|| "-".into(), t),
            if a.schedulable { "yes" } else { "MISS" }.into(),
            wcrt_cell(b),
        ]);
    }
    let mut width = header.map(str::len);
    for row in &rows {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
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
    writeln!(out, "{}", line(header.to_vec()))?;
    for row in &rows {
        writeln!(out, "{}", line(row.iter().map(String::as_str).collect()))?;
    }
    let shown = |n: &str| {
        n.starts_with("warning:") || n.starts_with(latscope_model::resource::nested::NOTE_PREFIX)
    };
    for n in r.notes.iter().filter(|n| shown(n)) {
        writeln!(out, "{n}")?;
    }
    if breakdown {
        writeln!(out)?;
        for a in &r.tasks {
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
            analyze_margins::print_blocking_from(out, a)?;
        }
    }
    let x = &r.totals;
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
    if let Some(m) = &r.method {
        writeln!(out, "method: {m}")?;
    }
    for c in &r.cores {
        writeln!(
            out,
            "core {}: tasks {}; interrupts {}; utilisation {:.2}% (tasks {:.2}%) -> {}",
            c.core,
            if c.tasks.is_empty() {
                "none".into()
            } else {
                c.tasks.join(", ")
            },
            if c.interrupts.is_empty() {
                "none".into()
            } else {
                c.interrupts.join(", ")
            },
            100.0 * c.utilisation,
            100.0 * c.utilisation_tasks,
            if c.schedulable {
                "schedulable"
            } else {
                "NOT schedulable"
            }
        )?;
    }
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
