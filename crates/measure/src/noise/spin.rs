//! The spinning threads: one per CPU, pinned, with the policy and priority of
//! `measure`, reading CLOCK_MONOTONIC in a tight loop for the duration. Whenever two
//! consecutive reads are further apart than the threshold, something else had the CPU
//! (or the vCPU did not run): a noise gap. Each thread keeps exact counters (total,
//! count, largest, per-window time) in memory allocated before the start, and hands
//! every gap to the trace reader through a lock-free ring of fixed capacity; a full
//! ring only costs the gap its classification (it is counted as unclassified).

use super::classify::Gap;
use crate::engine::{now_ns, Effective};
use crate::MeasureError;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What the reader receives: a gap and the spinning thread's id.
pub type GapMsg = (Gap, i32);
pub type GapProducer = rtrb::Producer<GapMsg>;
pub type GapConsumer = rtrb::Consumer<GapMsg>;

/// Gaps in flight between a spinning thread and the reader (per CPU).
pub const RING_CAPACITY: usize = 1 << 16;

/// Most windows a run may have (duration / window).
pub const MAX_WINDOWS: usize = 1_000_000;

/// How often (loop iterations) a thread looks at the stop flag and publishes progress.
const CHECK_EVERY: u64 = 1024;

#[derive(Clone, Debug)]
pub struct SpinConfig {
    pub cpus: Vec<u32>,
    pub eff: Effective,
    pub duration_ns: i64,
    pub threshold_ns: i64,
    pub window_ns: i64,
}

impl SpinConfig {
    pub fn windows(&self) -> usize {
        let n = self.duration_ns.saturating_add(self.window_ns - 1) / self.window_ns.max(1);
        (n.max(1) as usize).min(MAX_WINDOWS)
    }
}

/// One CPU's figures.
#[derive(Clone, Debug, Default)]
pub struct SpinResult {
    pub cpu: u32,
    pub tid: i32,
    pub noise_ns: i64,
    pub count: u64,
    pub max_ns: i64,
    /// Start of the largest gap, ns since t0.
    pub max_at_ns: i64,
    /// Noise per window, ns.
    pub windows_ns: Vec<i64>,
    pub loops: u64,
    /// Gaps the ring could not take: count and ns.
    pub unhanded: (u64, i64),
}

/// What the threads share while running (read by the reader and the progress line).
#[derive(Debug, Default)]
pub struct Shared {
    /// Per CPU: the thread's last clock read, published every few iterations. No gap
    /// that is still to come starts before it, so the reader may forget older events.
    pub last_read: Vec<AtomicI64>,
    pub gaps: AtomicU64,
    pub max_ns: AtomicI64,
    pub tids: Vec<std::sync::atomic::AtomicI32>,
}

impl Shared {
    pub fn new(n: usize) -> Arc<Shared> {
        Arc::new(Shared {
            last_read: (0..n).map(|_| AtomicI64::new(0)).collect(),
            gaps: AtomicU64::new(0),
            max_ns: AtomicI64::new(0),
            tids: (0..n)
                .map(|_| std::sync::atomic::AtomicI32::new(0))
                .collect(),
        })
    }
}

/// The end of a run.
#[derive(Clone, Debug)]
pub struct SpinOutcome {
    pub cpus: Vec<SpinResult>,
    /// CLOCK_MONOTONIC at the start.
    pub t0: i64,
    pub elapsed_ns: i64,
    pub interrupted: bool,
}

