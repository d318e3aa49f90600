//! `latscope.fit`: an overhead model's line fitted to samples (arrays, or trace results),
//! as `latscope fit --json`; and the fitted line written into a system description.

use crate::errors::{ctx, err};
use latscope_model::fit::{self as mfit, Line, Sample, Target};
use pyo3::prelude::*;

fn target(t: &str) -> PyResult<Target> {
    match t {
        "tick" => Ok(Target::Tick),
        "switch" => Ok(Target::Switch),
        "insert" => Ok(Target::Insert),
        o => Err(err(format!("target '{o}': use tick, switch or insert"))),
    }
}

/// fit(target, x=None, y_ns=None, traces=None, measurement=None, stat="max",
/// source=None) -> JSON text. Either `x` and `y_ns` (equal lengths; x whole counts >= 0;
/// a sample's `row` is its index in the arrays),
/// or `traces`: (x, trace result JSON text, name) per sample with `measurement`.
#[pyfunction]
#[pyo3(signature = (target_name, x=None, y_ns=None, traces=None, measurement=None, stat="max", source=None))]
pub fn fit(
    target_name: &str,
    x: Option<Vec<f64>>,
    y_ns: Option<Vec<f64>>,
    traces: Option<Vec<(u64, String, String)>>,
    measurement: Option<&str>,
    stat: &str,
    source: Option<String>,
) -> PyResult<String> {
    target(target_name)?;
    let (name, samples) = match (x, y_ns, traces) {
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
            (source.unwrap_or_else(|| "<arrays>".into()), s)
        }
        (None, None, Some(traces)) => {
            let meas = measurement.ok_or_else(|| err("give measurement=NAME with traces"))?;
            let mut s = Vec::new();
            for (k, (xv, text, file)) in traces.iter().enumerate() {
                s.push(
                    mfit::sample_from_trace_json(text, file, meas, stat, *xv, k + 1)
                        .map_err(err)?,
                );
            }
            (format!("{} trace results ({meas} {stat})", s.len()), s)
        }
        _ => return Err(err("give x and y_ns, or traces (not both)")),
    };
    let r = mfit::fit(&samples).map_err(|e| ctx(format!("fitting {name}"), e))?;
    let mut v = serde_json::to_value(&r).map_err(err)?;
    v["kind"] = "fit".into();
    v["schema_version"] = 1.into();
    v["source"] = name.into();
    serde_json::to_string_pretty(&v).map_err(err)
}

/// apply_fit(kind, text, name, target, intercept_ns, slope_ns) -> the system description
/// as TOML with the line in [kernel.costs] (a TOML input keeps its comments and order).
#[pyfunction]
pub fn apply_fit(
    kind: &str,
    text: &str,
    name: &str,
    target_name: &str,
    intercept_ns: f64,
    slope_ns: f64,
) -> PyResult<String> {
    let t = target(target_name)?;
    let source = crate::system::source_name(kind, text, name);
    let mut sys = crate::system::load(kind, text, name)
        .map_err(|e| ctx(format!("reading system description {source}"), e))?;
    let line = Line {
        intercept_ns,
        slope_ns,
    };
    mfit::apply(&mut sys, t, &line).map_err(|e| ctx(format!("updating {source}"), e))?;
    let toml_text = match kind {
        "path" if !text.to_ascii_lowercase().ends_with(".json") => {
            Some(std::fs::read_to_string(text).map_err(|e| ctx(format!("reading {text}"), e))?)
        }
        "toml" => Some(text.to_string()),
        _ => None,
    };
    match toml_text {
        Some(orig) => {
            mfit::update_toml_text(&orig, &sys, t).map_err(|e| ctx(format!("updating {source}"), e))
        }
        None => Ok(sys.to_toml_string()),
    }
}
