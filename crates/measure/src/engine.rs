//! The measuring engine: one pinned thread per CPU waits for its timer, reads
//! CLOCK_MONOTONIC on wake-up and records `wake − intended` in nanoseconds.
//!
//! Rules on a measuring thread once it is past its start barrier: no allocation, no
//! locks, no I/O. Everything it touches (accumulator, exact µs bins, the list of
//! overflow cycles, the raw-sample ring) is allocated before the barrier; raw samples
//! leave through a lock-free single-producer ring and a full ring counts a drop.

use crate::settings::{OverrunPolicy, Policy, Settings, Stop, TimerMode};
use crate::thread_error::ThreadError;
use crate::MeasureError;
use latscope_core::stats::{Accumulator, Histogram, Location};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// One raw sample as it leaves a measuring thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawSample {
    pub cpu: u32,
    /// Phase of the session (0 for a plain run; sweep point index; compare: 0 idle, 1 loaded).
    pub phase: u16,
    /// 1 when this period was missed and recorded by the catch-up policy.
    pub missed: u16,
    /// Intended wake time, ns since the phase start.
    pub intended_ns: i64,
    pub latency_ns: i64,
    /// Intended wake time on CLOCK_MONOTONIC (for correlation with a trace; not written
    /// to the sample file).
    pub abs_ns: i64,
}

pub type SampleProducer = rtrb::Producer<RawSample>;

/// Overflow cycle numbers kept per CPU for the cyclictest histogram footer.
pub const OVERFLOW_CYCLES_KEPT: usize = 1024;

/// What one CPU's thread measured.
#[derive(Clone, Debug)]
pub struct CpuResult {
    pub cpu: u32,
    pub acc: Accumulator,
    /// Exact 1 µs bins (`lat_ns / 1000`, negatives in bin 0), cyclictest `-h` style.
    pub us_bins: Vec<u64>,
    /// Samples at or above `us_bins.len()` µs.
    pub us_overflow: u64,
    /// Cycle numbers (periods since the phase start) of the first overflowing samples.
    pub us_overflow_cycles: Vec<u64>,
    /// Periods whose intended wake time passed before the thread woke for an earlier one.
    pub overruns: u64,
    /// Most periods missed in a row.
    pub longest_overrun_run: u64,
    /// Timer wake-ups (calls that slept).
    pub wakes: u64,
    /// Raw samples lost because the ring to the writer thread was full.
    pub dropped_samples: u64,
    /// The thread's timer slack after PR_SET_TIMERSLACK, as read back (ns).
    pub timer_slack_ns: Option<u64>,
}

impl CpuResult {
    fn new(cpu: u32, us_bins: usize) -> CpuResult {
        CpuResult {
            cpu,
            acc: Accumulator::new(Histogram::for_latency_ns()),
            us_bins: vec![0; us_bins],
            us_overflow: 0,
            us_overflow_cycles: Vec::with_capacity(OVERFLOW_CYCLES_KEPT),
            overruns: 0,
            longest_overrun_run: 0,
            wakes: 0,
            dropped_samples: 0,
            timer_slack_ns: None,
        }
    }
}

/// Scheduling actually applied to the measuring threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effective {
    pub policy: Policy,
    pub priority: i32,
    /// Why the requested real-time policy was not used (only with --allow-fallback).
    pub fallback_reason: Option<String>,
}

/// Result of one phase.
#[derive(Clone, Debug)]
pub struct PhaseResult {
    pub cpus: Vec<CpuResult>,
    pub elapsed_ns: i64,
    /// The stop flag ended the phase before its duration or loop count.
    pub interrupted: bool,
}

/// Live figures published by the measuring threads (relaxed atomics, no locks).
#[derive(Debug, Default)]
pub struct Live {
    pub samples: AtomicU64,
    pub max_ns: AtomicI64,
}

/// What the progress callback sees, about four times a second.
#[derive(Clone, Debug)]
pub struct Progress {
    pub elapsed_ns: i64,
    pub planned_ns: Option<i64>,
    pub samples: u64,
    pub max_ns: i64,
}

#[inline]
#[allow(clippy::unnecessary_cast)] // time_t / c_long are i32 on 32-bit targets
pub fn now_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64
}

#[inline]
fn ts_of(ns: i64) -> libc::timespec {
    libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    }
}

fn errno_text() -> String {
    std::io::Error::last_os_error().to_string()
}

