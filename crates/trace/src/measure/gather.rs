//! What each kind of request collects from the capture: its instances (value and place)
//! and the extras only that kind has (unmatched counts, jitter, busy share, windows).
//! Kept apart from the summary so that each kind's definition (docs/trace.md) reads as
//! one short function.

use super::instances::Instances;
use super::{ChanRef, Ctx, Jitter, Kind, Per, PercentStats, WindowPoint, PS_NS};
use crate::error::{Error, Result};
use latscope_core::capture::{DigitalChannel, Edge};
use latscope_core::stats::{Moments, Samples};
use latscope_core::time::Picos;

/// One request's instances and the kind-specific parts of its result.
pub(super) struct Gathered<'a> {
    pub kind: &'static str,
    /// "ns" for durations, "count" for counts per window.
    pub unit: &'static str,
    pub instances: Instances<'a>,
    pub unmatched: u64,
    pub unmatched_to: Option<u64>,
    pub jitter: Option<Jitter>,
    pub busy: Option<PercentStats>,
    pub series: Option<Vec<WindowPoint>>,
}

impl<'a> Gathered<'a> {
    /// A result of `kind` in ns with nothing but its instances.
    fn plain(kind: &'static str, instances: Instances<'a>) -> Gathered<'a> {
        Gathered {
            kind,
            unit: "ns",
            instances,
            unmatched: 0,
            unmatched_to: None,
            jitter: None,
            busy: None,
            series: None,
        }
    }
}

/// The instances of one request of `kind` on the context's capture.
pub(super) fn gather<'a>(ctx: &'a Ctx, kind: &Kind) -> Result<Gathered<'a>> {
    match kind {
        Kind::Pulse { channel, level } => pulse(ctx, channel, *level),
        Kind::Latency { from, to, window } => latency(ctx, from, to, *window),
        Kind::Period { on, nominal } => period(ctx, on, *nominal),
        Kind::Busy {
            channel,
            level,
            per,
        } => busy(ctx, channel, *level, per),
        Kind::Count { on, per } => count(ctx, on, per),
    }
}

/// Width of every complete pulse at `level`.
fn pulse<'a>(ctx: &'a Ctx, channel: &str, level: bool) -> Result<Gathered<'a>> {
    let ch = ctx.ch(channel)?;
    // a pulse's place is its first edge: nothing stored but the width
    let first = if ch.level_after(0) == level { 0 } else { 1 };
    let n = ch.edges.len().saturating_sub(first) / 2;
    Ok(Gathered::plain(
        "pulse",
        Instances::on_edges(&ch.edges, first, 2, 1, n),
    ))
}

/// From each `from` event to the first unused `to` event at or after it, before the next
/// `from` event (and within `window`); the rest are unmatched on either side.
fn latency<'a>(
    ctx: &'a Ctx,
    from: &ChanRef,
    to: &ChanRef,
    window: Option<Picos>,
) -> Result<Gathered<'a>> {
    let mut s = Instances::new();
    let mut unmatched = 0u64;
    let a: Vec<Picos> = ctx.ch(&from.channel)?.edges_of(from.edge).collect();
    let b: Vec<Picos> = ctx.ch(&to.channel)?.edges_of(to.edge).collect();
    let same = from.channel == to.channel
        || ctx.cap.channel_index(&from.channel)? == ctx.cap.channel_index(&to.channel)?;
    let mut j = 0usize;
    let mut matched = 0u64;
    for (i, &t) in a.iter().enumerate() {
        // first B event at/after t (strictly after when it is the same edge)
        while j < b.len() && (b[j] < t || (same && b[j] == t)) {
            j += 1;
        }
        let next_a = a.get(i + 1).copied();
        match b.get(j) {
            Some(&tb) if next_a.is_none_or(|n| tb < n) && window.is_none_or(|w| tb - t <= w) => {
                s.push(tb.0 - t.0, t);
                matched += 1;
                j += 1;
            }
            _ => unmatched += 1,
        }
    }
    let mut g = Gathered::plain("latency", s);
    g.unmatched = unmatched;
    g.unmatched_to = Some(b.len() as u64 - matched);
    Ok(g)
}

