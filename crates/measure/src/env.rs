//! Environment diagnosis: everything on this machine that distorts wake-up latency,
//! read from a root directory (default `/`) so tests can point it at fixture trees.
//!
//! Every item carries a status and one plain-words line saying how it distorts latency.
//! Nothing here changes the machine.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Bad,
    Info,
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Bad => "bad",
            Status::Info => "info",
            Status::Unknown => "unknown",
        }
    }
}

/// One diagnosis line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Item {
    /// Stable identifier, e.g. `preemption`, `cpufreq`, `steal_time`.
    pub name: String,
    pub status: Status,
    pub value: String,
    /// How this distorts latency, in plain words.
    pub effect: String,
}

fn item(name: &str, status: Status, value: impl Into<String>, effect: &str) -> Item {
    Item {
        name: name.into(),
        status,
        value: value.into(),
        effect: effect.into(),
    }
}

/// Where to read from.
#[derive(Clone, Debug)]
pub struct Probe {
    pub root: PathBuf,
    /// CPUs being measured.
    pub cpus: Vec<u32>,
}

impl Probe {
    pub fn new(root: impl Into<PathBuf>, cpus: &[u32]) -> Probe {
        Probe {
            root: root.into(),
            cpus: cpus.to_vec(),
        }
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel.trim_start_matches('/'))
    }
    /// The file's text, trimmed; `None` when missing or unreadable.
    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel))
            .ok()
            .map(|s| s.trim().to_string())
    }
    fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }
}

/// Online CPUs from `sys/devices/system/cpu/online` under `root`.
pub fn online_cpus(root: &Path) -> Option<Vec<u32>> {
    let t = std::fs::read_to_string(root.join("sys/devices/system/cpu/online")).ok()?;
    crate::settings::parse_cpu_list(t.trim()).ok()
}

/// Kernel config lines `CONFIG_X=v` (comments and blanks ignored).
pub fn parse_kconfig(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            if l.starts_with('#') {
                return None;
            }
            let (k, v) = l.split_once('=')?;
            Some((k.trim().to_string(), v.trim().trim_matches('"').to_string()))
        })
        .collect()
}

/// The running kernel's configuration: `/boot/config-<release>`, else `/proc/config.gz`
/// (CONFIG_IKCONFIG_PROC; common where /boot is not mounted, in containers and on embedded
/// boards). At most 16 MiB are inflated, so a corrupt file cannot exhaust memory.
fn kconfig(p: &Probe) -> Option<(String, BTreeMap<String, String>)> {
    if let Some(rel) = p.read("proc/sys/kernel/osrelease") {
        let name = format!("boot/config-{rel}");
        if let Some(text) = p.read(&name) {
            return Some((format!("/{name}"), parse_kconfig(&text)));
        }
    }
    let gz = std::fs::File::open(p.path("proc/config.gz")).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(flate2::read::GzDecoder::new(gz), 16 << 20),
        &mut text,
    )
    .ok()?;
    Some(("/proc/config.gz".to_string(), parse_kconfig(&text)))
}

/// The mode in parentheses of `/sys/kernel/debug/sched/preempt` (`none voluntary (full) lazy`).
pub fn parse_preempt_debugfs(text: &str) -> Option<String> {
    let a = text.find('(')?;
    let b = text[a..].find(')')? + a;
    Some(text[a + 1..b].trim().to_string())
}

const EFFECT_PREEMPT: &str = "Without full preemption a woken thread waits until the running kernel code reaches a preemption point; that can take milliseconds.";