/// Runs the threads until the duration has passed or `stop` is set. `producers`: one
/// per CPU (same order as `cfg.cpus`), or none without a tracer. `tick` is called on
/// the calling thread about every 20 ms with the time since t0 (progress, steal
/// readings); `at_start` once with t0, just before the threads start.
pub fn run(
    cfg: &SpinConfig,
    stop: &Arc<AtomicBool>,
    mut producers: Vec<Option<GapProducer>>,
    shared: &Arc<Shared>,
    at_start: &mut dyn FnMut(i64),
    tick: &mut dyn FnMut(i64),
) -> Result<SpinOutcome, MeasureError> {
    let n = cfg.cpus.len();
    producers.resize_with(n, || None);
    let go = Arc::new(AtomicBool::new(false));
    let abort = Arc::new(AtomicBool::new(false));
    let ready = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let t0 = Arc::new(AtomicI64::new(0));
    let old = crate::engine::block_stop_signals();
    let mut handles = Vec::with_capacity(n);
    let mut spawn_err = None;
    for (i, (&cpu, prod)) in cfg.cpus.iter().zip(producers).enumerate() {
        let c = cfg.clone();
        let (go, abort_t, ready, done, t0) = (
            go.clone(),
            abort.clone(),
            ready.clone(),
            done.clone(),
            t0.clone(),
        );
        let (stop, shared) = (stop.clone(), shared.clone());
        let h = std::thread::Builder::new()
            .name(format!("latscope-noise{cpu}"))
            .stack_size(1 << 20)
            .spawn(move || {
                let mut res = SpinResult {
                    cpu,
                    windows_ns: vec![0; c.windows()],
                    ..SpinResult::default()
                };
                // SAFETY: gettid has no preconditions.
                res.tid = unsafe { libc::gettid() };
                shared.tids[i].store(res.tid, Ordering::SeqCst);
                let abort = abort_t;
                let setup = crate::engine::setup_thread(cpu, &c.eff, 1);
                if setup.is_err() {
                    abort.store(true, Ordering::SeqCst);
                }
                ready.fetch_add(1, Ordering::SeqCst);
                while !go.load(Ordering::Acquire) && !abort.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_micros(200));
                }
                if setup.is_ok() && !abort.load(Ordering::SeqCst) {
                    let mut prod = prod;
                    spin(
                        &c,
                        i,
                        t0.load(Ordering::SeqCst),
                        &stop,
                        prod.as_mut(),
                        &shared,
                        &mut res,
                    );
                }
                done.fetch_add(1, Ordering::SeqCst);
                (res, setup.err())
            });
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                spawn_err = Some(format!("cannot start the thread for CPU {cpu}: {e}"));
                abort.store(true, Ordering::SeqCst);
                break;
            }
        }
    }
    crate::engine::restore_signals(old);
    while ready.load(Ordering::SeqCst) < handles.len() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let start = now_ns();
    t0.store(start, Ordering::SeqCst);
    if !abort.load(Ordering::SeqCst) {
        at_start(start);
    }
    go.store(true, Ordering::Release);
    while done.load(Ordering::SeqCst) < handles.len() {
        std::thread::sleep(Duration::from_millis(20));
        tick(now_ns() - start);
    }
    let elapsed = now_ns() - start;
    let mut cpus = Vec::with_capacity(n);
    let mut errors = Vec::new();
    for h in handles {
        let (res, err) = h
            .join()
            .map_err(|_| MeasureError::Setup("a noise thread panicked".into()))?;
        errors.extend(err.map(|e| e.to_string()));
        cpus.push(res);
    }
    if let Some(e) = spawn_err {
        errors.push(e);
    }
    if !errors.is_empty() {
        return Err(MeasureError::Setup(errors.join("; ")));
    }
    Ok(SpinOutcome {
        cpus,
        t0: start,
        elapsed_ns: elapsed,
        interrupted: stop.load(Ordering::SeqCst),
    })
}

/// The loop. No allocation, lock or system call but the clock read (vDSO).
fn spin(
    c: &SpinConfig,
    idx: usize,
    t0: i64,
    stop: &AtomicBool,
    mut prod: Option<&mut GapProducer>,
    shared: &Shared,
    res: &mut SpinResult,
) {
    let end = t0.saturating_add(c.duration_ns);
    let threshold = c.threshold_ns;
    let window = c.window_ns.max(1);
    let mut prev = now_ns();
    let mut i: u64 = 0;
    loop {
        let t = now_ns();
        let d = t - prev;
        if d > threshold {
            res.noise_ns = res.noise_ns.saturating_add(d);
            res.count += 1;
            if d > res.max_ns {
                res.max_ns = d;
                res.max_at_ns = prev - t0;
                shared.max_ns.fetch_max(d, Ordering::Relaxed);
            }
            shared.gaps.fetch_add(1, Ordering::Relaxed);
            add_to_windows(&mut res.windows_ns, prev - t0, t - t0, window);
            let gap = Gap {
                cpu: res.cpu,
                start: prev,
                end: t,
            };
            let handed = prod
                .as_mut()
                .is_some_and(|p| p.push((gap, res.tid)).is_ok());
            if !handed {
                res.unhanded.0 += 1;
                res.unhanded.1 = res.unhanded.1.saturating_add(d);
            }
        }
        prev = t;
        i += 1;
        if t >= end {
            break;
        }
        if i.is_multiple_of(CHECK_EVERY) {
            shared.last_read[idx].store(t, Ordering::Release);
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
    }
    shared.last_read[idx].store(prev, Ordering::Release);
    res.loops = i;
}

/// Adds the gap `[from, to]` (ns since t0) to the windows it lies in, split at their
/// borders; time past the last window goes to the last.
pub fn add_to_windows(w: &mut [i64], from: i64, to: i64, window: i64) {
    if w.is_empty() || to <= from || window <= 0 {
        return;
    }
    let last = w.len() - 1;
    let mut a = from.max(0);
    while a < to {
        let k = ((a / window) as usize).min(last);
        let border = if k == last {
            to
        } else {
            ((k as i64 + 1) * window).min(to)
        };
        w[k] = w[k].saturating_add(border - a);
        a = border;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_split_at_window_borders() {
        let mut w = vec![0; 3];
        add_to_windows(&mut w, 90, 130, 100);
        assert_eq!(w, [10, 30, 0]);
        add_to_windows(&mut w, 250, 420, 100);
        assert_eq!(w, [10, 30, 170], "the overrun goes to the last window");
        add_to_windows(&mut w, 5, 5, 100);
        add_to_windows(&mut [], 5, 50, 100);
        assert_eq!(w.iter().sum::<i64>(), 210);
    }

    #[test]
    fn windows_cover_the_duration() {
        let c = SpinConfig {
            cpus: vec![0],
            eff: Effective {
                policy: crate::settings::Policy::Other,
                priority: 0,
                fallback_reason: None,
            },
            duration_ns: 2_500,
            threshold_ns: 1,
            window_ns: 1_000,
        };
        assert_eq!(c.windows(), 3);
    }
}
