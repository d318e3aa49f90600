//! latscope-scenario (work in progress)
