//! One `measure` invocation from start to end: checks, environment diagnosis, memory
//! locking, PM QoS hold, background load, the measurement phases (plain run, sweep or
//! idle-versus-loaded), and the assembled report. The kinds of run are in `phases`, the
//! diagnosis items the run adds in `items`, the report's figures in `report`.

mod items;
mod phases;
mod report;

use crate::engine::{self, Effective, MemLock, PhaseResult, Progress, SampleProducer};
use crate::env::{self, Item, Limits, Probe, Snapshot};
use crate::ftrace::live::{TraceResult, Tracer};
use crate::idlecost::ProbeError;
use crate::load::{Load, PmQosHold};
use crate::output::{self, Environment, Report, SamplesJson};
use crate::samples::{self, SampleWriter};
use crate::settings::{LoadSpec, SampleFormat, Settings, Stop};
use crate::MeasureError;
use phases::{PhaseRunner, Phases};
use report::Figures;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Largest number of sweep points.
pub const MAX_SWEEP_POINTS: usize = 200;

/// Most rounds of one run.
pub const MAX_ROUNDS: usize = 1000;

/// Everything the user asked for.
#[derive(Clone, Debug)]
pub struct Plan {
    pub settings: Settings,
    /// Root of /sys, /proc, /dev, /boot for the diagnosis (normally `/`).
    pub root: PathBuf,
    /// Background load for the whole run.
    pub loads: Vec<LoadSpec>,
    /// Hold /dev/cpu_dma_latency at this many µs during the run.
    pub pm_qos_us: Option<i32>,
    /// Sweep: (low, high, points) in ns.
    pub sweep: Option<(i64, i64, usize)>,
    /// Run idle, then with this extra load, back to back.
    pub compare_load: Option<LoadSpec>,
    pub samples: Option<(PathBuf, SampleFormat)>,
    /// Text of --sweep as given, for the report.
    pub sweep_text: Option<String>,
    /// Split the run into this many rounds (the duration or loop count is shared), each
    /// summarised on its own so that `compare` can judge the spread between rounds.
    pub rounds: Option<usize>,
    /// Trace what delayed every sample above this latency (ns).
    pub trace_above_ns: Option<i64>,
    /// Which events and how large a buffer that tracing uses.
    pub trace: crate::ftrace::live::TraceSetup,
    /// Measure the idle states' cost first (two short runs, without and with a PM QoS
    /// hold of 0 µs).
    pub probe_idle: bool,
    /// The result's `labels` (user labels and host facts).
    pub labels: latscope_core::labels::Labels,
    /// Live counters for `--listen` / `--openmetrics`, fed by the measuring threads.
    pub live: Option<Arc<crate::metrics::LiveMetrics>>,
}

impl Plan {
    pub fn new(settings: Settings) -> Plan {
        Plan {
            settings,
            root: PathBuf::from("/"),
            loads: Vec::new(),
            pm_qos_us: None,
            sweep: None,
            compare_load: None,
            samples: None,
            sweep_text: None,
            rounds: None,
            trace_above_ns: None,
            trace: Default::default(),
            probe_idle: false,
            labels: Default::default(),
            live: None,
        }
    }

    /// The stop rule of one round (the whole run's, shared among the rounds).
    pub fn round_stop(&self) -> Stop {
        let r = self.rounds.unwrap_or(1).max(1);
        match self.settings.stop {
            Stop::Duration(d) => Stop::Duration(d / r as i64),
            Stop::Loops(l) => Stop::Loops(l / r as u64),
        }
    }

    /// The sleep lengths of the sweep and the stop rule of each point.
    pub fn sweep_schedule(&self) -> Vec<(i64, Stop)> {
        let Some((lo, hi, n)) = self.sweep else {
            return Vec::new();
        };
        let pts = crate::settings::sweep_points(lo, hi, n);
        let count = pts.len() as i64;
        pts.into_iter()
            .map(|iv| {
                let stop = match self.settings.stop {
                    Stop::Loops(l) => Stop::Loops(l),
                    // Share the duration, but give every point at least 2 periods.
                    Stop::Duration(d) => Stop::Duration((d / count.max(1)).max(2 * iv)),
                };
                (iv, stop)
            })
            .collect()
    }
}

/// What is known before any measuring thread starts.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub effective: Effective,
    /// Diagnosis items known before the run, in print order.
    pub items: Vec<Item>,
}

