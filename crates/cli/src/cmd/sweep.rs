//! `latscope sweep`: schedulability over generated task sets × configuration axes, in
//! parallel and in deterministic shards. Logic: `latscope_fleet::sweep`; this file parses
//! flags, shows progress and writes the file (atomically: an interrupted or failed run
//! leaves no partial output and an earlier file as it was).

use anyhow::Context;
use latscope_core::time::{format_ps, parse_duration};
use latscope_core::Picos;
use latscope_fleet::csv_file::CsvSink;
use latscope_fleet::parquet_file::ParquetSink;
use latscope_fleet::sweep::{self, Axis, Shard, SweepError, SweepSpec, UtilRange};
use latscope_model::generate::freertos_template;
use latscope_model::System;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope sweep --tasks 10 --util 0.5..1.0:0.05 --sets 100 --seed 1 -o sweep.csv
  latscope sweep --template board.toml --tasks 20 --util 0.6..1.0:0.02 --sets 500 --seed 7 \\
      --set kernel.tick_hz=100,1000 --set kernel.task_selection=generic,optimised \\
      --jobs 4 -o sweep.parquet
  latscope sweep ... --shard 3/8 -o part-3.csv      (one of 8 shards: cat part-*.csv = whole)
  latscope sweep ... --simulate 2s -o sweep.csv     (also simulate each set for 2 s)
  latscope sweep ... --periods choice:1,2,5,10,20,50,100,200,1000ms   (automotive-style periods)
  latscope report sweep.parquet -o sweep.html          (schedulability ratio per configuration)

Each (utilisation, set) pair is one work item; set s at utilisation index u is generated
(UUniFast utilisations, periods as --periods says, rate-monotonic priorities, deadlines
= periods, as `latscope generate`) with its own seed, written in the `seed` column, so
`latscope generate --seed SEED --tasks N --utilisation U` with the same --periods,
--period-min, --period-max and --granularity gives the same set again. Every
set is analysed under every configuration: the product of the --set axes (first axis
varies slowest), each the template with those keys replaced (keys under platform, kernel,
kernel.costs, critical_sections). One row per set and configuration.

The output is the same for any --jobs. --shard K/N computes the K-th of N contiguous
blocks of the work items; the CSV of shard 1 alone has the header line, so the shards'
files concatenated in order (cat) are byte for byte the unsharded file. Parquet shards are
joined with `latscope export part-*.parquet --parquet all.parquet`, which gives the same
bytes as the unsharded run. Columns: docs/sweep.md.")]
pub struct Args {
    /// System file whose platform, kernel, interrupts and critical sections are used
    /// (default: FreeRTOS on a Cortex-M4 at 84 MHz with the costs of Miranda, de Oliveira,
    /// Carminati: Analysis of FreeRTOS Overheads on Periodic Tasks)
    #[arg(long, value_name = "SYSTEM")]
    pub template: Option<PathBuf>,
    /// Tasks per generated set
    #[arg(long, short = 'n')]
    pub tasks: usize,
    /// Total utilisations: FROM..TO:STEP (both ends included), or one value
    #[arg(long, value_name = "FROM..TO:STEP", allow_hyphen_values = true)]
    pub util: UtilRange,
    /// Sets per utilisation
    #[arg(long)]
    pub sets: usize,
    /// Sweep seed (each set's seed is derived from it and the set's position)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Configuration axis: a system-file key and its values (repeatable), e.g.
    /// kernel.tick_hz=100,1000 or kernel.costs.tick_base=1us,2us
    #[arg(long = "set", value_name = "KEY=V1,V2,…")]
    pub axes: Vec<Axis>,
    /// Also simulate every set under every configuration for this long (e.g. 2s); adds
    /// the sim_* columns
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true
    )]
    pub simulate: Option<Picos>,
    /// Worker threads (default: the CPUs available); the output does not depend on it
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Compute only shard K of N (contiguous blocks of the work items)
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Output file: .csv or .parquet (the extension picks the format unless --format
    /// is given); `-` for standard output
    #[arg(long = "output", short = 'o', alias = "out", value_name = "FILE")]
    pub out: PathBuf,
    /// Output format (default: from the --output extension; CSV for `-`)
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub shape: super::set_shape::ShapeArgs,
    /// Attach KEY=VALUE to every row as a column of its own (repeatable). Only your
    /// labels: the host's name and kernel are left out so shards run on different
    /// machines still concatenate to the same file
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub label: Vec<String>,
}

/// The longest --simulate per set: a sweep simulates thousands of sets.
const MAX_SIMULATE_S: i64 = 3600;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Parquet,
}