/// Preemption model from debugfs, /sys/kernel/realtime, /proc/version and /boot/config-*.
pub fn preemption(p: &Probe) -> Item {
    let version = p.read("proc/version").unwrap_or_default();
    let cfg = kconfig(p);
    let y = |k: &str| {
        cfg.as_ref()
            .map(|(_, c)| c.get(k).map(|v| v == "y").unwrap_or(false))
            .unwrap_or(false)
    };
    let rt = version.contains("PREEMPT_RT")
        || y("CONFIG_PREEMPT_RT")
        || p.read("sys/kernel/realtime").as_deref() == Some("1");
    let dynamic = version.contains("PREEMPT_DYNAMIC") || y("CONFIG_PREEMPT_DYNAMIC");
    let mode = p
        .read("sys/kernel/debug/sched/preempt")
        .and_then(|t| parse_preempt_debugfs(&t));
    let (status, value) = if rt {
        (
            Status::Ok,
            "PREEMPT_RT (fully preemptible kernel)".to_string(),
        )
    } else if let Some(m) = mode {
        let st = match m.as_str() {
            "full" | "lazy" => Status::Ok,
            _ => Status::Warn,
        };
        let what = if dynamic {
            "PREEMPT_DYNAMIC"
        } else {
            "preempt"
        };
        (st, format!("{what}, current mode '{m}'"))
    } else if dynamic {
        // debugfs locked down or not mounted: the boot command line's preempt= wins,
        // else the default model the kernel was configured with.
        let cmdline = p.read("proc/cmdline").unwrap_or_default();
        let from_cmdline = cmdline
            .split_whitespace()
            .find_map(|w| w.strip_prefix("preempt="))
            .map(str::to_string);
        let from_config = if y("CONFIG_PREEMPT_NONE") {
            Some("none")
        } else if y("CONFIG_PREEMPT_VOLUNTARY") {
            Some("voluntary")
        } else if y("CONFIG_PREEMPT_LAZY") {
            Some("lazy")
        } else if y("CONFIG_PREEMPT") {
            Some("full")
        } else {
            None
        };
        match (from_cmdline, from_config) {
            (Some(m), _) => (
                if m == "full" || m == "lazy" { Status::Ok } else { Status::Warn },
                format!("PREEMPT_DYNAMIC, mode '{m}' from the boot command line (debugfs sched/preempt not readable)"),
            ),
            (None, Some(m)) => (
                if m == "full" || m == "lazy" { Status::Ok } else { Status::Warn },
                format!(
                    "PREEMPT_DYNAMIC, mode '{m}': the default of the kernel configuration ({}), no preempt= on the command line (debugfs sched/preempt not readable)",
                    cfg.as_ref().map(|(n, _)| n.as_str()).unwrap_or("?")
                ),
            ),
            (None, None) => (
                Status::Warn,
                "PREEMPT_DYNAMIC, current mode not readable (sys/kernel/debug/sched/preempt missing: debugfs not mounted?)".to_string(),
            ),
        }
    } else if version.contains(" PREEMPT ") || y("CONFIG_PREEMPT") {
        (Status::Ok, "PREEMPT (full preemption, not RT)".to_string())
    } else if y("CONFIG_PREEMPT_VOLUNTARY") {
        (Status::Warn, "voluntary preemption".to_string())
    } else if y("CONFIG_PREEMPT_NONE") {
        (
            Status::Warn,
            "no forced preemption (server kernel)".to_string(),
        )
    } else if version.is_empty() {
        (Status::Unknown, "not readable".to_string())
    } else {
        (
            Status::Warn,
            "no PREEMPT marker in /proc/version: none or voluntary".to_string(),
        )
    };
    item("preemption", status, value, EFFECT_PREEMPT)
}

/// HZ and NO_HZ from the kernel config, when there is one.
pub fn tick(p: &Probe) -> Item {
    const EFFECT: &str = "The tick interrupts each busy CPU HZ times a second; with NO_HZ_IDLE an idle CPU stops it and restarts it on wake-up, with NO_HZ_FULL an isolated CPU runs without it.";
    let Some((name, c)) = kconfig(p) else {
        return item(
            "tick",
            Status::Unknown,
            "not readable (no /boot/config-<release>, no /proc/config.gz)",
            EFFECT,
        );
    };
    let hz = c.get("CONFIG_HZ").cloned().unwrap_or_else(|| "?".into());
    let nohz = if c.get("CONFIG_NO_HZ_FULL").map(|v| v == "y") == Some(true) {
        "NO_HZ_FULL"
    } else if c.get("CONFIG_NO_HZ_IDLE").map(|v| v == "y") == Some(true) {
        "NO_HZ_IDLE"
    } else if c.get("CONFIG_HZ_PERIODIC").map(|v| v == "y") == Some(true) {
        "periodic tick"
    } else {
        "NO_HZ not stated"
    };
    item(
        "tick",
        Status::Info,
        format!("HZ={hz}, {nohz} (from {name})"),
        EFFECT,
    )
}

/// cpufreq governor of each measured CPU.
pub fn cpufreq(p: &Probe) -> Item {
    const EFFECT: &str = "A governor other than 'performance' lowers the clock while idle, so the wake-up path runs slower (\"Wakeup Latency, CPU Frequency (Gotcha)\", a naive Python sleep loop on a Raspberry Pi 4: 105 us with ondemand, 67 us with performance).";
    let mut govs = Vec::new();
    for c in &p.cpus {
        if let Some(g) = p.read(&format!(
            "sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor"
        )) {
            govs.push((*c, g));
        }
    }
    if govs.is_empty() {
        return item(
            "cpufreq",
            Status::Info,
            "not exposed (no cpufreq directory: fixed clock or VM guest; cannot be checked here)",
            EFFECT,
        );
    }
    let all_perf = govs.iter().all(|(_, g)| g == "performance") && govs.len() == p.cpus.len();
    let value = group_by_value(&govs);
    item(
        "cpufreq",
        if all_perf { Status::Ok } else { Status::Warn },
        value,
        EFFECT,
    )
}

