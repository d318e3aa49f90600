//! The `noise --json` document (docs/noise.schema.json is generated from these types)
//! and the per-CPU tally of classified noise it is filled from.

use super::classify::{Part, Source, Who};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const KIND: &str = "noise";
pub const SCHEMA_VERSION: u32 = 1;

/// Rows kept per source and CPU; the rest are summed into one `(others)` row.
pub const MAX_ROWS: usize = 256;

/// The whole `latscope noise --json` document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NoiseReport {
    #[schemars(extend("const" = "noise"))]
    pub kind: String,
    pub schema_version: u32,
    pub tool: String,
    /// Wall-clock start, seconds since the Unix epoch.
    pub started_unix_s: f64,
    pub kernel: String,
    /// `--label` pairs plus the machine's own keys.
    #[serde(default)]
    pub labels: latscope_core::labels::Labels,
    pub settings: NoiseSettingsJson,
    /// True when SIGINT/SIGTERM ended the run early (what was measured is kept).
    pub interrupted: bool,
    pub elapsed_ns: i64,
    /// The run's start on CLOCK_MONOTONIC (ns): `max_single_at_ns` and the windows count
    /// from here, for lining them up with other traces of the machine.
    pub started_mono_ns: i64,
    /// How the gaps were classified: `tracepoints`, or `none` with the reason.
    pub classification: Classification,
    /// Plain-language remarks on the run (RT throttling, no tracer, losses).
    pub notes: Vec<String>,
    pub cpus: Vec<CpuNoise>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NoiseSettingsJson {
    pub cpus: Vec<u32>,
    pub policy: String,
    pub priority: i32,
    /// Why the requested real-time policy was not used (--allow-fallback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    pub duration_ns: i64,
    pub threshold_ns: i64,
    pub window_ns: i64,
    /// Trace events enabled (empty without a tracer).
    pub trace_events: Vec<String>,
    pub memory_locked: bool,
    /// `/proc/sys/kernel/sched_rt_runtime_us` and `sched_rt_period_us` at the start
    /// (RT throttling: a real-time spinner is stopped for period − runtime every period).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt_runtime_us: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt_period_us: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Classification {
    /// `tracepoints` or `none`.
    pub method: String,
    /// Why there is no classification, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Trace events the ring buffers lost (their gaps are `unclassified`).
    pub lost_events: u64,
    /// Whether latscope mounted tracefs (and unmounted it afterwards).
    pub mounted_tracefs: bool,
}

/// One CPU's noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuNoise {
    pub cpu: u32,
    /// Time the spinning thread was not running its loop (sum of the gaps), ns.
    pub noise_ns: i64,
    /// `noise_ns` against the time measured, %.
    pub noise_pct: f64,
    /// Gaps above the threshold.
    pub noise_count: u64,
    /// The largest single gap and where it began (ns since the run's start).
    pub max_single_ns: i64,
    pub max_single_at_ns: i64,
    /// What the largest gap was mostly made of (a source name), when classified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_single_source: Option<String>,
    /// Noise per window, % of the window (the last one may be shorter).
    pub windows: Vec<f64>,
    /// Hypervisor steal time per window from /proc/stat (ns, 10 ms resolution), beside
    /// `windows`; empty when /proc/stat was not readable.
    pub window_steal_ns: Vec<i64>,
    /// Loop iterations of the spinning thread (its clock reads).
    pub loops: u64,
    pub by_source: BySource,
}

/// Noise time by source; the `total_ns` add up to `noise_ns`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BySource {
    /// Gaps no trace event covers: hardware, firmware (SMI) or the hypervisor.
    pub hw: SourceNoise,
    pub nmi: SourceNoise,
    pub irq: SourceNoise,
    pub softirq: SourceNoise,
    pub thread: SourceNoise,
    /// Inside gaps with events, covered by none: entry/exit cost, tracing, hypervisor.
    pub unaccounted: SourceNoise,
    /// Not classified: no tracer ("unclassified (no tracer)"), lost events, or the
    /// hand-over to the trace reader was full.
    pub unclassified: SourceNoise,
}

/// `count`: handler runs (nmi, irq, softirq), for threads the times the scheduler gave
/// them the CPU during noise, for the others gaps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SourceNoise {
    pub count: u64,
    pub total_ns: i64,
    /// Who, largest total first.
    pub rows: Vec<Row>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    pub name: String,
    /// Threads: the thread id the scheduler switched to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<i32>,
    /// Interrupts: the IRQ number (softirqs: the vector number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq: Option<u32>,
    /// x86 interrupt vectors (the local timer, IPIs): the vector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<u32>,
    pub count: u64,
    pub total_ns: i64,
}

impl BySource {
    pub fn get(&self, s: Source) -> &SourceNoise {
        match s {
            Source::Hw => &self.hw,
            Source::Nmi => &self.nmi,
            Source::Irq => &self.irq,
            Source::Softirq => &self.softirq,
            Source::Thread => &self.thread,
            Source::Unaccounted => &self.unaccounted,
            Source::Unclassified => &self.unclassified,
        }
    }
    fn get_mut(&mut self, s: Source) -> &mut SourceNoise {
        match s {
            Source::Hw => &mut self.hw,
            Source::Nmi => &mut self.nmi,
            Source::Irq => &mut self.irq,
            Source::Softirq => &mut self.softirq,
            Source::Thread => &mut self.thread,
            Source::Unaccounted => &mut self.unaccounted,
            Source::Unclassified => &mut self.unclassified,
        }
    }
    /// The source with the most time.
    pub fn dominant(&self) -> Option<Source> {
        Source::ALL
            .into_iter()
            .filter(|s| self.get(*s).total_ns > 0)
            .max_by_key(|s| self.get(*s).total_ns)
    }
}

