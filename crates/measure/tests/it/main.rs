//! The integration tests of `latscope-measure`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope-measure --test it NAME::`.

mod common;

mod env_fixtures;
mod schema;
mod trace_attribution;
mod trace_losses_steal_timerlat;