/// "cpu0-1 performance, cpu2 powersave" from (cpu, value) pairs.
fn group_by_value(pairs: &[(u32, String)]) -> String {
    let mut by: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (c, v) in pairs {
        by.entry(v.as_str()).or_default().push(*c);
    }
    by.iter()
        .map(|(v, cs)| format!("cpu{} {v}", crate::settings::format_cpu_list(cs)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Exit latency (µs) above which an enabled idle state earns a warning.
pub const DEEP_IDLE_US: u64 = 10;

/// cpuidle driver and states (name, exit latency, disabled) of the first measured CPU.
pub fn cpuidle(p: &Probe) -> Item {
    const EFFECT: &str = "A CPU in a deep idle state needs its exit latency to wake; that adds to every wake-up unless PM QoS (/dev/cpu_dma_latency) forbids those states.";
    let driver = p
        .read("sys/devices/system/cpu/cpuidle/current_driver")
        .unwrap_or_else(|| "not exposed".into());
    let cpu = p.cpus.first().copied().unwrap_or(0);
    let mut states = Vec::new();
    for i in 0..32 {
        let base = format!("sys/devices/system/cpu/cpu{cpu}/cpuidle/state{i}");
        if !p.exists(&base) {
            break;
        }
        let name = p
            .read(&format!("{base}/name"))
            .unwrap_or_else(|| format!("state{i}"));
        let lat: Option<u64> = p
            .read(&format!("{base}/latency"))
            .and_then(|s| s.parse().ok());
        let disabled = p.read(&format!("{base}/disable")).as_deref() == Some("1");
        states.push((name, lat, disabled));
    }
    if states.is_empty() {
        return item(
            "cpuidle",
            Status::Info,
            format!("driver {driver}, no idle states exposed"),
            EFFECT,
        );
    }
    let deepest = states
        .iter()
        .filter(|s| !s.2)
        .filter_map(|s| s.1)
        .max()
        .unwrap_or(0);
    let list = states
        .iter()
        .map(|(n, l, d)| {
            let l = l
                .map(|v| format!("{v} µs"))
                .unwrap_or_else(|| "? µs".into());
            format!("{n} {l}{}", if *d { " (disabled)" } else { "" })
        })
        .collect::<Vec<_>>()
        .join(", ");
    item(
        "cpuidle",
        if deepest > DEEP_IDLE_US {
            Status::Warn
        } else {
            Status::Ok
        },
        format!("driver {driver}: {list} (cpu{cpu})"),
        EFFECT,
    )
}

/// The "no request" value of /dev/cpu_dma_latency (2000 s in µs).
pub const PM_QOS_DEFAULT: i32 = 2_000_000_000;

/// Decodes what /dev/cpu_dma_latency returns: a native-endian s32 (or, for hand-made
/// fixtures, a decimal or 0x-hex text).
pub fn parse_pm_qos(bytes: &[u8]) -> Option<i32> {
    if bytes.len() == 4 {
        let v = i32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        // Four ASCII digits would also be 4 bytes; binary values are what the kernel gives.
        if !bytes.iter().all(|b| b.is_ascii_digit()) {
            return Some(v);
        }
    }
    let t = std::str::from_utf8(bytes).ok()?.trim();
    if let Some(h) = t.strip_prefix("0x") {
        return i32::from_str_radix(h, 16).ok();
    }
    t.parse().ok()
}

/// Current PM QoS CPU latency limit (system-wide).
pub fn pm_qos(p: &Probe) -> Item {
    const EFFECT: &str = "A low limit keeps every CPU of the machine out of idle states slower than it (less wake-up latency, more power); cyclictest silently sets 0 unless given --default-system.";
    match std::fs::read(p.path("dev/cpu_dma_latency")) {
        Err(e) => item(
            "pm_qos",
            Status::Unknown,
            format!("/dev/cpu_dma_latency not readable ({e})"),
            EFFECT,
        ),
        Ok(b) => match parse_pm_qos(&b) {
            None => item("pm_qos", Status::Unknown, "unreadable value", EFFECT),
            Some(PM_QOS_DEFAULT) => item(
                "pm_qos",
                Status::Info,
                "no limit (2000000000 µs, the default): the machine's normal idle behaviour",
                EFFECT,
            ),
            Some(v) => item(
                "pm_qos",
                Status::Warn,
                format!("limited to {v} µs by some process: idle states are restricted machine-wide, results look better than normal"),
                EFFECT,
            ),
        },
    }
}

/// Clocksource, and whether it can be read in user space through the vDSO.
pub fn clocksource(p: &Probe) -> Item {
    const EFFECT: &str = "Every sample reads the clock once; a clocksource without vDSO support turns each read into a system call of several hundred ns.";
    let cur = p.read("sys/devices/system/clocksource/clocksource0/current_clocksource");
    let avail = p
        .read("sys/devices/system/clocksource/clocksource0/available_clocksource")
        .unwrap_or_default();
    match cur {
        None => item("clocksource", Status::Unknown, "not readable", EFFECT),
        Some(c) => {
            let vdso = matches!(
                c.as_str(),
                "tsc"
                    | "kvm-clock"
                    | "arch_sys_counter"
                    | "hyperv_clocksource_tsc_page"
                    | "riscv_clocksource"
            );
            let st = if vdso { Status::Ok } else { Status::Warn };
            let note = if vdso {
                "vDSO-capable"
            } else {
                "not known to be vDSO-capable"
            };
            item(
                "clocksource",
                st,
                format!(
                    "{c} ({note}; available: {})",
                    if avail.is_empty() { "?" } else { &avail }
                ),
                EFFECT,
            )
        }
    }
}

/// Times `clock_gettime` through libc (vDSO when available) against the raw system call.
/// Returns (vdso_ns, syscall_ns) per call.
///
/// Each is the median of [`BATCHES`] batches, the two kinds interleaved: a batch that was
/// preempted or hit by an interrupt storm is an outlier the median ignores, where one
/// mean over all calls was inflated by it (it said "no vDSO" in 4 of 38 runs on a busy
/// guest).
pub fn time_clock_reads() -> (f64, f64) {
    let mut vdso = Vec::with_capacity(BATCHES);
    let mut sys = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        vdso.push(time_batch(read_vdso));
        sys.push(time_batch(read_syscall));
    }
    (median(&mut vdso), median(&mut sys))
}

/// Batches per kind of clock read, and calls per batch.
const BATCHES: usize = 21;
const PER_BATCH: u32 = 1_000;

fn read_vdso(ts: &mut libc::timespec) {
    // SAFETY: valid timespec pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, ts) };
}

fn read_syscall(ts: &mut libc::timespec) {
    // SAFETY: the clock_gettime system call with a valid timespec pointer.
    unsafe {
        libc::syscall(
            libc::SYS_clock_gettime,
            libc::CLOCK_MONOTONIC,
            ts as *mut libc::timespec,
        )
    };
}

/// Nanoseconds per call of `read` over one batch.
fn time_batch(read: fn(&mut libc::timespec)) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let t = std::time::Instant::now();
    for _ in 0..PER_BATCH {
        read(&mut ts);
    }
    t.elapsed().as_nanos() as f64 / PER_BATCH as f64
}

/// The median of per-batch figures (the middle one of an odd count; NaN-free input).
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Judges a (vdso, syscall) timing pair.
pub fn clock_read_item(vdso_ns: f64, syscall_ns: f64) -> Item {
    let fast = vdso_ns * 2.0 < syscall_ns;
    item(
        "clock_read",
        if fast { Status::Ok } else { Status::Warn },
        format!(
            "clock_gettime {vdso_ns:.0} ns per call, raw system call {syscall_ns:.0} ns: {}",
            if fast { "vDSO in use" } else { "no vDSO speed-up (falls back to a system call)" }
        ),
        "The clock read after each wake-up is part of every sample; a slow read adds to all of them.",
    )
}

/// RT throttling from /proc/sys/kernel/sched_rt_{runtime,period}_us.
pub fn rt_throttling(p: &Probe) -> Item {
    const EFFECT: &str = "RT tasks together may use only runtime/period of each CPU; past that the kernel pauses them, and an RT measuring thread queued behind a hog waits out the rest of the period.";
    let rt = p.read("proc/sys/kernel/sched_rt_runtime_us");
    let per = p.read("proc/sys/kernel/sched_rt_period_us");
    match (
        rt.and_then(|s| s.parse::<i64>().ok()),
        per.and_then(|s| s.parse::<i64>().ok()),
    ) {
        (Some(-1), _) => item(
            "rt_throttling",
            Status::Info,
            "off (sched_rt_runtime_us = -1)",
            EFFECT,
        ),
        (Some(r), Some(pd)) if pd > 0 => item(
            "rt_throttling",
            Status::Info,
            format!(
                "RT tasks limited to {r} µs per {pd} µs ({:.0} %)",
                r as f64 * 100.0 / pd as f64
            ),
            EFFECT,
        ),
        _ => item("rt_throttling", Status::Unknown, "not readable", EFFECT),
    }
}

#[allow(clippy::unnecessary_cast)] // rlim_t is u32 on some targets
/// Soft and hard limit of a resource; `Some(u64::MAX)` means unlimited.
pub fn rlimit(res: libc::__rlimit_resource_t) -> (Option<u64>, Option<u64>) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid rlimit pointer.
    if unsafe { libc::getrlimit(res, &mut r) } != 0 {
        return (None, None);
    }
    let f = |v: libc::rlim_t| {
        if v == libc::RLIM_INFINITY {
            u64::MAX
        } else {
            v as u64
        }
    };
    (Some(f(r.rlim_cur)), Some(f(r.rlim_max)))
}