fn format_of(path: &Path, given: Option<Format>) -> anyhow::Result<Format> {
    if let Some(f) = given {
        return Ok(f);
    }
    if crate::out::is_stdio(path) {
        return Ok(Format::Csv);
    }
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("csv") => Ok(Format::Csv),
        Some("parquet") => Ok(Format::Parquet),
        _ => anyhow::bail!(
            "--output {}: the file name must end in .csv or .parquet (that chooses the \
             format), or give --format",
            path.display()
        ),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = format_of(&args.out, args.format)?;
    let labels: Vec<(String, String)> = latscope_core::labels::parse_labels(&args.label)?
        .into_iter()
        .collect();
    if let Some((k, _)) = labels
        .iter()
        .find(|(k, _)| sweep::COLUMNS.iter().any(|(c, _)| c == k))
    {
        anyhow::bail!("--label {k}=…: {k} is a column of the sweep; choose another key");
    }
    let template = match &args.template {
        Some(p) => System::from_path(&crate::input::Stdin::default().resolve(p, "--template")?)
            .with_context(|| format!("reading template {}", p.display()))?,
        None => freertos_template(),
    };
    if args.tasks == 0 {
        anyhow::bail!("--tasks must be at least 1");
    }
    if args.sets == 0 {
        anyhow::bail!("--sets must be at least 1");
    }
    let range = args.util;
    let axes = args.axes;
    let configs = sweep::configs(&template, &axes).with_context(|| match &args.template {
        Some(p) => format!("template {}", p.display()),
        None => "the built-in template".to_string(),
    })?;
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let simulate = match args.simulate {
        None => None,
        Some(d) => {
            if d <= Picos::ZERO || d > Picos::from_ms(MAX_SIMULATE_S * 1000) {
                anyhow::bail!(
                    "--simulate {}: give a duration above 0 and at most {MAX_SIMULATE_S} s \
                     (every set is simulated under every configuration)",
                    format_ps(d.0 as i128)
                );
            }
            Some(d)
        }
    };
    let jobs = match args.jobs {
        Some(0) => anyhow::bail!("--jobs must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let shape = args.shape.parse()?;
    let spec = SweepSpec {
        configs,
        tasks: args.tasks,
        utilisations: range.points(),
        sets: args.sets,
        seed: args.seed,
        method: shape.method,
        max_task_utilisation: shape.max_task_utilisation,
        period_min: shape.period_min,
        period_max: shape.period_max,
        granularity: shape.granularity,
        periods: shape.periods,
        simulate,
    };
    // Check the generator settings once, before any work (the first item of the sweep).
    let items = shard.items(spec.items());
    sweep::run_item(&spec, 0)?;
    if !crate::out::is_stdio(&args.out) {
        super::check_writable(&args.out)?;
    }

    // SIGINT / SIGTERM (Ctrl-C, a batch system's time limit): stop cleanly and leave no
    // partial output behind.
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let total = items.len();
    let show = !crate::ui::quiet();
    let bar = (crate::ui::progress() && total > 0).then(|| {
        let pb = indicatif::ProgressBar::new(total as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "sweep {bar:40} {pos}/{len} sets ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let t0 = Instant::now();
    let mut last_line = t0;
    let schema = sweep::schema(&labels);
    let mut progress = |done: usize| {
        if let Some(pb) = &bar {
            pb.set_position(done as u64);
        } else if show && last_line.elapsed() >= Duration::from_secs(10) {
            last_line = Instant::now();
            eprintln!(
                "latscope: sweep: {done}/{total} sets ({:.0} s)",
                t0.elapsed().as_secs_f64()
            );
        }
    };
    let result = crate::out::stream(&args.out, "--output", |w| {
        let out_err = |e: &dyn std::fmt::Display| SweepError::Output(e.to_string());
        match format {
            Format::Csv => {
                let mut sink = CsvSink::new(w, &schema, shard.is_first())?;
                sweep::run(&spec, items.clone(), jobs, &INTERRUPTED, |rows, done| {
                    sink.push(&sweep::table(rows, &labels))
                        .map_err(|e| out_err(&e))?;
                    progress(done);
                    Ok(())
                })?;
                sink.finish()?;
            }
            Format::Parquet => {
                let mut sink = ParquetSink::new(w, &schema)?;
                sweep::run(&spec, items.clone(), jobs, &INTERRUPTED, |rows, done| {
                    sink.push(&sweep::table(rows, &labels))
                        .map_err(|e| out_err(&e))?;
                    progress(done);
                    Ok(())
                })?;
                sink.finish()?;
            }
        }
        Ok(())
    });
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    if INTERRUPTED.load(Ordering::Relaxed) {
        eprintln!(
            "latscope: sweep interrupted; {} not written",
            args.out.display()
        );
        return Ok(ExitCode::from(130));
    }
    result?;
    let secs = t0.elapsed().as_secs_f64();
    if show {
        let analyses = total * spec.configs.len();
        eprintln!(
            "latscope: wrote {} ({} sets x {} configuration{} = {analyses} rows{}) in {secs:.2} s: \
             {:.0} analyses/s with {jobs} job{}",
            args.out.display(),
            total,
            spec.configs.len(),
            if spec.configs.len() == 1 { "" } else { "s" },
            if shard == Shard::WHOLE {
                String::new()
            } else {
                format!(", shard {}/{}", shard.index, shard.count)
            },
            analyses as f64 / secs.max(1e-9),
            if jobs == 1 { "" } else { "s" },
        );
    }
    Ok(ExitCode::SUCCESS)
}
