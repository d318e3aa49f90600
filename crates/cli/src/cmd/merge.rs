//! `latscope merge`: measure results of the same settings combined into one, exactly
//! (latscope_measure::combine), or noise results (latscope_measure::noise::merge).

use anyhow::Context;
use latscope_measure::combine;
use latscope_measure::output::Report;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  latscope merge rpi4-a.json rpi4-b.json rpi4-c.json --json rpi4-all.json
      three boards' runs as one result: counts and percentiles of all samples together
  latscope merge night/*.json -o night.json
      a night of hourly runs on one host

Only results that measured the same thing merge: policy, priority, interval, timer
mode, CPUs, overrun policy, load and PM QoS must agree (otherwise exit 2, naming the
first setting that differs and the two files). Durations and loop counts may differ.

Counts, minimum, maximum, overruns and histograms add up exactly (from each result's
`hdr` key, HdrHistogram's standard encoding, or its bucket list), and percentiles are
read from the merged histogram exactly as `measure` reads them, so merging the halves of
a run gives the whole run's figures. `latscope noise` results merge too (same CPUs,
policy, threshold, window and events): per CPU, noise time, counts and every source add
up, windows follow each other, the share is recomputed. Each input becomes one round (or contributes its
own rounds), so `latscope compare` can weigh the spread between them. Labels common to
all inputs are kept in `labels`; the others are listed, with every value, in
`merged.differing_labels`, and `merged.from` names the inputs. Spikes and raw-sample
references belong to their own runs and are not carried over. See docs/fleets.md.")]
pub struct Args {
    /// `measure --json` (or `noise --json`) results to combine (at least two; one may be
    /// `-`, standard input)
    #[arg(value_name = "RESULTS", required = true, num_args = 1..)]
    results: Vec<PathBuf>,

    /// Write the merged result here (`-` for standard output); `-o/--output` and `--json`
    /// are the same flag (the merged result is JSON)
    #[arg(long, short = 'o', value_name = "OUT", visible_alias = "output")]
    json: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let to_stdout = a.json.as_os_str() == "-";
    if !to_stdout {
        latscope_core::outfile::probe_writable(&a.json, "--json")?;
    }
    let mut files = Vec::with_capacity(a.results.len());
    let mut seen = Vec::new();
    let mut stdin = crate::input::Stdin::default();
    for p in &a.results {
        let shown = p;
        let p = stdin.resolve(p, "merge")?;
        // The same run twice would count its samples twice.
        let canon = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        if seen.contains(&canon) {
            anyhow::bail!("merge: {} given twice", shown.display());
        }
        seen.push(canon);
        files.push((shown.display().to_string(), p));
    }
    if let Some((_, first)) = files.first() {
        if is_noise(first) {
            return merge_noise(&files, &a.json, to_stdout);
        }
    }
    let mut results = Vec::with_capacity(files.len());
    for (shown, p) in &files {
        let r = Report::load(p).with_context(|| format!("merge: reading {shown}"))?;
        results.push((shown.clone(), r));
    }
    let (merged, info) = combine::merge(&results)?;
    // The merged result as `measure` writes one (its keys in the order of its type), then
    // what was merged.
    #[derive(serde::Serialize)]
    struct WithInfo<'a, R: serde::Serialize, I: serde::Serialize> {
        #[serde(flatten)]
        result: &'a R,
        merged: &'a I,
    }
    let text = serde_json::to_string_pretty(&WithInfo {
        result: &merged,
        merged: &info,
    })? + "\n";
    if to_stdout {
        std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .context("--json -: cannot write to standard output")?;
    } else {
        crate::out::write(&a.json, "--json", text)?;
    }
    if !crate::ui::quiet() && !to_stdout {
        let color = crate::ui::color_stdout();
        println!(
            "merged {} results ({} samples) into {}",
            results.len(),
            merged.total.count,
            a.json.display()
        );
        for (k, v) in &info.differing_labels {
            println!("  label {k} differs: {}", v.join(", "));
        }
        super::measure::print_summary(&merged, color);
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether a result file is a `latscope noise` result (its `kind`).
fn is_noise(p: &std::path::Path) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: String,
    }
    std::fs::read_to_string(p)
        .ok()
        .and_then(|t| serde_json::from_str::<Kind>(&t).ok())
        .is_some_and(|k| k.kind == latscope_measure::noise::result::KIND)
}

fn merge_noise(
    files: &[(String, PathBuf)],
    out: &std::path::Path,
    to_stdout: bool,
) -> anyhow::Result<ExitCode> {
    use latscope_measure::noise::NoiseReport;
    let mut results = Vec::with_capacity(files.len());
    for (shown, p) in files {
        let text = std::fs::read_to_string(p).with_context(|| format!("merge: reading {shown}"))?;
        let r: NoiseReport = serde_json::from_str(&text)
            .with_context(|| format!("merge: {shown} is not a latscope noise result"))?;
        results.push((shown.clone(), r));
    }
    let merged = latscope_measure::noise::merge::merge(&results)?;
    crate::out::write(out, "--json", merged.to_json() + "\n")?;
    if !crate::ui::quiet() && !to_stdout {
        println!(
            "merged {} noise results ({:.1} s) into {}",
            results.len(),
            merged.elapsed_ns as f64 / 1e9,
            out.display()
        );
        for c in &merged.cpus {
            println!(
                "  cpu{}: noise {:.3} %, largest gap {}",
                c.cpu,
                c.noise_pct,
                latscope_core::time::human::ns(c.max_single_ns as f64)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
