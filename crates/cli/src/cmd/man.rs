//! `latscope man`: the manual page clap_mangen renders from the argument definitions,
//! the top-level page with every command's options in its own section.

use anyhow::Context;
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Read it with `latscope man | man -l -`, or install it:\n  latscope man > /usr/local/share/man/man1/latscope.1"
)]
pub struct Args {}

pub fn run(_a: Args, cmd: clap::Command) -> anyhow::Result<ExitCode> {
    let mut page = Vec::new();
    let mut cmd = cmd.version(env!("CARGO_PKG_VERSION"));
    // Building names the subcommands `latscope-measure` (title) and `latscope measure`
    // (synopsis), and hands them the global flags.
    cmd.build();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .context("cannot render the manual page")?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut section = Vec::new();
        clap_mangen::Man::new(sub.clone())
            .render(&mut section)
            .context("cannot render the manual page")?;
        page.extend_from_slice(&section);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(&page)
        .and_then(|()| out.flush())
        .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}