/// Time between consecutive edges of one kind, with the jitter against `nominal`.
fn period<'a>(ctx: &'a Ctx, on: &ChanRef, nominal: Option<Picos>) -> Result<Gathered<'a>> {
    // the edges of that kind are every edge (any) or every other one (rise,
    // fall): a period's place is its first edge, nothing is copied
    let ch = ctx.ch(&on.channel)?;
    let (first, step) = match on.edge {
        Edge::Any => (0, 1),
        Edge::Rise => (usize::from(!ch.level_after(0)), 2),
        Edge::Fall => (usize::from(ch.level_after(0)), 2),
    };
    let n_edges = ch.edges.len().saturating_sub(first).div_ceil(step);
    let n = n_edges.saturating_sub(1);
    let mut g = Gathered::plain(
        "period",
        Instances::on_edges(&ch.edges, first, step, step, n),
    );
    g.jitter = nominal.and_then(|nom| jitter(ctx, ch, first, step, n, nom));
    Ok(g)
}

/// The `n` periods' deviations from `nominal`: exact moments and RMS, streamed (no second
/// list); none without a period.
fn jitter(
    ctx: &Ctx,
    ch: &DigitalChannel,
    first: usize,
    step: usize,
    n: usize,
    nom: Picos,
) -> Option<Jitter> {
    let mut jm = Moments::default();
    let mut sq = 0.0f64;
    for k in 0..n {
        let a = ch.edges[first + step * k];
        let p = ch.edges[first + step * (k + 1)].0 - a.0;
        jm.add(p - nom.0, ctx.loc(a));
        sq += ((p - nom.0) as f64).powi(2);
    }
    let (min, max) = (jm.min()?, jm.max()?);
    let rms = (sq / jm.count() as f64).sqrt();
    Some(Jitter {
        nominal_ns: nom.0 as f64 / PS_NS,
        min_ns: min as f64 / PS_NS,
        max_ns: max as f64 / PS_NS,
        mean_ns: jm.mean() / PS_NS,
        stdev_ns: jm.stdev() / PS_NS,
        abs_max_ns: min.abs().max(max.abs()) as f64 / PS_NS,
        rms_ns: rms / PS_NS,
    })
}

/// Time the channel spends at `level` per window, its share of each window and of the
/// whole capture.
fn busy<'a>(ctx: &'a Ctx, channel: &str, level: bool, per: &Per) -> Result<Gathered<'a>> {
    let mut s = Instances::new();
    let ch = ctx.ch(channel)?;
    let acc = Active::new(ch, level, ctx.cap.start);
    let wins = windows(ctx, per)?;
    let mut pts = Vec::with_capacity(wins.len());
    let mut pct = Samples::new();
    for &(a, b) in &wins {
        let busy_ps = acc.until(b) - acc.until(a);
        s.push(busy_ps, a);
        let p = if b > a {
            busy_ps as f64 * 100.0 / (b.0 - a.0) as f64
        } else {
            0.0
        };
        // percent in millionths for exact order statistics
        pct.push((p * 1e6).round() as i64, ctx.loc(a));
        pts.push(WindowPoint {
            at_ns: (a.0 - ctx.origin.0) as f64 / PS_NS,
            window_ns: (b.0 - a.0) as f64 / PS_NS,
            value: busy_ps as f64 / PS_NS,
            percent: Some(p),
        });
    }
    let total = (ctx.cap.end.0 - ctx.cap.start.0).max(1) as f64;
    let overall = (acc.until(ctx.cap.end) - acc.until(ctx.cap.start)) as f64 * 100.0 / total;
    let mut g = Gathered::plain("busy", s);
    g.busy = Some(percent_stats(overall, &mut pct));
    g.series = Some(pts);
    Ok(g)
}

