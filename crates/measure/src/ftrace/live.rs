//! Tracing during a run: a private tracefs instance (nothing global is changed but the
//! timerlat tracer's CPU list and period, which are put back; the instance is removed
//! afterwards, and tracefs unmounted when latscope mounted it) with the timer, irq and sched events on the `mono` trace clock, read by
//! one thread that feeds a [`Correlator`].

pub use super::correlate::{Correlator, TraceResult, MAX_EVENTS_PER_CPU, MAX_SPIKES};
use super::lost::read_ring_stats;
use super::timerlat::{self, Source};
use super::tracefs_error::{create_instance, write, TracefsError};
use crate::engine::RawSample;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread::JoinHandle;

/// Events every traced run needs: the measuring thread's timer and the scheduler.
pub const REQUIRED: [&str; 4] = [
    "timer/hrtimer_start",
    "timer/hrtimer_expire_entry",
    "sched/sched_switch",
    "sched/sched_waking",
];

/// Events enabled by default besides [`REQUIRED`]: what names interrupt handlers and
/// softirqs as blockers.
pub const OPTIONAL: [&str; 5] = [
    "timer/hrtimer_expire_exit",
    "irq/irq_handler_entry",
    "irq/irq_handler_exit",
    "irq/softirq_entry",
    "irq/softirq_exit",
];

/// Default per-CPU ring buffer (KiB).
pub const DEFAULT_BUFFER_KB: u32 = 8192;

/// The event set and buffer of a traced run (`--trace-events`, `--trace-buffer`).
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSetup {
    /// Events besides [`REQUIRED`], as `group/event`.
    pub optional: Vec<String>,
    /// Ring buffer per CPU, KiB.
    pub buffer_kb: u32,
}

impl Default for TraceSetup {
    fn default() -> Self {
        TraceSetup {
            optional: OPTIONAL.iter().map(|s| s.to_string()).collect(),
            buffer_kb: DEFAULT_BUFFER_KB,
        }
    }
}

impl TraceSetup {
    /// `--trace-events LIST`: the events besides the required timer and scheduler ones,
    /// comma-separated: `default` (interrupt handlers, softirqs, timer handler exit),
    /// `irq`, `softirq`, `none`, or tracepoints as `group:event` / `group/event`. Under an
    /// interrupt storm `none` (or `irq` alone) keeps the buffer for what matters.
    pub fn parse_events(text: &str) -> Result<Vec<String>, crate::MeasureError> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |e: &str| {
            if !out.iter().any(|x| x == e) && !REQUIRED.contains(&e) {
                out.push(e.to_string());
            }
        };
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "none" => {}
                "default" => OPTIONAL.iter().for_each(|e| add(e)),
                "irq" => {
                    add("irq/irq_handler_entry");
                    add("irq/irq_handler_exit");
                }
                "softirq" => {
                    add("irq/softirq_entry");
                    add("irq/softirq_exit");
                }
                e => {
                    let norm = e.replacen(':', "/", 1);
                    let ok = norm.split_once('/').is_some_and(|(g, n)| {
                        let word = |w: &str| {
                            !w.is_empty()
                                && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        };
                        word(g) && word(n)
                    });
                    if !ok {
                        return Err(crate::MeasureError::Input(format!(
                            "'{e}' is not a tracepoint (write group:event, e.g. irq:irq_handler_entry, or default, irq, softirq, none)"
                        )));
                    }
                    add(&norm);
                }
            }
        }
        Ok(out)
    }
}

/// A running tracer.
pub struct Tracer {
    instance: PathBuf,
    cpus: Vec<u32>,
    stop: Arc<AtomicBool>,
    tx: Option<Sender<RawSample>>,
    handle: Option<JoinHandle<Correlator>>,
    /// Global timerlat settings to put back (file, old content).
    restore: Vec<(PathBuf, String)>,
    /// Last field: dropped after the instance is removed, unmounting tracefs if
    /// latscope mounted it.
    _mount: TracefsMount,
}

/// Turns the timerlat tracer on in `instance` for `cpus` at `interval_ns`. Its CPU list
/// and period are global (`osnoise/cpus`, `osnoise/timerlat_period_us`): the old values
/// are returned to be put back, also when a later step fails.
fn start_timerlat(
    root: &Path,
    instance: &Path,
    cpus: &[u32],
    interval_ns: i64,
    restore: &mut Vec<(PathBuf, String)>,
) -> Result<(), TracefsError> {
    let list: Vec<String> = cpus.iter().map(u32::to_string).collect();
    let period_us = (interval_ns / 1000).clamp(100, 1_000_000);
    for (file, value) in [
        ("cpus", list.join(",")),
        ("timerlat_period_us", period_us.to_string()),
    ] {
        let p = root.join("osnoise").join(file);
        let old = std::fs::read_to_string(&p).map_err(|source| TracefsError::Read {
            path: p.clone(),
            source,
        })?;
        write(&p, &value)?;
        restore.push((p, old.trim().to_string()));
    }
    write(&instance.join("current_tracer"), "timerlat")
}

