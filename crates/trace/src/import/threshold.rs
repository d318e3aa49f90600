//! Analog to logic: a threshold with hysteresis, crossing times interpolated.
//!
//! A sampled voltage is high once it rises above `th + h/2` and low once it falls below
//! `th − h/2` (`h` is the total band width), so noise inside the band makes no edges. The
//! time of each edge is where the trace last crossed `th` itself, interpolated linearly
//! between the two samples around that crossing (clamped to the segment, and kept after
//! the previous edge and no later than the sample that confirmed it).
//!
//! [`Digitizer`] does this one sample at a time, holding only the current segment, so a
//! stream of any length is converted in memory that grows with its edges only. Every
//! importer that thresholds (oscilloscope CSV, sigrok analog, Saleae analog, a kept
//! analog channel) goes through it.
//!
//! The default threshold is the midpoint of the 5th and 95th percentile levels and the
//! default band 10 % of that span ([`levels`]): the percentiles are exact, found with
//! [`latscope_core::stats::radix`] (two passes, fixed memory).

use latscope_core::capture::DigitalChannel;
use latscope_core::stats::radix::{F32Ranks, F32Refine};
use latscope_core::time::Picos;

/// Threshold and band from the 5th and 95th percentile levels (`None`: no finite
/// sample): the given values where given.
pub fn choose(
    p5_p95: Option<(f64, f64)>,
    threshold: Option<f64>,
    hysteresis: Option<f64>,
) -> (f64, f64) {
    let (lo, hi) = p5_p95.unwrap_or((0.0, 0.0));
    let th = threshold.unwrap_or((lo + hi) / 2.0);
    let h = hysteresis.unwrap_or((hi - lo) * 0.1).max(0.0);
    (th, h)
}

/// The percentiles [`choose`] needs.
pub const LEVEL_PERCENTILES: [f64; 2] = [5.0, 95.0];

/// The 5th and 95th percentile of pass 2 of [`F32Ranks`] (None: no finite value).
pub fn p5_p95(r: &F32Refine) -> Option<(f64, f64)> {
    match r.values()[..] {
        [Some(a), Some(b)] => Some((a as f64, b as f64)),
        _ => None,
    }
}

/// Threshold and hysteresis (total band width) for a voltage trace held in memory.
pub fn levels(v: &[f32], threshold: Option<f64>, hysteresis: Option<f64>) -> (f64, f64) {
    if threshold.is_some() && hysteresis.is_some() {
        return choose(None, threshold, hysteresis);
    }
    let mut a = F32Ranks::new();
    v.iter().for_each(|&x| a.add(x));
    let mut b = a.refine(&LEVEL_PERCENTILES);
    v.iter().for_each(|&x| b.add(x));
    choose(p5_p95(&b), threshold, hysteresis)
}

/// Converts a sampled voltage (times `t`, strictly increasing) to edges, choosing the
/// threshold and band with [`levels`] where they are not given.
pub fn digitize(
    name: &str,
    t: &[i64],
    v: &[f32],
    threshold: Option<f64>,
    hysteresis: Option<f64>,
) -> DigitalChannel {
    let (th, h) = levels(v, threshold, hysteresis);
    let mut d = Digitizer::new(th, h, u64::MAX);
    for (&ti, &x) in t.iter().zip(v) {
        // an unlimited budget cannot be exceeded
        let _ = d.push(ti, x);
    }
    d.finish(name)
}

/// [`digitize`] for a trace sampled at `start + i × interval` (no time array), with the
/// threshold and hysteresis already chosen (see [`levels`]).
pub fn digitize_uniform(
    name: &str,
    start: i64,
    interval: i64,
    v: &[f32],
    th: f64,
    h: f64,
) -> DigitalChannel {
    let mut d = Digitizer::new(th, h, u64::MAX);
    for (i, &x) in v.iter().enumerate() {
        let t = start.saturating_add((i as i64).saturating_mul(interval));
        let _ = d.push(t, x);
    }
    d.finish(name)
}

/// More edges than the budget allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverBudget;

/// A sample: time (ps) and voltage.
type Point = (i64, f64);

/// The hysteresis state machine over a stream of samples (times strictly increasing).
#[derive(Clone, Debug)]
pub struct Digitizer {
    th: f64,
    hi: f64,
    lo: f64,
    max_edges: u64,
    started: bool,
    initial: bool,
    level: bool,
    prev: Point,
    /// The segment whose crossing of `th` dates the next edge.
    seg: (Point, Point),
    /// `seg.0` is set and `seg.1` is the next sample (right after an edge, or at the start).
    pending: bool,
    edges: Vec<Picos>,
}

impl Digitizer {
    /// Threshold `th`, total band `h` (volts), and the most edges it may keep.
    pub fn new(th: f64, h: f64, max_edges: u64) -> Digitizer {
        Digitizer {
            th,
            hi: th + h / 2.0,
            lo: th - h / 2.0,
            max_edges,
            started: false,
            initial: false,
            level: false,
            prev: (0, 0.0),
            seg: ((0, 0.0), (0, 0.0)),
            pending: false,
            edges: Vec::new(),
        }
    }

