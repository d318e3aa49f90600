//! SVG charts drawn with `plotters` (SVG backend, no fonts or files needed).
//!
//! Every chart uses one coordinate type — a linear `f64` range with explicit tick positions —
//! and does its own axis transform: a log axis plots `log10(value)` and labels the decades.
//! That gives full control over ticks (per-tick units such as `10 µs`, `1 ms`, or HdrHistogram's
//! percentile labels `90 %`, `99 %`, `99.9 %`) with a single drawing path.
//!
//! Colours: axes, grid and labels are pure greys; everything that shows data uses a chromatic
//! colour. The browser test relies on that to detect an empty chart.

use crate::data::{self, Bucket, Point, Stats, SweepPoint};
use crate::units::{self, TimeUnit};
use crate::ReportError;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// A rendered chart: the `<svg>` markup and the legend entries (label, CSS colour).
#[derive(Debug, Clone)]
pub struct Chart {
    pub svg: String,
    pub legend: Vec<(String, String)>,
}

/// Data colours (colour-blind friendly, all chromatic).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x25, 0x63, 0xEB), // blue
    RGBColor(0xEA, 0x58, 0x0C), // orange
    RGBColor(0x05, 0x96, 0x69), // green
    RGBColor(0x93, 0x33, 0xEA), // purple
    RGBColor(0xDB, 0x27, 0x77), // pink
    RGBColor(0x08, 0x91, 0xB2), // teal
    RGBColor(0xCA, 0x8A, 0x04), // amber
    RGBColor(0x4F, 0x46, 0xE5), // indigo
];
/// Worst-case markers and "outside tolerance".
pub const ALERT: RGBColor = RGBColor(0xDC, 0x26, 0x26);
/// "Within tolerance".
pub const OK: RGBColor = RGBColor(0x16, 0xA3, 0x4A);
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x55, 0x55, 0x55);
const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);
const GRID_LIGHT: RGBColor = RGBColor(0xF3, 0xF3, 0xF3);
const FONT: &str = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif";

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

pub fn css(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// plotters' SVG backend writes `font-size = size / 1.24`; this gives real pixel sizes.
fn px(size: f64) -> f64 {
    size * 1.24
}

/// One axis: range and ticks in plot coordinates (log10 of the value for log axes).
pub struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    light: Vec<f64>,
    label: Box<dyn Fn(f64) -> String>,
    title: String,
    log: bool,
    /// Values are divided by this before plotting (the unit, for linear time axes).
    scale: f64,
}

impl Axis {
    /// A value in plot coordinates.
    pub fn at(&self, v: f64) -> f64 {
        let v = v / self.scale;
        if self.log {
            v.max(1e-300).log10()
        } else {
            v
        }
    }

    fn clamp(&self, p: f64) -> f64 {
        p.clamp(self.lo, self.hi)
    }

    /// A linear axis over `[lo, hi]` with "nice" ticks and the given label format.
    pub fn linear(lo: f64, hi: f64, title: &str, fmt: impl Fn(f64) -> String + 'static) -> Axis {
        let (lo, hi, ticks) = nice_ticks(lo, hi, 6);
        Axis {
            lo,
            hi,
            ticks,
            light: Vec::new(),
            label: Box::new(fmt),
            title: title.to_string(),
            log: false,
            scale: 1.0,
        }
    }

    /// A linear time axis in the unit that suits `hi_ns`: title `"{word} (µs)"`.
    pub fn time_linear(lo_ns: f64, hi_ns: f64, word: &str) -> Axis {
        let u: TimeUnit = units::unit_for(hi_ns.abs().max(lo_ns.abs()));
        let mut a = Axis::linear(lo_ns / u.ns, hi_ns / u.ns, "", |v| units::num(v, 4));
        a.title = format!("{word} ({})", u.symbol);
        a.scale = u.ns;
        a
    }

    /// A log time axis; every tick carries its own unit (`10 µs`, `1 ms`).
    pub fn time_log(lo_ns: f64, hi_ns: f64, word: &str) -> Axis {
        let (lo, hi, ticks, light) = log_ticks(lo_ns.max(1e-3), hi_ns.max(lo_ns * 1.0001));
        Axis {
            lo,
            hi,
            ticks,
            light,
            label: Box::new(|p| units::dur_tick(10f64.powf(p))),
            title: format!("{word} (log scale)"),
            log: true,
            scale: 1.0,
        }
    }

    /// Log when the values span more than `ratio`, linear otherwise.
    pub fn time_auto(lo_ns: f64, hi_ns: f64, word: &str, ratio: f64) -> Axis {
        if lo_ns > 0.0 && hi_ns / lo_ns > ratio {
            Axis::time_log(lo_ns, hi_ns, word)
        } else {
            let lo = if lo_ns < 0.0 { lo_ns } else { 0.0 };
            Axis::time_linear(lo, hi_ns.max(lo + 1.0), word)
        }
    }

    /// A log count axis from 0.5 (so that a count of 1 is a visible bar) to `max`.
    pub fn count_log(max: f64) -> Axis {
        let (_, hi, ticks, light) = log_ticks(1.0, max.max(2.0) * 1.6);
        Axis {
            lo: 0.5f64.log10(),
            hi,
            ticks,
            light,
            label: Box::new(|p| si(10f64.powf(p))),
            title: "count (log scale)".into(),
            log: true,
            scale: 1.0,
        }
    }