fn put_back(instance: &Path, restore: &mut Vec<(PathBuf, String)>) {
    if !restore.is_empty() {
        let _ = write(&instance.join("current_tracer"), "nop");
    }
    for (p, old) in restore.drain(..).rev() {
        let _ = write(&p, &old);
    }
}

/// The tracefs mount point; when latscope had to mount it, it is unmounted again when
/// this is dropped, so a run leaves the system's mounts as it found them.
pub struct TracefsMount {
    pub path: PathBuf,
    ours: bool,
}

impl Drop for TracefsMount {
    fn drop(&mut self) {
        if self.ours {
            if let Ok(c) = std::ffi::CString::new(self.path.as_os_str().as_encoded_bytes()) {
                // SAFETY: a NUL-terminated path; umount2 does not keep the pointer. Lazy
                // (MNT_DETACH), so a reader still holding a file there does not fail it.
                unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
            }
        }
    }
}

impl TracefsMount {
    /// Whether latscope mounted it (and so unmounts it when this is dropped).
    pub fn mounted_here(&self) -> bool {
        self.ours
    }
}

/// The tracefs mount point, mounting it at /sys/kernel/tracing when needed (root only).
pub fn tracefs() -> Result<TracefsMount, TracefsError> {
    for p in ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"] {
        if Path::new(p).join("instances").is_dir() {
            return Ok(TracefsMount {
                path: PathBuf::from(p),
                ours: false,
            });
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
        return Err(TracefsError::Mount(std::io::Error::last_os_error()));
    }
    Ok(TracefsMount {
        path: PathBuf::from("/sys/kernel/tracing"),
        ours: true,
    })
}

/// Why tracing cannot be used here, or None when it can (checked without changing
/// anything: a tracefs mounted for the check is unmounted again).
pub fn unusable_reason() -> Option<String> {
    usable().err().map(|e| e.to_string())
}

/// Ok when tracing can be used here; else why not (see [`unusable_reason`]).
pub fn usable() -> Result<(), TracefsError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(TracefsError::NotRoot);
    }
    let mount = tracefs()?;
    match REQUIRED
        .iter()
        .find(|e| !mount.path.join("events").join(e).join("enable").exists())
    {
        Some(e) => Err(TracefsError::MissingTracepoint(e.to_string())),
        None => Ok(()),
    }
}

