//! `latscope analyze`: response-time analysis of a system description with kernel
//! overheads. Logic lives in `latscope_model::rta`; this file parses flags and runs what they
//! ask for; the tables are printed by `analyze_table`.

use super::analyze_margins;
use super::analyze_table::{print_offset_bound, print_offsets, print_table};
use anyhow::Context;
use latscope_core::time::{human, parse_nonneg_duration};
use latscope_core::Picos;
use latscope_model::edf::EdfResult;
use latscope_model::priority::Assignment;
use latscope_model::rta::{
    analyze, analyze_mode, AnalysisOptions, AnalysisResult, InterferenceDetail, SwitchCharge,
};
use latscope_model::sensitivity::Sensitivity;
use latscope_model::system::TickMode;
use latscope_model::System;
use latscope_sim::observed::ObservedCheck;
use latscope_trace::tasks::TaskTimingResult;
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

/// Runs `latscope analyze`: analyses, adds what the flags ask for, writes the JSON
/// and prints the tables.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let labels = args.labels.resolve()?;
    let sys = System::from_path(&args.system)
        .with_context(|| format!("reading system description {}", args.system.display()))?;
    let opts = options(&args);
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
        time_runs(&sys, &opts, n);
    }
    let extras = Extras::compute(&args, &sys, &opts)?;
    let out = Outcome {
        res,
        edf,
        observed,
        extras,
    };
    let to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(path) = &args.json {
        crate::labels::write_json(path, &out.document(), &labels)?;
    }
    if !to_stdout {
        out.print(&mut std::io::stdout().lock(), args.breakdown, multicore)?;
    }
    if let (true, Some(a)) = (args.write, &out.extras.assignment) {
        analyze_margins::write_priorities(&args.system, &sys, a)?;
        if !to_stdout {
            println!("wrote the priorities into {}", args.system.display());
        }
    }
    Ok(out.exit_code(args.check, to_stdout))
}

/// The analysis options the flags select.
fn options(args: &Args) -> AnalysisOptions {
    AnalysisOptions {
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
    }
}

