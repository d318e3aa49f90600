//! `latscope.measure` (Linux only): timer wake-up latency, as `latscope measure --json`.
//! Ctrl-C ends the run like the CLI's SIGINT does (the measuring threads stop), then
//! raises KeyboardInterrupt.

use crate::errors::err;
use crate::interrupt::{interruptible, Join};
use latscope_measure::{session, PlanSpec};
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// measure(...) -> (JSON text, interrupted). Keywords are the CLI's flags, parsed and
/// checked by the same `PlanSpec` as `latscope measure`, so the refusals are the same.
#[pyfunction]
#[pyo3(signature = (duration=None, interval="1ms", cpus=None, policy="fifo", priority=None, allow_fallback=false, mode="absolute", loops=None, overrun="skip", pm_qos_us=None, load=vec![], compare_load=None, sweep=None, sweep_points=8, histogram_us=10000, samples=None, lock_memory=true, sysroot=None, labels=None, rounds=None, trace_above=None, probe_idle=false, samples_format=None))]
#[allow(clippy::too_many_arguments)]
pub fn measure(
    py: Python<'_>,
    duration: Option<&str>,
    interval: &str,
    cpus: Option<&str>,
    policy: &str,
    priority: Option<i32>,
    allow_fallback: bool,
    mode: &str,
    loops: Option<u64>,
    overrun: &str,
    pm_qos_us: Option<i64>,
    load: Vec<String>,
    compare_load: Option<&str>,
    sweep: Option<&str>,
    sweep_points: usize,
    histogram_us: usize,
    samples: Option<PathBuf>,
    lock_memory: bool,
    sysroot: Option<PathBuf>,
    labels: Option<BTreeMap<String, String>>,
    rounds: Option<usize>,
    trace_above: Option<&str>,
    probe_idle: bool,
    samples_format: Option<&str>,
) -> PyResult<(String, bool)> {
    let spec = PlanSpec {
        cpus: cpus.map(str::to_string),
        policy: policy.to_string(),
        priority,
        allow_fallback,
        mode: mode.to_string(),
        interval: interval.to_string(),
        duration: duration.map(str::to_string),
        loops,
        overrun: overrun.to_string(),
        // `pm_qos_us=N` is the CLI's `--pm-qos N` (a bare number is µs).
        pm_qos: pm_qos_us.map(|us| us.to_string()),
        loads: load,
        compare_load: compare_load.map(str::to_string),
        sweep: sweep.map(str::to_string),
        sweep_points,
        trace_above: trace_above.map(str::to_string),
        trace_events: None,
        trace_buffer: None,
        probe_idle,
        rounds,
        histogram_us,
        samples,
        samples_format: samples_format.map(str::to_string),
        lock_memory,
        timer_slack: None,
        sysroot: sysroot.unwrap_or_else(|| PathBuf::from("/")),
        labels: labels
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect(),
        live: false,
    };
    let plan = spec.build().map_err(err)?;
    let interval_ns = plan.settings.interval_ns;
    let prep = session::prepare(&plan).map_err(err)?;
    // Wait for the measuring threads after Ctrl-C (they stop within one interval), so no
    // load thread or PM QoS hold outlives the call.
    let wait =
        Duration::from_nanos(interval_ns.max(0) as u64).saturating_mul(4) + Duration::from_secs(5);
    let out = interruptible(py, Some(Join(wait)), move |stop| {
        let mut progress = |_: &str, _: &latscope_measure::engine::Progress| {};
        session::execute(&plan, &prep, &stop, &mut progress)
    })?;
    let outcome = out.map_err(err)?;
    Ok((outcome.report.to_json(), outcome.report.interrupted))
}
