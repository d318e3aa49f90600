//! `latscope.simulate`: the kernel simulator, as `latscope simulate --json`, with the
//! virtual capture and the per-tick series on request.

use crate::capture::Capture;
use crate::errors::{ctx, err};
use crate::interrupt::{interruptible, Join};
use latscope_core::time::parse_nonneg_duration;
use latscope_core::Picos;
use latscope_sim::{from_system, ExecMode, FromSystemOptions, IrqMode, Sim, SimOptions};
use numpy::PyArray1;
use pyo3::prelude::*;
use std::sync::atomic::Ordering;
use std::time::Duration;

type Series<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u32>>,
);

/// What `simulate` returns to the Python package.
type SimOut<'py> = (String, Option<String>, Option<Capture>, Option<Series<'py>>);

/// simulate(kind, text, name, duration, max_duration, seed, exec, irq_arrivals,
/// sleep_state, tickless, min_idle_ticks, capture, series) -> (JSON text, note or None,
/// Capture or None, (tick time ps, duration ps, released) arrays or None).
#[pyfunction]
#[pyo3(signature = (kind, text, name, duration=None, max_duration="600s", seed=0, exec="auto", irq_arrivals="worst", sleep_state=None, tickless=true, min_idle_ticks=2, capture=false, series=false, labels=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate<'py>(
    py: Python<'py>,
    kind: &str,
    text: &str,
    name: &str,
    duration: Option<&str>,
    max_duration: &str,
    seed: u64,
    exec: &str,
    irq_arrivals: &str,
    sleep_state: Option<String>,
    tickless: bool,
    min_idle_ticks: u64,
    capture: bool,
    series: bool,
    labels: Option<std::collections::BTreeMap<String, String>>,
) -> PyResult<SimOut<'py>> {
    let labels = crate::labels::resolve(labels)?;
    let exec = match exec {
        "auto" => ExecMode::Auto,
        "wcet" => ExecMode::Wcet,
        "uniform" => ExecMode::Uniform,
        o => {
            return Err(err(format!(
                "exec: unknown mode '{o}' (use auto, wcet or uniform)"
            )))
        }
    };
    let irq = match irq_arrivals {
        "worst" => IrqMode::Worst,
        "random" => IrqMode::Random,
        o => {
            return Err(err(format!(
                "irq_arrivals: unknown mode '{o}' (use worst or random)"
            )))
        }
    };
    let duration = duration
        .map(|d| parse_nonneg_duration(d).map_err(|e| ctx(format!("duration '{d}'"), e)))
        .transpose()?;
    let cap = parse_nonneg_duration(max_duration)
        .map_err(|e| ctx(format!("max_duration '{max_duration}'"), e))?;
    let source = crate::system::source_name(kind, text, name);
    let sys = crate::system::load(kind, text, name, None)?;
    let cfg = from_system(
        &sys,
        &FromSystemOptions {
            exec,
            irq,
            seed,
            sleep_state,
            no_tickless: !tickless,
            min_idle_ticks: Some(min_idle_ticks),
        },
    )
    .map_err(|e| ctx(&source, e))?;
    let (until, note) = latscope_sim::run_length(
        &cfg,
        duration,
        cap,
        latscope_sim::LengthNames {
            duration: "duration",
            max_duration: "max_duration",
        },
    )
    .map_err(|e| err(e.to_string()))?;
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            seed,
            series,
            capture,
            percentiles: true,
            source: source.clone(),
        },
    )
    .map_err(|e| ctx(&source, e))?;
    // In slices, so that Ctrl-C is noticed: run_until is exact at any boundary.
    let sim = interruptible(py, Some(Join(Duration::from_secs(5))), move |stop| {
        let from = sim.now().0;
        let total = (until.0 - from).max(0) as i128;
        for k in 1..=1000i128 {
            if stop.load(Ordering::SeqCst) {
                return None;
            }
            sim.run_until(Picos(from + (total * k / 1000) as i64));
        }
        Some(sim)
    })?
    .ok_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err(()))?;
    let json = crate::labels::json_with(&sim.report(), &labels)?;
    let capture = capture.then(|| Capture::new(sim.capture(), "simulation".into()));
    let series = series.then(|| {
        let rows = sim.series();
        (
            PyArray1::from_iter(py, rows.iter().map(|r| r.time.0)),
            PyArray1::from_iter(py, rows.iter().map(|r| r.duration.0)),
            PyArray1::from_iter(py, rows.iter().map(|r| r.released)),
        )
    });
    Ok((json, note, capture, series))
}