/// The busy share's statistics over the windows (in millionths of a percent in `pct`);
/// NaN but the overall share when there is no window.
fn percent_stats(overall: f64, pct: &mut Samples) -> PercentStats {
    if pct.is_empty() {
        return PercentStats {
            overall,
            min: f64::NAN,
            max: f64::NAN,
            mean: f64::NAN,
            p50: f64::NAN,
            p99: f64::NAN,
        };
    }
    let sm = pct.summary();
    PercentStats {
        overall,
        min: sm.min as f64 / 1e6,
        max: sm.max as f64 / 1e6,
        mean: sm.mean / 1e6,
        p50: sm.p50 as f64 / 1e6,
        p99: sm.p99 as f64 / 1e6,
    }
}

/// Edges of one kind inside each window.
fn count<'a>(ctx: &'a Ctx, on: &ChanRef, per: &Per) -> Result<Gathered<'a>> {
    let mut s = Instances::new();
    let e: Vec<Picos> = ctx.ch(&on.channel)?.edges_of(on.edge).collect();
    let wins = windows(ctx, per)?;
    let mut pts = Vec::with_capacity(wins.len());
    for &(a, b) in &wins {
        let n = e.partition_point(|&x| x < b) - e.partition_point(|&x| x < a);
        s.push(n as i64, a);
        pts.push(WindowPoint {
            at_ns: (a.0 - ctx.origin.0) as f64 / PS_NS,
            window_ns: (b.0 - a.0) as f64 / PS_NS,
            value: n as f64,
            percent: None,
        });
    }
    let mut g = Gathered::plain("count", s);
    g.unit = "count";
    g.series = Some(pts);
    Ok(g)
}

/// Cumulative active time of a channel, queried at any instant in O(log n).
struct Active<'a> {
    ch: &'a DigitalChannel,
    level: bool,
    start: Picos,
    /// active time from `start` up to each edge
    cum: Vec<i64>,
}

impl<'a> Active<'a> {
    fn new(ch: &'a DigitalChannel, level: bool, start: Picos) -> Active<'a> {
        let mut cum = Vec::with_capacity(ch.edges.len());
        let mut acc = 0i64;
        let mut prev = start;
        let mut lv = ch.initial;
        for &e in &ch.edges {
            if lv == level {
                acc += e.0 - prev.0;
            }
            cum.push(acc);
            prev = e;
            lv = !lv;
        }
        Active {
            ch,
            level,
            start,
            cum,
        }
    }
    /// Active time in [start, t].
    fn until(&self, t: Picos) -> i64 {
        let k = self.ch.edges.partition_point(|&e| e <= t);
        if k == 0 {
            return if self.ch.initial == self.level {
                (t.0 - self.start.0).max(0)
            } else {
                0
            };
        }
        let lv = self.ch.level_after(k - 1);
        self.cum[k - 1]
            + if lv == self.level {
                t.0 - self.ch.edges[k - 1].0
            } else {
                0
            }
    }
}

fn windows(ctx: &Ctx, per: &Per) -> Result<Vec<(Picos, Picos)>> {
    let (s, e) = (ctx.cap.start, ctx.cap.end);
    Ok(match per {
        Per::Whole => vec![(s, e)],
        Per::Window(w) => {
            if w.0 <= 0 {
                return Err(Error::usage("the window must be positive"));
            }
            let n = (e.0 - s.0) / w.0;
            if n > 50_000_000 {
                return Err(Error::usage(format!(
                    "{n} windows of {}: use a larger --window",
                    latscope_core::time::format_ps(w.0 as i128)
                )));
            }
            (0..n)
                .map(|k| (Picos(s.0 + k * w.0), Picos(s.0 + (k + 1) * w.0)))
                .collect()
        }
        Per::Periods(r) => {
            let t: Vec<Picos> = ctx.ch(&r.channel)?.edges_of(r.edge).collect();
            t.windows(2).map(|w| (w[0], w[1])).collect()
        }
        Per::Pulses { channel, level } => ctx.ch(channel)?.pulses(*level).collect(),
    })
}