    /// HdrHistogram's percentile axis: plot coordinate `-log10(1 - p)`; `0 %`, `90 %`, `99 %`…
    pub fn percentile(max_nines: f64) -> Axis {
        let hi = max_nines.ceil().clamp(2.0, 7.0);
        let ticks: Vec<f64> = (0..=hi as i32).map(f64::from).collect();
        let light: Vec<f64> = (0..hi as i32)
            .flat_map(|d| (2..10).map(move |k| f64::from(d) + (f64::from(k) / 10.0 * 10.0).log10()))
            .map(|x| x.min(hi))
            .collect();
        Axis {
            lo: 0.0,
            hi,
            ticks,
            light: light.into_iter().filter(|x| x.fract() != 0.0).collect(),
            label: Box::new(percentile_label),
            title: "percentile (log tail scale)".into(),
            log: false,
            scale: 1.0,
        }
    }
}

/// `0` → `0 %`, `1` → `90 %`, `2` → `99 %`, `3` → `99.9 %`.
pub fn percentile_label(x: f64) -> String {
    let p = 1.0 - 10f64.powf(-x);
    let nines = x.round() as i32;
    if (x - f64::from(nines)).abs() < 1e-9 && nines >= 1 {
        if nines == 1 {
            return "90 %".into();
        }
        return format!(
            "99{}{} %",
            if nines > 2 { "." } else { "" },
            "9".repeat((nines - 2).max(0) as usize)
        );
    }
    format!("{} %", units::num(p * 100.0, 4))
}

/// Counts with SI suffixes: 1, 10, 1k, 10k, 1M.
pub fn si(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", units::num(v / 1e9, 3))
    } else if a >= 1e6 {
        format!("{}M", units::num(v / 1e6, 3))
    } else if a >= 1e3 {
        format!("{}k", units::num(v / 1e3, 3))
    } else {
        units::num(v, 3)
    }
}

/// Nice linear ticks covering `[lo, hi]`: steps of 1, 2 or 5 × 10^k.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> (f64, f64, Vec<f64>) {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (
            lo - 0.5_f64.max(lo.abs() * 0.1),
            hi + 0.5_f64.max(hi.abs() * 0.1),
        )
    };
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let step = mag
        * if norm < 1.5 {
            1.0
        } else if norm < 3.0 {
            2.0
        } else if norm < 7.0 {
            5.0
        } else {
            10.0
        };
    let first = (lo / step).floor();
    let last = (hi / step).ceil();
    let ticks: Vec<f64> = (0..=((last - first) as i64).min(100))
        .map(|i| (first + i as f64) * step)
        .collect();
    (first * step, last * step, ticks)
}

/// Decade ticks (with 2 and 5 when the range is short) and light lines at 2..9 × 10^k,
/// all as log10 values.
fn log_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>, Vec<f64>) {
    let llo = lo.log10().floor();
    let lhi = hi.log10().ceil().max(llo + 1.0);
    let decades = (lhi - llo) as i32;
    let mut ticks = Vec::new();
    let mut light = Vec::new();
    for d in 0..=decades {
        let base = llo + f64::from(d);
        ticks.push(base);
        if d < decades {
            for k in 2..10 {
                let p = base + f64::from(k).log10();
                if decades <= 3 && (k == 2 || k == 5) {
                    ticks.push(p);
                } else {
                    light.push(p);
                }
            }
        }
    }
    // Trim to the data with a little headroom, keeping ticks inside.
    // Extend to a decade line when the data come close to it, so that it gets a label.
    let lo_p = if lo.log10() - llo < 0.35 {
        llo
    } else {
        lo.log10() - 0.05
    };
    let hi_p = if lhi - hi.log10() < 0.35 {
        lhi
    } else {
        hi.log10() + 0.05
    };
    ticks.retain(|t| *t >= lo_p - 1e-9 && *t <= hi_p + 1e-9);
    light.retain(|t| *t >= lo_p && *t <= hi_p);
    (lo_p, hi_p, ticks, light)
}

