//! What to measure and how: the validated settings of one `measure` run, and the parsers
//! for the text forms users type (`0,2-3`, `cpu:2,mem:1`) behind the typed values of
//! [`crate::values`] (`10us..1s` is [`crate::values::SweepRange`]).

use crate::MeasureError;
use serde::{Deserialize, Serialize};

/// Scheduling class of the measuring threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    Fifo,
    Rr,
    Other,
}

impl Policy {
    pub fn parse(text: &str) -> Result<Policy, MeasureError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "fifo" | "sched_fifo" => Ok(Policy::Fifo),
            "rr" | "sched_rr" => Ok(Policy::Rr),
            "other" | "normal" | "sched_other" => Ok(Policy::Other),
            _ => Err(MeasureError::Input(format!(
                "unknown scheduling policy '{text}' (use fifo, rr or other)"
            ))),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Fifo => "fifo",
            Policy::Rr => "rr",
            Policy::Other => "other",
        }
    }
    pub fn libc(self) -> libc::c_int {
        match self {
            Policy::Fifo => libc::SCHED_FIFO,
            Policy::Rr => libc::SCHED_RR,
            Policy::Other => libc::SCHED_OTHER,
        }
    }
    /// Allowed priority range for this policy (Linux: 1..=99 for RT classes, 0 otherwise).
    pub fn priority_range(self) -> (i32, i32) {
        match self {
            Policy::Fifo | Policy::Rr => (1, 99),
            Policy::Other => (0, 0),
        }
    }
}

/// How a measuring thread waits for its next period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimerMode {
    /// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next)`: the cyclictest default.
    Absolute,
    /// `clock_nanosleep(CLOCK_MONOTONIC, 0, interval)`: the naive sleep loop of "Linux
    /// wake-up latency with a naive Python sleep loop (Raspberry Pi 4)".
    Relative,
    /// A periodic `timerfd` on CLOCK_MONOTONIC, waited for with `read`.
    Timerfd,
}

impl TimerMode {
    pub fn parse(text: &str) -> Result<TimerMode, MeasureError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "absolute" | "abs" => Ok(TimerMode::Absolute),
            "relative" | "rel" => Ok(TimerMode::Relative),
            "timerfd" => Ok(TimerMode::Timerfd),
            _ => Err(MeasureError::Input(format!(
                "unknown timer mode '{text}' (use absolute, relative or timerfd)"
            ))),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            TimerMode::Absolute => "absolute",
            TimerMode::Relative => "relative",
            TimerMode::Timerfd => "timerfd",
        }
    }
}

/// What to do with periods whose intended wake time passed before the thread woke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverrunPolicy {
    /// Count them and continue with the next future period (no sample for them).
    Skip,
    /// Count them and record each one with its own latency (wake time − its intended time).
    CatchUp,
}

impl OverrunPolicy {
    pub fn parse(text: &str) -> Result<OverrunPolicy, MeasureError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "skip" => Ok(OverrunPolicy::Skip),
            "catch-up" | "catchup" | "catch_up" => Ok(OverrunPolicy::CatchUp),
            _ => Err(MeasureError::Input(format!(
                "unknown overrun policy '{text}' (use skip or catch-up)"
            ))),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            OverrunPolicy::Skip => "skip",
            OverrunPolicy::CatchUp => "catch-up",
        }
    }
}

/// Kind of built-in background load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadKind {
    /// Busy-looping threads (SCHED_OTHER).
    Cpu,
    /// Threads that stride through a 32 MiB buffer each, thrashing caches and memory.
    Mem,
    /// Threads that enter the kernel in a tight loop (cheap system calls).
    Syscall,
}

/// `kind:N` — N threads of one load kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadSpec {
    pub kind: LoadKind,
    pub threads: u32,
}

impl std::fmt::Display for LoadSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = match self.kind {
            LoadKind::Cpu => "cpu",
            LoadKind::Mem => "mem",
            LoadKind::Syscall => "syscall",
        };
        write!(f, "{k}:{}", self.threads)
    }
}

/// Upper bound on load threads per kind: enough to swamp any machine, small enough that a
/// typo (`cpu:3000`) is caught.
pub const MAX_LOAD_THREADS: u32 = 1024;