/// `--repeat N`: times N analyses (both tick modes, then the selected one alone) and
/// prints the mean per run on standard error, for `bench/rta`.
fn time_runs(sys: &System, opts: &AnalysisOptions, n: u32) {
    let start = std::time::Instant::now();
    for _ in 0..n {
        let _ = std::hint::black_box(analyze(std::hint::black_box(sys), opts));
    }
    let per = start.elapsed().as_secs_f64() / n as f64;
    let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
    let start = std::time::Instant::now();
    for _ in 0..n {
        let _ = std::hint::black_box(analyze_mode(std::hint::black_box(sys), opts, mode));
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

/// What the flags add to the table: margins, an assignment, the offset-aware results.
struct Extras {
    margins: Option<Sensitivity>,
    assignment: Option<Assignment>,
    offset_aware: Option<latscope_sim::offsets::OffsetAware>,
    offset_bound: Option<latscope_model::rta::offsets::OffsetBound>,
}

impl Extras {
    fn compute(args: &Args, sys: &System, opts: &AnalysisOptions) -> anyhow::Result<Extras> {
        let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
        let place = || args.system.display().to_string();
        let margins = if args.sensitivity {
            Some(
                analyze_margins::guarded(|| {
                    latscope_model::sensitivity::sensitivity(sys, opts, mode)
                })
                .with_context(place)?
                .with_context(place)?,
            )
        } else {
            None
        };
        let assignment = if args.assign_priorities {
            Some(
                analyze_margins::guarded(|| {
                    latscope_model::priority::assign_priorities(sys, opts, mode)
                })
                .with_context(place)?,
            )
        } else {
            None
        };
        let (offset_aware, offset_bound) = offset_results(args, sys, opts, mode)?;
        Ok(Extras {
            margins,
            assignment,
            offset_aware,
            offset_bound,
        })
    }
}

/// The offset-aware results (one core only: they simulate and analyse a single core).
fn offset_results(
    args: &Args,
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
) -> anyhow::Result<(
    Option<latscope_sim::offsets::OffsetAware>,
    Option<latscope_model::rta::offsets::OffsetBound>,
)> {
    let multicore = sys.platform.cores > 1;
    let task_offsets = sys.tasks.iter().any(|t| t.offset != Picos::ZERO);
    // Offsets (phases): beside the offset-free bound, the offset-aware worst response of
    // a deterministic set (simulated feasibility interval), when any task has an offset.
    let offset_aware =
        (!multicore && task_offsets).then(|| latscope_sim::offsets::offset_aware(sys));
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
    let offset_bound = if !multicore && (phased_irq || task_offsets) {
        Some(
            latscope_model::rta::offsets::offset_bound_with(sys, opts, mode, irq)
                .with_context(|| args.system.display().to_string())?,
        )
    } else {
        None
    };
    Ok((offset_aware, offset_bound))
}

/// Everything `analyze` found, for the JSON document, the tables and the exit status.
struct Outcome {
    res: AnalysisResult,
    edf: Option<EdfResult>,
    observed: Option<(ObservedCheck, TaskTimingResult)>,
    extras: Extras,
}

impl Outcome {
    /// The `--json` document.
    fn document(&self) -> latscope_sim::analysis::AnalyzeDocument {
        let x = &self.extras;
        let mut doc = latscope_sim::analysis::AnalyzeDocument::new(
            self.res.clone(),
            x.offset_aware.clone(),
            x.offset_bound.clone(),
            x.margins.clone(),
            x.assignment.clone(),
        );
        doc.observed = self.observed.as_ref().map(|(c, _)| c.clone());
        doc.edf = self.edf.clone();
        doc
    }

    /// The tables, in the order the flags' sections always come.
    fn print(&self, out: &mut impl Write, breakdown: bool, multicore: bool) -> anyhow::Result<()> {
        let res = &self.res;
        match &self.edf {
            Some(e) => {
                // Several cores: the per-core lines and the fixed-priority cores' tasks
                // come from the table, the EDF cores' bounds from the EDF table below.
                if multicore {
                    print_table(out, res, breakdown)?;
                }
                super::analyze_edf::print(out, e)?
            }
            None => print_table(out, res, breakdown)?,
        }
        super::analyze_chains::print(out, res)?;
        let x = &self.extras;
        if let Some(m) = &x.margins {
            analyze_margins::print_sensitivity(out, m)?;
        }
        if let Some(a) = &x.assignment {
            analyze_margins::print_assignment(out, a)?;
        }
        if let Some(o) = &x.offset_aware {
            print_offsets(out, res, o)?;
        }
        if let Some(b) = &x.offset_bound {
            print_offset_bound(out, b)?;
        }
        if let Some((c, timing)) = &self.observed {
            super::analyze_observed::print(out, res, c, timing)?;
        }
        Ok(())
    }

    /// 1 when an observation exceeds its bound (said on standard error when the JSON
    /// went to standard output, where the table would have said it), or with `--check`
    /// when a task or chain misses its deadline; else success.
    fn exit_code(&self, check: bool, to_stdout: bool) -> ExitCode {
        if let Some((c, _)) = &self.observed {
            if !c.exceeded.is_empty() {
                if to_stdout {
                    eprintln!(
                        "latscope: observed responses exceed their bounds ({}): the WCET or the \
                         model is wrong for this system",
                        c.exceeded.join(", ")
                    );
                }
                return ExitCode::from(1);
            }
        }
        let res = &self.res;
        // A chain past its end-to-end deadline fails the check as a task does.
        let chain_missed = res.chains.iter().any(|c| c.meets_deadline == Some(false));
        if check && (!res.schedulable || chain_missed) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// A time for the table: the human form with [`human::PRECISE`] digits, so a value
/// given to the nanosecond prints exactly (the JSON output carries the exact values).
pub(super) fn t(ns: f64) -> String {
    human::ns_precise(ns)
}
