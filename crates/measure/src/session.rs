//! One `measure` invocation from start to end: checks, environment diagnosis, memory
//! locking, PM QoS hold, background load, the measurement phases (plain run, sweep or
//! idle-versus-loaded), and the assembled report.

use crate::engine::{self, Effective, MemLock, PhaseResult, Progress};
use crate::env::{self, Item, Limits, Probe, Snapshot, Status};
use crate::ftrace::live::Tracer;
use crate::load::{Load, PmQosHold};
use crate::output::{
    self, CompareJson, Environment, Report, SamplesJson, SettingsJson, SweepPoint,
};
use crate::samples::{self, SampleWriter};
use crate::settings::{LoadSpec, SampleFormat, Settings, Stop};
use crate::MeasureError;
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
                "--sweep range must be increasing, from at least 1 us to at most 1 h".into(),
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
fn probe_idle(plan: &Plan, prep: &Prepared, stop: &Arc<AtomicBool>) -> Result<(i64, i64), String> {
    let mut ps = plan.settings.clone();
    ps.stop = Stop::Duration(crate::idlecost::PROBE_NS.max(2 * ps.interval_ns));
    let mut none: Vec<Option<engine::SampleProducer>> = ps.cpus.iter().map(|_| None).collect();
    let mut p50 = |label: &str| -> Result<i64, String> {
        let r = engine::run_phase(&ps, &prep.effective, 0, stop, &mut none, &mut |_| {})
            .map_err(|e| format!("{label} probe run failed: {e}"))?;
        let st = output::merged_stats(&r.cpus);
        if st.count == 0 {
            return Err(format!("{label} probe run took no sample"));
        }
        Ok(st.p50_ns)
    };
    let free = p50("first")?;
    let hold =
        PmQosHold::hold(&plan.root.join("dev/cpu_dma_latency"), 0).map_err(|e| e.to_string())?;
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
    let s = &plan.settings;
    let n = s.cpus.len();

    // Outputs that can fail are opened before anything starts.
    // Tracing (--trace-above): a private tracefs instance; where it cannot be used the
    // diagnosis says why and the run goes on without it.
    let mut trace_item = None;
    let tracer = match plan.trace_above_ns {
        Some(th) => {
            let lookback = s.interval_ns.min(engine::STOP_SLICE_NS);
            match Tracer::start(&s.cpus, th, lookback, s.interval_ns, &plan.trace) {
                Ok(t) => Some(t),
                Err(why) => {
                    trace_item = Some(Item {
                        name: "tracing".into(),
                        status: Status::Warn,
                        value: format!("--trace-above: not traced: {why}"),
                        effect: "Without tracepoints the spikes cannot be attributed and the interrupt/thread split of each latency is unknown; the run measured as usual.".into(),
                    });
                    None
                }
            }
        }
        None => None,
    };
    let forward = tracer.as_ref().and_then(|t| t.sender());
    let (mut producers, writer) = match (&plan.samples, &forward) {
        (Some((path, fmt)), _) => {
            let (p, c) = samples::rings(n);
            (
                p,
                Some(SampleWriter::start_with(
                    Some((path.as_path(), *fmt)),
                    c,
                    forward.clone(),
                )?),
            )
        }
        (None, Some(_)) => {
            let (p, c) = samples::rings(n);
            (p, Some(SampleWriter::start_with(None, c, forward.clone())?))
        }
        (None, None) => ((0..n).map(|_| None).collect(), None),
    };
    drop(forward);
    let pmq = match plan.pm_qos_us {
        Some(us) => Some(PmQosHold::hold(&plan.root.join("dev/cpu_dma_latency"), us)?),
        None => None,
    };
    let memlock = if s.lock_memory {
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
    let before = Snapshot::take(&plan.root);
    let rivals = crate::rivals::RivalScan::start(
        plan.root.join("proc"),
        &s.cpus,
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

    // Steal-time snapshots around the compare phases (idle, loaded), for explaining a
    // loaded run that is faster.
    let mut phase_snaps: Vec<(Snapshot, i64)> = Vec::new();
    let mut run = || -> Result<(Vec<PhaseResult>, Vec<i64>), MeasureError> {
        let mut phases = Vec::new();
        let mut intervals = Vec::new();
        if plan.sweep.is_some() {
            for (i, (iv, st)) in plan.sweep_schedule().into_iter().enumerate() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let mut ps = s.clone();
                ps.interval_ns = iv;
                ps.stop = st;
                let label = format!("sweep {} ns", iv);
                let r = engine::run_phase_live(
                    &ps,
                    &prep.effective,
                    i as u16,
                    stop,
                    &mut producers,
                    &mut |p| progress(&label, p),
                    plan.live.as_ref(),
                )?;
                phases.push(r);
                intervals.push(iv);
            }
        } else if let Some(cl) = plan.compare_load {
            phase_snaps.push((Snapshot::take(&plan.root), engine::now_ns()));
            let idle = engine::run_phase_live(
                s,
                &prep.effective,
                0,
                stop,
                &mut producers,
                &mut |p| progress("idle", p),
                plan.live.as_ref(),
            )?;
            phase_snaps.push((Snapshot::take(&plan.root), engine::now_ns()));
            phases.push(idle);
            if !stop.load(Ordering::SeqCst) {
                let extra = Load::start(&[cl])?;
                std::thread::sleep(Duration::from_millis(100));
                let label = format!("loaded {cl}");
                let t = (Snapshot::take(&plan.root), engine::now_ns());
                let loaded = engine::run_phase_live(
                    s,
                    &prep.effective,
                    1,
                    stop,
                    &mut producers,
                    &mut |p| progress(&label, p),
                    plan.live.as_ref(),
                );
                phase_snaps.push(t);
                phase_snaps.push((Snapshot::take(&plan.root), engine::now_ns()));
                extra.stop();
                phases.push(loaded?);
            }
        } else if let Some(r) = plan.rounds {
            let mut rs = s.clone();
            rs.stop = plan.round_stop();
            for i in 0..r {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let label = format!("round {}/{r}", i + 1);
                phases.push(engine::run_phase_live(
                    &rs,
                    &prep.effective,
                    i as u16,
                    stop,
                    &mut producers,
                    &mut |p| progress(&label, p),
                    plan.live.as_ref(),
                )?);
            }
        } else {
            phases.push(engine::run_phase_live(
                s,
                &prep.effective,
                0,
                stop,
                &mut producers,
                &mut |p| progress("measuring", p),
                plan.live.as_ref(),
            )?);
        }
        Ok((phases, intervals))
    };
    let result = run();
    let rival_item = rivals.map(|r| r.finish());
    if let Some(l) = background {
        l.stop();
    }
    let elapsed = engine::now_ns() - t_start;
    let after = Snapshot::take(&plan.root);
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
    let (phases, intervals) = result?;
    if phases.is_empty() {
        return Err(MeasureError::Setup(
            "stopped before the first measurement started".into(),
        ));
    }
    if let Some(f) = samples_file {
        f.commit()?;
    }

    // Environment: what was read before, plus what the run itself did and saw.
    let mut items = prep.items.clone();
    let eff = &prep.effective;
    items.push(Item {
        name: "scheduling".into(),
        status: if eff.fallback_reason.is_some() {
            Status::Bad
        } else if eff.policy == crate::settings::Policy::Other {
            Status::Warn
        } else {
            Status::Ok
        },
        value: match &eff.fallback_reason {
            Some(r) => format!("fell back to SCHED_OTHER: {r}"),
            None => format!("SCHED_{} priority {}", eff.policy.as_str().to_uppercase(), eff.priority),
        },
        effect: "A SCHED_OTHER measuring thread shares its CPU fairly with every other task, so its wake-ups wait behind them; results then describe ordinary threads, not real-time ones.".into(),
    });
    let slacks: Vec<u64> = phases[0]
        .cpus
        .iter()
        .filter_map(|c| c.timer_slack_ns)
        .collect();
    items.push(Item {
        name: "timer_slack".into(),
        status: if slacks.is_empty() {
            Status::Unknown
        } else if slacks.iter().all(|&v| v <= 1_000) {
            Status::Ok
        } else {
            Status::Warn
        },
        value: if slacks.is_empty() {
            "not readable".into()
        } else {
            let lo = slacks.iter().min().copied().unwrap_or(0);
            let hi = slacks.iter().max().copied().unwrap_or(0);
            if lo == hi {
                format!("{lo} ns on every measuring thread (set with PR_SET_TIMERSLACK)")
            } else {
                format!("{lo}..{hi} ns on the measuring threads (set with PR_SET_TIMERSLACK)")
            }
        },
        effect: slack_effect(s.interval_ns),
    });
    items.push(Item {
        name: "memory_lock".into(),
        status: if memlock.locked { Status::Ok } else { Status::Warn },
        value: memlock.detail.clone(),
        effect: "Unlocked memory can be paged out or faulted in lazily; a page fault on the measuring path adds microseconds to milliseconds.".into(),
    });
    if let Some(us) = plan.pm_qos_us {
        items.push(Item {
            name: "pm_qos_hold".into(),
            status: Status::Info,
            value: format!("latscope held /dev/cpu_dma_latency at {us} us for the run (released afterwards)"),
            effect: "While held, no CPU of the whole machine enters an idle state slower than this: results show the machine with deep idle states forbidden.".into(),
        });
    }
    if !plan.loads.is_empty() {
        items.push(Item {
            name: "background_load".into(),
            status: Status::Info,
            value: plan
                .loads
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(","),
            effect: "Built-in load ran during the measurement (SCHED_OTHER threads, not pinned)."
                .into(),
        });
    }
    items.extend(env::during_run(
        &before,
        &after,
        &s.cpus,
        elapsed,
        env::clk_tck(),
    ));

    if let Some(it) = idle_item {
        items.push(it);
    }
    if let Some(it) = rival_item {
        items.push(it);
    }
    if let ([a0, a1, b0, b1], [idle, loaded]) = (&phase_snaps[..], &phases[..]) {
        let (pi, pl) = (
            output::merged_stats(&idle.cpus).p50_ns,
            output::merged_stats(&loaded.cpus).p50_ns,
        );
        {
            let steal = |x: &Snapshot, y: &Snapshot, ns: i64| {
                let ticks: u64 = s
                    .cpus
                    .iter()
                    .map(|c| {
                        let at = |m: &Snapshot| m.steal_ticks.get(c).copied().unwrap_or(0);
                        at(y).saturating_sub(at(x))
                    })
                    .sum();
                let ms = ticks as f64 * 1000.0 / env::clk_tck().max(1) as f64;
                ms / (ns.max(1) as f64 / 1e9) / s.cpus.len().max(1) as f64
            };
            let (si, sl) = (
                steal(&a0.0, &a1.0, a1.1 - a0.1),
                steal(&b0.0, &b1.0, b1.1 - b0.1),
            );
            let find = |n: &str| {
                prep.items
                    .iter()
                    .find(|i| i.name == n)
                    .map(|i| i.value.clone())
                    .unwrap_or_else(|| "not readable".into())
            };
            items.extend(crate::underload::explain(
                (pi, pl),
                (si, sl),
                &find("cpuidle"),
                &find("cpufreq"),
            ));
        }
    }
    if let Some(it) = trace_item {
        items.push(it);
    }
    if let Some(t) = &traced {
        let total = t.matched + t.unmatched;
        let lost = t.lost_any();
        let sm = t.summary();
        let split = match (&t.source_reason, t.source) {
            (None, src) => format!("split from {}", src.as_str()),
            (Some(why), src) => format!("split from {} ({why})", src.as_str()),
        };
        items.push(Item {
            name: "tracing".into(),
            status: if total > 0 && t.matched * 10 >= total * 9 && !lost {
                Status::Ok
            } else {
                Status::Warn
            },
            value: format!(
                "{} trace events ({} dropped from full windows); {}; timer handler found for {} of {} samples; {} spike(s) above {} ns attributed{}{}",
                t.events,
                t.events_dropped,
                split,
                t.matched,
                total,
                t.spikes.len(),
                plan.trace_above_ns.unwrap_or(0),
                if t.spikes_dropped > 0 {
                    format!(", {} more not kept", t.spikes_dropped)
                } else {
                    String::new()
                },
                if lost {
                    format!(
                        "; THE TRACE LOST EVENTS: {} ({}), {} spike(s) marked possibly incomplete",
                        sm.lost_events,
                        t.losses
                            .iter()
                            .filter(|l| l.any())
                            .map(|l| format!("cpu {}: {}", l.cpu, l.lost()))
                            .collect::<Vec<_>>()
                            .join(", "),
                        sm.spikes_incomplete
                    )
                } else {
                    String::new()
                }
            ),
            effect: "Kernel tracepoints (timer, irq, sched) in a private trace instance split each latency into the interrupt part (timer expiry to its handler) and the thread part (handler to the thread running), and name what held the CPU during each spike; the timerlat tracer gives the split where the kernel has it. A spike whose window lost events may be missing its cause.".into(),
        });
    }
    let interrupted = phases.iter().any(|p| p.interrupted) || stop.load(Ordering::SeqCst);
    let dropped: u64 = phases
        .iter()
        .flat_map(|p| &p.cpus)
        .map(|c| c.dropped_samples)
        .sum();

    let (duration_ns, loops) = match s.stop {
        Stop::Duration(d) => (Some(d), None),
        Stop::Loops(l) => (None, Some(l)),
    };
    let settings = SettingsJson {
        cpus: s.cpus.clone(),
        policy_requested: s.policy.as_str().into(),
        priority_requested: s.priority,
        policy: eff.policy.as_str().into(),
        priority: eff.priority,
        fallback: eff.fallback_reason.clone(),
        timer_mode: s.mode.as_str().into(),
        interval_ns: s.interval_ns,
        duration_ns,
        loops,
        overrun_policy: s.overrun.as_str().into(),
        pm_qos_us: plan.pm_qos_us,
        load: plan.loads.iter().map(|l| l.to_string()).collect(),
        compare_load: plan.compare_load.map(|l| l.to_string()),
        sweep: plan.sweep_text.clone(),
        memory_locked: memlock.locked,
        memory_lock_detail: memlock.detail,
        cyclictest_histogram_us: s.us_bins,
        timer_slack_ns: s.timer_slack_ns,
        rounds: plan.rounds,
        trace_above_ns: plan.trace_above_ns,
    };

    let mut compare = None;
    let mut compare_phases = None;
    let mut sweep = None;
    let mut rounds = None;
    let histogram_phase;
    let (total, cpus);
    if plan.rounds.is_some() {
        rounds = Some(
            phases
                .iter()
                .map(|p| output::merged_stats(&p.cpus))
                .collect(),
        );
        histogram_phase = output::merge_phases(&phases).unwrap_or_else(|| phases[0].clone());
        let j = output::phase_json(&histogram_phase);
        total = j.total;
        cpus = j.cpus;
    } else if plan.sweep.is_some() {
        sweep = Some(
            phases
                .iter()
                .zip(&intervals)
                .map(|(p, &iv)| {
                    let j = output::phase_json(p);
                    SweepPoint {
                        interval_ns: iv,
                        elapsed_ns: p.elapsed_ns,
                        total: j.total,
                        cpus: j.cpus,
                    }
                })
                .collect(),
        );
        histogram_phase = output::merge_phases(&phases).unwrap_or_else(|| phases[0].clone());
        let j = output::phase_json(&histogram_phase);
        total = j.total;
        cpus = j.cpus;
    } else {
        histogram_phase = phases[0].clone();
        let j = output::phase_json(&phases[0]);
        if let (Some(cl), Some(loaded)) = (plan.compare_load, phases.get(1)) {
            let lj = output::phase_json(loaded);
            compare = Some(CompareJson {
                load: cl.to_string(),
                difference: output::difference(&j.total, &lj.total),
                idle: j.clone(),
                loaded: lj,
            });
            compare_phases = Some((phases[0].clone(), loaded.clone()));
        }
        total = j.total;
        cpus = j.cpus;
    }

    let mut total = total;
    let mut spikes = None;
    let mut trace = None;
    if let Some(t) = traced {
        trace = Some(t.summary());
        // Split from the tracepoints (samples matched) or from timerlat's activations.
        if t.irq.moments.count() > 0 {
            total.irq_latency_ns = Some(Box::new(output::stats_of(&t.irq, 0, 0)));
            total.thread_latency_ns = Some(Box::new(output::stats_of(&t.thread, 0, 0)));
        }
        spikes = Some(t.spikes);
    }
    let report = Report {
        kind: output::KIND.into(),
        schema_version: output::SCHEMA_VERSION,
        tool: format!("latscope {}", env!("CARGO_PKG_VERSION")),
        started_unix_s,
        kernel: std::fs::read_to_string(plan.root.join("proc/sys/kernel/osrelease"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        labels: plan.labels.clone(),
        settings,
        interrupted,
        elapsed_ns: elapsed,
        environment: Environment { items },
        total,
        cpus,
        sweep,
        rounds,
        spikes,
        trace,
        compare,
        samples: plan.samples.as_ref().map(|(p, f)| SamplesJson {
            path: p.display().to_string(),
            format: match f {
                SampleFormat::Binary => "binary".into(),
                SampleFormat::Csv => "csv".into(),
            },
            written: written.unwrap_or(0),
            dropped,
        }),
        bottom_line: None,
    };
    let mut report = report;
    report.bottom_line = Some(crate::bottom_line::of(&report));
    Ok(Outcome {
        report,
        histogram_phase,
        compare_phases,
    })
}

/// What the timer-slack item tells: the kernel may defer a thread's timer by up to its
/// slack, and what a program with the default slack would see at this interval.
fn slack_effect(interval_ns: i64) -> String {
    let select_us = (interval_ns.max(0) as f64 / 1e3 / 1000.0).max(50.0);
    format!(
        "The kernel may defer a thread's timer by up to the thread's slack to batch wake-ups \
         (`--timer-slack` sets it for the measuring threads). A program with the default slack \
         (50 us for every SCHED_OTHER thread that does not change it: Python's time.sleep, \
         sleep(1), most services) wakes up to 50 us later than a 1 ns-slack measurement shows; \
         one sleeping in select() or poll() (Python up to 3.10) gets max(50 us, timeout/1000) \
         of slack: {select_us:.0} us at this interval."
    )
}