/// Tries the requested policy on a short-lived probe thread. Returns the scheduling the
/// measuring threads will use, or an error when RT is refused and fallback is not allowed.
pub fn decide_policy(s: &Settings) -> Result<Effective, MeasureError> {
    if s.policy == Policy::Other {
        return Ok(Effective {
            policy: Policy::Other,
            priority: 0,
            fallback_reason: None,
        });
    }
    let (pol, prio) = (s.policy.libc(), s.priority);
    let probe = std::thread::spawn(move || {
        let p = libc::sched_param {
            sched_priority: prio,
        };
        // SAFETY: pid 0 is the calling thread; p is a valid sched_param.
        let r = unsafe { libc::sched_setscheduler(0, pol, &p) };
        if r == 0 {
            Ok(())
        } else {
            Err(errno_text())
        }
    });
    let outcome = probe
        .join()
        .map_err(|_| MeasureError::Setup("scheduling probe thread panicked".into()))?;
    match outcome {
        Ok(()) => Ok(Effective {
            policy: s.policy,
            priority: s.priority,
            fallback_reason: None,
        }),
        Err(e) => {
            let why = format!(
                "SCHED_{} priority {} refused: {e} (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO >= {})",
                s.policy.as_str().to_uppercase(),
                s.priority,
                s.priority
            );
            if s.allow_fallback {
                Ok(Effective {
                    policy: Policy::Other,
                    priority: 0,
                    fallback_reason: Some(why),
                })
            } else {
                Err(MeasureError::RtRefused(why))
            }
        }
    }
}

/// Outcome of `mlockall`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemLock {
    pub locked: bool,
    pub detail: String,
}

/// Locks current and future memory when that cannot starve later allocations: with
/// MCL_FUTURE and a finite RLIMIT_MEMLOCK (no root), new thread stacks would fail.
pub fn lock_memory() -> MemLock {
    let (soft, _) = crate::env::rlimit(libc::RLIMIT_MEMLOCK);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root && soft != Some(u64::MAX) {
        return MemLock {
            locked: false,
            detail: format!(
                "not attempted: not root and RLIMIT_MEMLOCK is {}",
                crate::env::fmt_limit_bytes(soft)
            ),
        };
    }
    // SAFETY: plain system call with flag arguments.
    let r = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if r == 0 {
        MemLock {
            locked: true,
            detail: "mlockall(MCL_CURRENT|MCL_FUTURE) done".into(),
        }
    } else {
        MemLock {
            locked: false,
            detail: format!("mlockall failed: {}", errno_text()),
        }
    }
}

const STACK_SIZE: usize = 1 << 20;
const PREFAULT_BYTES: usize = 512 * 1024;

/// Touches the stack pages the thread may use so that no page fault happens later.
#[inline(never)]
fn prefault_stack() {
    let mut buf = [0u8; PREFAULT_BYTES];
    let mut i = 0;
    while i < PREFAULT_BYTES {
        // SAFETY: i is within buf.
        unsafe { std::ptr::write_volatile(buf.as_mut_ptr().add(i), 1) };
        i += 4096;
    }
    std::hint::black_box(&buf);
}

struct Ctx {
    settings: Settings,
    eff: Effective,
    phase: u16,
    stop: Arc<AtomicBool>,
    abort: AtomicBool,
    t0: AtomicI64,
    setup_barrier: Barrier,
    start_barrier: Barrier,
    finished: AtomicUsize,
    live: Vec<Live>,
    /// `--listen` / `--openmetrics` counters, cumulative over the phases of a run.
    metrics: Option<Arc<crate::metrics::LiveMetrics>>,
}

/// Runs one measurement phase on every selected CPU and returns when it ends (duration,
/// loops, or the stop flag). `producers` (one per CPU, same order as `settings.cpus`)
/// are lent to the threads and handed back.
pub fn run_phase(
    settings: &Settings,
    eff: &Effective,
    phase: u16,
    stop: &Arc<AtomicBool>,
    producers: &mut [Option<SampleProducer>],
    progress: &mut dyn FnMut(&Progress),
) -> Result<PhaseResult, MeasureError> {
    run_phase_live(settings, eff, phase, stop, producers, progress, None)
}

