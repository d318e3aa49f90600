//! `latscope measure`: argument parsing, the progress line, the terminal summary and the
//! output files. The measuring itself lives in latscope-measure.

use anyhow::Context;
use latscope_core::labels::HOST_KEYS;
use latscope_measure::engine::Progress;
use latscope_measure::env::{Item, Status};
use latscope_measure::exposition::Meta;
use latscope_measure::metrics::LiveMetrics;
use latscope_measure::outfile;
use latscope_measure::output::{self, CpuStats, Report, Stats};
use latscope_measure::plan_spec::{DEFAULT_DURATION_NS, UNTIL_STOPPED_NS};
use latscope_measure::publish::Publisher;
use latscope_measure::settings::{
    self, LoadSpec, OverrunPolicy, Policy, SampleFormat, Stop, TimerMode,
};
use latscope_measure::values::{
    CpuList, LoadList, PmQos, PositiveDuration, SweepRange, TraceBuffer, TraceEvents,
};
use latscope_measure::{session, Plan, PlanSpec};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  latscope measure --duration 10s
      one SCHED_FIFO 80 thread per online CPU, 1 ms period, 10 s
  latscope measure --cpus 1 --interval 250us --loops 100000 --json run.json
  latscope measure --compare-load cpu:4 --duration 20s
      20 s idle, then 20 s with 4 busy threads, side by side (the CPU hogs of
      \"Linux wake-up latency with a naive Python sleep loop (Raspberry Pi 4)\")
  latscope measure --sweep 10us..1s --sweep-points 6 --duration 30s
      latency against sleep length
  latscope measure --duration 60s --cyclictest-histogram hist.txt --samples raw.bin
  latscope measure --cpus 1 --duration 60s --trace-above 500us
      as root: split each latency into interrupt and thread parts and name what held
      the CPU for every wake-up later than 500 us
  latscope measure -D 2s --rounds 1 --append --json a.json
      adds one round to a.json; repeated ten times, alternating with the other
      configuration writing b.json, it gives interleaved rounds: the fairest input
      for `latscope compare a.json b.json`
  latscope measure --rounds 10 --duration 20s --json after.json
      ten rounds of 2 s, each summarised: what `latscope compare` needs for a
      verdict that accounts for run-to-run spread
  latscope compare before.json after.json --threshold 10%
  latscope measure --cpus 1-3 --label board=rpi4 --listen 0.0.0.0:9466
      until SIGINT/SIGTERM: live metrics at http://HOST:9466/metrics for Prometheus
  latscope measure --cpus 1-3 --openmetrics /var/lib/node_exporter/textfile_collector/latscope.prom
      the same metrics for node_exporter's textfile collector, rewritten every 5 s
  latscope merge a.json b.json --json all.json
      runs (or hosts) of the same settings as one result, exactly

Latency is the time the thread woke minus the time it asked to wake, in ns. Missed
periods are counted as overruns, never hidden. PM QoS (/dev/cpu_dma_latency) is left
alone unless --pm-qos is given.

Outputs are checked for writability before the run, written to a temporary file next
to the target and renamed over it only when complete: a failed or killed run leaves an
earlier result intact. SIGINT/SIGTERM end the run within about 50 ms whatever the
interval and still write every requested output; a second SIGINT exits at once (exit
130) without writing. Schema of --json: docs/measure.md. Labels, merging and
Prometheus: docs/fleets.md.")]
pub struct Args {
    /// CPUs to measure on, one pinned thread each, e.g. `0,2-3` [default: all online]
    #[arg(long, value_name = "LIST")]
    cpus: Option<CpuList>,

    /// Scheduling policy of the measuring threads: fifo, rr or other
    #[arg(long, default_value = "fifo", value_name = "POLICY")]
    policy: Policy,

    /// Real-time priority 1..99 (fifo/rr); must be 0 for `other` [default: 80, or 0 for other]
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    priority: Option<i32>,

    /// If real-time scheduling is refused, measure as SCHED_OTHER instead of stopping
    /// (the results then say so)
    #[arg(long)]
    allow_fallback: bool,

    /// How to wait: absolute (clock_nanosleep TIMER_ABSTIME, like cyclictest), relative
    /// (sleep for the interval: the naive loop) or timerfd
    #[arg(long, default_value = "absolute", value_name = "MODE")]
    mode: TimerMode,

    /// Period between wake-ups, with a unit: ns, us, ms, s (1 us to 1 h; the duration
    /// must cover at least two periods)
    #[arg(
        long,
        short = 'i',
        default_value = "1ms",
        value_name = "DURATION",
        allow_hyphen_values = true
    )]
    interval: PositiveDuration,

    /// How long to measure, with a unit (e.g. 10s, 5min) [default: 10s]
    #[arg(
        long,
        short = 'D',
        value_name = "DURATION",
        conflicts_with = "loops",
        allow_hyphen_values = true
    )]
    duration: Option<PositiveDuration>,

    /// Stop after this many wake-ups per CPU instead of after a duration
    #[arg(long, short = 'l', value_name = "N")]
    loops: Option<u64>,

    /// Missed periods: `skip` to the next future period, or `catch-up` and record each
    /// missed one with its own latency (at most 1000 per wake-up; the rest are only
    /// counted); both count every missed period as an overrun
    #[arg(long, default_value = "skip", value_name = "POLICY")]
    overrun: OverrunPolicy,

    /// Hold /dev/cpu_dma_latency at this many µs during the run (system-wide effect:
    /// no CPU enters an idle state slower than that). A bare number means µs; units ok
    #[arg(long, value_name = "US", allow_hyphen_values = true)]
    pm_qos: Option<PmQos>,

    /// Background load during the run: cpu:N (busy threads), mem:N (cache/memory
    /// thrashers), syscall:N (system-call loops); comma-separated or repeated
    #[arg(long, value_name = "SPEC")]
    load: Vec<LoadList>,

    /// Measure idle, then with this extra load (e.g. cpu:4), each for the full duration,
    /// and show both side by side with the difference
    #[arg(long, value_name = "SPEC")]
    compare_load: Option<LoadSpec>,

    /// Measure at log-spaced sleep lengths LOW..HIGH (e.g. 10us..1s): latency against
    /// sleep length. The duration is shared among the points (at least 2 periods each)
    #[arg(long, value_name = "LOW..HIGH", allow_hyphen_values = true)]
    sweep: Option<SweepRange>,

    /// Number of sweep points
    #[arg(long, default_value_t = 8, value_name = "N")]
    sweep_points: usize,

    /// Trace what delays the samples (root; kernel tracepoints in a private tracefs
    /// instance): split every latency into its interrupt part (timer expiry to the
    /// hrtimer handler) and thread part (handler to the thread running), and for every
    /// sample above LATENCY name what held the CPU (interrupts, softirqs, other tasks
    /// with policy and priority, idle exit, and the hypervisor's steal time placed in
    /// the spike from /proc/stat). Where the kernel has the timerlat tracer it gives the
    /// split instead (the output says which was used). A spike whose window lost trace
    /// events (ring buffer overrun) is marked MAY BE INCOMPLETE. Where tracing is not
    /// possible the diagnosis says why and the run goes on. E.g. --trace-above 500us
    #[arg(long, value_name = "LATENCY", allow_hyphen_values = true)]
    trace_above: Option<PositiveDuration>,

    /// With --trace-above: the events traced besides the timer and scheduler ones it
    /// always needs, comma-separated: default (interrupt handlers, softirqs), irq,
    /// softirq, none, or tracepoints as group:event. Under an interrupt storm, `none`
    /// or `irq` keeps the buffer for what matters
    #[arg(long, value_name = "LIST")]
    trace_events: Option<TraceEvents>,

    /// With --trace-above: the trace ring buffer per CPU (default 8M; 64K to 1G). A
    /// larger buffer loses fewer events under load
    #[arg(long, value_name = "SIZE")]
    trace_buffer: Option<TraceBuffer>,

    /// Before the run, measure what the idle states cost a wake-up: two runs of 0.3 s,
    /// the second while a PM QoS request of 0 us (held only for those 0.3 s, a
    /// machine-wide effect) forbids idle states; reported as `idle_state_cost`
    #[arg(long)]
    probe_idle: bool,

    /// Split the run into N rounds (the duration or loop count is shared among them)
    /// and keep each round's summary in the JSON (`rounds`): `latscope compare` then
    /// judges a difference against the spread between rounds. 10 is a good start
    #[arg(long, value_name = "N")]
    rounds: Option<usize>,

    /// With --json FILE: add this run's rounds to the result already in FILE (which
    /// must have the same policy, priority, interval, mode and CPUs) instead of
    /// replacing it. Alternating two configurations with `--rounds 1 --append` makes
    /// slow drifts of the machine hit both alike: the fairest input for `compare`
    #[arg(long, requires = "json")]
    append: bool,

    /// Write the result as JSON (schema: docs/measure.md); `-` for standard output
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Write cyclictest's `-h` histogram text (1 µs bins, one column per CPU)
    #[arg(long, value_name = "FILE")]
    cyclictest_histogram: Option<PathBuf>,

    /// Number of 1 µs bins of the cyclictest histogram (cyclictest -h N); slower
    /// samples count as overflows
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    histogram_us: usize,

    /// Write every raw sample to FILE (binary, or CSV when FILE ends in .csv) through a
    /// lock-free ring; dropped samples are counted
    #[arg(long, value_name = "FILE")]
    samples: Option<PathBuf>,

    /// Raw sample format: binary or csv [default: from the file extension]
    #[arg(long, value_name = "FORMAT")]
    samples_format: Option<SampleFormat>,

    /// Do not lock memory (mlockall); page faults may then add latency
    #[arg(long)]
    no_mlock: bool,

    /// Timer slack of the measuring threads (PR_SET_TIMERSLACK on each, e.g. 50us, the
    /// default every SCHED_OTHER program runs with); default 1ns, so the wake-up measured
    /// is the timer's own
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    timer_slack: Option<PositiveDuration>,

    /// Print only the environment diagnosis and exit
    #[arg(long)]
    diagnose_only: bool,

    /// Read /sys, /proc, /dev and /boot for the diagnosis under this directory (must
    /// exist)
    #[arg(long, default_value = "/", value_name = "DIR")]
    sysroot: PathBuf,

    /// Serve live metrics at http://ADDR:PORT/metrics while measuring, for Prometheus
    /// (its text format, or OpenMetrics when the scraper asks for it): the latency
    /// histogram, samples and overruns per CPU, the diagnosis verdicts. Without
    /// --duration or --loops the run then lasts until SIGINT/SIGTERM. E.g.
    /// --listen 127.0.0.1:9466 (port 0: any free port, printed at the start)
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<String>,

    /// Rewrite FILE atomically every 5 s with the same metrics, in the Prometheus text
    /// format that node_exporter's textfile collector reads (name it *.prom in the
    /// collector's directory); the last write says latscope_measure_running 0. Without
    /// --duration or --loops the run lasts until SIGINT/SIGTERM
    #[arg(long, value_name = "FILE")]
    openmetrics: Option<PathBuf>,

    #[command(flatten)]
    labels: crate::labels::LabelArgs,
}

