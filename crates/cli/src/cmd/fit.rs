//! `latscope fit`: fit an overhead model to measurements (least squares, and the safe
//! model above every sample with the smallest largest excess over the per-x envelope)
//! and optionally write the safe parameters into a system file.
//! Logic: `latscope_model::fit`.

use anyhow::Context;
use latscope_model::fit::{
    apply, csv_text, fit_target, parse_trace_spec, samples_from_csv, samples_from_traces,
    update_toml_text, FitResult, Fitted, Target, XColumn,
};
use latscope_model::System;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum TargetArg {
    /// x = tasks released at a tick, y = tick duration -> tick_base, tick_first_release,
    /// tick_per_release, tick_last_release (piecewise; a straight line when the samples
    /// lack x = 0, x = 1 or two distinct x >= 2)
    Tick,
    /// x = levels scanned (or --from/--to priorities), y = switch duration -> switch_base, switch_per_level
    Switch,
    /// x = run-queue position, y = insertion time -> insert_base, insert_per_position (listscan)
    Insert,
    /// y = switch duration with port-optimised selection (x not needed) -> switch_optimised
    SwitchOptimised,
    /// y = duration of a resource's lock call: mutex take, ceiling raise,
    /// taskENTER_CRITICAL (x not needed) -> lock (any kernel model)
    Lock,
    /// y = duration of the unlock call (x not needed) -> unlock
    Unlock,
    /// y = duration of the inherit call of a task that finds a mutex taken (x not
    /// needed) -> inherit
    Inherit,
}

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum LineArg {
    /// The safe model above every sample (for analysis)
    Upper,
    /// The least-squares model (about half the samples lie above it)
    Lsq,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope fit ticks.csv --target tick --x released --y duration
  latscope fit switches.csv --target switch --from from_prio --to to_prio --y us --unit us \\
      --write system.toml
  latscope fit inserts.csv --target insert --x position --y time --unit ns --json fit.json
  latscope fit --target tick --trace 0=idle.json --trace 5=five.json --trace 10=all.json \\
      --measurement SysTick --stat max --write system.toml
  latscope fit takes.csv --target lock --y duration --write system.toml
  latscope fit examples/ticks.csv --target tick --x released --y cycles --unit cycles \\
      --write examples/system.toml -o fitted.toml

The CSV needs a header row; columns are chosen by name or as #N (0-based); separators
`,` `;` or tab. x cells are counts: whole numbers >= 0 (`3`, or `3.0` as spreadsheets write
it; `2.5`, `-1` and `1e3` are errors), at least two distinct x values are needed. y cells
are durations >= 0 with a unit (5.9us, 69.1 cycles) unless --unit gives the unit of bare
numbers (ps, ns, us, ms, s, or cycles with --cpu-hz).
Two fits are printed for every model: least squares (R², residuals) and the safe model,
which lies on or above every sample and has the smallest largest excess over the per-x
envelope (the largest y at each distinct x); the excess at each x is printed. The tick
model is piecewise: tick_base (x = 0), tick_first_release (x = 1), then a line of slope
tick_per_release whose value at x = 2 sets tick_last_release. --write stores the safe
model (or least squares with --line lsq), rounded up to the picosecond, into the system
file's [kernel.costs], changing only the keys the fit sets; the file must exist and parse
(checked before fitting), and -o/--output writes the result elsewhere.
For tick and switch fits a line `interrupt entry:` says whether the samples can include
the hardware's interrupt entry and whether the system file charges it (irq_entry_cycles),
so that it is counted once.
With --trace each `latscope trace --json` result gives one sample: x as written before
the `=`, y the chosen statistic of the named measurement (`line` in the output is then
the --trace index).
An event recording (perf.data, TraceRecorder .psf, SystemView .SVDat) is fitted
straight, without --x/--y: --target tick takes every tick's duration against the tasks it
released (the rows `latscope trace REC --tasks --series ticks.csv` writes, and the same
fit as `latscope fit ticks.csv --target tick --x released --y duration_ns --unit ns`;
`line` is that CSV's line); --target switch takes each switch whose cause the recording
shows (block or handler exit → switch) against the levels scanned between the two
tasks' priorities (`trace --tasks --switch-series`; docs/event-traces.md).
  latscope fit run.psf --target tick --write system.toml")]
pub struct Args {
    /// CSV file of samples (or use --trace), or an event recording (perf.data,
    /// TraceRecorder .psf, SystemView .SVDat) for --target tick or switch
    #[arg(required_unless_present = "trace", value_name = "CSV|TRACE")]
    pub csv: Option<PathBuf>,
    /// A `latscope trace --json` result measured at a known x, as X=FILE (repeatable):
    /// one sample per file, x = X (a whole count >= 0), y = --stat of --measurement
    #[arg(
        long,
        value_name = "X=FILE",
        conflicts_with = "csv",
        requires = "measurement"
    )]
    pub trace: Vec<String>,
    /// With --trace: the measurement name in the trace results (e.g. SysTick)
    #[arg(long)]
    pub measurement: Option<String>,
    /// With --trace: which statistic is y (max, p99, p999, mean, ...)
    #[arg(long, default_value = "max")]
    pub stat: String,
    /// Which model parameters the samples measure
    #[arg(long, value_enum)]
    pub target: TargetArg,
    /// Column holding x: a count (tasks released, levels scanned or queue position), a
    /// whole number >= 0 (not needed for --target switch-optimised, lock, unlock, inherit)
    #[arg(long)]
    pub x: Option<String>,
    /// Column of the priority switched from (a whole number >= 0; x = levels scanned,
    /// FreeRTOS generic selection)
    #[arg(long, requires = "to", conflicts_with = "x")]
    pub from: Option<String>,
    /// Column of the priority switched to
    #[arg(long, requires = "from")]
    pub to: Option<String>,
    /// Column holding the duration (not needed for an event recording)
    #[arg(long)]
    pub y: Option<String>,
    /// Unit of bare numbers in the y column (ps, ns, us, ms, s, cycles); cells with a
    /// unit keep their own
    #[arg(long)]
    pub unit: Option<String>,
    /// CPU clock for cycle counts (e.g. 84MHz or 84000000); default with --write: the
    /// system file's platform.cpu_hz
    #[arg(long)]
    pub cpu_hz: Option<latscope_core::frequency::Hz>,
    /// Include every sample's least-squares residual in the JSON (`residuals_ns`)
    #[arg(long)]
    pub residuals: bool,
    /// Which line --write stores
    #[arg(long, value_enum, default_value = "upper")]
    pub line: LineArg,
    /// System file to update in place with the fitted parameters (it must exist and parse:
    /// that is checked before fitting)
    #[arg(long)]
    pub write: Option<PathBuf>,
    /// With --write: write the updated system here instead of in place (`--out`, the old
    /// spelling, is kept as a hidden alias for one release)
    #[arg(
        long = "output",
        short = 'o',
        alias = "out",
        requires = "write",
        value_name = "FILE"
    )]
    pub out: Option<PathBuf>,
    /// Write the fit as JSON (`-` for standard output)
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// The CPU clock for cycle counts: --cpu-hz, else the --write system's platform.cpu_hz.
fn cpu_hz(args: &Args) -> anyhow::Result<Option<u64>> {
    if let Some(hz) = args.cpu_hz {
        return Ok(Some(hz.0));
    }
    match &args.write {
        Some(p) => Ok(System::from_path(p).ok().map(|s| s.platform.cpu_hz)),
        None => Ok(None),
    }
}

