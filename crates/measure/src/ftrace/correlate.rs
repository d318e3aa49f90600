//! The correlation of trace events with measured samples, independent of where the
//! events come from (a live tracefs instance, or recorded text in tests): each sample's
//! interrupt and thread latency, and for each sample above the threshold, what held the
//! CPU — with the events the trace lost and the steal time placed in its window.

use super::attribute::{attribute, handler_time, Spike};
use super::lost::{parse_marker, CpuLoss, Gaps, RingStats};
use super::parse::{parse_line, Event, Kind};
use super::steal::StealTimeline;
use super::summary::TraceSummary;
use super::timerlat::{self, Pairer, Source};
use crate::engine::RawSample;
use latscope_core::stats::{Accumulator, Histogram, Location};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Events kept per CPU (older ones are dropped first; about 100 bytes each).
pub const MAX_EVENTS_PER_CPU: usize = 400_000;
/// Spikes kept (the rest are counted).
pub const MAX_SPIKES: usize = 1000;
/// A sample waits at most this long for the trace to catch up with it.
const MAX_WAIT: Duration = Duration::from_millis(1500);

/// What the tracer found.
#[derive(Debug)]
pub struct TraceResult {
    pub irq: Accumulator,
    pub thread: Accumulator,
    pub spikes: Vec<Spike>,
    pub spikes_dropped: u64,
    /// Samples whose timer handler was found in the trace / not found.
    pub matched: u64,
    pub unmatched: u64,
    pub events: u64,
    pub events_dropped: u64,
    /// Where the instance was.
    pub instance: PathBuf,
    /// Where the interrupt/thread split came from, and why not timerlat.
    pub source: Source,
    pub source_reason: Option<String>,
    /// Per traced CPU: what the trace lost.
    pub losses: Vec<CpuLoss>,
    pub timerlat_activations: u64,
}

impl TraceResult {
    /// Events the kernel lost, all CPUs.
    pub fn lost_events(&self) -> u64 {
        self.losses.iter().map(CpuLoss::lost).sum()
    }

    /// Whether any CPU lost events (also a marker without a count).
    pub fn lost_any(&self) -> bool {
        self.losses.iter().any(CpuLoss::any)
    }

    /// The `trace` object of the JSON.
    pub fn summary(&self) -> TraceSummary {
        TraceSummary {
            source: self.source.as_str().into(),
            source_reason: self.source_reason.clone(),
            events: self.events,
            window_dropped: self.events_dropped,
            lost_events: self.lost_events(),
            cpus: self.losses.clone(),
            samples_split: self.matched,
            samples_unsplit: self.unmatched,
            timerlat_activations: self.timerlat_activations,
            spikes_incomplete: self
                .spikes
                .iter()
                .filter(|s| s.incomplete.is_some())
                .count() as u64,
            spikes_not_kept: self.spikes_dropped,
        }
    }
}

/// The correlation of samples with events, independent of where the events come from
/// (tests feed it recorded text).
pub struct Correlator {
    windows: Vec<VecDeque<Event>>,
    pending: Vec<VecDeque<(RawSample, Instant)>>,
    threshold: i64,
    lookback: i64,
    partial: String,
    res: TraceResult,
    /// Where the trace lost events, per CPU.
    gaps: Gaps,
    /// Per CPU: the newest event dropped from a full window.
    popped_upto: Vec<i64>,
    /// Ring buffer counters read at the end, per CPU.
    ring: Vec<Option<RingStats>>,
    steal: StealTimeline,
    /// Spikes waiting for a steal reading after their window: (index, cpu, from, to).
    steal_waiting: Vec<(usize, u32, i64, i64)>,
    pairer: Pairer,
    /// CPUs that delivered at least one sample (for "all CPUs stalled together").
    sampled: Vec<bool>,
}

