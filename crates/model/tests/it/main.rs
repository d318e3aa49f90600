//! The integration tests of `latscope-model`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope-model --test it NAME::`.

mod chain_edf_cores;
mod chain_margins;
mod chains;
mod chains_read;
mod fit_calibration;
mod fit_input;
mod fit_paper_tables;
mod multicore;
mod priority;
mod published_blocking;
mod resources;
mod rta_audit;
mod rta_known;
mod rta_models;
mod rta_offset_bound;
mod rta_offset_bound_irq;
mod rta_oracle;
mod rta_piecewise;
mod rta_props;
mod rta_range;
mod sensitivity;
mod system_format;
mod tick_broadcast;