/// The system description `--write` will update, read before fitting. A missing file is
/// not created: a system description needs its tasks and platform, which a fit does not
/// give, so the message says where one comes from.
fn read_write_target(path: &std::path::Path) -> anyhow::Result<System> {
    if !path.exists() {
        anyhow::bail!(
            "--write {}: no such file; --write updates the kernel costs of an existing system \
             description (draft one with `latscope trace REC --system-out FILE` or \
             `latscope generate`, or copy examples/system.toml)",
            path.display()
        );
    }
    System::from_path(path)
        .with_context(|| format!("reading system description {} (--write)", path.display()))
}

/// Whether the fitted tick or switch cost includes the interrupt entry `L`. `analyze` and
/// `simulate` add the platform's `irq_entry_cycles` to every tick and switch (equations
/// (1) and (2) of Miranda, de Oliveira, Carminati: Analysis of FreeRTOS Overheads on
/// Periodic Tasks), so a cost that already contains it is charged twice: that paper's
/// 1.5 us tick base becomes 1.642857 us with its 12 entry cycles at 84 MHz. The fit cannot
/// see where a CSV's durations were timed from, so it says what it assumes.
fn entry_note(target: Target, recording: bool, system: Option<&System>) -> String {
    let what = if target == Target::Tick {
        "tick_base and the per-release costs"
    } else {
        "the switch costs"
    };
    let entry = system.map(|sys| (sys.platform.irq_entry_cycles, sys.platform.irq_entry().0));
    let verdict = match (recording, entry) {
        (true, Some((0, _))) => format!(
            "the recording's handler and switch events are stamped inside the kernel, after \
             the interrupt entry, so {what} exclude it, and the system file charges none \
             (irq_entry_cycles = 0): set irq_entry_cycles to the hardware's entry (12 cycles \
             on a Cortex-M4) or the bounds leave it out"
        ),
        (true, Some((cycles, ps))) => format!(
            "the recording's handler and switch events are stamped inside the kernel, after \
             the interrupt entry, so {what} exclude it; analyze adds the system file's \
             irq_entry_cycles = {cycles} ({:.3} ns) to each",
            ps as f64 / 1000.0
        ),
        (true, None) => format!(
            "the recording's handler and switch events are stamped inside the kernel, after \
             the interrupt entry, so {what} exclude it; analyze adds the system file's \
             irq_entry_cycles to each"
        ),
        (false, Some((0, _))) => format!(
            "the system file charges none (irq_entry_cycles = 0), so {what} are right only if \
             these samples were timed from the interrupt request (an IRQ pin, the timer's \
             output), which includes the entry"
        ),
        (false, Some((cycles, ps))) => format!(
            "analyze adds the system file's irq_entry_cycles = {cycles} ({:.3} ns) to {what}, \
             so if these samples were timed from the interrupt request (an IRQ pin, the \
             timer's output) rather than the handler's first instruction the entry is counted \
             twice: subtract it, or set irq_entry_cycles = 0",
            ps as f64 / 1000.0
        ),
        (false, None) => format!(
            "analyze adds the system file's irq_entry_cycles to {what}; samples timed from the \
             interrupt request already include it and count it twice (1.5 µs + 12 cycles at \
             84 MHz = 1.642857 µs in Miranda, de Oliveira, Carminati)"
        ),
    };
    format!("interrupt entry: {verdict}")
}