/// Checks the plan against this machine (CPUs online, ranges); starts nothing.
pub fn validate(plan: &Plan) -> Result<(), MeasureError> {
    let online = env::online_cpus(&plan.root)
        .or_else(|| env::online_cpus(std::path::Path::new("/")))
        .unwrap_or_else(|| {
            // SAFETY: sysconf has no preconditions.
            let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1);
            (0..n as u32).collect()
        });
    if !plan.root.is_dir() {
        return Err(MeasureError::Input(format!(
            "--sysroot {}: not an existing directory",
            plan.root.display()
        )));
    }
    plan.settings.validate(&online)?;
    if let Some(r) = plan.rounds {
        if r == 0 || r > MAX_ROUNDS {
            return Err(MeasureError::Input(format!(
                "--rounds must be 1..={MAX_ROUNDS}"
            )));
        }
        if plan.sweep.is_some() || plan.compare_load.is_some() {
            return Err(MeasureError::Input(
                "--rounds cannot be combined with --sweep or --compare-load".into(),
            ));
        }
        match plan.round_stop() {
            Stop::Loops(0) => {
                return Err(MeasureError::Input(format!(
                    "--loops must be at least --rounds ({r}): every round needs a wake-up"
                )))
            }
            Stop::Duration(d) if d < plan.settings.interval_ns.saturating_mul(2) => {
                return Err(MeasureError::Input(format!(
                    "--duration shared among {r} rounds gives {} per round, shorter than two intervals ({} each)",
                    latscope_core::Nanos(d),
                    latscope_core::Nanos(plan.settings.interval_ns)
                )))
            }
            _ => {}
        }
    }
    if plan.sweep.is_none() {
        if let Stop::Duration(d) = plan.settings.stop {
            let iv = plan.settings.interval_ns;
            if d < iv.saturating_mul(2) {
                return Err(MeasureError::Input(format!(
                    "duration {} is shorter than two intervals ({} each): nothing would be measured",
                    latscope_core::Nanos(d),
                    latscope_core::Nanos(iv)
                )));
            }
        }
    }
    if let Some((lo, hi, n)) = plan.sweep {
        if n == 0 || n > MAX_SWEEP_POINTS {
            return Err(MeasureError::Input(format!(
                "--sweep-points must be 1..={MAX_SWEEP_POINTS}"
            )));
        }
        if lo < crate::settings::MIN_INTERVAL_NS
            || hi <= lo
            || hi > crate::settings::MAX_INTERVAL_NS
        {
            return Err(MeasureError::Input(
                "--sweep range must be increasing, from at least 1 µs to at most 1 h".into(),
            ));
        }
        if plan.compare_load.is_some() {
            return Err(MeasureError::Input(
                "--sweep and --compare-load cannot be combined".into(),
            ));
        }
    }
    if let Some(q) = plan.pm_qos_us {
        if q < 0 {
            return Err(MeasureError::Input(
                "--pm-qos must be zero or more µs".into(),
            ));
        }
    }
    Ok(())
}

/// Validates the plan, probes real-time scheduling and diagnoses the environment.
/// Nothing is started and nothing on the machine is changed.
pub fn prepare(plan: &Plan) -> Result<Prepared, MeasureError> {
    validate(plan)?;
    let effective = engine::decide_policy(&plan.settings)?;
    let probe = Probe::new(plan.root.clone(), &plan.settings.cpus);
    let mut items = env::diagnose(&probe);
    let (v, s) = env::time_clock_reads();
    items.push(env::clock_read_item(v, s));
    items.push(env::limits_item(
        Limits::of_this_process(),
        plan.settings.priority,
    ));
    Ok(Prepared { effective, items })
}

/// Two short runs, without and with a PM QoS hold of 0 µs: (p50 free, p50 held).
fn probe_idle(
    plan: &Plan,
    prep: &Prepared,
    stop: &Arc<AtomicBool>,
) -> Result<(i64, i64), ProbeError> {
    let mut ps = plan.settings.clone();
    ps.stop = Stop::Duration(crate::idlecost::PROBE_NS.max(2 * ps.interval_ns));
    let mut none: Vec<Option<engine::SampleProducer>> = ps.cpus.iter().map(|_| None).collect();
    let mut p50 = |label: &'static str| -> Result<i64, ProbeError> {
        let r = engine::run_phase(&ps, &prep.effective, 0, stop, &mut none, &mut |_| {})
            .map_err(|source| ProbeError::Run { label, source })?;
        let st = output::merged_stats(&r.cpus);
        if st.count == 0 {
            return Err(ProbeError::NoSample(label));
        }
        Ok(st.p50_ns)
    };
    let free = p50("first")?;
    let hold =
        PmQosHold::hold(&plan.root.join("dev/cpu_dma_latency"), 0).map_err(ProbeError::Hold)?;
    let held = p50("second");
    drop(hold);
    Ok((free, held?))
}