/// Parses `cpu:2`, `mem:1,syscall:4` (comma-separated, kinds may repeat and add up).
pub fn parse_loads(text: &str) -> Result<Vec<LoadSpec>, MeasureError> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        out.push(parse_load(part)?);
    }
    if out.is_empty() {
        return Err(MeasureError::Input(format!(
            "--load '{text}' names no load (expected e.g. cpu:2 or mem:1,syscall:1)"
        )));
    }
    Ok(out)
}

/// Parses one `kind:N`.
pub fn parse_load(part: &str) -> Result<LoadSpec, MeasureError> {
    let bad = |why: &str| {
        MeasureError::Input(format!(
            "malformed load '{part}': {why} (expected cpu:N, mem:N or syscall:N)"
        ))
    };
    let (k, n) = part.split_once(':').ok_or_else(|| bad("missing ':N'"))?;
    let kind = match k.trim().to_ascii_lowercase().as_str() {
        "cpu" => LoadKind::Cpu,
        "mem" | "memory" => LoadKind::Mem,
        "syscall" | "sys" => LoadKind::Syscall,
        _ => return Err(bad("unknown kind")),
    };
    let threads: u32 = n
        .trim()
        .parse()
        .map_err(|_| bad("N is not a whole number"))?;
    if threads == 0 || threads > MAX_LOAD_THREADS {
        return Err(bad(&format!("N must be 1..={MAX_LOAD_THREADS}")));
    }
    Ok(LoadSpec { kind, threads })
}

/// Parses a Linux CPU list such as `0,2-3` (as in /sys/devices/system/cpu/online).
/// Returns the CPUs sorted and without duplicates.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, MeasureError> {
    cpu_list(text).map_err(|why| MeasureError::Input(format!("malformed CPU list '{text}': {why}")))
}

/// What is wrong with a CPU list, without the list itself (the caller quotes it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuListError {
    #[error("empty element")]
    EmptyElement,
    #[error("'{0}' is not a CPU number")]
    NotANumber(String),
    #[error("range '{0}' goes backwards")]
    Backwards(String),
    #[error("range '{0}' is too long")]
    TooLong(String),
}

/// [`parse_cpu_list`] with the problem alone (`range '3-1' goes backwards`), for a
/// caller that quotes the text itself ([`crate::values::CpuList`]).
pub(crate) fn cpu_list(text: &str) -> Result<Vec<u32>, CpuListError> {
    let mut out = Vec::new();
    for part in text.trim().split(',').map(str::trim) {
        if part.is_empty() {
            return Err(CpuListError::EmptyElement);
        }
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let number = |x: &str| {
            x.parse::<u32>()
                .map_err(|_| CpuListError::NotANumber(part.to_string()))
        };
        let (a, b) = (number(a)?, number(b)?);
        if b < a {
            return Err(CpuListError::Backwards(part.to_string()));
        }
        if b - a > 65_535 {
            return Err(CpuListError::TooLong(part.to_string()));
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Formats CPUs back into the compact list form (`0-3,6`).
pub fn format_cpu_list(cpus: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// `n` log-spaced sleep lengths from `lo` to `hi` inclusive (rounded to whole ns,
/// duplicates removed).
pub fn sweep_points(lo: i64, hi: i64, n: usize) -> Vec<i64> {
    if n <= 1 {
        return vec![lo];
    }
    let (l, h) = ((lo as f64).ln(), (hi as f64).ln());
    let mut v: Vec<i64> = (0..n)
        .map(|i| {
            if i == n - 1 {
                hi
            } else {
                (l + (h - l) * i as f64 / (n - 1) as f64).exp().round() as i64
            }
        })
        .collect();
    v.dedup();
    v
}

/// When a run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    /// After this many nanoseconds of measuring.
    Duration(i64),
    /// After this many periods on each CPU.
    Loops(u64),
}

/// Where raw samples go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleFormat {
    /// 24-byte little-endian records after a 16-byte header (docs/measure.md).
    Binary,
    /// `cpu,intended_ns,latency_ns,missed` lines.
    Csv,
}

/// The settings of one measurement phase (a plain run, one sweep point, one compare phase).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub cpus: Vec<u32>,
    pub policy: Policy,
    pub priority: i32,
    pub allow_fallback: bool,
    pub mode: TimerMode,
    pub interval_ns: i64,
    pub stop: Stop,
    pub overrun: OverrunPolicy,
    /// Largest bin of the exact 1 µs histogram (cyclictest `-h N`).
    pub us_bins: usize,
    /// Lock memory (mlockall); failure is reported, not fatal.
    pub lock_memory: bool,
    /// Timer slack of each measuring thread (PR_SET_TIMERSLACK, ns). 1 ns, the smallest
    /// there is, by default: the wake-up is then the timer's, not the slack's. 50 us is
    /// what every SCHED_OTHER program gets unless it asks otherwise (`--timer-slack 50us`
    /// measures what such a program sees).
    pub timer_slack_ns: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            cpus: vec![0],
            policy: Policy::Fifo,
            priority: 80,
            allow_fallback: false,
            mode: TimerMode::Absolute,
            interval_ns: 1_000_000,
            stop: Stop::Duration(1_000_000_000),
            overrun: OverrunPolicy::Skip,
            us_bins: 10_000,
            lock_memory: true,
            timer_slack_ns: DEFAULT_TIMER_SLACK_NS,
        }
    }
}

