//! Timing measurements on a capture's edge lists (docs/trace.md has the definitions).
//!
//! * [`Kind::Pulse`]: width of every complete high (or low) pulse;
//! * [`Kind::Latency`]: from an edge on channel A to the next matching edge on B,
//!   one-to-one: an A event matches the first unused B event at or after it that
//!   comes before the next A event (and within the window, if given); otherwise it
//!   is counted as unmatched;
//! * [`Kind::Period`]: time between consecutive edges of one kind, with jitter
//!   against a nominal period;
//! * [`Kind::Busy`]: time a channel spends active per window (fixed windows, or the
//!   periods / pulses of another channel), and the overall busy fraction;
//! * [`Kind::Count`]: pulses of one channel inside each window of another.
//!
//! Statistics are exact (nearest-rank percentiles), kept in 8 bytes per instance plus its
//! place only where that is not an edge (see `instances`).

pub mod flags;
mod gather;
mod instances;
mod json;
pub mod limit;
pub mod parse;

use crate::error::{Error, Result};
use instances::Instances;
use latscope_core::capture::{Capture, DigitalChannel, Edge};
use latscope_core::jsonnum::{nan_as_null, null_as_nan};
use latscope_core::stats::Location;
use latscope_core::time::Picos;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use flags::{BusySpec, CountSpec, PeriodSpec};
pub use limit::{check_limits, Limit, LimitOutcome};
pub use parse::{parse_busy, parse_count, parse_latency, parse_period, parse_pulse};

/// A channel reference with an edge or level qualifier: `SysTick:rise`, `#2:high`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChanRef {
    pub channel: String,
    pub edge: Edge,
}

/// How busy/count windows are formed.
#[derive(Clone, Debug, PartialEq)]
pub enum Per {
    /// The whole capture (or range) is one window.
    Whole,
    /// Consecutive fixed windows from the range start; a partial last window is dropped.
    Window(Picos),
    /// From one edge of a channel to the next edge of the same kind (`CH:rise`).
    Periods(ChanRef),
    /// Each pulse of a channel at a level (`CH:high` / `CH:low`).
    Pulses { channel: String, level: bool },
}

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Pulse {
        channel: String,
        level: bool,
    },
    Latency {
        from: ChanRef,
        to: ChanRef,
        window: Option<Picos>,
    },
    Period {
        on: ChanRef,
        nominal: Option<Picos>,
    },
    Busy {
        channel: String,
        level: bool,
        per: Per,
    },
    Count {
        on: ChanRef,
        per: Per,
    },
}

/// A named measurement request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Name used in output and in `--limit` (defaults from the kind, see [`Request::default_name`]).
    pub name: String,
    pub kind: Kind,
    /// The request as written (for reports).
    pub definition: String,
}

fn edge_suffix(e: Edge) -> &'static str {
    match e {
        Edge::Rise => "",
        Edge::Fall => ":fall",
        Edge::Any => ":any",
    }
}

impl Per {
    fn channel(&self) -> Option<&str> {
        match self {
            Per::Periods(r) => Some(&r.channel),
            Per::Pulses { channel, .. } => Some(channel),
            _ => None,
        }
    }
}

impl Request {
    /// Every channel the request reads.
    pub fn channels(&self) -> Vec<&str> {
        match &self.kind {
            Kind::Pulse { channel, .. } => vec![channel],
            Kind::Latency { from, to, .. } => vec![&from.channel, &to.channel],
            Kind::Period { on, .. } => vec![&on.channel],
            Kind::Busy { channel, per, .. } => {
                let mut v = vec![channel.as_str()];
                v.extend(per.channel());
                v
            }
            Kind::Count { on, per } => {
                let mut v = vec![on.channel.as_str()];
                v.extend(per.channel());
                v
            }
        }
    }
    pub fn new(kind: Kind, definition: &str) -> Request {
        Request {
            name: Request::default_name(&kind),
            kind,
            definition: definition.to_string(),
        }
    }
    /// `SysTick` (high pulses), `SysTick:low`, `IRQ->Task`, `SysTick.period`,
    /// `Task.busy`, `Task.count`.
    pub fn default_name(kind: &Kind) -> String {
        match kind {
            Kind::Pulse { channel, level } => {
                if *level {
                    channel.clone()
                } else {
                    format!("{channel}:low")
                }
            }
            Kind::Latency { from, to, .. } => format!(
                "{}{}->{}{}",
                from.channel,
                edge_suffix(from.edge),
                to.channel,
                edge_suffix(to.edge)
            ),
            Kind::Period { on, .. } => format!("{}{}.period", on.channel, edge_suffix(on.edge)),
            Kind::Busy { channel, .. } => format!("{channel}.busy"),
            Kind::Count { on, .. } => format!("{}.count", on.channel),
        }
    }
}

