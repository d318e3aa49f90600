//! The integration tests of `latscope-results`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope-results --test it NAME::`.

mod typed_consumers;
