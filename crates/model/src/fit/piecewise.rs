//! The piecewise tick fit: `C(0) = base`, `C(1) = base + first`,
//! `C(r >= 2) = base + first + (r - 2) per + last` (docs/models.md).
//!
//! The model's indicator terms make the fit separate into three groups of samples: x = 0
//! fixes `base`, x = 1 fixes `base + first`, and the samples at x >= 2 lie on a line
//! `A + per (x - 2)` with `last = A - base - first`.
//!
//! * Least squares: the mean at x = 0, the mean at x = 1 and the least-squares line of
//!   the samples at x >= 2 (the least-squares solution of the four-parameter model).
//! * Safe: `base` = the envelope at 0, `first` = the envelope at 1 less `base` (at least
//!   0), and the tail the safe line with the smallest largest excess over the envelope
//!   at x >= 2 ([`super::line::safe_line`]), constrained to `per >= 0` and to start at or
//!   above `base + first` (so `last >= 0`). The excess at x = 0 and x = 1 is then zero
//!   unless the envelope drops from 0 to 1.
//!
//! The model needs samples at x = 0, at x = 1 and at two or more distinct x >= 2;
//! otherwise [`fit_tick`] returns `None` and the straight line is used.

use super::line::{least_squares, safe_line, EnvelopePoint};
use super::Sample;
use serde::Serialize;

/// Piecewise tick parameters in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TickModel {
    pub base_ns: f64,
    pub first_ns: f64,
    pub per_ns: f64,
    pub last_ns: f64,
}

impl TickModel {
    /// `C(x)` for a count `x`.
    pub fn at(&self, x: f64) -> f64 {
        if x < 0.5 {
            self.base_ns
        } else if x < 1.5 {
            self.base_ns + self.first_ns
        } else {
            self.base_ns + self.first_ns + (x - 2.0) * self.per_ns + self.last_ns
        }
    }
}

/// Both piecewise fits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TickFits {
    pub least_squares: TickModel,
    pub safe: TickModel,
}

/// Fits the piecewise tick model; `None` when the samples do not determine it.
pub fn fit_tick(samples: &[Sample], env: &[EnvelopePoint]) -> Option<TickFits> {
    let group = |lo: f64, hi: f64| -> Vec<Sample> {
        samples
            .iter()
            .filter(|s| s.x >= lo && s.x < hi)
            .copied()
            .collect()
    };
    let (g0, g1, gt) = (group(0.0, 0.5), group(0.5, 1.5), group(1.5, f64::INFINITY));
    let tail_env: Vec<(f64, f64)> = env
        .iter()
        .filter(|e| e.x >= 1.5)
        .map(|e| (e.x, e.max_ns))
        .collect();
    if g0.is_empty() || g1.is_empty() || tail_env.len() < 2 {
        return None;
    }
    let mean = |g: &[Sample]| g.iter().map(|s| s.y_ns).sum::<f64>() / g.len() as f64;
    // Least squares.
    let b = mean(&g0);
    let f = mean(&g1) - b;
    let shifted: Vec<Sample> = gt.iter().map(|s| Sample { x: s.x - 2.0, ..*s }).collect();
    let tail = least_squares(&shifted)?;
    let ls = TickModel {
        base_ns: b,
        first_ns: f,
        per_ns: tail.slope_ns,
        last_ns: tail.intercept_ns - b - f,
    };
    // Safe.
    let m0 = env.iter().find(|e| e.x < 0.5)?.max_ns;
    let m1 = env.iter().find(|e| (0.5..1.5).contains(&e.x))?.max_ns;
    let first = (m1 - m0).max(0.0);
    let pts: Vec<(f64, f64)> = tail_env.iter().map(|&(x, y)| (x - 2.0, y)).collect();
    let line = safe_line(&pts, &[(0.0, m0 + first)], 0.0)?;
    let safe = TickModel {
        base_ns: m0,
        first_ns: first,
        per_ns: line.slope_ns,
        last_ns: (line.intercept_ns - m0 - first).max(0.0),
    };
    Some(TickFits {
        least_squares: ls,
        safe,
    })
}
