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
mod timing;
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

/// What every actor's figures are computed against: the recording, the settings, the
/// resolution, the length and the lost-event windows (indexed once for all actors).
struct Frame<'a> {
    trace: &'a EventTrace,
    opts: &'a Options,
    /// One recorder clock tick in ps.
    res: i64,
    /// The recording's length in ps (never negative).
    length: i64,
    losses: LossIndex<'a>,
}

impl<'a> Frame<'a> {
    fn new(trace: &'a EventTrace, opts: &'a Options) -> Frame<'a> {
        Frame {
            trace,
            opts,
            res: resolution_ps(trace),
            length: trace.end.0.saturating_sub(trace.start.0).max(0),
            losses: LossIndex::new(&trace.lost),
        }
    }
    /// A time in ps from the recording's start.
    fn rel(&self, t: Picos) -> i64 {
        t.0.saturating_sub(self.trace.start.0)
    }
    /// A time in ns from the recording's start.
    fn ns(&self, t: Picos) -> f64 {
        self.rel(t) as f64 / PS_NS
    }
    /// A run time as a share of the recording's length, in percent (0 for an empty one).
    fn percent(&self, run: i64) -> f64 {
        if self.length > 0 {
            100.0 * run as f64 / self.length as f64
        } else {
            0.0
        }
    }
    /// The gaps between consecutive times, each at the later one.
    fn gaps(&self, times: impl IntoIterator<Item = Picos>) -> Samples {
        let mut gaps = Samples::new();
        let mut prev = None::<Picos>;
        for t in times {
            if let Some(p) = prev {
                gaps.push(
                    t.0.saturating_sub(p.0),
                    Location {
                        at: self.rel(t),
                        source: 0,
                    },
                );
            }
            prev = Some(t);
        }
        gaps
    }
}

/// [`analyze`] on a timeline [`walk`] already produced (the CLI also writes its series).
pub fn analyze_walked(trace: &EventTrace, tl: &Timeline, opts: &Options) -> TaskTimingResult {
    let fr = Frame::new(trace, opts);
    let mut tasks = Vec::new();
    let mut isrs = Vec::new();
    let mut idle_run = None::<i64>;
    for (i, actor) in trace.actors.iter().enumerate() {
        let Some(a) = tl.actors.get(i) else { continue };
        match actor.kind {
            ActorKind::Idle => {
                idle_run = Some(idle_run.unwrap_or(0).saturating_add(a.run_ps));
            }
            ActorKind::Task => tasks.push(timing::task(&fr, i, actor, a)),
            ActorKind::Isr | ActorKind::Tick => isrs.push(timing::isr(&fr, i, actor, a)),
        }
    }
    let cpus = trace.cpus.max(1);
    TaskTimingResult {
        kind: "tasks",
        schema_version: 1,
        recording: recording(&fr, tl),
        tasks,
        isrs,
        lost_events: lost_events(&fr),
        idle_percent: idle_run.map(|r| fr.percent(r) / f64::from(cpus)),
    }
}

/// The recording's facts: source, clock, span, CPUs, events.
fn recording(fr: &Frame, tl: &Timeline) -> RecordingInfo {
    let trace = fr.trace;
    RecordingInfo {
        source: trace.source.clone(),
        format: trace.format.clone(),
        clock_hz: trace.clock_hz,
        resolution_ns: trace.clock_hz.map(|_| fr.res as f64 / PS_NS),
        start_ns: trace.start.0 as f64 / PS_NS,
        end_ns: trace.end.0 as f64 / PS_NS,
        length_ns: fr.length as f64 / PS_NS,
        cpus: trace.cpus,
        events: trace.events.len() as u64,
        unmatched_isr_exits: tl.unmatched_exits,
    }
}

/// Every lost-event window, in ns from the recording's start, with the total count.
fn lost_events(fr: &Frame) -> LostEvents {
    let trace = fr.trace;
    LostEvents {
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
                from_ns: fr.ns(l.from),
                to_ns: fr.ns(l.to),
                cpu: l.cpu,
                inferred: l.kind == LossKind::Inferred,
                actor: l
                    .actor
                    .and_then(|a| trace.actors.get(a as usize))
                    .map(|a| a.name.clone()),
            })
            .collect(),
    }
}
