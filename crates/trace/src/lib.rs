//! latscope-trace (work in progress)
