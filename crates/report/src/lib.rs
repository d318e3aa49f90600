//! latscope-report (work in progress)
