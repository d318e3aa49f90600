//! Task timing from an event recording (`latscope trace FILE --tasks`): per task its
//! jobs, start latency, response, execution, preemptions and CPU share; per interrupt
//! handler and for the tick the count and duration; the tick's duration against the
//! tasks it released (the series `fit --target tick` reads); lost events, never silent.
//!
//! * [`walk`]: the one pass over the events (the rules: what a job is, what "runs" means);
//! * [`summarize`]: durations as the shared summary (`latscope_core::stats`);
//! * [`result`]: the JSON result types;
//! * [`series`]: the tick and switch series as CSV.
//!
//! The definitions are in docs/event-traces.md, "Task timing".

pub mod result;
pub mod series;
pub mod summarize;
pub mod walk;

#[cfg(test)]
mod tests;

pub use result::{
    CountStats, IsrInstance, IsrTiming, JobInstance, LostEvents, LostWindow, RecordingInfo,
    ReleasedRow, StartedJobs, TaskTiming, TaskTimingResult,
};
pub use series::{
    switch_rows, tick_rows, write_switch_series, write_tick_series, SwitchRow, TickRow,
};
pub use walk::{walk, Timeline};

use latscope_core::events::{ActorKind, EventTrace, LossKind, LostEvents as Lost};
use latscope_core::stats::{Location, Samples};
use latscope_core::time::Picos;
use std::collections::BTreeMap;
use summarize::summarize;

const PS_NS: f64 = 1000.0;

/// Settings of the analysis.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worst instances listed per task and per handler.
    pub worst: usize,
    /// Most histogram bins per summary.
    pub bins: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { worst: 5, bins: 50 }
    }
}

/// True when `[a, b]`, spent by `actor` on `cpus`, touches a lost-event window: one that
/// overlaps it in time and has no CPU, names one of `cpus`, or names `actor` as the one
/// that ran unseen during an inferred hole.
pub fn touches_loss(lost: &[Lost], a: Picos, b: Picos, cpus: &[u16], actor: u32) -> bool {
    lost.iter().any(|l| l.touches(a, b, cpus, Some(actor)))
}

/// The lost-event windows sorted by start, so a job is checked against the few that can
/// overlap it rather than all of them (a recording with many inferred holes and many jobs
/// would otherwise cost their product).
struct LossIndex<'a> {
    by_from: Vec<&'a Lost>,
    /// `max_to[i]`: the latest end among `by_from[..=i]` (never decreases).
    max_to: Vec<Picos>,
}