pub fn fmt_limit_bytes(v: Option<u64>) -> String {
    match v {
        None => "unknown".into(),
        Some(u64::MAX) => "unlimited".into(),
        Some(b) if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        Some(b) if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        Some(b) => format!("{b} B"),
    }
}

/// The process limits that decide whether RT scheduling and memory locking work.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub root: bool,
    pub rtprio: Option<u64>,
    pub memlock: Option<u64>,
}

impl Limits {
    pub fn of_this_process() -> Limits {
        Limits {
            // SAFETY: geteuid has no preconditions.
            root: unsafe { libc::geteuid() } == 0,
            rtprio: rlimit(libc::RLIMIT_RTPRIO).0,
            memlock: rlimit(libc::RLIMIT_MEMLOCK).0,
        }
    }
}

pub fn limits_item(l: Limits, wanted_prio: i32) -> Item {
    const EFFECT: &str = "Without RT priority the measuring thread competes with every other task; without locked memory a page fault can add milliseconds.";
    let rt = match l.rtprio {
        Some(u64::MAX) => "unlimited".to_string(),
        Some(v) => v.to_string(),
        None => "unknown".into(),
    };
    let value = format!(
        "RLIMIT_RTPRIO {rt}, RLIMIT_MEMLOCK {}{}",
        fmt_limit_bytes(l.memlock),
        if l.root {
            " (root: the limits do not bind)"
        } else {
            ""
        }
    );
    let rt_ok = l.root
        || l.rtprio
            .map(|v| v >= wanted_prio.max(0) as u64)
            .unwrap_or(false);
    item(
        "rlimits",
        if rt_ok { Status::Ok } else { Status::Warn },
        value,
        EFFECT,
    )
}