/// One worst-case instance.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Instance {
    pub value_ns: f64,
    pub at_ns: f64,
}

/// A histogram bin [low, high).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Bin {
    pub low_ns: f64,
    pub high_ns: f64,
    pub count: u64,
}

/// Jitter of a period against its nominal value.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Jitter {
    pub nominal_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    /// Largest |period − nominal|.
    pub abs_max_ns: f64,
    pub rms_ns: f64,
}

/// One window of a busy/count series.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct WindowPoint {
    pub at_ns: f64,
    pub window_ns: f64,
    /// Busy time (busy) or number of pulses (count) in the window.
    pub value: f64,
    /// Busy share of the window in percent (busy only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
}

/// Percent statistics of a busy series. The per-window figures are NaN (JSON `null`)
/// when there is no window; `overall` is always defined.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
pub struct PercentStats {
    pub overall: f64,
    #[serde(serialize_with = "nan_as_null", deserialize_with = "null_as_nan")]
    #[schemars(with = "Option<f64>")]
    pub min: f64,
    #[serde(serialize_with = "nan_as_null", deserialize_with = "null_as_nan")]
    #[schemars(with = "Option<f64>")]
    pub max: f64,
    #[serde(serialize_with = "nan_as_null", deserialize_with = "null_as_nan")]
    #[schemars(with = "Option<f64>")]
    pub mean: f64,
    #[serde(serialize_with = "nan_as_null", deserialize_with = "null_as_nan")]
    #[schemars(with = "Option<f64>")]
    pub p50: f64,
    #[serde(serialize_with = "nan_as_null", deserialize_with = "null_as_nan")]
    #[schemars(with = "Option<f64>")]
    pub p99: f64,
}

/// A measurement's result: the JSON element of `measurements[]`, written and read
/// through the shared summary (`latscope_core::summary`; see `json.rs`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(try_from = "json::MeasurementJson")]
pub struct Measurement {
    pub name: String,
    pub kind: latscope_core::words::Word,
    pub definition: String,
    /// Unit of the `*_ns` statistics: "ns", or "count" for count measurements (their
    /// `*_ns` fields then hold pulse counts).
    pub unit: latscope_core::words::Word,
    pub count: u64,
    // The statistics below are NaN when `count` is 0 (no instances in the range) and
    // are then written as JSON `null`: see [`Measurement::is_empty`].
    pub min_ns: f64,
    pub max_ns: f64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub mode_ns: f64,
    pub p50_ns: f64,
    pub p90_ns: f64,
    pub p99_ns: f64,
    pub p999_ns: f64,
    pub p9999_ns: f64,
    pub min_at_ns: f64,
    pub max_at_ns: f64,
    /// Sample index (from the capture start) of the min / max, when the rate is known.
    pub min_at_sample: Option<i64>,
    pub max_at_sample: Option<i64>,
    /// One sample period: every edge time is uncertain by ±1 sample.
    pub resolution_ns: Option<f64>,
    pub unmatched: u64,
    pub unmatched_to: Option<u64>,
    pub worst: Vec<Instance>,
    pub histogram: Vec<Bin>,
    pub frequency_hz: Option<f64>,
    pub jitter: Option<Jitter>,
    pub busy_percent: Option<PercentStats>,
    pub series: Option<Vec<WindowPoint>>,
    /// Every value with its time (ns from capture start), for `--series`.
    pub values: Vec<(f64, f64)>,
}

impl Measurement {
    /// No instance in the range (no pulse, no matched latency, no window): every
    /// statistic is then NaN / JSON `null`, and a limit on one of them fails.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Settings of a measurement run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Range restriction, relative to the capture start.
    pub from: Option<Picos>,
    pub to: Option<Picos>,
    /// Number of worst instances to list.
    pub worst: usize,
    /// Maximum number of histogram bins.
    pub bins: usize,
    /// Keep every value with its time ([`Measurement::values`], for `--series` and
    /// Perfetto counter tracks); false saves 16 bytes per instance.
    pub series: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            from: None,
            to: None,
            worst: 5,
            bins: 50,
            series: true,
        }
    }
}