    /// Edges so far.
    pub fn edges(&self) -> usize {
        self.edges.len()
    }

    /// Feeds the next sample.
    #[inline]
    pub fn push(&mut self, t: i64, v: f32) -> Result<(), OverBudget> {
        let x = v as f64;
        let p = (t, x);
        if !self.started {
            self.started = true;
            self.initial = x >= self.th;
            self.level = self.initial;
            self.prev = p;
            self.seg.0 = p;
            self.pending = true;
            return Ok(());
        }
        if self.pending {
            self.seg.1 = p;
            self.pending = false;
        }
        let prev = self.prev.1;
        let edge = if self.level {
            if prev >= self.th && x < self.th {
                self.seg = (self.prev, p);
            }
            x < self.lo
        } else {
            if prev < self.th && x >= self.th {
                self.seg = (self.prev, p);
            }
            x > self.hi
        };
        self.prev = p;
        if edge {
            if self.edges.len() as u64 >= self.max_edges {
                return Err(OverBudget);
            }
            let floor = self.edges.last().map_or(i64::MIN, |e| e.0 + 1);
            // no later than the sample that confirmed it, and after the previous edge
            // (which wins should the times not increase: the edges stay ordered)
            let te = cross(self.seg, self.th).min(t).max(floor);
            self.edges.push(Picos(te));
            self.level = !self.level;
            self.seg.0 = p;
            self.pending = true;
        }
        Ok(())
    }

    /// The channel: its level at the first sample and the edges.
    pub fn finish(self, name: &str) -> DigitalChannel {
        DigitalChannel {
            name: name.to_string(),
            initial: self.initial,
            edges: self.edges,
        }
    }
}

/// Time at which the segment crosses th (clamped to the segment).
fn cross(((tj, a), (tk, b)): (Point, Point), th: f64) -> i64 {
    if (b - a).abs() < f64::EPSILON {
        return tk;
    }
    let f = ((th - a) / (b - a)).clamp(0.0, 1.0);
    tj + ((tk - tj) as f64 * f).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolated_crossings_with_hysteresis() {
        // 0 V low, 3.3 V high, 1 µs sampling; a slow rise over samples 10..12 and a noisy top
        let t: Vec<i64> = (0..40).map(|i| i * 1_000_000).collect();
        let mut v = vec![0.0f32; 40];
        v[10] = 1.0;
        v[11] = 2.3;
        for x in v.iter_mut().take(30).skip(12) {
            *x = 3.3;
        }
        v[20] = 1.7; // dip inside the hysteresis band: no edge
        let c = digitize("x", &t, &v, Some(1.65), Some(0.5));
        // rise crosses 1.65 V between samples 10 (1.0) and 11 (2.3): 10.5 µs;
        // fall between 29 (3.3) and 30 (0): 29.5 µs
        assert_eq!(c.edges, vec![Picos(10_500_000), Picos(29_500_000)]);
        assert!(!c.initial);
    }

    #[test]
    fn a_crossing_inside_the_band_dates_the_edge() {
        // rises to 1.8 V (above th 1.65, inside the band up to 1.9), then dips to 1.7 and
        // goes to 3.3: the edge is dated at the LAST upward crossing of th before the
        // sample that left the band (1.6 -> 1.8 at samples 3..4), not the first.
        let v = [0.0f32, 1.8, 1.6, 1.8, 3.3, 3.3];
        let t: Vec<i64> = (0..6).map(|i| i * 1000).collect();
        let c = digitize("x", &t, &v, Some(1.65), Some(0.5));
        // 1.6 + (1.8 - 1.6) * f = 1.65 -> f = 0.25 -> 2000 + 250
        assert_eq!(c.edges, vec![Picos(2250)]);
    }

    #[test]
    fn budget_stops_a_runaway_stream() {
        let mut d = Digitizer::new(0.5, 0.1, 3);
        let mut res = Ok(());
        for i in 0..100 {
            res = d.push(i, (i % 2) as f32);
            if res.is_err() {
                break;
            }
        }
        assert_eq!(res, Err(OverBudget));
        assert_eq!(d.edges(), 3);
    }

    #[test]
    fn default_levels_are_the_percentile_midpoint() {
        // 90 samples at 0 V and 10 at 5 V: p5 = 0, p95 = 5 -> th 2.5, band 0.5
        let mut v = vec![0.0f32; 90];
        v.extend([5.0f32; 10]);
        assert_eq!(levels(&v, None, None), (2.5, 0.5));
        assert_eq!(levels(&v, Some(1.0), None), (1.0, 0.5));
        assert_eq!(levels(&[], None, None), (0.0, 0.0));
    }
}
