//! `latscope.trace`: timing figures of a capture, as `latscope trace --json`.

use crate::capture::{load, Capture, InputOptions};
use crate::errors::{ctx, err};
use crate::interrupt::interruptible;
use latscope_core::time::Picos;
use latscope_trace::measure::{self, Limit, Per, Request, Settings};
use latscope_trace::report::{self, Report};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// A duration keyword, parsed by the library's duration type (the CLI's flags use the
/// same one through clap).
fn dur(s: Option<&str>, what: &str) -> PyResult<Option<Picos>> {
    s.map(|v| {
        v.parse::<Picos>()
            .map_err(|e| ctx(format!("{what} '{v}'"), e))
    })
    .transpose()
}

/// trace(source, ...) -> (JSON text, pass, series CSV text or None). `source`: a
/// Capture, or a list of file paths (merged, as the CLI merges several files). The
/// keywords are the CLI's flags (`from_` for --from).
#[pyfunction]
#[pyo3(signature = (source, pulse=vec![], latency=vec![], period=vec![], busy=vec![], count=vec![], nominal=None, window=None, per=None, from_=None, to=None, spec=None, limit=vec![], worst=5, bins=50, series=false, format=None, samplerate=None, cpu_hz=None, threshold=None, hysteresis=None, labels=None))]
#[allow(clippy::too_many_arguments)]
pub fn trace(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    pulse: Vec<String>,
    latency: Vec<String>,
    period: Vec<String>,
    busy: Vec<String>,
    count: Vec<String>,
    nominal: Option<&str>,
    window: Option<&str>,
    per: Option<&str>,
    from_: Option<&str>,
    to: Option<&str>,
    spec: Option<PathBuf>,
    limit: Vec<String>,
    worst: usize,
    bins: usize,
    series: bool,
    format: Option<String>,
    samplerate: Option<String>,
    cpu_hz: Option<String>,
    threshold: Option<f64>,
    hysteresis: Option<f64>,
    labels: Option<std::collections::BTreeMap<String, String>>,
) -> PyResult<(String, bool, Option<String>)> {
    let labels = crate::labels::resolve(labels)?;
    if window.is_some() && per.is_some() {
        return Err(err("give window or per, not both"));
    }
    let mut reqs: Vec<Request> = Vec::new();
    let mut limits: Vec<Limit> = Vec::new();
    let mut from = dur(from_, "from_")?;
    let mut to = dur(to, "to")?;
    let mut worst = worst;
    let mut spec_file = None;
    if let Some(p) = &spec {
        let name = p.display().to_string();
        let text =
            std::fs::read_to_string(p).map_err(|e| crate::errors::file_err(&name, &name, &e))?;
        let mut s = latscope_trace::spec::parse(&text, &name).map_err(err)?;
        reqs.append(&mut s.requests);
        limits.append(&mut s.limits);
        from = from.or(s.from);
        to = to.or(s.to);
        if let Some(w) = s.worst {
            worst = w;
        }
        spec_file = Some(s);
    }
    let nominal = dur(nominal, "nominal")?;
    let default_per = match (window, per) {
        (Some(w), _) => Per::Window(w.parse().map_err(|e| ctx(format!("window '{w}'"), e))?),
        (None, Some(p)) => p.parse::<Per>().map_err(|e| ctx(format!("per '{p}'"), e))?,
        (None, None) => Per::Whole,
    };
    for p in &pulse {
        reqs.push(measure::parse_pulse(p).map_err(err)?);
    }
    for l in &latency {
        reqs.push(measure::parse_latency(l).map_err(err)?);
    }
    // Parsed through the same typed specs as the CLI's flags, then completed with
    // `nominal`, `window` or `per`.
    for p in &period {
        let spec: measure::PeriodSpec = p.parse().map_err(err)?;
        reqs.push(spec.request(nominal));
    }
    for b in &busy {
        let spec: measure::BusySpec = b.parse().map_err(err)?;
        reqs.push(spec.request(&default_per));
    }
    for c in &count {
        let spec: measure::CountSpec = c.parse().map_err(err)?;
        reqs.push(spec.request(&default_per).map_err(err)?);
    }
    for l in &limit {
        limits.push(Limit::parse(l).map_err(err)?);
    }
    let (cap, format, decoded) = if let Ok(c) = source.cast::<Capture>() {
        let c = c.get();
        // analog channels named in a measurement are measured through a threshold, as
        // `latscope trace` does (on a copy: the Capture object stays as it was opened)
        let names: Vec<&str> = reqs.iter().flat_map(|r| r.channels()).collect();
        let analog_named = names.iter().any(|n| {
            c.inner.analog.iter().any(|a| a.name == *n)
                && !c.inner.channels.iter().any(|d| d.name == *n)
        });
        let inner = if analog_named {
            let mut cap = (*c.inner).clone();
            latscope_trace::import::analog::add_thresholded(
                &mut cap, &names, threshold, hysteresis,
            );
            Arc::new(cap)
        } else {
            c.inner.clone()
        };
        (inner, c.format.clone(), None)
    } else {
        let files: Vec<PathBuf> = if let Ok(one) = source.extract::<PathBuf>() {
            vec![one]
        } else {
            source
                .extract()
                .map_err(|_| err("source: give a Capture, a file path or a list of file paths"))?
        };
        let mut opts = InputOptions {
            format,
            samplerate,
            cpu_hz,
            threshold,
            hysteresis,
        }
        .options()?;
        // Decode only the channels the measurements read (large sigrok captures).
        if !reqs.is_empty() {
            opts.only_channels = Some(
                reqs.iter()
                    .flat_map(|r| r.channels())
                    .map(str::to_string)
                    .collect(),
            );
        }
        let (cap, format, decoded) = load(py, files, opts)?;
        (Arc::new(cap), format, Some(decoded))
    };
    if let Some(s) = &spec_file {
        s.check_roles(&cap).map_err(err)?;
    }
    let set = Settings {
        from,
        to,
        worst,
        bins: bins.max(1),
        // every value with its time only when written out (16 bytes per instance)
        series,
    };
    let out = interruptible(py, None, move |_| -> Result<_, latscope_trace::Error> {
        let ms = measure::run(&cap, &reqs, &set)?;
        let outcomes = measure::check_limits(&limits, &ms)?;
        let csv = if series {
            let mut buf = Vec::new();
            report::write_series(&ms, &mut buf)
                .map_err(|e| latscope_trace::Error::io("series", e))?;
            Some(String::from_utf8_lossy(&buf).into_owned())
        } else {
            None
        };
        let mut rep = Report::new(&cap, &format, from, to, ms, outcomes);
        if let Some(d) = &decoded {
            rep.set_decoded_flags(&cap, d);
        }
        Ok((rep, csv))
    })?;
    let (rep, csv) = out.map_err(err)?;
    let json = crate::labels::json_with(&rep, &labels)?;
    Ok((json, rep.pass, csv))
}
