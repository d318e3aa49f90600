//! `latscope fit`: fit an overhead model's line to measurements (least squares and a
//! safe upper bound) and optionally write the parameters into a system file.
//! Logic: `latscope_model::fit`.

use anyhow::Context;
use latscope_model::fit::{
    apply, csv_text, fit, parse_trace_spec, sample_from_trace_json, samples_from_csv,
    update_toml_text, Target, XColumn,
};
use latscope_model::System;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum TargetArg {
    /// x = tasks released at a tick, y = tick duration -> tick_base, tick_per_release
    Tick,
    /// x = levels scanned (or --from/--to priorities), y = switch duration -> switch_base, switch_per_level
    Switch,
    /// x = run-queue position, y = insertion time -> insert_base, insert_per_position (listscan)
    Insert,
}

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum LineArg {
    /// The line above every sample (safe for analysis)
    Upper,
    /// The least-squares line (about half the samples lie above it)
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

The CSV needs a header row; columns are chosen by name or as #N (0-based); separators
`,` `;` or tab. x cells are counts: whole numbers >= 0 (`3`, or `3.0` as spreadsheets write
it; `2.5`, `-1` and `1e3` are errors), at least two distinct x values are needed. y cells
are durations >= 0 with a unit (5.9us) unless --unit gives the unit of bare numbers. The upper-bound line is the
one lying on or above every sample with the smallest mean gap (an edge of the samples'
upper convex hull); --write stores it (or the least-squares line with --line lsq),
rounded up to the picosecond, into the system file's [kernel.costs].
With --trace each `latscope trace --json` result gives one sample: x as written before
the `=`, y the chosen statistic of the named measurement (`line` in the output is then
the --trace index).")]
pub struct Args {
    /// CSV file of samples (or use --trace)
    #[arg(required_unless_present = "trace")]
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
    /// whole number >= 0
    #[arg(long, required_unless_present_any = ["from", "trace"])]
    pub x: Option<String>,
    /// Column of the priority switched from (a whole number >= 0; x = levels scanned,
    /// FreeRTOS generic selection)
    #[arg(long, requires = "to", conflicts_with = "x")]
    pub from: Option<String>,
    /// Column of the priority switched to
    #[arg(long, requires = "from")]
    pub to: Option<String>,
    /// Column holding the duration
    #[arg(long, required_unless_present = "trace")]
    pub y: Option<String>,
    /// Unit of bare numbers in the y column (ps, ns, us, ms, s); cells with a unit keep
    /// their own
    #[arg(long)]
    pub unit: Option<String>,
    /// Which line --write stores
    #[arg(long, value_enum, default_value = "upper")]
    pub line: LineArg,
    /// System file to update in place with the fitted parameters
    #[arg(long)]
    pub write: Option<PathBuf>,
    /// With --write: write the updated system here instead of in place
    #[arg(long, requires = "write")]
    pub out: Option<PathBuf>,
    /// Write the fit as JSON (`-` for standard output)
    #[arg(long)]
    pub json: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (name, samples) = if let Some(csv) = &args.csv {
        let name = csv.display().to_string();
        let bytes = std::fs::read(csv).with_context(|| format!("reading {name}"))?;
        let text = csv_text(bytes, &name)?;
        let x = match (&args.x, &args.from, &args.to) {
            (Some(c), _, _) => XColumn::Count(c.clone()),
            (None, Some(f), Some(t)) => XColumn::Priorities {
                from: f.clone(),
                to: t.clone(),
            },
            _ => anyhow::bail!("give --x COLUMN, or --from COLUMN and --to COLUMN"),
        };
        let y = args.y.as_deref().context("give --y COLUMN")?;
        let samples = samples_from_csv(&text, &name, &x, y, args.unit.as_deref())?;
        (name, samples)
    } else {
        let meas = args
            .measurement
            .as_deref()
            .context("give --measurement NAME with --trace")?;
        let mut samples = Vec::new();
        for (k, spec) in args.trace.iter().enumerate() {
            let (x, file) = parse_trace_spec(spec)?;
            let text = std::fs::read_to_string(&file).with_context(|| format!("reading {file}"))?;
            samples.push(sample_from_trace_json(
                &text,
                &file,
                meas,
                &args.stat,
                x,
                k + 1,
            )?);
        }
        (
            format!("{} trace results ({meas} {})", samples.len(), args.stat),
            samples,
        )
    };
    let r = fit(&samples).with_context(|| format!("fitting {name}"))?;
    let target = match args.target {
        TargetArg::Tick => Target::Tick,
        TargetArg::Switch => Target::Switch,
        TargetArg::Insert => Target::Insert,
    };
    let to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        println!("{name}: {} samples", r.samples);
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
            "upper bound   : y = {:.3} ns + {:.3} ns * x   (above every sample; mean gap {:.3} ns)",
            r.upper_bound.intercept_ns, r.upper_bound.slope_ns, r.upper_mean_gap_ns
        );
        println!(
            "worst sample  : x = {}, y = {:.3} ns (line {})",
            r.worst_sample.x, r.worst_sample.y_ns, r.worst_sample.row
        );
    }
    if let Some(path) = &args.write {
        let mut sys = System::from_path(path)
            .with_context(|| format!("reading system description {}", path.display()))?;
        let line = match args.line {
            LineArg::Upper => r.upper_bound,
            LineArg::Lsq => r.least_squares,
        };
        apply(&mut sys, target, &line).with_context(|| format!("updating {}", path.display()))?;
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
            update_toml_text(&orig, &sys, target)
                .with_context(|| format!("updating {}", path.display()))?
        } else {
            sys.to_toml_string()
        };
        std::fs::write(dest, text).with_context(|| format!("writing {}", dest.display()))?;
        if !to_stdout {
            println!("wrote the parameters into {}", dest.display());
        }
    }
    if let Some(path) = &args.json {
        let mut v = serde_json::to_value(&r)?;
        v["kind"] = "fit".into();
        v["schema_version"] = 1.into();
        v["source"] = name.clone().into();
        let text = serde_json::to_string_pretty(&v)?;
        if to_stdout {
            println!("{text}");
        } else {
            std::fs::write(path, text + "\n")
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
