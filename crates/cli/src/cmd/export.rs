//! `latscope export`: results as flat rows in Parquet (or CSV) for DuckDB, ClickHouse,
//! Spark or pandas. Logic: `latscope_fleet::export`; columns: docs/export.md.

use latscope_fleet::csv_file::CsvSink;
use latscope_fleet::export;
use latscope_fleet::parquet_file::ParquetSink;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope export runs/*.json -o fleet.parquet
  duckdb -c \"SELECT host, max(p99_ns) FROM 'fleet.parquet' GROUP BY host\"
  latscope export an-*.json -o tasks.csv
  latscope export part-1.parquet part-2.parquet part-3.parquet -o sweep.parquet
  latscope analyze sys.toml --json - | latscope export - -o -     (CSV on standard output)

Rows: one per run and CPU for measure results, per run and measurement for trace, per run
and task for analyze and simulate; sweep files (latscope sweep) are concatenated in the
order given (the shards of a sweep give the unsharded file, byte for byte). JSON results
get the columns `file` and `run`, their kind's columns and one column per label of their
`labels` object (--label). Inputs must all be of one kind. Columns: docs/export.md.
The output format follows the --output extension (.parquet, .csv) unless --format is
given; `-o -` writes CSV to standard output unless --format parquet. A `-` input is
standard input (its `file` column reads `-`).")]
pub struct Args {
    /// Result files: JSON of measure, trace, analyze or simulate, or sweep CSV / Parquet
    /// (`-` for standard input)
    #[arg(required = true, value_name = "RESULT")]
    pub inputs: Vec<PathBuf>,
    /// Write the rows to FILE (`-` for standard output)
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        required_unless_present_any = ["parquet", "csv"]
    )]
    pub output: Option<PathBuf>,
    /// Format of --output (default: from its extension; CSV for `-`)
    #[arg(long, value_enum, requires = "output")]
    pub format: Option<Format>,
    /// Old spelling of `-o FILE --format parquet` (kept for one release)
    #[arg(long, value_name = "OUT", hide = true)]
    pub parquet: Option<PathBuf>,
    /// Old spelling of `-o FILE --format csv` (kept for one release)
    #[arg(long, value_name = "OUT", hide = true)]
    pub csv: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Parquet,
    Csv,
}

/// --format, else the extension of `path`, else CSV for standard output.
fn format_of(path: &Path, given: Option<Format>) -> anyhow::Result<Format> {
    if let Some(f) = given {
        return Ok(f);
    }
    if crate::out::is_stdio(path) {
        return Ok(Format::Csv);
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("parquet") => Ok(Format::Parquet),
        Some("csv") => Ok(Format::Csv),
        _ => anyhow::bail!(
            "--output {}: the file name must end in .parquet or .csv (that chooses the \
             format), or give --format",
            path.display()
        ),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut outputs: Vec<(&Path, Format, &str)> = Vec::new();
    if let Some(p) = &args.output {
        outputs.push((p, format_of(p, args.format)?, "--output"));
    }
    if let Some(p) = &args.parquet {
        outputs.push((p, Format::Parquet, "--parquet"));
    }
    if let Some(p) = &args.csv {
        outputs.push((p, Format::Csv, "--csv"));
    }
    if outputs
        .iter()
        .filter(|(p, ..)| crate::out::is_stdio(p))
        .count()
        > 1
    {
        anyhow::bail!("only one output can go to standard output (`-`)");
    }
    let mut stdin = crate::input::Stdin::default();
    let mut inputs = Vec::with_capacity(args.inputs.len());
    for p in &args.inputs {
        let mut input = export::load(&stdin.resolve(p, "export")?)?;
        if crate::out::is_stdio(p) {
            match &mut input {
                export::Input::Json { file, .. } | export::Input::Sweep { file, .. } => {
                    *file = "-".into()
                }
            }
        }
        inputs.push(input);
    }
    let table = export::table(&inputs)?;
    for (p, format, flag) in outputs {
        crate::out::stream(p, flag, |w| {
            match format {
                Format::Parquet => {
                    let mut sink = ParquetSink::new(w, &table)?;
                    sink.push(&table)?;
                    sink.finish()?;
                }
                Format::Csv => {
                    let mut sink = CsvSink::new(w, &table, true)?;
                    sink.push(&table)?;
                    sink.finish()?;
                }
            }
            Ok(())
        })?;
        if !crate::out::is_stdio(p) {
            crate::ui::note(format_args!(
                "wrote {} ({} rows)",
                p.display(),
                table.rows()
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}
