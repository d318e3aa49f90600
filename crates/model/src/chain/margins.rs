//! Chains in the margins (`analyze --sensitivity`) and the priority assignment
//! (`analyze --assign-priorities`): with `[[chain]]` tables a task's response depends on
//! its predecessor's (holistic release jitter, on one core or across cores), and a chain
//! with a `deadline` is a requirement of its own. Both searches then judge a system with
//! the whole analysis (chains, cores) in the tick mode asked for, and a chain past its
//! end-to-end deadline counts as a miss like a task past its deadline. A partitioned
//! multicore system is judged the same way (its per-core analysis), so both searches
//! answer for more than one core too.

use crate::range::AnalysisError;
use crate::rta::{analyze, AnalysisOptions, TaskResult};
use crate::system::{System, TickMode};

/// The label a missing chain is named by where a task name would stand.
pub fn chain_label(name: &str) -> String {
    format!("chain \"{name}\"")
}

/// The tasks' results in `mode` with the chains' jitter, and the first chain (file
/// order) whose bound (reaction time) exceeds its deadline or has no bound while it has
/// a deadline.
pub fn analyze_mode_chains(
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
) -> Result<(Vec<TaskResult>, Option<String>), AnalysisError> {
    let o = AnalysisOptions {
        tick_mode: Some(mode),
        ..opts.clone()
    };
    let r = analyze(sys, &o)?;
    let miss = r
        .chains
        .iter()
        .find(|c| c.meets_deadline == Some(false))
        .map(|c| c.name.clone());
    Ok((r.tasks, miss))
}

/// Whether the searches must use the whole analysis: a system with chains, or with
/// more than one core (each core analysed with its own view, the cross-core releases'
/// jitter settled).
pub fn needs_whole(sys: &System) -> bool {
    !sys.chains.is_empty() || sys.platform.cores > 1
}
