//! One whole `latscope noise` invocation: the options as typed, checked into a plan;
//! the spinning threads, the tracer and the steal readings started and stopped in the
//! right order; the result assembled. Ctrl-C (SIGINT/SIGTERM) ends the run early and
//! keeps everything measured so far.

use super::gaplog::GapLog;
use super::result::{
    BySource, Classification, CpuNoise, NoiseReport, NoiseSettingsJson, Tally, KIND, SCHEMA_VERSION,
};
use super::spin::{self, Shared, SpinConfig, RING_CAPACITY};
use super::tracer::Tracer;
use crate::engine::{decide_policy, Effective};
use crate::settings::{self, Policy, Settings};
use crate::values::{CpuList, NoiseGroups, PositiveDuration};
use crate::MeasureError;
use latscope_core::labels::Labels;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The default threshold: 1 us (osnoise's default is 5 us; hwnoise's 1 us).
pub const DEFAULT_THRESHOLD_NS: i64 = 1_000;
pub const DEFAULT_WINDOW_NS: i64 = 1_000_000_000;
pub const DEFAULT_DURATION_NS: i64 = 10_000_000_000;
/// Longest run: a day.
pub const MAX_DURATION_NS: i64 = 86_400_000_000_000;

/// The options of `latscope noise`, each already parsed into its typed value
/// ([`crate::values`]); `None`: the default.
#[derive(Clone, Debug, Default)]
pub struct NoiseSpec {
    pub cpus: Option<CpuList>,
    pub duration: Option<PositiveDuration>,
    pub threshold: Option<PositiveDuration>,
    pub window: Option<PositiveDuration>,
    /// `None`: other (like osnoise's default).
    pub policy: Option<Policy>,
    pub priority: Option<i32>,
    pub allow_fallback: bool,
    /// `None`: every group the kernel has (`all`).
    pub trace_events: Option<NoiseGroups>,
    pub lock_memory: bool,
    pub labels: Vec<String>,
    /// `--gaps FILE`: every classified gap as CSV.
    pub gaps: Option<std::path::PathBuf>,
}

/// A checked plan.
#[derive(Clone, Debug)]
pub struct NoisePlan {
    pub cpus: Vec<u32>,
    pub policy: Policy,
    pub priority: i32,
    pub allow_fallback: bool,
    pub duration_ns: i64,
    pub threshold_ns: i64,
    pub window_ns: i64,
    /// Event groups to trace; empty: no tracing (`--trace-events none`).
    pub groups: Vec<String>,
    pub lock_memory: bool,
    pub labels: Labels,
    /// `--gaps FILE` (needs the tracer).
    pub gaps: Option<std::path::PathBuf>,
}

fn input(s: String) -> MeasureError {
    MeasureError::Input(s)
}

/// A duration flag within `lo..=hi` ns, or `default` when not given.
fn dur(
    option: &str,
    v: &Option<PositiveDuration>,
    default: i64,
    lo: i64,
    hi: i64,
) -> Result<i64, MeasureError> {
    let Some(t) = v else { return Ok(default) };
    let ns = t.ns();
    if ns < lo || ns > hi {
        return Err(input(format!(
            "{option} '{t}' must be between {} and {}",
            latscope_core::Nanos(lo),
            latscope_core::Nanos(hi)
        )));
    }
    Ok(ns)
}

impl NoiseSpec {
    pub fn build(&self) -> Result<NoisePlan, MeasureError> {
        let online = crate::env::online_cpus(std::path::Path::new("/")).unwrap_or_else(|| vec![0]);
        let cpus = match &self.cpus {
            Some(c) => c.0.clone(),
            None => online.clone(),
        };
        if let Some(c) = cpus.iter().find(|c| !online.contains(c)) {
            return Err(input(format!(
                "--cpus: CPU {c} is not online (online: {})",
                settings::format_cpu_list(&online)
            )));
        }
        let policy = self.policy.unwrap_or(Policy::Other);
        let priority = self.priority.unwrap_or(match policy {
            Policy::Other => 0,
            _ => crate::plan_spec::DEFAULT_RT_PRIORITY,
        });
        let (lo, hi) = policy.priority_range();
        if priority < lo || priority > hi {
            return Err(input(format!(
                "--priority {priority} is out of range for {} ({lo}..={hi})",
                policy.as_str()
            )));
        }
        let duration_ns = dur(
            "--duration",
            &self.duration,
            DEFAULT_DURATION_NS,
            10_000_000,
            MAX_DURATION_NS,
        )?;
        let threshold_ns = dur(
            "--threshold",
            &self.threshold,
            DEFAULT_THRESHOLD_NS,
            10,
            1_000_000_000,
        )?;
        let window_ns = dur(
            "--window",
            &self.window,
            DEFAULT_WINDOW_NS,
            1_000_000,
            3_600_000_000_000,
        )?;
        if duration_ns / window_ns > spin::MAX_WINDOWS as i64 {
            return Err(input(format!(
                "--duration / --window gives more than {} windows",
                spin::MAX_WINDOWS
            )));
        }
        let groups = self.trace_events.clone().unwrap_or_else(NoiseGroups::all).0;
        if self.gaps.is_some() && groups.is_empty() {
            return Err(input(
                "--gaps lists the gaps as the trace classifies them; it cannot be combined with --trace-events none".into(),
            ));
        }
        // A real-time spinner with RT throttling off never lets the CPU's kernel
        // threads run: the machine can hang. Refused, not worked around.
        if policy != Policy::Other && rt_limits().0 == Some(-1) {
            return Err(input(
                "real-time spinning threads with RT throttling off (sched_rt_runtime_us = -1) would starve the measured CPUs' kernel threads; use --policy other or turn throttling on".into(),
            ));
        }
        Ok(NoisePlan {
            cpus,
            policy,
            priority,
            allow_fallback: self.allow_fallback,
            duration_ns,
            threshold_ns,
            window_ns,
            groups,
            lock_memory: self.lock_memory,
            gaps: self.gaps.clone(),
            labels: Labels::with_host(
                latscope_core::labels::parse_labels(&self.labels)
                    .map_err(|e| input(e.to_string()))?,
            ),
        })
    }
}

