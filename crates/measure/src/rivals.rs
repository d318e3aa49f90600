//! Other real-time threads that compete with the measuring threads: sampled during the
//! run from `/proc/*/task/*/stat` (state, last CPU, real-time priority, policy), every
//! runnable one at or above the measuring priority on a measured CPU is named with how
//! often it was seen runnable. A SCHED_FIFO thread of higher priority on the same CPU
//! delays every wake-up it overlaps; one of equal priority does too (FIFO never
//! preempts an equal).

use crate::env::{Item, Status};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Time between two scans.
pub const SCAN_PERIOD: Duration = Duration::from_millis(500);

/// What one task's stat line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskStat {
    pub comm: String,
    pub state: char,
    pub cpu: u32,
    pub rt_priority: u32,
    /// 1 SCHED_FIFO, 2 SCHED_RR, 0 other.
    pub policy: u32,
}

/// Parses `/proc/PID/task/TID/stat` (the name in parentheses may hold anything).
pub fn parse_stat(text: &str) -> Option<TaskStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let f: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // After the name: field 3 (state) is f[0]; processor (39) f[36]; rt_priority (40)
    // f[37]; policy (41) f[38].
    Some(TaskStat {
        comm,
        state: f.first()?.chars().next()?,
        cpu: f.get(36)?.parse().ok()?,
        rt_priority: f.get(37)?.parse().ok()?,
        policy: f.get(38)?.parse().ok()?,
    })
}

/// One competing thread and how often it was seen runnable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rival {
    pub pid: u32,
    pub tid: u32,
    pub comm: String,
    pub policy: u32,
    pub rt_priority: u32,
    pub cpu: u32,
    pub seen: u32,
}

/// One scan of `proc` (a directory laid out like /proc): the runnable real-time tasks
/// at or above `priority` on `cpus`, except those of process `own_pid`.
pub fn scan(proc_dir: &Path, cpus: &[u32], priority: u32, own_pid: u32) -> Vec<Rival> {
    check(proc_dir, &discover(proc_dir, own_pid), cpus, priority)
}

/// Every real-time thread (FIFO or RR, any state) of every process but `own_pid`, as
/// (pid, tid): the expensive walk over all of /proc, done once every
/// [`DISCOVER_EVERY`] scans, since a thread's policy rarely changes.
pub fn discover(proc_dir: &Path, own_pid: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(proc_dir) else {
        return out;
    };
    for p in rd.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == own_pid {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(p.path().join("task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let Some(tid) = t.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if read_stat(proc_dir, pid, tid).is_some_and(|st| st.policy == 1 || st.policy == 2) {
                out.push((pid, tid));
            }
        }
    }
    out
}

fn read_stat(proc_dir: &Path, pid: u32, tid: u32) -> Option<TaskStat> {
    let path = proc_dir
        .join(pid.to_string())
        .join("task")
        .join(tid.to_string())
        .join("stat");
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| parse_stat(&s))
}

/// The known real-time threads that are runnable at or above `priority` on `cpus` now:
/// one small read per real-time thread, cheap enough for every [`SCAN_PERIOD`].
pub fn check(proc_dir: &Path, known: &[(u32, u32)], cpus: &[u32], priority: u32) -> Vec<Rival> {
    let mut out = Vec::new();
    for &(pid, tid) in known {
        let Some(st) = read_stat(proc_dir, pid, tid) else {
            continue;
        };
        if st.state == 'R'
            && (st.policy == 1 || st.policy == 2)
            && st.rt_priority >= priority.max(1)
            && cpus.contains(&st.cpu)
        {
            out.push(Rival {
                pid,
                tid,
                comm: st.comm,
                policy: st.policy,
                rt_priority: st.rt_priority,
                cpu: st.cpu,
                seen: 1,
            });
        }
    }
    out
}

/// Scans between two walks over all of /proc (5 s at [`SCAN_PERIOD`]).
pub const DISCOVER_EVERY: u32 = 10;

/// Adds one scan's findings to the tally.
pub fn tally(acc: &mut Vec<Rival>, found: Vec<Rival>) {
    for r in found {
        match acc.iter_mut().find(|a| a.tid == r.tid && a.pid == r.pid) {
            Some(a) => {
                a.seen += 1;
                a.cpu = r.cpu;
            }
            None => acc.push(r),
        }
    }
}

/// The sampler thread.
pub struct RivalScan {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<(Vec<Rival>, u32)>>,
    cpus: Vec<u32>,
    priority: u32,
}

impl RivalScan {
    /// Scans `proc_dir` every [`SCAN_PERIOD`] until `finish`.
    pub fn start(proc_dir: PathBuf, cpus: &[u32], priority: u32) -> Option<RivalScan> {
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        let c = cpus.to_vec();
        let own = std::process::id();
        let handle = std::thread::Builder::new()
            .name("latscope-rivals".into())
            .spawn(move || {
                // The scan is kernel work on a machine being measured: keep it out of
                // the way (lowest SCHED_OTHER weight, and on a CPU not measured when
                // there is one).
                // SAFETY: plain system calls on the calling thread.
                unsafe {
                    let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                    libc::setpriority(libc::PRIO_PROCESS, tid, 19);
                }
                crate::housekeeping::move_off(&c);
                let mut acc = Vec::new();
                let mut scans = 0;
                let mut known = Vec::new();
                while !st.load(Ordering::Relaxed) {
                    if scans % DISCOVER_EVERY == 0 {
                        known = discover(&proc_dir, own);
                    }
                    tally(&mut acc, check(&proc_dir, &known, &c, priority));
                    scans += 1;
                    // Sleep in short pieces so finish() is quick.
                    for _ in 0..5 {
                        if st.load(Ordering::Relaxed) {
                            break;
                        }
                        std::thread::sleep(SCAN_PERIOD / 5);
                    }
                }
                (acc, scans)
            })
            .ok()?;
        Some(RivalScan {
            stop,
            handle: Some(handle),
            cpus: cpus.to_vec(),
            priority,
        })
    }

