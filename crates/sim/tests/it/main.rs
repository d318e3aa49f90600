//! The integration tests of `latscope-sim`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope-sim --test it NAME::`.

mod common;

mod chains_crosscheck;
mod chains_edf;
mod chains_edf_cores;
mod chains_multicore;
mod chains_sampled_reads;
mod crosscheck;
mod crosscheck_broadcast;
mod crosscheck_multicore;
mod devices;
mod edf_crosscheck;
mod from_system;
mod global_crosscheck;
mod offset_bound;
mod offsets;
mod one_step;
mod resources;
mod resources_crosscheck;
mod result_json;
mod robustness;
mod semantics;
mod table1;
mod ten_task;
