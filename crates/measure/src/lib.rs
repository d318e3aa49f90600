//! latscope-measure (work in progress)
