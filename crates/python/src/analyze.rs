//! `latscope.analyze`: the response-time analysis, as `latscope analyze --json`.

use crate::errors::{ctx, err};
use latscope_model::rta::AnalysisOptions;
use latscope_model::system::TickMode;
use pyo3::prelude::*;

/// analyze(kind, text, name, tick_mode=None, overheads=True, release_delay=True,
/// stop_at_deadline=False, labels=None, periodic_interrupts=False) -> JSON text of the
/// result.
#[pyfunction]
#[pyo3(signature = (kind, text, name, tick_mode=None, overheads=true, release_delay=true, stop_at_deadline=false, labels=None, periodic_interrupts=false))]
#[allow(clippy::too_many_arguments)]
pub fn analyze(
    py: Python<'_>,
    kind: &str,
    text: &str,
    name: &str,
    tick_mode: Option<&str>,
    overheads: bool,
    release_delay: bool,
    stop_at_deadline: bool,
    labels: Option<std::collections::BTreeMap<String, String>>,
    periodic_interrupts: bool,
) -> PyResult<String> {
    let labels = crate::labels::resolve(labels)?;
    let source = crate::system::source_name(kind, text, name);
    let sys = crate::system::load(
        kind,
        text,
        name,
        Some(&format!("reading system description {source}")),
    )?;
    let tick_mode = match tick_mode {
        None => None,
        Some("pessimistic") => Some(TickMode::Pessimistic),
        Some("partitioned") => Some(TickMode::Partitioned),
        Some(o) => {
            return Err(err(format!(
                "tick_mode '{o}': use 'pessimistic' or 'partitioned'"
            )))
        }
    };
    let opts = AnalysisOptions {
        tick_mode,
        overheads,
        tick_release_delay: release_delay,
        stop_at_deadline,
        ..Default::default()
    };
    let res = py
        .detach(|| latscope_model::analyze(&sys, &opts))
        .map_err(|e| ctx(&source, e))?;
    // As `latscope analyze --json`: beside the offset-free bound, the offset-aware worst
    // response of a deterministic set when any task has an offset (null otherwise).
    let offset_aware = sys
        .tasks
        .iter()
        .any(|t| t.offset != latscope_core::Picos::ZERO)
        .then(|| py.detach(|| latscope_sim::offsets::offset_aware(&sys)));
    // And the offset-based bound (holds with jitter and sporadic interrupts; with
    // `periodic_interrupts`, as `--periodic-interrupts`, the handlers' phases count too).
    let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
    let zero = latscope_core::Picos::ZERO;
    let phased_irq = sys
        .interrupts
        .iter()
        .any(|x| (periodic_interrupts || x.periodic) && x.offset != zero);
    let irq = if periodic_interrupts {
        latscope_model::rta::offsets::IrqPhasing::Periodic
    } else {
        latscope_model::rta::offsets::IrqPhasing::Sporadic
    };
    let offset_bound = match phased_irq || sys.tasks.iter().any(|t| t.offset != zero) {
        true => Some(
            py.detach(|| latscope_model::rta::offsets::offset_bound_with(&sys, &opts, mode, irq))
                .map_err(|e| ctx(&source, e))?,
        ),
        false => None,
    };
    let doc =
        latscope_sim::analysis::AnalyzeDocument::new(res, offset_aware, offset_bound, None, None);
    crate::labels::json_with(&doc, &labels)
}