/// The capture restricted to [start + from, start + to]: edges outside dropped, the
/// initial level taken just before the new start.
pub fn crop(cap: &Capture, from: Option<Picos>, to: Option<Picos>) -> Result<Capture> {
    let s = from
        .map(|f| cap.start + f)
        .unwrap_or(cap.start)
        .max(cap.start);
    let e = to.map(|t| cap.start + t).unwrap_or(cap.end).min(cap.end);
    if e < s {
        return Err(Error::usage(format!(
            "the range --from {} --to {} is empty or outside the capture (length {})",
            fmt_opt(from),
            fmt_opt(to),
            latscope_core::time::format_ps((cap.end.0 - cap.start.0) as i128)
        )));
    }
    let channels = cap
        .channels
        .iter()
        .map(|c| {
            let a = c.edges.partition_point(|&x| x < s);
            let b = c.edges.partition_point(|&x| x <= e);
            DigitalChannel {
                name: c.name.clone(),
                initial: c.initial ^ (a % 2 == 1),
                edges: c.edges[a..b].to_vec(),
            }
        })
        .collect();
    Ok(Capture {
        source: cap.source.clone(),
        samplerate_hz: cap.samplerate_hz,
        start: s,
        end: e,
        channels,
        analog: vec![],
    })
}

fn fmt_opt(p: Option<Picos>) -> String {
    p.map(|p| latscope_core::time::format_ps(p.0 as i128))
        .unwrap_or_else(|| "-".into())
}

struct Ctx<'a> {
    cap: &'a Capture,
    origin: Picos,
    res_ps: Option<i64>,
    set: &'a Settings,
}

impl Ctx<'_> {
    fn ch(&self, name: &str) -> Result<&DigitalChannel> {
        Ok(self.cap.channel(name)?)
    }
    /// Sample index of a time offset (ps from the capture start), rounded.
    fn sample_of(&self, at_ps: i64, count: u64) -> Option<i64> {
        let rate = self.cap.samplerate_hz.filter(|&r| r > 0)?;
        if count == 0 {
            return None;
        }
        let p = latscope_core::time::PS_PER_S as i128;
        Some(((at_ps as i128 * rate as i128 + p / 2) / p) as i64)
    }
    fn loc(&self, t: Picos) -> Location {
        Location {
            at: t.0 - self.origin.0,
            source: 0,
        }
    }
}

const PS_NS: f64 = 1000.0;

/// Runs every request on `cap` (already imported).
pub fn run(cap: &Capture, reqs: &[Request], set: &Settings) -> Result<Vec<Measurement>> {
    let cropped;
    let c: &Capture = if set.from.is_some() || set.to.is_some() {
        cropped = crop(cap, set.from, set.to)?;
        &cropped
    } else {
        cap
    };
    let ctx = Ctx {
        cap: c,
        origin: cap.start,
        res_ps: cap.resolution().map(|r| r.0),
        set,
    };
    measure_all(&ctx, reqs)
}

/// Every request, on up to as many threads as there are cores (each request is read-only
/// over the capture): the results in request order, the first error in request order —
/// what running them one after the other gives.
fn measure_all(ctx: &Ctx, reqs: &[Request]) -> Result<Vec<Measurement>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(reqs.len());
    if threads <= 1 {
        return reqs.iter().map(|r| measure(ctx, r)).collect();
    }
    // request i runs on thread i mod threads
    let mut out: Vec<Option<Result<Measurement>>> = (0..reqs.len()).map(|_| None).collect();
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                sc.spawn(move || {
                    reqs.iter()
                        .enumerate()
                        .skip(t)
                        .step_by(threads)
                        .map(|(i, r)| (i, measure(ctx, r)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(done) => {
                    for (i, m) in done {
                        out[i] = Some(m);
                    }
                }
                Err(p) => std::panic::resume_unwind(p),
            }
        }
    });
    out.into_iter()
        .map(|m| m.unwrap_or_else(|| Err(crate::Error::Usage("a measurement did not run".into()))))
        .collect()
}

/// One request's measurement: the instances its kind gathers (`gather`), summarised.
fn measure(ctx: &Ctx, req: &Request) -> Result<Measurement> {
    let g = gather::gather(ctx, &req.kind)?;
    Ok(summarise(ctx, req, g))
}

