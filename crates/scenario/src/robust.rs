//! Location statistics that one outlier cannot move: the median and the trimmed mean,
//! beside the mean and the sample standard deviation.

use serde::Serialize;

/// Fraction cut from each end for the trimmed mean: 25 %, the interquartile mean, since a
/// shared machine can disturb more than one wake-up in ten.
pub const TRIM: f64 = 0.25;

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Robust {
    pub count: usize,
    pub min: f64,
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1, as Python's `statistics.stdev`).
    pub stdev: f64,
    pub median: f64,
    /// Mean of the values left after cutting `TRIM` of the count from each end.
    pub trimmed_mean: f64,
    pub max: f64,
}

impl Robust {
    /// Statistics of `values` (NaN fields for an empty set).
    pub fn of(values: &[f64]) -> Robust {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return Robust {
                count: 0,
                min: f64::NAN,
                mean: f64::NAN,
                stdev: f64::NAN,
                median: f64::NAN,
                trimmed_mean: f64::NAN,
                max: f64::NAN,
            };
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let mean = v.iter().sum::<f64>() / n as f64;
        let stdev = if n > 1 {
            (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let cut = ((n as f64) * TRIM).floor() as usize;
        let kept = &v[cut..n - cut];
        let trimmed_mean = kept.iter().sum::<f64>() / kept.len() as f64;
        Robust {
            count: n,
            min: v[0],
            mean,
            stdev,
            median,
            trimmed_mean,
            max: v[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_outlier_moves_the_mean_only() {
        let mut v: Vec<f64> = (0..20).map(|i| 50.0 + i as f64).collect();
        let calm = Robust::of(&v);
        assert_eq!(calm.median, 59.5);
        assert_eq!(calm.trimmed_mean, 59.5);
        v[3] = 86_900.0; // the 86.9 ms outlier of an earlier run
        let r = Robust::of(&v);
        assert!(r.mean > 4000.0, "{r:?}");
        assert!((r.median - calm.median).abs() <= 1.0, "{r:?}");
        assert!((r.trimmed_mean - calm.trimmed_mean).abs() <= 3.0, "{r:?}");
        assert_eq!(r.max, 86_900.0);
    }

    #[test]
    fn python_stdev_and_small_sets() {
        let r = Robust::of(&[1.0, 2.0, 3.0, 4.0]);
        assert!((r.stdev - 1.2909944487358056).abs() < 1e-12);
        assert_eq!(r.median, 2.5);
        assert_eq!(Robust::of(&[7.0]).stdev, 0.0);
        assert!(Robust::of(&[]).mean.is_nan());
        assert_eq!(Robust::of(&[f64::NAN, 2.0]).count, 1);
    }
}
