//! `latscope.measure` (Linux only): timer wake-up latency, as `latscope measure --json`.
//! Ctrl-C ends the run like the CLI's SIGINT does (the measuring threads stop), then
//! raises KeyboardInterrupt.

use crate::errors::err;
use crate::interrupt::{interruptible, Join};
use latscope_core::flag::refusal;
use latscope_measure::values::LoadList;
use latscope_measure::{session, PlanSpec};
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// A keyword's text as the typed value of the CLI flag `flag`, through the library's
/// `FromStr` (clap parses the flag through the same): a bad value is an `InputError` (a
/// `ValueError`) worded as the CLI words the flag's refusal.
fn flag<T: FromStr>(flag: &str, text: &str) -> PyResult<T>
where
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|e: T::Err| err(refusal(flag, text, &e.to_string())))
}

/// [`flag`] for a keyword that may be `None`.
fn opt<T: FromStr>(name: &str, text: Option<&str>) -> PyResult<Option<T>>
where
    T::Err: std::fmt::Display,
{
    text.map(|t| flag(name, t)).transpose()
}

/// measure(...) -> (JSON text, interrupted). Keywords are the CLI's flags, parsed by the
/// same typed values and checked by the same `PlanSpec` as `latscope measure`, so the
/// refusals are the same.
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
        cpus: opt("--cpus", cpus)?,
        policy: flag("--policy", policy)?,
        priority,
        allow_fallback,
        mode: flag("--mode", mode)?,
        interval: flag("--interval", interval)?,
        duration: opt("--duration", duration)?,
        loops,
        overrun: flag("--overrun", overrun)?,
        // `pm_qos_us=N` is the CLI's `--pm-qos N` (a bare number is µs).
        pm_qos: opt("--pm-qos", pm_qos_us.map(|us| us.to_string()).as_deref())?,
        loads: load
            .iter()
            .map(|l| flag::<LoadList>("--load", l).map(|l| l.0))
            .collect::<PyResult<Vec<_>>>()?
            .concat(),
        compare_load: opt("--compare-load", compare_load)?,
        sweep: opt("--sweep", sweep)?,
        sweep_points,
        trace_above: opt("--trace-above", trace_above)?,
        trace_events: None,
        trace_buffer: None,
        probe_idle,
        rounds,
        histogram_us,
        samples,
        samples_format: opt("--samples-format", samples_format)?,
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