/// (sched_rt_runtime_us, sched_rt_period_us).
fn rt_limits() -> (Option<i64>, Option<i64>) {
    let r = |f: &str| {
        std::fs::read_to_string(format!("/proc/sys/kernel/{f}"))
            .ok()
            .and_then(|t| t.trim().parse().ok())
    };
    (r("sched_rt_runtime_us"), r("sched_rt_period_us"))
}

/// Steal ticks of `cpus` from /proc/stat.
fn steal_now(cpus: &[u32]) -> Option<Vec<u64>> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let m = crate::env::parse_proc_stat(&text);
    cpus.iter().map(|c| m.get(c).copied()).collect()
}

/// What the progress line shows.
#[derive(Clone, Debug)]
pub struct NoiseProgress {
    pub elapsed_ns: i64,
    pub planned_ns: i64,
    pub gaps: u64,
    pub max_ns: i64,
}

/// The policy the threads will get (probed before anything starts).
pub fn effective(plan: &NoisePlan) -> Result<Effective, MeasureError> {
    decide_policy(&Settings {
        cpus: plan.cpus.clone(),
        policy: plan.policy,
        priority: plan.priority,
        allow_fallback: plan.allow_fallback,
        ..Settings::default()
    })
}

/// Runs the plan.
pub fn execute(
    plan: &NoisePlan,
    eff: &Effective,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(&NoiseProgress),
) -> Result<NoiseReport, MeasureError> {
    let started_unix_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let n = plan.cpus.len();
    let mut notes = Vec::new();
    let locked = plan.lock_memory && crate::engine::lock_memory().locked;
    let shared = Shared::new(n);
    let mut producers = Vec::new();
    let mut tracer = None;
    let mut classification = Classification {
        method: "none".into(),
        reason: None,
        lost_events: 0,
        mounted_tracefs: false,
    };
    if plan.groups.is_empty() {
        classification.reason = Some("--trace-events none".into());
    } else {
        let mut consumers = Vec::new();
        for _ in 0..n {
            let (p, c) = rtrb::RingBuffer::new(RING_CAPACITY);
            producers.push(Some(p));
            consumers.push(c);
        }
        let gaplog = match &plan.gaps {
            Some(p) => Some(GapLog::create(p).map_err(|e| MeasureError::Setup(e.to_string()))?),
            None => None,
        };
        match Tracer::start(&plan.cpus, &plan.groups, consumers, shared.clone(), gaplog) {
            Ok(t) => {
                classification.method = "tracepoints".into();
                tracer = Some(t);
            }
            Err(why) => {
                producers.clear();
                classification.reason = Some(why.to_string());
            }
        }
    }
    let trace_events = tracer
        .as_ref()
        .map(|t| t.events.clone())
        .unwrap_or_default();
    let cfg = SpinConfig {
        cpus: plan.cpus.clone(),
        eff: eff.clone(),
        duration_ns: plan.duration_ns,
        threshold_ns: plan.threshold_ns,
        window_ns: plan.window_ns,
    };
    // Steal readings at the windows' borders (taken within ~20 ms of them).
    let mut steal: Vec<Option<Vec<u64>>> = Vec::new();
    let windows = cfg.windows();
    // The first border is the start (read just before the threads go).
    let mut next_border = 1usize;
    let mut at_start = |_t0: i64| steal.push(steal_now(&plan.cpus));
    let mut border_readings: Vec<Option<Vec<u64>>> = Vec::new();
    let mut tick = |elapsed: i64| {
        while next_border < windows && elapsed >= next_border as i64 * plan.window_ns {
            border_readings.push(steal_now(&plan.cpus));
            next_border += 1;
        }
        progress(&NoiseProgress {
            elapsed_ns: elapsed,
            planned_ns: plan.duration_ns,
            gaps: shared.gaps.load(Ordering::Relaxed),
            max_ns: shared.max_ns.load(Ordering::Relaxed),
        });
    };
    let out = spin::run(&cfg, stop, producers, &shared, &mut at_start, &mut tick);
    let mut traced = tracer.map(Tracer::finish);
    let out = out?;
    steal.append(&mut border_readings);
    steal.push(steal_now(&plan.cpus));
    let tick_ns = 1_000_000_000 / crate::env::clk_tck().max(1) as i64;

    let (rt_runtime_us, rt_period_us) = rt_limits();
    if eff.policy != Policy::Other {
        if let (Some(rt), Some(p)) = (rt_runtime_us, rt_period_us) {
            if rt >= 0 && rt < p {
                notes.push(format!(
                    "RT throttling is on ({rt} of every {p} µs): a real-time spinner is stopped for {} µs of every {} µs and that time counts as noise (the threads that ran in it are named; where the CPU idled, the trace may lack the switch to the next thread, and that stretch is unaccounted)",
                    p - rt,
                    p
                ));
            }
        }
    }
    if let Some(p) = &plan.gaps {
        match traced.as_mut().and_then(|t| t.gaplog.take()) {
            Some(l) => match l.finish() {
                Ok((_, false)) => {}
                Ok((rows, true)) => notes.push(format!(
                    "--gaps: {} holds the first {rows} rows only",
                    p.display()
                )),
                Err(e) => notes.push(format!("--gaps: not written: {e}")),
            },
            None => notes.push(format!(
                "--gaps: {} not written: the tracer did not start",
                p.display()
            )),
        }
    }
    let mut tallies = Vec::new();
    if let Some(t) = &traced {
        classification.lost_events = t.lost_events;
        classification.mounted_tracefs = t.mounted_tracefs;
        tallies = t.tallies.clone();
        if t.lost_events > 0 {
            notes.push(format!(
                "the trace lost {} events: the gaps in their windows are unclassified",
                t.lost_events
            ));
        }
    } else {
        notes.push(format!(
            "unclassified (no tracer): {}; every gap is measured but its source is unknown",
            classification.reason.clone().unwrap_or_default()
        ));
    }
    let mut cpus = Vec::with_capacity(n);
    for (i, r) in out.cpus.iter().enumerate() {
        let tally = tallies.get(i).cloned().unwrap_or_default();
        let mut by_source: BySource;
        if traced.is_some() {
            // Gaps the ring could not take: measured, not classified.
            by_source = tally.by_source();
            by_source.unclassified.count += r.unhanded.0;
            by_source.unclassified.total_ns += r.unhanded.1;
        } else {
            by_source = Tally::default().by_source();
            by_source.unclassified.count = r.count;
            by_source.unclassified.total_ns = r.noise_ns;
        }
        let measured = out.elapsed_ns.max(1);
        let windows_pct: Vec<f64> = r
            .windows_ns
            .iter()
            .enumerate()
            .filter(|(k, _)| (*k as i64) * plan.window_ns < out.elapsed_ns)
            .map(|(k, &ns)| {
                let from = k as i64 * plan.window_ns;
                // The last window holds what ran past the nominal end (a gap the run
                // ended in); an interrupted run's last window is short.
                let last = k + 1 == r.windows_ns.len() || from + plan.window_ns >= out.elapsed_ns;
                let to = if last {
                    out.elapsed_ns
                } else {
                    from + plan.window_ns
                };
                let len = (to - from).max(1);
                round3(100.0 * ns as f64 / len as f64)
            })
            .collect();
        let window_steal_ns: Vec<i64> = steal
            .windows(2)
            .take(windows_pct.len())
            .map_while(|w| {
                let a = w[0].as_ref()?.get(i)?;
                let b = w[1].as_ref()?.get(i)?;
                Some((b.saturating_sub(*a) as i64).saturating_mul(tick_ns))
            })
            .collect();
        let max_single_source = if traced.is_some() {
            tally
                .largest
                .filter(|l| l.1 == r.max_ns)
                .map(|l| l.2.as_str().to_string())
        } else {
            None
        };
        cpus.push(CpuNoise {
            cpu: r.cpu,
            noise_ns: r.noise_ns,
            noise_pct: round3(100.0 * r.noise_ns as f64 / measured as f64),
            noise_count: r.count,
            max_single_ns: r.max_ns,
            max_single_at_ns: r.max_at_ns,
            max_single_source,
            windows: windows_pct,
            window_steal_ns,
            loops: r.loops,
            by_source,
        });
    }
    Ok(NoiseReport {
        kind: KIND.into(),
        schema_version: SCHEMA_VERSION,
        tool: format!("latscope {}", env!("CARGO_PKG_VERSION")),
        started_unix_s,
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        labels: plan.labels.clone(),
        settings: NoiseSettingsJson {
            cpus: plan.cpus.clone(),
            policy: eff.policy.as_str().into(),
            priority: eff.priority,
            fallback_reason: eff.fallback_reason.clone(),
            duration_ns: plan.duration_ns,
            threshold_ns: plan.threshold_ns,
            window_ns: plan.window_ns,
            trace_events,
            memory_locked: locked,
            rt_runtime_us,
            rt_period_us,
        },
        interrupted: out.interrupted,
        elapsed_ns: out.elapsed_ns,
        started_mono_ns: out.t0,
        classification,
        notes,
        cpus,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
