//! `latscope.fit`: an overhead model fitted to samples (arrays, or trace results), as
//! `latscope fit --json`; and the fitted model written into a system description.

use crate::errors::{ctx, err};
use latscope_model::fit::{self as mfit, Fitted, Sample, Target};
use pyo3::prelude::*;

fn target(t: &str) -> PyResult<Target> {
    match t {
        "tick" => Ok(Target::Tick),
        "switch" => Ok(Target::Switch),
        "insert" => Ok(Target::Insert),
        "switch-optimised" => Ok(Target::SwitchOptimised),
        o => Err(err(format!(
            "target '{o}': use tick, switch, insert or switch-optimised"
        ))),
    }
}

/// The samples and the name the CLI gives them. Either `x` and `y_ns` (equal lengths; x
/// whole counts >= 0; a sample's `row` is its index in the arrays), or `traces`: (x,
/// trace result JSON text, file name) per sample, with `measurement` and `stat`.
fn samples(
    x: Option<Vec<f64>>,
    y_ns: Option<Vec<f64>>,
    traces: Option<Vec<(u64, String, String)>>,
    measurement: Option<&str>,
    stat: &str,
) -> PyResult<(String, Vec<Sample>)> {
    match (x, y_ns, traces) {
        (Some(x), Some(y), None) => {
            if x.len() != y.len() {
                return Err(err(format!(
                    "x has {} values and y_ns {}: they must be the same length",
                    x.len(),
                    y.len()
                )));
            }
            let mut s = Vec::with_capacity(x.len());
            for (i, (&xv, &yv)) in x.iter().zip(&y).enumerate() {
                if !(xv.is_finite() && xv >= 0.0 && xv.fract() == 0.0) {
                    return Err(err(format!(
                        "x[{i}] = {xv}: x values are counts, whole numbers >= 0"
                    )));
                }
                if !(yv.is_finite() && yv >= 0.0) {
                    return Err(err(format!("y_ns[{i}] = {yv}: durations must be >= 0")));
                }
                s.push(Sample {
                    x: xv,
                    y_ns: yv,
                    row: i,
                });
            }
            Ok(("<arrays>".into(), s))
        }
        (None, None, Some(traces)) => {
            let meas = measurement.ok_or_else(|| err("give measurement=NAME with traces"))?;
            // The library's sample building, as `latscope fit --trace` does it.
            mfit::samples_from_traces(
                traces.iter().map(|(x, t, f)| (*x, t.as_str(), f.as_str())),
                meas,
                stat,
            )
            .map_err(err)
        }
        _ => Err(err("give x and y_ns, or traces (not both)")),
    }
}

fn fit_result(t: Target, name: &str, s: &[Sample], residuals: bool) -> PyResult<mfit::FitResult> {
    mfit::fit_target(s, t, residuals).map_err(|e| ctx(format!("fitting {name}"), e))
}

/// fit(target, x=None, y_ns=None, traces=None, measurement=None, stat="max",
/// residuals=False) -> JSON text, as `latscope fit --json`.
#[pyfunction]
#[pyo3(signature = (target_name, x=None, y_ns=None, traces=None, measurement=None, stat="max", residuals=false))]
pub fn fit(
    target_name: &str,
    x: Option<Vec<f64>>,
    y_ns: Option<Vec<f64>>,
    traces: Option<Vec<(u64, String, String)>>,
    measurement: Option<&str>,
    stat: &str,
    residuals: bool,
) -> PyResult<String> {
    let t = target(target_name)?;
    let (name, s) = samples(x, y_ns, traces, measurement, stat)?;
    let r = fit_result(t, &name, &s, residuals)?;
    let doc = latscope_model::fit::FitDocument::new(r, name, t);
    serde_json::to_string_pretty(&doc).map_err(err)
}

/// apply_fit(kind, text, name, target, line, x=None, y_ns=None, traces=None,
/// measurement=None, stat="max") -> the system description as TOML with the fitted
/// model ("upper": the safe one, "lsq": least squares) in [kernel.costs]; a TOML input
/// keeps its comments and order. The fit is the one `fit` computes from the same samples.
#[pyfunction]
#[pyo3(signature = (kind, text, name, target_name, line, x=None, y_ns=None, traces=None, measurement=None, stat="max"))]
#[allow(clippy::too_many_arguments)]
pub fn apply_fit(
    kind: &str,
    text: &str,
    name: &str,
    target_name: &str,
    line: &str,
    x: Option<Vec<f64>>,
    y_ns: Option<Vec<f64>>,
    traces: Option<Vec<(u64, String, String)>>,
    measurement: Option<&str>,
    stat: &str,
) -> PyResult<String> {
    let t = target(target_name)?;
    let (sname, s) = samples(x, y_ns, traces, measurement, stat)?;
    let r = fit_result(t, &sname, &s, false)?;
    let model: Fitted = match line {
        "upper" => r.safe_model(),
        "lsq" => r.least_squares_model(),
        o => return Err(err(format!("line '{o}': use 'upper' or 'lsq'"))),
    };
    let source = crate::system::source_name(kind, text, name);
    let mut sys = crate::system::load(
        kind,
        text,
        name,
        Some(&format!("reading system description {source}")),
    )?;
    mfit::apply(&mut sys, t, model).map_err(|e| ctx(format!("updating {source}"), e))?;
    let toml_text = match kind {
        "path" if !text.to_ascii_lowercase().ends_with(".json") => Some(
            std::fs::read_to_string(text)
                .map_err(|e| crate::errors::file_err(format!("reading {text}"), text, &e))?,
        ),
        "toml" => Some(text.to_string()),
        _ => None,
    };
    match toml_text {
        Some(orig) => mfit::update_toml_text(&orig, &sys, t, model)
            .map_err(|e| ctx(format!("updating {source}"), e)),
        None => Ok(sys.to_toml_string()),
    }
}
