//! The module object: what `latscope._latscope` exports.

use pyo3::prelude::*;

#[pymodule]
fn _latscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The exception classes live in latscope/errors.py (several bases each).
    for name in ["LatscopeError", "InputError", "FileError"] {
        m.add(name, crate::errors::class(py, name)?)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<crate::capture::Capture>()?;
    m.add_function(wrap_pyfunction!(crate::capture::read_capture, m)?)?;
    m.add_function(wrap_pyfunction!(crate::trace::trace, m)?)?;
    m.add_function(wrap_pyfunction!(crate::analyze::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(crate::simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(crate::fit::fit, m)?)?;
    m.add_function(wrap_pyfunction!(crate::fit::apply_fit, m)?)?;
    m.add_function(wrap_pyfunction!(crate::report::render_report, m)?)?;
    m.add_function(wrap_pyfunction!(crate::system::check_system, m)?)?;
    #[cfg(target_os = "linux")]
    m.add_function(wrap_pyfunction!(crate::measure::measure, m)?)?;
    m.add("HAVE_MEASURE", cfg!(target_os = "linux"))?;
    Ok(())
}