/// [`run_phase`] that also counts every sample and overrun in `metrics` (same CPU
/// order as `settings.cpus`), for live metrics read while the phase runs.
pub fn run_phase_live(
    settings: &Settings,
    eff: &Effective,
    phase: u16,
    stop: &Arc<AtomicBool>,
    producers: &mut [Option<SampleProducer>],
    progress: &mut dyn FnMut(&Progress),
    metrics: Option<&Arc<crate::metrics::LiveMetrics>>,
) -> Result<PhaseResult, MeasureError> {
    let n = settings.cpus.len();
    let ctx = Arc::new(Ctx {
        settings: settings.clone(),
        eff: eff.clone(),
        phase,
        stop: stop.clone(),
        abort: AtomicBool::new(false),
        t0: AtomicI64::new(0),
        setup_barrier: Barrier::new(n + 1),
        start_barrier: Barrier::new(n + 1),
        finished: AtomicUsize::new(0),
        live: (0..n).map(|_| Live::default()).collect(),
        metrics: metrics.cloned(),
    });

    // The measuring threads must not take SIGINT/SIGTERM: block them while spawning so
    // the threads inherit the mask, and let the calling thread keep handling them.
    let old_mask = block_stop_signals();
    let mut handles = Vec::with_capacity(n);
    let mut spawn_error = None;
    for (i, &cpu) in settings.cpus.iter().enumerate() {
        let c = ctx.clone();
        let prod = producers.get_mut(i).and_then(Option::take);
        let res = CpuResult::new(cpu, settings.us_bins);
        let h = std::thread::Builder::new()
            .name(format!("latscope-cpu{cpu}"))
            .stack_size(STACK_SIZE)
            .spawn(move || measure_thread(&c, i, res, prod));
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                spawn_error = Some(format!("cannot start the thread for CPU {cpu}: {e}"));
                break;
            }
        }
    }
    restore_signals(old_mask);
    if let Some(e) = spawn_error {
        // Threads already started are waiting at the setup barrier: they cannot be
        // released without the full count, so release them through extra waits.
        ctx.abort.store(true, Ordering::SeqCst);
        for _ in handles.len()..n {
            std::thread::spawn({
                let c = ctx.clone();
                move || {
                    c.setup_barrier.wait();
                    c.start_barrier.wait();
                }
            });
        }
        ctx.setup_barrier.wait();
        ctx.start_barrier.wait();
        for h in handles {
            let _ = h.join();
        }
        return Err(MeasureError::Setup(e));
    }

    ctx.setup_barrier.wait();
    ctx.t0.store(now_ns(), Ordering::SeqCst);
    ctx.start_barrier.wait();
    let t0 = ctx.t0.load(Ordering::SeqCst);
    let planned = match settings.stop {
        Stop::Duration(d) => Some(d),
        Stop::Loops(l) => Some(l.saturating_mul(settings.interval_ns as u64) as i64),
    };

    let mut last_progress = t0;
    while ctx.finished.load(Ordering::Acquire) < n {
        std::thread::sleep(Duration::from_millis(20));
        let now = now_ns();
        if now - last_progress >= 250_000_000 {
            last_progress = now;
            progress(&snapshot(&ctx, now - t0, planned));
        }
    }
    let elapsed = now_ns() - t0;
    progress(&snapshot(&ctx, elapsed, planned));

    let mut cpus = Vec::with_capacity(n);
    let mut setup_errors = Vec::new();
    for (i, h) in handles.into_iter().enumerate() {
        let (res, prod, err) = h
            .join()
            .map_err(|_| MeasureError::Setup("a measuring thread panicked".into()))?;
        if let Some(slot) = producers.get_mut(i) {
            *slot = prod;
        }
        if let Some(e) = err {
            setup_errors.push(e.to_string());
        }
        cpus.push(res);
    }
    if !setup_errors.is_empty() {
        return Err(MeasureError::Setup(setup_errors.join("; ")));
    }
    Ok(PhaseResult {
        cpus,
        elapsed_ns: elapsed,
        interrupted: stop.load(Ordering::SeqCst),
    })
}

fn snapshot(ctx: &Ctx, elapsed: i64, planned: Option<i64>) -> Progress {
    Progress {
        elapsed_ns: elapsed,
        planned_ns: planned,
        samples: ctx
            .live
            .iter()
            .map(|l| l.samples.load(Ordering::Relaxed))
            .sum(),
        max_ns: ctx
            .live
            .iter()
            .map(|l| l.max_ns.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0),
    }
}

pub(crate) fn block_stop_signals() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; the calls only read/write the given sets.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    }
}

pub(crate) fn restore_signals(old: libc::sigset_t) {
    // SAFETY: restores a mask previously returned by pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

/// Per-thread setup: affinity, scheduling, timer slack, pre-faulted stack.
pub(crate) fn setup_thread(
    cpu: u32,
    eff: &Effective,
    slack_ns: u64,
) -> Result<Option<u64>, ThreadError> {
    // SAFETY: cpu_set_t is plain data; CPU_SET bounds are checked below.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu as usize >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
            return Err(ThreadError::BeyondMask(cpu));
        }
        libc::CPU_SET(cpu as usize, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(ThreadError::Pin {
                cpu,
                errno: errno_text(),
            });
        }
        let p = libc::sched_param {
            sched_priority: eff.priority,
        };
        if libc::sched_setscheduler(0, eff.policy.libc(), &p) != 0 {
            return Err(ThreadError::Scheduling {
                policy: eff.policy.as_str().to_uppercase(),
                priority: eff.priority,
                cpu,
                errno: errno_text(),
            });
        }
        // On this thread only (the slack is per thread). 0 would mean "back to the
        // default", so the settings never hold 0; 1 ns is the smallest slack there is.
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            slack_ns.max(1) as libc::c_ulong,
            0,
            0,
            0,
        );
        let slack = libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0);
        prefault_stack();
        Ok((slack >= 0).then_some(slack as u64))
    }
}

