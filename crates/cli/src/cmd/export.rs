//! `latscope export`: results as flat rows in Parquet (or CSV) for DuckDB, ClickHouse,
//! Spark or pandas. Logic: `latscope_fleet::export`; columns: docs/export.md.

use latscope_fleet::csv_file::CsvSink;
use latscope_fleet::export;
use latscope_fleet::parquet_file::ParquetSink;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope export runs/*.json --parquet fleet.parquet
  duckdb -c \"SELECT host, max(p99_ns) FROM 'fleet.parquet' GROUP BY host\"
  latscope export an-*.json --csv tasks.csv
  latscope export part-1.parquet part-2.parquet part-3.parquet --parquet sweep.parquet

Rows: one per run and CPU for measure results, per run and measurement for trace, per run
and task for analyze and simulate; sweep files (latscope sweep) are concatenated in the
order given (the shards of a sweep give the unsharded file, byte for byte). JSON results
get the columns `file` and `run`, their kind's columns and one column per label of their
`labels` object (--label). Inputs must all be of one kind. Columns: docs/export.md.")]
pub struct Args {
    /// Result files: JSON of measure, trace, analyze or simulate, or sweep CSV / Parquet
    #[arg(required = true, value_name = "RESULT")]
    pub inputs: Vec<PathBuf>,
    /// Write the rows as Parquet to this file
    #[arg(long, value_name = "OUT", required_unless_present = "csv")]
    pub parquet: Option<PathBuf>,
    /// Write the rows as CSV to this file
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let inputs = args
        .inputs
        .iter()
        .map(|p| export::load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let table = export::table(&inputs)?;
    if let Some(p) = &args.parquet {
        crate::out::stream(p, "--parquet", |w| {
            let mut sink = ParquetSink::new(w, &table)?;
            sink.push(&table)?;
            sink.finish()?;
            Ok(())
        })?;
        crate::ui::note(format_args!("wrote {} ({} rows)", p.display(), table.rows()));
    }
    if let Some(p) = &args.csv {
        crate::out::stream(p, "--csv", |w| {
            let mut sink = CsvSink::new(w, &table, true)?;
            sink.push(&table)?;
            sink.finish()?;
            Ok(())
        })?;
        crate::ui::note(format_args!("wrote {} ({} rows)", p.display(), table.rows()));
    }
    Ok(ExitCode::SUCCESS)
}
