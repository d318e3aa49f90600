//! `latscope simulate`: argument parsing, the terminal summary and the output files. The
//! simulation itself lives in latscope-sim; semantics in docs/simulator.md.

use anyhow::Context;
use latscope_core::time::{format_ps, parse_nonneg_duration, Picos};
use latscope_model::system::System;
use latscope_sim::{from_system, ExecMode, FromSystemOptions, IrqMode, Sim, SimOptions, SimReport};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  latscope simulate system.toml
      one hyperperiod, terminal summary
  latscope simulate table1.toml --duration 250s --json sim.json --series ticks.csv
      Figure 4 of the FreeRTOS overheads paper: tick duration per tick, peaks where all tasks are released
  latscope simulate system.toml --duration 2s --vcd run.vcd --perfetto run.json
      virtual logic-analyzer capture for GTKWave / ui.perfetto.dev
  latscope simulate system.toml --exec uniform --seed 7 --json a.json
      random execution times between BCET and WCET; same seed, same bytes

The system file is the one `latscope analyze` reads (docs/system-format.md). Times in the JSON
are nanoseconds (fractional). Semantics, same-instant ordering and the JSON schema:
docs/simulator.md. Shared resources ([[resource]], critical = [...]) run as the kernel
runs them: FreeRTOS mutexes with priority inheritance, the immediate priority ceiling,
kernel critical sections; each task's blocking and each resource's episodes are in the
JSON (docs/resources.md).")]
pub struct Args {
    /// System description (TOML or JSON), as read by `latscope analyze`
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Simulated time, with a unit (e.g. 250s, 10ms) [default: one hyperperiod, at most
    /// --max-duration]
    #[arg(
        long,
        short = 'D',
        value_name = "DURATION",
        value_parser = parse_nonneg_duration,
        allow_hyphen_values = true
    )]
    duration: Option<Picos>,

    /// Cap for the default duration (one hyperperiod) when no --duration is given
    #[arg(
        long,
        default_value = "600s",
        value_name = "DURATION",
        value_parser = parse_nonneg_duration,
        allow_hyphen_values = true
    )]
    max_duration: Picos,

    /// Seed of the random generator (execution times, jitter, random interrupt arrivals)
    #[arg(long, default_value_t = 0, value_name = "N")]
    seed: u64,

    /// Execution time of each job: auto (the task's exec_time_file if any, else WCET),
    /// wcet, or uniform (uniform between BCET and WCET)
    #[arg(long, default_value = "auto", value_name = "MODE")]
    exec: String,

    /// Interrupt arrivals: worst (periodic at the minimum inter-arrival from each one's
    /// offset) or random (random first arrival, then gaps uniform in [min, 2*min]; an
    /// interrupt with `periodic = true` in the system file stays periodic at its offset)
    #[arg(long, default_value = "worst", value_name = "MODE")]
    irq_arrivals: String,

    /// Tickless sleep state to use (default: the one with the longest wake-up latency)
    #[arg(long, value_name = "NAME")]
    sleep_state: Option<String>,

    /// Keep the tick running even if the file lists sleep states
    #[arg(long)]
    no_tickless: bool,

    /// Sleep only when the next timed wake-up is at least N ticks away
    /// (configEXPECTED_IDLE_TIME_BEFORE_SLEEP)
    #[arg(long, default_value_t = 2, value_name = "N")]
    min_idle_ticks: u64,

    /// Write the results as JSON to FILE (`-` for stdout)
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Write one CSV row per tick: time_ns,duration_ns,released
    #[arg(long, value_name = "FILE")]
    series: Option<PathBuf>,

    /// Write the virtual capture as VCD (one channel per task, tick, switch, interrupt,
    /// idle, sleep, wake; held_<r> and wait_<r> per shared resource)
    #[arg(long, value_name = "FILE")]
    vcd: Option<PathBuf>,

    /// Write the virtual capture as Perfetto / Chrome trace-event JSON (ui.perfetto.dev)
    #[arg(long, value_name = "FILE")]
    perfetto: Option<PathBuf>,

    /// Write the virtual capture in latscope's own capture format (for `latscope trace`)
    #[arg(long, value_name = "FILE")]
    capture: Option<PathBuf>,

    #[command(flatten)]
    labels: crate::labels::LabelArgs,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let labels = a.labels.resolve()?;
    let exec = match a.exec.as_str() {
        "auto" => ExecMode::Auto,
        "wcet" => ExecMode::Wcet,
        "uniform" => ExecMode::Uniform,
        o => anyhow::bail!("--exec: unknown mode '{o}' (use auto, wcet or uniform)"),
    };
    let irq = match a.irq_arrivals.as_str() {
        "worst" => IrqMode::Worst,
        "random" => IrqMode::Random,
        o => anyhow::bail!("--irq-arrivals: unknown mode '{o}' (use worst or random)"),
    };
    let duration = a.duration;
    let cap = a.max_duration;
    for p in [&a.json, &a.series, &a.vcd, &a.perfetto, &a.capture]
        .into_iter()
        .flatten()
    {
        if p.as_os_str() != "-" {
            super::check_writable(p)?;
        }
    }
    let sys = System::from_path(&a.file)?;
    let fso = FromSystemOptions {
        exec,
        irq,
        seed: a.seed,
        sleep_state: a.sleep_state.clone(),
        no_tickless: a.no_tickless,
        min_idle_ticks: Some(a.min_idle_ticks),
    };
    let cfg = from_system(&sys, &fso).with_context(|| format!("{}", a.file.display()))?;
    let (until, note) = latscope_sim::run_length(
        &cfg,
        duration,
        cap,
        latscope_sim::LengthNames {
            duration: "--duration",
            max_duration: "--max-duration",
        },
    )?;
    let want_capture = a.vcd.is_some() || a.perfetto.is_some() || a.capture.is_some();
    let sim_opts = SimOptions {
        seed: a.seed,
        series: a.series.is_some() || a.perfetto.is_some(),
        capture: want_capture,
        percentiles: true,
        source: a.file.display().to_string(),
    };
    // Partitioned multicore: one engine per core in one event order
    // (docs/simulator.md, Multicore); the series is core 0's tick.
    let mut multi = None;
    let mut single = None;
    let mut global = None;
    let t0 = std::time::Instant::now();
    if sys.platform.placement == latscope_model::system::Placement::Global {
        // Unpinned tasks: global fixed priority (docs/simulator.md, Multicore (global)).
        if a.series.is_some() {
            anyhow::bail!(
                "{}: --series: the per-tick series is not recorded for unpinned tasks                  (core = \"any\") so far",
                a.file.display()
            );
        }
        let mut g = latscope_sim::global::GlobalSim::new(
            &sys,
            &latscope_sim::global::GlobalOptions {
                exec,
                irq,
                seed: a.seed,
                offsets: None,
                capture: want_capture,
                source: a.file.display().to_string(),
            },
        );
        g.run_until(until);
        global = Some(g);
    } else if sys.platform.cores > 1 {
        let mut m = latscope_sim::MultiSim::new(&sys, &fso, sim_opts)
            .with_context(|| format!("{}", a.file.display()))?;
        m.run_until(until);
        multi = Some(m);
    } else {
        let mut sim = Sim::new(cfg, sim_opts).with_context(|| format!("{}", a.file.display()))?;
        sim.observe_chains(latscope_sim::chains::from_system(&sys));
        crate::progress::run_with_progress(&mut sim, until);
        single = Some(sim);
    }
    let wall = t0.elapsed();
    let (report, sim) = match (&global, &multi, &single) {
        (Some(g), _, _) => (g.report(), None),
        (None, Some(m), _) => (m.report(), Some(&m.cores()[0])),
        (None, None, Some(s)) => (s.report(), Some(s)),
        (None, None, None) => anyhow::bail!("no simulation ran"),
    };

    if let Some(p) = &a.json {
        crate::labels::write_json(p, &report, &labels)?;
    }
    if let (Some(p), Some(sim)) = (&a.series, sim) {
        crate::out::stream(p, "--series", |w| Ok(sim.write_series_csv(w)?))?;
    }
    if want_capture {
        let cap = match (&global, &multi, sim) {
            (Some(g), _, _) => g.capture(),
            (None, Some(m), _) => m.capture(),
            (None, None, Some(s)) => s.capture(),
            (None, None, None) => anyhow::bail!("no simulation ran"),
        };
        if let Some(p) = &a.vcd {
            crate::out::stream(p, "--vcd", |w| {
                Ok(latscope_trace::export::vcd::write(&cap, w)?)
            })?;
        }
        if let Some(p) = &a.capture {
            crate::out::stream(p, "--capture", |w| {
                Ok(latscope_trace::export::native::write(&cap, w)?)
            })?;
        }
        if let Some(p) = &a.perfetto {
            let counters = vec![latscope_trace::export::perfetto::CounterTrack {
                name: "tick duration (us)".into(),
                points: sim
                    .map(|s| {
                        s.series()
                            .iter()
                            .map(|r| (r.time, r.duration.as_us_f64()))
                            .collect()
                    })
                    .unwrap_or_default(),
            }];
            crate::out::stream(p, "--perfetto", |w| {
                Ok(latscope_trace::export::perfetto::write(&cap, &counters, w)?)
            })?;
        }
    }
    let to_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if !crate::ui::quiet() && !to_stdout {
        print_summary(&report, note.as_deref(), wall);
        println!();
        crate::verdict::print(&latscope_results::Verdict::simulate(&report));
    } else if let Some(n) = note {
        crate::ui::note(format_args!("note: {n}"));
    }
    Ok(ExitCode::SUCCESS)
}