/// The finished session.
#[derive(Debug)]
pub struct Outcome {
    pub report: Report,
    /// The phase (or merged sweep) written to the cyclictest histogram.
    pub histogram_phase: PhaseResult,
    /// The compare phases (idle, loaded) when --compare-load was given.
    pub compare_phases: Option<(PhaseResult, PhaseResult)>,
}

/// Progress callback: (phase label, progress).
pub type ProgressFn<'a> = dyn FnMut(&str, &Progress) + 'a;

/// Runs the plan. `stop` ends the run early (SIGINT/SIGTERM); every output is still
/// built from the samples taken so far.
pub fn execute(
    plan: &Plan,
    prep: &Prepared,
    stop: &Arc<AtomicBool>,
    progress: &mut ProgressFn,
) -> Result<Outcome, MeasureError> {
    let started_unix_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    // Outputs that can fail are opened before anything starts.
    let (tracer, trace_item) = start_tracer(plan);
    let (mut producers, writer) = open_samples(plan, tracer.as_ref())?;
    let pmq = match plan.pm_qos_us {
        Some(us) => Some(PmQosHold::hold(&plan.root.join("dev/cpu_dma_latency"), us)?),
        None => None,
    };
    let memlock = if plan.settings.lock_memory {
        engine::lock_memory()
    } else {
        MemLock {
            locked: false,
            detail: "not requested (--no-mlock)".into(),
        }
    };
    let idle_item = if plan.probe_idle && !stop.load(Ordering::SeqCst) {
        Some(crate::idlecost::item(probe_idle(plan, prep, stop)))
    } else {
        None
    };
    let measured = measure(plan, prep, stop, &mut producers, progress)?;
    drop(pmq);
    let (written, samples_file) = match writer {
        Some(w) => {
            let (n, f) = w.finish()?;
            (Some(n), f)
        }
        None => (None, None),
    };
    let traced = tracer.map(|t| t.finish());
    // On any error the sample file is dropped uncommitted: the old one stays.
    let run = measured.phases?;
    if run.phases.is_empty() {
        return Err(MeasureError::Setup(
            "stopped before the first measurement started".into(),
        ));
    }
    if let Some(f) = samples_file {
        f.commit()?;
    }
    let mut items = run_items(plan, prep, &memlock, &run, &measured.seen);
    items.extend(idle_item);
    items.extend(measured.seen.rival_item);
    items.extend(items::underload(
        plan,
        prep,
        &measured.seen.phase_snaps,
        &run.phases,
    ));
    items.extend(trace_item);
    if let Some(t) = &traced {
        items.push(items::tracing(t, plan.trace_above_ns.unwrap_or(0)));
    }
    let interrupted = run.phases.iter().any(|p| p.interrupted) || stop.load(Ordering::SeqCst);
    let done = Done {
        started_unix_s,
        elapsed_ns: measured.seen.elapsed_ns,
        interrupted,
        items,
        memlock,
        written,
    };
    Ok(assemble(plan, prep, run, traced, done))
}

/// Starts `--trace-above` tracing (a private tracefs instance). Where it cannot be used
/// the diagnosis says why (the item returned) and the run goes on without it.
fn start_tracer(plan: &Plan) -> (Option<Tracer>, Option<Item>) {
    let Some(th) = plan.trace_above_ns else {
        return (None, None);
    };
    let s = &plan.settings;
    let lookback = s.interval_ns.min(engine::STOP_SLICE_NS);
    match Tracer::start(&s.cpus, th, lookback, s.interval_ns, &plan.trace) {
        Ok(t) => (Some(t), None),
        Err(why) => (None, Some(items::not_traced(&why.to_string()))),
    }
}

/// The sample rings and the writer draining them into `--samples` and/or the tracer;
/// without either, no rings.
fn open_samples(
    plan: &Plan,
    tracer: Option<&Tracer>,
) -> Result<(Vec<Option<SampleProducer>>, Option<SampleWriter>), MeasureError> {
    let n = plan.settings.cpus.len();
    let forward = tracer.and_then(|t| t.sender());
    let file = plan
        .samples
        .as_ref()
        .map(|(path, fmt)| (path.as_path(), *fmt));
    if file.is_none() && forward.is_none() {
        return Ok(((0..n).map(|_| None).collect(), None));
    }
    let (p, c) = samples::rings(n);
    Ok((p, Some(SampleWriter::start_with(file, c, forward)?)))
}

/// What the machine did around the measuring phases.
struct Seen {
    /// CPU-time rivals of the measuring threads.
    rival_item: Option<Item>,
    /// Wall time from before the background load started to after the phases.
    elapsed_ns: i64,
    before: Snapshot,
    after: Snapshot,
    /// Snapshots around the compare phases (idle, loaded).
    phase_snaps: Vec<(Snapshot, i64)>,
}

