//! The one statistics module: every front end (measure, trace, simulate) summarises
//! its values through here, so a p99 means the same thing everywhere.
//!
//! Definitions (documented in docs/statistics.md):
//! * percentiles use the nearest-rank rule: the p-th percentile of n sorted values is
//!   the value at rank ceil(p/100 * n) (1-based). It is always a value that occurred
//!   (exact path) or the upper edge of the bucket holding that rank (histogram path);
//! * stdev is the sample standard deviation (n - 1), as Python's statistics.stdev and
//!   the Python sleep-loop report use; it is 0 for a single value;
//! * min, max and mean are exact on both paths; only percentiles come from the
//!   histogram when values are streamed.

use serde::{Deserialize, Serialize};

pub mod radix;

/// Where a value happened: a time in the stream's own unit and a source (CPU, channel).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub at: i64,
    pub source: u32,
}

/// The figures every summary carries, in the unit of the values fed in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub count: u64,
    pub min: i64,
    pub max: i64,
    pub mean: f64,
    pub stdev: f64,
    pub p50: i64,
    pub p90: i64,
    pub p99: i64,
    pub p999: i64,
    pub p9999: i64,
    pub min_at: Location,
    pub max_at: Location,
}

/// Nearest-rank index (0-based) of percentile `p` (0..=100) among `n` values.
pub fn rank_index(p: f64, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    // Integer arithmetic on p in millionths of a percent: in floating point
    // 99.9 / 100 * 1000 is 999.0000000000001, whose ceiling would skip a rank.
    let micro = (p.clamp(0.0, 100.0) * 1e6).round() as u128;
    let r = (micro * n as u128).div_ceil(100_000_000) as u64;
    r.clamp(1, n) - 1
}

/// Exact running moments (Welford) with the location of the extremes.
#[derive(Clone, Debug)]
pub struct Moments {
    count: u64,
    mean: f64,
    m2: f64,
    min: i64,
    max: i64,
    min_at: Location,
    max_at: Location,
}

impl Default for Moments {
    fn default() -> Self {
        Moments {
            count: 0,
            mean: 0.0,
            m2: 0.0,
            min: i64::MAX,
            max: i64::MIN,
            min_at: Location::default(),
            max_at: Location::default(),
        }
    }
}

impl Moments {
    #[inline]
    pub fn add(&mut self, v: i64, loc: Location) {
        self.count += 1;
        let x = v as f64;
        let d = x - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (x - self.mean);
        if v < self.min {
            self.min = v;
            self.min_at = loc;
        }
        if v > self.max {
            self.max = v;
            self.max_at = loc;
        }
    }
    pub fn count(&self) -> u64 {
        self.count
    }
    pub fn min(&self) -> Option<i64> {
        (self.count > 0).then_some(self.min)
    }
    pub fn max(&self) -> Option<i64> {
        (self.count > 0).then_some(self.max)
    }
    pub fn mean(&self) -> f64 {
        self.mean
    }
    pub fn stdev(&self) -> f64 {
        if self.count < 2 {
            0.0
        } else {
            (self.m2 / (self.count - 1) as f64).sqrt()
        }
    }
    pub fn min_at(&self) -> Location {
        self.min_at
    }
    pub fn max_at(&self) -> Location {
        self.max_at
    }
    /// Chan et al.'s parallel combination, so per-CPU moments merge exactly.
    pub fn merge(&mut self, o: &Moments) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = o.clone();
            return;
        }
        let n = (self.count + o.count) as f64;
        let d = o.mean - self.mean;
        self.m2 += o.m2 + d * d * (self.count as f64) * (o.count as f64) / n;
        self.mean += d * o.count as f64 / n;
        self.count += o.count;
        if o.min < self.min {
            self.min = o.min;
            self.min_at = o.min_at;
        }
        if o.max > self.max {
            self.max = o.max;
            self.max_at = o.max_at;
        }
    }
}

/// A log-linear (HDR) histogram with bounded memory and explicit out-of-range counts.
///
/// Values in `[0, highest]` are kept with `sigfig` significant decimal digits (3 means
/// a bucket is at most 0.1 % wide); larger values are counted in `overflow` and
/// recorded at `highest`, negative ones in `underflow` and recorded at 0, so ranks stay
/// right and nothing is lost silently. Memory does not grow with the number of values.
#[derive(Clone, Debug)]
pub struct Histogram {
    h: hdrhistogram::Histogram<u64>,
    highest: i64,
    overflow: u64,
    underflow: u64,
}

/// One non-empty bucket: values in `[low, high]` occurred `count` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub low: i64,
    pub high: i64,
    pub count: u64,
}

#[derive(Debug, thiserror::Error)]
#[error("histogram merge failed: {0}")]
pub struct MergeError(String);

