//! `latscope convert`: capture to VCD, latscope's native format or Perfetto JSON.

use super::trace::InputArgs;
use anyhow::{Context, Result};
use latscope_trace::export::{self, OutFormat};
use std::path::PathBuf;
use std::process::ExitCode;

/// Convert a capture to VCD (one change per line), latscope's compact .lscap format or
/// Perfetto / Chrome trace-event JSON.
#[derive(clap::Args, Debug)]
#[command(
    override_usage = "latscope convert [OPTIONS] <IN>... <OUT>",
    after_help = "\
Arguments:
  <IN>...  Input capture file(s); several are merged (e.g. one Saleae binary file per
           channel)
  <OUT>    Output file; its extension picks the format unless --to is given
Options may come anywhere, also between the inputs and OUT.

The output format follows OUT's extension (.vcd, .lscap, .json) unless --to is given.

Examples:
  latscope convert cap.sr cap.vcd            # open in GTKWave
  latscope convert cap.sr cap.json           # open in https://ui.perfetto.dev
  latscope convert digital_0.bin digital_1.bin --to native both.lscap"
)]
pub struct Args {
    /// Input capture file(s) then the output file (the last path), listed in the
    /// "Arguments" section below: one positional, so that options may also sit between the
    /// inputs and OUT
    #[arg(required = true, num_args = 1.., value_name = "IN... OUT", hide = true)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: vcd, native (.lscap), perfetto (.json)
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    // The last path is OUT: one positional, so options may sit between inputs and OUT.
    let (out, ins) = match a.paths.split_last() {
        Some((out, ins)) if !ins.is_empty() => (out, ins),
        _ => anyhow::bail!(
            "convert needs at least one input file and then the output file: \
             latscope convert [OPTIONS] <IN>... <OUT>"
        ),
    };
    let fmt = match &a.to {
        Some(t) => OutFormat::parse(t)
            .with_context(|| format!("--to '{t}': unknown output format (vcd, native, perfetto)"))?,
        None => OutFormat::from_path(out).with_context(|| {
            format!(
                "{}: cannot tell the output format from the extension; use .vcd, .lscap or .json, or --to",
                out.display()
            )
        })?,
    };
    let (cap, _, _) = a.input.load(ins, None)?;
    crate::out::stream(out, "output", |f| {
        match fmt {
            OutFormat::Vcd => export::vcd::write(&cap, f),
            OutFormat::Native => export::native::write(&cap, f),
            OutFormat::Perfetto => export::perfetto::write(&cap, &[], f),
        }?;
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