fn f(ns: Option<f64>) -> String {
    match ns {
        Some(v) => format_ps((v * 1000.0).round() as i128),
        None => "-".into(),
    }
}

fn print_summary(r: &SimReport, note: Option<&str>, wall: std::time::Duration) {
    if let Some(n) = note {
        println!("note: {n}");
    }
    println!(
        "simulated {} of {} ({} kernel, tick {}), seed {}: {} events in {:.1} ms ({:.1} M events/s)",
        f(Some(r.duration_ns)),
        r.source,
        r.kernel,
        f(Some(r.tick_period_ns)),
        r.seed,
        r.events,
        wall.as_secs_f64() * 1e3,
        r.events as f64 / wall.as_secs_f64().max(1e-9) / 1e6
    );
    println!();
    println!(
        "{:<16} {:>4} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}",
        "task", "prio", "jobs", "min", "mean", "p99", "max", "deadline", "misses", "preempt"
    );
    for t in &r.tasks {
        println!(
            "{:<16} {:>4} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}",
            t.name,
            t.priority,
            t.jobs,
            f(t.response.min_ns),
            f(t.response.mean_ns),
            f(t.response.p99_ns),
            f(t.max_response_ns),
            f(Some(t.deadline_ns)),
            t.deadline_misses,
            t.preemptions
        );
    }
    println!();
    let what = if r.kernel == "list-scan" {
        "scheduler runs"
    } else {
        "ticks"
    };
    println!(
        "{what}: {}  duration min {}  mean {}  max {} (at {} instants, first at {})  lost {}  max latency {}",
        r.tick.count,
        f(r.tick.min_ns),
        f(r.tick.mean_ns),
        f(r.tick.max_ns),
        r.tick.peak_count,
        f(r.tick.peaks_at_ns.first().copied()),
        r.tick.lost,
        f(r.tick.max_latency_ns)
    );
    println!(
        "context switches: {}  min {}  mean {}  max {}",
        r.switches.count,
        f(r.switches.min_ns),
        f(r.switches.mean_ns),
        f(r.switches.max_ns)
    );
    for c in &r.cores {
        println!(
            "core {}: tasks {}  busy {:.2}%  ({} events)",
            c.core,
            c.tasks.join(", "),
            100.0 * (1.0 - c.cpu.idle_fraction - c.cpu.sleep_fraction),
            c.events
        );
    }
    for q in &r.interrupts {
        println!(
            "interrupt {}: {} (lost {})  response max {}  latency max {}",
            q.name,
            q.count,
            q.lost,
            f(q.response.max_ns),
            f(q.max_latency_ns)
        );
    }
    for x in &r.resources {
        println!(
            "resource {} ({}, ceiling {}): taken {}  held max {}  contended {} (inheritance {})  wait max {}",
            x.name,
            x.protocol,
            x.ceiling,
            x.takes,
            f(Some(x.max_hold_ns)),
            x.contended,
            x.inheritances,
            f(Some(x.max_wait_ns))
        );
    }
    if !r.resources.is_empty() {
        for t in r.tasks.iter().filter(|t| t.max_blocking_ns > 0.0) {
            println!(
                "blocking of {}: max {} per job (waiting for resources {} in all)",
                t.name,
                f(Some(t.max_blocking_ns)),
                f(Some(t.blocked_ns))
            );
        }
    }
    if let Some(ls) = &r.list_scan {
        println!(
            "list-scan: {} runs, {} late, {} ticks lost, scheduler delay max {}",
            ls.scheduler_runs,
            ls.late_runs,
            ls.lost_ticks,
            f(ls.delay.max_ns)
        );
    }
    if let Some(s) = &r.sleep.state {
        println!(
            "tickless ({s}): {} sleeps, {} wake-ups ({} by timer, {} by interrupt)",
            r.sleep.sleeps, r.sleep.wakeups, r.sleep.timer_wakeups, r.sleep.interrupt_wakeups
        );
    }
    let c = &r.cpu;
    let pct = |x: f64| format!("{:.3} %", x * 100.0);
    println!(
        "CPU: tasks {}  tick {}  switches {}  interrupts {}  scheduler {}  idle {}  sleep {}  wake {}",
        pct(c.tasks_fraction),
        pct(c.tick_fraction),
        pct(c.switch_fraction),
        pct(c.interrupts_fraction),
        pct(c.scheduler_fraction),
        pct(c.idle_fraction),
        pct(c.sleep_fraction),
        pct(c.wake_fraction)
    );
}