/// A linear `f64` coordinate with explicit bold (labelled) and light grid positions.
#[derive(Clone)]
pub struct Scale {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Ranged for Scale {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        if self.hi == self.lo {
            return (limit.0 + limit.1) / 2;
        }
        let f = ((*v - self.lo) / (self.hi - self.lo)).clamp(-10.0, 10.0);
        limit.0 + ((limit.1 - limit.0) as f64 * f).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

type Coord = Cartesian2d<Scale, Scale>;

fn err<E: std::fmt::Display>(chart: &'static str) -> impl Fn(E) -> ReportError {
    move |e| ReportError::Chart {
        chart,
        message: e.to_string(),
    }
}

/// Layout of a chart.
struct Frame<'a> {
    name: &'static str,
    w: u32,
    h: u32,
    x: &'a Axis,
    y: &'a Axis,
    /// Width of the y label area (wider for category names).
    y_area: u32,
    /// Draw the x grid lines (off for bar charts).
    x_grid: bool,
    y_grid: bool,
}

/// Draws the axes of `f` and then the data with `plot`; returns the SVG markup.
fn draw<F>(f: Frame<'_>, plot: F) -> Result<String, ReportError>
where
    F: for<'b, 'c> FnOnce(
        &mut ChartContext<'b, SVGBackend<'c>, Coord>,
    ) -> Result<(), DrawingAreaErrorKind<std::io::Error>>,
{
    let e = err(f.name);
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (f.w, f.h)).into_drawing_area();
        root.fill(&WHITE).map_err(&e)?;
        let xr = Scale {
            lo: f.x.lo,
            hi: f.x.hi,
            bold: f.x.ticks.clone(),
            light: if f.x_grid {
                f.x.light.clone()
            } else {
                Vec::new()
            },
        };
        let yr = Scale {
            lo: f.y.lo,
            hi: f.y.hi,
            bold: f.y.ticks.clone(),
            light: if f.y_grid {
                f.y.light.clone()
            } else {
                Vec::new()
            },
        };
        let mut chart = ChartBuilder::on(&root)
            .margin_top(14)
            .margin_right(24)
            .margin_left(8)
            .margin_bottom(6)
            .x_label_area_size(48)
            .y_label_area_size(f.y_area)
            .build_cartesian_2d(xr, yr)
            .map_err(&e)?;
        let xl = &f.x.label;
        let yl = &f.y.label;
        let xfmt = |v: &f64| xl(*v);
        let yfmt = |v: &f64| yl(*v);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(f.x.title.as_str())
            .y_desc(f.y.title.as_str())
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .axis_desc_style(TextStyle::from((FONT, px(12.5)).into_font()).color(&INK))
            .label_style(TextStyle::from((FONT, px(11.5)).into_font()).color(&MUTED))
            .bold_line_style(GRID)
            .light_line_style(GRID_LIGHT)
            .axis_style(MUTED)
            .set_tick_mark_size(LabelAreaPosition::Left, 4)
            .set_tick_mark_size(LabelAreaPosition::Bottom, 4);
        if !f.x_grid {
            mesh.disable_x_mesh();
        }
        if !f.y_grid {
            mesh.disable_y_mesh();
        }
        mesh.draw().map_err(&e)?;
        plot(&mut chart).map_err(&e)?;
        root.present().map_err(&e)?;
    }
    Ok(tidy_svg(&buf, f.name))
}

/// Makes plotters' standalone SVG inline-friendly: no namespace URL (the report must contain
/// no `http(s)://` at all), scalable, labelled for screen readers.
fn tidy_svg(svg: &str, name: &str) -> String {
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    svg.replacen(
        "<svg ",
        &format!("<svg class=\"chart\" data-chart=\"{name}\" role=\"img\" preserveAspectRatio=\"xMidYMid meet\" "),
        1,
    )
}

fn text_style(size: f64, c: &'static RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FONT, px(size)).into_font())
        .color(c)
        .pos(Pos::new(h, v))
}

/// Re-bins buckets onto `n` bins of the axis (equal width in plot coordinates), so that
/// overlaid histograms share their bins and a histogram of thousands of buckets stays light.
fn rebin(b: &[Bucket], x: &Axis, n: usize) -> Vec<(f64, f64, f64)> {
    let width = (x.hi - x.lo) / n as f64;
    let mut bins = vec![0.0; n];
    for k in b {
        if k.count <= 0.0 {
            continue;
        }
        let mid = if x.log && k.low > 0.0 {
            (k.low * k.high.max(k.low)).sqrt()
        } else {
            (k.low + k.high) / 2.0
        };
        let i = ((x.at(mid) - x.lo) / width).floor();
        let i = (i.max(0.0) as usize).min(n - 1);
        bins[i] += k.count;
    }
    bins.iter()
        .enumerate()
        .filter(|(_, c)| **c > 0.0)
        .map(|(i, c)| (x.lo + i as f64 * width, x.lo + (i + 1) as f64 * width, *c))
        .collect()
}

/// Bars over the values of quantised buckets: `(left, right, count)` in plot coordinates.
/// A bucket holding the values `a … z` (one sample apart) spans `[a − r/2, z + r/2]`, so a
/// single value is a bar centred on it (drawn 90 % wide, to stay apart from its neighbour)
/// and a reader reads real values at both edges. A bar narrower than a sliver of the axis is
/// widened around its centre, but never past half-way to its neighbours.
fn value_bars(vals: &[(f64, f64, f64)], r: f64, x: &Axis, n: usize) -> Vec<(f64, f64, f64)> {
    let raw: Vec<(f64, f64)> = vals
        .iter()
        .map(|&(a, z, _)| {
            let la = a - r / 2.0;
            let la = if la > 0.0 { la } else { a.max(r) / 2.0 };
            (x.at(la), x.at(z + r / 2.0))
        })
        .collect();
    let sliver = (x.hi - x.lo) / n as f64 * 0.6;
    let mut out = Vec::with_capacity(vals.len());
    for (i, (&(a, z, count), &(l, h))) in vals.iter().zip(&raw).enumerate() {
        let c = (l + h) / 2.0;
        let mut half = (h - l) / 2.0;
        if a == z {
            half *= 0.9;
        }
        half = half.max(sliver / 2.0);
        let mut left = c - half;
        let mut right = c + half;
        if i > 0 {
            left = left.max((raw[i - 1].1 + l) / 2.0);
        }
        if let Some(next) = raw.get(i + 1) {
            right = right.min((h + next.0) / 2.0);
        }
        out.push((x.clamp(left), x.clamp(right), count));
    }
    out
}

