//! `latscope convert`: capture to VCD, latscope's native format or Perfetto JSON.

use super::trace::InputArgs;
use anyhow::{Context, Result};
use latscope_trace::export::{self, OutFormat};
use std::path::PathBuf;
use std::process::ExitCode;

// Convert a capture to VCD (one change per line), latscope's compact .lscap format or
// Perfetto / Chrome trace-event JSON.
// (A plain comment, not `///`: clap would take a doc comment as the command's `about`,
// replacing the one main.rs gives, because commands' arguments are built deferred.)
#[derive(clap::Args, Debug)]
#[command(
    // `--format` is the output format here; the input format is --input-format (its old
    // spelling `--format` stays an alias in `trace` only).
    mut_arg("format", |a| a.alias(None)),
    override_usage = "latscope convert [OPTIONS] <IN>... -o <OUT>",
    after_help = "\
Arguments:
  <IN>...  Input capture file(s); several are merged (e.g. one Saleae binary file per
           channel); `-` reads standard input

The output format follows OUT's extension (.vcd, .lscap, .json) unless --format is given;
`-o -` writes to standard output (then --format is needed). The old form with OUT as the
last positional argument (`latscope convert IN... OUT`) still works when -o is not given.

Examples:
  latscope convert cap.sr -o cap.vcd            # open in GTKWave
  latscope convert cap.sr -o cap.json           # open in https://ui.perfetto.dev
  latscope convert digital_0.bin digital_1.bin --format native -o both.lscap
  cat cap.sr | latscope convert - --format vcd -o - | gzip > cap.vcd.gz"
)]
pub struct Args {
    /// Input capture file(s) (with no -o: then the output file, the last path), listed in
    /// the "Arguments" section below: one positional, so that options may also sit
    /// between the inputs
    #[arg(required = true, num_args = 1.., value_name = "IN...", hide = true)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Output file (`-` for standard output)
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Output format: vcd, native (.lscap), perfetto (.json) [default: from OUT's extension]
    #[arg(long = "format", alias = "to", value_name = "FORMAT")]
    pub to: Option<OutFormat>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    // Without -o the last path is OUT (the old form), so options may sit anywhere.
    let (out, ins) = match (&a.output, a.paths.split_last()) {
        (Some(out), _) => (out, &a.paths[..]),
        (None, Some((out, ins))) if !ins.is_empty() => (out, ins),
        _ => anyhow::bail!(
            "convert needs at least one input file and the output file: \
             latscope convert [OPTIONS] <IN>... -o <OUT>"
        ),
    };
    let fmt = match a.to {
        Some(t) => t,
        None if crate::out::is_stdio(out) => anyhow::bail!(
            "-o - (standard output) has no extension to tell the format from; give --format \
             vcd, native or perfetto"
        ),
        None => OutFormat::from_path(out).with_context(|| {
            format!(
                "{}: cannot tell the output format from the extension; use .vcd, .lscap or .json, or --format",
                out.display()
            )
        })?,
    };
    let (cap, _, _) = a.input.load(ins, None)?;
    crate::out::stream(out, "--output", |f| {
        match fmt {
            OutFormat::Vcd => export::vcd::write(&cap, f),
            OutFormat::Native => export::native::write(&cap, f),
            OutFormat::Perfetto => export::perfetto::write(&cap, &[], f),
        }?;
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
