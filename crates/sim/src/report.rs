//! The simulation's results: what `--json` writes (schema in docs/simulator.md).

use latscope_core::stats::{rank_index, Histogram, Location, Moments};
use latscope_core::summary::ResultSummary;
use latscope_core::words::Word;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Picoseconds to JSON nanoseconds (fractional).
pub(crate) fn ns(ps: i64) -> f64 {
    ps as f64 / 1000.0
}

/// Thin layer over `latscope_core::stats`: exact moments in picoseconds plus an HDR
/// histogram in whole nanoseconds for the percentiles (clamped to the exact extremes).
///
/// The histogram is a few hundred kilobytes at 0.1 % resolution and a simulation keeps
/// one per task: allocating them all at start made 10,000 tasks cost 2.2 GB before the
/// first event. So up to [`FEW`] distinct values are kept as a sorted list with their
/// counts, and moved into a histogram only when more distinct ones come, sized for the
/// values seen. Percentiles of a list are the upper edge of the histogram bucket holding
/// the rank, exactly what the histogram would give. A simulation with fixed execution
/// times repeats a few responses (Table 1: a handful per task), so most tasks never
/// allocate a histogram: zeroing them and scanning their ~10,000 buckets for the
/// percentiles was about a fifth of a 10 s Table 1 run's engine time (docs/benchmarks.md).
#[derive(Clone, Debug)]
pub(crate) struct Dist {
    pub m: Moments,
    /// Largest value kept exactly (ns); larger ones are recorded as this.
    highest: i64,
    h: Hist,
    /// Index in the `Few` list of the value added last: the tick's cost and a task's
    /// response mostly repeat the previous value, so it is checked before searching.
    last: usize,
}

/// Distinct values kept as a list before a histogram is allocated (16 bytes each).
const FEW: usize = 128;

/// The percentiles reported, increasing.
const PCTS: [f64; 4] = [50.0, 90.0, 99.0, 99.9];

#[derive(Clone, Debug)]
enum Hist {
    Off,
    /// The distinct values recorded so far (ns, clamped to `[0, highest]`), increasing,
    /// each with how many times it came.
    Few(Vec<(i64, u64)>),
    /// Sized for the values seen (a few times the largest), grown when a larger one
    /// comes: the buckets' edges depend only on the resolution, so the counts are the
    /// same as in a histogram sized for `highest` from the start, at a fraction of the
    /// memory (a response is seldom near 16 periods).
    Full(Box<Histogram>),
}