type ThreadOut = (CpuResult, Option<SampleProducer>, Option<ThreadError>);

fn measure_thread(
    ctx: &Ctx,
    idx: usize,
    mut res: CpuResult,
    mut prod: Option<SampleProducer>,
) -> ThreadOut {
    let setup = setup_thread(res.cpu, &ctx.eff, ctx.settings.timer_slack_ns);
    let mut err = None;
    match setup {
        Ok(slack) => res.timer_slack_ns = slack,
        Err(e) => {
            err = Some(e);
            ctx.abort.store(true, Ordering::SeqCst);
        }
    }
    ctx.setup_barrier.wait();
    ctx.start_barrier.wait();
    if !ctx.abort.load(Ordering::SeqCst) {
        let t0 = ctx.t0.load(Ordering::SeqCst);
        let mut rec = Recorder {
            res: &mut res,
            prod: prod.as_mut(),
            live: &ctx.live[idx],
            metrics: ctx.metrics.as_ref().and_then(|m| m.cpu(idx)),
            t0,
            phase: ctx.phase,
            cycle: 0,
            end: limits(ctx, t0).0,
            batch: [(0, 0, 0); BATCH],
            batched: 0,
            count: 0,
        };
        match ctx.settings.mode {
            TimerMode::Absolute => run_absolute(ctx, &mut rec),
            TimerMode::Relative => run_relative(ctx, &mut rec),
            TimerMode::Timerfd => {
                if let Err(e) = run_timerfd(ctx, &mut rec) {
                    err = Some(e);
                }
            }
        }
    }
    ctx.finished.fetch_add(1, Ordering::Release);
    (res, prod, err)
}

struct Recorder<'a> {
    res: &'a mut CpuResult,
    prod: Option<&'a mut SampleProducer>,
    live: &'a Live,
    metrics: Option<&'a crate::metrics::CpuCounters>,
    t0: i64,
    phase: u16,
    cycle: u64,
    /// Last intended time that belongs to the run (periods after it are not counted).
    end: i64,
    /// Samples not yet in the histograms: (latency, time since t0, cycle), `batched`
    /// of them.
    batch: [(i64, i64, u64); BATCH],
    batched: usize,
    /// Samples recorded (batched ones included).
    count: u64,
}

/// Samples a measuring thread keeps before adding them to its histograms. After each
/// sleep the caches are cold (other tasks ran meanwhile); adding to the HDR histogram,
/// the moments and the 1 µs bins once per batch touches their cache lines once per
/// batch instead of after every wake-up. The live count and maximum stay per sample.
const BATCH: usize = 32;

impl Drop for Recorder<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl Recorder<'_> {
    /// Records one period: latency `now - intended`. Allocation-free.
    #[inline]
    fn record(&mut self, now: i64, intended: i64, missed: bool) {
        let lat = now - intended;
        let at = intended - self.t0;
        self.batch[self.batched] = (lat, at, self.cycle);
        self.batched += 1;
        if self.batched == BATCH {
            self.flush();
        }
        self.cycle += 1;
        self.count += 1;
        if let Some(m) = self.metrics {
            m.record(lat);
        }
        self.live.samples.store(self.count, Ordering::Relaxed);
        if lat > self.live.max_ns.load(Ordering::Relaxed) {
            self.live.max_ns.store(lat, Ordering::Relaxed);
        }
        if let Some(p) = self.prod.as_mut() {
            let r = &mut *self.res;
            let s = RawSample {
                cpu: r.cpu,
                phase: self.phase,
                missed: missed as u16,
                intended_ns: at,
                latency_ns: lat,
                abs_ns: intended,
            };
            if p.push(s).is_err() {
                r.dropped_samples += 1;
            }
        }
    }

    /// Adds the batched samples to the histograms and moments.
    #[cold]
    fn flush(&mut self) {
        let r = &mut *self.res;
        for &(lat, at, cycle) in &self.batch[..self.batched] {
            r.acc.add(lat, Location { at, source: r.cpu });
            let us = if lat < 0 { 0 } else { (lat / 1000) as u64 };
            if (us as usize) < r.us_bins.len() {
                r.us_bins[us as usize] += 1;
            } else {
                r.us_overflow += 1;
                if r.us_overflow_cycles.len() < r.us_overflow_cycles.capacity() {
                    r.us_overflow_cycles.push(cycle);
                }
            }
        }
        self.batched = 0;
    }

    /// Accounts for the periods after `next` whose time passed before `now`; returns how
    /// many were missed. With catch-up each is recorded against its own intended time.
    #[inline]
    fn missed(&mut self, now: i64, next: i64, interval: i64, policy: OverrunPolicy) -> i64 {
        if now <= next {
            return 0;
        }
        let missed = (now - next + interval - 1) / interval;
        self.account(now, next, missed, interval, policy);
        missed
    }

    /// Counts `missed` periods starting at `next` (and records them under catch-up).
    /// Periods due after the end of the run are not part of it and are not counted.
    #[inline]
    fn account(&mut self, now: i64, next: i64, missed: i64, interval: i64, policy: OverrunPolicy) {
        let in_run = if next > self.end {
            0
        } else {
            (self.end - next) / interval + 1
        };
        let missed = missed.min(in_run);
        if missed <= 0 {
            return;
        }
        self.res.overruns += missed as u64;
        if let Some(m) = self.metrics {
            m.add_overruns(missed as u64);
        }
        self.res.longest_overrun_run = self.res.longest_overrun_run.max(missed as u64);
        match policy {
            OverrunPolicy::CatchUp => {
                let recorded = missed.min(MAX_CATCH_UP_PER_WAKE);
                for k in 0..recorded {
                    self.record(now, next + k * interval, true);
                }
                self.cycle += (missed - recorded) as u64;
            }
            OverrunPolicy::Skip => self.cycle += missed as u64,
        }
    }
}