/// `LATSCOPE_TOUR_SHORT=1` divides the duration by [`TOUR_SHORT_DIVISOR`] (the default
/// 10 s too), so the README tour's test (crates/cli/tests/readme_tour.rs) can run every
/// `measure` line exactly as written without taking minutes. Nothing else changes; the
/// shortened duration is announced on standard error.
fn tour_short(duration: Option<&PositiveDuration>, loops: bool) -> Option<PositiveDuration> {
    let on = std::env::var_os("LATSCOPE_TOUR_SHORT").is_some_and(|v| v == "1");
    if !on || loops {
        return duration.cloned();
    }
    let (given, ns) = match duration {
        Some(d) => (d.to_string(), d.ns()),
        None => ("10s".to_string(), DEFAULT_DURATION_NS),
    };
    let short = PositiveDuration::from_ns((ns / TOUR_SHORT_DIVISOR).max(1))?;
    crate::ui::note(format_args!(
        "LATSCOPE_TOUR_SHORT=1: measuring {short} instead of {given}"
    ));
    Some(short)
}

/// How much `LATSCOPE_TOUR_SHORT=1` shortens a measurement.
const TOUR_SHORT_DIVISOR: i64 = 100;

/// The flags as the measure library's [`PlanSpec`], which parses and checks them (the
/// Python binding goes through the same, so both refuse alike).
fn spec(a: &Args) -> PlanSpec {
    PlanSpec {
        cpus: a.cpus.clone(),
        policy: a.policy,
        priority: a.priority,
        allow_fallback: a.allow_fallback,
        mode: a.mode,
        interval: a.interval.clone(),
        duration: tour_short(a.duration.as_ref(), a.loops.is_some()),
        loops: a.loops,
        overrun: a.overrun,
        pm_qos: a.pm_qos,
        loads: a.load.iter().flat_map(|l| l.0.iter().copied()).collect(),
        compare_load: a.compare_load,
        sweep: a.sweep.clone(),
        sweep_points: a.sweep_points,
        trace_above: a.trace_above.clone(),
        trace_events: a.trace_events.clone(),
        trace_buffer: a.trace_buffer,
        probe_idle: a.probe_idle,
        rounds: a.rounds,
        histogram_us: a.histogram_us,
        samples: a.samples.clone(),
        samples_format: a.samples_format,
        lock_memory: !a.no_mlock,
        timer_slack: a.timer_slack.clone(),
        sysroot: a.sysroot.clone(),
        labels: a.labels.label.clone(),
        live: a.listen.is_some() || a.openmetrics.is_some(),
    }
}

