//! The JSON result (schema version 1, documented in docs/measure.md and
//! docs/measure.schema.json, generated from these types) and cyclictest's `-h` histogram text format.

use crate::engine::{CpuResult, PhaseResult};
use crate::env::Item;
use crate::MeasureError;
use latscope_core::stats::{Accumulator, Histogram};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

pub const KIND: &str = "measure";
pub const SCHEMA_VERSION: u32 = 1;

/// One histogram bucket: latencies in `[low_ns, high_ns]` occurred `count` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HistBucket {
    pub low_ns: i64,
    pub high_ns: i64,
    pub count: u64,
}

/// Summary statistics of a set of latencies (one CPU or all merged), written and read
/// through the shared summary (`latscope_core::summary::ResultSummary`, see
/// `stats_json.rs`) with measure's own figures beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(
    into = "crate::stats_json::StatsJson",
    try_from = "crate::stats_json::StatsJson"
)]
pub struct Stats {
    pub count: u64,
    pub min_ns: i64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub p50_ns: i64,
    pub p90_ns: i64,
    pub p99_ns: i64,
    pub p999_ns: i64,
    pub p9999_ns: i64,
    pub max_ns: i64,
    /// Intended wake time of the maximum, ns since the phase start.
    pub max_at_ns: i64,
    /// CPU on which the maximum occurred.
    pub max_cpu: u32,
    pub overruns: u64,
    pub longest_overrun_run: u64,
    /// Non-empty buckets of the log-linear histogram, increasing.
    pub histogram: Vec<HistBucket>,
    /// Samples above the histogram's range (counted at its top, `histogram_highest_ns`).
    pub histogram_overflow: u64,
    /// Negative samples (counted in the bucket at 0).
    pub histogram_underflow: u64,
    pub histogram_highest_ns: i64,
    /// The same histogram, lossless, in HdrHistogram's standard V2 encoding (base64):
    /// results merge exactly from it (`latscope merge`). Absent in results written
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hdr: Option<String>,
    /// When tracepoints were used: timer expiry → hrtimer handler, per sample.
    pub irq_latency_ns: Option<Box<Stats>>,
    /// When tracepoints were used: hrtimer handler → the measuring thread running.
    pub thread_latency_ns: Option<Box<Stats>>,
}

