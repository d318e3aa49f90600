//! Errors as Python exceptions, carrying the text the CLI prints after
//! `latscope: error: ` (the whole context chain on one line).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    latscope,
    LatscopeError,
    PyException,
    "An error of latscope: bad input, a file that cannot be read, an impossible request. \
     The message is the one the latscope command line prints."
);

/// A LatscopeError with this message.
pub fn err(msg: impl std::fmt::Display) -> PyErr {
    LatscopeError::new_err(msg.to_string())
}

/// `context: message`, as the CLI's anyhow chain prints it.
pub fn ctx(context: impl std::fmt::Display, msg: impl std::fmt::Display) -> PyErr {
    LatscopeError::new_err(format!("{context}: {msg}"))
}