/// `--append`: the earlier result must exist as a readable result of the same kind of
/// run, checked before anything is measured.
fn check_append(a: &Args, plan: &Plan) -> anyhow::Result<()> {
    let Some(p) = a
        .json
        .as_ref()
        .filter(|p| p.as_os_str() != "-" && p.exists())
    else {
        return Ok(());
    };
    let old = Report::load(p)?;
    let s = &plan.settings;
    let mut diffs = Vec::new();
    if old.settings.policy_requested != s.policy.as_str() {
        diffs.push(format!("policy {} before", old.settings.policy_requested));
    }
    if old.settings.priority_requested != s.priority {
        diffs.push(format!(
            "priority {} before",
            old.settings.priority_requested
        ));
    }
    if old.settings.interval_ns != s.interval_ns {
        diffs.push(format!("interval {} ns before", old.settings.interval_ns));
    }
    if old.settings.timer_mode != s.mode.as_str() {
        diffs.push(format!("mode {} before", old.settings.timer_mode));
    }
    if old.settings.cpus != s.cpus {
        diffs.push(format!(
            "cpus {} before",
            settings::format_cpu_list(&old.settings.cpus)
        ));
    }
    if !diffs.is_empty() {
        anyhow::bail!(
            "--append {}: the earlier result measured something else ({})",
            p.display(),
            diffs.join(", ")
        );
    }
    Ok(())
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    // `--json -` puts the JSON on standard output, so nothing else may go there.
    let quiet = crate::ui::quiet() || a.json.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let spec = spec(&a);
    let live = spec.live;
    let mut plan = spec.build()?;
    if !a.diagnose_only {
        // Probed, not created: nothing is touched until the run has a result.
        if let Some(p) = a.json.as_ref().filter(|p| p.as_os_str() != "-") {
            outfile::probe_writable(p, "--json")?;
        }
        if a.append {
            check_append(&a, &plan)?;
        }
        if let Some(p) = &a.cyclictest_histogram {
            outfile::probe_writable(p, "--cyclictest-histogram")?;
        }
        if let Some(p) = &a.samples {
            outfile::probe_writable(p, "--samples")?;
        }
        if let Some(p) = &a.openmetrics {
            outfile::probe_writable(p, "--openmetrics")?;
        }
    }
    let prep = session::prepare(&plan)?;
    let color = crate::ui::color_stdout();
    let ui = Ui { color };
    if !quiet {
        print_header(&plan, &prep.effective, &ui);
        println!("Environment");
        print_items(&prep.items, &ui);
    }
    if a.diagnose_only {
        return Ok(ExitCode::SUCCESS);
    }

    let publisher = if live {
        let counters = Arc::new(LiveMetrics::new(&plan.settings.cpus));
        plan.live = Some(counters.clone());
        let meta = Meta {
            policy: prep.effective.policy.as_str().to_string(),
            interval_ns: plan.settings.interval_ns,
            labels: plan
                .labels
                .user()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            host: plan
                .labels
                .iter()
                .filter(|(k, _)| HOST_KEYS.contains(k))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            verdicts: prep
                .items
                .iter()
                .map(|i| {
                    (
                        i.name.clone(),
                        i.status.as_str().to_string(),
                        i.value.clone(),
                    )
                })
                .collect(),
        };
        let p = Publisher::start(counters, meta, a.listen.as_deref(), a.openmetrics.clone())?;
        if !quiet {
            if let Some(addr) = p.addr {
                println!("Serving metrics at http://{addr}/metrics");
            }
            if let Some(f) = &a.openmetrics {
                println!("Rewriting {} every 5 s", f.display());
            }
        }
        Some(p)
    } else {
        None
    };

    let stop = Arc::new(AtomicBool::new(false));
    latscope_measure::stop_on_signals(&stop).context("cannot install signal handlers")?;
    let show_progress = !quiet && crate::ui::progress();
    let mut err = std::io::stderr();
    let mut progress = |label: &str, p: &Progress| {
        if show_progress {
            let planned = p
                .planned_ns
                .filter(|&n| n < UNTIL_STOPPED_NS / 2)
                .map(|n| format!(" / {:.1} s", n as f64 / 1e9))
                .unwrap_or_default();
            let _ = write!(
                err,
                "\r\x1b[K  {label}  {:.1} s{planned}  {} samples  max {}",
                p.elapsed_ns as f64 / 1e9,
                p.samples,
                fmt_ns(p.max_ns as f64)
            );
            let _ = err.flush();
        }
    };
    let outcome = session::execute(&plan, &prep, &stop, &mut progress);
    if show_progress {
        eprint!("\r\x1b[K");
    }
    if let Some(w) = publisher.and_then(|p| p.finish()) {
        crate::ui::warn(format_args!("--openmetrics: {w}"));
    }
    let outcome = outcome?;
    let report = &outcome.report;

    // Outputs first: an interrupted run must still leave them behind. Everything is
    // formatted before the first rename, so the outputs appear together.
    let hist_text = match &a.cyclictest_histogram {
        Some(_) => {
            let mut text = Vec::new();
            output::write_cyclictest_histogram(&mut text, &outcome.histogram_phase)
                .context("cannot format the cyclictest histogram")?;
            Some(text)
        }
        None => None,
    };
    let appended;
    let report = match (&a.json, a.append) {
        (Some(p), true) if p.as_os_str() != "-" && p.exists() => {
            let old = Report::load(p)?;
            appended = latscope_measure::merge::append(&old, report)?;
            &appended
        }
        _ => report,
    };
    let json_text = report.to_json() + "\n";
    if let Some(p) = &a.json {
        if p.as_os_str() == "-" {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            out.write_all(json_text.as_bytes())
                .context("--json -: cannot write to standard output")?;
        } else {
            outfile::write_atomically(p, "--json", json_text.as_bytes())?;
        }
    }
    if let (Some(p), Some(text)) = (&a.cyclictest_histogram, &hist_text) {
        outfile::write_atomically(p, "--cyclictest-histogram", text)?;
    }

    if !quiet {
        let before = prep.items.len();
        println!("During the run");
        print_items(&report.environment.items[before..], &ui);
        print_results(report, &ui);
        print_bottom_line(report, &ui);
    } else if !a.json.as_deref().is_some_and(crate::out::is_stdio) {
        // -q: the figures and the verdict only; the diagnosis stays in the JSON.
        let t = &report.total;
        println!(
            "all CPUs: {} samples, p50 {}, p99 {}, p99.9 {}, max {} (cpu{} at {:.3} s), {} overrun(s)",
            t.count,
            fmt_ns(t.p50_ns as f64),
            fmt_ns(t.p99_ns as f64),
            fmt_ns(t.p999_ns as f64),
            fmt_ns(t.max_ns as f64),
            t.max_cpu,
            t.max_at_ns as f64 / 1e9,
            t.overruns
        );
        // -q keeps its two lines (docs/measure.md): the figures and the bottom line's
        // summary, which is the verdict's line (latscope_results::Verdict::measure).
        if let Some(b) = &report.bottom_line {
            println!("{}", b.summary);
        }
    }
    Ok(ExitCode::SUCCESS)
}