/// Values of `isolcpus=`, `nohz_full=`, `rcu_nocbs=` (and friends) on the kernel command line.
pub fn parse_cmdline(text: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for tok in text.split_whitespace() {
        if tok == "--" {
            break;
        }
        let (k, v) = tok.split_once('=').unwrap_or((tok, ""));
        m.insert(k.to_string(), v.to_string());
    }
    m
}

/// CPUs named in an `isolcpus=` value, skipping its flags (`domain`, `managed_irq`, `nohz`).
pub fn isolated_cpus(v: &str) -> Vec<u32> {
    let list: Vec<&str> = v
        .split(',')
        .filter(|t| {
            t.chars()
                .next()
                .map(|c| c.is_ascii_digit())
                .unwrap_or(false)
        })
        .collect();
    crate::settings::parse_cpu_list(&list.join(",")).unwrap_or_default()
}

pub fn isolation(p: &Probe) -> Item {
    const EFFECT: &str = "Without isolcpus/nohz_full/rcu_nocbs the measured CPUs also run other tasks, the tick and RCU callbacks, all of which delay wake-ups.";
    let Some(text) = p.read("proc/cmdline") else {
        return item(
            "isolation",
            Status::Unknown,
            "/proc/cmdline not readable",
            EFFECT,
        );
    };
    let m = parse_cmdline(&text);
    let get = |k: &str| m.get(k).cloned().filter(|v| !v.is_empty());
    let iso = get("isolcpus");
    let nohz = get("nohz_full");
    let rcu = get("rcu_nocbs");
    let value = format!(
        "isolcpus={} nohz_full={} rcu_nocbs={}",
        iso.as_deref().unwrap_or("none"),
        nohz.as_deref().unwrap_or("none"),
        rcu.as_deref().unwrap_or("none")
    );
    let isolated = iso.as_deref().map(isolated_cpus).unwrap_or_default();
    let all_iso = !p.cpus.is_empty() && p.cpus.iter().all(|c| isolated.contains(c));
    item(
        "isolation",
        if all_iso { Status::Ok } else { Status::Info },
        value,
        EFFECT,
    )
}

/// SMT siblings of the measured CPUs.
pub fn smt(p: &Probe) -> Item {
    const EFFECT: &str = "A busy sibling hyperthread shares the core's execution units and caches and slows the woken thread.";
    let mut shared = Vec::new();
    let mut seen_any = false;
    for c in &p.cpus {
        let Some(t) = p.read(&format!(
            "sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list"
        )) else {
            continue;
        };
        seen_any = true;
        let sibs = crate::settings::parse_cpu_list(&t).unwrap_or_default();
        let others: Vec<u32> = sibs.into_iter().filter(|s| s != c).collect();
        if !others.is_empty() {
            shared.push(format!(
                "cpu{c} shares its core with cpu{}",
                crate::settings::format_cpu_list(&others)
            ));
        }
    }
    let active = p.read("sys/devices/system/cpu/smt/active");
    if !seen_any {
        return item("smt", Status::Unknown, "topology not readable", EFFECT);
    }
    if shared.is_empty() {
        item(
            "smt",
            Status::Ok,
            format!(
                "no SMT siblings among the measured CPUs{}",
                if active.as_deref() == Some("0") {
                    " (SMT inactive)"
                } else {
                    ""
                }
            ),
            EFFECT,
        )
    } else {
        item("smt", Status::Warn, shared.join("; "), EFFECT)
    }
}

