//! The JSON Schemas in docs/ are generated from the result types (schemars): every
//! result (`measure`, `noise`, `trace`, `trace --tasks`, `analyze`, `simulate`, `scenario`, `fit`) and the shared
//! summary. This test fails when a checked-in schema differs from the generated one;
//! regenerate them all with
//!
//! ```text
//! LATSCOPE_WRITE_SCHEMAS=1 cargo test --release -p latscope --test it result_schemas::
//! ```
//!
//! `scripts/test.d/20-model-schema` validates the JSON the CLI writes against them.

use std::path::PathBuf;

fn pretty(s: schemars::Schema) -> String {
    serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
}

/// (file in docs/, generated schema)
fn schemas() -> Vec<(&'static str, String)> {
    use schemars::schema_for;
    vec![
        (
            "measure.schema.json",
            pretty(schema_for!(latscope_measure::Report)),
        ),
        (
            "trace.schema.json",
            pretty(schema_for!(latscope_trace::report::Report)),
        ),
        (
            "analyze.schema.json",
            pretty(schema_for!(latscope_sim::analysis::AnalyzeDocument)),
        ),
        (
            "simulate.schema.json",
            pretty(schema_for!(latscope_sim::SimReport)),
        ),
        (
            "scenario.schema.json",
            pretty(schema_for!(latscope_scenario::Outcome)),
        ),
        (
            "fit.schema.json",
            pretty(schema_for!(latscope_model::fit::FitDocument)),
        ),
        (
            "tasks.schema.json",
            pretty(schema_for!(latscope_trace::tasks::TaskTimingResult)),
        ),
        (
            "compare.schema.json",
            pretty(schema_for!(latscope_measure::compare_doc::CompareResult)),
        ),
        (
            "noise.schema.json",
            pretty(latscope_measure::noise::result::schema()),
        ),
        ("summary.schema.json", latscope_core::summary::schema_json()),
    ]
}

#[test]
fn checked_in_schemas_are_generated_from_the_types() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let write = std::env::var_os("LATSCOPE_WRITE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for (file, text) in schemas() {
        let path = docs.join(file);
        if write {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).unwrap_or_default() != text {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale schemas in docs/: {stale:?}; regenerate them with \
         `LATSCOPE_WRITE_SCHEMAS=1 cargo test --release -p latscope --test it result_schemas::`"
    );
}

#[test]
fn every_schema_names_its_kind_and_summary_keys() {
    for (file, text) in schemas() {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{file}"
        );
        if file != "summary.schema.json" {
            let req = v["required"].as_array().unwrap();
            assert!(req.iter().any(|k| k == "kind"), "{file}: kind required");
        }
    }
    // The shared summary's p99.99 and histogram are in the measure schema (flattened).
    let m = &schemas()[0].1;
    assert!(m.contains("p9999_ns") && m.contains("histogram_overflow"));
}
