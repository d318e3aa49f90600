//! One file per subcommand. Each exposes `Args` (clap) and `run(Args) -> Result<ExitCode>`.
//! Errors returned here are printed by `main` with exit status 2 (bad input or failure);
//! a check that ran and failed (compare, --limit) returns `Ok(ExitCode::from(1))`.

pub mod analyze;
pub mod analyze_chains;
pub mod analyze_edf;
pub mod analyze_margins;
pub mod analyze_observed;
pub mod analyze_table;
pub mod compare;
pub mod completions;
pub mod convert;
pub mod export;
pub mod fit;
pub mod fit_recording;
pub mod generate;
pub mod man;
pub mod measure;
pub mod merge;
pub mod noise;
pub mod report;
pub mod scenario;
pub mod set_shape;
pub mod simulate;
pub mod sweep;
pub mod trace;
pub mod trace_chain;
pub mod trace_draft;
pub mod trace_tasks;

/// Fails early, before any work, when `path` cannot be created for writing: a run of
/// minutes should not end with "cannot write". Leaves no file behind.
pub fn check_writable(path: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}
