//! The simulator as the scenarios use it: one way to run a system description, attach
//! the simulation's JSON and write its artifacts, and read latencies off its report.

use crate::{run_err, Options, Outcome, ScenarioError};
use latscope_core::Picos;
use latscope_model::system::System;
use latscope_sim::{from_system, FromSystemOptions, Sim, SimConfig, SimOptions};

/// Runs `sys` for `duration` and returns the finished simulation.
pub(crate) fn simulate(
    scenario: &'static str,
    sys: &System,
    fo: &FromSystemOptions,
    duration: Picos,
    capture: bool,
) -> Result<Sim, ScenarioError> {
    let cfg = from_system(sys, fo).map_err(run_err(scenario))?;
    simulate_config(scenario, cfg, &sys.source, duration, capture)
}

/// Runs an already converted configuration (a scenario that changes a cost table the
/// system format cannot express).
pub(crate) fn simulate_config(
    scenario: &'static str,
    cfg: SimConfig,
    source: &str,
    duration: Picos,
    capture: bool,
) -> Result<Sim, ScenarioError> {
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            seed: 1,
            series: true,
            capture,
            percentiles: true,
            source: source.to_string(),
        },
    )
    .map_err(run_err(scenario))?;
    sim.run_until(duration);
    Ok(sim)
}

/// The simulation's JSON with a tick-duration series thinned to at most `points` buckets
/// (each bucket keeps its largest duration, so no peak is lost) under `tick_series`.
pub(crate) fn report_json(
    scenario: &'static str,
    sim: &Sim,
    points: usize,
) -> Result<serde_json::Value, ScenarioError> {
    let mut v = serde_json::to_value(sim.report()).map_err(run_err(scenario))?;
    let rows = sim.series();
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        let span = (last.time.0 - first.time.0).max(1) as f64;
        let mut buckets: Vec<Option<(i64, i64, u32)>> = vec![None; points.max(1)];
        for r in rows {
            let i = (((r.time.0 - first.time.0) as f64 / span) * (points - 1) as f64) as usize;
            let b = &mut buckets[i.min(points - 1)];
            if b.is_none_or(|(_, d, _)| r.duration.0 > d) {
                *b = Some((r.time.0, r.duration.0, r.released));
            }
        }
        let kept: Vec<_> = buckets.into_iter().flatten().collect();
        v["tick_series"] = serde_json::json!({
            "note": "largest tick duration per time bucket",
            "time_ns": kept.iter().map(|k| k.0 as f64 / 1e3).collect::<Vec<_>>(),
            "duration_ns": kept.iter().map(|k| k.1 as f64 / 1e3).collect::<Vec<_>>(),
            "released": kept.iter().map(|k| k.2).collect::<Vec<_>>(),
        });
    }
    Ok(v)
}

pub(crate) fn write_series(
    scenario: &'static str,
    sim: &Sim,
    opts: &Options,
    out: &mut Outcome,
    file: &str,
) -> Result<(), ScenarioError> {
    if opts.out_dir.is_some() {
        let mut buf = Vec::new();
        sim.write_series_csv(&mut buf).map_err(run_err(scenario))?;
        out.artifact(opts, scenario, file, &buf)?;
    }
    Ok(())
}

pub(crate) fn write_vcd(
    scenario: &'static str,
    sim: &Sim,
    opts: &Options,
    out: &mut Outcome,
    file: &str,
) -> Result<(), ScenarioError> {
    if opts.out_dir.is_some() {
        let mut buf = Vec::new();
        latscope_trace::export::vcd::write(&sim.capture(), &mut buf).map_err(run_err(scenario))?;
        out.artifact(opts, scenario, file, &buf)?;
    }
    Ok(())
}

/// Time from the event (tick or interrupt) that releases `task` to its start, taken as a
/// response-time statistic of the task minus its own execution time: the worst case
/// (`max_response_ns`) or the median.
pub(crate) fn release_to_start_us(
    rep: &latscope_sim::SimReport,
    sys: &System,
    task: &str,
    median: bool,
) -> f64 {
    let wcet = sys
        .tasks
        .iter()
        .find(|t| t.name == task)
        .map(|t| t.wcet.as_ns_f64())
        .unwrap_or(f64::NAN);
    rep.tasks
        .iter()
        .find(|t| t.name == task)
        .and_then(|t| {
            if median {
                t.response.p50_ns
            } else {
                t.max_response_ns
            }
        })
        .map(|r| (r - wcet) / 1e3)
        .unwrap_or(f64::NAN)
}

pub(crate) fn irq_to_task_us(rep: &latscope_sim::SimReport, sys: &System, task: &str) -> f64 {
    release_to_start_us(rep, sys, task, false)
}

pub(crate) fn typical_tick_to_task_us(
    rep: &latscope_sim::SimReport,
    sys: &System,
    task: &str,
) -> f64 {
    release_to_start_us(rep, sys, task, true)
}

pub(crate) fn max_response_us(rep: &latscope_sim::SimReport, task: &str) -> f64 {
    rep.tasks
        .iter()
        .find(|t| t.name == task)
        .and_then(|t| t.max_response_ns)
        .map(|r| r / 1e3)
        .unwrap_or(f64::NAN)
}
