//! What the global flags `-q/--quiet`, `-v/--verbose` and `--color` decide, in one place,
//! so every command prints warnings, notes, progress and colour the same way.
//!
//! The settings are fixed once, by `main`, right after the arguments are parsed; the
//! commands ask here instead of carrying a flag of their own.

use clap::ValueEnum;
use std::fmt::Display;
use std::io::IsTerminal;
use std::sync::OnceLock;

/// `--color auto|always|never`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal and NO_COLOR is unset or empty
    #[default]
    Auto,
    /// Colour even into a pipe or file, and despite NO_COLOR
    Always,
    /// Never colour
    Never,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// Only errors, warnings and the results asked for: no progress, summaries or notes.
    pub quiet: bool,
    /// How many `-v`: more detail on standard error.
    pub verbose: u8,
    pub color: ColorChoice,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Fixes the settings for the run; a second call is ignored (the first one wins).
pub fn init(s: Settings) {
    let _ = SETTINGS.set(s);
}

fn settings() -> Settings {
    SETTINGS.get().copied().unwrap_or_default()
}

pub fn quiet() -> bool {
    settings().quiet
}

pub fn verbose() -> u8 {
    settings().verbose
}

/// NO_COLOR as <https://no-color.org> defines it: present and not empty.
fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

fn color_for(is_terminal: bool) -> bool {
    match settings().color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => is_terminal && !no_color_env(),
    }
}

/// Whether text printed on standard output may carry ANSI colour.
pub fn color_stdout() -> bool {
    color_for(std::io::stdout().is_terminal())
}

/// Whether text printed on standard error may carry ANSI colour.
pub fn color_stderr() -> bool {
    color_for(std::io::stderr().is_terminal())
}

/// Whether a progress display may be drawn on standard error: not with `-q`, and only on
/// a terminal (a log file should not fill with redrawn lines).
pub fn progress() -> bool {
    !quiet() && std::io::stderr().is_terminal()
}

/// A note on standard error ("wrote …"); `-q` silences it.
pub fn note(msg: impl Display) {
    if !quiet() {
        eprintln!("latscope: {msg}");
    }
}

/// A detail on standard error shown only with `-v`.
pub fn detail(msg: impl Display) {
    if verbose() > 0 && !quiet() {
        eprintln!("latscope: {msg}");
    }
}

/// `code` around `s` as an ANSI SGR sequence when `on`, `s` alone otherwise.
pub fn paint(s: &str, code: &str, on: bool) -> String {
    if on {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// A warning on standard error; printed even with `-q` (it says something went
/// differently from what was asked).
pub fn warn(msg: impl Display) {
    eprintln!(
        "latscope: {}: {msg}",
        paint("warning", "33;1", color_stderr())
    );
}

/// The one-line error `main` prints before exiting with status 2.
pub fn error(msg: impl Display) {
    eprintln!(
        "latscope: {}: {msg}",
        paint("error", "31;1", color_stderr())
    );
}
