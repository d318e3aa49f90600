//! The integration tests of `latscope-trace`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope-trace --test it NAME::`.

mod analog_measured;
mod chain_events;
mod corpus;
mod csv_quoted;
mod events_as_capture;
mod fixtures;
mod leniency;
mod malformed_hostile;
mod perf_import;
mod result_json;
mod roundtrip;
mod scope_csv;
mod systemview_real;
mod tracerecorder_hostile;
mod tracerecorder_real;