/// The classified noise of one CPU, gathered gap by gap in bounded memory.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    totals: BTreeMap<Source, (u64, i64)>,
    rows: BTreeMap<Source, BTreeMap<RowKey, (String, u64, i64)>>,
    /// The largest gap seen so far and its dominant source.
    pub largest: Option<(i64, i64, Source)>,
}

/// A row's identity: a thread by pid (its name may change), an interrupt by number or
/// vector and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RowKey {
    Pid(i32),
    Irq(Option<u32>, Option<u32>, String),
    Others,
}

impl Tally {
    /// Adds one gap's parts (from [`super::classify::classify`], or one
    /// `Unclassified` part).
    pub fn add_gap(&mut self, start: i64, len: i64, parts: &[Part]) {
        for p in parts {
            let t = self.totals.entry(p.source).or_default();
            t.0 = t.0.saturating_add(p.count);
            t.1 = t.1.saturating_add(p.ns);
            if matches!(
                p.source,
                Source::Hw | Source::Unaccounted | Source::Unclassified
            ) {
                continue;
            }
            let rows = self.rows.entry(p.source).or_default();
            let key = match p.who.pid {
                Some(pid) => RowKey::Pid(pid),
                None => RowKey::Irq(p.who.irq, p.who.vector, p.who.name.clone()),
            };
            let key = if rows.len() >= MAX_ROWS && !rows.contains_key(&key) {
                RowKey::Others
            } else {
                key
            };
            let r = rows.entry(key).or_insert_with(|| (String::new(), 0, 0));
            if r.0.is_empty() {
                r.0.clone_from(&p.who.name);
            }
            r.1 = r.1.saturating_add(p.count);
            r.2 = r.2.saturating_add(p.ns);
        }
        if self.largest.is_none_or(|l| len > l.1) {
            let main = parts
                .iter()
                .max_by_key(|p| p.ns)
                .map(|p| p.source)
                .unwrap_or(Source::Unclassified);
            self.largest = Some((start, len, main));
        }
    }

    /// A gap that could not be classified.
    pub fn add_unclassified(&mut self, start: i64, len: i64) {
        self.add_gap(
            start,
            len,
            &[Part {
                source: Source::Unclassified,
                who: Who::default(),
                ns: len,
                count: 1,
            }],
        );
    }

    pub fn by_source(&self) -> BySource {
        let mut b = BySource::default();
        for (s, (count, ns)) in &self.totals {
            let out = b.get_mut(*s);
            out.count = *count;
            out.total_ns = *ns;
            let mut rows: Vec<Row> = self
                .rows
                .get(s)
                .map(|m| {
                    m.iter()
                        .map(|(k, (name, count, ns))| {
                            let (pid, irq, vector, name) = match k {
                                RowKey::Pid(p) => (Some(*p), None, None, name.clone()),
                                RowKey::Irq(i, v, _) => (None, *i, *v, name.clone()),
                                RowKey::Others => (None, None, None, "(others)".to_string()),
                            };
                            Row {
                                name,
                                pid,
                                irq,
                                vector,
                                count: *count,
                                total_ns: *ns,
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.name.cmp(&b.name)));
            out.rows = rows;
        }
        b
    }
}

impl NoiseReport {
    pub fn to_json(&self) -> String {
        // Serialising plain data cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The JSON Schema of [`NoiseReport`] (docs/noise.schema.json is this text).
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(NoiseReport)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(source: Source, pid: Option<i32>, name: &str, ns: i64) -> Part {
        Part {
            source,
            who: Who {
                name: name.into(),
                pid,
                ..Who::default()
            },
            ns,
            count: 1,
        }
    }

    #[test]
    fn a_thread_keeps_its_name_and_the_rows_add_up() {
        let mut t = Tally::default();
        // Named only by the switch back in the first gap, by name in the second.
        t.add_gap(0, 10, &[part(Source::Thread, Some(42), "", 10)]);
        t.add_gap(
            50,
            30,
            &[
                part(Source::Thread, Some(42), "burster", 20),
                part(Source::Hw, None, "", 10),
            ],
        );
        t.add_unclassified(100, 5);
        let b = t.by_source();
        assert_eq!((b.thread.count, b.thread.total_ns), (2, 30));
        assert_eq!(b.thread.rows.len(), 1);
        assert_eq!(b.thread.rows[0].name, "burster");
        assert_eq!(b.thread.rows[0].pid, Some(42));
        assert_eq!((b.hw.count, b.hw.total_ns), (1, 10));
        assert_eq!((b.unclassified.count, b.unclassified.total_ns), (1, 5));
        assert_eq!(t.largest, Some((50, 30, Source::Thread)));
        assert_eq!(b.dominant(), Some(Source::Thread));
    }

    #[test]
    fn rows_are_bounded() {
        let mut t = Tally::default();
        for pid in 0..(MAX_ROWS as i32 + 50) {
            t.add_gap(0, 1, &[part(Source::Thread, Some(pid), "x", 1)]);
        }
        let b = t.by_source();
        assert_eq!(b.thread.rows.len(), MAX_ROWS + 1);
        let others = b.thread.rows.iter().find(|r| r.name == "(others)").unwrap();
        assert_eq!(others.count, 50);
        assert_eq!(
            b.thread.rows.iter().map(|r| r.total_ns).sum::<i64>(),
            b.thread.total_ns
        );
    }
}