impl Histogram {
    /// `highest` is the largest value kept exactly (e.g. 10 s in ns = 10_000_000_000).
    pub fn new(highest: i64, sigfig: u8) -> Histogram {
        let highest = highest.max(2);
        let h = hdrhistogram::Histogram::new_with_bounds(1, highest as u64, sigfig.clamp(1, 5))
            .expect("valid histogram bounds");
        Histogram {
            h,
            highest,
            overflow: 0,
            underflow: 0,
        }
    }
    /// 1 ns to 10 s at 0.1 % resolution: the default for latencies in nanoseconds.
    pub fn for_latency_ns() -> Histogram {
        Histogram::new(10_000_000_000, 3)
    }
    #[inline]
    pub fn record(&mut self, v: i64) {
        self.record_n(v, 1)
    }
    #[inline]
    pub fn record_n(&mut self, v: i64, n: u64) {
        let x = if v < 0 {
            self.underflow += n;
            0
        } else if v > self.highest {
            self.overflow += n;
            self.highest
        } else {
            v
        };
        // Cannot fail: x is within the bounds given at construction.
        let _ = self.h.record_n(x as u64, n);
    }
    pub fn count(&self) -> u64 {
        self.h.len()
    }
    pub fn overflow(&self) -> u64 {
        self.overflow
    }
    pub fn underflow(&self) -> u64 {
        self.underflow
    }
    pub fn highest(&self) -> i64 {
        self.highest
    }
    /// Nearest-rank percentile: the upper edge of the bucket holding that rank, so the
    /// reported value is never below the true one by more than the bucket width.
    pub fn percentile(&self, p: f64) -> i64 {
        let n = self.count();
        if n == 0 {
            return 0;
        }
        let want = rank_index(p, n) + 1;
        let mut seen = 0u64;
        for it in self.h.iter_recorded() {
            seen += it.count_at_value();
            if seen >= want {
                let v = self.h.highest_equivalent(it.value_iterated_to()) as i64;
                return v.min(self.highest);
            }
        }
        self.highest
    }
    /// The HdrHistogram inside (for its standard serialisation; values are clamped to
    /// `[0, highest]` as recorded, the out-of-range counts are [`overflow`](Self::overflow)
    /// and [`underflow`](Self::underflow)).
    pub fn hdr(&self) -> &hdrhistogram::Histogram<u64> {
        &self.h
    }
    /// Adds the counts of an HdrHistogram (e.g. one decoded from its serialised form)
    /// and the out-of-range counts that went with it; fails when its values do not fit.
    pub fn add_hdr(
        &mut self,
        h: &hdrhistogram::Histogram<u64>,
        overflow: u64,
        underflow: u64,
    ) -> Result<(), MergeError> {
        if h.max() > self.h.highest_equivalent(self.highest as u64) {
            return Err(MergeError(format!(
                "values up to {} beyond this histogram's {}",
                h.max(),
                self.highest
            )));
        }
        self.h.add(h).map_err(|e| MergeError(format!("{e:?}")))?;
        self.overflow += overflow;
        self.underflow += underflow;
        Ok(())
    }
    pub fn merge(&mut self, o: &Histogram) -> Result<(), MergeError> {
        self.h.add(&o.h).map_err(|e| MergeError(format!("{e:?}")))?;
        self.overflow += o.overflow;
        self.underflow += o.underflow;
        Ok(())
    }
    /// Non-empty buckets in increasing order.
    pub fn buckets(&self) -> Vec<Bucket> {
        self.h
            .iter_recorded()
            .map(|it| {
                let v = it.value_iterated_to();
                Bucket {
                    low: self.h.lowest_equivalent(v) as i64,
                    high: (self.h.highest_equivalent(v) as i64).min(self.highest),
                    count: it.count_at_value(),
                }
            })
            .collect()
    }
    /// Counts re-binned into fixed-width bins `[i*width, (i+1)*width)` for i < nbins; the
    /// last element counts everything at or above `nbins*width`. Exact where `width` is a
    /// multiple of the bucket width in that range (e.g. 1 us bins below 1 ms at 3 sigfig).
    pub fn linear_bins(&self, width: i64, nbins: usize) -> Vec<u64> {
        let mut out = vec![0u64; nbins + 1];
        for b in self.buckets() {
            let i = (b.low / width.max(1)) as usize;
            out[i.min(nbins)] += b.count;
        }
        out
    }
}

/// A streaming summary: exact moments and extremes, percentiles from a histogram.
#[derive(Clone, Debug)]
pub struct Accumulator {
    pub moments: Moments,
    pub hist: Histogram,
}