struct Ui {
    color: bool,
}

impl Ui {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn status(&self, s: Status) -> String {
        let code = match s {
            Status::Ok => "32",
            Status::Warn => "33",
            Status::Bad => "31;1",
            Status::Info => "36",
            Status::Unknown => "2",
        };
        self.paint(code, &format!("{:<7}", s.as_str()))
    }
}

/// A latency in the human form every command prints (`latscope_core::time::human`).
pub use latscope_core::time::human::ns as fmt_ns;

fn print_header(plan: &Plan, eff: &latscope_measure::engine::Effective, ui: &Ui) {
    let s = &plan.settings;
    let what = match s.stop {
        Stop::Duration(d) if d >= UNTIL_STOPPED_NS / 2 => "until SIGINT/SIGTERM".to_string(),
        Stop::Duration(d) => format!("{:.1} s", d as f64 / 1e9),
        Stop::Loops(l) => format!("{l} wake-ups per CPU"),
    };
    let sched = match &eff.fallback_reason {
        Some(_) => "SCHED_OTHER (fallback)".to_string(),
        None => format!(
            "SCHED_{} {}",
            eff.policy.as_str().to_uppercase(),
            eff.priority
        ),
    };
    println!(
        "{} {} CPU(s) [{}], {sched}, {} timer, interval {}, {what}",
        ui.paint("1", "latscope measure:"),
        s.cpus.len(),
        settings::format_cpu_list(&s.cpus),
        s.mode.as_str(),
        fmt_ns(s.interval_ns as f64),
    );
    if let Some(r) = &eff.fallback_reason {
        println!("  {} {r}", ui.paint("31;1", "fallback:"));
    }
    if let Some((lo, hi, n)) = plan.sweep {
        let pts = plan.sweep_schedule();
        // Each point runs at least two periods, so long sleeps can stretch the run past
        // --duration: say how long it will really take.
        let total_ns: f64 = pts
            .iter()
            .map(|(iv, st)| match st {
                settings::Stop::Duration(d) => *d as f64,
                settings::Stop::Loops(l) => *l as f64 * *iv as f64,
            })
            .sum();
        println!(
            "  sweep {}..{} in {} points ({} requested), about {} in all",
            fmt_ns(lo as f64),
            fmt_ns(hi as f64),
            pts.len(),
            n,
            fmt_ns(total_ns)
        );
    }
    if let Some(c) = plan.compare_load {
        println!("  idle phase, then loaded phase with {c}, each for {what}");
    }
    if !plan.loads.is_empty() {
        let l: Vec<String> = plan.loads.iter().map(|l| l.to_string()).collect();
        println!("  background load: {}", l.join(","));
    }
    if let Some(q) = plan.pm_qos_us {
        println!(
            "  PM QoS: holding /dev/cpu_dma_latency at {q} µs for the run (affects the whole machine)"
        );
    }
}

