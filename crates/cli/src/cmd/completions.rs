//! `latscope completions SHELL`: the completion script clap_complete derives from the
//! same argument definitions the binary parses with, so it cannot fall out of date.

use clap_complete::Shell;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Install, e.g. for bash:\n  latscope completions bash > ~/.local/share/bash-completion/completions/latscope"
)]
pub struct Args {
    /// The shell to write the script for
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(a: Args, mut cmd: clap::Command) -> anyhow::Result<ExitCode> {
    let name = cmd.get_name().to_string();
    clap_complete::generate(a.shell, &mut cmd, name, &mut std::io::stdout().lock());
    Ok(ExitCode::SUCCESS)
}