impl Accumulator {
    pub fn new(hist: Histogram) -> Accumulator {
        Accumulator {
            moments: Moments::default(),
            hist,
        }
    }
    #[inline]
    pub fn add(&mut self, v: i64, loc: Location) {
        self.moments.add(v, loc);
        self.hist.record(v);
    }
    pub fn merge(&mut self, o: &Accumulator) -> Result<(), MergeError> {
        self.moments.merge(&o.moments);
        self.hist.merge(&o.hist)
    }
    pub fn summary(&self) -> Summary {
        let m = &self.moments;
        if m.count() == 0 {
            return Summary::default();
        }
        // Percentiles never exceed the exact max nor go below the exact min.
        let clamp = |v: i64| v.clamp(m.min, m.max);
        Summary {
            count: m.count(),
            min: m.min,
            max: m.max,
            mean: m.mean(),
            stdev: m.stdev(),
            p50: clamp(self.hist.percentile(50.0)),
            p90: clamp(self.hist.percentile(90.0)),
            p99: clamp(self.hist.percentile(99.0)),
            p999: clamp(self.hist.percentile(99.9)),
            p9999: clamp(self.hist.percentile(99.99)),
            min_at: m.min_at,
            max_at: m.max_at,
        }
    }
}

/// Values kept in memory with their locations: exact percentiles, mode and worst cases.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    values: Vec<(i64, Location)>,
    sorted: bool,
}