/// Hypervisor detection: cpuinfo flag, /sys/hypervisor, DMI.
pub fn hypervisor(p: &Probe) -> Item {
    const EFFECT: &str = "The host can deschedule a vCPU at any moment (steal time); a guest's maxima include the host's own scheduling delays.";
    let mut evidence = Vec::new();
    if let Some(ci) = p.read("proc/cpuinfo") {
        if ci
            .lines()
            .filter(|l| l.starts_with("flags"))
            .any(|l| l.split_whitespace().any(|w| w == "hypervisor"))
        {
            evidence.push("cpuinfo 'hypervisor' flag".to_string());
        }
    }
    if let Some(t) = p.read("sys/hypervisor/type").filter(|t| !t.is_empty()) {
        evidence.push(format!("/sys/hypervisor/type {t}"));
    }
    let vendor = p.read("sys/class/dmi/id/sys_vendor").unwrap_or_default();
    let product = p.read("sys/class/dmi/id/product_name").unwrap_or_default();
    let dmi = format!("{vendor} {product}").trim().to_string();
    let virt_words = [
        "QEMU",
        "KVM",
        "VMware",
        "VirtualBox",
        "Xen",
        "Microsoft",
        "Amazon",
        "Google",
        "Firecracker",
        "Bochs",
        "Cloud Hypervisor",
    ];
    if !dmi.is_empty() && virt_words.iter().any(|w| dmi.contains(w)) {
        evidence.push(format!("DMI '{dmi}'"));
    }
    if evidence.is_empty() {
        item(
            "hypervisor",
            Status::Ok,
            "none detected (bare metal)",
            EFFECT,
        )
    } else {
        item(
            "hypervisor",
            Status::Warn,
            format!("present: {}", evidence.join(", ")),
            EFFECT,
        )
    }
}

/// Whether the timerlat tracer (rtla timerlat) is available.
pub fn timerlat(p: &Probe) -> Item {
    const EFFECT: &str = "timerlat splits latency into its IRQ and thread parts in the kernel; without it only end-to-end wake-up latency can be measured (as here).";
    let t = p
        .read("sys/kernel/tracing/available_tracers")
        .or_else(|| p.read("sys/kernel/debug/tracing/available_tracers"));
    match t {
        Some(t) if t.split_whitespace().any(|w| w == "timerlat") => item(
            "timerlat",
            Status::Info,
            "available (rtla timerlat can run)",
            EFFECT,
        ),
        Some(_) => item(
            "timerlat",
            Status::Info,
            "not built into this kernel (CONFIG_TIMERLAT_TRACER off)",
            EFFECT,
        ),
        None => item(
            "timerlat",
            Status::Unknown,
            "tracefs not mounted (sys/kernel/tracing missing)",
            EFFECT,
        ),
    }
}

/// Everything that can be read before the run, in print order.
pub fn diagnose(p: &Probe) -> Vec<Item> {
    vec![
        preemption(p),
        tick(p),
        cpufreq(p),
        cpuidle(p),
        pm_qos(p),
        clocksource(p),
        rt_throttling(p),
        isolation(p),
        smt(p),
        hypervisor(p),
        timerlat(p),
    ]
}

/// One /proc/interrupts row: (name, description, count per CPU column).
pub type IrqLine = (String, String, Vec<u64>);

/// Counters read before and after a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Steal time per CPU in USER_HZ ticks (8th value of `cpuN` in /proc/stat).
    pub steal_ticks: BTreeMap<u32, u64>,
    /// CPU ids of the /proc/interrupts columns.
    pub irq_cpus: Vec<u32>,
    /// Per source: (name, description, count per column).
    pub irqs: Vec<IrqLine>,
}

pub fn parse_proc_stat(text: &str) -> BTreeMap<u32, u64> {
    let mut m = BTreeMap::new();
    for l in text.lines() {
        let mut it = l.split_whitespace();
        let Some(head) = it.next() else { continue };
        let Some(n) = head.strip_prefix("cpu").and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Some(steal) = it.nth(7).and_then(|v| v.parse::<u64>().ok()) {
            m.insert(n, steal);
        }
    }
    m
}

/// Parses /proc/interrupts: header `CPU0 CPU1 …`, then `NAME: counts… description`.
pub fn parse_interrupts(text: &str) -> (Vec<u32>, Vec<IrqLine>) {
    let mut lines = text.lines();
    let cpus: Vec<u32> = lines
        .next()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("CPU").and_then(|n| n.parse().ok()))
        .collect();
    let mut out = Vec::new();
    for l in lines {
        let Some((name, rest)) = l.split_once(':') else {
            continue;
        };
        let mut counts = Vec::with_capacity(cpus.len());
        let mut rest = rest.trim_start();
        while counts.len() < cpus.len() {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            match rest[..end].parse::<u64>() {
                Ok(v) => {
                    counts.push(v);
                    rest = rest[end..].trim_start();
                }
                Err(_) => break,
            }
        }
        if counts.is_empty() {
            continue;
        }
        let desc = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((name.trim().to_string(), desc, counts));
    }
    (cpus, out)
}

