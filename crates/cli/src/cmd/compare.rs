//! `latscope compare A.json B.json`: two measure results side by side; exit 1 when B is
//! worse than A beyond the threshold.

use latscope_measure::compare::{self, Metric, Row};
use latscope_measure::Report;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  latscope measure --rounds 10 --duration 20s --json base.json
  latscope measure --rounds 10 --duration 20s --json cand.json
  latscope compare base.json cand.json
      exit 1 when the candidate's p50, p99 or overruns are worse by more than 10 %
      with 95 % confidence, judged from the spread between the rounds of each run
  latscope compare a.json b.json --threshold 5us --metrics p99,p99.9,max

How the verdict is reached: when both runs have at least 3 rounds (measure --rounds N),
every pair (round of A, round of B) gives one ratio of a figure; the change is the
median of those ratios (Hodges-Lehmann) and its confidence bounds come from the
Mann-Whitney rank test. B is WORSE in a figure only when the lower confidence bound of
the change is above the threshold. Ranks make one round with a hypervisor hiccup weigh
no more than any other. Interleave the rounds of the two runs in time (--rounds 1
--append, alternately) so that slow drifts of the machine hit both alike. Without
rounds the single figures are compared, which ignores run-to-run spread and raises
false alarms on busy or virtual machines. The default gate is p50, p99 and overruns,
plus max when both runs have at least 5 rounds of at least 1000 samples each.

Runs whose policy, priority, interval, timer mode or CPUs differ measured different
things: they are refused (exit 2, naming the setting) unless --force is given.

Exit status: 0 when B is not worse, 1 when it is, 2 when refused or on bad input.")]
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
    /// p99.9, p99.99, max, stdev, overruns [default: p50,p99,overruns, and max when
    /// both runs hold enough rounds and samples]
    #[arg(long, value_name = "LIST")]
    metrics: Option<String>,

    /// Confidence of the verdict from rounds, in percent (50..99.9)
    #[arg(long, default_value = "95", value_name = "PERCENT")]
    confidence: String,

    /// Compare even when policy, priority, interval, timer mode or CPUs differ
    #[arg(long)]
    force: bool,

    /// Write the comparison as JSON (`-`: standard output): the verdict and, per
    /// statistic, A, B, the change and its confidence interval (docs/compare.schema.json)
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Also show the per-CPU comparison
    #[arg(long)]
    per_cpu: bool,
}

fn fmt_val(m: Metric, v: f64) -> String {
    if m.is_count() {
        format!("{v:.0}")
    } else {
        super::measure::fmt_ns(v)
    }
}

fn print_rows(rows: &[Row], color: bool, conf: f64) {
    let with_ci = rows.iter().any(|r| r.estimate.is_some());
    let ci_head = if with_ci {
        format!("  {:>22}", format!("{:.0}% interval", conf * 100.0))
    } else {
        String::new()
    };
    println!(
        "  {:<9} {:>12} {:>12} {:>12} {:>9}{ci_head}  gate",
        "metric", "A", "B", "B − A", "change"
    );
    for r in rows {
        let change = r
            .change_pct()
            .map(|p| format!("{p:+.1}%"))
            .unwrap_or_else(|| "-".into());
        let ci = match &r.estimate {
            Some(e) if with_ci => {
                format!("  {:>22}", format!("[{:+.1}, {:+.1}]", e.lower, e.upper))
            }
            _ if with_ci => format!("  {:>22}", "-"),
            _ => String::new(),
        };
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
            "  {:<9} {:>12} {:>12} {:>12} {:>9}{ci}  {gate}",
            r.metric.name(),
            fmt_val(r.metric, r.a),
            fmt_val(r.metric, r.b),
            diff,
            change
        );
    }
}

fn say(to_stderr: bool, line: String) {
    if to_stderr {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

fn parse_confidence(text: &str) -> anyhow::Result<f64> {
    let t = text.trim().trim_end_matches('%');
    let v: f64 = t
        .parse()
        .map_err(|_| anyhow::anyhow!("--confidence '{text}': not a number"))?;
    if !(50.0..=99.9).contains(&v) {
        anyhow::bail!("--confidence '{text}' must be 50..99.9 (percent)");
    }
    Ok(v / 100.0)
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let threshold = compare::parse_threshold(&a.threshold)?;
    let gate = match &a.metrics {
        Some(m) => {
            let g = Metric::parse_list(m)?;
            if g.is_empty() {
                anyhow::bail!("--metrics names no metric");
            }
            Some(g)
        }
        None => None,
    };
    let confidence = parse_confidence(&a.confidence)?;
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
    let conflicts = compare::conflicting_settings(&ra, &rb);
    if !conflicts.is_empty() && !a.force {
        let list: Vec<String> = conflicts
            .iter()
            .map(|(k, x, y)| format!("{k} ({x} in {}, {y} in {})", a.a.display(), a.b.display()))
            .collect();
        anyhow::bail!(
            "refusing to compare runs that measured different things: {} differ{}; pass --force to compare anyway",
            list.join(", "),
            if conflicts.len() == 1 { "s" } else { "" }
        );
    }
    let opts = compare::Options {
        threshold,
        gate,
        confidence,
    };
    let c = compare::compare(&ra, &rb, &opts);
    let doc = latscope_measure::compare_doc::CompareResult::new(
        &c,
        threshold,
        &a.a.display().to_string(),
        &a.b.display().to_string(),
    );
    if let Some(path) = &a.json {
        crate::out::write(path, "--json", serde_json::to_string_pretty(&doc)? + "\n")?;
    }
    let to_stdout = a.json.as_deref().is_some_and(crate::out::is_stdio);
    let color = crate::ui::color_stdout();
    if !crate::ui::quiet() && !to_stdout {
        println!("A: {}", a.a.display());
        println!("B: {}", a.b.display());
        match c.method {
            compare::Method::Rounds { a: na, b: nb } => println!(
                "All CPUs merged: median of {na} rounds (A) and {nb} rounds (B); verdict from the spread between rounds at {:.0}% confidence",
                c.confidence * 100.0
            ),
            compare::Method::Single => println!(
                "All CPUs merged: single figures (a run has fewer than {} rounds): the verdict ignores run-to-run spread; use measure --rounds 10",
                compare::MIN_ROUNDS
            ),
        }
        print_rows(&c.rows, color, c.confidence);
        if let Some(n) = &c.max_note {
            println!("  ({n})");
        }
        if a.per_cpu {
            for (cpu, rows) in &c.per_cpu {
                println!("cpu{cpu}");
                print_rows(rows, color, c.confidence);
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
    // The verdict as the report of the comparison states it (latscope_results::Verdict);
    // with `--json -` it goes to standard error, keeping stdout JSON.
    let v = latscope_results::Verdict::compare(&doc);
    say(to_stdout, v.headline());
    Ok(if c.worse {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
