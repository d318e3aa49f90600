//! `latscope.measure` (Linux only): timer wake-up latency, as `latscope measure --json`.
//! Ctrl-C ends the run like the CLI's SIGINT does (the measuring threads stop), then
//! raises KeyboardInterrupt.

use crate::errors::err;
use crate::interrupt::{interruptible, Join};
use latscope_measure::settings::{
    self, OverrunPolicy, Policy, SampleFormat, Settings, Stop, TimerMode,
};
use latscope_measure::{session, Plan};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Duration;

/// measure(...) -> (JSON text, interrupted). Keywords are the CLI's flags.
#[pyfunction]
#[pyo3(signature = (duration=None, interval="1ms", cpus=None, policy="fifo", priority=None, allow_fallback=false, mode="absolute", loops=None, overrun="skip", pm_qos_us=None, load=vec![], compare_load=None, sweep=None, sweep_points=8, histogram_us=10000, samples=None, lock_memory=true, sysroot=None, labels=None))]
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
    pm_qos_us: Option<i32>,
    load: Vec<String>,
    compare_load: Option<&str>,
    sweep: Option<&str>,
    sweep_points: usize,
    histogram_us: usize,
    samples: Option<PathBuf>,
    lock_memory: bool,
    sysroot: Option<PathBuf>,
    labels: Option<std::collections::BTreeMap<String, String>>,
) -> PyResult<(String, bool)> {
    let labels = crate::labels::resolve(labels)?;
    let root = sysroot.unwrap_or_else(|| PathBuf::from("/"));
    let policy = Policy::parse(policy).map_err(err)?;
    let priority = priority.unwrap_or(match policy {
        Policy::Other => 0,
        _ => 80,
    });
    let online = latscope_measure::env::online_cpus(&root)
        .or_else(|| latscope_measure::env::online_cpus(std::path::Path::new("/")))
        .unwrap_or_else(|| vec![0]);
    let cpus = match cpus {
        Some(t) => settings::parse_cpu_list(t).map_err(err)?,
        None => online,
    };
    let interval_ns = settings::parse_positive_ns("--interval", interval).map_err(err)?;
    if loops.is_some() && duration.is_some() {
        return Err(err("give duration or loops, not both"));
    }
    let stop = match (loops, duration) {
        (Some(l), _) => Stop::Loops(l),
        (None, Some(d)) => {
            Stop::Duration(settings::parse_positive_ns("--duration", d).map_err(err)?)
        }
        (None, None) => Stop::Duration(10_000_000_000),
    };
    let s = Settings {
        cpus,
        policy,
        priority,
        allow_fallback,
        mode: TimerMode::parse(mode).map_err(err)?,
        interval_ns,
        stop,
        overrun: OverrunPolicy::parse(overrun).map_err(err)?,
        us_bins: histogram_us,
        lock_memory,
    };
    let mut plan = Plan::new(s);
    plan.root = root;
    plan.labels = labels;
    for l in &load {
        plan.loads.extend(settings::parse_loads(l).map_err(err)?);
    }
    if let Some(c) = compare_load {
        plan.compare_load = Some(settings::parse_load(c.trim()).map_err(err)?);
    }
    if let Some(sw) = sweep {
        let (lo, hi) = settings::parse_sweep(sw).map_err(err)?;
        plan.sweep = Some((lo, hi, sweep_points));
        plan.sweep_text = Some(sw.to_string());
    }
    if let Some(us) = pm_qos_us {
        if us < 0 {
            return Err(err(format!("pm_qos_us {us} must be 0..={} µs", i32::MAX)));
        }
        plan.pm_qos_us = Some(us);
    }
    if let Some(p) = samples {
        let fmt = if p.extension().map(|e| e.eq_ignore_ascii_case("csv")) == Some(true) {
            SampleFormat::Csv
        } else {
            SampleFormat::Binary
        };
        plan.samples = Some((p, fmt));
    }
    session::validate(&plan).map_err(err)?;
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
