//! `latscope report`: HTML or Markdown report from latscope JSON results.

use anyhow::Context;
use latscope_report::{render_html, render_markdown, Input, Options};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One self-contained HTML page with SVG charts (works offline).
    Html,
    /// A compact Markdown summary (tables only), e.g. for a CI comment.
    Md,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope measure --duration 10s --json run.json && latscope report run.json -o run.html
  latscope report idle.json loaded.json -o compare.html      (overlaid histograms and percentiles)
  latscope simulate sys.toml --json sim.json --series tick.csv --perfetto sim.perfetto.json
  latscope report sim.json tick.csv sim.perfetto.json -o sim.html   (tick series, timeline)
  latscope report scenario.json --format md -o summary.md

Inputs are the --json files of measure, trace, analyze, simulate and scenario (each has a
\"kind\" and \"schema_version\": 1). The CSV series of `simulate --series` and
`trace --series` and a Perfetto trace-event JSON are also accepted; a Perfetto file given
with a simulate result gives a timeline excerpt around the worst case. Sections a file
lacks are skipped; malformed input is an error naming the file (exit status 2).")]
pub struct Args {
    /// Result files: JSON of measure, trace, analyze, simulate or scenario (several for a
    /// side-by-side comparison), CSV time series, Perfetto trace-event JSON
    #[arg(required = true, value_name = "RESULT")]
    pub inputs: Vec<PathBuf>,
    /// Output file; `-` writes to standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Output format (default: html, or md when the output file ends in .md)
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Title of the report (default "latscope report")
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut inputs = Vec::with_capacity(args.inputs.len());
    for path in &args.inputs {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
        inputs.push(Input::parse(&name, &text)?);
    }
    let format = args.format.unwrap_or_else(|| {
        if args.output.extension().is_some_and(|e| e == "md") {
            Format::Md
        } else {
            Format::Html
        }
    });
    let opts = Options { title: args.title };
    let out = match format {
        Format::Html => render_html(&inputs, &opts)?,
        Format::Md => render_markdown(&inputs, &opts)?,
    };
    if args.output.as_os_str() == "-" {
        print!("{out}");
    } else {
        std::fs::write(&args.output, out)
            .with_context(|| format!("cannot write {}", args.output.display()))?;
        eprintln!(
            "latscope: wrote {} ({} input{})",
            args.output.display(),
            inputs.len(),
            if inputs.len() == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