fn nonempty(b: &[Bucket]) -> impl Iterator<Item = &Bucket> {
    b.iter().filter(|k| k.count > 0.0)
}

/// Latency histogram(s) with a log count axis. Several sets are overlaid as outlines.
pub fn histogram(sets: &[(String, Vec<Bucket>)], word: &str) -> Result<Option<Chart>, ReportError> {
    let sets: Vec<(String, Vec<Bucket>, Option<f64>)> = sets
        .iter()
        .map(|(n, b)| (n.clone(), b.clone(), None))
        .collect();
    histogram_res(&sets, word)
}

/// Like [`histogram`], with each set's value resolution (`resolution_ns`, one sample period).
///
/// Sample-quantised data on the sample grid (see [`data::quantised`]) are drawn as bars over
/// the values each bucket holds, half a resolution either side: a bucket of one value is a bar
/// centred on it, so that a reader reads the real value (a 3 µs pulse is a bar on 3 µs, not on
/// the bucket centre 3.5 µs). With more buckets than bins they are re-binned by the centre of
/// their values; HDR buckets (no resolution, or edges off the grid) by their centre as before.
pub fn histogram_res(
    sets: &[(String, Vec<Bucket>, Option<f64>)],
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    // Per set: the values each bucket can hold and the resolution, for data on a sample grid.
    type Quantised = Option<(Vec<(f64, f64, f64)>, f64)>;
    let quant: Vec<Quantised> = sets
        .iter()
        .map(|(_, b, r)| Some((data::quantised(b, *r)?, (*r)?)))
        .collect();
    // Value extents of what is drawn: quantised values span half a resolution either side.
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for ((_, b, _), q) in sets.iter().zip(&quant) {
        match q {
            Some((vals, r)) => spans.extend(vals.iter().map(|&(a, z, _)| {
                let lo = a - r / 2.0;
                (if lo > 0.0 { lo } else { a.max(*r) / 2.0 }, z + r / 2.0)
            })),
            None => spans.extend(nonempty(b).map(|k| {
                (
                    if k.low > 0.0 {
                        k.low
                    } else {
                        k.high.max(1.0) / 2.0
                    },
                    k.high,
                )
            })),
        }
    }
    if spans.is_empty() {
        return Ok(None);
    }
    let lo = spans.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
    let hi = spans.iter().map(|s| s.1).fold(0.0, f64::max);
    let x = Axis::time_auto(lo, hi.max(lo * 1.01), word, 30.0);
    let n = if x.log { 72 } else { 60 };
    let binned: Vec<Vec<(f64, f64, f64)>> = sets
        .iter()
        .zip(&quant)
        .map(|((_, b, _), q)| match q {
            Some((vals, r)) if vals.len() <= n => value_bars(vals, *r, &x, n),
            Some((vals, _)) => {
                let pts: Vec<Bucket> = vals
                    .iter()
                    .map(|&(low, high, count)| Bucket { low, high, count })
                    .collect();
                rebin(&pts, &x, n)
            }
            None => rebin(b, &x, n),
        })
        .collect();
    let ymax = binned.iter().flatten().map(|b| b.2).fold(1.0, f64::max);
    let y = Axis::count_log(ymax);
    let base = y.lo;
    let many = sets.len() > 1;
    let svg = draw(
        Frame {
            name: "histogram",
            w: 760,
            h: 320,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, bins) in binned.iter().enumerate() {
                let c = color(i);
                let fill = if many { c.mix(0.18) } else { c.mix(0.85) };
                chart
                    .draw_series(bins.iter().map(|&(a, b, n)| {
                        Rectangle::new([(a, base), (b, y.at(n))], fill.filled())
                    }))?;
                if many {
                    // Step outline so that overlapping sets stay distinguishable.
                    let mut pts: Vec<(f64, f64)> = Vec::new();
                    let mut last_end = f64::NAN;
                    for &(a, b, n) in bins {
                        let top = y.at(n);
                        if (a - last_end).abs() > 1e-9 {
                            // A gap: close the previous run and start a new one at the base.
                            if !pts.is_empty() {
                                pts.push((last_end, base));
                                chart.draw_series(std::iter::once(PathElement::new(
                                    std::mem::take(&mut pts),
                                    c.stroke_width(2),
                                )))?;
                            }
                            pts.push((a, base));
                        }
                        pts.push((a, top));
                        pts.push((b, top));
                        last_end = b;
                    }
                    if !pts.is_empty() {
                        pts.push((last_end, base));
                        chart.draw_series(std::iter::once(PathElement::new(
                            pts,
                            c.stroke_width(2),
                        )))?;
                    }
                }
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: legend(sets.iter().map(|s| s.0.as_str())),
    }))
}

fn legend<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    names
        .enumerate()
        .map(|(i, n)| (n.to_string(), css(color(i))))
        .collect()
}

