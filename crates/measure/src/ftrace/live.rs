//! Tracing during a run: a private tracefs instance (nothing global is changed; it is
//! removed afterwards) with the timer, irq and sched events on the `mono` trace clock,
//! read by one thread that keeps a bounded window of events per CPU and correlates
//! them with every measured sample: each sample's interrupt and thread latency, and for
//! each sample above the threshold, what held the CPU.

use super::attribute::{attribute, handler_time, Spike};
use super::parse::{parse_line, Event};
use crate::engine::RawSample;
use latscope_core::stats::{Accumulator, Histogram, Location};
use std::collections::VecDeque;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Events enabled in the instance.
pub const EVENTS: [&str; 9] = [
    "timer/hrtimer_start",
    "timer/hrtimer_expire_entry",
    "timer/hrtimer_expire_exit",
    "irq/irq_handler_entry",
    "irq/irq_handler_exit",
    "irq/softirq_entry",
    "irq/softirq_exit",
    "sched/sched_switch",
    "sched/sched_waking",
];

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
}

/// A running tracer.
pub struct Tracer {
    instance: PathBuf,
    stop: Arc<AtomicBool>,
    tx: Option<Sender<RawSample>>,
    handle: Option<JoinHandle<TraceResult>>,
}

fn write(p: &Path, v: &str) -> Result<(), String> {
    std::fs::write(p, v).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

/// The tracefs mount point, mounting it at /sys/kernel/tracing when needed (root only).
fn tracefs() -> Result<PathBuf, String> {
    for p in ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"] {
        if Path::new(p).join("instances").is_dir() {
            return Ok(PathBuf::from(p));
        }
    }
    let target = c"/sys/kernel/tracing";
    // SAFETY: constant NUL-terminated strings; mount(2) does not keep the pointers.
    let r = unsafe {
        libc::mount(
            c"nodev".as_ptr(),
            target.as_ptr(),
            c"tracefs".as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r != 0 {
        return Err(format!(
            "tracefs is not mounted and mounting it at /sys/kernel/tracing failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(PathBuf::from("/sys/kernel/tracing"))
}

/// Why tracing cannot be used here, or None when it can (checked without changing
/// anything except mounting tracefs for root).
pub fn unusable_reason() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root: kernel tracepoints need root (tracefs)".into());
    }
    match tracefs() {
        Err(e) => Some(e),
        Ok(root) => EVENTS
            .iter()
            .find(|e| !root.join("events").join(e).join("enable").exists())
            .map(|e| format!("tracepoint {e} is missing in this kernel")),
    }
}

impl Tracer {
    /// Creates the instance and starts tracing the CPUs `cpus`. `threshold_ns`: samples
    /// above it are attributed. `lookback_ns`: how far before a timer's expiry its
    /// `hrtimer_start` may lie (one interval, at most the 50 ms stop slice).
    pub fn start(cpus: &[u32], threshold_ns: i64, lookback_ns: i64) -> Result<Tracer, String> {
        if let Some(why) = unusable_reason() {
            return Err(why);
        }
        let root = tracefs()?;
        let instance = root
            .join("instances")
            .join(format!("latscope-{}", std::process::id()));
        std::fs::create_dir(&instance)
            .map_err(|e| format!("cannot create trace instance {}: {e}", instance.display()))?;
        let setup = || -> Result<(), String> {
            write(&instance.join("trace_clock"), "mono")?;
            write(&instance.join("buffer_size_kb"), "8192")?;
            let mut mask = vec![0u32; (cpus.iter().max().copied().unwrap_or(0) / 32 + 1) as usize];
            for &c in cpus {
                mask[(c / 32) as usize] |= 1 << (c % 32);
            }
            let text: Vec<String> = mask.iter().rev().map(|w| format!("{w:08x}")).collect();
            write(&instance.join("tracing_cpumask"), &text.join(","))?;
            for e in EVENTS {
                write(&instance.join("events").join(e).join("enable"), "1")?;
            }
            write(&instance.join("tracing_on"), "1")
        };
        if let Err(e) = setup() {
            let _ = std::fs::remove_dir(&instance);
            return Err(e);
        }
        let pipe = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(instance.join("trace_pipe"))
            .map_err(|e| {
                let _ = write(&instance.join("tracing_on"), "0");
                let _ = std::fs::remove_dir(&instance);
                format!("cannot open trace_pipe: {e}")
            })?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let st = stop.clone();
        let inst = instance.clone();
        let ncpu = cpus.iter().max().copied().unwrap_or(0) as usize + 1;
        let handle = std::thread::Builder::new()
            .name("latscope-trace".into())
            .spawn(move || {
                let mut c = Correlator::new(ncpu, threshold_ns, lookback_ns, inst);
                c.run(pipe, rx, &st);
                c.finish()
            })
            .map_err(|e| format!("cannot start the trace reader: {e}"))?;
        Ok(Tracer {
            instance,
            stop,
            tx: Some(tx),
            handle: Some(handle),
        })
    }

    /// Where every sample must be sent (the sample writer forwards them).
    pub fn sender(&self) -> Option<Sender<RawSample>> {
        self.tx.clone()
    }

    /// Stops tracing, correlates what is left, removes the instance.
    pub fn finish(mut self) -> TraceResult {
        self.tx.take();
        let _ = write(&self.instance.join("tracing_on"), "0");
        self.stop.store(true, Ordering::SeqCst);
        let r = self.handle.take().map(|h| h.join());
        let _ = std::fs::remove_dir(&self.instance);
        match r {
            Some(Ok(r)) => r,
            _ => Correlator::new(1, 0, 0, self.instance.clone()).finish(),
        }
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(h) = self.handle.take() {
            let _ = write(&self.instance.join("tracing_on"), "0");
            self.stop.store(true, Ordering::SeqCst);
            let _ = h.join();
            let _ = std::fs::remove_dir(&self.instance);
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

impl Correlator {
    pub fn new(ncpu: usize, threshold: i64, lookback: i64, instance: PathBuf) -> Correlator {
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
            },
        }
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
            }
        }
    }

    fn push_event(&mut self, e: Event) {
        let c = e.cpu as usize;
        if c >= self.windows.len() {
            return;
        }
        self.res.events += 1;
        let w = &mut self.windows[c];
        if w.len() >= MAX_EVENTS_PER_CPU {
            w.pop_front();
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
        }
    }

    fn correlate(&mut self, c: usize, s: RawSample) {
        let w = self.windows[c].make_contiguous();
        let t0 = s.abs_ns;
        let wake = t0.saturating_add(s.latency_ns.max(0));
        let from = w.partition_point(|e| e.ts < t0.saturating_sub(self.lookback));
        let to = w.partition_point(|e| e.ts <= wake.saturating_add(1_000_000));
        let slice = &w[from..to];
        let loc = Location {
            at: s.intended_ns,
            source: s.cpu,
        };
        match handler_time(slice, t0, wake) {
            Some(h) => {
                let irq = (h - t0).clamp(0, s.latency_ns.max(0));
                self.res.irq.add(irq, loc);
                self.res.thread.add(s.latency_ns - irq, loc);
                self.res.matched += 1;
            }
            None => self.res.unmatched += 1,
        }
        if s.latency_ns > self.threshold {
            if self.res.spikes.len() >= MAX_SPIKES {
                self.res.spikes_dropped += 1;
            } else {
                self.res.spikes.push(attribute(
                    slice,
                    s.cpu,
                    t0,
                    s.intended_ns,
                    s.latency_ns,
                    &policy_of,
                ));
            }
        }
    }

    fn run(&mut self, mut pipe: std::fs::File, rx: Receiver<RawSample>, stop: &AtomicBool) {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let stopping = stop.load(Ordering::SeqCst);
            let mut got = false;
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        got = true;
                        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                        self.feed_text(&text);
                    }
                    Err(_) => break, // EAGAIN: nothing more for now
                }
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

    /// Correlates everything left and returns the result.
    pub fn finish(mut self) -> TraceResult {
        if !self.partial.is_empty() {
            self.feed_text("\n");
        }
        self.process(true);
        self.res
    }
}