fn print_items(items: &[Item], ui: &Ui) {
    for i in items {
        println!("  {} {:<15} {}", ui.status(i.status), i.name, i.value);
        println!("  {:<7} {:<15} {}", "", "", ui.paint("2", &i.effect));
    }
}

const HEAD: [&str; 11] = [
    "count", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max", "overruns", "run",
];

fn stat_cells(s: &Stats) -> Vec<String> {
    vec![
        s.count.to_string(),
        fmt_ns(s.min_ns as f64),
        fmt_ns(s.mean_ns),
        fmt_ns(s.p50_ns as f64),
        fmt_ns(s.p90_ns as f64),
        fmt_ns(s.p99_ns as f64),
        fmt_ns(s.p999_ns as f64),
        fmt_ns(s.p9999_ns as f64),
        fmt_ns(s.max_ns as f64),
        s.overruns.to_string(),
        s.longest_overrun_run.to_string(),
    ]
}

fn print_table(first: &str, rows: Vec<(String, Vec<String>)>, ui: &Ui) {
    let mut widths: Vec<usize> = HEAD.iter().map(|h| h.len()).collect();
    let mut w0 = first.len();
    for (l, cells) in &rows {
        w0 = w0.max(l.len());
        for (i, c) in cells.iter().enumerate() {
            widths[i] = widths[i].max(c.len());
        }
    }
    let mut h = format!("  {first:<w0$}");
    for (i, t) in HEAD.iter().enumerate() {
        h += &format!("  {t:>w$}", w = widths[i]);
    }
    println!("{}", ui.paint("1", &h));
    for (l, cells) in rows {
        let mut line = format!("  {l:<w0$}");
        for (i, c) in cells.iter().enumerate() {
            line += &format!("  {c:>w$}", w = widths[i]);
        }
        println!("{line}");
    }
}