/// Per-CPU statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuStats {
    pub cpu: u32,
    #[serde(flatten)]
    pub stats: Stats,
    /// Timer wake-ups of the thread.
    pub wakes: u64,
    /// Timer slack of the measuring thread as read back after setting it (ns).
    pub timer_slack_ns: Option<u64>,
    /// Raw samples lost because the writer could not keep up (0 without --samples).
    pub dropped_samples: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Environment {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SettingsJson {
    pub cpus: Vec<u32>,
    pub policy_requested: String,
    pub priority_requested: i32,
    /// Policy the measuring threads actually ran with.
    pub policy: String,
    pub priority: i32,
    /// Why the requested real-time policy was not used (`--allow-fallback`), else null.
    pub fallback: Option<String>,
    pub timer_mode: String,
    pub interval_ns: i64,
    pub duration_ns: Option<i64>,
    pub loops: Option<u64>,
    pub overrun_policy: String,
    pub pm_qos_us: Option<i32>,
    pub load: Vec<String>,
    pub compare_load: Option<String>,
    pub sweep: Option<String>,
    pub memory_locked: bool,
    pub memory_lock_detail: String,
    pub cyclictest_histogram_us: usize,
    /// `--timer-slack`: the slack requested for the measuring threads (ns; 1 by default).
    /// What each thread read back is `cpus[].timer_slack_ns`.
    #[serde(default = "default_slack")]
    pub timer_slack_ns: u64,
    /// `--rounds N`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<usize>,
    /// `--trace-above`, when given (ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_above_ns: Option<i64>,
}

fn default_slack() -> u64 {
    crate::settings::DEFAULT_TIMER_SLACK_NS
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepPoint {
    pub interval_ns: i64,
    pub elapsed_ns: i64,
    pub total: Stats,
    pub cpus: Vec<CpuStats>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PhaseJson {
    pub elapsed_ns: i64,
    pub total: Stats,
    pub cpus: Vec<CpuStats>,
}

/// loaded − idle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Difference {
    pub mean_ns: f64,
    pub p50_ns: i64,
    pub p90_ns: i64,
    pub p99_ns: i64,
    pub p999_ns: i64,
    pub max_ns: i64,
    pub overruns: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompareJson {
    pub load: String,
    pub idle: PhaseJson,
    pub loaded: PhaseJson,
    pub difference: Difference,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SamplesJson {
    pub path: String,
    pub format: String,
    pub written: u64,
    pub dropped: u64,
}

/// The whole `measure --json` document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    #[schemars(extend("const" = "measure"))]
    pub kind: String,
    pub schema_version: u32,
    pub tool: String,
    /// Wall-clock start, seconds since the Unix epoch.
    pub started_unix_s: f64,
    pub kernel: String,
    /// `--label` pairs plus `host`, `kernel`, `cpu_model`, `latscope_version`
    /// (latscope_core::labels); empty in results written before labels existed.
    #[serde(default)]
    pub labels: latscope_core::labels::Labels,
    pub settings: SettingsJson,
    /// True when SIGINT/SIGTERM ended the run early.
    pub interrupted: bool,
    pub elapsed_ns: i64,
    pub environment: Environment,
    pub total: Stats,
    pub cpus: Vec<CpuStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Vec<SweepPoint>>,
    /// `--rounds N`: the merged summary (same keys as `total`) of each round, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Vec<Stats>>,
    /// `--trace-above`: the samples above the threshold, explained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spikes: Option<Vec<crate::ftrace::Spike>>,
    /// `--trace-above` when tracing ran: the split's source and what the trace lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::ftrace::TraceSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<CompareJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<SamplesJson>,
    /// What dominates the tail and the fix for each cause (crate::bottom_line); absent
    /// in results written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottom_line: Option<crate::bottom_line::BottomLine>,
}

impl Report {
    pub fn to_json(&self) -> String {
        // Serialising plain data cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a `measure --json` file, checking kind and schema version.
    pub fn load(path: &Path) -> Result<Report, MeasureError> {
        let text = std::fs::read_to_string(path).map_err(|e| MeasureError::Parse {
            what: path.display().to_string(),
            line: 0,
            msg: e.to_string(),
        })?;
        Report::from_json(&text).map_err(|e| match e {
            MeasureError::Parse { line, msg, .. } => MeasureError::Parse {
                what: path.display().to_string(),
                line,
                msg,
            },
            other => other,
        })
    }

    pub fn from_json(text: &str) -> Result<Report, MeasureError> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| MeasureError::Parse {
            what: "JSON".into(),
            line: e.line(),
            msg: e.to_string(),
        })?;
        let kind = v.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        if kind != KIND {
            return Err(MeasureError::Parse {
                what: "JSON".into(),
                line: 0,
                msg: format!(
                    "\"kind\" is '{kind}', expected '{KIND}' (not a latscope measure result)"
                ),
            });
        }
        let ver = v
            .get("schema_version")
            .and_then(|k| k.as_u64())
            .unwrap_or(0);
        if ver != SCHEMA_VERSION as u64 {
            return Err(MeasureError::Parse {
                what: "JSON".into(),
                line: 0,
                msg: format!(
                    "schema_version {ver} is not supported (this latscope reads {SCHEMA_VERSION})"
                ),
            });
        }
        serde_json::from_value(v).map_err(|e| MeasureError::Parse {
            what: "JSON".into(),
            line: 0,
            msg: e.to_string(),
        })
    }
}

/// Summary of an accumulator.
pub fn stats_of(acc: &Accumulator, overruns: u64, longest: u64) -> Stats {
    let s = acc.summary();
    Stats {
        count: s.count,
        min_ns: s.min,
        mean_ns: s.mean,
        stdev_ns: s.stdev,
        p50_ns: s.p50,
        p90_ns: s.p90,
        p99_ns: s.p99,
        p999_ns: s.p999,
        p9999_ns: s.p9999,
        max_ns: s.max,
        max_at_ns: s.max_at.at,
        max_cpu: s.max_at.source,
        overruns,
        longest_overrun_run: longest,
        histogram: acc
            .hist
            .buckets()
            .into_iter()
            .map(|b| HistBucket {
                low_ns: b.low,
                high_ns: b.high,
                count: b.count,
            })
            .collect(),
        histogram_overflow: acc.hist.overflow(),
        histogram_underflow: acc.hist.underflow(),
        histogram_highest_ns: acc.hist.highest(),
        hdr: Some(crate::hdr::encode(&acc.hist)),
        irq_latency_ns: None,
        thread_latency_ns: None,
    }
}

pub fn cpu_stats(r: &CpuResult) -> CpuStats {
    CpuStats {
        cpu: r.cpu,
        stats: stats_of(&r.acc, r.overruns, r.longest_overrun_run),
        wakes: r.wakes,
        timer_slack_ns: r.timer_slack_ns,
        dropped_samples: r.dropped_samples,
    }
}

/// Merged statistics of several CPUs.
pub fn merged_stats(cpus: &[CpuResult]) -> Stats {
    let mut acc = Accumulator::new(Histogram::for_latency_ns());
    let mut over = 0;
    let mut longest = 0;
    for c in cpus {
        // Both histograms have the same bounds, so the merge cannot fail.
        let _ = acc.merge(&c.acc);
        over += c.overruns;
        longest = longest.max(c.longest_overrun_run);
    }
    stats_of(&acc, over, longest)
}

pub fn phase_json(p: &PhaseResult) -> PhaseJson {
    PhaseJson {
        elapsed_ns: p.elapsed_ns,
        total: merged_stats(&p.cpus),
        cpus: p.cpus.iter().map(cpu_stats).collect(),
    }
}

pub fn difference(idle: &Stats, loaded: &Stats) -> Difference {
    Difference {
        mean_ns: loaded.mean_ns - idle.mean_ns,
        p50_ns: loaded.p50_ns - idle.p50_ns,
        p90_ns: loaded.p90_ns - idle.p90_ns,
        p99_ns: loaded.p99_ns - idle.p99_ns,
        p999_ns: loaded.p999_ns - idle.p999_ns,
        max_ns: loaded.max_ns - idle.max_ns,
        overruns: loaded.overruns as i64 - idle.overruns as i64,
    }
}

/// Adds the CPU results of several phases CPU by CPU (same CPU order), for one
/// cyclictest histogram of a whole sweep.
pub fn merge_phases(phases: &[PhaseResult]) -> Option<PhaseResult> {
    let mut it = phases.iter();
    let mut out = it.next()?.clone();
    for p in it {
        out.elapsed_ns += p.elapsed_ns;
        out.interrupted |= p.interrupted;
        for (a, b) in out.cpus.iter_mut().zip(&p.cpus) {
            let _ = a.acc.merge(&b.acc);
            for (x, y) in a.us_bins.iter_mut().zip(&b.us_bins) {
                *x += y;
            }
            a.us_overflow += b.us_overflow;
            a.overruns += b.overruns;
            a.longest_overrun_run = a.longest_overrun_run.max(b.longest_overrun_run);
            a.wakes += b.wakes;
            a.dropped_samples += b.dropped_samples;
        }
    }
    Some(out)
}

/// Writes cyclictest's `-h` histogram text: one row per µs bin, one tab-separated
/// count column per thread, then the `# Total:` … `# Thread N:` footer.
pub fn write_cyclictest_histogram(w: &mut impl Write, p: &PhaseResult) -> std::io::Result<()> {
    let nbins = p.cpus.first().map(|c| c.us_bins.len()).unwrap_or(0);
    writeln!(w, "# Histogram")?;
    for i in 0..nbins {
        write!(w, "{i:06} ")?;
        for (j, c) in p.cpus.iter().enumerate() {
            write!(w, "{:06}", c.us_bins[i])?;
            if j + 1 < p.cpus.len() {
                write!(w, "\t")?;
            }
        }
        writeln!(w)?;
    }
    let us = |ns: i64| if ns < 0 { 0 } else { ns / 1000 };
    write!(w, "# Total:")?;
    for c in &p.cpus {
        write!(w, " {:09}", c.us_bins.iter().sum::<u64>())?;
    }
    writeln!(w)?;
    write!(w, "# Min Latencies:")?;
    for c in &p.cpus {
        write!(w, " {:05}", us(c.acc.moments.min().unwrap_or(0)))?;
    }
    writeln!(w)?;
    write!(w, "# Avg Latencies:")?;
    for c in &p.cpus {
        write!(w, " {:05}", us(c.acc.moments.mean().round() as i64))?;
    }
    writeln!(w)?;
    write!(w, "# Max Latencies:")?;
    for c in &p.cpus {
        write!(w, " {:05}", us(c.acc.moments.max().unwrap_or(0)))?;
    }
    writeln!(w)?;
    write!(w, "# Histogram Overflows:")?;
    for c in &p.cpus {
        write!(w, " {:05}", c.us_overflow)?;
    }
    writeln!(w)?;
    writeln!(w, "# Histogram Overflow at cycle number:")?;
    for (j, c) in p.cpus.iter().enumerate() {
        write!(w, "# Thread {j}:")?;
        for cy in &c.us_overflow_cycles {
            write!(w, " {cy:05}")?;
        }
        let others = c
            .us_overflow
            .saturating_sub(c.us_overflow_cycles.len() as u64);
        if others > 0 {
            write!(w, " # {others:05} others")?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// A cyclictest `-h` histogram read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CyclictestHistogram {
    /// `bins[thread][us]`.
    pub bins: Vec<Vec<u64>>,
    pub total: Vec<u64>,
    pub min_us: Vec<u64>,
    pub avg_us: Vec<u64>,
    pub max_us: Vec<u64>,
    pub overflows: Vec<u64>,
}

impl CyclictestHistogram {
    /// Nearest-rank percentile in µs of one thread's bins (overflows count above the top).
    pub fn percentile_us(&self, thread: usize, p: f64) -> Option<u64> {
        let b = self.bins.get(thread)?;
        let n: u64 = b.iter().sum::<u64>() + self.overflows.get(thread).copied().unwrap_or(0);
        if n == 0 {
            return None;
        }
        let want = latscope_core::stats::rank_index(p, n) + 1;
        let mut seen = 0;
        for (i, c) in b.iter().enumerate() {
            seen += c;
            if seen >= want {
                return Some(i as u64);
            }
        }
        Some(b.len() as u64)
    }
}

/// Parses cyclictest's `-h` text (its own output or latscope's).
pub fn parse_cyclictest_histogram(text: &str) -> Result<CyclictestHistogram, MeasureError> {
    let mut h = CyclictestHistogram::default();
    let err = |line: usize, msg: String| MeasureError::Parse {
        what: "cyclictest histogram".into(),
        line,
        msg,
    };
    let nums = |s: &str, line: usize| -> Result<Vec<u64>, MeasureError> {
        s.split_whitespace()
            .map(|t| {
                t.parse::<u64>()
                    .map_err(|_| err(line, format!("'{t}' is not a count")))
            })
            .collect()
    };
    for (i, l) in text.lines().enumerate() {
        let ln = i + 1;
        let l = l.trim_end();
        if l.is_empty() {
            continue;
        }
        if let Some(rest) = l.strip_prefix('#') {
            let rest = rest.trim();
            let field = |name: &str| rest.strip_prefix(name).map(str::trim);
            if let Some(v) = field("Total:") {
                h.total = nums(v, ln)?;
            } else if let Some(v) = field("Min Latencies:") {
                h.min_us = nums(v, ln)?;
            } else if let Some(v) = field("Avg Latencies:") {
                h.avg_us = nums(v, ln)?;
            } else if let Some(v) = field("Max Latencies:") {
                h.max_us = nums(v, ln)?;
            } else if let Some(v) = field("Histogram Overflows:") {
                h.overflows = nums(v, ln)?;
            }
            continue;
        }
        let mut it = l.split_whitespace();
        let idx: usize = it
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| err(ln, format!("row '{l}' does not start with a bin index")))?;
        let counts = nums(&it.collect::<Vec<_>>().join(" "), ln)?;
        if h.bins.is_empty() {
            h.bins = vec![Vec::new(); counts.len()];
        }
        if counts.len() != h.bins.len() {
            return Err(err(
                ln,
                format!("{} count columns, expected {}", counts.len(), h.bins.len()),
            ));
        }
        for (t, c) in counts.into_iter().enumerate() {
            let b = &mut h.bins[t];
            if b.len() <= idx {
                b.resize(idx + 1, 0);
            }
            b[idx] = c;
        }
    }
    if h.bins.is_empty() {
        return Err(err(0, "no histogram rows".into()));
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::stats::Location;

    fn cpu(cpu: u32, lats: &[i64], bins: usize) -> CpuResult {
        let mut acc = Accumulator::new(Histogram::for_latency_ns());
        let mut us_bins = vec![0; bins];
        let mut over = 0;
        let mut cycles = Vec::new();
        for (i, &l) in lats.iter().enumerate() {
            acc.add(
                l,
                Location {
                    at: i as i64 * 1000,
                    source: cpu,
                },
            );
            let u = (l.max(0) / 1000) as usize;
            if u < bins {
                us_bins[u] += 1;
            } else {
                over += 1;
                cycles.push(i as u64);
            }
        }
        CpuResult {
            cpu,
            acc,
            us_bins,
            us_overflow: over,
            us_overflow_cycles: cycles,
            overruns: 2,
            longest_overrun_run: 1,
            wakes: lats.len() as u64,
            dropped_samples: 0,
            timer_slack_ns: Some(1),
        }
    }

    #[test]
    fn cyclictest_histogram_round_trip() {
        let p = PhaseResult {
            cpus: vec![
                cpu(0, &[1500, 2500, 2600, 9_999, 50_000], 20),
                cpu(1, &[700, 19_999, 20_000], 20),
            ],
            elapsed_ns: 1,
            interrupted: false,
        };
        let mut out = Vec::new();
        write_cyclictest_histogram(&mut out, &p).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("# Histogram\n000000 000000\t000001\n000001 000001\t000000\n"),
            "{text}"
        );
        assert!(text.contains("# Total: 000000004 000000002\n"), "{text}");
        assert!(text.contains("# Max Latencies: 00050 00020\n"), "{text}");
        assert!(
            text.contains("# Histogram Overflows: 00001 00001\n"),
            "{text}"
        );
        assert!(
            text.contains("# Thread 0: 00004\n# Thread 1: 00002\n"),
            "{text}"
        );
        let h = parse_cyclictest_histogram(&text).unwrap();
        assert_eq!(h.bins[0], p.cpus[0].us_bins);
        assert_eq!(h.bins[1], p.cpus[1].us_bins);
        assert_eq!(h.total, vec![4, 2]);
        assert_eq!(h.min_us, vec![1, 0]);
        assert_eq!(h.overflows, vec![1, 1]);
        assert_eq!(h.percentile_us(0, 50.0), Some(2));
        assert_eq!(h.percentile_us(1, 100.0), Some(20));
    }

    #[test]
    fn parses_real_cyclictest_output() {
        let text = "# Histogram\n000000 000000\t000000\n000001 000003\t000001\n000002 000001\t000000\n# Total: 000000004 000000001\n# Min Latencies: 00001 00001\n# Avg Latencies: 00001 00001\n# Max Latencies: 00002 00344\n# Histogram Overflows: 00000 00040\n# Histogram Overflow at cycle number:\n# Thread 0:\n# Thread 1: 00001 00006 # 00010 others\n";
        let h = parse_cyclictest_histogram(text).unwrap();
        assert_eq!(h.bins, vec![vec![0, 3, 1], vec![0, 1, 0]]);
        assert_eq!(h.max_us, vec![2, 344]);
        assert_eq!(h.overflows, vec![0, 40]);
        assert!(parse_cyclictest_histogram("# Histogram\n000000 x\n").is_err());
        assert!(parse_cyclictest_histogram("").is_err());
    }

    #[test]
    fn merged_percentiles_against_known_vectors() {
        // 1..=1000 ns split over two CPUs (odd / even): below 2048 ns the histogram is
        // exact, so the nearest-rank percentiles are exact too.
        let odd: Vec<i64> = (1..=1000).filter(|v| v % 2 == 1).collect();
        let even: Vec<i64> = (1..=1000).filter(|v| v % 2 == 0).collect();
        let t = merged_stats(&[cpu(0, &odd, 10), cpu(1, &even, 10)]);
        assert_eq!(t.count, 1000);
        assert_eq!((t.min_ns, t.max_ns), (1, 1000));
        assert_eq!(t.p50_ns, 500);
        assert_eq!(t.p90_ns, 900);
        assert_eq!(t.p99_ns, 990);
        // p99.9 of 1000 values is rank 999 by nearest rank.
        assert_eq!(t.p999_ns, 999);
        assert_eq!(t.p9999_ns, 1000);
        assert!((t.mean_ns - 500.5).abs() < 1e-9);
        // Sample stdev of 1..n is sqrt(n(n+1)/12).
        assert!((t.stdev_ns - (1000.0f64 * 1001.0 / 12.0).sqrt()).abs() < 1e-6);
        assert_eq!(t.max_cpu, 1);
        // One CPU alone: its own figures.
        let c = cpu_stats(&cpu(0, &odd, 10));
        assert_eq!(c.stats.count, 500);
        assert_eq!(c.stats.p50_ns, 499);
    }

    #[test]
    fn overflow_beyond_ten_seconds_is_counted_not_lost() {
        let t = merged_stats(&[cpu(0, &[5_000, 20_000_000_000, -3], 10)]);
        assert_eq!(t.count, 3);
        assert_eq!(t.max_ns, 20_000_000_000, "exact max survives");
        assert_eq!(t.min_ns, -3);
        assert_eq!(t.histogram_overflow, 1);
        assert_eq!(t.histogram_underflow, 1);
        assert_eq!(t.histogram_highest_ns, 10_000_000_000);
        assert_eq!(t.histogram.iter().map(|b| b.count).sum::<u64>(), 3);
        // Upper bucket edges stay within 0.1 % above 2048 ns.
        for b in &t.histogram {
            assert!(b.high_ns >= b.low_ns);
            assert!((b.high_ns - b.low_ns) as f64 <= 0.001 * b.low_ns.max(2048) as f64);
        }
    }

    #[test]
    fn merged_stats_and_json_round_trip() {
        let a = cpu(0, &[1000, 2000, 3000], 10);
        let b = cpu(1, &[4000, 5_000_000], 10);
        let t = merged_stats(&[a.clone(), b.clone()]);
        assert_eq!(t.count, 5);
        assert_eq!(t.min_ns, 1000);
        assert_eq!(t.max_ns, 5_000_000);
        assert_eq!(t.max_cpu, 1);
        assert_eq!(t.max_at_ns, 1000);
        assert_eq!(t.overruns, 4);
        assert_eq!(t.histogram.iter().map(|b| b.count).sum::<u64>(), 5);
        assert!((t.mean_ns - 1_002_000.0).abs() < 1e-6);
        let d = difference(&cpu_stats(&a).stats, &t);
        assert_eq!(d.max_ns, 5_000_000 - 3000);
    }
}