fn limits(ctx: &Ctx, t0: i64) -> (i64, u64) {
    match ctx.settings.stop {
        Stop::Duration(d) => (t0.saturating_add(d), u64::MAX),
        Stop::Loops(l) => (i64::MAX, l),
    }
}

/// Longest single sleep of a measuring thread. Periods longer than this are waited for
/// in slices (each an absolute sleep), so the stop flag is seen within a slice whatever
/// the interval; the last slice ends exactly at the intended time, so the measured
/// wake-up is the same kind of timer expiry as with a short period.
pub const STOP_SLICE_NS: i64 = 50_000_000;

/// Most missed periods recorded one by one after a single wake-up under
/// `--overrun catch-up`; further ones are counted as overruns only.
pub const MAX_CATCH_UP_PER_WAKE: i64 = 1000;

#[inline]
fn sleep_abs(t: i64) {
    let ts = ts_of(t);
    loop {
        // SAFETY: valid timespec; remaining-time pointer is unused with TIMER_ABSTIME.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if r != libc::EINTR {
            break;
        }
    }
}

/// Sleeps in slices until at most one slice is left before `target`. Returns false when
/// the stop flag was raised meanwhile.
#[cold]
fn sleep_slices_until(ctx: &Ctx, target: i64) -> bool {
    loop {
        if ctx.stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = now_ns();
        if target - now <= STOP_SLICE_NS {
            return true;
        }
        sleep_abs(now + STOP_SLICE_NS);
    }
}

fn run_absolute(ctx: &Ctx, rec: &mut Recorder) {
    let interval = ctx.settings.interval_ns;
    let sliced = interval > STOP_SLICE_NS;
    let (end, max_wakes) = limits(ctx, rec.t0);
    let mut next = now_ns() + interval;
    while rec.res.wakes < max_wakes && next <= end && !ctx.stop.load(Ordering::Relaxed) {
        if sliced && !sleep_slices_until(ctx, next) {
            break;
        }
        sleep_abs(next);
        let now = now_ns();
        rec.res.wakes += 1;
        rec.record(now, next, false);
        next += interval;
        let m = rec.missed(now, next, interval, ctx.settings.overrun);
        next += m * interval;
    }
}

fn run_relative(ctx: &Ctx, rec: &mut Recorder) {
    let interval = ctx.settings.interval_ns;
    let sliced = interval > STOP_SLICE_NS;
    let (end, max_wakes) = limits(ctx, rec.t0);
    let ts = ts_of(interval);
    while rec.res.wakes < max_wakes && !ctx.stop.load(Ordering::Relaxed) {
        let before = now_ns();
        let intended = before + interval;
        if intended > end {
            break;
        }
        let mut req = ts;
        if sliced {
            if !sleep_slices_until(ctx, intended) {
                break;
            }
            // The last piece is still a relative sleep, as the naive loop does.
            req = ts_of((intended - now_ns()).max(0));
        }
        loop {
            let mut rem = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: valid timespecs.
            let r = unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &req, &mut rem) };
            if r != libc::EINTR {
                break;
            }
            req = rem;
        }
        let now = now_ns();
        rec.res.wakes += 1;
        rec.record(now, intended, false);
    }
}

