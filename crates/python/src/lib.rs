//! The Python binding of latscope (`import latscope`): the compiled part, module
//! `latscope._latscope`. The Python package in `python/latscope/` wraps it in result
//! objects (`to_dict()`, `to_pandas()`); see docs/python.md.
//!
//! Every entry point calls the same library functions as the CLI and returns the CLI's
//! JSON text, so `to_dict()` is the CLI's `--json` output by construction. Errors become
//! `latscope.LatscopeError` with the CLI's message; long calls run without the GIL and
//! raise `KeyboardInterrupt` on Ctrl-C.
//!
//! Compiled only with the `extension` feature (maturin turns it on): without it the crate
//! is empty, so the workspace builds and tests without Python.

#[cfg(feature = "extension")]
mod analyze;
#[cfg(feature = "extension")]
mod capture;
#[cfg(feature = "extension")]
mod errors;
#[cfg(feature = "extension")]
mod fit;
#[cfg(feature = "extension")]
mod interrupt;
#[cfg(feature = "extension")]
mod labels;
#[cfg(all(feature = "extension", target_os = "linux"))]
mod measure;
#[cfg(feature = "extension")]
mod module;
#[cfg(feature = "extension")]
mod report;
#[cfg(feature = "extension")]
mod simulate;
#[cfg(feature = "extension")]
mod system;
#[cfg(feature = "extension")]
mod trace;
