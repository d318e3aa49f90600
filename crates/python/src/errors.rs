//! Errors as Python exceptions, carrying the text the CLI prints after
//! `latscope: error: ` (the whole context chain on one line).
//!
//! The classes are defined in Python (`latscope/errors.py`), where an exception can
//! derive from both `LatscopeError` and the built-in that fits (`ValueError`, `OSError`);
//! they are looked up there when an error is raised.

use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyErr;

/// Which class of `latscope.errors` an error becomes.
#[derive(Clone, Copy)]
pub enum Kind {
    /// `LatscopeError` itself: a failure that is neither of the others.
    Other,
    /// `InputError` (a `ValueError`): a bad value or malformed input.
    Input,
    /// `FileError` (an `OSError`): a file that cannot be read or written.
    File,
}

impl Kind {
    fn class(self) -> &'static str {
        match self {
            Kind::Other => "LatscopeError",
            Kind::Input => "InputError",
            Kind::File => "FileError",
        }
    }
}

/// The class `name` of `latscope.errors`.
pub fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    Ok(py
        .import("latscope.errors")?
        .getattr(name)?
        .cast_into::<PyType>()?)
}

fn raise(kind: Kind, msg: String, io: Option<(&std::io::Error, &str)>) -> PyErr {
    Python::attach(|py| match class(py, kind.class()) {
        // FileError(message, errno, filename): an OSError with both set, as open() raises.
        Ok(ty) => match io {
            Some((e, file)) => PyErr::from_type(ty, (msg, e.raw_os_error(), file.to_string())),
            None => PyErr::from_type(ty, (msg,)),
        },
        Err(e) => e,
    })
}

/// An InputError with this message: the common case, a bad value or malformed input.
pub fn err(msg: impl std::fmt::Display) -> PyErr {
    raise(Kind::Input, msg.to_string(), None)
}

/// `context: message` as an InputError, as the CLI's anyhow chain prints it.
pub fn ctx(context: impl std::fmt::Display, msg: impl std::fmt::Display) -> PyErr {
    raise(Kind::Input, format!("{context}: {msg}"), None)
}

/// A file that cannot be read or written: a FileError (an OSError with the errno and the
/// file name).
pub fn file_err(context: impl std::fmt::Display, file: &str, e: &std::io::Error) -> PyErr {
    raise(Kind::File, format!("{context}: {e}"), Some((e, file)))
}

/// A FileError whose message is `msg` as it stands (it already names the file), with
/// the errno of `e` and the file name.
pub fn file_err_msg(msg: impl std::fmt::Display, file: &str, e: &std::io::Error) -> PyErr {
    raise(Kind::File, msg.to_string(), Some((e, file)))
}

/// A LatscopeError that is neither bad input nor a file problem.
pub fn other(msg: impl std::fmt::Display) -> PyErr {
    raise(Kind::Other, msg.to_string(), None)
}
