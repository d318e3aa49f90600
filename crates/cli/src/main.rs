//! The `latscope` binary: argument parsing and printing only. Every subcommand lives in
//! its own file under `cmd/` and calls into the library crates, which return errors
//! instead of printing them.

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod events_input;
mod input;
mod labels;
mod out;
mod progress;
mod ui;
mod verdict;

/// The command line, defined once and declared twice: `Cli`, which the binary parses, builds
/// each command's arguments only when that command is parsed (`defer`); `FullCli` builds
/// them all at once for `completions` and `man`, which walk the whole tree (deferred
/// commands would list the global flags first and leave nested commands out of `help`).
/// Building all sixteen commands' argument trees was about a third of the instructions of
/// a short run such as `latscope simulate … --duration 1ms` (issue 29, start-up cost).
macro_rules! command_line {
    ($cli:ident, $cmd:ident, $defer:tt) => {
        #[derive(Parser)]
        #[command(
            name = "latscope",
            version,
            about = "Real-time latency and kernel-overhead toolkit",
            long_about = "latscope measures Linux timer wake-up latency, imports logic-analyzer and \
        scope captures and computes the timing figures engineers read off by hand, models kernel \
        overheads and analyses schedulability with them, simulates tick-driven kernels, and writes \
        terminal, JSON and HTML reports.\n\nTimes accept units everywhere: ps, ns, us, ms, s.",
            after_help = "Run `latscope <COMMAND> --help` for the options of one command."
        )]
        struct $cli {
            #[command(subcommand)]
            command: $cmd,

            /// Print only results, warnings and errors: no progress, summaries or notes
            #[arg(short, long, global = true, conflicts_with = "verbose")]
            quiet: bool,

            /// More detail on standard error (repeatable)
            #[arg(short, long, global = true, action = clap::ArgAction::Count)]
            verbose: u8,

            /// Colour in terminal output; `auto` colours a terminal unless NO_COLOR is set
            #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
            color: ui::ColorChoice,
        }

        #[derive(Subcommand)]
        #[command(defer = $defer)]
        enum $cmd {
            /// Measure timer wake-up latency on this Linux host (cyclictest-style, explained)
            Measure(cmd::measure::Args),
            /// OS and hardware noise seen by spinning threads, split by source (osnoise-style,
            /// no kernel tracer needed)
            Noise(cmd::noise::Args),
            /// Compare two `measure` JSON results; exit 1 when B is worse than A
            Compare(cmd::compare::Args),
            /// Combine `measure` results of the same settings (runs, hosts, boards) exactly
            Merge(cmd::merge::Args),
            /// Import a capture (sigrok, Saleae, VCD, CSV, cycle log) and measure its timing
            Trace(cmd::trace::Args),
            /// Convert a capture to VCD, latscope's own format or Perfetto JSON
            Convert(cmd::convert::Args),
            /// Response-time analysis of a system description with kernel overheads
            Analyze(cmd::analyze::Args),
            /// Fit overhead-model parameters from measurements
            Fit(cmd::fit::Args),
            /// Generate random task sets (UUniFast) as system descriptions
            Generate(cmd::generate::Args),
            /// Simulate a tick-driven kernel with overheads and shared resources, and write a virtual capture
            Simulate(cmd::simulate::Args),
            /// Run the bundled scenarios that reproduce the source documents' experiments
            Scenario(cmd::scenario::Args),
            /// Build an HTML or Markdown report from latscope JSON results
            Report(cmd::report::Args),
            /// Schedulability over generated task sets x configurations, parallel and sharded
            Sweep(cmd::sweep::Args),
            /// Results as flat rows in Parquet or CSV (for DuckDB, ClickHouse, Spark, pandas)
            Export(cmd::export::Args),
            /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
            Completions(cmd::completions::Args),
            /// Print the manual page (roff; read it with `latscope man | man -l -`)
            Man(cmd::man::Args),
        }
    };
}

command_line!(Cli, Command, true);
command_line!(FullCli, FullCommand, false);

fn main() -> ExitCode {
    // `latscope … | head` must end quietly like any Unix filter, not panic in println!:
    // restore the default action of SIGPIPE that the Rust runtime sets to "ignore".
    // SAFETY: called before any other thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    ui::init(ui::Settings {
        quiet: cli.quiet,
        verbose: cli.verbose,
        color: cli.color,
    });
    let t0 = std::time::Instant::now();
    let result = match cli.command {
        Command::Measure(a) => cmd::measure::run(a),
        Command::Noise(a) => cmd::noise::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Convert(a) => cmd::convert::run(a),
        Command::Analyze(a) => cmd::analyze::run(a),
        Command::Fit(a) => cmd::fit::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Simulate(a) => cmd::simulate::run(a),
        Command::Scenario(a) => cmd::scenario::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Completions(a) => cmd::completions::run(a, FullCli::command()),
        Command::Man(a) => cmd::man::run(a, FullCli::command()),
    };
    ui::detail(format_args!(
        "finished in {:.3} s",
        t0.elapsed().as_secs_f64()
    ));
    match result {
        Ok(code) => code,
        Err(e) => {
            // `{:#}` prints the whole context chain on one line: file, place, problem.
            ui::error(format_args!("{e:#}"));
            ExitCode::from(2)
        }
    }
}

/// A value refused by latscope's own parser (a duration, a frequency) is reported like
/// every other error, in one line naming the flag, the value and the problem; the rest
/// (unknown flags, missing arguments, --help, --version) is clap's.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let source = std::error::Error::source(&e).map(|s| s.to_string());
    match (
        e.kind(),
        text(ContextKind::InvalidArg),
        text(ContextKind::InvalidValue),
        source,
    ) {
        (ErrorKind::ValueValidation, Some(arg), Some(value), Some(why)) => {
            let flag = arg.split_whitespace().next().unwrap_or(&arg).to_string();
            // The Python binding words a refused keyword the same way.
            ui::error(format_args!(
                "{}",
                latscope_core::flag::refusal(&flag, &value, &why)
            ));
            ExitCode::from(2)
        }
        _ => e.exit(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap checks its definitions (duplicate flags, a global flag clashing with a
    /// command's own) only in debug builds; the tests run in release, so ask for it.
    #[test]
    fn the_argument_definitions_are_consistent() {
        Cli::command().debug_assert();
        FullCli::command().debug_assert();
    }
}