/// Latency against percentile (HdrHistogram-style log tail axis), from histogram buckets;
/// exact percentiles from the summary, when given, are marked with dots. Each step is drawn at
/// the largest value its bucket can hold: for sample-quantised data on the sample grid the
/// last sample below the upper edge (the low edge of a one-sample bucket), else the upper
/// edge; capped at the exact maximum, so the curve never shows a value above the worst case.
pub fn cdf(
    sets: &[(String, Vec<Bucket>, Option<Stats>)],
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    struct Line {
        pts: Vec<(f64, f64)>,
        marks: Vec<(f64, f64)>,
    }
    let mut lines = Vec::new();
    let mut max_nines: f64 = 2.0;
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (_, b, stats) in sets {
        let total: f64 = nonempty(b).map(|k| k.count).sum();
        if total <= 0.0 {
            lines.push(Line {
                pts: Vec::new(),
                marks: Vec::new(),
            });
            continue;
        }
        let cap = total.log10().max(1.0);
        max_nines = max_nines.max(cap);
        // The value each bucket reaches: for sample-quantised data on the sample grid the
        // largest value it can hold (its low edge when it is one sample wide), otherwise its
        // upper edge (an upper bound); never above the exact maximum, nor below the exact
        // minimum, when the summary gives them.
        let stats = stats.as_ref();
        let max_v = stats.and_then(|s| s.max).filter(|v| v.is_finite());
        let min_v = stats.and_then(|s| s.min).filter(|v| v.is_finite());
        let vals: Vec<(f64, f64, f64)> = match data::quantised(b, stats.and_then(|s| s.resolution))
        {
            Some(q) => q,
            None => nonempty(b)
                .map(|k| (k.low.max(k.high / 2.0), k.high, k.count))
                .collect(),
        };
        let fit = |v: f64| {
            let v = max_v.map_or(v, |m| v.min(m));
            min_v.map_or(v, |m| v.max(m))
        };
        let mut cum = 0.0;
        let mut pts = Vec::new();
        for &(first, v, count) in &vals {
            if pts.is_empty() {
                pts.push((0.0, min_v.unwrap_or(first).max(1e-3)));
            }
            cum += count;
            let p = cum / total;
            let xp = if p >= 1.0 {
                cap
            } else {
                (-(1.0 - p).log10()).min(cap)
            };
            pts.push((xp, fit(v).max(1e-3)));
        }
        let mut marks = Vec::new();
        if let Some(s) = stats {
            for (p, v, _) in s.percentile_points() {
                let xp = -(1.0 - p).log10();
                if xp <= cap + 1e-9 {
                    marks.push((xp, v));
                }
            }
        }
        for (_, v) in pts.iter().chain(marks.iter()) {
            lo = lo.min(*v);
            hi = hi.max(*v);
        }
        lines.push(Line { pts, marks });
    }
    if lines.iter().all(|l| l.pts.is_empty()) {
        return Ok(None);
    }
    let x = Axis::percentile(max_nines);
    let y = Axis::time_auto(lo.max(1e-3), hi.max(lo * 1.01), word, 30.0);
    let svg = draw(
        Frame {
            name: "cdf",
            w: 760,
            h: 320,
            x: &x,
            y: &y,
            y_area: 72,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, l) in lines.iter().enumerate() {
                let c = color(i);
                // Step curve: the latency stays at a bucket's value until the next bucket.
                let mut step = Vec::new();
                let mut prev: Option<(f64, f64)> = None;
                for &(px_, v) in &l.pts {
                    if let Some((ppx, _)) = prev {
                        step.push((ppx, y.at(v)));
                    }
                    step.push((px_, y.at(v)));
                    prev = Some((px_, v));
                }
                chart.draw_series(LineSeries::new(step, c.stroke_width(2)))?;
                chart.draw_series(
                    l.marks
                        .iter()
                        .map(|&(a, v)| Circle::new((a, y.at(v)), 4, c.filled())),
                )?;
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: legend(sets.iter().map(|s| s.0.as_str())),
    }))
}

/// Keeps at most about `2 * n` points: the minimum and maximum of each of `n` time slices,
/// so peaks survive the thinning.
pub fn thin(points: &[Point], n: usize) -> Vec<Point> {
    if points.len() <= 2 * n || n == 0 {
        return points.to_vec();
    }
    let mut pts = points.to_vec();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let t0 = pts[0].0;
    let t1 = pts[pts.len() - 1].0;
    let w = ((t1 - t0) / n as f64).max(f64::MIN_POSITIVE);
    let mut out = Vec::with_capacity(2 * n + 2);
    let mut i = 0;
    while i < pts.len() {
        let slot = ((pts[i].0 - t0) / w).floor();
        let mut j = i;
        let (mut lo, mut hi) = (i, i);
        while j < pts.len() && ((pts[j].0 - t0) / w).floor() == slot {
            if pts[j].1 < pts[lo].1 {
                lo = j;
            }
            if pts[j].1 > pts[hi].1 {
                hi = j;
            }
            j += 1;
        }
        let (a, b) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        out.push(pts[a]);
        if b != a {
            out.push(pts[b]);
        }
        i = j;
    }
    out
}