fn run_timerfd(ctx: &Ctx, rec: &mut Recorder) -> Result<(), ThreadError> {
    let interval = ctx.settings.interval_ns;
    let (end, max_wakes) = limits(ctx, rec.t0);
    // SAFETY: plain system calls on a descriptor we own and close below.
    unsafe {
        let fd = libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC);
        if fd < 0 {
            return Err(ThreadError::TimerfdCreate(errno_text()));
        }
        let mut next = now_ns() + interval;
        let spec = libc::itimerspec {
            it_interval: ts_of(interval),
            it_value: ts_of(next),
        };
        if libc::timerfd_settime(fd, libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut()) != 0 {
            let e = errno_text();
            libc::close(fd);
            return Err(ThreadError::TimerfdSet(e));
        }
        let sliced = interval > STOP_SLICE_NS;
        while rec.res.wakes < max_wakes && next <= end && !ctx.stop.load(Ordering::Relaxed) {
            if sliced {
                // Wait for readiness in slices so that a stop is seen within one.
                let mut pfd = libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                };
                let r = libc::poll(&mut pfd, 1, (STOP_SLICE_NS / 1_000_000) as libc::c_int);
                if r == 0
                    || (r < 0
                        && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR))
                {
                    continue;
                }
            }
            let mut exp: u64 = 0;
            let r = libc::read(fd, (&mut exp as *mut u64).cast(), 8);
            if r != 8 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                let e = errno_text();
                libc::close(fd);
                return Err(ThreadError::TimerfdRead(e));
            }
            let now = now_ns();
            rec.res.wakes += 1;
            rec.record(now, next, false);
            next += interval;
            // The kernel's count of expirations says how many periods passed. (A period
            // that expires between read() and clock_gettime() is still pending in the
            // timerfd and is handled by the next read, against its own intended time.)
            let missed = exp.saturating_sub(1) as i64;
            rec.account(now, next, missed, interval, ctx.settings.overrun);
            next += missed * interval;
        }
        libc::close(fd);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder_parts() -> (CpuResult, Live) {
        (CpuResult::new(3, 100), Live::default())
    }

    fn recorder<'a>(res: &'a mut CpuResult, live: &'a Live, end: i64) -> Recorder<'a> {
        Recorder {
            res,
            prod: None,
            live,
            metrics: None,
            t0: 0,
            phase: 0,
            cycle: 0,
            end,
            batch: [(0, 0, 0); BATCH],
            batched: 0,
            count: 0,
        }
    }

    #[test]
    fn missed_periods_skip_and_catch_up() {
        let (mut res, live) = recorder_parts();
        let mut rec = recorder(&mut res, &live, i64::MAX);
        // Woke at 3500 for the period due at 500; the next one was due at 1000.
        rec.record(3500, 500, false);
        // Periods due at 1000, 2000, 3000 passed before 3500: three missed.
        assert_eq!(rec.missed(3500, 1000, 1000, OverrunPolicy::Skip), 3);
        assert_eq!(rec.cycle, 4);
        assert_eq!(rec.missed(900, 1000, 1000, OverrunPolicy::Skip), 0);
        // Exactly on time for the next period is not a miss.
        assert_eq!(rec.missed(1000, 1000, 1000, OverrunPolicy::Skip), 0);
        assert_eq!(rec.missed(1001, 1000, 1000, OverrunPolicy::Skip), 1);
        drop(rec); // adds the batched samples
        assert_eq!(res.overruns, 4);
        assert_eq!(res.longest_overrun_run, 3);
        assert_eq!(res.acc.moments.count(), 1);

        let (mut res, live) = recorder_parts();
        let mut rec = recorder(&mut res, &live, i64::MAX);
        rec.record(3500, 500, false);
        assert_eq!(rec.missed(3500, 1000, 1000, OverrunPolicy::CatchUp), 3);
        drop(rec); // adds the batched samples
        let s = res.acc.summary();
        // Recorded: 3000 (own), then 2500, 1500, 500 for the missed ones.
        assert_eq!(s.count, 4);
        assert_eq!(s.min, 500);
        assert_eq!(s.max, 3000);
        assert!((s.mean - 1875.0).abs() < 1e-9);
        assert_eq!(res.overruns, 3);
        assert_eq!(res.us_bins[0], 1);
        assert_eq!(res.us_bins[1], 1);
        assert_eq!(res.us_bins[2], 1);
        assert_eq!(res.us_bins[3], 1);
        assert_eq!(live.samples.load(Ordering::Relaxed), 4);
        assert_eq!(live.max_ns.load(Ordering::Relaxed), 3000);
    }

    #[test]
    fn batched_samples_all_reach_the_histograms_with_their_place() {
        let (mut res, live) = recorder_parts();
        let mut rec = recorder(&mut res, &live, i64::MAX);
        let n = 3 * BATCH as i64 + 5;
        for i in 0..n {
            // Period i due at i ms, late by (i % 50) µs; the longest, 99 µs, at i = 60.
            let lat = if i == 60 { 99_000 } else { (i % 50) * 1000 };
            rec.record(i * 1_000_000 + lat, i * 1_000_000, false);
            // The live count and maximum do not wait for the batch.
            assert_eq!(live.samples.load(Ordering::Relaxed), i as u64 + 1);
        }
        assert_eq!(live.max_ns.load(Ordering::Relaxed), 99_000);
        drop(rec); // adds the last, partial batch
        let s = res.acc.summary();
        assert_eq!(s.count, n as u64);
        assert_eq!(s.max, 99_000);
        assert_eq!(s.max_at.at, 60_000_000);
        assert_eq!(res.us_bins.iter().sum::<u64>(), n as u64);
        assert_eq!(res.us_bins[99], 1);
    }

    #[test]
    fn periods_after_the_end_are_not_overruns() {
        let (mut res, live) = recorder_parts();
        let mut rec = recorder(&mut res, &live, 2500);
        // Due at 1000, 2000 (in the run), 3000, 4000 (after its end at 2500).
        assert_eq!(rec.missed(4500, 1000, 1000, OverrunPolicy::CatchUp), 4);
        drop(rec); // adds the batched samples
        assert_eq!(res.overruns, 2);
        assert_eq!(res.acc.moments.count(), 2);
    }

    #[test]
    fn catch_up_is_bounded_per_wake() {
        let (mut res, live) = recorder_parts();
        let mut rec = recorder(&mut res, &live, i64::MAX);
        // 5000 periods of 1 µs missed in one wake-up: all counted, 1000 recorded.
        assert_eq!(
            rec.missed(5_001_000, 1_000, 1_000, OverrunPolicy::CatchUp),
            5000
        );
        assert_eq!(rec.cycle, 5000);
        drop(rec); // adds the batched samples
        assert_eq!(res.overruns, 5000);
        assert_eq!(res.acc.moments.count(), MAX_CATCH_UP_PER_WAKE as u64);
    }

    #[test]
    fn overflow_cycles_are_bounded() {
        let (mut res, live) = recorder_parts();
        let mut rec = recorder(&mut res, &live, i64::MAX);
        for i in 0..(OVERFLOW_CYCLES_KEPT as i64 + 10) {
            rec.record(1_000_000 + i, 0, false); // 1 ms: beyond 100 µs bins
        }
        drop(rec); // adds the batched samples
        assert_eq!(res.us_overflow, OVERFLOW_CYCLES_KEPT as u64 + 10);
        assert_eq!(res.us_overflow_cycles.len(), OVERFLOW_CYCLES_KEPT);
        assert_eq!(res.us_overflow_cycles[5], 5);
    }

    fn other_settings(
        mode: TimerMode,
        overrun: OverrunPolicy,
        interval: i64,
        loops: u64,
    ) -> Settings {
        Settings {
            cpus: vec![0],
            policy: Policy::Other,
            priority: 0,
            mode,
            interval_ns: interval,
            stop: Stop::Loops(loops),
            overrun,
            us_bins: 1000,
            lock_memory: false,
            ..Settings::default()
        }
    }

    #[test]
    fn live_metrics_count_every_sample_and_overrun_over_phases() {
        let stop = Arc::new(AtomicBool::new(false));
        // Catch-up at 20 us: overruns and catch-up records are likely on a busy machine.
        let s = other_settings(TimerMode::Absolute, OverrunPolicy::CatchUp, 20_000, 300);
        let eff = decide_policy(&s).unwrap();
        let m = Arc::new(crate::metrics::LiveMetrics::new(&s.cpus));
        let mut prods: Vec<Option<SampleProducer>> = vec![None];
        let (mut n, mut over, mut sum) = (0u64, 0u64, 0f64);
        for phase in 0..2 {
            let r =
                run_phase_live(&s, &eff, phase, &stop, &mut prods, &mut |_| {}, Some(&m)).unwrap();
            let c = &r.cpus[0];
            n += c.acc.moments.count();
            over += c.overruns;
            sum += c.acc.moments.mean() * c.acc.moments.count() as f64;
        }
        let snap = m.snapshot();
        let k = &snap.cpus[0];
        assert_eq!(k.count, n, "every recorded sample, both phases");
        assert_eq!(k.overruns, over);
        assert!((k.sum_ns as f64 - sum).abs() <= 1e-6 * sum.max(1.0) + 1.0);
    }

    #[test]
    fn every_timer_mode_measures_without_privileges() {
        let stop = Arc::new(AtomicBool::new(false));
        for mode in [TimerMode::Absolute, TimerMode::Relative, TimerMode::Timerfd] {
            let s = other_settings(mode, OverrunPolicy::Skip, 200_000, 20);
            let eff = decide_policy(&s).unwrap();
            let mut prods: Vec<Option<SampleProducer>> = vec![None];
            let r = run_phase(&s, &eff, 0, &stop, &mut prods, &mut |_| {}).unwrap();
            let c = &r.cpus[0];
            assert_eq!(c.wakes, 20, "{mode:?}");
            assert_eq!(c.acc.moments.count(), 20, "{mode:?}");
            // A timer never fires early: latency is never negative.
            assert!(c.acc.moments.min().unwrap() >= 0, "{mode:?}");
            assert!(c.timer_slack_ns.is_some());
            // 20 periods of 200 us take at least 4 ms.
            assert!(r.elapsed_ns >= 4_000_000, "{mode:?} {}", r.elapsed_ns);
            assert!(!r.interrupted);
        }
    }

    #[test]
    fn catch_up_records_every_missed_period() {
        // A 5 µs period is shorter than a wake-up here: periods are missed.
        let stop = Arc::new(AtomicBool::new(false));
        for mode in [TimerMode::Absolute, TimerMode::Timerfd] {
            let s = other_settings(mode, OverrunPolicy::CatchUp, 5_000, 200);
            let eff = decide_policy(&s).unwrap();
            let mut prods: Vec<Option<SampleProducer>> = vec![None];
            let r = run_phase(&s, &eff, 0, &stop, &mut prods, &mut |_| {}).unwrap();
            let c = &r.cpus[0];
            // Every missed period is recorded, up to MAX_CATCH_UP_PER_WAKE after a single
            // wake-up: a stall of more than 1,000 periods (5 ms here, which a busy machine
            // does produce) records the first 1,000 and counts the rest as overruns only.
            let limit = MAX_CATCH_UP_PER_WAKE as u64;
            if c.longest_overrun_run <= limit {
                assert_eq!(c.acc.moments.count(), c.wakes + c.overruns, "{mode:?}");
            } else {
                assert!(c.acc.moments.count() < c.wakes + c.overruns, "{mode:?}");
                assert!(c.acc.moments.count() >= c.wakes + limit, "{mode:?}");
            }
            let s = other_settings(mode, OverrunPolicy::Skip, 5_000, 200);
            let r = run_phase(&s, &eff, 0, &stop, &mut prods, &mut |_| {}).unwrap();
            let c = &r.cpus[0];
            assert_eq!(c.acc.moments.count(), c.wakes, "{mode:?}");
        }
    }

    #[test]
    fn stop_flag_ends_a_long_run_early() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut s = other_settings(TimerMode::Absolute, OverrunPolicy::Skip, 1_000_000, 1);
        s.stop = Stop::Duration(60_000_000_000);
        let eff = decide_policy(&s).unwrap();
        let st = stop.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            st.store(true, Ordering::SeqCst);
        });
        let mut prods: Vec<Option<SampleProducer>> = vec![None];
        let r = run_phase(&s, &eff, 0, &stop, &mut prods, &mut |_| {}).unwrap();
        t.join().unwrap();
        assert!(r.interrupted);
        assert!(r.elapsed_ns < 5_000_000_000);
        assert!(r.cpus[0].acc.moments.count() > 10);
    }

    #[test]
    fn samples_leave_through_the_ring() {
        let stop = Arc::new(AtomicBool::new(false));
        let s = other_settings(TimerMode::Absolute, OverrunPolicy::Skip, 100_000, 30);
        let eff = decide_policy(&s).unwrap();
        let (p, mut c) = rtrb::RingBuffer::new(8);
        let mut prods = vec![Some(p)];
        let r = run_phase(&s, &eff, 7, &stop, &mut prods, &mut |_| {}).unwrap();
        assert!(prods[0].is_some(), "producer handed back");
        let mut got = Vec::new();
        while let Ok(x) = c.pop() {
            got.push(x);
        }
        // A ring of 8 with nobody draining it: 8 kept, 22 dropped and counted.
        assert_eq!(got.len(), 8);
        assert_eq!(r.cpus[0].dropped_samples, 22);
        assert!(got
            .iter()
            .all(|x| x.phase == 7 && x.cpu == 0 && x.latency_ns >= 0));
        assert!(got.windows(2).all(|w| w[1].intended_ns > w[0].intended_ns));
    }
}