/// The measuring thread's timer slack unless `--timer-slack` says otherwise: 1 ns.
pub const DEFAULT_TIMER_SLACK_NS: u64 = 1;
/// Largest accepted `--timer-slack`: 1 s (the kernel takes any value; more is a typo).
pub const MAX_TIMER_SLACK_NS: u64 = 1_000_000_000;

/// Smallest accepted interval: 1 µs (a wake-up alone costs several µs).
pub const MIN_INTERVAL_NS: i64 = 1_000;
/// Largest accepted interval: one hour (a typo guard; the histogram covers 10 s of latency).
pub const MAX_INTERVAL_NS: i64 = 3_600_000_000_000;
/// Largest exact-µs histogram (cyclictest `-h`): 1 s in 1 µs bins, 8 MB per CPU.
pub const MAX_US_BINS: usize = 1_000_000;

impl Settings {
    /// Checks everything that can be checked without starting a thread. `online` is the
    /// list of online CPUs of this machine.
    pub fn validate(&self, online: &[u32]) -> Result<(), MeasureError> {
        if self.cpus.is_empty() {
            return Err(MeasureError::Input("no CPU selected".into()));
        }
        for c in &self.cpus {
            if !online.contains(c) {
                return Err(MeasureError::Input(format!(
                    "CPU {c} is not online (online CPUs: {})",
                    format_cpu_list(online)
                )));
            }
        }
        let (lo, hi) = self.policy.priority_range();
        if self.priority < lo || self.priority > hi {
            return Err(MeasureError::Input(format!(
                "priority {} is out of range for policy {} ({lo}..={hi})",
                self.priority,
                self.policy.as_str()
            )));
        }
        if self.interval_ns < MIN_INTERVAL_NS {
            return Err(MeasureError::Input(format!(
                "interval {} ns is below the smallest accepted, 1 µs (no timer wakes a thread that often: every period would be missed)",
                self.interval_ns
            )));
        }
        if self.interval_ns > MAX_INTERVAL_NS {
            return Err(MeasureError::Input("interval must be at most 1 h".into()));
        }
        match self.stop {
            Stop::Duration(d) if d <= 0 => {
                return Err(MeasureError::Input(
                    "duration must be greater than zero".into(),
                ))
            }
            Stop::Loops(0) => {
                return Err(MeasureError::Input(
                    "loops must be greater than zero".into(),
                ))
            }
            _ => {}
        }
        if self.us_bins == 0 || self.us_bins > MAX_US_BINS {
            return Err(MeasureError::Input(format!(
                "histogram size must be 1..={MAX_US_BINS} µs bins"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0,2-3").unwrap(), vec![0, 2, 3]);
        assert_eq!(parse_cpu_list(" 3,1,1-2 ").unwrap(), vec![1, 2, 3]);
        assert!(parse_cpu_list("").is_err());
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("a").is_err());
        assert!(parse_cpu_list("1,,2").is_err());
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(format_cpu_list(&[5]), "5");
    }

    #[test]
    fn loads() {
        let l = parse_loads("cpu:2, mem:1,syscall:3").unwrap();
        assert_eq!(l.len(), 3);
        assert_eq!(
            l[0],
            LoadSpec {
                kind: LoadKind::Cpu,
                threads: 2
            }
        );
        assert_eq!(l[1].kind, LoadKind::Mem);
        assert_eq!(l[2].threads, 3);
        assert_eq!(l[2].to_string(), "syscall:3");
        for bad in [
            "cpu", "cpu:0", "gpu:1", "cpu:x", "cpu:-1", "", ",", "cpu:5000",
        ] {
            assert!(parse_loads(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sweeps() {
        let p = sweep_points(10_000, 1_000_000_000, 6);
        assert_eq!(
            p,
            vec![
                10_000,
                100_000,
                1_000_000,
                10_000_000,
                100_000_000,
                1_000_000_000
            ]
        );
        assert_eq!(sweep_points(1000, 2000, 1), vec![1000]);
        // Rounded duplicates collapse.
        assert_eq!(sweep_points(1, 2, 5), vec![1, 2]);
    }

    #[test]
    fn validation() {
        let online = [0, 1];
        let ok = Settings::default();
        ok.validate(&online).unwrap();
        let mut s = ok.clone();
        s.cpus = vec![7];
        assert!(s
            .validate(&online)
            .unwrap_err()
            .to_string()
            .contains("CPU 7"));
        let mut s = ok.clone();
        s.priority = 100;
        assert!(s.validate(&online).is_err());
        let mut s = ok.clone();
        s.policy = Policy::Other;
        assert!(
            s.validate(&online).is_err(),
            "priority 80 invalid for other"
        );
        s.priority = 0;
        s.validate(&online).unwrap();
        let mut s = ok.clone();
        s.interval_ns = 0;
        assert!(s.validate(&online).is_err());
        s.interval_ns = 999;
        let e = s.validate(&online).unwrap_err().to_string();
        assert!(e.contains("1 µs"), "{e}");
        s.interval_ns = 1000;
        s.validate(&online).unwrap();
        let mut s = ok.clone();
        s.stop = Stop::Loops(0);
        assert!(s.validate(&online).is_err());
        assert_eq!(Policy::parse("FIFO").unwrap(), Policy::Fifo);
        assert!(Policy::parse("deadline").is_err());
        assert_eq!(TimerMode::parse("timerfd").unwrap(), TimerMode::Timerfd);
        assert_eq!(
            OverrunPolicy::parse("catch-up").unwrap(),
            OverrunPolicy::CatchUp
        );
    }
}

/// `--trace-buffer SIZE`: the trace ring buffer per CPU, in KiB. A bare number is KiB;
/// units K/KB/KiB, M/MB/MiB, G/GB/GiB (binary). 64 KiB to 1 GiB.
pub fn parse_trace_buffer_kb(text: &str) -> Result<u32, MeasureError> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| {
        MeasureError::Input(format!(
            "--trace-buffer '{text}': not a size (write e.g. 16M, 4096K or 4096)"
        ))
    })?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "k" | "kb" | "kib" => 1,
        "m" | "mb" | "mib" => 1024,
        "g" | "gb" | "gib" => 1024 * 1024,
        u => {
            return Err(MeasureError::Input(format!(
                "--trace-buffer '{text}': unknown unit '{u}' (use K, M or G)"
            )))
        }
    };
    let kb = n.saturating_mul(mult);
    if !(64..=1024 * 1024).contains(&kb) {
        return Err(MeasureError::Input(format!(
            "--trace-buffer '{text}' must be 64K to 1G per CPU"
        )));
    }
    Ok(kb as u32)
}

#[cfg(test)]
mod trace_buffer_tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_trace_buffer_kb("4096").unwrap(), 4096);
        assert_eq!(parse_trace_buffer_kb("16M").unwrap(), 16 * 1024);
        assert_eq!(parse_trace_buffer_kb("1GiB").unwrap(), 1024 * 1024);
        assert!(parse_trace_buffer_kb("2G")
            .unwrap_err()
            .to_string()
            .contains("64K to 1G"));
        assert!(parse_trace_buffer_kb("10").is_err());
        assert!(parse_trace_buffer_kb("5T")
            .unwrap_err()
            .to_string()
            .contains("unknown unit"));
        assert!(parse_trace_buffer_kb("-1M")
            .unwrap_err()
            .to_string()
            .contains("not a size"));
    }
}