/// A value against time, with the worst case (largest value) marked and labelled.
/// `value_is_time`: values are durations (ns); otherwise plain numbers titled `value_word`.
pub fn time_series(
    points: &[Point],
    value_word: &str,
    value_is_time: bool,
    highlight: Option<Point>,
) -> Result<Option<Chart>, ReportError> {
    if points.is_empty() {
        return Ok(None);
    }
    let pts = thin(points, 700);
    let t0 = pts
        .iter()
        .map(|p| p.0)
        .fold(f64::INFINITY, f64::min)
        .min(0.0);
    let t1 = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    // The first of equal maxima (the earliest occurrence).
    let worst = highlight.or_else(|| {
        points
            .iter()
            .copied()
            .fold(None, |best: Option<Point>, p| match best {
                Some(b) if b.1 >= p.1 => Some(b),
                _ => Some(p),
            })
    });
    let vmax = pts
        .iter()
        .map(|p| p.1)
        .chain(worst.map(|w| w.1))
        .fold(f64::NEG_INFINITY, f64::max);
    let vmin = pts
        .iter()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        .min(0.0);
    let x = Axis::time_linear(t0, t1.max(t0 + 1.0), "time since start");
    let y = if value_is_time {
        Axis::time_linear(vmin, (vmax * 1.12).max(vmin + 1.0), value_word)
    } else {
        Axis::linear(vmin, (vmax * 1.12).max(vmin + 1.0), value_word, |v| {
            units::num(v, 4)
        })
    };
    let sparse = pts.len() <= 60;
    let svg = draw(
        Frame {
            name: "series",
            w: 760,
            h: 280,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            let c = color(0);
            let line: Vec<(f64, f64)> = pts.iter().map(|&(t, v)| (x.at(t), y.at(v))).collect();
            chart.draw_series(LineSeries::new(line.clone(), c.stroke_width(1)))?;
            if sparse {
                chart.draw_series(line.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
            }
            if let Some((wt, wv)) = worst {
                let p = (x.at(wt), y.at(wv));
                chart.draw_series(std::iter::once(Circle::new(p, 6, ALERT.stroke_width(2))))?;
                let label = if value_is_time {
                    format!("worst {} at {}", units::dur(wv), units::dur(wt))
                } else {
                    format!("worst {} at {}", units::num(wv, 4), units::dur(wt))
                };
                let right_half = (p.0 - x.lo) > (x.hi - x.lo) * 0.6;
                let (h, dx) = if right_half {
                    (HPos::Right, -(x.hi - x.lo) * 0.012)
                } else {
                    (HPos::Left, (x.hi - x.lo) * 0.012)
                };
                chart.draw_series(std::iter::once(Text::new(
                    label,
                    (p.0 + dx, p.1),
                    text_style(12.0, &ALERT, h, VPos::Bottom),
                )))?;
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: vec![
            (value_word.to_string(), css(color(0))),
            ("worst case".into(), css(ALERT)),
        ],
    }))
}

/// Latency against sleep length: min, p50, p99, max per interval, both axes log when wide.
pub fn sweep(points: &[SweepPoint]) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&SweepPoint> = points.iter().filter(|p| p.interval_ns > 0.0).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    type Get = fn(&Stats) -> Option<f64>;
    let stats: [(&str, Get); 4] = [
        ("min", |s| s.min),
        ("p50", |s| s.p50),
        ("p99", |s| s.p99),
        ("max", |s| s.max),
    ];
    let lines: Vec<(&str, Vec<(f64, f64)>)> = stats
        .iter()
        .map(|(n, g)| {
            (
                *n,
                rows.iter()
                    .filter_map(|p| g(&p.stats).map(|v| (p.interval_ns, v)))
                    .filter(|(_, v)| *v > 0.0)
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    let ilo = rows.first().map(|p| p.interval_ns).unwrap_or(1.0);
    let ihi = rows.last().map(|p| p.interval_ns).unwrap_or(1.0);
    let vals = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1));
    let (vlo, vhi) = vals.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let x = if ihi / ilo > 5.0 {
        Axis::time_log(ilo, ihi, "sleep length")
    } else {
        Axis::time_linear(0.0, ihi * 1.05, "sleep length")
    };
    let y = Axis::time_auto(vlo, vhi.max(vlo * 1.01), "wake-up latency", 20.0);
    let svg = draw(
        Frame {
            name: "sweep",
            w: 760,
            h: 320,
            x: &x,
            y: &y,
            y_area: 72,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, (_, pts)) in lines.iter().enumerate() {
                let c = color(i);
                let p: Vec<(f64, f64)> = pts.iter().map(|&(a, b)| (x.at(a), y.at(b))).collect();
                chart.draw_series(LineSeries::new(p.clone(), c.stroke_width(2)))?;
                chart.draw_series(p.iter().map(|&q| Circle::new(q, 3, c.filled())))?;
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: legend(lines.iter().map(|l| l.0)),
    }))
}

/// One horizontal stacked bar: a label, a value per component, an optional marker
/// (a deadline, drawn as a dark tick) and a note printed after the bar.
#[derive(Debug, Clone)]
pub struct BarRow {
    pub label: String,
    pub values: Vec<f64>,
    pub marker: Option<f64>,
    pub note: String,
}

