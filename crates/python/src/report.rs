//! `latscope.report`: the HTML or Markdown report of `latscope report` from results.

use crate::errors::err;
use latscope_report::{render_html, render_markdown, Input, Options};
use pyo3::prelude::*;

/// render_report(inputs, title=None, format="html") -> the page. `inputs`: (name, text)
/// per result: a result's JSON, a CSV time series or a Perfetto trace-event JSON.
#[pyfunction]
#[pyo3(signature = (inputs, title=None, format="html"))]
pub fn render_report(
    py: Python<'_>,
    inputs: Vec<(String, String)>,
    title: Option<String>,
    format: &str,
) -> PyResult<String> {
    let mut parsed = Vec::with_capacity(inputs.len());
    for (name, text) in &inputs {
        parsed.push(Input::parse(name, text).map_err(err)?);
    }
    let opts = Options { title };
    let html = match format {
        "html" => true,
        "md" => false,
        o => return Err(err(format!("format '{o}': use html or md"))),
    };
    py.detach(|| {
        if html {
            render_html(&parsed, &opts)
        } else {
            render_markdown(&parsed, &opts)
        }
    })
    .map_err(err)
}
