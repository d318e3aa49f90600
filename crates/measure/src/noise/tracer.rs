//! The tracepoints during a noise run: a private tracefs instance (nothing global is
//! changed; the instance is removed afterwards, and tracefs unmounted when latscope
//! mounted it) with the irq, softirq, sched_switch, x86 vector and NMI events of the
//! measured CPUs on the `mono` clock, read by one thread that classifies each gap the
//! spinning threads hand over as soon as the trace is past it, keeping only the events
//! a gap still to come can need.

use super::classify::{classify, Gap, TS_RESOLUTION_NS};
use super::events::{parse, NoiseEvent, VECTORS};
use super::gaplog::GapLog;
use super::result::Tally;
use super::spin::{GapConsumer, Shared};
use crate::ftrace::live::{tracefs, TracefsMount};
use crate::ftrace::lost::parse_marker;
use crate::ftrace::tracefs_error::{create_instance, write, TracefsError};
use std::collections::VecDeque;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Event groups `--trace-events` chooses from, with their tracepoints.
pub fn group(name: &str) -> Option<Vec<String>> {
    let v = |l: &[&str]| Some(l.iter().map(|s| s.to_string()).collect());
    match name {
        "irq" => v(&["irq/irq_handler_entry", "irq/irq_handler_exit"]),
        "softirq" => v(&["irq/softirq_entry", "irq/softirq_exit"]),
        "sched" => v(&["sched/sched_switch"]),
        "nmi" => v(&["nmi/nmi_handler"]),
        "vectors" => Some(
            VECTORS
                .iter()
                .flat_map(|x| {
                    [
                        format!("irq_vectors/{x}_entry"),
                        format!("irq_vectors/{x}_exit"),
                    ]
                })
                .collect(),
        ),
        _ => None,
    }
}

pub const GROUPS: [&str; 5] = ["irq", "softirq", "sched", "nmi", "vectors"];

/// Events kept per CPU at most (the oldest are dropped first, and the gaps they would
/// have explained become unclassified).
pub const MAX_EVENTS_PER_CPU: usize = 1 << 20;
/// A gap is classified once the trace is this far past its end (the per-CPU buffers
/// reach `trace_pipe` in about time order, not exactly).
const SETTLE_NS: i64 = 50_000_000;
/// Gaps waiting for the trace per CPU at most; beyond, the oldest is classified with
/// what has arrived.
const MAX_PENDING: usize = 1 << 18;
/// Loss windows kept per CPU.
const MAX_LOSSES: usize = 4096;
/// A partial line longer than this is dropped.
const MAX_LINE: usize = 1 << 16;

/// A running tracer.
pub struct Tracer {
    instance: PathBuf,
    /// tracefs; unmounted when dropped if latscope mounted it (after the instance is
    /// removed, in `cleanup`).
    mount: Option<TracefsMount>,
    mounted: bool,
    cpus: Vec<u32>,
    pub events: Vec<String>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Reader>>,
}

/// What the tracer gives back.
pub struct Traced {
    pub tallies: Vec<Tally>,
    pub lost_events: u64,
    pub mounted_tracefs: bool,
    /// `--gaps`: the file, still to be committed.
    pub gaplog: Option<GapLog>,
}