/// The process (thread group) of a thread, from /proc/TID/status; None once it is gone.
fn tgid_of(tid: i32) -> Option<i32> {
    if tid <= 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

fn policy_of(pid: i32) -> Option<String> {
    if pid <= 0 {
        return None;
    }
    // SAFETY: plain query of another task's policy; fails harmlessly if it is gone.
    let p = unsafe { libc::sched_getscheduler(pid) };
    match p {
        libc::SCHED_FIFO => Some("FIFO".into()),
        libc::SCHED_RR => Some("RR".into()),
        _ => None,
    }
}

/// How often the live reader samples the steal counter of /proc/stat.
const STEAL_EVERY: Duration = Duration::from_millis(20);

impl Correlator {
    pub fn new(ncpu: usize, threshold: i64, lookback: i64, instance: PathBuf) -> Correlator {
        let tick_ns = 1_000_000_000 / crate::env::clk_tck().max(1) as i64;
        Correlator {
            windows: (0..ncpu).map(|_| VecDeque::new()).collect(),
            pending: (0..ncpu).map(|_| VecDeque::new()).collect(),
            threshold,
            lookback: lookback.clamp(0, 60_000_000) + 2_000_000,
            partial: String::new(),
            res: TraceResult {
                irq: Accumulator::new(Histogram::for_latency_ns()),
                thread: Accumulator::new(Histogram::for_latency_ns()),
                spikes: Vec::new(),
                spikes_dropped: 0,
                matched: 0,
                unmatched: 0,
                events: 0,
                events_dropped: 0,
                instance,
                source: Source::Tracepoints,
                source_reason: None,
                losses: Vec::new(),
                timerlat_activations: 0,
            },
            gaps: Gaps::new(ncpu),
            popped_upto: vec![i64::MIN; ncpu],
            ring: vec![None; ncpu],
            steal: StealTimeline::new(tick_ns),
            steal_waiting: Vec::new(),
            pairer: Pairer::new(ncpu),
            sampled: vec![false; ncpu],
        }
    }

    /// Where the interrupt/thread split comes from (tracepoints unless told).
    pub fn set_source(&mut self, source: Source, reason: Option<String>) {
        self.res.source = source;
        self.res.source_reason = reason;
    }

    /// Adds trace text (any chunking: partial lines are kept for the next call).
    pub fn feed_text(&mut self, text: &str) {
        self.partial.push_str(text);
        let Some(last_nl) = self.partial.rfind('\n') else {
            return;
        };
        let rest = self.partial.split_off(last_nl + 1);
        let chunk = std::mem::replace(&mut self.partial, rest);
        for line in chunk.lines() {
            if let Some(e) = parse_line(line) {
                self.push_event(e);
            } else if let Some((cpu, n)) = parse_marker(line) {
                self.gaps.marker(cpu, n);
            } else if let Some(r) = timerlat::parse_record(line) {
                self.gaps.event(r.cpu, r.ts);
                if self.res.source == Source::Timerlat {
                    if let Some(a) = self.pairer.push(r) {
                        let loc = Location {
                            at: a.expiry,
                            source: a.cpu,
                        };
                        self.res.irq.add(a.irq_latency_ns, loc);
                        self.res.thread.add(a.thread_latency_ns, loc);
                        self.res.timerlat_activations += 1;
                    }
                }
            }
        }
    }

    /// The ring buffer's loss counters of `cpu` at the end of the run.
    pub fn ring_stats(&mut self, cpu: u32, stats: RingStats) {
        if let Some(r) = self.ring.get_mut(cpu as usize) {
            *r = Some(stats);
        }
    }

    /// A reading of /proc/stat taken at `mono_ns` (CLOCK_MONOTONIC, the trace clock):
    /// spikes whose window it closes get their steal.
    pub fn push_steal(&mut self, mono_ns: i64, proc_stat: &str) {
        self.steal.push(mono_ns, proc_stat);
        self.place_steal();
    }

    fn place_steal(&mut self) {
        let Some(latest) = self.steal.latest() else {
            return;
        };
        let steal = &self.steal;
        let spikes = &mut self.res.spikes;
        self.steal_waiting.retain(|&(i, cpu, from, to)| {
            if to > latest {
                return true;
            }
            if let (Some(st), Some(sp)) = (steal.within(cpu, from, to), spikes.get_mut(i)) {
                sp.set_steal(st);
            }
            false
        });
    }

    fn push_event(&mut self, e: Event) {
        let c = e.cpu as usize;
        if c >= self.windows.len() {
            return;
        }
        self.res.events += 1;
        self.gaps.event(e.cpu, e.ts);
        let w = &mut self.windows[c];
        if w.len() >= MAX_EVENTS_PER_CPU {
            if let Some(old) = w.pop_front() {
                self.popped_upto[c] = old.ts;
            }
            self.res.events_dropped += 1;
        }
        w.push_back(e);
    }

    /// Queues one measured sample (`intended_abs_ns` absolute CLOCK_MONOTONIC).
    pub fn push_sample(&mut self, s: RawSample) {
        let c = s.cpu as usize;
        if c < self.pending.len() {
            self.pending[c].push_back((s, Instant::now()));
        }
    }

    /// Correlates the samples the trace has caught up with (all of them when `all`).
    pub fn process(&mut self, all: bool) {
        let mut oldest_needed = i64::MAX;
        for c in 0..self.pending.len() {
            let latest = self.windows[c].back().map(|e| e.ts).unwrap_or(i64::MIN);
            while let Some((s, since)) = self.pending[c].front() {
                let wake = s.abs_ns.saturating_add(s.latency_ns);
                let ready =
                    all || latest > wake.saturating_add(1_000_000) || since.elapsed() > MAX_WAIT;
                if !ready {
                    break;
                }
                let s = *s;
                self.pending[c].pop_front();
                self.correlate(c, s);
            }
            // Keep what the next pending sample (or a lookback) may still need.
            let keep_from = self.pending[c]
                .front()
                .map(|(s, _)| s.abs_ns)
                .unwrap_or(latest)
                .saturating_sub(self.lookback + 100_000_000);
            let w = &mut self.windows[c];
            while w.front().is_some_and(|e| e.ts < keep_from) && w.len() > 1 {
                w.pop_front();
            }
            self.gaps.prune(c as u32, keep_from);
            oldest_needed = oldest_needed.min(keep_from);
        }
        for &(_, _, from, _) in &self.steal_waiting {
            oldest_needed = oldest_needed.min(from);
        }
        if oldest_needed != i64::MAX {
            self.steal.prune(oldest_needed);
        }
    }

    fn correlate(&mut self, c: usize, s: RawSample) {
        if let Some(x) = self.sampled.get_mut(c) {
            *x = true;
        }
        let w = self.windows[c].make_contiguous();
        let t0 = s.abs_ns;
        let wake = t0.saturating_add(s.latency_ns.max(0));
        let first = t0.saturating_sub(self.lookback);
        let from = w.partition_point(|e| e.ts < first);
        let to = w.partition_point(|e| e.ts <= wake.saturating_add(1_000_000));
        let slice = &w[from..to];
        let loc = Location {
            at: s.intended_ns,
            source: s.cpu,
        };
        match handler_time(slice, t0, wake) {
            Some(h) => {
                let irq = (h - t0).clamp(0, s.latency_ns.max(0));
                if self.res.source == Source::Tracepoints {
                    self.res.irq.add(irq, loc);
                    self.res.thread.add(s.latency_ns - irq, loc);
                }
                self.res.matched += 1;
            }
            None => self.res.unmatched += 1,
        }
        if s.latency_ns > self.threshold {
            if self.res.spikes.len() >= MAX_SPIKES {
                self.res.spikes_dropped += 1;
            } else {
                let mut sp = attribute(slice, s.cpu, t0, s.intended_ns, s.latency_ns, &policy_of);
                sp.resolve_pids(&tgid_of);
                // The state at the expiry depends on the events since the last traced
                // switch before it (or since the start of the slice): those must be
                // intact, and so must the window itself.
                let known_from = slice
                    .iter()
                    .rev()
                    .find(|e| e.ts <= t0 && matches!(e.kind, Kind::Switch { .. }))
                    .map(|e| e.ts)
                    .unwrap_or(first);
                if let Some((n, events)) = self.gaps.within(s.cpu, known_from, wake) {
                    let count = if events > 0 {
                        format!("{events} events")
                    } else {
                        "events (count not given)".into()
                    };
                    sp.mark_incomplete(
                        events,
                        format!(
                            "the kernel's trace buffer of cpu {} lost {count} in {n} place(s) of this window",
                            s.cpu
                        ),
                    );
                }
                if self.popped_upto[c] >= first {
                    sp.mark_incomplete(
                        0,
                        format!(
                            "latscope's event window of cpu {} was full and dropped events of this window",
                            s.cpu
                        ),
                    );
                }
                self.res.spikes.push(sp);
                self.steal_waiting
                    .push((self.res.spikes.len() - 1, s.cpu, t0, wake));
                self.place_steal();
            }
        }
    }

    pub(crate) fn run(
        &mut self,
        mut pipe: std::fs::File,
        rx: Receiver<RawSample>,
        stop: &AtomicBool,
    ) {
        let mut buf = vec![0u8; 1 << 16];
        let mut last_steal: Option<Instant> = None;
        loop {
            let stopping = stop.load(Ordering::SeqCst);
            let got = super::lost::drain_pipe(&mut pipe, &mut buf, |t| self.feed_text(t));
            if stopping || last_steal.is_none_or(|t| t.elapsed() >= STEAL_EVERY) {
                if let Ok(text) = std::fs::read_to_string("/proc/stat") {
                    self.push_steal(crate::engine::now_ns(), &text);
                }
                last_steal = Some(Instant::now());
            }
            while let Ok(s) = rx.try_recv() {
                self.push_sample(s);
            }
            self.process(false);
            if stopping {
                break;
            }
            if !got {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        while let Ok(s) = rx.try_recv() {
            self.push_sample(s);
        }
    }

    /// Correlates everything left and returns the result. Losses the ring buffer
    /// counted beyond what the markers placed are put on every spike of that CPU.
    pub fn finish(mut self) -> TraceResult {
        if !self.partial.is_empty() {
            self.feed_text("\n");
        }
        self.process(true);
        self.place_steal();
        let ncpu = self.windows.len();
        for c in 0..ncpu {
            let loss = CpuLoss::new(
                c as u32,
                self.gaps.markers[c],
                self.gaps.marked_events[c],
                self.ring[c],
            );
            if loss.unplaced_events > 0 {
                for sp in self.res.spikes.iter_mut().filter(|s| s.cpu as usize == c) {
                    sp.mark_incomplete(
                        0,
                        format!(
                            "the kernel's trace buffer of cpu {c} lost {} events at times the trace does not show",
                            loss.unplaced_events
                        ),
                    );
                }
            }
            if loss.any() || self.ring[c].is_some() {
                self.res.losses.push(loss);
            }
        }
        let measured = self.sampled.iter().filter(|&&x| x).count();
        super::stalls::group(&mut self.res.spikes, measured);
        self.res
    }
}
