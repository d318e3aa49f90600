//! `latscope report`: HTML or Markdown report from latscope JSON results.

use anyhow::Context;
use latscope_report::{render_html, render_markdown, Input, Kind, Options};
use latscope_trace::import::{self, Format as CapFormat};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One self-contained HTML page with SVG charts (works offline).
    Html,
    /// A compact Markdown summary (tables only), e.g. for a CI comment.
    Md,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope measure --duration 10s --json run.json && latscope report run.json -o run.html
  latscope report idle.json loaded.json -o compare.html      (overlaid histograms and percentiles)
  latscope simulate sys.toml --json sim.json --series tick.csv --perfetto sim.perfetto.json
  latscope report sim.json tick.csv sim.perfetto.json -o sim.html   (tick series, timeline)
  latscope report scenario.json --format md -o summary.md

  latscope measure --duration 30s --json run.json --samples run.csv
  latscope report run.json -o run.html     (latency over time per CPU from run.csv, found by itself)
  latscope scenario run tickless-idle -o out/t && latscope report out/t/scenario.json -o t.html
  latscope report out/t/tickless.vcd -o vcd.html                (a capture's timeline on its own)

A `latscope sweep` file (CSV or Parquet) gives the schedulability ratio against
utilisation, one line per configuration (docs/sweep.md).

Inputs are the --json files of measure, noise, trace, analyze, simulate and scenario (each has a
\"kind\" and \"schema_version\": 1). Also accepted: the CSV series of `simulate --series` and
`trace --series`, the raw samples of `measure --samples` (CSV or binary), Perfetto
trace-event JSON, and captures (.vcd, .lscap, sigrok .sr, Saleae binary) drawn as a timeline
around their longest busy interval; a capture or Perfetto file given with a simulate result
gives a timeline around the simulation's worst case. A scenario's own artifacts (its
tick-series CSV and capture) and a measure result's --samples file are read from where the
result names them, or from next to the result. Sections a file lacks are skipped; malformed
or unknown input is an error naming the file and what it looks like (exit status 2).

The HTML page needs no network: zoom (drag across a chart, or the mouse wheel) and pan
(shift+drag) series and timelines, hover any chart for its values, click a worst-case table
row to mark it on its chart. With scripts disabled every chart is still a static SVG.")]
pub struct Args {
    /// Result files: JSON of measure, noise, trace, analyze, simulate or scenario (several for a
    /// side-by-side comparison), CSV time series, Perfetto trace-event JSON; `-` reads
    /// standard input
    #[arg(required = true, value_name = "RESULT")]
    pub inputs: Vec<PathBuf>,
    /// Output file; `-` writes to standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Output format (default: html, or md when the output file ends in .md)
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Title of the report (default "latscope report")
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut inputs = Vec::with_capacity(args.inputs.len());
    let mut stdin = crate::input::Stdin::default();
    for path in &args.inputs {
        let mut input = load_input(&stdin.resolve(path, "report")?)?;
        // Standard input has no directory to find a result's artifacts in.
        let dir = path.parent().filter(|_| !crate::out::is_stdio(path));
        attach_artifacts(&mut input, dir);
        inputs.push(input);
    }
    let format = args.format.unwrap_or_else(|| {
        if args.output.extension().is_some_and(|e| e == "md") {
            Format::Md
        } else {
            Format::Html
        }
    });
    let opts = Options { title: args.title };
    let out = match format {
        Format::Html => render_html(&inputs, &opts)?,
        Format::Md => render_markdown(&inputs, &opts)?,
    };
    if args.output.as_os_str() == "-" {
        print!("{out}");
    } else {
        crate::out::write(&args.output, "--output", out)?;
        crate::ui::note(format_args!(
            "wrote {} ({} input{})",
            args.output.display(),
            inputs.len(),
            if inputs.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads one input: a latscope result, CSV series or samples, Perfetto JSON, or a capture
/// (VCD, .lscap, sigrok, Saleae binary), which becomes a timeline input.
pub fn load_input(path: &Path) -> anyhow::Result<Input> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {name}"))?;
    let head = &bytes[..bytes.len().min(8192)];
    let text_start = String::from_utf8_lossy(head);
    let t = text_start.trim_start_matches('\u{feff}').trim_start();
    let json_like = t.starts_with('{') || t.starts_with('[');
    // A `latscope sweep` file (Parquet, or CSV with the sweep's header): counted per
    // configuration and utilisation here, drawn as the schedulability ratio.
    if head.starts_with(b"PAR1") || latscope_fleet::sweep::is_sweep_csv(t) {
        let table = latscope_fleet::sweep::read(path)?;
        let doc = latscope_fleet::sweep::report_doc(&table, &name);
        return Ok(Input::new(&name, Kind::Sweep, doc));
    }
    if !json_like {
        if let Some(
            fmt @ (CapFormat::Vcd | CapFormat::Native | CapFormat::Sigrok | CapFormat::SaleaeBin),
        ) = import::detect(head)
        {
            return capture_input(path, fmt);
        }
    }
    Ok(Input::parse_bytes(&name, &bytes)?)
}

/// The busy intervals of every channel (high = busy), for the report's timeline:
/// `{"tracks": [{name, intervals: [start_ns, end_ns, start_ns, …]}], "start_ns", "end_ns"}`
/// (flat, to keep a capture of millions of edges light), in ns from the capture's start.
fn capture_input(path: &Path, fmt: CapFormat) -> anyhow::Result<Input> {
    let name = path.display().to_string();
    let opts = import::Options::default();
    let import::Merged { capture: cap, .. } = import::open_merged(&[(path, Some(fmt))], &opts)
        .with_context(|| format!("{name}: reading it as a {} capture", fmt.name()))?;
    // Times count from the capture's start, as `latscope trace` counts its instants
    // (`max_at_ns`), so the trace page and this timeline name one instant alike.
    let ns = |p: i64| (p as f64 - cap.start.0 as f64) / 1000.0;
    let tracks: Vec<Value> = cap
        .channels
        .iter()
        .map(|c| {
            let mut high = c.initial;
            let mut since = cap.start.0;
            let mut iv: Vec<f64> = Vec::with_capacity(c.edges.len() + 2);
            for e in &c.edges {
                if high {
                    iv.push(ns(since));
                    iv.push(ns(e.0));
                }
                high = !high;
                since = e.0;
            }
            if high {
                iv.push(ns(since));
                iv.push(ns(cap.end.0));
            }
            json!({"name": c.name, "intervals": iv})
        })
        .collect();
    let doc = json!({"tracks": tracks, "start_ns": ns(cap.start.0), "end_ns": ns(cap.end.0)});
    Ok(Input::from_value(&name, doc)?)
}

/// A file a result names: where it says, else next to the result (a moved directory).
fn find_artifact(named: &str, dir: Option<&Path>) -> Option<PathBuf> {
    let p = PathBuf::from(named);
    if p.is_file() {
        return Some(p);
    }
    let near = dir?.join(p.file_name()?);
    near.is_file().then_some(near)
}

/// A scenario's artifacts (tick-series CSV, capture) and a measure result's `--samples`
/// file, attached to the result so that its sections draw them. Artifacts that cannot be
/// read are left out (the report says where to find them); they never fail the report.
pub fn attach_artifacts(input: &mut Input, dir: Option<&Path>) {
    let named: Vec<String> = match input.kind {
        Kind::Scenario => input
            .doc
            .get("artifacts")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
        Kind::Measure => input
            .doc
            .pointer("/samples/path")
            .and_then(Value::as_str)
            .map(|s| vec![s.to_string()])
            .unwrap_or_default(),
        // A comparison names the two measure results it compared: drawn overlaid.
        Kind::Compare => serde_json::from_value::<latscope_measure::compare_doc::CompareResult>(
            input.doc.clone(),
        )
        .map(|c| vec![c.a, c.b])
        .unwrap_or_default(),
        _ => Vec::new(),
    };
    let compare = input.kind == Kind::Compare;
    for n in named {
        let Some(p) = find_artifact(&n, dir) else {
            continue;
        };
        // Only artifacts the report draws: time series (a `*_ns` time column), raw samples
        // and captures; a table such as a sleep-length curve is left to its scenario.
        if p.extension().is_some_and(|e| e == "csv") {
            let head = std::fs::read(&p)
                .ok()
                .and_then(|b| {
                    let end = b.iter().position(|&c| c == b'\n').unwrap_or(b.len());
                    String::from_utf8(b[..end].to_vec()).ok()
                })
                .unwrap_or_default();
            let cols: Vec<&str> = head.split(',').map(str::trim).collect();
            let timed = cols.iter().any(|c| {
                matches!(
                    *c,
                    "time_ns" | "at_ns" | "t_ns" | "start_ns" | "intended_ns"
                )
            });
            if !timed {
                continue;
            }
        }
        match load_input(&p) {
            Ok(a) if matches!(a.kind, Kind::Series | Kind::Capture | Kind::Samples) => {
                input.attachments.push(a)
            }
            Ok(a) if compare && a.kind == Kind::Measure => input.attachments.push(a),
            Ok(_) => {}
            Err(e) => crate::ui::warn(format_args!("{}: artifact left out: {e:#}", input.name)),
        }
    }
}
