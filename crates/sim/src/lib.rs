//! latscope-sim (work in progress)
