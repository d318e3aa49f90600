//! Straight-line fits `y = a + b x`: least squares, and the safe line above every sample
//! that minimises the largest excess over the per-x envelope.
//!
//! The envelope is the largest y measured at each distinct x (the worst case at that x).
//! A safe line lies on or above every envelope point; among those, this one has the
//! smallest largest excess `max_x (line(x) - envelope(x))` (a Chebyshev fit from above),
//! ties broken by the smallest mean excess over the distinct x. Unlike a rule that
//! minimises the gap averaged over the samples, it is not pulled by where most samples
//! happen to be (most ticks release no task): every distinct x counts once, and the
//! excess at each one is reported.
//!
//! For a slope `p` the lowest safe intercept is `A(p) = max_i (M_i - p x_i)` and the
//! largest excess is `g(p) = A(p) + max_i (p x_i - M_i)`, a maximum of linear functions
//! of `p`: convex and piecewise linear, with its breakpoints among the slopes of the
//! upper and lower convex hulls' edges. `g` is minimised by evaluating it there.

use super::Sample;
use serde::Serialize;

/// A straight line `y = intercept + slope * x` (y in nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Line {
    pub intercept_ns: f64,
    pub slope_ns: f64,
}

impl Line {
    pub fn at(&self, x: f64) -> f64 {
        self.intercept_ns + self.slope_ns * x
    }
}

/// One distinct x of the samples: how many there are and the largest y (the envelope).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct EnvelopePoint {
    pub x: f64,
    pub samples: usize,
    pub max_ns: f64,
}

/// The per-x envelope, sorted by x.
pub fn envelope(samples: &[Sample]) -> Vec<EnvelopePoint> {
    let mut pts: Vec<(f64, f64)> = samples.iter().map(|s| (s.x, s.y_ns)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<EnvelopePoint> = Vec::new();
    for (x, y) in pts {
        match out.last_mut() {
            Some(e) if e.x == x => {
                e.samples += 1;
                e.max_ns = e.max_ns.max(y);
            }
            _ => out.push(EnvelopePoint {
                x,
                samples: 1,
                max_ns: y,
            }),
        }
    }
    out
}

/// Ordinary least squares over the samples; `None` with fewer than two distinct x.
pub fn least_squares(samples: &[Sample]) -> Option<Line> {
    let n = samples.len() as f64;
    if samples.is_empty() {
        return None;
    }
    let mx = samples.iter().map(|s| s.x).sum::<f64>() / n;
    let my = samples.iter().map(|s| s.y_ns).sum::<f64>() / n;
    let sxx: f64 = samples.iter().map(|s| (s.x - mx).powi(2)).sum();
    let sxy: f64 = samples.iter().map(|s| (s.x - mx) * (s.y_ns - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some(Line {
        intercept_ns: my - slope * mx,
        slope_ns: slope,
    })
}

fn hull_slopes(pts: &[(f64, f64)], upper: bool) -> Vec<f64> {
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for &p in pts {
        while hull.len() >= 2 {
            let (o, a) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let cross = (a.0 - o.0) * (p.1 - o.1) - (a.1 - o.1) * (p.0 - o.0);
            if (upper && cross >= 0.0) || (!upper && cross <= 0.0) {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    hull.windows(2)
        .filter(|w| w[1].0 > w[0].0)
        .map(|w| (w[1].1 - w[0].1) / (w[1].0 - w[0].0))
        .collect()
}

/// The safe line over `points` (x, envelope y) with the smallest largest excess (see the
/// module documentation). `floor` points must also lie on or below the line but are not
/// scored (a constraint from a neighbouring segment); the slope is at least `min_slope`.
/// `None` without points, or with one distinct x and no way to fix the slope (then the
/// caller decides).
pub fn safe_line(points: &[(f64, f64)], floor: &[(f64, f64)], min_slope: f64) -> Option<Line> {
    if points.is_empty() {
        return None;
    }
    let mut all: Vec<(f64, f64)> = points.iter().chain(floor).copied().collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    all.dedup_by(|b, a| a.0 == b.0);
    let mut pts: Vec<(f64, f64)> = points.to_vec();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut cands = hull_slopes(&all, true);
    cands.extend(hull_slopes(&pts, false));
    if min_slope > -1e300 {
        cands.push(min_slope);
    }
    if all.len() == 1 {
        cands = vec![min_slope.max(0.0)];
    }
    let eval = |p: f64| -> (f64, f64, f64) {
        let a = all.iter().map(|&(x, y)| y - p * x).fold(f64::MIN, f64::max);
        let ex: Vec<f64> = pts.iter().map(|&(x, y)| a + p * x - y).collect();
        let max = ex.iter().cloned().fold(f64::MIN, f64::max);
        let mean = ex.iter().sum::<f64>() / ex.len() as f64;
        (max, mean, a)
    };
    let mut best: Option<(f64, f64, f64, f64)> = None; // (max, mean, slope, intercept)
    for p in cands
        .into_iter()
        .filter(|p| p.is_finite() && *p >= min_slope)
    {
        let (max, mean, a) = eval(p);
        let better = match best {
            None => true,
            Some((bm, bmean, _, _)) => {
                let tol = 1e-9 * (1.0 + bm.abs());
                max < bm - tol || (max <= bm + tol && mean < bmean)
            }
        };
        if better {
            best = Some((max, mean, p, a));
        }
    }
    let (_, _, slope, intercept) = best?;
    let mut line = Line {
        intercept_ns: intercept,
        slope_ns: slope,
    };
    // Guard against rounding: lift the line onto every point.
    let lift = all
        .iter()
        .map(|&(x, y)| y - line.at(x))
        .fold(0.0f64, f64::max);
    line.intercept_ns += lift;
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimax_above_three_points() {
        // Points (0,0), (1,10), (2,0): the flat line at 10 has excess 10 at x = 0 and 2;
        // any tilt raises one of them. Minimum largest excess 10.
        let l = safe_line(&[(0.0, 0.0), (1.0, 10.0), (2.0, 0.0)], &[], f64::MIN).unwrap();
        assert!(
            (l.slope_ns).abs() < 1e-9 && (l.intercept_ns - 10.0).abs() < 1e-9,
            "{l:?}"
        );
        // A line through collinear points has no excess.
        let l = safe_line(&[(0.0, 1.0), (1.0, 3.0), (4.0, 9.0)], &[], f64::MIN).unwrap();
        assert!((l.slope_ns - 2.0).abs() < 1e-9 && (l.intercept_ns - 1.0).abs() < 1e-9);
        // A floor point bounds the line from below without being scored.
        let l = safe_line(&[(2.0, 5.0), (3.0, 6.0)], &[(2.0, 8.0)], 0.0).unwrap();
        assert!(l.at(2.0) >= 8.0 - 1e-9 && l.at(3.0) >= 6.0 - 1e-9);
        assert!(l.slope_ns.abs() < 1e-9, "{l:?}");
    }
}
