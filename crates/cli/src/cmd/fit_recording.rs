//! `latscope fit TRACE --target tick|switch`: the samples of a fit straight from an event
//! recording — the tick's durations against the tasks it released, or the switches'
//! durations against the levels scanned — exactly the rows `latscope trace TRACE --tasks
//! --series` (`--switch-series`) writes, so the fit equals the fit of that CSV.

use super::trace_draft::tick_samples;
use latscope_model::fit::{switch_levels, Sample, Target};
use latscope_trace::tasks;
use std::path::Path;

/// The recording's name and samples for `target`.
pub fn samples(path: &Path, target: Target) -> anyhow::Result<(String, Vec<Sample>)> {
    let trace = crate::events_input::open(path, &Default::default())?;
    let name = trace.source.clone();
    let samples = match target {
        Target::Tick => {
            let rows = tasks::tick_rows(&trace, &tasks::walk(&trace));
            anyhow::ensure!(
                !rows.is_empty(),
                "{name}: no complete run of a tick handler (an actor of kind tick) in the \
                 recording"
            );
            tick_samples(&rows)
        }
        Target::Switch => {
            let rows = tasks::switch_rows(&trace);
            let u32_of = |p: Option<i64>| p.and_then(|v| u32::try_from(v).ok());
            let s: Vec<Sample> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    Some(Sample {
                        x: switch_levels(u32_of(r.from_priority)?, u32_of(r.to_priority)?),
                        y_ns: r.duration.0 as f64 / 1000.0,
                        row: i + 2,
                    })
                })
                .collect();
            anyhow::ensure!(
                !s.is_empty(),
                "{name}: no switch with a visible cause and both priorities known in the \
                 recording"
            );
            s
        }
        other => anyhow::bail!(
            "{name}: an event recording gives the tick and the switch only; --target {} \
             needs a CSV of measured durations",
            other.name()
        ),
    };
    Ok((name, samples))
}