impl Snapshot {
    pub fn take(root: &Path) -> Snapshot {
        let stat = std::fs::read_to_string(root.join("proc/stat")).unwrap_or_default();
        let irq = std::fs::read_to_string(root.join("proc/interrupts")).unwrap_or_default();
        let (irq_cpus, irqs) = parse_interrupts(&irq);
        Snapshot {
            steal_ticks: parse_proc_stat(&stat),
            irq_cpus,
            irqs,
        }
    }
}

/// USER_HZ of this system (the unit of /proc/stat).
pub fn clk_tck() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if v > 0 {
        v as u64
    } else {
        100
    }
}

/// Items for what happened during the run: steal time and interrupts on the measured CPUs.
pub fn during_run(
    before: &Snapshot,
    after: &Snapshot,
    cpus: &[u32],
    elapsed_ns: i64,
    clk_tck: u64,
) -> Vec<Item> {
    vec![
        steal_during(before, after, cpus, elapsed_ns, clk_tck),
        interrupts_during(before, after, cpus, elapsed_ns),
    ]
}

/// Steal time on the measured CPUs: bad above 1 % of the run on any of them.
fn steal_during(
    before: &Snapshot,
    after: &Snapshot,
    cpus: &[u32],
    elapsed_ns: i64,
    clk_tck: u64,
) -> Item {
    const STEAL: &str = "Steal time is time the hypervisor ran something else on this vCPU; a wake-up due then waits for the vCPU to be scheduled again (the usual source of multi-millisecond maxima in a guest).";
    let mut parts = Vec::new();
    let mut worst_share = 0.0f64;
    let mut any = false;
    let mut total_ns = 0i64;
    for c in cpus {
        if let (Some(a), Some(b)) = (before.steal_ticks.get(c), after.steal_ticks.get(c)) {
            any = true;
            let ns =
                (b.saturating_sub(*a) as i64).saturating_mul(1_000_000_000 / clk_tck.max(1) as i64);
            total_ns += ns;
            if elapsed_ns > 0 {
                worst_share = worst_share.max(ns as f64 / elapsed_ns as f64);
            }
            parts.push(format!("cpu{c} {:.0} ms", ns as f64 / 1e6));
        }
    }
    if !any {
        return item(
            "steal_time",
            Status::Unknown,
            "/proc/stat not readable",
            STEAL,
        );
    }
    let st = if total_ns == 0 {
        Status::Ok
    } else if worst_share > 0.01 {
        Status::Bad
    } else {
        Status::Warn
    };
    item(
        "steal_time",
        st,
        format!(
            "{} during the {:.1} s run (resolution {} ms)",
            parts.join(", "),
            elapsed_ns as f64 / 1e9,
            1000 / clk_tck.max(1)
        ),
        STEAL,
    )
}