impl Tracer {
    /// Starts tracing `cpus` with the tracepoints of `groups` that this kernel has (the
    /// required ones must exist). `consumers`: the gap rings, same order as `cpus`;
    /// `gaplog`: where every classified gap is written (`--gaps`).
    pub fn start(
        cpus: &[u32],
        groups: &[String],
        consumers: Vec<GapConsumer>,
        shared: Arc<Shared>,
        gaplog: Option<GapLog>,
    ) -> Result<Tracer, TracefsError> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(TracefsError::NotRoot);
        }
        let mount = tracefs()?;
        let (root, mounted) = (mount.path.clone(), mount.mounted_here());
        // On an early error `mount` is dropped, unmounting tracefs if it was mounted here.
        let mut events = Vec::new();
        for g in groups {
            let list = group(g).ok_or_else(|| TracefsError::UnknownGroup(g.clone()))?;
            let optional = g == "nmi" || g == "vectors";
            for e in list {
                if root.join("events").join(&e).join("enable").exists() {
                    events.push(e);
                } else if !optional {
                    return Err(TracefsError::MissingTracepoint(e));
                }
            }
        }
        let instance = root
            .join("instances")
            .join(format!("latscope-noise-{}", std::process::id()));
        create_instance(&instance)?;
        let cleanup = |e: TracefsError| {
            let _ = write(&instance.join("tracing_on"), "0");
            let _ = std::fs::remove_dir(&instance);
            e
        };
        let setup = || -> Result<std::fs::File, TracefsError> {
            write(&instance.join("trace_clock"), "mono")?;
            write(&instance.join("buffer_size_kb"), "8192")?;
            let max = cpus.iter().max().copied().unwrap_or(0);
            let mut mask = vec![0u32; (max / 32 + 1) as usize];
            for &c in cpus {
                mask[(c / 32) as usize] |= 1 << (c % 32);
            }
            let text: Vec<String> = mask.iter().rev().map(|w| format!("{w:08x}")).collect();
            write(&instance.join("tracing_cpumask"), &text.join(","))?;
            for e in &events {
                write(&instance.join("events").join(e).join("enable"), "1")?;
            }
            write(&instance.join("tracing_on"), "1")?;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(instance.join("trace_pipe"))
                .map_err(TracefsError::Pipe)
        };
        let pipe = setup().map_err(cleanup)?;
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        let mut reader = Reader::new(cpus, consumers, shared);
        reader.gaplog = gaplog;
        let handle = std::thread::Builder::new()
            .name("latscope-trace".into())
            .spawn(move || {
                reader.run(pipe, &st);
                reader
            })
            .map_err(|e| cleanup(TracefsError::Reader(e)))?;
        Ok(Tracer {
            instance,
            mount: Some(mount),
            mounted,
            cpus: cpus.to_vec(),
            events,
            stop,
            handle: Some(handle),
        })
    }

    /// Stops tracing (call after the spinning threads ended), classifies what is left,
    /// removes the instance and unmounts tracefs when it was mounted here.
    pub fn finish(mut self) -> Traced {
        let _ = write(&self.instance.join("tracing_on"), "0");
        self.stop.store(true, Ordering::SeqCst);
        let reader = self.handle.take().and_then(|h| h.join().ok());
        let mut lost_stats = 0u64;
        for &cpu in &self.cpus {
            if let Some(st) = crate::ftrace::lost::read_ring_stats(&self.instance, cpu) {
                lost_stats = lost_stats.saturating_add(st.lost());
            }
        }
        self.cleanup();
        match reader {
            Some(r) => Traced {
                lost_events: r.lost_events.max(lost_stats),
                tallies: r.tallies,
                mounted_tracefs: self.mounted,
                gaplog: r.gaplog,
            },
            None => Traced {
                tallies: Vec::new(),
                lost_events: lost_stats,
                mounted_tracefs: self.mounted,
                gaplog: None,
            },
        }
    }

    fn cleanup(&mut self) {
        let _ = std::fs::remove_dir(&self.instance);
        self.mount.take();
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = write(&self.instance.join("tracing_on"), "0");
            self.stop.store(true, Ordering::SeqCst);
            let _ = h.join();
            self.cleanup();
        }
    }
}

/// The reading and classifying thread's state. Public for tests, which feed it text.
pub struct Reader {
    cpus: Vec<u32>,
    consumers: Vec<GapConsumer>,
    shared: Arc<Shared>,
    events: Vec<VecDeque<NoiseEvent>>,
    pending: Vec<VecDeque<(Gap, i32)>>,
    /// Per CPU: windows `(from, to)` in which events were lost.
    losses: Vec<VecDeque<(i64, i64)>>,
    /// Per CPU: a loss was reported and its end is the next event.
    lost_from: Vec<Option<i64>>,
    last_ts: Vec<i64>,
    latest: i64,
    partial: String,
    pub tallies: Vec<Tally>,
    pub lost_events: u64,
    /// `--gaps`: every classified gap, as it is classified.
    pub gaplog: Option<GapLog>,
}

impl Reader {
    pub fn new(cpus: &[u32], consumers: Vec<GapConsumer>, shared: Arc<Shared>) -> Reader {
        let n = cpus.len();
        Reader {
            cpus: cpus.to_vec(),
            consumers,
            shared,
            events: vec![VecDeque::new(); n],
            pending: vec![VecDeque::new(); n],
            losses: vec![VecDeque::new(); n],
            lost_from: vec![None; n],
            last_ts: vec![0; n],
            latest: i64::MIN,
            partial: String::new(),
            tallies: vec![Tally::default(); n],
            lost_events: 0,
            gaplog: None,
        }
    }

