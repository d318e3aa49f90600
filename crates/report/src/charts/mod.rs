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
    /// JSON for the page script (hover read-outs, zoom): what is drawn, in values.
    pub data: Option<String>,
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
/// A deep blue for a line drawn over a lighter band of the same hue (column medians).
pub const DEEP: RGBColor = RGBColor(0x1E, 0x3A, 0x8A);
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
pub(crate) fn px(size: f64) -> f64 {
    size * 1.24
}

/// What an axis measures, for the page script (hover read-outs, zoom) and the tests.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisKind {
    /// Nanoseconds.
    Time,
    /// HdrHistogram's percentile coordinate `-log10(1 - p)`.
    Percentile,
    /// A count.
    Count,
    /// Categories (task or channel names).
    Category,
    /// Another quantity in the given unit ("%", "").
    Plain(String),
}

/// One axis: range and ticks in plot coordinates (log10 of the value for log axes).
pub struct Axis {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) ticks: Vec<f64>,
    pub(crate) light: Vec<f64>,
    pub(crate) label: Box<dyn Fn(f64) -> String>,
    pub(crate) title: String,
    pub(crate) log: bool,
    /// Values are divided by this before plotting (the unit, for linear time axes).
    pub(crate) scale: f64,
    /// Subtracted from values before scaling (a time axis far from zero reads
    /// "41.4 s + 0 … 6 ms").
    pub(crate) offset: f64,
    pub(crate) kind: AxisKind,
}

impl Axis {
    /// A value in plot coordinates.
    pub fn at(&self, v: f64) -> f64 {
        let v = (v - self.offset) / self.scale;
        if self.log {
            v.max(1e-300).log10()
        } else {
            v
        }
    }

    /// The value at a plot coordinate (inverse of [`Axis::at`]).
    pub fn value(&self, p: f64) -> f64 {
        let v = if self.log { 10f64.powf(p) } else { p };
        v * self.scale + self.offset
    }

