//! `latscope convert`: capture to VCD, latscope's native format or Perfetto JSON.

use super::trace::InputArgs;
use anyhow::{Context, Result};
use latscope_trace::export::{self, OutFormat};
use std::path::PathBuf;
use std::process::ExitCode;

/// Convert a capture to VCD (one change per line), latscope's compact .lscap format or
/// Perfetto / Chrome trace-event JSON.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
The output format follows OUT's extension (.vcd, .lscap, .json) unless --to is given.

Examples:
  latscope convert cap.sr cap.vcd            # open in GTKWave
  latscope convert cap.sr cap.json           # open in https://ui.perfetto.dev
  latscope convert digital_0.bin digital_1.bin --to native both.lscap")]
pub struct Args {
    /// Input capture file(s); several inputs are merged (e.g. one Saleae binary file per
    /// channel)
    #[arg(required = true, num_args = 1.., value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// Output file; its extension picks the format unless --to is given
    #[arg(required = true, value_name = "OUT")]
    pub out: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: vcd, native (.lscap), perfetto (.json)
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let (ins, out) = (&a.inputs, &a.out);
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
    let (cap, _) = a.input.load(ins, None)?;
    let f = std::fs::File::create(out).with_context(|| out.display().to_string())?;
    let r = match fmt {
        OutFormat::Vcd => export::vcd::write(&cap, f),
        OutFormat::Native => export::native::write(&cap, f),
        OutFormat::Perfetto => export::perfetto::write(&cap, &[], f),
    };
    r.with_context(|| out.display().to_string())?;
    Ok(ExitCode::SUCCESS)
}
