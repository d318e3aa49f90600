//! A system description from Python: a file path, TOML text or JSON text (the Python
//! package turns a dict into JSON).

use crate::errors::err;
use latscope_model::System;
use pyo3::prelude::*;
use std::path::Path;

/// Reads the description. `kind`: "path", "toml" or "json"; `name` names the text in
/// error messages (`<string>`, `<dict>`).
pub fn load(kind: &str, text: &str, name: &str) -> Result<System, String> {
    match kind {
        "path" => System::from_path(Path::new(text)).map_err(|e| e.to_string()),
        "toml" => System::from_toml_str(text, name).map_err(|e| e.to_string()),
        "json" => System::from_json_str(text, name).map_err(|e| e.to_string()),
        o => Err(format!("internal: unknown system kind '{o}'")),
    }
}

/// The name used in messages and in results' `source`.
pub fn source_name(kind: &str, text: &str, name: &str) -> String {
    if kind == "path" {
        text.to_string()
    } else {
        name.to_string()
    }
}

/// check_system(kind, text, name) -> the description as TOML in the documented format
/// (an error for an invalid one).
#[pyfunction]
pub fn check_system(kind: &str, text: &str, name: &str) -> PyResult<String> {
    Ok(load(kind, text, name).map_err(err)?.to_toml_string())
}