fn cpu_rows(total: &Stats, cpus: &[CpuStats]) -> Vec<(String, Vec<String>)> {
    let mut rows: Vec<(String, Vec<String>)> = cpus
        .iter()
        .map(|c| (format!("cpu{}", c.cpu), stat_cells(&c.stats)))
        .collect();
    if cpus.len() != 1 {
        rows.push(("all".into(), stat_cells(total)));
    }
    rows
}

/// The terminal summary of a result (for `latscope merge`).
pub fn print_summary(r: &Report, color: bool) {
    print_results(r, &Ui { color });
    print_bottom_line(r, &Ui { color });
}

/// The verdict after the figures: what dominates the tail and the fix per cause.
fn print_bottom_line(r: &Report, ui: &Ui) {
    println!();
    println!("{}", ui.paint("1", "Bottom line"));
    // The verdict (latscope_results::Verdict) and the worst sample with its cause, as the
    // report's first screen states them.
    let v = latscope_results::Verdict::measure(r);
    println!("  {}", v.headline());
    if let Some(w) = &v.worst {
        println!("  {}", w.line());
    }
    let Some(b) = &r.bottom_line else {
        return;
    };
    for c in b.causes.iter().take(5) {
        let share = match (c.spikes, c.share_pct) {
            (Some(n), Some(p)) => format!("{n} spikes ({p:.0} %): "),
            _ => String::new(),
        };
        println!("  - {share}{}\n      fix: {}", c.what, c.fix);
    }
}