impl Dist {
    /// `highest_ps`: largest value expected (kept exactly by the histogram; larger values
    /// are counted as overflow and still exact in min/max/mean).
    pub fn new(highest_ps: i64, with_hist: bool) -> Dist {
        Dist {
            m: Moments::default(),
            // as `Histogram::new` bounds it
            highest: (highest_ps / 1000).max(1000).max(2),
            h: if with_hist {
                Hist::Few(Vec::new())
            } else {
                Hist::Off
            },
            last: 0,
        }
    }
    /// A histogram's range for values up to `top`: room to grow, at most `highest`.
    fn room(highest: i64, top: i64) -> i64 {
        top.saturating_mul(4).clamp(1000, highest)
    }
    #[inline]
    pub fn add(&mut self, v_ps: i64, at_ps: i64) {
        self.m.add(
            v_ps,
            Location {
                at: at_ps,
                source: 0,
            },
        );
        let v = (v_ps / 1000).clamp(0, self.highest);
        match &mut self.h {
            Hist::Off => {}
            Hist::Few(few) => match few.get_mut(self.last) {
                Some(e) if e.0 == v => e.1 += 1,
                _ => self.few_search(v),
            },
            Hist::Full(h) if v <= h.highest() => h.record(v),
            Hist::Full(_) => self.grow_and_record(v),
        }
    }
    /// `add` of a value other than the last one while the values are a list.
    fn few_search(&mut self, v: i64) {
        let Hist::Few(few) = &mut self.h else {
            return;
        };
        match few.binary_search_by_key(&v, |e| e.0) {
            Ok(k) => {
                few[k].1 += 1;
                self.last = k;
            }
            Err(k) if few.len() < FEW => {
                few.insert(k, (v, 1));
                self.last = k;
            }
            Err(_) => {
                let top = few.last().map_or(v, |e| e.0.max(v));
                let mut h = Box::new(Histogram::new(Dist::room(self.highest, top), 3));
                for &(x, c) in few.iter() {
                    h.record_n(x, c);
                }
                h.record(v);
                self.h = Hist::Full(h);
            }
        }
    }
    /// Moves the counts into a histogram with room for `v`, then records it.
    #[cold]
    fn grow_and_record(&mut self, v: i64) {
        let mut g = Box::new(Histogram::new(Dist::room(self.highest, v), 3));
        if let Hist::Full(h) = &self.h {
            for it in h.hdr().iter_recorded() {
                // the bucket's upper edge lands in the same bucket of `g`
                g.record_n(it.value_iterated_to() as i64, it.count_at_value());
            }
        }
        g.record(v);
        self.h = Hist::Full(g);
    }
    /// [`PCTS`] in ns, in one pass: the upper edge of the bucket holding each rank, at most
    /// `highest` (as `Histogram::percentile`).
    fn percentiles(&self) -> Option<[i64; 4]> {
        let mut out = [self.highest; 4];
        match &self.h {
            Hist::Off => return None,
            Hist::Full(h) => {
                let n = h.count();
                let hdr = h.hdr();
                for (o, &p) in out.iter_mut().zip(&PCTS) {
                    // The first bucket whose running count passes rank `r` (0-based):
                    // `value_at_quantile` stops where the count reaches ceil(q * n), and
                    // q = (r + 1/2) / n puts that at r + 1 whatever the rounding of q.
                    // It sums the counts eight at a time, where walking `iter_recorded`
                    // took 6 % of a 10 s Table 1 CLI run; same bucket, same edge.
                    let r = rank_index(p, n);
                    let q = (r as f64 + 0.5) / n as f64;
                    *o =
                        (hdr.highest_equivalent(hdr.value_at_quantile(q)) as i64).min(self.highest);
                }
            }
            Hist::Few(few) => {
                let n: u64 = few.iter().map(|e| e.1).sum();
                // Bucket edges depend only on the resolution, not on the highest value.
                let grid = Histogram::new(2, 3);
                let mut seen = 0u64;
                let mut it = few.iter();
                let mut x = 0i64;
                for (o, &p) in out.iter_mut().zip(&PCTS) {
                    // the value holding rank r (0-based): the first whose running count
                    // passes r
                    let r = rank_index(p, n);
                    while seen <= r {
                        let Some(&(v, c)) = it.next() else { break };
                        seen += c;
                        x = v;
                    }
                    let x = x.max(0) as u64;
                    *o = (grid.hdr().highest_equivalent(x) as i64).min(self.highest);
                }
            }
        }
        Some(out)
    }
    pub fn summary(&self) -> DistSummary {
        let n = self.m.count();
        if n == 0 {
            return DistSummary::default();
        }
        let min = self.m.min().unwrap_or(0);
        let max = self.m.max().unwrap_or(0);
        let pc = self.percentiles();
        let pct = |k: usize| -> Option<f64> {
            pc.map(|p| {
                let v = p[k].saturating_mul(1000);
                ns(v.clamp(min, max))
            })
        };
        DistSummary {
            count: n,
            min_ns: Some(ns(min)),
            mean_ns: Some(self.m.mean() / 1000.0),
            p50_ns: pct(0),
            p90_ns: pct(1),
            p99_ns: pct(2),
            p999_ns: pct(3),
            max_ns: Some(ns(max)),
            max_at_ns: Some(ns(self.m.max_at().at)),
        }
    }
}