    /// Stops and returns the diagnosis item.
    pub fn finish(mut self) -> Item {
        self.stop.store(true, Ordering::Relaxed);
        let (acc, scans) = self
            .handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        item(&acc, scans, &self.cpus, self.priority)
    }
}

/// The diagnosis item for a tally of `scans` scans.
pub fn item(acc: &[Rival], scans: u32, cpus: &[u32], priority: u32) -> Item {
    let cpu_list = crate::settings::format_cpu_list(cpus);
    let mut v: Vec<&Rival> = acc.iter().collect();
    v.sort_by_key(|r| (std::cmp::Reverse(r.seen), std::cmp::Reverse(r.rt_priority)));
    let (status, value) = if v.is_empty() {
        (
            Status::Ok,
            format!(
                "no other real-time thread at priority {} or above was runnable on CPU {cpu_list} in {scans} scans",
                priority.max(1)
            ),
        )
    } else {
        let names: Vec<String> = v
            .iter()
            .take(5)
            .map(|r| {
                format!(
                    "'{}' (pid {}, {} {}) on cpu{} in {} of {scans} scans",
                    r.comm,
                    r.tid,
                    if r.policy == 2 { "RR" } else { "FIFO" },
                    r.rt_priority,
                    r.cpu,
                    r.seen
                )
            })
            .collect();
        (
            Status::Bad,
            format!(
                "{} runnable at priority {} or above: {}",
                v.len(),
                priority.max(1),
                names.join("; ")
            ),
        )
    };
    Item {
        name: "rival_rt_threads".into(),
        status,
        value,
        effect: "A real-time thread of the same or higher priority on a measured CPU runs before the woken measuring thread (FIFO never preempts an equal): the latencies then include its run time, not just the kernel's wake-up path.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(tid: u32, comm: &str, state: char, cpu: u32, prio: u32, policy: u32) -> String {
        // 52 fields as the kernel writes them; only those read here are meaningful.
        let mut f: Vec<String> = (0..49).map(|i| i.to_string()).collect();
        f[0] = state.to_string();
        f[36] = cpu.to_string();
        f[37] = prio.to_string();
        f[38] = policy.to_string();
        format!("{tid} ({comm}) {}\n", f.join(" "))
    }

    #[test]
    fn stat_lines_parse() {
        let s = parse_stat(&stat(7, "weird) name (x", 'R', 1, 90, 1)).unwrap();
        assert_eq!(s.comm, "weird) name (x");
        assert_eq!((s.state, s.cpu, s.rt_priority, s.policy), ('R', 1, 90, 1));
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn only_runnable_rt_threads_at_or_above_on_measured_cpus_count() {
        let d = tempfile::tempdir().unwrap();
        let mk = |pid: u32, tid: u32, text: String| {
            let p = d
                .path()
                .join(pid.to_string())
                .join("task")
                .join(tid.to_string());
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("stat"), text).unwrap();
        };
        mk(10, 10, stat(10, "kworker/1:2", 'R', 1, 90, 1)); // counts
        mk(11, 11, stat(11, "same-prio", 'R', 1, 80, 2)); // counts (RR 80)
        mk(12, 12, stat(12, "lower", 'R', 1, 50, 1)); // below 80
        mk(13, 13, stat(13, "sleeping", 'S', 1, 99, 1)); // not runnable
        mk(14, 14, stat(14, "other-cpu", 'R', 0, 99, 1)); // CPU not measured
        mk(15, 15, stat(15, "normal", 'R', 1, 0, 0)); // SCHED_OTHER
        mk(99, 99, stat(99, "ourselves", 'R', 1, 80, 1)); // own process
        let mut acc = Vec::new();
        tally(&mut acc, scan(d.path(), &[1], 80, 99));
        tally(&mut acc, scan(d.path(), &[1], 80, 99));
        let mut names: Vec<&str> = acc.iter().map(|r| r.comm.as_str()).collect();
        names.sort();
        assert_eq!(names, vec!["kworker/1:2", "same-prio"]);
        assert!(acc.iter().all(|r| r.seen == 2));
        let it = item(&acc, 2, &[1], 80);
        assert_eq!(it.status, Status::Bad);
        assert!(
            it.value
                .contains("'kworker/1:2' (pid 10, FIFO 90) on cpu1 in 2 of 2 scans"),
            "{}",
            it.value
        );
        assert!(it.value.contains("RR 80"), "{}", it.value);
        let none = item(&[], 8, &[0, 1], 80);
        assert_eq!(none.status, Status::Ok);
        assert!(none.value.contains("in 8 scans"), "{}", none.value);
    }
}