fn print_results(r: &Report, ui: &Ui) {
    println!();
    if r.interrupted {
        println!(
            "{}",
            ui.paint("33", "Interrupted: results cover the samples taken so far.")
        );
    }
    if let Some(sw) = &r.sweep {
        println!(
            "{}",
            ui.paint("1", "Latency against sleep length (all CPUs)")
        );
        let rows = sw
            .iter()
            .map(|p| (fmt_ns(p.interval_ns as f64), stat_cells(&p.total)))
            .collect();
        print_table("sleep", rows, ui);
        println!();
    }
    if let Some(c) = &r.compare {
        println!(
            "{}",
            ui.paint("1", &format!("Idle against loaded ({})", c.load))
        );
        let d = &c.difference;
        let rows = vec![
            ("idle".to_string(), stat_cells(&c.idle.total)),
            (format!("loaded {}", c.load), stat_cells(&c.loaded.total)),
        ];
        print_table("phase", rows, ui);
        let sign = |v: f64| {
            if v >= 0.0 {
                format!("+{}", fmt_ns(v))
            } else {
                fmt_ns(v)
            }
        };
        println!(
            "  difference (loaded − idle): mean {}, p50 {}, p99 {}, p99.9 {}, max {}, overruns {:+}",
            sign(d.mean_ns),
            sign(d.p50_ns as f64),
            sign(d.p99_ns as f64),
            sign(d.p999_ns as f64),
            sign(d.max_ns as f64),
            d.overruns
        );
        println!();
        println!("{}", ui.paint("1", "Per CPU, idle phase"));
        print_table("cpu", cpu_rows(&c.idle.total, &c.idle.cpus), ui);
        println!("{}", ui.paint("1", "Per CPU, loaded phase"));
        print_table("cpu", cpu_rows(&c.loaded.total, &c.loaded.cpus), ui);
    } else {
        if let Some(rs) = &r.rounds {
            println!("{}", ui.paint("1", "Rounds (all CPUs)"));
            let rows = rs
                .iter()
                .enumerate()
                .map(|(i, st)| (format!("{}", i + 1), stat_cells(st)))
                .collect();
            print_table("round", rows, ui);
            println!();
        }
        println!("{}", ui.paint("1", "Wake-up latency (wake − intended)"));
        print_table("cpu", cpu_rows(&r.total, &r.cpus), ui);
    }
    let t = &r.total;
    if t.count > 0 {
        println!(
            "  max {} on cpu{} at {:.3} s; {} overrun(s), longest run {}; policy {} {}{}",
            fmt_ns(t.max_ns as f64),
            t.max_cpu,
            t.max_at_ns as f64 / 1e9,
            t.overruns,
            t.longest_overrun_run,
            r.settings.policy,
            r.settings.priority,
            if r.settings.fallback.is_some() {
                " (FALLBACK: not real-time)"
            } else {
                ""
            }
        );
    } else {
        println!("  no samples were taken");
    }
    if let Some(s) = &r.samples {
        println!(
            "  raw samples: {} written to {} ({}), {} dropped",
            s.written, s.path, s.format, s.dropped
        );
    }
    if let (Some(i), Some(th)) = (&t.irq_latency_ns, &t.thread_latency_ns) {
        println!();
        println!(
            "{}",
            ui.paint("1", "Where the latency goes (from kernel tracepoints)")
        );
        print_table(
            "part",
            vec![
                ("interrupt".into(), stat_cells(i)),
                ("thread".into(), stat_cells(th)),
            ],
            ui,
        );
        match r.trace.as_ref().map(|t| t.source.as_str()) {
            Some("timerlat") => println!("  from the kernel's timerlat tracer (its own thread on the measured CPUs, at the measuring interval): interrupt: timer expiry to the timer interrupt; thread: interrupt to the timerlat thread running"),
            _ => println!("  from tracepoints: interrupt: timer expiry to its hrtimer handler; thread: handler to the measuring thread reading the clock"),
        }
    }
    if let Some(tr) = &r.trace {
        if let Some(why) = &tr.source_reason {
            println!("  split source: {} ({why})", tr.source);
        }
        let lost: Vec<String> = tr
            .cpus
            .iter()
            .filter(|c| c.any())
            .map(|c| format!("cpu {}: {}", c.cpu, c.lost()))
            .collect();
        if !lost.is_empty() {
            println!(
                "  {} the trace lost {} events ({}); {} spike(s) marked MAY BE INCOMPLETE",
                ui.paint("33", "WARNING:"),
                tr.lost_events,
                lost.join(", "),
                tr.spikes_incomplete
            );
        }
    }
    if let Some(sp) = &r.spikes {
        println!();
        let th = r.settings.trace_above_ns.unwrap_or(0);
        if sp.is_empty() {
            println!("No sample above {} to explain.", fmt_ns(th as f64));
        } else {
            println!(
                "{}",
                ui.paint(
                    "1",
                    &format!(
                        "Spikes above {} ({}), longest first",
                        fmt_ns(th as f64),
                        sp.len()
                    )
                )
            );
            let mut order: Vec<&latscope_measure::ftrace::Spike> = sp.iter().collect();
            order.sort_by_key(|s| std::cmp::Reverse(s.latency_ns));
            for s in order.iter().take(20) {
                println!("  at {:.3} s  {}", s.at_ns as f64 / 1e9, s.explanation);
            }
            if order.len() > 20 {
                println!("  … {} more in the JSON (spikes)", order.len() - 20);
            }
        }
    }
}
