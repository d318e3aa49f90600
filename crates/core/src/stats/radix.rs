//! Exact nearest-rank percentiles of `f32` values in fixed memory, in two passes over them.
//!
//! Why: the default threshold of an analog channel is the midpoint of its 5th and 95th
//! percentile levels, over every sample. Sorting a copy holds 4 bytes per sample (a
//! 100 M-sample scope capture is 400 MB); this reads the values twice instead and holds
//! 64 Ki counters for the first pass and 64 Ki per asked percentile for the second,
//! whatever the sample count. The answer is the same value a sort would give: the value
//! at [`rank_index`](super::rank_index) of the finite values in `f32::total_cmp` order.
//!
//! How: a finite `f32` maps to a `u32` key whose unsigned order is `total_cmp`'s order
//! (flip every bit of a negative, set the sign bit of a positive). Pass 1 counts the keys'
//! high 16 bits; that finds the bucket holding each wanted rank and the rank inside it.
//! Pass 2 counts the low 16 bits of the keys in those buckets only, which pins the key,
//! and so the value, exactly.

/// Counters per pass: 2^16.
const BUCKETS: usize = 1 << 16;

/// The order-preserving key of a float (`total_cmp` order as unsigned order).
fn key(v: f32) -> u32 {
    let b = v.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The float of a key (inverse of [`key`]).
fn unkey(k: u32) -> f32 {
    f32::from_bits(if k >> 31 == 1 { k & 0x7fff_ffff } else { !k })
}

/// Pass 1: counts of the high 16 key bits of every finite value.
#[derive(Clone, Debug)]
pub struct F32Ranks {
    high: Vec<u64>,
    n: u64,
}

impl Default for F32Ranks {
    fn default() -> Self {
        F32Ranks::new()
    }
}

impl F32Ranks {
    pub fn new() -> F32Ranks {
        F32Ranks {
            high: vec![0; BUCKETS],
            n: 0,
        }
    }
    /// Counts one value; NaN and infinities are skipped (they are not levels).
    #[inline]
    pub fn add(&mut self, v: f32) {
        if v.is_finite() {
            self.high[(key(v) >> 16) as usize] += 1;
            self.n += 1;
        }
    }
    /// Finite values counted.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Starts pass 2 for the percentiles `ps` (0..=100, nearest rank): feed every value
    /// again to the returned [`F32Refine`].
    pub fn refine(&self, ps: &[f64]) -> F32Refine {
        let targets = ps
            .iter()
            .map(|&p| {
                let mut r = super::rank_index(p, self.n);
                let mut bucket = 0usize;
                for (b, &c) in self.high.iter().enumerate() {
                    if r < c {
                        bucket = b;
                        break;
                    }
                    r -= c;
                }
                Target {
                    bucket: bucket as u32,
                    rank: r,
                    low: Vec::new(),
                }
            })
            .collect();
        let mut out = F32Refine {
            targets,
            empty: self.n == 0,
            by_bucket: Vec::new(),
        };
        // one low-bit counter array per distinct bucket
        for i in 0..out.targets.len() {
            let b = out.targets[i].bucket;
            if !out.by_bucket.iter().any(|&(x, _)| x == b) {
                out.by_bucket.push((b, i));
                out.targets[i].low = vec![0; BUCKETS];
            }
        }
        out
    }
}

#[derive(Clone, Debug)]
struct Target {
    bucket: u32,
    /// Rank (0-based) inside the bucket.
    rank: u64,
    /// Counts of the low 16 key bits in `bucket` (empty when another target owns them).
    low: Vec<u64>,
}

/// Pass 2 of [`F32Ranks`]: counts the low key bits inside the buckets that hold the
/// wanted ranks.
#[derive(Clone, Debug)]
pub struct F32Refine {
    targets: Vec<Target>,
    empty: bool,
    /// (bucket, index of the target holding its counters)
    by_bucket: Vec<(u32, usize)>,
}

impl F32Refine {
    /// Feeds one value of pass 2 (the same values, in any order, as pass 1).
    #[inline]
    pub fn add(&mut self, v: f32) {
        if !v.is_finite() {
            return;
        }
        let k = key(v);
        let hi = k >> 16;
        for &(b, i) in &self.by_bucket {
            if b == hi {
                self.targets[i].low[(k & 0xffff) as usize] += 1;
            }
        }
    }
    /// The value at each asked percentile, in the order asked; None for each when there
    /// were no finite values.
    pub fn values(&self) -> Vec<Option<f32>> {
        self.targets
            .iter()
            .map(|t| {
                if self.empty {
                    return None;
                }
                let owner = self
                    .by_bucket
                    .iter()
                    .find(|&&(b, _)| b == t.bucket)
                    .map(|&(_, i)| i)?;
                let low = &self.targets[owner].low;
                let mut r = t.rank;
                for (l, &c) in low.iter().enumerate() {
                    if r < c {
                        return Some(unkey((t.bucket << 16) | l as u32));
                    }
                    r -= c;
                }
                None
            })
            .collect()
    }
}

/// The percentiles `ps` of `values` by [`F32Ranks`]: two passes over the slice.
pub fn f32_percentiles(values: &[f32], ps: &[f64]) -> Vec<Option<f32>> {
    let mut a = F32Ranks::new();
    values.iter().for_each(|&v| a.add(v));
    let mut b = a.refine(ps);
    values.iter().for_each(|&v| b.add(v));
    b.values()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::rank_index;

    fn by_sort(v: &[f32], ps: &[f64]) -> Vec<Option<f32>> {
        let mut s: Vec<f32> = v.iter().copied().filter(|x| x.is_finite()).collect();
        s.sort_by(|a, b| a.total_cmp(b));
        ps.iter()
            .map(|&p| (!s.is_empty()).then(|| s[rank_index(p, s.len() as u64) as usize]))
            .collect()
    }

    #[test]
    fn key_order_is_total_cmp_order() {
        let vals = [
            f32::MIN,
            -1e30,
            -3.3,
            -1e-40,
            -0.0,
            0.0,
            1e-40,
            1.0,
            1.0000001,
            3.3,
            f32::MAX,
        ];
        for w in vals.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} {}", w[0], w[1]);
        }
        for v in vals {
            assert_eq!(unkey(key(v)).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn same_values_as_a_sort() {
        // a deterministic mix: two levels with noise, negatives, exact repeats, NaN
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let ps = [0.0, 5.0, 50.0, 95.0, 99.9, 100.0];
        for n in [1usize, 2, 3, 19, 1000, 100_000] {
            let v: Vec<f32> = (0..n)
                .map(|i| {
                    let r = next();
                    match r % 11 {
                        0 => f32::NAN,
                        1 => -0.0,
                        2 => 3.3,
                        _ => {
                            let base = if i % 2 == 0 { 0.0 } else { 3.3 };
                            base + ((r >> 20) % 2000) as f32 * 1e-4 - 0.1
                        }
                    }
                })
                .collect();
            assert_eq!(f32_percentiles(&v, &ps), by_sort(&v, &ps), "n={n}");
        }
        // values spread over many buckets, both signs
        let v: Vec<f32> = (0..50_000).map(|_| f32::from_bits(next() as u32)).collect();
        assert_eq!(f32_percentiles(&v, &ps), by_sort(&v, &ps));
    }

    #[test]
    fn no_finite_values_gives_none() {
        assert_eq!(
            f32_percentiles(&[f32::NAN, f32::INFINITY], &[5.0, 95.0]),
            vec![None, None]
        );
        assert_eq!(f32_percentiles(&[], &[50.0]), vec![None]);
    }
}
