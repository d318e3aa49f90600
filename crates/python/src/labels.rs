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

/// `result` as the CLI writes it with `--json`: pretty JSON with the `labels` object.
pub fn json_with(result: &impl Serialize, labels: &Labels) -> pyo3::PyResult<String> {
    let mut value = serde_json::to_value(result).map_err(err)?;
    if let Some(obj) = value.as_object_mut() {
        obj.insert("labels".into(), serde_json::to_value(labels).map_err(err)?);
    }
    serde_json::to_string_pretty(&value).map_err(err)
}
