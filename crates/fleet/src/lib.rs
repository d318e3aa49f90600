//! latscope-fleet: work beyond one run on one machine.
//!
//! * [`sweep`]: design-space sweeps (generated sets × configuration axes, analysed and
//!   optionally simulated, in parallel and deterministic shards);
//! * [`export`]: latscope results as flat rows (Parquet or CSV);
//! * [`table`]: the flat typed table both sweeps and exports produce;
//! * [`csv_file`], [`parquet_file`]: a table as CSV or Parquet (one format per file).

pub mod csv_file;
pub mod export;
pub mod parquet_file;
pub mod sweep;
pub mod table;