fn print_fit(name: &str, r: &FitResult, target: Target) {
    println!("{name}: {} samples", r.samples);
    if r.model == "constant" {
        println!(
            "least squares : {:.3} ns (the mean; rms deviation {:.3} ns)",
            r.least_squares.intercept_ns, r.rms_residual_ns
        );
        println!(
            "safe          : {:.3} ns (the largest sample)",
            r.upper_bound.intercept_ns
        );
    } else {
        println!(
            "least squares : y = {:.3} ns + {:.3} ns * x   (R² {:.4}; residuals {:+.3} .. {:+.3} ns, rms {:.3} ns)",
            r.least_squares.intercept_ns,
            r.least_squares.slope_ns,
            r.r2,
            r.min_residual_ns,
            r.max_residual_ns,
            r.rms_residual_ns
        );
        println!(
            "safe line     : y = {:.3} ns + {:.3} ns * x   (above every sample; largest excess {:.3} ns, mean gap {:.3} ns)",
            r.upper_bound.intercept_ns,
            r.upper_bound.slope_ns,
            r.upper_max_excess_ns,
            r.upper_mean_gap_ns
        );
    }
    if let Some(p) = &r.piecewise {
        let show = |m: &latscope_model::fit::TickModel| {
            format!(
                "base {:.3} ns, first {:.3} ns, per further {:.3} ns, last {:.3} ns",
                m.base_ns, m.first_ns, m.per_ns, m.last_ns
            )
        };
        println!(
            "piecewise lsq : {}   (R² {:.4}; residuals {:+.3} .. {:+.3} ns, rms {:.3} ns)",
            show(&p.least_squares),
            p.residuals.r2,
            p.residuals.min_residual_ns,
            p.residuals.max_residual_ns,
            p.residuals.rms_residual_ns
        );
        println!(
            "piecewise safe: {}   (largest excess {:.3} ns)",
            show(&p.safe),
            p.max_excess_ns
        );
    } else if target == Target::Tick {
        println!(
            "piecewise     : not determined (needs samples at x = 0, x = 1 and two or more distinct x >= 2); the straight line is used"
        );
    }
    println!(
        "worst sample  : x = {}, y = {:.3} ns (line {}, the first with that value)",
        r.worst_sample.x, r.worst_sample.y_ns, r.worst_sample.row
    );
    println!(
        "safe {} model against the largest sample at each x:",
        r.model
    );
    println!(
        "  {:>8} {:>8} {:>14} {:>14} {:>12}",
        "x", "samples", "largest ns", "safe ns", "excess ns"
    );
    const SHOW: usize = 40;
    for e in r.excess.iter().take(SHOW) {
        println!(
            "  {:>8} {:>8} {:>14.3} {:>14.3} {:>12.3}",
            e.x, e.samples, e.max_ns, e.safe_ns, e.excess_ns
        );
    }
    if r.excess.len() > SHOW {
        println!(
            "  ... {} more x values (all in --json)",
            r.excess.len() - SHOW
        );
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let target = match args.target {
        TargetArg::Tick => Target::Tick,
        TargetArg::Switch => Target::Switch,
        TargetArg::Insert => Target::Insert,
        TargetArg::SwitchOptimised => Target::SwitchOptimised,
        TargetArg::Lock => Target::Lock,
        TargetArg::Unlock => Target::Unlock,
        TargetArg::Inherit => Target::Inherit,
    };
    // The file --write updates is read before the fit, so a missing or broken one is
    // reported before any figure is printed (not after, as if the fit had failed).
    let system = match &args.write {
        Some(path) => Some(read_write_target(path)?),
        None => None,
    };
    let hz = cpu_hz(&args)?;
    let recording = args
        .csv
        .as_deref()
        .filter(|p| crate::events_input::is_recording(p));
    let (name, samples) = if let Some(path) = recording {
        super::fit_recording::samples(path, target)?
    } else if let Some(csv) = &args.csv {
        let name = csv.display().to_string();
        let bytes = std::fs::read(csv).with_context(|| format!("reading {name}"))?;
        let text = csv_text(bytes, &name)?;
        let y = args.y.as_deref().context("give --y COLUMN")?;
        let x = match (&args.x, &args.from, &args.to) {
            (Some(c), _, _) => XColumn::Count(c.clone()),
            (None, Some(f), Some(t)) => XColumn::Priorities {
                from: f.clone(),
                to: t.clone(),
            },
            // The constant needs no x: read the y column as x too and ignore it.
            _ if target.is_constant() => XColumn::None,
            _ => anyhow::bail!("give --x COLUMN, or --from COLUMN and --to COLUMN"),
        };
        let samples = samples_from_csv(&text, &name, &x, y, args.unit.as_deref(), hz)?;
        (name, samples)
    } else {
        let meas = args
            .measurement
            .as_deref()
            .context("give --measurement NAME with --trace")?;
        let mut inputs = Vec::new();
        for spec in &args.trace {
            let (x, file) = parse_trace_spec(spec)?;
            let text = std::fs::read_to_string(&file).with_context(|| format!("reading {file}"))?;
            inputs.push((x, text, file));
        }
        samples_from_traces(
            inputs.iter().map(|(x, t, f)| (*x, t.as_str(), f.as_str())),
            meas,
            &args.stat,
        )?
    };
    let r =
        fit_target(&samples, target, args.residuals).with_context(|| format!("fitting {name}"))?;
    let to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        print_fit(&name, &r, target);
    }
    if matches!(
        target,
        Target::Tick | Target::Switch | Target::SwitchOptimised
    ) && !to_stdout
    {
        println!(
            "{}",
            entry_note(target, recording.is_some(), system.as_ref())
        );
    }
    let doc = latscope_model::fit::FitDocument::new(r.clone(), name.clone(), target);
    if !to_stdout {
        // The verdict the report of this fit opens on (latscope_results::Verdict).
        crate::verdict::print(&latscope_results::Verdict::fit(&doc));
    }
    if let (Some(path), Some(mut sys)) = (&args.write, system) {
        let model: Fitted = match args.line {
            LineArg::Upper => r.safe_model(),
            LineArg::Lsq => r.least_squares_model(),
        };
        apply(&mut sys, target, model).with_context(|| format!("updating {}", path.display()))?;
        let dest = args.out.as_ref().unwrap_or(path);
        let is_json = dest
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let src_is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let text = if is_json {
            sys.to_json_string() + "\n"
        } else if !src_is_json {
            // Only the fitted keys change; the user's comments and order stay (audit D11).
            let orig = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            update_toml_text(&orig, &sys, target, model)
                .with_context(|| format!("updating {}", path.display()))?
        } else {
            sys.to_toml_string()
        };
        crate::out::write(dest, "--write", text)?;
        if !to_stdout {
            println!("wrote the parameters into {}", dest.display());
        }
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&doc)?;
        if to_stdout {
            println!("{text}");
        } else {
            crate::out::write(path, "--json", text + "\n")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
