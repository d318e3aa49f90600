//! `labels=`: the `--label KEY=VALUE` of the CLI as a dict, checked by the same rules and
//! written into the result's top-level `labels` object with this machine's facts, so that
//! every result's `to_dict()` stays exactly the CLI's JSON.

use crate::errors::err;
use latscope_core::labels::{parse_labels, Labels};
use serde::Serialize;
use std::collections::BTreeMap;

/// The user's labels (checked) plus host, kernel, cpu_model and latscope_version.
pub fn resolve(user: Option<BTreeMap<String, String>>) -> pyo3::PyResult<Labels> {
    let given: Vec<String> = user
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    Ok(Labels::with_host(parse_labels(&given).map_err(err)?))
}

/// `result` as the CLI writes it with `--json` (without its final newline): the same
/// writer, [`latscope_core::labeled_json`].
pub fn json_with(result: &impl Serialize, labels: &Labels) -> pyo3::PyResult<String> {
    let mut out = Vec::new();
    latscope_core::labeled_json::write_labeled(&mut out, result, labels).map_err(err)?;
    String::from_utf8(out).map_err(err)
}