    pub(crate) fn clamp(&self, p: f64) -> f64 {
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
            offset: 0.0,
            kind: AxisKind::Plain(String::new()),
        }
    }

    /// A linear axis of a plain quantity whose tick labels have as many decimals as the tick
    /// step needs (never two equal labels); the unit, when not empty, closes the title.
    pub fn plain(lo: f64, hi: f64, word: &str, unit: &str) -> Axis {
        let (l, h, ticks) = nice_ticks(lo, hi, 6);
        let step = step_of(&ticks);
        // A dimensionless quantity says so: every axis title names what its numbers count.
        let title = format!("{word} ({})", if unit.is_empty() { "count" } else { unit });
        let mut a = Axis::linear(lo, hi, &title, move |v| fixed(v, step));
        a.lo = l;
        a.hi = h;
        a.kind = AxisKind::Plain(unit.to_string());
        a
    }

    /// A linear time axis in the unit that suits the span, labels as precise as the step
    /// needs. A window far from zero (it starts later than ten times its width) is labelled
    /// relative to a round offset: title `"{word} (41.4 s + ms)"`, ticks `0 … 6`.
    pub fn time_linear(lo_ns: f64, hi_ns: f64, word: &str) -> Axis {
        let span = (hi_ns - lo_ns).abs();
        let u: TimeUnit = units::unit_for(if span > 0.0 {
            span
        } else {
            hi_ns.abs().max(lo_ns.abs())
        });
        let (_, _, probe) = nice_ticks(lo_ns / u.ns, hi_ns / u.ns, 6);
        let step_ns = step_of(&probe) * u.ns;
        let offset = if lo_ns > 10.0 * span && span > 0.0 && step_ns > 0.0 {
            (lo_ns / step_ns).floor() * step_ns
        } else {
            0.0
        };
        let (lo, hi, ticks) = nice_ticks((lo_ns - offset) / u.ns, (hi_ns - offset) / u.ns, 6);
        let step = step_of(&ticks);
        Axis {
            lo,
            hi,
            ticks,
            light: Vec::new(),
            label: Box::new(move |v| fixed(v, step)),
            title: if offset != 0.0 {
                format!("{word} ({} + {})", offset_text(offset, step_ns), u.symbol)
            } else {
                format!("{word} ({})", u.symbol)
            },
            log: false,
            scale: u.ns,
            offset,
            kind: AxisKind::Time,
        }
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
            title: format!("{word} (time, log scale)"),
            log: true,
            scale: 1.0,
            offset: 0.0,
            kind: AxisKind::Time,
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
            title: "count (instances, log scale)".into(),
            log: true,
            scale: 1.0,
            offset: 0.0,
            kind: AxisKind::Count,
        }
    }

    /// HdrHistogram's percentile axis: plot coordinate `-log10(1 - p)`; `0 %`, `90 %`, `99 %`…
    pub fn percentile(max_nines: f64) -> Axis {
        let hi = max_nines.ceil().clamp(2.0, 9.0);
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
            title: "percentile (%, log tail scale)".into(),
            log: false,
            scale: 1.0,
            offset: 0.0,
            kind: AxisKind::Percentile,
        }
    }

    /// The percentile axis of a CDF whose right end, `end` nines (a whole number), is the
    /// maximum: every curve's last stretch, its largest sample, runs to that end, whose tick
    /// reads `max` (it is no percentile: a sample count of `n` reaches `log10 n` nines).
    pub fn percentile_to_max(end: f64) -> Axis {
        let mut x = Axis::percentile(end);
        let hi = x.hi;
        x.label = Box::new(move |p| {
            if (p - hi).abs() < 1e-9 {
                "max".into()
            } else {
                percentile_label(p)
            }
        });
        x.title = "percentile (%, log tail scale; right end: max)".into();
        x
    }

    /// The axis as JSON for the page script: range, transform and unit.
    pub(crate) fn json(&self) -> String {
        let kind = match &self.kind {
            AxisKind::Time => "time".to_string(),
            AxisKind::Percentile => "percentile".to_string(),
            AxisKind::Count => "count".to_string(),
            AxisKind::Category => "category".to_string(),
            AxisKind::Plain(u) => format!("plain:{u}"),
        };
        serde_json::json!({
            "lo": self.lo, "hi": self.hi, "log": self.log, "scale": self.scale,
            "offset": self.offset, "kind": kind, "title": self.title,
        })
        .to_string()
    }
}

/// The step between consecutive ticks (1 when there is a single tick).
pub(crate) fn step_of(ticks: &[f64]) -> f64 {
    match ticks {
        [a, b, ..] => (b - a).abs(),
        _ => 1.0,
    }
}

/// `v` with as many decimals as `step` needs: steps of 0.5 give one decimal, 0.02 two.
pub fn fixed(v: f64, step: f64) -> String {
    let d = if step > 0.0 && step < 1.0 {
        (-(step.log10()) - 1e-9).ceil().clamp(0.0, 9.0) as usize
    } else {
        0
    };
    let s = format!("{:.*}", d, v);
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        "0".into()
    } else {
        s
    }
}

/// A round offset in its own unit, with the digits the tick step needs
/// (`41.4 s`, `41.398 s`).
fn offset_text(offset_ns: f64, step_ns: f64) -> String {
    let u = units::unit_for(offset_ns);
    let s = fixed(offset_ns / u.ns, step_ns / u.ns);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} {}", u.symbol)
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
pub(crate) fn log_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>, Vec<f64>) {
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

pub(crate) fn err<E: std::fmt::Display>(chart: &'static str) -> impl Fn(E) -> ReportError {
    move |e| ReportError::Chart {
        chart,
        message: e.to_string(),
    }
}

/// Layout of a chart.
pub(crate) struct Frame<'a> {
    pub(crate) name: &'static str,
    pub(crate) w: u32,
    pub(crate) h: u32,
    pub(crate) x: &'a Axis,
    pub(crate) y: &'a Axis,
    /// Width of the y label area (wider for category names).
    pub(crate) y_area: u32,
    /// Draw the x grid lines (off for bar charts).
    pub(crate) x_grid: bool,
    pub(crate) y_grid: bool,
}

