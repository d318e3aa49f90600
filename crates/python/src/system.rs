//! A system description from Python: a file path, TOML text or JSON text (the Python
//! package turns a dict into JSON).

use crate::errors::{ctx, err, file_err_msg};
use latscope_model::system::SystemError;
use latscope_model::System;
use pyo3::prelude::*;
use std::path::Path;

/// Reads the description. `kind`: "path", "toml" or "json"; `name` names the text in
/// error messages (`<string>`, `<dict>`); `context`, if any, goes before the message. A
/// file that cannot be read is a FileError, an invalid description an InputError.
pub fn load(kind: &str, text: &str, name: &str, context: Option<&str>) -> PyResult<System> {
    let r = match kind {
        "path" => System::from_path(Path::new(text)),
        "toml" => System::from_toml_str(text, name),
        "json" => System::from_json_str(text, name),
        o => {
            return Err(crate::errors::other(format!(
                "internal: unknown system kind '{o}'"
            )))
        }
    };
    r.map_err(|e| match (&e, context) {
        (SystemError::Io { error, path }, Some(c)) => {
            file_err_msg(format!("{c}: {e}"), path, error)
        }
        (SystemError::Io { error, path }, None) => file_err_msg(&e, path, error),
        (_, Some(c)) => ctx(c, e),
        (_, None) => err(e),
    })
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
    let source = source_name(kind, text, name);
    let context = format!("reading system description {source}");
    Ok(load(kind, text, name, Some(&context))?.to_toml_string())
}