impl Samples {
    pub fn new() -> Samples {
        Samples::default()
    }
    pub fn with_capacity(n: usize) -> Samples {
        Samples {
            values: Vec::with_capacity(n),
            sorted: false,
        }
    }
    #[inline]
    pub fn push(&mut self, v: i64, loc: Location) {
        self.values.push((v, loc));
        self.sorted = false;
    }
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
    /// Values in the order they were pushed (until a sorting call).
    pub fn values(&self) -> &[(i64, Location)] {
        &self.values
    }
    fn sort(&mut self) {
        if !self.sorted {
            // Stable: among equal values the earliest occurrence comes first.
            self.values.sort_by_key(|&(v, _)| v);
            self.sorted = true;
        }
    }
    /// Exact nearest-rank percentile.
    pub fn percentile(&mut self, p: f64) -> Option<i64> {
        if self.values.is_empty() {
            return None;
        }
        self.sort();
        Some(self.values[rank_index(p, self.values.len() as u64) as usize].0)
    }
    pub fn summary(&mut self) -> Summary {
        let mut m = Moments::default();
        for &(v, l) in &self.values {
            m.add(v, l);
        }
        if m.count() == 0 {
            return Summary::default();
        }
        self.sort();
        let n = self.values.len() as u64;
        let at = |p: f64| self.values[rank_index(p, n) as usize].0;
        Summary {
            count: n,
            min: m.min,
            max: m.max,
            mean: m.mean(),
            stdev: m.stdev(),
            p50: at(50.0),
            p90: at(90.0),
            p99: at(99.0),
            p999: at(99.9),
            p9999: at(99.99),
            min_at: m.min_at,
            max_at: m.max_at,
        }
    }
    /// The most frequent value after rounding to `resolution` (one sample period for a
    /// capture); ties go to the smaller value. Returns the bin's lower edge.
    pub fn mode(&mut self, resolution: i64) -> Option<i64> {
        if self.values.is_empty() {
            return None;
        }
        self.sort();
        let r = resolution.max(1);
        let mut best = (0u64, 0i64);
        let mut cur = (0u64, i64::MIN);
        for &(v, _) in &self.values {
            let b = v.div_euclid(r) * r;
            if b == cur.1 {
                cur.0 += 1;
            } else {
                cur = (1, b);
            }
            if cur.0 > best.0 {
                best = cur;
            }
        }
        Some(best.1)
    }
    /// The k largest values, largest first, each with where it happened.
    pub fn worst(&mut self, k: usize) -> Vec<(i64, Location)> {
        self.sort();
        self.values.iter().rev().take(k).copied().collect()
    }
    /// All values into a histogram (for plots and for merging with streamed data).
    pub fn histogram(&self, highest: i64, sigfig: u8) -> Histogram {
        let mut h = Histogram::new(highest, sigfig);
        for &(v, _) in &self.values {
            h.record(v);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(at: i64) -> Location {
        Location { at, source: 0 }
    }

    #[test]
    fn nearest_rank_known_vector() {
        // 1..=100: p50 = 50, p90 = 90, p99 = 99, p99.9 = 100
        let mut s = Samples::new();
        for v in (1..=100).rev() {
            s.push(v, loc(v * 10));
        }
        let sum = s.summary();
        assert_eq!((sum.p50, sum.p90, sum.p99, sum.p999), (50, 90, 99, 100));
        assert_eq!((sum.min, sum.max), (1, 100));
        assert_eq!(sum.max_at.at, 1000);
        assert_eq!(sum.min_at.at, 10);
        assert!((sum.mean - 50.5).abs() < 1e-12);
        // sample stdev of 1..=100 = sqrt(841.666..)
        assert!((sum.stdev - 29.011_491_975_882).abs() < 1e-9);
    }

    #[test]
    fn ranks_are_exact_for_decimal_percentiles() {
        // p99.9 of 1000 values is rank 999, p99.99 of 10000 is rank 9999.
        assert_eq!(rank_index(99.9, 1000), 998);
        assert_eq!(rank_index(99.99, 10_000), 9_998);
        assert_eq!(rank_index(50.0, 1), 0);
        assert_eq!(rank_index(0.0, 5), 0);
        assert_eq!(rank_index(100.0, 5), 4);
        assert_eq!(rank_index(30.0, 5), 1);
        assert_eq!(rank_index(99.0, 100), 98);
    }

    #[test]
    fn small_vectors() {
        let mut s = Samples::new();
        for v in [15, 20, 35, 40, 50] {
            s.push(v, loc(0));
        }
        // Classic nearest-rank example: p30 = 20, p40 = 20, p50 = 35, p100 = 50
        assert_eq!(s.percentile(30.0), Some(20));
        assert_eq!(s.percentile(40.0), Some(20));
        assert_eq!(s.percentile(50.0), Some(35));
        assert_eq!(s.percentile(100.0), Some(50));
        assert_eq!(s.percentile(0.0), Some(15));
        let mut one = Samples::new();
        one.push(7, loc(3));
        let sum = one.summary();
        assert_eq!(sum.stdev, 0.0);
        assert_eq!(sum.p9999, 7);
        assert_eq!(Samples::new().summary().count, 0);
    }

    #[test]
    fn histogram_percentiles_within_resolution() {
        let mut a = Accumulator::new(Histogram::for_latency_ns());
        let mut s = Samples::new();
        for i in 0..100_000i64 {
            let v = 1_000 + (i * 7919) % 1_000_000;
            a.add(v, loc(i));
            s.push(v, loc(i));
        }
        let h = a.summary();
        let e = s.summary();
        assert_eq!(h.count, e.count);
        assert_eq!((h.min, h.max), (e.min, e.max));
        for (x, y) in [(h.p50, e.p50), (h.p99, e.p99), (h.p999, e.p999)] {
            assert!(x >= y, "histogram percentile below exact: {x} < {y}");
            assert!((x - y) as f64 <= y as f64 * 0.001 + 1.0, "{x} vs {y}");
        }
        assert!((h.mean - e.mean).abs() < 1e-6);
        assert!((h.stdev - e.stdev).abs() < 1e-6);
    }

    #[test]
    fn overflow_and_underflow_are_counted() {
        let mut h = Histogram::new(1_000, 3);
        h.record(5);
        h.record(2_000);
        h.record(-3);
        assert_eq!((h.count(), h.overflow(), h.underflow()), (3, 1, 1));
        assert_eq!(h.percentile(100.0), 1_000);
        assert_eq!(h.percentile(1.0), 0);
    }

    #[test]
    fn merge_equals_single_stream() {
        let mut a = Accumulator::new(Histogram::for_latency_ns());
        let mut b = Accumulator::new(Histogram::for_latency_ns());
        let mut all = Accumulator::new(Histogram::for_latency_ns());
        for i in 0..10_000i64 {
            let v = (i * 31) % 5000 + 1;
            if i % 3 == 0 {
                a.add(v, loc(i));
            } else {
                b.add(v, loc(i));
            }
            all.add(v, loc(i));
        }
        a.merge(&b).unwrap();
        let (x, y) = (a.summary(), all.summary());
        assert_eq!(x.count, y.count);
        assert_eq!((x.min, x.max, x.p50, x.p99), (y.min, y.max, y.p50, y.p99));
        assert!((x.mean - y.mean).abs() < 1e-9);
        assert!((x.stdev - y.stdev).abs() < 1e-9);
    }

    #[test]
    fn mode_worst_and_bins() {
        let mut s = Samples::new();
        for (i, v) in [3, 5, 5, 9, 5, 1, 9].into_iter().enumerate() {
            s.push(v, loc(i as i64));
        }
        assert_eq!(s.mode(1), Some(5));
        let w = s.worst(2);
        assert_eq!(w.iter().map(|x| x.0).collect::<Vec<_>>(), vec![9, 9]);
        let mut h = Histogram::new(10_000, 3);
        for v in [0, 1_500, 1_999, 2_000, 50_000] {
            h.record(v);
        }
        assert_eq!(h.linear_bins(1_000, 3), vec![1, 2, 1, 1]);
    }
}