/// Draws the axes of `f` and then the data with `plot`; returns the SVG markup.
pub(crate) fn draw<F>(f: Frame<'_>, plot: F) -> Result<String, ReportError>
where
    F: for<'b, 'c> FnOnce(
        &mut ChartContext<'b, SVGBackend<'c>, Coord>,
    ) -> Result<(), DrawingAreaErrorKind<std::io::Error>>,
{
    let e = err(f.name);
    let mut buf = String::new();
    let plot_px;
    {
        let root = SVGBackend::with_string(&mut buf, (f.w, f.h)).into_drawing_area();
        root.fill(&WHITE).map_err(&e)?;
        // Labels that would run into each other are thinned to every k-th tick, whatever the
        // data's magnitude (a live latency 1000× a published one has long tick labels).
        let plot_w = f64::from(f.w.saturating_sub(8 + 24 + f.y_area));
        let xr = Scale {
            lo: f.x.lo,
            hi: f.x.hi,
            bold: thin_ticks(
                &f.x.ticks,
                |v| (f.x.label)(v).chars().count(),
                plot_w,
                f.x.lo,
                f.x.hi,
            ),
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
        let (xp, yp) = chart.plotting_area().get_pixel_range();
        plot_px = [xp.start, yp.start, xp.end, yp.end];
        plot(&mut chart).map_err(&e)?;
        root.present().map_err(&e)?;
    }
    let svg = tidy_svg(&buf, f.name);
    // The mapping between pixels and values, for the page script and the tests.
    let attrs = format!(
        "<svg data-plot=\"{} {} {} {}\" data-x=\"{}\" data-y=\"{}\" ",
        plot_px[0],
        plot_px[1],
        plot_px[2],
        plot_px[3],
        crate::render::esc(&f.x.json()),
        crate::render::esc(&f.y.json())
    );
    Ok(svg.replacen("<svg ", &attrs, 1))
}

/// Width in pixels taken by one character of an 11.5 px tick label (generous, so that the
/// estimate errs towards fewer labels rather than overlapping ones).
const TICK_CHAR_PX: f64 = 7.0;
/// Free space kept between two neighbouring tick labels, in pixels.
const TICK_GAP_PX: f64 = 10.0;

/// The ticks to label on an axis `plot_w` pixels wide so that no two labels overlap: every
/// k-th tick for the smallest k that fits, phased so that a tick at zero is kept.
pub(crate) fn thin_ticks(
    ticks: &[f64],
    chars: impl Fn(f64) -> usize,
    plot_w: f64,
    lo: f64,
    hi: f64,
) -> Vec<f64> {
    if ticks.len() < 3 || hi <= lo || plot_w <= 0.0 {
        return ticks.to_vec();
    }
    let widest = ticks.iter().map(|&v| chars(v)).max().unwrap_or(1) as f64 * TICK_CHAR_PX;
    let px_per_step = step_of(ticks) / (hi - lo) * plot_w;
    if px_per_step <= 0.0 || !px_per_step.is_finite() {
        return ticks.to_vec();
    }
    let k = ((widest + TICK_GAP_PX) / px_per_step).ceil().max(1.0) as usize;
    if k <= 1 {
        return ticks.to_vec();
    }
    let zero = ticks
        .iter()
        .position(|v| v.abs() < step_of(ticks) * 1e-9)
        .unwrap_or(0);
    ticks
        .iter()
        .enumerate()
        .filter(|(i, _)| i.abs_diff(zero) % k == 0)
        .map(|(_, &v)| v)
        .collect()
}

/// Makes plotters' standalone SVG inline-friendly: no namespace URL (the report must contain
/// no `http(s)://` at all), scalable, labelled for screen readers.
pub(crate) fn tidy_svg(svg: &str, name: &str) -> String {
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    svg.replacen(
        "<svg ",
        &format!("<svg class=\"chart\" data-chart=\"{name}\" role=\"img\" preserveAspectRatio=\"xMidYMid meet\" "),
        1,
    )
}

pub(crate) fn text_style(size: f64, c: &'static RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FONT, px(size)).into_font())
        .color(c)
        .pos(Pos::new(h, v))
}

pub(crate) fn nonempty(b: &[Bucket]) -> impl Iterator<Item = &Bucket> {
    b.iter().filter(|k| k.count > 0.0)
}

pub(crate) fn legend<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    names
        .enumerate()
        .map(|(i, n)| (n.to_string(), css(color(i))))
        .collect()
}

/// A category axis: `labels[0]` at the top, row `i` centred at `n - 1 - i + 0.5`.
pub(crate) fn category_axis(labels: &[String]) -> Axis {
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
    y.kind = AxisKind::Category;
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

pub(crate) fn shorten(s: &str, n: usize) -> String {
    let c: Vec<char> = s.chars().collect();
    if c.len() <= n {
        return s.to_string();
    }
    // Keep the start and the end (names often differ only at their end: "test case 9").
    let tail = (n / 3).max(1);
    let head = n.saturating_sub(tail + 1);
    let h: String = c[..head].iter().collect();
    let t: String = c[c.len() - tail..].iter().collect();
    format!("{h}…{t}")
}

/// Category labels shortened to `n` characters, never two alike.
pub(crate) fn short_labels<'a>(names: impl Iterator<Item = &'a str>, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let mut l = shorten(name, n);
        let mut k = 2;
        while out.contains(&l) {
            l = format!("{} ({k})", shorten(name, n.saturating_sub(4)));
            k += 1;
        }
        out.push(l);
    }
    out
}

