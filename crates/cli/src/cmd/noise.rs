//! `latscope noise`: argument parsing, the progress line, the terminal summary and the
//! JSON. The measuring lives in latscope_measure::noise.

use anyhow::Context;
use latscope_measure::noise::classify::Source;
use latscope_measure::noise::result::{CpuNoise, NoiseReport, SourceNoise};
use latscope_measure::noise::run::{self, NoiseProgress};
use latscope_measure::noise::NoiseSpec;
use latscope_measure::outfile;
use latscope_measure::settings::Policy;
use latscope_measure::values::{CpuList, NoiseGroups, PositiveDuration};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::measure::fmt_ns;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  latscope noise --duration 30s
      one spinning SCHED_OTHER thread per online CPU for 30 s; as root the gaps are
      classified from the irq, softirq, sched, x86 vector and NMI tracepoints
  latscope noise --cpus 1 --policy fifo --priority 1 --threshold 5us --json n.json
      like `rtla osnoise -c 1 -P f:1 -T 5`: only what preempts a FIFO 1 thread
  latscope noise --trace-events none -D 10s
      noise only, no tracer (every gap unclassified)

Each thread reads CLOCK_MONOTONIC in a loop; two reads further apart than the
threshold are a noise gap. Noise % = the gaps' time against the time measured, per
CPU and per window. As root the gaps are split by the tracepoints that cover them: a
gap no event covers is hardware or hypervisor noise (hwnoise's definition); steal
time per window from /proc/stat is shown beside it. Without tracefs the noise is still
measured and the gaps are reported as \"unclassified (no tracer)\". SIGINT/SIGTERM end
the run early and keep what was measured. Method, definitions and the comparison with
rtla osnoise/hwnoise: docs/noise.md.")]
pub struct Args {
    /// CPUs to measure, one pinned spinning thread each, e.g. `0,2-3` [default: all online]
    #[arg(long, value_name = "LIST")]
    cpus: Option<CpuList>,

    /// How long to spin, with a unit (10ms..24h) [default: 10s]
    #[arg(long, short = 'D', value_name = "DURATION", allow_hyphen_values = true)]
    duration: Option<PositiveDuration>,

    /// Smallest gap between two clock reads that counts as noise (10ns..1s) [default: 1us]
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    threshold: Option<PositiveDuration>,

    /// Length of the windows noise % is given for (1ms..1h) [default: 1s]
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    window: Option<PositiveDuration>,

    /// Scheduling policy of the spinning threads: other (like osnoise's default), fifo
    /// or rr. With fifo/rr only what preempts that priority is noise, and RT
    /// throttling (left as it is) stops the spinner for a share of every period
    #[arg(long, value_name = "POLICY")]
    policy: Option<Policy>,

    /// Real-time priority 1..99 (fifo/rr) [default: 80, or 0 for other]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    priority: Option<i32>,

    /// If real-time scheduling is refused, spin as SCHED_OTHER instead of stopping
    #[arg(long)]
    allow_fallback: bool,

    /// Trace event groups classifying the gaps (root): comma-separated of irq,
    /// softirq, sched, nmi, vectors (x86 local timer and IPIs); `all` or `none`
    /// [default: all the kernel has]
    #[arg(long, value_name = "LIST")]
    trace_events: Option<NoiseGroups>,

    /// Do not lock memory (mlockall)
    #[arg(long)]
    no_mlock: bool,

    /// Write the result as JSON (schema: docs/noise.schema.json); `-` for standard output
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Write the result as Prometheus metrics text at the end, as measure --openmetrics
    /// does: per CPU the noise share, time and count by source and the largest gap, with
    /// the labels (docs/noise.md), e.g. for node_exporter's textfile collector; `-` for
    /// standard output
    #[arg(long, value_name = "FILE")]
    openmetrics: Option<PathBuf>,

    /// Write every classified gap as CSV (CPU, start and end on CLOCK_MONOTONIC, source,
    /// who, share): one row per share of a gap, e.g. to check a gap against another
    /// recorder or find what ran at a time (docs/noise.md). Needs the tracer
    #[arg(long, value_name = "FILE")]
    gaps: Option<PathBuf>,

    #[command(flatten)]
    labels: crate::labels::LabelArgs,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let stdout_taken = [&a.json, &a.openmetrics]
        .iter()
        .filter(|p| p.as_ref().is_some_and(|p| p.as_os_str() == "-"))
        .count();
    if stdout_taken > 1 {
        anyhow::bail!("--json - and --openmetrics - cannot both write to standard output");
    }
    let quiet = crate::ui::quiet() || stdout_taken > 0;
    let spec = NoiseSpec {
        cpus: a.cpus.clone(),
        duration: a.duration.clone(),
        threshold: a.threshold.clone(),
        window: a.window.clone(),
        policy: a.policy,
        priority: a.priority,
        allow_fallback: a.allow_fallback,
        trace_events: a.trace_events.clone(),
        lock_memory: !a.no_mlock,
        labels: a.labels.label.clone(),
        gaps: a.gaps.clone(),
    };
    let plan = spec.build()?;
    if let Some(p) = a.json.as_ref().filter(|p| p.as_os_str() != "-") {
        outfile::probe_writable(p, "--json")?;
    }
    if let Some(p) = a.openmetrics.as_ref().filter(|p| p.as_os_str() != "-") {
        outfile::probe_writable(p, "--openmetrics")?;
    }
    if let Some(p) = &a.gaps {
        if p.as_os_str() == "-" {
            anyhow::bail!("--gaps: give a file (standard output carries the summary)");
        }
        outfile::probe_writable(p, "--gaps")?;
    }
    let eff = run::effective(&plan)?;
    let stop = Arc::new(AtomicBool::new(false));
    latscope_measure::stop_on_signals(&stop).context("cannot install signal handlers")?;
    if !quiet {
        let sched = match &eff.fallback_reason {
            Some(_) => "SCHED_OTHER (fallback)".to_string(),
            None => format!(
                "SCHED_{} {}",
                eff.policy.as_str().to_uppercase(),
                eff.priority
            ),
        };
        println!(
            "latscope noise: {} CPU(s) [{}], {sched}, threshold {}, windows of {}, {:.1} s",
            plan.cpus.len(),
            latscope_measure::settings::format_cpu_list(&plan.cpus),
            fmt_ns(plan.threshold_ns as f64),
            fmt_ns(plan.window_ns as f64),
            plan.duration_ns as f64 / 1e9
        );
        if let Some(r) = &eff.fallback_reason {
            println!("  fallback: {r}");
        }
    }
    let show_progress = !quiet && crate::ui::progress();
    let mut err = std::io::stderr();
    let mut last = -1i64;
    let mut progress = |p: &NoiseProgress| {
        if show_progress && p.elapsed_ns / 250_000_000 != last {
            last = p.elapsed_ns / 250_000_000;
            let _ = write!(
                err,
                "\r\x1b[K  {:.1} s / {:.1} s  {} gaps  max {}",
                p.elapsed_ns as f64 / 1e9,
                p.planned_ns as f64 / 1e9,
                p.gaps,
                fmt_ns(p.max_ns as f64)
            );
            let _ = err.flush();
        }
    };
    let report = run::execute(&plan, &eff, &stop, &mut progress);
    if show_progress {
        eprint!("\r\x1b[K");
    }
    let report = report?;
    if let Some(p) = &a.json {
        crate::out::write(p, "--json", report.to_json() + "\n")?;
    }
    if let Some(p) = &a.openmetrics {
        crate::out::write(
            p,
            "--openmetrics",
            latscope_measure::noise::openmetrics::render(&report),
        )?;
    }
    if !quiet {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn pct(part: i64, whole: i64) -> String {
    if whole <= 0 {
        "-".into()
    } else {
        format!("{:.0}%", 100.0 * part as f64 / whole as f64)
    }
}

fn print_report(r: &NoiseReport) {
    if r.interrupted {
        println!(
            "Interrupted after {:.1} s: figures of the time measured",
            r.elapsed_ns as f64 / 1e9
        );
    }
    println!(
        "\n{:>4} {:>8} {:>8} {:>10} {:>10}  {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {:>10}",
        "CPU",
        "noise",
        "gaps",
        "max",
        "at",
        "hw",
        "nmi",
        "irq",
        "soft",
        "thread",
        "unacc",
        "uncl",
        "steal"
    );
    for c in &r.cpus {
        let b = &c.by_source;
        let steal: i64 = c.window_steal_ns.iter().sum();
        println!(
            "{:>4} {:>7.3}% {:>8} {:>10} {:>9.3}s  {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {:>10}",
            c.cpu,
            c.noise_pct,
            c.noise_count,
            fmt_ns(c.max_single_ns as f64),
            c.max_single_at_ns as f64 / 1e9,
            pct(b.hw.total_ns, c.noise_ns),
            pct(b.nmi.total_ns, c.noise_ns),
            pct(b.irq.total_ns, c.noise_ns),
            pct(b.softirq.total_ns, c.noise_ns),
            pct(b.thread.total_ns, c.noise_ns),
            pct(b.unaccounted.total_ns, c.noise_ns),
            pct(b.unclassified.total_ns, c.noise_ns),
            if c.window_steal_ns.is_empty() {
                "-".to_string()
            } else {
                fmt_ns(steal as f64)
            }
        );
    }
    for c in &r.cpus {
        rows(c, "irq", &c.by_source.irq);
        rows(c, "softirq", &c.by_source.softirq);
        rows(c, "thread", &c.by_source.thread);
    }
    if r.classification.method == "none" {
        println!(
            "\nunclassified (no tracer): {}",
            r.classification.reason.as_deref().unwrap_or("")
        );
    }
    for n in &r.notes {
        println!("note: {n}");
    }
    println!();
    for c in &r.cpus {
        println!("{}", verdict(c));
    }
    // The one verdict, as the report's first screen states it.
    crate::verdict::print(&latscope_results::Verdict::noise(r));
}

fn rows(c: &CpuNoise, what: &str, s: &SourceNoise) {
    if s.rows.is_empty() {
        return;
    }
    println!("\nCPU {} {what} (count, time):", c.cpu);
    for row in s.rows.iter().take(5) {
        let id = match (row.pid, row.irq, row.vector) {
            (Some(p), _, _) => format!(" pid {p}"),
            (_, Some(i), _) if what == "irq" => format!(" irq {i}"),
            (_, _, Some(v)) => format!(" vector {v}"),
            _ => String::new(),
        };
        println!(
            "  {:<28} {:>8} {:>10}",
            format!("{}{id}", row.name),
            row.count,
            fmt_ns(row.total_ns as f64)
        );
    }
}

/// The first-screen line of one CPU: how much, and what dominates.
pub fn verdict(c: &CpuNoise) -> String {
    let b = &c.by_source;
    let main = match b.dominant() {
        None => "no noise above the threshold".to_string(),
        Some(s) => {
            let share = pct(b.get(s).total_ns, c.noise_ns);
            let who = b
                .get(s)
                .rows
                .first()
                .map(|r| match r.pid {
                    Some(p) => format!(": {} (pid {p})", r.name),
                    None => format!(": {}", r.name),
                })
                .unwrap_or_default();
            let what = match s {
                Source::Hw => "hardware or hypervisor (no event covers the gaps)".to_string(),
                Source::Unclassified => "unclassified".to_string(),
                other => other.as_str().to_string(),
            };
            format!("mostly {what} ({share}){who}")
        }
    };
    format!(
        "CPU {}: {:.3} % noise, largest {} — {main}",
        c.cpu,
        c.noise_pct,
        fmt_ns(c.max_single_ns as f64)
    )
}
