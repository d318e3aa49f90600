//! The integration tests of `latscope-scenario`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope-scenario --test it NAME::`.

mod scenarios;
