//! `latscope compare A.json B.json`: two measure results side by side; exit 1 when B is
//! worse than A beyond the threshold.

use latscope_measure::compare::{self, Metric, Row};
use latscope_measure::Report;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  latscope compare baseline.json candidate.json
      exit 1 when p50, p99 or overruns of the candidate are >10% worse
  latscope compare a.json b.json --threshold 5us --metrics p99,p99.9,max

Exit status: 0 when B is not worse, 1 when it is, 2 on bad input.")]
pub struct Args {
    /// Baseline result (`latscope measure --json`)
    #[arg(value_name = "A.json")]
    a: PathBuf,

    /// Result to judge against the baseline
    #[arg(value_name = "B.json")]
    b: PathBuf,

    /// How much worse B may be: a percentage of A (`10%`) or a duration (`5us`)
    #[arg(long, default_value = "10%", value_name = "AMOUNT")]
    threshold: String,

    /// Figures that decide the verdict, comma-separated: min, mean, p50, p90, p99,
    /// p99.9, p99.99, max, stdev, overruns
    #[arg(long, default_value = "p50,p99,overruns", value_name = "LIST")]
    metrics: String,

    /// Also show the per-CPU comparison
    #[arg(long)]
    per_cpu: bool,

    /// Print only the verdict line
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn fmt_val(m: Metric, v: f64) -> String {
    if m.is_count() {
        format!("{v:.0}")
    } else {
        super::measure::fmt_ns(v)
    }
}

fn print_rows(rows: &[Row], color: bool) {
    println!(
        "  {:<9} {:>12} {:>12} {:>12} {:>9}  gate",
        "metric", "A", "B", "B − A", "change"
    );
    for r in rows {
        let change = r
            .change_pct()
            .map(|p| format!("{p:+.1}%"))
            .unwrap_or_else(|| "-".into());
        let diff = if r.metric.is_count() {
            format!("{:+.0}", r.diff())
        } else {
            let d = super::measure::fmt_ns(r.diff());
            if r.diff() >= 0.0 {
                format!("+{d}")
            } else {
                d
            }
        };
        let gate = match (r.gated, r.worse) {
            (true, true) => {
                if color {
                    "\x1b[31;1mWORSE\x1b[0m".to_string()
                } else {
                    "WORSE".to_string()
                }
            }
            (true, false) => "ok".into(),
            _ => "".into(),
        };
        println!(
            "  {:<9} {:>12} {:>12} {:>12} {:>9}  {gate}",
            r.metric.name(),
            fmt_val(r.metric, r.a),
            fmt_val(r.metric, r.b),
            diff,
            change
        );
    }
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let threshold = compare::parse_threshold(&a.threshold)?;
    let gate = Metric::parse_list(&a.metrics)?;
    if gate.is_empty() {
        anyhow::bail!("--metrics names no metric");
    }
    let ra = Report::load(&a.a)?;
    let rb = Report::load(&a.b)?;
    for (path, r) in [(&a.a, &ra), (&a.b, &rb)] {
        if r.total.count == 0 {
            anyhow::bail!(
                "{}: no samples (count 0): nothing to compare (was the run interrupted, or the interval longer than the duration?)",
                path.display()
            );
        }
    }
    let c = compare::compare(&ra, &rb, threshold, &gate);
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if !a.quiet {
        println!("A: {}", a.a.display());
        println!("B: {}", a.b.display());
        println!("All CPUs merged");
        print_rows(&c.rows, color);
        if a.per_cpu {
            for (cpu, rows) in &c.per_cpu {
                println!("cpu{cpu}");
                print_rows(rows, color);
            }
        }
        if !c.settings_diffs.is_empty() {
            println!("Settings that differ");
            for (k, x, y) in &c.settings_diffs {
                println!("  {k:<12} A: {x}   B: {y}");
            }
        }
        if !c.env_diffs.is_empty() {
            println!("Environment that differs");
            for d in &c.env_diffs {
                let f = |v: &Option<(String, String)>| match v {
                    Some((s, v)) => format!("[{s}] {v}"),
                    None => "(absent)".into(),
                };
                println!("  {}\n    A: {}\n    B: {}", d.name, f(&d.a), f(&d.b));
            }
        }
        if ra.interrupted || rb.interrupted {
            println!("Note: at least one run was interrupted early.");
        }
    }
    let names: Vec<&str> = gate.iter().map(|m| m.name()).collect();
    let thr = match threshold {
        compare::Threshold::Percent(p) => format!("{p}%"),
        compare::Threshold::Nanos(n) => super::measure::fmt_ns(n as f64),
    };
    if c.worse {
        let worse: Vec<&str> = c
            .rows
            .iter()
            .filter(|r| r.worse)
            .map(|r| r.metric.name())
            .collect();
        println!(
            "verdict: B is WORSE than A beyond {thr} in {}",
            worse.join(", ")
        );
        Ok(ExitCode::from(1))
    } else {
        println!(
            "verdict: B is not worse than A beyond {thr} ({})",
            names.join(", ")
        );
        Ok(ExitCode::SUCCESS)
    }
}