/// The statistics, histogram, worst instances and per-instance values of what a request
/// gathered, as the result holds them (ns, or counts for a count).
fn summarise(ctx: &Ctx, req: &Request, g: gather::Gathered) -> Measurement {
    let gather::Gathered {
        kind,
        unit,
        instances: mut s,
        unmatched,
        unmatched_to,
        jitter,
        busy,
        series,
    } = g;
    let mut frequency = None;
    let scale = if unit == "count" { 1.0 } else { PS_NS };
    let values = values(ctx, kind, &s, series.as_deref(), scale);
    // values are likely whole sample periods (counted per period, not sorted)
    let grid = if unit == "count" {
        1
    } else {
        ctx.res_ps.unwrap_or(1)
    };
    // the worst instances (earliest first among equal values) in the same pass
    let (sm, dist, worst) = s.summary_worst(|t| ctx.loc(t), grid, ctx.set.worst);
    let worst = worst
        .into_iter()
        .map(|(v, t)| Instance {
            value_ns: v as f64 / scale,
            at_ns: ctx.loc(t).at as f64 / PS_NS,
        })
        .collect();
    if kind == "period" && sm.count > 0 {
        frequency = Some(1e12 / sm.mean);
    }
    let res = if unit == "count" {
        1
    } else {
        ctx.res_ps.unwrap_or(1000)
    };
    let mode = dist.mode(res).unwrap_or(0);
    let histogram = hist(&dist, sm.min, sm.max, res, ctx.set.bins, scale);
    // No instance: NaN (JSON null), never a made-up 0 "at 0 ns".
    let stat = |v: f64| if sm.count == 0 { f64::NAN } else { v };
    Measurement {
        name: req.name.clone(),
        kind,
        definition: req.definition.clone(),
        unit,
        count: sm.count,
        min_ns: stat(sm.min as f64 / scale),
        max_ns: stat(sm.max as f64 / scale),
        mean_ns: stat(sm.mean / scale),
        stdev_ns: stat(sm.stdev / scale),
        mode_ns: stat(mode as f64 / scale),
        p50_ns: stat(sm.p50 as f64 / scale),
        p90_ns: stat(sm.p90 as f64 / scale),
        p99_ns: stat(sm.p99 as f64 / scale),
        p999_ns: stat(sm.p999 as f64 / scale),
        p9999_ns: stat(sm.p9999 as f64 / scale),
        min_at_ns: stat(sm.min_at.at as f64 / PS_NS),
        max_at_ns: stat(sm.max_at.at as f64 / PS_NS),
        min_at_sample: ctx.sample_of(sm.min_at.at, sm.count),
        max_at_sample: ctx.sample_of(sm.max_at.at, sm.count),
        resolution_ns: ctx.res_ps.map(|r| r as f64 / PS_NS),
        unmatched,
        unmatched_to,
        worst,
        histogram,
        frequency_hz: frequency,
        jitter,
        busy_percent: busy,
        series,
        values,
    }
}

/// Every instance as (at ns, value) when the settings ask for the series (the busy share
/// in percent per window for a busy measurement), else nothing.
fn values(
    ctx: &Ctx,
    kind: &str,
    s: &Instances,
    series: Option<&[WindowPoint]>,
    scale: f64,
) -> Vec<(f64, f64)> {
    match series {
        _ if !ctx.set.series => Vec::new(),
        Some(pts) if kind == "busy" => pts
            .iter()
            .map(|p| (p.at_ns, p.percent.unwrap_or(0.0)))
            .collect(),
        _ => s
            .pairs()
            .into_iter()
            .map(|(v, t)| (ctx.loc(t).at as f64 / PS_NS, v as f64 / scale))
            .collect(),
    }
}

/// Linear histogram from min to max with bins a whole number of resolutions wide.
fn hist(
    d: &instances::Dist,
    min: i64,
    max: i64,
    res: i64,
    max_bins: usize,
    scale: f64,
) -> Vec<Bin> {
    if d.is_empty() {
        return vec![];
    }
    let res = res.max(1);
    let lo = min.div_euclid(res) * res;
    let span = (max - lo) / res + 1; // in resolutions
    let per_bin = ((span as u64).div_ceil(max_bins.max(1) as u64)).max(1) as i64;
    let w = per_bin * res;
    let n = ((max - lo) / w + 1) as usize;
    let mut counts = vec![0u64; n];
    d.for_each_run(|x, c| {
        let k = ((x - lo) / w) as usize;
        counts[k.min(n - 1)] += c;
    });
    counts
        .into_iter()
        .enumerate()
        .map(|(k, c)| Bin {
            low_ns: (lo + k as i64 * w) as f64 / scale,
            high_ns: (lo + (k as i64 + 1) * w) as f64 / scale,
            count: c,
        })
        .collect()
}

#[cfg(test)]
mod tests;
