//! The analysis as a fallible call for front ends (the CLI and the Python binding).
//!
//! An arithmetic overflow (costs or periods so large that a busy window passes 64-bit
//! picoseconds, about 106 days) panics under this workspace's overflow checks; this turns
//! it into an error message instead.

use crate::rta::{analyze, AnalysisOptions, AnalysisResult};
use crate::System;

/// The message of an analysis that overflowed.
pub const OVERFLOW: &str = "the analysis overflows 64-bit picoseconds (about 106 days): a cost, \
period or latency in the file is far too large";

/// Runs [`analyze`]; an overflow becomes `Err(OVERFLOW)`.
pub fn analyze_guarded(sys: &System, opts: &AnalysisOptions) -> Result<AnalysisResult, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| analyze(sys, opts)));
    std::panic::set_hook(hook);
    r.map_err(|_| OVERFLOW.to_string())
}
