//! Importers: one module per format, and detection from content.

pub(crate) mod builder;
pub mod native;
pub mod vcd;