/// What the bar values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarScale {
    /// Nanoseconds.
    Time,
    /// Fractions of 1, shown as percent from 0 to 100 %.
    Fraction,
}

/// Horizontal stacked bars (response-time breakdown, utilisation split).
pub fn stacked_bars(
    name: &'static str,
    rows: &[BarRow],
    components: &[String],
    scale: BarScale,
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&BarRow> = rows
        .iter()
        .filter(|r| r.values.iter().any(|v| *v > 0.0))
        .collect();
    if rows.is_empty() || components.is_empty() {
        return Ok(None);
    }
    let total = |r: &BarRow| r.values.iter().filter(|v| **v > 0.0).sum::<f64>();
    let rmax = rows.iter().map(|r| total(r)).fold(0.0, f64::max);
    let dmax = rows
        .iter()
        .map(|r| r.marker.unwrap_or(0.0))
        .fold(0.0, f64::max);
    // Deadlines far beyond every bar would squash the bars: cut the axis and name them instead.
    let vmax = if dmax > 1.6 * rmax {
        rmax * 1.25
    } else {
        rmax.max(dmax)
    };
    let x = match scale {
        BarScale::Time => Axis::time_linear(0.0, vmax * 1.08, word),
        BarScale::Fraction => {
            let hi = if vmax <= 1.0 + 1e-9 { 1.0 } else { vmax };
            let mut a = Axis::linear(0.0, hi * 100.0, word, |v| format!("{} %", units::num(v, 3)));
            a.scale = 0.01;
            a
        }
    };
    let n = rows.len();
    let labels: Vec<String> = rows.iter().map(|r| shorten(&r.label, 22)).collect();
    let y = category_axis(&labels);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let h = (60 + 34 * n as u32).clamp(120, 900);
    let svg = draw(
        Frame {
            name,
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 180),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            for (ri, r) in rows.iter().enumerate() {
                // Row 0 at the top.
                let yc = (n - 1 - ri) as f64;
                let (y0, y1) = (yc + 0.2, yc + 0.8);
                let mut acc = 0.0;
                for (ci, v) in r.values.iter().enumerate() {
                    if *v <= 0.0 {
                        continue;
                    }
                    let a = x.at(acc);
                    acc += v;
                    let b = x.at(acc);
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(a, y0), (b, y1)],
                        component_color(&components[ci], ci).filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(a, y0), (b, y1)],
                        WHITE.stroke_width(1),
                    )))?;
                }
                let mut note = r.note.clone();
                if let Some(m) = r.marker {
                    let mx = x.at(m);
                    if mx <= x.hi {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(mx, yc + 0.08), (mx, yc + 0.92)],
                            INK.stroke_width(2),
                        )))?;
                    } else if scale == BarScale::Time {
                        note = format!("{note} · deadline {} ▸", units::dur(m));
                    }
                }
                if !note.is_empty() {
                    // Write past the deadline tick when it sits just after the bar.
                    let mut end = x.clamp(x.at(acc));
                    if let Some(m) = r.marker.map(|m| x.at(m)) {
                        if m <= x.hi && m >= end && m - end < (x.hi - x.lo) * 0.1 {
                            end = m;
                        }
                    }
                    chart.draw_series(std::iter::once(Text::new(
                        note,
                        (end + (x.hi - x.lo) * 0.008, yc + 0.5),
                        text_style(11.0, &MUTED, HPos::Left, VPos::Center),
                    )))?;
                }
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: components
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), css(component_color(c, i))))
            .collect(),
    }))
}

/// A category axis: `labels[0]` at the top, row `i` centred at `n - 1 - i + 0.5`.
fn category_axis(labels: &[String]) -> Axis {
    let n = labels.len();
    let l = labels.to_vec();
    let mut y = Axis::linear(0.0, n as f64, "", move |v| {
        let i = (v - 0.5).round();
        if i >= 0.0 && (i as usize) < l.len() && (v - 0.5 - i).abs() < 1e-6 {
            l[l.len() - 1 - i as usize].clone()
        } else {
            String::new()
        }
    });
    y.lo = 0.0;
    y.hi = n as f64;
    y.ticks = (0..n).map(|i| i as f64 + 0.5).collect();
    y
}

/// Colour of a named component: idle and sleep are pale so that the work stands out.
pub fn component_color(name: &str, i: usize) -> RGBColor {
    let n = name.to_ascii_lowercase();
    if n.contains("idle") || n.contains("unused") {
        RGBColor(0xCB, 0xD5, 0xE1)
    } else if n.contains("sleep") {
        RGBColor(0xBF, 0xDB, 0xFE)
    } else {
        color(i)
    }
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n.saturating_sub(1)).collect();
        format!("{t}…")
    }
}

