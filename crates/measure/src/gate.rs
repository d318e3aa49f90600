//! The regression decision from the spread between rounds: a rank test (Mann–Whitney)
//! with its Hodges–Lehmann estimate of the shift between two runs' per-round figures.
//!
//! Each run of `measure --rounds N` gives N values of a figure (one per round, e.g. the
//! p50 of that round). Every pair (round of A, round of B) gives one difference — of the
//! logarithms for a relative threshold, so the shift is a ratio, or plain for an
//! absolute one. The estimate is the median of all pairwise differences; its confidence
//! bounds are order statistics of them chosen with the normal approximation of the
//! Mann–Whitney statistic. B is *worse* only when the lower bound is above the threshold,
//! i.e. when B is worse by more than the threshold with the requested confidence. The
//! method uses only ranks, so a round with a hypervisor hiccup (a p99 ten times the
//! others) weighs no more than any other round — the percentile bootstrap this replaced
//! raised false alarms on exactly those. Deterministic: the same files always give the
//! same verdict.

/// The estimate, its confidence interval and the verdict for one figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// B − A of the per-round medians (percent of A's median, or ns when absolute).
    pub change: f64,
    /// One-sided lower confidence bound of `change` (the verdict uses it).
    pub lower: f64,
    /// Upper bound at the same confidence (for the report).
    pub upper: f64,
    /// `change` and its bounds are percent of A (a relative threshold), else ns / counts.
    pub relative: bool,
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

/// How a difference is expressed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Percent of A; values below `floor` count as `floor` (1 for counts, so 0 → 3
    /// overruns reads +200 %, not infinity).
    Relative { floor: f64 },
    /// Plain difference (ns or counts).
    Absolute,
}

/// Inverse of the standard normal distribution function (Acklam's rational
/// approximation, relative error below 1.2e-9), for 0 < p < 1.
pub fn normal_quantile(p: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Estimate of B − A from per-round values with one-sided bounds at `confidence` in
/// (0, 1), e.g. 0.95. Returns None when either side has no round.
pub fn rank_shift(a: &[f64], b: &[f64], scale: Scale, confidence: f64) -> Option<Estimate> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let t = |x: f64| match scale {
        Scale::Relative { floor } => x.max(floor).ln(),
        Scale::Absolute => x,
    };
    let mut d: Vec<f64> = Vec::with_capacity(a.len() * b.len());
    for &x in a {
        for &y in b {
            d.push(t(y) - t(x));
        }
    }
    d.sort_by(f64::total_cmp);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let n = d.len();
    let z = normal_quantile(confidence.clamp(0.5, 0.9999));
    let k = (na * nb / 2.0 - z * (na * nb * (na + nb + 1.0) / 12.0).sqrt()).floor();
    let k = (k.max(0.0) as usize).min(n - 1);
    let back = |v: f64| match scale {
        Scale::Relative { .. } => (v.exp() - 1.0) * 100.0,
        Scale::Absolute => v,
    };
    Some(Estimate {
        change: back(median(&d)),
        lower: back(d[k]),
        upper: back(d[n - 1 - k]),
        relative: matches!(scale, Scale::Relative { .. }),
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
    fn rounds(centre: f64, spread: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut g = seed;
        (0..n)
            .map(|_| {
                g = g
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                centre + spread * (((g >> 33) % 2001) as f64 / 1000.0 - 1.0)
            })
            .collect()
    }

    #[test]
    fn normal_quantiles() {
        assert!((normal_quantile(0.95) - 1.644_853_6).abs() < 1e-6);
        assert!((normal_quantile(0.5)).abs() < 1e-9);
        assert!((normal_quantile(0.001) + 3.090_232_3).abs() < 1e-6);
    }

    #[test]
    fn identical_runs_are_not_worse_and_a_clear_shift_is() {
        let rel = Scale::Relative { floor: 1.0 };
        let a = rounds(40_000.0, 4_000.0, 10, 1);
        let b = rounds(40_000.0, 4_000.0, 10, 2);
        let e = rank_shift(&a, &b, rel, 0.95).unwrap();
        assert!(e.lower < 10.0, "{e:?}");
        assert!(e.lower <= e.change && e.change <= e.upper, "{e:?}");
        // A 25 % shift with ±10 % round-to-round spread: worse beyond 10 %.
        let c: Vec<f64> = b.iter().map(|x| x * 1.25).collect();
        let e = rank_shift(&a, &c, rel, 0.95).unwrap();
        assert!(e.lower > 10.0, "{e:?}");
        assert!((e.change - 25.0).abs() < 8.0, "{e:?}");
        // Exactly the same rounds scaled: the estimate is the scale.
        let s: Vec<f64> = a.iter().map(|x| x * 1.25).collect();
        let e = rank_shift(&a, &s, rel, 0.95).unwrap();
        assert!((e.change - 25.0).abs() < 1e-9, "{e:?}");
        // The same shift with wild spread and few rounds is not proven.
        let wild_a = rounds(40_000.0, 39_000.0, 4, 4);
        let wild_c: Vec<f64> = rounds(40_000.0, 39_000.0, 4, 5)
            .iter()
            .map(|x| x * 1.25)
            .collect();
        let e = rank_shift(&wild_a, &wild_c, rel, 0.95).unwrap();
        assert!(e.lower < 10.0, "{e:?}");
        // One round with a hiccup ten times the others weighs like any other round.
        let mut hic = b.clone();
        hic[3] *= 10.0;
        let e = rank_shift(&a, &hic, rel, 0.95).unwrap();
        assert!(e.lower < 10.0, "{e:?}");
        assert!(rank_shift(&[], &c, rel, 0.95).is_none());
    }

    #[test]
    fn absolute_scale_and_count_floor() {
        let e = rank_shift(&[0.0; 5], &[3.0; 5], Scale::Absolute, 0.95).unwrap();
        assert_eq!((e.change, e.lower, e.upper), (3.0, 3.0, 3.0));
        // 0 → 3 overruns: 200 % above the floor of 1, not infinite.
        let e = rank_shift(&[0.0; 5], &[3.0; 5], Scale::Relative { floor: 1.0 }, 0.95).unwrap();
        assert!((e.change - 200.0).abs() < 1e-9, "{e:?}");
    }
}
