//! Live metrics of a running `measure` (for `--listen` and `--openmetrics`): per CPU a
//! cumulative latency histogram over a fixed set of buckets, the sum of the latencies
//! and the overrun count, kept in atomics.
//!
//! A measuring thread is the only writer of its CPU's counters and updates them with
//! plain relaxed loads and stores (no locked instruction, no lock, no allocation); a
//! reader takes a [`Snapshot`] at any time without stopping anyone. The memory is fixed
//! when the run starts ([`BOUNDS_NS`] buckets per CPU): a run of a day or a year uses
//! the same. A snapshot's `count` is the sum of its buckets, so `_count` always equals
//! the `+Inf` bucket even while the threads write.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// Upper bucket bounds in ns: 1, 1.5, 2, 3, 5, 7 × 10^k from 1 µs to 7 s, then 10 s
/// (43 finite bounds; a `+Inf` bucket follows). Steps of 33 % to 67 %: fine enough to
/// place a p99 and few enough for a fleet of many-core hosts (44 series per CPU).
pub const BOUNDS_NS: [i64; 43] = {
    let mant = [10, 15, 20, 30, 50, 70];
    let mut out = [0i64; 43];
    let mut scale = 100i64; // 10 × 100 ns = 1 µs
    let mut i = 0;
    while i < 42 {
        out[i] = mant[i % 6] * scale;
        i += 1;
        if i % 6 == 0 {
            scale *= 10;
        }
    }
    out[42] = 10_000_000_000;
    out
};

/// Index of the bucket holding `ns` (the first bound at or above it; `BOUNDS_NS.len()`
/// for the `+Inf` bucket). Negative latencies fall in the first bucket.
#[inline]
pub fn bucket_of(ns: i64) -> usize {
    BOUNDS_NS.partition_point(|&b| b < ns)
}

/// One CPU's counters. Written by its measuring thread only.
#[derive(Debug)]
pub struct CpuCounters {
    pub cpu: u32,
    buckets: [AtomicU64; BOUNDS_NS.len() + 1],
    sum_ns: AtomicI64,
    overruns: AtomicU64,
}

impl CpuCounters {
    fn new(cpu: u32) -> CpuCounters {
        CpuCounters {
            cpu,
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_ns: AtomicI64::new(0),
            overruns: AtomicU64::new(0),
        }
    }

    /// Counts one latency. Single writer: load and store, no read-modify-write.
    #[inline]
    pub fn record(&self, ns: i64) {
        let b = &self.buckets[bucket_of(ns)];
        b.store(b.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let s = self.sum_ns.load(Ordering::Relaxed);
        self.sum_ns.store(s.saturating_add(ns), Ordering::Relaxed);
    }

    /// Counts `n` missed periods. Single writer.
    #[inline]
    pub fn add_overruns(&self, n: u64) {
        let o = self.overruns.load(Ordering::Relaxed);
        self.overruns.store(o + n, Ordering::Relaxed);
    }
}

/// The counters of every measured CPU, in the order of the run's CPU list.
#[derive(Debug)]
pub struct LiveMetrics {
    cpus: Vec<CpuCounters>,
}

/// One CPU's figures at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuSnapshot {
    pub cpu: u32,
    /// Non-cumulative counts per bucket (`BOUNDS_NS.len() + 1`, the last is `+Inf`).
    pub buckets: Vec<u64>,
    /// Sum of the bucket counts.
    pub count: u64,
    pub sum_ns: i64,
    pub overruns: u64,
}

/// Every CPU's figures at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub cpus: Vec<CpuSnapshot>,
}

impl LiveMetrics {
    pub fn new(cpus: &[u32]) -> LiveMetrics {
        LiveMetrics {
            cpus: cpus.iter().map(|&c| CpuCounters::new(c)).collect(),
        }
    }

    /// The counters of the `idx`-th CPU of the run (None beyond the list).
    pub fn cpu(&self, idx: usize) -> Option<&CpuCounters> {
        self.cpus.get(idx)
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            cpus: self
                .cpus
                .iter()
                .map(|c| {
                    let buckets: Vec<u64> = c
                        .buckets
                        .iter()
                        .map(|b| b.load(Ordering::Relaxed))
                        .collect();
                    CpuSnapshot {
                        cpu: c.cpu,
                        count: buckets.iter().sum(),
                        buckets,
                        sum_ns: c.sum_ns.load(Ordering::Relaxed),
                        overruns: c.overruns.load(Ordering::Relaxed),
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_the_documented_series() {
        assert_eq!(BOUNDS_NS[0], 1_000);
        assert_eq!(
            &BOUNDS_NS[..7],
            &[1_000, 1_500, 2_000, 3_000, 5_000, 7_000, 10_000]
        );
        assert_eq!(BOUNDS_NS[41], 7_000_000_000);
        assert_eq!(BOUNDS_NS[42], 10_000_000_000);
        assert!(BOUNDS_NS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn values_land_in_the_bucket_whose_bound_is_at_or_above_them() {
        assert_eq!(bucket_of(-5), 0);
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(1_000), 0, "le is inclusive");
        assert_eq!(bucket_of(1_001), 1);
        assert_eq!(bucket_of(10_000_000_000), 42);
        assert_eq!(bucket_of(10_000_000_001), 43, "+Inf");
        let m = LiveMetrics::new(&[3, 5]);
        let c = m.cpu(1).unwrap();
        for v in [900, 1_200, 1_200, 20_000_000_000] {
            c.record(v);
        }
        c.add_overruns(4);
        let s = m.snapshot();
        assert_eq!(s.cpus[0].count, 0);
        let k = &s.cpus[1];
        assert_eq!((k.cpu, k.count, k.overruns), (5, 4, 4));
        assert_eq!((k.buckets[0], k.buckets[1], k.buckets[43]), (1, 2, 1));
        assert_eq!(k.sum_ns, 900 + 2_400 + 20_000_000_000);
        assert!(m.cpu(2).is_none());
    }
}