/// Count, extremes, mean and nearest-rank percentiles (from `latscope_core::stats`),
/// written and read as the shared [`ResultSummary`] (every key present, `null` when
/// there is no value).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(into = "ResultSummary", from = "ResultSummary")]
pub struct DistSummary {
    pub count: u64,
    pub min_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    pub p50_ns: Option<f64>,
    pub p90_ns: Option<f64>,
    pub p99_ns: Option<f64>,
    pub p999_ns: Option<f64>,
    pub max_ns: Option<f64>,
    /// When the maximum happened (for a response time: the job's arrival).
    pub max_at_ns: Option<f64>,
}

impl From<DistSummary> for ResultSummary {
    fn from(d: DistSummary) -> ResultSummary {
        ResultSummary {
            count: d.count,
            min_ns: Some(d.min_ns),
            mean_ns: Some(d.mean_ns),
            p50_ns: Some(d.p50_ns),
            p90_ns: Some(d.p90_ns),
            p99_ns: Some(d.p99_ns),
            p999_ns: Some(d.p999_ns),
            max_ns: Some(d.max_ns),
            max_at_ns: Some(d.max_at_ns),
            ..ResultSummary::default()
        }
    }
}

impl From<ResultSummary> for DistSummary {
    fn from(s: ResultSummary) -> DistSummary {
        DistSummary {
            count: s.count,
            min_ns: s.min_ns.flatten(),
            mean_ns: s.mean_ns.flatten(),
            p50_ns: s.p50_ns.flatten(),
            p90_ns: s.p90_ns.flatten(),
            p99_ns: s.p99_ns.flatten(),
            p999_ns: s.p999_ns.flatten(),
            max_ns: s.max_ns.flatten(),
            max_at_ns: s.max_at_ns.flatten(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TaskReport {
    pub name: String,
    pub priority: u32,
    /// Jobs completed.
    pub jobs: u64,
    /// Jobs released (completed + still pending at the end).
    pub released: u64,
    /// Largest response time (completion - arrival) of a completed job; null if none.
    pub max_response_ns: Option<f64>,
    /// Response time of the task's first job (the critical instant for a synchronous
    /// set); null if it has not completed.
    pub first_response_ns: Option<f64>,
    pub response: DistSummary,
    pub deadline_ns: f64,
    /// Completed jobs later than their deadline, plus unfinished jobs already past it.
    pub deadline_misses: u64,
    /// Absolute deadline of the first job that missed it.
    pub first_miss_ns: Option<f64>,
    /// Times the task was switched out with work left (by a higher-priority task or a
    /// time slice); interrupts are not counted.
    pub preemptions: u64,
    /// Jobs of an interrupt-released task that found the task's queue full (lost).
    pub overruns: u64,
    /// Execution time consumed by the task.
    pub cpu_ns: f64,
    /// Time the task spent waiting for a resource another task held, over the run.
    #[serde(default)]
    pub blocked_ns: f64,
    /// Largest blocking of one job: the time lower-priority tasks ran (holding a
    /// resource, at an inherited or ceiling priority, in a critical section) while the
    /// job was released and unfinished. Comparable to the analysis's `blocking_ns`.
    #[serde(default)]
    pub max_blocking_ns: f64,
}

/// One time a task found a resource taken.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct BlockEpisode {
    /// When the task found it taken (after its lock and inherit calls).
    pub at_ns: f64,
    pub task: String,
    /// The holder at that moment.
    pub holder: String,
    /// The holder's priority after the episode began (raised by inheritance when the
    /// task outranked it).
    pub holder_priority: u32,
    /// Whether the holder inherited the task's priority.
    pub inherited: bool,
    /// How long the task waited; null while it still waits at the end of the run.
    pub wait_ns: Option<f64>,
}

latscope_core::words!(fn protocol_word = ["inheritance", "ceiling", "critical"]);

/// What happened to one shared resource.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ResourceReport {
    pub name: String,
    #[serde(deserialize_with = "protocol_word")]
    pub protocol: latscope_core::words::Word,
    /// Highest priority of the tasks using it (the ceiling protocol's priority).
    pub ceiling: u32,
    /// Times it was taken (by tasks and handlers).
    pub takes: u64,
    /// Times a task found it taken and blocked.
    pub contended: u64,
    /// Of those, times the holder inherited the blocked task's priority.
    pub inheritances: u64,
    /// Total and longest time it was held (from the end of the lock call to the end
    /// of the unlock call).
    pub held_ns: f64,
    pub max_hold_ns: f64,
    /// Total and longest wait of one task for it.
    pub waited_ns: f64,
    pub max_wait_ns: f64,
    /// Blocking episodes, the first 100 in time order.
    pub episodes: Vec<BlockEpisode>,
}

/// The tick handler's durations (the shared summary: count, min, max, mean, p50, p99)
/// and the tick's own figures.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
#[serde(into = "TickJson", from = "TickJson")]
pub struct TickReport {
    /// Tick handler runs (list-scan: scheduler runs).
    pub count: u64,
    pub min_ns: Option<f64>,
    pub max_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    pub p50_ns: Option<f64>,
    pub p99_ns: Option<f64>,
    /// Ticks whose interrupt was still pending when the next one came (never handled).
    pub lost: u64,
    /// Largest delay from the nominal tick instant to the handler's start.
    pub max_latency_ns: Option<f64>,
    /// Most tasks released by one tick.
    pub max_released: u32,
    /// Nominal instants of the ticks with the largest duration (first 100).
    pub peaks_at_ns: Vec<f64>,
    /// Number of ticks with the largest duration.
    pub peak_count: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
struct TickJson {
    #[serde(flatten)]
    summary: ResultSummary,
    lost: u64,
    max_latency_ns: Option<f64>,
    max_released: u32,
    peaks_at_ns: Vec<f64>,
    peak_count: u64,
}

impl From<TickReport> for TickJson {
    fn from(t: TickReport) -> TickJson {
        TickJson {
            summary: ResultSummary {
                count: t.count,
                min_ns: Some(t.min_ns),
                max_ns: Some(t.max_ns),
                mean_ns: Some(t.mean_ns),
                p50_ns: Some(t.p50_ns),
                p99_ns: Some(t.p99_ns),
                ..ResultSummary::default()
            },
            lost: t.lost,
            max_latency_ns: t.max_latency_ns,
            max_released: t.max_released,
            peaks_at_ns: t.peaks_at_ns,
            peak_count: t.peak_count,
        }
    }
}

impl From<TickJson> for TickReport {
    fn from(t: TickJson) -> TickReport {
        let s = t.summary;
        TickReport {
            count: s.count,
            min_ns: s.min_ns.flatten(),
            max_ns: s.max_ns.flatten(),
            mean_ns: s.mean_ns.flatten(),
            p50_ns: s.p50_ns.flatten(),
            p99_ns: s.p99_ns.flatten(),
            lost: t.lost,
            max_latency_ns: t.max_latency_ns,
            max_released: t.max_released,
            peaks_at_ns: t.peaks_at_ns,
            peak_count: t.peak_count,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SwitchGroup {
    /// "from" and "to" task names (by_pair), or null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Empty priority levels walked past by the selection (by_levels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<u32>,
    /// priority(from) - priority(to) (by_priority_distance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<i64>,
    pub count: u64,
    pub min_ns: f64,
    pub mean_ns: f64,
    pub max_ns: f64,
}

/// Context-switch durations (the shared summary: count, min, mean, max) and their
/// groupings.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
#[serde(into = "SwitchJson", from = "SwitchJson")]
pub struct SwitchReport {
    pub count: u64,
    pub min_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    pub max_ns: Option<f64>,
    pub by_pair: Vec<SwitchGroup>,
    pub by_levels: Vec<SwitchGroup>,
    pub by_priority_distance: Vec<SwitchGroup>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
struct SwitchJson {
    #[serde(flatten)]
    summary: ResultSummary,
    by_pair: Vec<SwitchGroup>,
    by_levels: Vec<SwitchGroup>,
    by_priority_distance: Vec<SwitchGroup>,
}

impl From<SwitchReport> for SwitchJson {
    fn from(t: SwitchReport) -> SwitchJson {
        SwitchJson {
            summary: ResultSummary {
                count: t.count,
                min_ns: Some(t.min_ns),
                mean_ns: Some(t.mean_ns),
                max_ns: Some(t.max_ns),
                ..ResultSummary::default()
            },
            by_pair: t.by_pair,
            by_levels: t.by_levels,
            by_priority_distance: t.by_priority_distance,
        }
    }
}

impl From<SwitchJson> for SwitchReport {
    fn from(t: SwitchJson) -> SwitchReport {
        let s = t.summary;
        SwitchReport {
            count: s.count,
            min_ns: s.min_ns.flatten(),
            mean_ns: s.mean_ns.flatten(),
            max_ns: s.max_ns.flatten(),
            by_pair: t.by_pair,
            by_levels: t.by_levels,
            by_priority_distance: t.by_priority_distance,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct IrqReport {
    pub name: String,
    pub count: u64,
    /// Arrivals merged into an already pending request.
    pub lost: u64,
    /// Arrival to handler end.
    pub response: DistSummary,
    /// Arrival to handler start.
    pub max_latency_ns: Option<f64>,
}

/// Where the CPU's time went (nanoseconds; `fraction` of the simulated duration).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
pub struct CpuSplit {
    pub tasks_ns: f64,
    pub tick_ns: f64,
    pub switch_ns: f64,
    pub interrupts_ns: f64,
    pub scheduler_ns: f64,
    pub idle_ns: f64,
    pub sleep_ns: f64,
    pub wake_ns: f64,
    pub tasks_fraction: f64,
    pub tick_fraction: f64,
    pub switch_fraction: f64,
    pub interrupts_fraction: f64,
    pub scheduler_fraction: f64,
    pub idle_fraction: f64,
    pub sleep_fraction: f64,
    pub wake_fraction: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
pub struct SleepReport {
    pub state: Option<String>,
    pub sleeps: u64,
    pub wakeups: u64,
    /// Wake-ups by the programmed timer (safety margin before the next timed release).
    pub timer_wakeups: u64,
    /// Wake-ups by an asynchronous interrupt (these pay the exit latency).
    pub interrupt_wakeups: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
pub struct ListScanReport {
    pub scheduler_runs: u64,
    /// Tick flags set while the previous one was still unconsumed (scheduler runs lost).
    pub lost_ticks: u64,
    /// Scheduler runs that started after the next tick instant (overrun pushed them).
    pub late_runs: u64,
    /// Delay from the tick instant to the scheduler's start.
    pub delay: DistSummary,
    /// Releases skipped because the thread had not finished its previous job.
    pub overruns: u64,
}

latscope_core::words!(fn kind_word = ["simulate"]);
latscope_core::words!(fn kernel_word = ["tick", "list-scan"]);

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SimReport {
    #[serde(deserialize_with = "kind_word")]
    #[schemars(extend("const" = "simulate"))]
    pub kind: Word,
    pub schema_version: u32,
    pub source: String,
    /// `tick` or `list-scan`.
    #[serde(deserialize_with = "kernel_word")]
    pub kernel: Word,
    pub seed: u64,
    pub duration_ns: f64,
    pub hyperperiod_ns: Option<f64>,
    pub tick_period_ns: f64,
    /// Simulated events (ticks, releases, completions, switches, interrupts, sleeps).
    pub events: u64,
    pub tasks: Vec<TaskReport>,
    pub tick: TickReport,
    pub switches: SwitchReport,
    pub interrupts: Vec<IrqReport>,
    pub cpu: CpuSplit,
    pub sleep: SleepReport,
    /// Shared resources, in file order (empty without `[[resource]]`).
    #[serde(default)]
    pub resources: Vec<ResourceReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_scan: Option<ListScanReport>,
    /// Per core, with `platform.cores > 1` only (then `tick`, `switches` and `sleep`
    /// are core 0's and `cpu` the sum over the cores; docs/simulator.md, Multicore).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cores: Vec<CoreReport>,
    /// End-to-end chains observed (`[[chain]]`, docs/simulator.md); absent without.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<crate::chains::ChainReport>,
    /// Global fixed priority (`task.core = "any"`): dispatches, migrations and
    /// inter-core interrupts (docs/simulator.md, Multicore (global)); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global: Option<crate::global::GlobalReport>,
}

/// One core of a partitioned multicore simulation.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CoreReport {
    pub core: u32,
    /// The tasks pinned to the core, in file order.
    pub tasks: Vec<String>,
    pub events: u64,
    pub cpu: CpuSplit,
}

impl SimReport {
    /// Reads a `simulate --json` result back.
    pub fn from_json(text: &str) -> Result<SimReport, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The percentiles of a `Dist` (a list while few values, a histogram after) equal a
    /// histogram's `percentile` over the same values, clamped to the exact extremes as
    /// `summary` does: checked on counts on both sides of the switch, with values below
    /// zero and above the histogram's range.
    #[test]
    fn list_and_histogram_give_the_histograms_percentiles() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for n in [1usize, 2, 3, 7, 99, FEW - 1, FEW, FEW + 1, 1000, 20_000] {
            // 2 and 40: a few distinct values repeated (the list keeps counts); 130: just
            // more distinct values than the list holds
            for spread in [2i64, 40, 130, 3_000, 2_000_000, 900_000_000] {
                let highest_ps = 1_000_000_000; // 1 ms: 1,000,000 ns
                let mut d = Dist::new(highest_ps, true);
                let mut h = Histogram::new(highest_ps / 1000, 3);
                let (mut lo, mut hi) = (i64::MAX, i64::MIN);
                for k in 0..n {
                    let v = if spread < 1000 {
                        rng.gen_range(-1..spread - 1) * 7_000_000 + 999
                    } else {
                        rng.gen_range(-1000..spread) * 1000 + rng.gen_range(0..1000)
                    };
                    d.add(v, k as i64);
                    h.record(v / 1000);
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                let s = d.summary();
                let want = |p: f64| Some(ns(h.percentile(p).saturating_mul(1000).clamp(lo, hi)));
                let got = [s.p50_ns, s.p90_ns, s.p99_ns, s.p999_ns];
                for (g, p) in got.iter().zip(PCTS) {
                    assert_eq!(*g, want(p), "n {n}, spread {spread}, p{p}");
                }
                assert_eq!(s.count, n as u64);
            }
        }
    }

    /// Values growing through the run make the histogram grow several times; the
    /// percentiles stay those of one histogram sized for the whole range.
    #[test]
    fn a_growing_histogram_gives_the_same_percentiles() {
        let highest_ps = 2_000_000_000_000; // 2 s
        let mut d = Dist::new(highest_ps, true);
        let mut h = Histogram::new(highest_ps / 1000, 3);
        let mut v = 1_234i64;
        for k in 0..5000 {
            v = (v + v / 200 + 7).min(3_000_000_000_000);
            d.add(v, k);
            h.record(v / 1000);
        }
        let (lo, hi) = (1_234 + 1_234 / 200 + 7, v);
        let s = d.summary();
        for (g, p) in [s.p50_ns, s.p90_ns, s.p99_ns, s.p999_ns].iter().zip(PCTS) {
            let want = ns(h.percentile(p).saturating_mul(1000).clamp(lo, hi));
            assert_eq!(*g, Some(want), "p{p}");
        }
    }

    #[test]
    fn without_histogram_no_percentiles() {
        let mut d = Dist::new(1_000_000, false);
        d.add(5000, 0);
        let s = d.summary();
        assert_eq!(s.p50_ns, None);
        assert_eq!(s.max_ns, Some(5.0));
    }
}
