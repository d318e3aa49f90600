//! `latscope generate`: random task sets (UUniFast / UUniFast-Discard utilisations,
//! log-uniform, uniform or listed periods) written as system descriptions. Logic: `latscope_model::generate`.

use anyhow::Context;
use latscope_model::generate::{freertos_template, generate, GenerateSpec};
use latscope_model::System;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub enum FormatArg {
    Toml,
    Json,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope generate --tasks 10 --utilisation 0.7 -o set.toml
  latscope generate --tasks 100 --utilisation 0.8 --count 50 --seed 42 -o sets/
  latscope generate --tasks 8 --utilisation 1.5 --method discard --max-task-util 0.5 -o -
  latscope generate --tasks 20 --utilisation 0.6 --template board.toml --period-min 5ms \\
      --period-max 500ms --granularity 5ms -o sets/ --format json
  latscope generate --tasks 10 --utilisation 0.7 --periods choice:1,2,5,10,20,50,100,200,1000ms \
      -o set.toml                  (automotive-style periods, each equally likely)

Periods are log-uniform between --period-min and --period-max (the default), uniform
over the same range (--periods uniform) or drawn from a list (--periods choice:…), always
multiples of --granularity; WCET = utilisation x period (whole ns); priorities are rate-monotonic and
distinct (larger = higher); deadlines equal periods. Platform, kernel, interrupts and
critical sections come from --template (default: FreeRTOS on a Cortex-M4 at 84 MHz with
the tick and switch costs of Miranda, de Oliveira, Carminati: Analysis of FreeRTOS
Overheads on Periodic Tasks). Set k of --count uses seed + k.")]
pub struct Args {
    /// Number of tasks per set
    #[arg(long, short = 'n')]
    pub tasks: usize,
    /// Total task utilisation of each set (e.g. 0.7)
    #[arg(long, short = 'u', visible_alias = "util")]
    pub utilisation: f64,
    /// Number of sets
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// Random seed (ChaCha8); the same seed gives the same sets everywhere
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub shape: super::set_shape::ShapeArgs,
    /// System file whose platform, kernel, interrupts and critical sections are reused
    /// (`-` for standard input)
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// Output: a file when --count is 1 (`-` for standard output), otherwise (or when it
    /// is an existing directory) a directory that receives set-0000.toml, set-0001.toml, ...
    #[arg(long = "output", short = 'o', alias = "out", value_name = "PATH")]
    pub out: PathBuf,
    /// Output format (default: from the file extension, else TOML)
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let template = match &args.template {
        Some(p) => System::from_path(&crate::input::Stdin::default().resolve(p, "--template")?)
            .with_context(|| format!("reading template {}", p.display()))?,
        None => freertos_template(),
    };
    let shape = args.shape.parse()?;
    let spec = GenerateSpec {
        tasks: args.tasks,
        utilisation: args.utilisation,
        method: shape.method,
        max_task_utilisation: shape.max_task_utilisation,
        period_min: shape.period_min,
        period_max: shape.period_max,
        granularity: shape.granularity,
        periods: shape.periods,
        seed: args.seed,
    };
    if args.count == 0 {
        anyhow::bail!("--count must be at least 1");
    }
    let to_stdout = args.out.as_os_str() == "-";
    if to_stdout && args.count > 1 {
        anyhow::bail!(
            "--output - (standard output) takes one set; give a directory for --count {}",
            args.count
        );
    }
    // A trailing slash names a directory even when it does not exist yet.
    let as_dir = args.count > 1
        || args.out.is_dir()
        || args.out.as_os_str().to_string_lossy().ends_with('/');
    let sets = generate(&template, &spec, args.count)?;
    let ext_json = args
        .out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let format = args.format.unwrap_or(if ext_json {
        FormatArg::Json
    } else {
        FormatArg::Toml
    });
    let render = |s: &System| match format {
        FormatArg::Toml => s.to_toml_string(),
        FormatArg::Json => s.to_json_string() + "\n",
    };
    if !as_dir {
        let text = render(&sets[0]);
        if to_stdout {
            print!("{text}");
        } else {
            crate::out::write(&args.out, "--output", text)?;
            crate::ui::note(format_args!("wrote {}", args.out.display()));
        }
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating directory {}", args.out.display()))?;
    let ext = if format == FormatArg::Json {
        "json"
    } else {
        "toml"
    };
    for (k, s) in sets.iter().enumerate() {
        let p = args.out.join(format!("set-{k:04}.{ext}"));
        crate::out::write(&p, "--output", render(s))?;
    }
    crate::ui::note(format_args!(
        "wrote {} sets to {}",
        sets.len(),
        args.out.display()
    ));
    Ok(ExitCode::SUCCESS)
}
