//! Built-in background load (SCHED_OTHER threads, not pinned) and the PM QoS hold.

use crate::settings::{LoadKind, LoadSpec};
use crate::MeasureError;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Bytes each memory thrasher strides through: larger than any last-level cache here.
pub const MEM_BYTES: usize = 32 << 20;

/// Running load threads; dropped or [`Load::stop`]ped to end them.
pub struct Load {
    stop: Arc<AtomicBool>,
    handles: Vec<JoinHandle<()>>,
    /// Work units done (loop iterations), to show the load really ran.
    pub work: Arc<AtomicU64>,
    pub specs: Vec<LoadSpec>,
}

impl Load {
    /// Starts every thread of `specs`. Load threads are SCHED_OTHER, like the
    /// `sha1sum /dev/zero` hogs of the Raspberry Pi 4 sleep-loop report.
    pub fn start(specs: &[LoadSpec]) -> Result<Load, MeasureError> {
        let stop = Arc::new(AtomicBool::new(false));
        let work = Arc::new(AtomicU64::new(0));
        let mut handles = Vec::new();
        for spec in specs {
            for i in 0..spec.threads {
                let (s, w, kind) = (stop.clone(), work.clone(), spec.kind);
                let h = std::thread::Builder::new()
                    .name(format!("latscope-load-{spec}-{i}"))
                    .spawn(move || run_load(kind, &s, &w));
                match h {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        stop.store(true, Ordering::SeqCst);
                        for h in handles {
                            let _ = h.join();
                        }
                        return Err(MeasureError::Setup(format!(
                            "cannot start load thread {spec}: {e}"
                        )));
                    }
                }
            }
        }
        Ok(Load {
            stop,
            handles,
            work,
            specs: specs.to_vec(),
        })
    }

    /// Stops and joins every thread; returns the work units done.
    pub fn stop(mut self) -> u64 {
        self.halt();
        self.work.load(Ordering::Relaxed)
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run_load(kind: LoadKind, stop: &AtomicBool, work: &AtomicU64) {
    match kind {
        LoadKind::Cpu => {
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            while !stop.load(Ordering::Relaxed) {
                for _ in 0..10_000 {
                    // xorshift: pure ALU work the compiler cannot remove.
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                }
                std::hint::black_box(x);
                work.fetch_add(1, Ordering::Relaxed);
            }
        }
        LoadKind::Mem => {
            let mut buf = vec![0u8; MEM_BYTES];
            let mut v = 1u8;
            while !stop.load(Ordering::Relaxed) {
                // One write per cache line, stepping by a prime number of lines so the
                // hardware prefetcher helps little.
                let lines = MEM_BYTES / 64;
                let mut i = 0usize;
                for _ in 0..lines {
                    buf[i * 64] = buf[i * 64].wrapping_add(v);
                    i = (i + 4099) % lines;
                }
                v = v.wrapping_add(1);
                std::hint::black_box(&buf);
                work.fetch_add(1, Ordering::Relaxed);
            }
        }
        LoadKind::Syscall => {
            while !stop.load(Ordering::Relaxed) {
                for _ in 0..1000 {
                    // SAFETY: getppid has no arguments and no side effects; called
                    // through syscall() so no libc cache short-cuts it.
                    unsafe { libc::syscall(libc::SYS_getppid) };
                }
                work.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Holds a PM QoS CPU latency request: /dev/cpu_dma_latency stays at the value for as
/// long as the file is open (a system-wide effect), and returns to the previous
/// aggregate when it is closed.
pub struct PmQosHold {
    _file: File,
    pub path: PathBuf,
    pub us: i32,
}

impl PmQosHold {
    pub fn hold(path: &Path, us: i32) -> Result<PmQosHold, MeasureError> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| {
                MeasureError::Setup(format!("--pm-qos: cannot open {}: {e}", path.display()))
            })?;
        f.write_all(&us.to_ne_bytes()).map_err(|e| {
            MeasureError::Setup(format!("--pm-qos: cannot write {}: {e}", path.display()))
        })?;
        Ok(PmQosHold {
            _file: f,
            path: path.to_path_buf(),
            us,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_load_kind_does_work_and_stops() {
        for kind in [LoadKind::Cpu, LoadKind::Mem, LoadKind::Syscall] {
            let l = Load::start(&[LoadSpec { kind, threads: 1 }]).unwrap();
            let t = std::time::Instant::now();
            while l.work.load(Ordering::Relaxed) == 0 && t.elapsed().as_secs() < 5 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            let w = l.stop();
            assert!(w > 0, "{kind:?} did no work");
        }
    }

    #[test]
    fn pm_qos_hold_writes_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cpu_dma_latency");
        std::fs::write(&p, [0u8; 4]).unwrap();
        let h = PmQosHold::hold(&p, 7).unwrap();
        assert_eq!(h.us, 7);
        drop(h);
        assert_eq!(std::fs::read(&p).unwrap(), 7i32.to_ne_bytes());
        assert!(PmQosHold::hold(&dir.path().join("missing/x"), 0).is_err());
    }
}