/// The phases (or why they failed) and what was seen around them.
struct Measured {
    phases: Result<Phases, MeasureError>,
    seen: Seen,
}

/// Takes the snapshots, starts the rival scan and the background load, runs the phases
/// and stops everything again. A failing phase is returned inside, so the outputs can
/// still be closed in order.
fn measure(
    plan: &Plan,
    prep: &Prepared,
    stop: &Arc<AtomicBool>,
    producers: &mut [Option<SampleProducer>],
    progress: &mut ProgressFn,
) -> Result<Measured, MeasureError> {
    let before = Snapshot::take(&plan.root);
    let rivals = crate::rivals::RivalScan::start(
        plan.root.join("proc"),
        &plan.settings.cpus,
        prep.effective.priority.max(0) as u32,
    );
    let t_start = engine::now_ns();
    let background = if plan.loads.is_empty() {
        None
    } else {
        let l = Load::start(&plan.loads)?;
        std::thread::sleep(Duration::from_millis(100));
        Some(l)
    };
    let mut phase_snaps = Vec::new();
    let phases = PhaseRunner {
        plan,
        prep,
        stop,
        producers,
        progress,
    }
    .run(&mut phase_snaps);
    let rival_item = rivals.map(|r| r.finish());
    if let Some(l) = background {
        l.stop();
    }
    let elapsed_ns = engine::now_ns() - t_start;
    let after = Snapshot::take(&plan.root);
    Ok(Measured {
        phases,
        seen: Seen {
            rival_item,
            elapsed_ns,
            before,
            after,
            phase_snaps,
        },
    })
}

/// Environment: what was read before, plus what the run itself did and saw.
fn run_items(
    plan: &Plan,
    prep: &Prepared,
    memlock: &MemLock,
    run: &Phases,
    seen: &Seen,
) -> Vec<Item> {
    let s = &plan.settings;
    let mut items = prep.items.clone();
    items.push(items::scheduling(&prep.effective));
    items.push(items::timer_slack(&run.phases[0], s.interval_ns));
    items.push(items::memory_lock(memlock));
    if let Some(us) = plan.pm_qos_us {
        items.push(items::pm_qos_hold(us));
    }
    if !plan.loads.is_empty() {
        items.push(items::background_load(plan));
    }
    items.extend(env::during_run(
        &seen.before,
        &seen.after,
        &s.cpus,
        seen.elapsed_ns,
        env::clk_tck(),
    ));
    items
}

/// What the finished run contributes to the report besides its phases.
struct Done {
    started_unix_s: f64,
    elapsed_ns: i64,
    interrupted: bool,
    items: Vec<Item>,
    memlock: MemLock,
    /// Samples written to `--samples`, when it was given.
    written: Option<u64>,
}

/// The report and the phases the histogram outputs need.
fn assemble(
    plan: &Plan,
    prep: &Prepared,
    run: Phases,
    traced: Option<TraceResult>,
    done: Done,
) -> Outcome {
    let dropped: u64 = run
        .phases
        .iter()
        .flat_map(|p| &p.cpus)
        .map(|c| c.dropped_samples)
        .sum();
    let settings = report::settings_json(plan, &prep.effective, done.memlock);
    let mut figures = Figures::of(plan, &run);
    let mut spikes = None;
    let mut trace = None;
    if let Some(t) = traced {
        trace = Some(t.summary());
        figures.split_by(&t);
        spikes = Some(t.spikes);
    }
    let mut report = Report {
        kind: output::KIND.into(),
        schema_version: output::SCHEMA_VERSION,
        tool: format!("latscope {}", env!("CARGO_PKG_VERSION")),
        started_unix_s: done.started_unix_s,
        kernel: std::fs::read_to_string(plan.root.join("proc/sys/kernel/osrelease"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        labels: plan.labels.clone(),
        settings,
        interrupted: done.interrupted,
        elapsed_ns: done.elapsed_ns,
        environment: Environment { items: done.items },
        total: figures.total,
        cpus: figures.cpus,
        sweep: figures.sweep,
        rounds: figures.rounds,
        spikes,
        trace,
        compare: figures.compare,
        samples: plan.samples.as_ref().map(|(p, f)| SamplesJson {
            path: p.display().to_string(),
            format: match f {
                SampleFormat::Binary => "binary".into(),
                SampleFormat::Csv => "csv".into(),
            },
            written: done.written.unwrap_or(0),
            dropped,
        }),
        bottom_line: None,
    };
    report.bottom_line = Some(crate::bottom_line::of(&report));
    Outcome {
        report,
        histogram_phase: figures.histogram_phase,
        compare_phases: figures.compare_phases,
    }
}