mod bars;
mod cdf;
mod deviation;
mod fit;
mod histogram;
mod schedulability;
mod series;
mod slack;
mod sweep;
mod timeline;

pub use bars::{stacked_bars, BarRow, BarScale};
pub use cdf::cdf;
pub use deviation::{deviations, Deviation};
pub use fit::{fit_lines, residuals, FitLine};
pub use histogram::{histogram, histogram_res, jitter_histogram};
pub use schedulability::{schedulability, RatioCurve};
pub use series::{envelope, series_chart, thin, time_series, Line, SeriesOpts, ValueUnit};
pub use slack::{slack, Response, SlackRow};
pub use sweep::sweep;
pub use timeline::{timeline, timeline_at};

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
    fn long_tick_labels_are_thinned_until_they_cannot_touch() {
        // −100k … +100k % in steps of 20k on a 430 px axis (a deviation chart with long row
        // names): "+100k %" labels need ~60 px each, the steps are 43 px apart — every second
        // tick, zero kept.
        let t: Vec<f64> = (-5..=5).map(|i| f64::from(i) * 20_000.0).collect();
        let (lo, hi) = (-100_000.0, 100_000.0);
        let label = |v: f64| format!("{}{} %", if v > 0.0 { "+" } else { "" }, si(v));
        let kept = thin_ticks(&t, |v| label(v).chars().count(), 430.0, lo, hi);
        assert!(kept.len() < t.len(), "{kept:?}");
        assert!(kept.contains(&0.0), "{kept:?}");
        let px = |v: f64| (v - lo) / (hi - lo) * 430.0;
        for w in kept.windows(2) {
            let room = px(w[1]) - px(w[0]);
            let need = (label(w[0]).chars().count() + label(w[1]).chars().count()) as f64 / 2.0
                * TICK_CHAR_PX;
            assert!(room >= need + TICK_GAP_PX, "{w:?}: {room} px < {need} px");
        }
        // Short labels on a wide axis are all kept.
        let (lo, hi, t) = nice_ticks(0.0, 10.0, 6);
        assert_eq!(thin_ticks(&t, |_| 2, 700.0, lo, hi), t);
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