/// Interrupts on the measured CPUs, the busiest three per CPU named: a warning when a
/// device interrupts one of them more than 1000 times a second.
fn interrupts_during(before: &Snapshot, after: &Snapshot, cpus: &[u32], elapsed_ns: i64) -> Item {
    const IRQ: &str = "Every interrupt on a measured CPU runs before the woken thread can; device interrupts there add their handler time to the latency.";
    if after.irq_cpus.is_empty() {
        return item(
            "interrupts",
            Status::Unknown,
            "/proc/interrupts not readable",
            IRQ,
        );
    }
    let mut parts = Vec::new();
    let secs = (elapsed_ns as f64 / 1e9).max(1e-9);
    let mut busiest_device_rate = 0.0f64;
    for c in cpus {
        let Some(col) = after.irq_cpus.iter().position(|x| x == c) else {
            continue;
        };
        let deltas = irq_deltas(before, after, *c, col);
        for (name, d) in &deltas {
            // Numbered lines are devices; named ones (LOC, RES, CAL…) are the kernel's own.
            if name.chars().all(|ch| ch.is_ascii_digit()) {
                busiest_device_rate = busiest_device_rate.max(*d as f64 / secs);
            }
        }
        let total: u64 = deltas.iter().map(|d| d.1).sum();
        let top = deltas
            .iter()
            .take(3)
            .map(|(n, d)| {
                if n.chars().all(|ch| ch.is_ascii_digit()) {
                    format!("irq{n} {d}")
                } else {
                    format!("{n} {d}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        parts.push(format!(
            "cpu{c} {total} ({:.0}/s{}{top}{})",
            total as f64 / secs,
            if top.is_empty() { "" } else { ": " },
            if deltas.len() > 3 { ", …" } else { "" }
        ));
    }
    item(
        "interrupts",
        if busiest_device_rate > 1000.0 {
            Status::Warn
        } else {
            Status::Info
        },
        format!("during the run: {}", parts.join("; ")),
        IRQ,
    )
}

/// The interrupts CPU `cpu` (column `col` of `after`) took during the run, by line,
/// most first (ties by name); lines without any left out.
fn irq_deltas(before: &Snapshot, after: &Snapshot, cpu: u32, col: usize) -> Vec<(String, u64)> {
    let bcol = before.irq_cpus.iter().position(|x| *x == cpu);
    let mut deltas: Vec<(String, u64)> = Vec::new();
    for (name, _desc, counts) in &after.irqs {
        let now = counts.get(col).copied().unwrap_or(0);
        let then = bcol
            .and_then(|bc| {
                before
                    .irqs
                    .iter()
                    .find(|(n, _, _)| n == name)
                    .and_then(|(_, _, cs)| cs.get(bc).copied())
            })
            .unwrap_or(0);
        let d = now.saturating_sub(then);
        if d > 0 {
            deltas.push((name.clone(), d));
        }
    }
    deltas.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    deltas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preempt_mode_in_parentheses() {
        assert_eq!(
            parse_preempt_debugfs("none voluntary (full) lazy").as_deref(),
            Some("full")
        );
        assert_eq!(
            parse_preempt_debugfs("(none) voluntary full").as_deref(),
            Some("none")
        );
        assert_eq!(parse_preempt_debugfs("none voluntary full"), None);
    }

    #[test]
    fn pm_qos_values() {
        assert_eq!(
            parse_pm_qos(&2_000_000_000i32.to_ne_bytes()),
            Some(PM_QOS_DEFAULT)
        );
        assert_eq!(parse_pm_qos(&0i32.to_ne_bytes()), Some(0));
        assert_eq!(parse_pm_qos(b"0x77359400"), Some(2_000_000_000));
        assert_eq!(parse_pm_qos(b"12\n"), Some(12));
        assert_eq!(parse_pm_qos(b"xyz"), None);
    }

    #[test]
    fn proc_stat_steal_column() {
        let t = "cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 0 1 1 1 0 0 12 0 0\ncpu1 1 0 1 1 1 0 0 13 0 0\nintr 5 5\n";
        let m = parse_proc_stat(t);
        assert_eq!(m.len(), 2);
        assert_eq!(m[&0], 12);
        assert_eq!(m[&1], 13);
    }

    #[test]
    fn interrupts_table() {
        let t = "           CPU0       CPU1       \n 24:          1          0  IO-APIC   5-edge      ACPI:Ged\nLOC:      51922      51927   Local timer interrupts\nERR:          0\n";
        let (cpus, rows) = parse_interrupts(t);
        assert_eq!(cpus, vec![0, 1]);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].0, "24");
        assert_eq!(rows[0].1, "IO-APIC 5-edge ACPI:Ged");
        assert_eq!(rows[1].2, vec![51922, 51927]);
        assert_eq!(rows[2].2, vec![0]);
    }

    #[test]
    fn cmdline_and_isolcpus() {
        let m = parse_cmdline("quiet isolcpus=domain,managed_irq,2-3 nohz_full=2-3 -- init=foo");
        assert_eq!(m["isolcpus"], "domain,managed_irq,2-3");
        assert!(!m.contains_key("init"));
        assert_eq!(isolated_cpus(&m["isolcpus"]), vec![2, 3]);
        assert_eq!(isolated_cpus("1,5"), vec![1, 5]);
    }

    #[test]
    fn limits_judgement() {
        let l = Limits {
            root: false,
            rtprio: Some(0),
            memlock: Some(8 << 20),
        };
        let i = limits_item(l, 80);
        assert_eq!(i.status, Status::Warn);
        assert!(i.value.contains("8 MiB"), "{}", i.value);
        let l = Limits {
            root: false,
            rtprio: Some(99),
            memlock: Some(u64::MAX),
        };
        assert_eq!(limits_item(l, 80).status, Status::Ok);
        let l = Limits {
            root: true,
            rtprio: Some(0),
            memlock: None,
        };
        assert_eq!(limits_item(l, 80).status, Status::Ok);
    }

    #[test]
    fn a_preempted_batch_does_not_move_the_clock_read_figure() {
        // 21 batches of 25 ns per call, one preempted for 4 ms over 1,000 calls.
        let mut v = vec![25.0; 21];
        v[7] = 25.0 + 4_000_000.0 / 1_000.0;
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!(
            clock_read_item(mean, 360.0).status == Status::Warn,
            "the old mean misjudged"
        );
        assert_eq!(median(&mut v), 25.0);
        assert_eq!(clock_read_item(median(&mut v), 360.0).status, Status::Ok);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn clock_read_judgement() {
        assert_eq!(clock_read_item(25.0, 360.0).status, Status::Ok);
        assert_eq!(clock_read_item(350.0, 360.0).status, Status::Warn);
    }
}