impl<'a> LossIndex<'a> {
    fn new(lost: &'a [Lost]) -> LossIndex<'a> {
        let mut by_from: Vec<&Lost> = lost.iter().collect();
        by_from.sort_by_key(|l| l.from);
        let mut max_to = Vec::with_capacity(by_from.len());
        let mut m = Picos(i64::MIN);
        for l in &by_from {
            m = m.max(l.to);
            max_to.push(m);
        }
        LossIndex { by_from, max_to }
    }

    /// [`touches_loss`], looking only at windows that start by `b` and after the first
    /// one whose end (or an earlier window's) reaches `a`.
    fn touches(&self, a: Picos, b: Picos, cpus: &[u16], actor: u32) -> bool {
        let end = self.by_from.partition_point(|l| l.from <= b);
        let start = self.max_to[..end].partition_point(|&t| t < a);
        self.by_from[start..end]
            .iter()
            .any(|l| l.touches(a, b, cpus, Some(actor)))
    }
}

/// One tick of the recorder's clock in ps (1 ps when unknown), the resolution of every
/// figure.
pub fn resolution_ps(trace: &EventTrace) -> i64 {
    match trace.clock_hz {
        Some(hz) if hz > 0 => (1_000_000_000_000u64 / hz).max(1) as i64,
        _ => 1,
    }
}

/// Computes the task timing of a recording.
pub fn analyze(trace: &EventTrace, opts: &Options) -> TaskTimingResult {
    analyze_walked(trace, &walk(trace), opts)
}

/// [`analyze`] on a timeline [`walk`] already produced (the CLI also writes its series).
pub fn analyze_walked(trace: &EventTrace, tl: &Timeline, opts: &Options) -> TaskTimingResult {
    let res = resolution_ps(trace);
    let rel = |t: Picos| t.0.saturating_sub(trace.start.0);
    let ns = |t: Picos| rel(t) as f64 / PS_NS;
    let length = trace.end.0.saturating_sub(trace.start.0).max(0);
    let percent = |run: i64| {
        if length > 0 {
            100.0 * run as f64 / length as f64
        } else {
            0.0
        }
    };
    let mut tasks = Vec::new();
    let mut isrs = Vec::new();
    let mut idle_run = None::<i64>;
    let losses = LossIndex::new(&trace.lost);
    for (i, actor) in trace.actors.iter().enumerate() {
        let Some(a) = tl.actors.get(i) else { continue };
        match actor.kind {
            ActorKind::Idle => {
                idle_run = Some(idle_run.unwrap_or(0).saturating_add(a.run_ps));
            }
            ActorKind::Task => {
                let mut lat = Samples::with_capacity(a.jobs.len());
                let mut resp = Samples::with_capacity(a.jobs.len());
                let mut exec = Samples::with_capacity(a.jobs.len());
                let mut pre = CountStats::default();
                let mut suspect = 0;
                let mut instances = Vec::with_capacity(a.jobs.len());
                for (k, j) in a.jobs.iter().enumerate() {
                    let loc = Location {
                        at: rel(j.release),
                        source: k as u32,
                    };
                    let latency = j.first_run.map(|f| f.0.saturating_sub(j.release.0));
                    if let Some(l) = latency {
                        lat.push(l, loc);
                    }
                    let response = j.end.0.saturating_sub(j.release.0);
                    resp.push(response, loc);
                    exec.push(j.execution, loc);
                    let p = u64::from(j.preemptions);
                    pre.total += p;
                    if p > pre.max || pre.max_at_ns.is_none() {
                        pre.max = p;
                        pre.max_at_ns = Some(ns(j.release));
                    }
                    let s = losses.touches(j.release, j.end, &j.cpus, i as u32);
                    suspect += u64::from(s);
                    instances.push(JobInstance {
                        job: k as u64,
                        release_ns: ns(j.release),
                        start_latency_ns: latency.map(|l| l as f64 / PS_NS),
                        response_ns: response as f64 / PS_NS,
                        execution_ns: j.execution as f64 / PS_NS,
                        preemptions: p,
                        suspect: s,
                    });
                }
                // Largest response first; among equal ones the earliest.
                instances.sort_by(|x, y| {
                    y.response_ns
                        .total_cmp(&x.response_ns)
                        .then(x.job.cmp(&y.job))
                });
                instances.truncate(opts.worst);
                let mut gaps = Samples::new();
                for w in a.releases.windows(2) {
                    gaps.push(
                        w[1].0.saturating_sub(w[0].0),
                        Location {
                            at: rel(w[1]),
                            source: 0,
                        },
                    );
                }
                tasks.push(TaskTiming {
                    name: actor.name.clone(),
                    priority: actor.priority,
                    id: actor.id,
                    jobs: a.jobs.len() as u64,
                    cut_off: a.cut_off,
                    releases: a.releases.len() as u64,
                    suspect,
                    start_latency: summarize(&mut lat, res, opts.bins),
                    response: summarize(&mut resp, res, opts.bins),
                    execution: summarize(&mut exec, res, opts.bins),
                    preemptions: pre,
                    inter_arrival: summarize(&mut gaps, res, opts.bins),
                    run_ns: a.run_ps as f64 / PS_NS,
                    cpu_percent: percent(a.run_ps),
                    worst: instances,
                });
            }
            ActorKind::Isr | ActorKind::Tick => {
                let mut dur = Samples::with_capacity(a.runs.len());
                let mut gaps = Samples::new();
                let mut suspect = 0;
                let mut released = 0u64;
                let mut by: BTreeMap<u64, ReleasedRow> = BTreeMap::new();
                let mut started: BTreeMap<u32, u64> = BTreeMap::new();
                let mut inst = Vec::with_capacity(a.runs.len());
                for (k, r) in a.runs.iter().enumerate() {
                    dur.push(
                        r.duration,
                        Location {
                            at: rel(r.enter),
                            source: k as u32,
                        },
                    );
                    let s = losses.touches(r.enter, r.exit, &[r.cpu], i as u32);
                    suspect += u64::from(s);
                    released += u64::from(r.released);
                    for &t in &r.started {
                        *started.entry(t).or_insert(0) += 1;
                    }
                    let d = r.duration as f64 / PS_NS;
                    let row = by.entry(u64::from(r.released)).or_insert(ReleasedRow {
                        released: u64::from(r.released),
                        count: 0,
                        min_ns: d,
                        max_ns: d,
                        max_at_ns: ns(r.enter),
                    });
                    row.count += 1;
                    row.min_ns = row.min_ns.min(d);
                    if d > row.max_ns {
                        row.max_ns = d;
                        row.max_at_ns = ns(r.enter);
                    }
                    inst.push(IsrInstance {
                        at_ns: ns(r.enter),
                        duration_ns: d,
                        released: u64::from(r.released),
                        suspect: s,
                    });
                }
                for w in a.runs.windows(2) {
                    gaps.push(
                        w[1].enter.0.saturating_sub(w[0].enter.0),
                        Location {
                            at: rel(w[1].enter),
                            source: 0,
                        },
                    );
                }
                inst.sort_by(|x, y| {
                    y.duration_ns
                        .total_cmp(&x.duration_ns)
                        .then(x.at_ns.total_cmp(&y.at_ns))
                });
                inst.truncate(opts.worst);
                let tick = actor.kind == ActorKind::Tick;
                isrs.push(IsrTiming {
                    name: actor.name.clone(),
                    kind: if tick { "tick" } else { "isr" },
                    priority: actor.priority,
                    id: actor.id,
                    count: a.runs.len() as u64,
                    suspect,
                    duration: summarize(&mut dur, res, opts.bins),
                    inter_arrival: summarize(&mut gaps, res, opts.bins),
                    released,
                    started_jobs: started
                        .into_iter()
                        .filter_map(|(t, jobs)| {
                            trace.actors.get(t as usize).map(|x| StartedJobs {
                                task: x.name.clone(),
                                jobs,
                            })
                        })
                        .collect(),
                    run_ns: a.run_ps as f64 / PS_NS,
                    cpu_percent: percent(a.run_ps),
                    worst: inst,
                    by_released: if tick {
                        by.into_values().collect()
                    } else {
                        Vec::new()
                    },
                });
            }
        }
    }
    let cpus = trace.cpus.max(1);
    TaskTimingResult {
        kind: "tasks",
        schema_version: 1,
        recording: RecordingInfo {
            source: trace.source.clone(),
            format: trace.format.clone(),
            clock_hz: trace.clock_hz,
            resolution_ns: trace.clock_hz.map(|_| res as f64 / PS_NS),
            start_ns: trace.start.0 as f64 / PS_NS,
            end_ns: trace.end.0 as f64 / PS_NS,
            length_ns: length as f64 / PS_NS,
            cpus: trace.cpus,
            events: trace.events.len() as u64,
            unmatched_isr_exits: tl.unmatched_exits,
        },
        tasks,
        isrs,
        lost_events: LostEvents {
            count: trace.lost_total(),
            inferred: trace
                .lost
                .iter()
                .filter(|l| l.kind == LossKind::Inferred)
                .count() as u64,
            windows: trace
                .lost
                .iter()
                .map(|l| LostWindow {
                    count: l.count,
                    from_ns: ns(l.from),
                    to_ns: ns(l.to),
                    cpu: l.cpu,
                    inferred: l.kind == LossKind::Inferred,
                    actor: l
                        .actor
                        .and_then(|a| trace.actors.get(a as usize))
                        .map(|a| a.name.clone()),
                })
                .collect(),
        },
        idle_percent: idle_run.map(|r| percent(r) / f64::from(cpus)),
    }
}
