//! latscope-model (work in progress)
