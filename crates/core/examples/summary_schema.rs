//! Prints the JSON Schema of the shared result summary (docs/summary.schema.json):
//! `cargo run -p latscope-core --example summary_schema > docs/summary.schema.json`.

fn main() {
    print!("{}", latscope_core::summary::schema_json());
}