impl Tracer {
    /// Creates the instance and starts tracing the CPUs `cpus`. `threshold_ns`: samples
    /// above it are attributed. `lookback_ns`: how far before a timer's expiry its
    /// `hrtimer_start` may lie (one interval, at most the 50 ms stop slice). The timerlat
    /// tracer gives the interrupt/thread split where the kernel has it (at the period
    /// `interval_ns`); else, or when it cannot be started, the tracepoints do.
    pub fn start(
        cpus: &[u32],
        threshold_ns: i64,
        lookback_ns: i64,
        interval_ns: i64,
        trace_setup: &TraceSetup,
    ) -> Result<Tracer, TracefsError> {
        usable()?;
        let mount = tracefs()?;
        let root = mount.path.clone();
        let instance = root
            .join("instances")
            .join(format!("latscope-{}", std::process::id()));
        create_instance(&instance)?;
        let setup = || -> Result<(), TracefsError> {
            write(&instance.join("trace_clock"), "mono")?;
            write(
                &instance.join("buffer_size_kb"),
                &trace_setup.buffer_kb.to_string(),
            )?;
            let mut mask = vec![0u32; (cpus.iter().max().copied().unwrap_or(0) / 32 + 1) as usize];
            for &c in cpus {
                mask[(c / 32) as usize] |= 1 << (c % 32);
            }
            let text: Vec<String> = mask.iter().rev().map(|w| format!("{w:08x}")).collect();
            write(&instance.join("tracing_cpumask"), &text.join(","))?;
            for e in REQUIRED
                .iter()
                .copied()
                .chain(trace_setup.optional.iter().map(String::as_str))
            {
                let enable = instance.join("events").join(e).join("enable");
                if !enable.exists() {
                    return Err(TracefsError::MissingTracepoint(e.to_string()));
                }
                write(&enable, "1")?;
            }
            write(&instance.join("tracing_on"), "1")
        };
        if let Err(e) = setup() {
            let _ = std::fs::remove_dir(&instance);
            return Err(e);
        }
        let mut restore = Vec::new();
        let tracers = std::fs::read_to_string(root.join("available_tracers")).unwrap_or_default();
        let (source, source_reason) = match timerlat::choose(&tracers) {
            Source::Tracepoints => (
                Source::Tracepoints,
                Some("this kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER): available_tracers does not list it".to_string()),
            ),
            Source::Timerlat => {
                match start_timerlat(&root, &instance, cpus, interval_ns, &mut restore) {
                    Ok(()) => (Source::Timerlat, None),
                    Err(e) => {
                        put_back(&instance, &mut restore);
                        (
                            Source::Tracepoints,
                            Some(format!("the timerlat tracer could not be started: {e}")),
                        )
                    }
                }
            }
        };
        let pipe = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(instance.join("trace_pipe"))
            .map_err(|e| {
                let _ = write(&instance.join("tracing_on"), "0");
                put_back(&instance, &mut restore);
                let _ = std::fs::remove_dir(&instance);
                TracefsError::Pipe(e)
            })?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let st = stop.clone();
        let inst = instance.clone();
        let ncpu = cpus.iter().max().copied().unwrap_or(0) as usize + 1;
        let measured = cpus.to_vec();
        let spawned = std::thread::Builder::new()
            .name("latscope-trace".into())
            .spawn(move || {
                // Off the measured CPUs where the machine has another, so the reader
                // is not a blocker of the spikes it explains.
                crate::housekeeping::move_off(&measured);
                let mut c = Correlator::new(ncpu, threshold_ns, lookback_ns, inst);
                c.set_source(source, source_reason);
                c.run(pipe, rx, &st);
                c
            });
        let handle = match spawned {
            Ok(h) => h,
            Err(e) => {
                let _ = write(&instance.join("tracing_on"), "0");
                put_back(&instance, &mut restore);
                let _ = std::fs::remove_dir(&instance);
                return Err(TracefsError::Reader(e));
            }
        };
        Ok(Tracer {
            instance,
            cpus: cpus.to_vec(),
            stop,
            tx: Some(tx),
            handle: Some(handle),
            restore,
            _mount: mount,
        })
    }

    /// Where every sample must be sent (the sample writer forwards them).
    pub fn sender(&self) -> Option<Sender<RawSample>> {
        self.tx.clone()
    }

    /// Stops tracing, reads the ring buffers' loss counters, correlates what is left,
    /// puts back the global timerlat settings and removes the instance.
    pub fn finish(mut self) -> TraceResult {
        self.tx.take();
        let _ = write(&self.instance.join("tracing_on"), "0");
        self.stop.store(true, Ordering::SeqCst);
        let r = self.handle.take().map(|h| h.join());
        let mut c = match r {
            Some(Ok(c)) => c,
            _ => Correlator::new(1, 0, 0, self.instance.clone()),
        };
        for &cpu in &self.cpus {
            if let Some(st) = read_ring_stats(&self.instance, cpu) {
                c.ring_stats(cpu, st);
            }
        }
        put_back(&self.instance, &mut self.restore);
        let _ = std::fs::remove_dir(&self.instance);
        c.finish()
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(h) = self.handle.take() {
            let _ = write(&self.instance.join("tracing_on"), "0");
            self.stop.store(true, Ordering::SeqCst);
            let _ = h.join();
            put_back(&self.instance, &mut self.restore);
            let _ = std::fs::remove_dir(&self.instance);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_lists() {
        assert_eq!(
            TraceSetup::parse_events("none").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            TraceSetup::parse_events("irq, sched:sched_switch").unwrap(),
            vec!["irq/irq_handler_entry", "irq/irq_handler_exit"],
            "required events are not repeated"
        );
        assert_eq!(
            TraceSetup::parse_events("default").unwrap(),
            TraceSetup::default().optional
        );
        assert_eq!(
            TraceSetup::parse_events("softirq,irq_vectors:local_timer_entry").unwrap(),
            vec![
                "irq/softirq_entry",
                "irq/softirq_exit",
                "irq_vectors/local_timer_entry"
            ]
        );
        let e = TraceSetup::parse_events("irq,../../x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'../../x' is not a tracepoint"), "{e}");
    }
}
