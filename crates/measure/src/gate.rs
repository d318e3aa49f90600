//! The regression decision from the spread between rounds: a percentile bootstrap of the
//! difference of per-round medians.
//!
//! Each run of `measure --rounds N` gives N values of a figure (one per round, e.g. the
//! p50 of that round). The figure of a run is the median of its rounds; B − A is the
//! difference of those medians, relative to A's (or in ns for an absolute threshold).
//! Resampling the rounds of each run with replacement many times gives the spread of that
//! difference; B is *worse* only when the lower confidence bound of the difference is
//! above the threshold, i.e. when B is worse by more than the threshold with the
//! requested confidence. Two runs with identical settings then rarely disagree, while a
//! shift well past the threshold is caught when the rounds are consistent.
//!
//! The resampling uses a fixed-seed generator: the same two files always give the same
//! verdict.

/// Bootstrap resamples.
pub const RESAMPLES: usize = 4000;

/// The estimate, its confidence interval and the verdict for one figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// B − A of the per-round medians (percent of A's median, or ns when absolute).
    pub change: f64,
    /// One-sided lower confidence bound of `change` (the verdict uses it).
    pub lower: f64,
    /// Upper bound at the same confidence (for the report).
    pub upper: f64,
}

/// Median of a non-empty slice (averaging the two middle values of an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// A small deterministic generator (SplitMix64), enough for resampling indices.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        // n is small (rounds); the modulo bias is negligible.
        (self.next() % n.max(1) as u64) as usize
    }
}

/// How a difference is expressed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Percent of A's median; `floor` keeps the base away from zero (1 for counts).
    Relative { floor: f64 },
    /// Plain difference (ns or counts).
    Absolute,
}

fn diff(a: f64, b: f64, scale: Scale) -> f64 {
    match scale {
        Scale::Relative { floor } => (b - a) * 100.0 / a.abs().max(floor),
        Scale::Absolute => b - a,
    }
}

/// Bootstrap estimate of B − A from per-round values; `confidence` in (0, 1), e.g. 0.95.
/// Returns None when either side has no round.
pub fn bootstrap(a: &[f64], b: &[f64], scale: Scale, confidence: f64) -> Option<Estimate> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let change = diff(median(a), median(b), scale);
    let mut rng = SplitMix(0x6c61_7473_636f_7065); // "latscope"
    let mut ra = vec![0.0; a.len()];
    let mut rb = vec![0.0; b.len()];
    let mut d = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        for x in ra.iter_mut() {
            *x = a[rng.below(a.len())];
        }
        for x in rb.iter_mut() {
            *x = b[rng.below(b.len())];
        }
        d.push(diff(median(&ra), median(&rb), scale));
    }
    d.sort_by(f64::total_cmp);
    let alpha = (1.0 - confidence).clamp(0.0, 1.0);
    let at = |q: f64| {
        let i = ((d.len() - 1) as f64 * q).round() as usize;
        d[i.min(d.len() - 1)]
    };
    Some(Estimate {
        change,
        lower: at(alpha),
        upper: at(1.0 - alpha),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    /// Round values with a little spread around `centre`, deterministic.
    fn rounds(centre: f64, spread: f64, n: usize, phase: u64) -> Vec<f64> {
        let mut g = SplitMix(phase);
        (0..n)
            .map(|_| centre + spread * ((g.next() % 2001) as f64 / 1000.0 - 1.0))
            .collect()
    }

    #[test]
    fn identical_runs_are_not_worse_and_a_clear_shift_is() {
        let rel = Scale::Relative { floor: 1.0 };
        let a = rounds(40_000.0, 4_000.0, 10, 1);
        let b = rounds(40_000.0, 4_000.0, 10, 2);
        let e = bootstrap(&a, &b, rel, 0.95).unwrap();
        assert!(e.lower < 10.0, "{e:?}");
        assert!(e.lower <= e.change && e.change <= e.upper, "{e:?}");
        // A 25 % shift with ±10 % round-to-round spread: worse beyond 10 %.
        let c = rounds(50_000.0, 4_000.0, 10, 3);
        let e = bootstrap(&a, &c, rel, 0.95).unwrap();
        assert!(e.lower > 10.0, "{e:?}");
        assert!((e.change - 25.0).abs() < 12.0, "{e:?}");
        // The same shift with wild spread is not proven.
        let wild_a = rounds(40_000.0, 40_000.0, 4, 4);
        let wild_c = rounds(50_000.0, 40_000.0, 4, 5);
        let e = bootstrap(&wild_a, &wild_c, rel, 0.95).unwrap();
        assert!(e.lower < 10.0, "{e:?}");
        // Deterministic.
        assert_eq!(bootstrap(&a, &c, rel, 0.95), bootstrap(&a, &c, rel, 0.95));
        assert!(bootstrap(&[], &c, rel, 0.95).is_none());
    }

    #[test]
    fn absolute_scale_and_count_floor() {
        let e = bootstrap(&[0.0; 5], &[3.0; 5], Scale::Absolute, 0.95).unwrap();
        assert_eq!((e.change, e.lower, e.upper), (3.0, 3.0, 3.0));
        // 0 → 3 overruns: 300 % of the floor of 1, not infinite.
        let e = bootstrap(&[0.0; 5], &[3.0; 5], Scale::Relative { floor: 1.0 }, 0.95).unwrap();
        assert_eq!(e.change, 300.0);
    }
}
