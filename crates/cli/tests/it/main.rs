//! The integration tests of `latscope`, linked as one test binary: one module per former
//! test file, so the crate and its dependencies are linked once instead of once per file
//! (issue 24). Run one file's tests with `cargo test --release -p latscope --test it NAME::`.

mod common;

mod analyze_edf_cli;
mod analyze_large;
mod analyze_margins_cli;
mod analyze_nested_inheritance;
mod analyze_overflow;
mod analyze_published_blocking;
mod chains_cli;
mod chains_edf_cli;
mod chains_edf_cores_cli;
mod chains_read_cli;
mod compare_gate;
mod durations_cli;
mod event_loop_real;
mod export_cli;
mod fit_cli;
mod fit_lock_cli;
mod freertos_real;
mod fuzz_system;
mod global_cli;
mod global_flags_cli;
mod labels_cli;
mod measure_cli;
mod measure_safety;
mod measure_trace_live;
mod merge_cli;
mod metrics_cli;
mod model_cli;
mod multicore_cli;
mod noise_cli;
mod offset_bound_cli;
mod outputs_atomic;
mod report_cli;
mod result_roundtrip;
mod result_schemas;
mod rust_version;
mod scenario_cli;
mod sim_cli;
mod sim_golden;
mod sim_memory;
mod sim_resources_cli;
mod stdio_cli;
mod sweep_cli;
mod tasks_cli;
mod trace_analog_bounded;
mod trace_chain_cli;
mod trace_cli;
mod trace_hostile;
mod trace_samplerate;
mod trace_selective;
mod typed_flags_cli;
