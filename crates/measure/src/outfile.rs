//! Output files that never damage an earlier result: the writer lives in
//! [`latscope_core::outfile`], shared by every command; this module keeps measure's path
//! to it and turns its error into a [`MeasureError`].

pub use latscope_core::outfile::{OutputError, OutputFile};

use crate::MeasureError;
use std::path::Path;

impl From<OutputError> for MeasureError {
    fn from(e: OutputError) -> Self {
        MeasureError::Output {
            path: e.path,
            msg: e.msg,
        }
    }
}

/// [`latscope_core::outfile::probe_writable`] with measure's error type.
pub fn probe_writable(path: &Path, option: &str) -> Result<(), MeasureError> {
    Ok(latscope_core::outfile::probe_writable(path, option)?)
}

/// [`latscope_core::outfile::write_atomically`] with measure's error type.
pub fn write_atomically(target: &Path, option: &str, bytes: &[u8]) -> Result<(), MeasureError> {
    Ok(latscope_core::outfile::write_atomically(
        target, option, bytes,
    )?)
}
