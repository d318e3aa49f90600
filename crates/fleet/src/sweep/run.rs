//! Running a sweep: work items computed on `jobs` threads, emitted in item order.

use super::{set_seed, SimFigures, SweepError, SweepRow, SweepSpec};
use latscope_model::generate::{generate, GenerateSpec};
use latscope_model::rta::{analyze_mode, AnalysisOptions};
use latscope_sim::{from_system, FromSystemOptions, Sim, SimOptions};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The rows of one work item (one generated set under every configuration).
pub fn run_item(spec: &SweepSpec, item: usize) -> Result<Vec<SweepRow>, SweepError> {
    let (ui, si) = spec.item(item);
    let utilisation = spec.utilisations[ui];
    let seed = set_seed(spec.seed, ui, si);
    let fail = |what: String| SweepError::Item {
        utilisation,
        util_index: ui,
        set: si,
        seed,
        what,
    };
    let gspec = GenerateSpec {
        tasks: spec.tasks,
        utilisation,
        method: spec.method,
        max_task_utilisation: spec.max_task_utilisation,
        period_min: spec.period_min,
        period_max: spec.period_max,
        granularity: spec.granularity,
        periods: spec.periods.clone(),
        seed,
    };
    let first = &spec
        .configs
        .first()
        .ok_or_else(|| fail("no configuration".into()))?;
    let set = generate(&first.system, &gspec, 1)
        .map_err(|e| fail(format!("generating the set: {e}")))?
        .pop()
        .ok_or_else(|| fail("the generator returned no set".into()))?;
    let total_utilisation: f64 = set
        .tasks
        .iter()
        .map(|t| t.wcet.0 as f64 / t.period().0 as f64)
        .sum();
    let opts = AnalysisOptions {
        stop_at_deadline: true,
        ..Default::default()
    };
    let mut rows = Vec::with_capacity(spec.configs.len());
    for (ci, c) in spec.configs.iter().enumerate() {
        let mut sys = c.system.clone();
        for irq in &mut sys.interrupts {
            irq.releases = None;
        }
        sys.tasks.clone_from(&set.tasks);
        sys.source = format!("{} (seed {seed})", c.name);
        let tasks = analyze_mode(&sys, &opts, sys.kernel.tick_mode)
            .map_err(|e| fail(format!("{}: analysis: {e}", c.name)))?;
        let tasks_missing = tasks.iter().filter(|t| !t.schedulable).count();
        let mut worst: Option<f64> = Some(0.0);
        for t in &tasks {
            worst = match (worst, t.wcrt_ns) {
                (Some(w), Some(r)) if t.deadline_ns > 0.0 => Some(w.max(r / t.deadline_ns)),
                _ => None,
            };
        }
        let sim = match spec.simulate {
            None => None,
            Some(until) => {
                Some(simulate(&sys, until, seed).map_err(|e| fail(format!("{}: {e}", c.name)))?)
            }
        };
        rows.push(SweepRow {
            config: c.name.clone(),
            config_index: ci,
            utilisation,
            util_index: ui,
            set: si,
            seed,
            tasks: sys.tasks.len(),
            total_utilisation,
            schedulable: tasks_missing == 0,
            tasks_missing,
            worst_response_ratio: worst,
            sim,
        });
    }
    Ok(rows)
}

/// Why a configuration could not be simulated for its sweep row.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    #[error("simulation: {0}")]
    FromSystem(#[from] latscope_sim::FromSystemError),
    #[error("simulation: {0}")]
    Config(#[from] latscope_sim::ConfigError),
}

fn simulate(
    sys: &latscope_model::System,
    until: latscope_core::Picos,
    seed: u64,
) -> Result<SimFigures, SimulateError> {
    let cfg = from_system(
        sys,
        &FromSystemOptions {
            seed,
            ..Default::default()
        },
    )?;
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            seed,
            series: false,
            capture: false,
            percentiles: false,
            source: sys.source.clone(),
        },
    )?;
    sim.run_until(until);
    let r = sim.report();
    let mut worst: Option<f64> = Some(0.0);
    for t in &r.tasks {
        worst = match (worst, t.max_response_ns) {
            (Some(w), Some(x)) if t.deadline_ns > 0.0 => Some(w.max(x / t.deadline_ns)),
            _ => None,
        };
    }
    Ok(SimFigures {
        duration_ns: r.duration_ns,
        deadline_misses: r.tasks.iter().map(|t| t.deadline_misses).sum(),
        worst_response_ratio: worst,
    })
}

/// One item's rows, filled by whichever thread computed it.
type Slot = Mutex<Option<Result<Vec<SweepRow>, SweepError>>>;

/// Runs the items `items` on `jobs` threads, handing the rows to `emit` in item order, a
/// chunk at a time (memory stays bounded by the chunk, not the sweep). `emit` gets the
/// number of items done so far (for progress). Stops at the first failing item (the
/// lowest-numbered one, whatever the thread timing), when `emit` fails, or when `cancel`
/// is set (an interrupted run: [`SweepError::Interrupted`]).
pub fn run<E>(
    spec: &SweepSpec,
    items: Range<usize>,
    jobs: usize,
    cancel: &AtomicBool,
    mut emit: E,
) -> Result<(), SweepError>
where
    E: FnMut(&[SweepRow], usize) -> Result<(), SweepError>,
{
    let jobs = jobs.max(1);
    let chunk = (jobs * 64).max(256);
    let mut start = items.start;
    while start < items.end {
        let end = items.end.min(start + chunk);
        let results: Vec<Slot> = (start..end).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(start);
        let failed = AtomicBool::new(false);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= end || failed.load(Ordering::Relaxed) || cancel.load(Ordering::Relaxed) {
                break;
            }
            let r = run_item(spec, i);
            if r.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            if let Ok(mut slot) = results[i - start].lock() {
                *slot = Some(r);
            }
        };
        if jobs == 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..jobs.min(end - start) {
                    s.spawn(work);
                }
            });
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(SweepError::Interrupted);
        }
        let mut rows = Vec::with_capacity((end - start) * spec.configs.len());
        for (k, slot) in results.into_iter().enumerate() {
            match slot.into_inner().ok().flatten() {
                Some(Ok(r)) => rows.extend(r),
                Some(Err(e)) => return Err(e),
                // Skipped after an earlier failure; redo it here to find the first error.
                None => rows.extend(run_item(spec, start + k)?),
            }
        }
        emit(&rows, end - items.start)?;
        start = end;
    }
    Ok(())
}
