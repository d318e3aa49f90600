//! `--label KEY=VALUE`, shared by every command that writes a result (measure, trace,
//! analyze, simulate, scenario, sweep): checked before any work, and written into the
//! result's top-level `labels` object with the machine's own keys
//! (latscope_core::labels).

use latscope_core::labels::{parse_labels, Labels};

// The `--label` option; flatten it into a command's `Args`.
// (A plain comment, not `///`: clap would take a doc comment as the command's `about`,
// replacing the one main.rs gives, because commands' arguments are built deferred.)
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LabelArgs {
    /// Attach KEY=VALUE to the result (repeatable), e.g. --label board=rpi4 --label
    /// rack=b7. Stored in the JSON's top-level `labels` object next to `host`,
    /// `kernel`, `cpu_model` and `latscope_version`, which latscope fills in itself.
    /// Keys: letters, digits and '_' (they become Prometheus labels and column names)
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub label: Vec<String>,
}

impl LabelArgs {
    /// The user's labels, checked, plus this machine's facts. A bad label is an error
    /// (exit 2) naming it.
    pub fn resolve(&self) -> anyhow::Result<Labels> {
        Ok(Labels::with_host(parse_labels(&self.label)?))
    }
}

/// Writes a result with its `labels` object as pretty JSON to `path` (`-`: standard
/// output), streamed through [`crate::out::stream`] (a file appears only once it is
/// whole); the text is [`latscope_core::labeled_json`]'s, and a final newline.
pub fn write_json(
    path: &std::path::Path,
    result: &impl serde::Serialize,
    labels: &Labels,
) -> anyhow::Result<()> {
    crate::out::stream(path, "--json", |w| write_labeled(w, result, labels))
}

/// [`latscope_core::labeled_json::write_labeled`] and a final newline, to `w`.
pub fn write_labeled(
    w: &mut impl std::io::Write,
    result: &impl serde::Serialize,
    labels: &Labels,
) -> anyhow::Result<()> {
    latscope_core::labeled_json::write_labeled(&mut *w, result, labels)?;
    w.write_all(b"\n")?;
    Ok(())
}