    fn idx(&self, cpu: u32) -> Option<usize> {
        self.cpus.iter().position(|&c| c == cpu)
    }

    fn run(&mut self, mut pipe: std::fs::File, stop: &AtomicBool) {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let stopping = stop.load(Ordering::SeqCst);
            let before = crate::engine::now_ns();
            let got = crate::ftrace::lost::drain_pipe(&mut pipe, &mut buf, |t| self.feed_text(t));
            // Read to the end: every event recorded before `before` is in (give or
            // take the buffers' merge order), so the trace is past that time even on a
            // CPU without events.
            self.latest = self.latest.max(before.saturating_sub(SETTLE_NS));
            self.process(stopping);
            if stopping {
                break;
            }
            if !got {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    /// Takes text from `trace_pipe` (any split into pieces).
    pub fn feed_text(&mut self, text: &str) {
        self.partial.push_str(text);
        let Some(nl) = self.partial.rfind('\n') else {
            if self.partial.len() > MAX_LINE {
                self.partial.clear();
            }
            return;
        };
        let rest = self.partial.split_off(nl + 1);
        let chunk = std::mem::replace(&mut self.partial, rest);
        for line in chunk.lines() {
            if let Some(e) = parse(line) {
                self.push_event(e);
            } else if let Some((cpu, n)) = parse_marker(line) {
                self.lost_events = self.lost_events.saturating_add(n.unwrap_or(1));
                if let Some(i) = self.idx(cpu) {
                    self.lost_from[i] = Some(self.last_ts[i]);
                }
            }
        }
    }

    fn push_event(&mut self, e: NoiseEvent) {
        let Some(i) = self.idx(e.cpu) else { return };
        if let Some(from) = self.lost_from[i].take() {
            self.add_loss(i, from, e.ts);
        }
        let q = &mut self.events[i];
        if q.len() >= MAX_EVENTS_PER_CPU {
            if let Some(old) = q.pop_front() {
                let to = q.front().map(|f| f.ts).unwrap_or(e.ts);
                self.add_loss(i, old.ts, to);
            }
        }
        self.last_ts[i] = self.last_ts[i].max(e.ts);
        self.latest = self.latest.max(e.ts);
        self.events[i].push_back(e);
    }

    fn add_loss(&mut self, i: usize, from: i64, to: i64) {
        let l = &mut self.losses[i];
        if l.len() >= MAX_LOSSES {
            l.pop_front();
        }
        l.push_back((from, to));
    }

    /// Takes the gaps handed over and classifies those the trace is past (all of them
    /// when `all`), then forgets events and losses no gap to come can need.
    pub fn process(&mut self, all: bool) {
        // Read before the rings are drained: a thread publishes its last clock read
        // after handing over the gaps before it, so every gap that ended before that
        // read is drained below and keeps its events.
        let read_before: Vec<i64> = self
            .shared
            .last_read
            .iter()
            .map(|a| a.load(Ordering::Acquire))
            .collect();
        for (i, c) in self.consumers.iter_mut().enumerate() {
            while let Ok(g) = c.pop() {
                self.pending[i].push_back(g);
            }
        }
        for i in 0..self.cpus.len() {
            while let Some(&(gap, tid)) = self.pending[i].front() {
                let crowded = self.pending[i].len() > MAX_PENDING;
                if !all && !crowded && gap.end.saturating_add(SETTLE_NS) > self.latest {
                    break;
                }
                self.pending[i].pop_front();
                let lost = self.losses[i]
                    .iter()
                    .any(|&(a, b)| a <= gap.end && b >= gap.start);
                if lost {
                    self.tallies[i].add_unclassified(gap.start, gap.len());
                    if let Some(l) = &mut self.gaplog {
                        l.add_unclassified(gap);
                    }
                    continue;
                }
                let q = &self.events[i];
                let a = q.partition_point(|e| e.ts <= gap.start - TS_RESOLUTION_NS);
                // NMIs are stamped at their end: one ending after the gap may still
                // lie in it, so look a little past the end.
                let b = q.partition_point(|e| e.ts <= gap.end.saturating_add(1_000_000));
                let slice: Vec<NoiseEvent> = q.range(a..b.max(a)).cloned().collect();
                let parts = classify(gap, &slice, tid);
                self.tallies[i].add_gap(gap.start, gap.len(), &parts);
                if let Some(l) = &mut self.gaplog {
                    l.add(gap, &parts);
                }
            }
            // Nothing before the oldest pending gap or the spinner's last published
            // clock read can be needed any more.
            let mut keep_from = read_before.get(i).copied().unwrap_or(0);
            if let Some(&(g, _)) = self.pending[i].front() {
                keep_from = keep_from.min(g.start);
            }
            let keep_from = keep_from.saturating_sub(1_000_000);
            while self.events[i].front().is_some_and(|e| e.ts < keep_from) {
                self.events[i].pop_front();
            }
            while self.losses[i].front().is_some_and(|l| l.1 < keep_from) {
                self.losses[i].pop_front();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::classify::Source;

    fn line(ts_us: i64, body: &str) -> String {
        format!(
            "  burster-42 [001] d.h1. {}.{:06}: {body}\n",
            ts_us / 1_000_000,
            ts_us % 1_000_000
        )
    }

    #[test]
    fn the_reader_classifies_handed_gaps_and_marks_lost_windows() {
        let (mut tx, rx) = rtrb::RingBuffer::new(16);
        let shared = Shared::new(1);
        let mut r = Reader::new(&[1], vec![rx], shared);
        let us = 1_000;
        // Gap 1 (10..20 us): an interrupt in it. Gap 2 (100..200 us): nothing recorded.
        // Gap 3 (1000..1100 us) lies in a window the buffer lost events in.
        for (a, b) in [(10, 20), (100, 200), (1_000, 1_100)] {
            let g = Gap {
                cpu: 1,
                start: 5_000_000_000 + a * us,
                end: 5_000_000_000 + b * us,
            };
            tx.push((g, 77)).unwrap();
        }
        let base = 5_000_000_000 / us;
        let mut text = String::new();
        text += &line(base + 12, "irq_handler_entry: irq=36 name=virtio1-req.0");
        text += &line(base + 15, "irq_handler_exit: irq=36 ret=handled");
        text += &line(base + 900, "irq_handler_entry: irq=36 name=virtio1-req.0");
        text += "CPU:1 [LOST 12 EVENTS]\n";
        text += &line(base + 1_200, "irq_handler_exit: irq=36 ret=handled");
        // Split anywhere: a line in two pieces.
        let (x, y) = text.split_at(text.len() / 2 + 3);
        r.feed_text(x);
        r.feed_text(y);
        r.process(true);
        let b = r.tallies[0].by_source();
        assert_eq!((b.irq.count, b.irq.total_ns), (1, 3 * us));
        assert_eq!(b.irq.rows[0].irq, Some(36));
        assert_eq!((b.hw.count, b.hw.total_ns), (1, 100 * us));
        assert_eq!(
            (b.unclassified.count, b.unclassified.total_ns),
            (1, 100 * us)
        );
        assert_eq!(r.lost_events, 12);
        assert_eq!(r.tallies[0].largest.map(|l| l.2), Some(Source::Hw));
    }

    #[test]
    fn a_gap_waits_for_the_trace_to_pass_it() {
        let (mut tx, rx) = rtrb::RingBuffer::new(4);
        let mut r = Reader::new(&[1], vec![rx], Shared::new(1));
        let g = Gap {
            cpu: 1,
            start: 1_000_000,
            end: 2_000_000,
        };
        tx.push((g, 77)).unwrap();
        r.feed_text(&line(1_500, "softirq_entry: vec=1 [action=TIMER]"));
        r.process(false);
        assert_eq!(r.tallies[0].by_source(), Default::default(), "not yet");
        // The trace moves 50 ms past the gap: its events are all in.
        r.feed_text(&line(1_600, "softirq_exit: vec=1 [action=TIMER]"));
        r.feed_text(&line(60_000, "softirq_entry: vec=1 [action=TIMER]"));
        r.process(false);
        let b = r.tallies[0].by_source();
        assert_eq!((b.softirq.count, b.softirq.total_ns), (1, 100_000));
        assert_eq!(b.softirq.rows[0].name, "TIMER");
    }
}