/// A timeline excerpt: one row per track, busy intervals as bars, the instant of interest
/// marked with a vertical line.
pub fn timeline(
    tracks: &[(String, Vec<(f64, f64)>)],
    window: (f64, f64),
    marker: Option<(f64, String)>,
) -> Result<Option<Chart>, ReportError> {
    if tracks.is_empty() || window.1 <= window.0 {
        return Ok(None);
    }
    // The axis rounds the window out to whole ticks; show what happens in all of it.
    let x = Axis::time_linear(window.0, window.1, "time since start");
    let (w0, w1) = (x.lo * x.scale, x.hi * x.scale);
    type Visible<'a> = (usize, &'a String, Vec<(f64, f64)>);
    let visible: Vec<Visible> = tracks
        .iter()
        .enumerate()
        .map(|(i, (n, iv))| {
            (
                i,
                n,
                iv.iter()
                    .filter(|(a, b)| *b >= w0 && *a <= w1)
                    .map(|&(a, b)| (a.max(w0), b.min(w1)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    if visible.iter().all(|v| v.2.is_empty()) {
        return Ok(None);
    }
    let n = visible.len();
    let labels: Vec<String> = visible.iter().map(|v| shorten(v.1, 18)).collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let mut y = category_axis(&labels);
    y.hi = n as f64 + 0.7;
    let h = (80 + 26 * n as u32).clamp(130, 700);
    let svg = draw(
        Frame {
            name: "timeline",
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 160),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            if let Some((t, label)) = &marker {
                let mx = x.at(*t);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(mx, 0.0), (mx, n as f64 + 0.7)],
                    ALERT.stroke_width(2),
                )))?;
                chart.draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (mx + (x.hi - x.lo) * 0.006, n as f64 + 0.62),
                    text_style(11.5, &ALERT, HPos::Left, VPos::Top),
                )))?;
            }
            for (ri, (ci, _, iv)) in visible.iter().enumerate() {
                let yc = (n - 1 - ri) as f64;
                let c = component_color(&tracks[*ci].0, *ci);
                chart.draw_series(iv.iter().map(|&(a, b)| {
                    let (a, b) = (x.at(a), x.at(b));
                    // At least a hairline for very short intervals.
                    let b = b.max(a + (x.hi - x.lo) * 0.004);
                    Rectangle::new([(a, yc + 0.22), (b, yc + 0.78)], c.filled())
                }))?;
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: Vec::new(),
    }))
}

/// One row of a published-vs-latscope comparison.
#[derive(Debug, Clone)]
pub struct Deviation {
    pub label: String,
    /// (latscope − published) / published.
    pub deviation: f64,
    pub tolerance: Option<f64>,
    pub within: Option<bool>,
}

/// Deviation of each prediction from its published figure, with its tolerance band.
pub fn deviations(rows: &[Deviation]) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&Deviation> = rows.iter().filter(|r| r.deviation.is_finite()).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let lim = rows
        .iter()
        .map(|r| r.deviation.abs().max(r.tolerance.unwrap_or(0.0)))
        .fold(0.05, f64::max)
        * 100.0
        * 1.15;
    let x = Axis::linear(-lim, lim, "latscope against published (%)", |v| {
        format!("{}{} %", if v > 0.0 { "+" } else { "" }, units::num(v, 3))
    });
    let n = rows.len();
    let labels: Vec<String> = rows.iter().map(|r| shorten(&r.label, 34)).collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let y = category_axis(&labels);
    let h = (70 + 30 * n as u32).clamp(130, 900);
    let svg = draw(
        Frame {
            name: "deviation",
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 260),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            for (ri, r) in rows.iter().enumerate() {
                let yc = (n - 1 - ri) as f64 + 0.5;
                if let Some(t) = r.tolerance {
                    let t = t * 100.0;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(-t, yc - 0.32), (t, yc + 0.32)],
                        OK.mix(0.14).filled(),
                    )))?;
                }
                let ok = r
                    .within
                    .unwrap_or_else(|| r.tolerance.map(|t| r.deviation.abs() <= t).unwrap_or(true));
                let c = if ok { OK } else { ALERT };
                let d = (r.deviation * 100.0).clamp(x.lo, x.hi);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(0.0, yc), (d, yc)],
                    c.stroke_width(2),
                )))?;
                chart.draw_series(std::iter::once(Circle::new((d, yc), 5, c.filled())))?;
            }
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 0.0), (0.0, n as f64)],
                INK.stroke_width(1),
            )))?;
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: vec![
            ("within tolerance".into(), css(OK)),
            ("outside tolerance".into(), css(ALERT)),
        ],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_labels() {
        assert_eq!(percentile_label(0.0), "0 %");
        assert_eq!(percentile_label(1.0), "90 %");
        assert_eq!(percentile_label(2.0), "99 %");
        assert_eq!(percentile_label(3.0), "99.9 %");
        assert_eq!(percentile_label(5.0), "99.999 %");
    }

    #[test]
    fn nice_ticks_cover_range() {
        let (lo, hi, t) = nice_ticks(0.0, 37.0, 6);
        assert_eq!(lo, 0.0);
        assert!(hi >= 37.0);
        assert!(t.len() >= 4 && t.len() <= 10, "{t:?}");
        assert_eq!(si(12_000.0), "12k");
    }

    #[test]
    fn thinning_keeps_the_peak() {
        let pts: Vec<Point> = (0..100_000)
            .map(|i| (i as f64, if i == 77_777 { 1e6 } else { (i % 7) as f64 }))
            .collect();
        let t = thin(&pts, 500);
        assert!(t.len() <= 1100);
        assert!(t.iter().any(|p| p.1 == 1e6));
    }
}
