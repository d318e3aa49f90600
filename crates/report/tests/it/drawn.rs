//! What is drawn, read back from the SVG and checked against the data: a long series keeps
//! its true minimum and maximum (and its baseline) in every pixel column, histogram bars sit
//! on their buckets, the percentile curve runs through the exact percentiles, no axis repeats
//! a tick label, and every axis title names its unit.
//!
//! Each chart's `<svg>` carries `data-plot="x0 y0 x1 y1"` (the plot area in pixels, ends
//! exclusive) and `data-x` / `data-y` (the axis: range in plot coordinates, log or linear,
//! scale and offset in ns); plotters maps the low end of an axis to the first pixel and the
//! high end to the last one, which is what `Map` below does.

use latscope_report::charts::{self, Line, SeriesOpts, ValueUnit};
use latscope_report::data::{Bucket, Stats};
use latscope_report::{render_html, Input, Options};
use latscope_results::summary::{val, DurationSummary};
use serde_json::Value;
use std::path::Path;

/// Pixel ↔ value mapping of one chart, from its own attributes.
struct Map {
    px: [f64; 4],
    x: Value,
    y: Value,
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let j = tag[i..].find('"')? + i;
    Some(&tag[i..j])
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

impl Map {
    fn of(svg: &str) -> Map {
        let head = &svg[..svg.find('>').unwrap()];
        let px: Vec<f64> = attr(head, "data-plot")
            .expect("data-plot")
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        let parse = |n: &str| serde_json::from_str(&unescape(attr(head, n).unwrap())).unwrap();
        Map {
            px: [px[0], px[1], px[2], px[3]],
            x: parse("data-x"),
            y: parse("data-y"),
        }
    }
    fn plot(ax: &Value, v: f64) -> f64 {
        let v = (v - ax["offset"].as_f64().unwrap()) / ax["scale"].as_f64().unwrap();
        if ax["log"].as_bool().unwrap() {
            v.log10()
        } else {
            v
        }
    }
    fn frac(ax: &Value, p: f64) -> f64 {
        let (lo, hi) = (ax["lo"].as_f64().unwrap(), ax["hi"].as_f64().unwrap());
        (p - lo) / (hi - lo)
    }
    /// Pixel x of a value (ns for time axes), or of a plot coordinate when `raw`.
    fn xp(&self, v: f64, raw: bool) -> f64 {
        let p = if raw { v } else { Map::plot(&self.x, v) };
        self.px[0] + Map::frac(&self.x, p) * (self.px[2] - 1.0 - self.px[0])
    }
    fn yp(&self, v: f64) -> f64 {
        let p = Map::plot(&self.y, v);
        (self.px[3] - 1.0) - Map::frac(&self.y, p) * (self.px[3] - 1.0 - self.px[1])
    }
}

/// `(tag, attributes)` of every element named `name`.
fn elements<'a>(svg: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find(&open) {
        let j = rest[i..].find('>').unwrap() + i;
        out.push(&rest[i..=j]);
        rest = &rest[j..];
    }
    out
}

fn colour(tag: &str, which: &str) -> String {
    attr(tag, which).unwrap_or("").to_ascii_uppercase()
}

fn polyline_points(tag: &str) -> Vec<(f64, f64)> {
    attr(tag, "points")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|p| {
            let (a, b) = p.split_once(',')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect()
}

/// Drawn data points (pixels) of the polylines stroked in `stroke`.
fn drawn_line(svg: &str, stroke: &str) -> Vec<(f64, f64)> {
    elements(svg, "polyline")
        .into_iter()
        .filter(|t| colour(t, "stroke") == stroke)
        .flat_map(polyline_points)
        .collect()
}

const BLUE: &str = "#2563EB";

/// A FreeRTOS-like tick series: 1 ms ticks for 250 s; 1.643 µs when no task is released,
/// longer when some are, and 60.71 µs at every 41.4 s hyperperiod (six peaks).
fn tick_series() -> (Vec<(f64, f64)>, Vec<f64>) {
    let mut pts = Vec::with_capacity(250_000);
    let mut peaks = Vec::new();
    for k in 1..250_000u64 {
        let t = k as f64 * 1e6;
        let v = if k % 41_400 == 0 {
            peaks.push(t);
            60_712.857
        } else if k % 100 == 0 {
            43_007.0
        } else if k % 5 == 0 {
            7_552.0
        } else {
            1_642.857
        };
        pts.push((t, v));
    }
    (pts, peaks)
}

fn series_svg(pts: &[(f64, f64)]) -> String {
    let o = SeriesOpts::new("tick duration", ValueUnit::Time);
    let chart = charts::series_chart(
        &[Line {
            name: "tick".into(),
            points: pts.to_vec(),
        }],
        &o,
    )
    .unwrap()
    .unwrap();
    chart.svg
}

#[test]
fn long_series_keeps_min_max_and_baseline_of_every_pixel_column() {
    let (pts, peaks) = tick_series();
    assert_eq!(peaks.len(), 6, "six hyperperiods of 41.4 s inside 250 s");
    let svg = series_svg(&pts);
    let m = Map::of(&svg);
    let drawn = drawn_line(&svg, BLUE);
    assert!(!drawn.is_empty(), "a line is drawn");
    let (tmin, tmax) = (1_642.857, 60_712.857);
    let ys: Vec<f64> = drawn.iter().map(|p| p.1).collect();
    let top = ys.iter().copied().fold(f64::INFINITY, f64::min);
    let bottom = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // The drawn y range covers the true min and max within one pixel.
    assert!(
        (top - m.yp(tmax)).abs() <= 1.0,
        "max drawn at {top}, true max at {}",
        m.yp(tmax)
    );
    assert!(
        (bottom - m.yp(tmin)).abs() <= 1.0,
        "min drawn at {bottom}, true min at {}",
        m.yp(tmin)
    );
    // Every peak is drawn at its height where it happened.
    for t in &peaks {
        let x = m.xp(*t, false);
        assert!(
            drawn
                .iter()
                .any(|p| (p.0 - x).abs() <= 1.0 && (p.1 - m.yp(tmax)).abs() <= 1.0),
            "peak at {t} ns not drawn at x {x}"
        );
    }
    // The 1.643 µs baseline is drawn in every pixel column of the series.
    let (x0, x1) = (
        m.xp(pts[0].0, false).ceil(),
        m.xp(pts[pts.len() - 1].0, false).floor(),
    );
    let base = m.yp(tmin);
    let mut missing = Vec::new();
    let mut x = x0;
    while x <= x1 {
        if !drawn
            .iter()
            .any(|p| (p.0 - x).abs() <= 1.0 && (p.1 - base).abs() <= 1.0)
        {
            missing.push(x);
        }
        x += 1.0;
    }
    assert!(
        missing.is_empty(),
        "baseline missing in {} columns, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
}

#[test]
fn histogram_bars_are_centred_on_their_buckets() {
    // Linear axis (values within 30×) and log axis (wider).
    for buckets in [
        vec![
            (1_642.0, 2_824.0, 175_361.0),
            (6_370.0, 7_552.0, 39_857.0),
            (12_280.0, 13_462.0, 13_140.0),
            (42_991.0, 44_173.0, 2_000.0),
            (59_700.0, 60_713.0, 6.0),
        ],
        vec![
            (900.0, 1_000.0, 3.0),
            (1_000.0, 2_000.0, 500.0),
            (20_000.0, 30_000.0, 9.0),
            (500_000.0, 1_000_000.0, 1.0),
        ],
    ] {
        let b: Vec<Bucket> = buckets
            .iter()
            .map(|&(low, high, count)| Bucket { low, high, count })
            .collect();
        let chart = charts::histogram(&[("set".to_string(), b.clone())], "latency")
            .unwrap()
            .unwrap();
        let m = Map::of(&chart.svg);
        let bars: Vec<(f64, f64)> = elements(&chart.svg, "rect")
            .into_iter()
            .filter(|t| colour(t, "fill") == BLUE)
            .map(|t| {
                let x: f64 = attr(t, "x").unwrap().parse().unwrap();
                let w: f64 = attr(t, "width").unwrap().parse().unwrap();
                (x, x + w)
            })
            .collect();
        assert_eq!(bars.len(), b.len(), "one bar per bucket");
        for k in &b {
            // The bucket's centre on the chosen scale (geometric on a log axis).
            let lo = Map::plot(&m.x, k.low);
            let hi = Map::plot(&m.x, k.high);
            let centre = m.xp((lo + hi) / 2.0, true);
            assert!(
                bars.iter()
                    .any(|(a, z)| ((a + z) / 2.0 - centre).abs() <= 1.0),
                "no bar centred at {centre} for [{}, {}): bars {bars:?}",
                k.low,
                k.high
            );
        }
    }
}

#[test]
fn percentile_curve_passes_through_every_exact_percentile() {
    // The FreeRTOS tick measurement: 70 % of the ticks at exactly 1.643 µs.
    let b: Vec<Bucket> = [
        (1_642.0, 2_824.0, 175_361.0),
        (6_370.0, 7_552.0, 39_857.0),
        (12_280.0, 13_462.0, 13_140.0),
        (18_190.0, 19_372.0, 8_000.0),
        (42_991.0, 44_173.0, 12_000.0),
        (48_898.0, 50_080.0, 1_635.0),
        (59_700.0, 60_713.0, 6.0),
    ]
    .iter()
    .map(|&(low, high, count)| Bucket { low, high, count })
    .collect();
    let stats = Stats::from(DurationSummary {
        count: 249_999,
        min_ns: val(1_642.857),
        p50_ns: val(1_642.857),
        p90_ns: val(13_456.857),
        p99_ns: val(44_000.0),
        p999_ns: val(48_898.857),
        max_ns: val(60_712.857),
        ..DurationSummary::default()
    });
    let chart = charts::cdf(&[("tick".into(), b, Some(stats))], "tick")
        .unwrap()
        .unwrap();
    let curve = drawn_line(&chart.svg, BLUE);
    let dots: Vec<(f64, f64)> = elements(&chart.svg, "circle")
        .into_iter()
        .filter(|t| colour(t, "fill") == BLUE)
        .map(|t| {
            (
                attr(t, "cx").unwrap().parse().unwrap(),
                attr(t, "cy").unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(dots.len(), 5, "p50, p90, p99, p99.9 and the max");
    let dist = |p: (f64, f64)| {
        curve
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0], w[1]);
                let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                let l2 = dx * dx + dy * dy;
                let t = if l2 == 0.0 {
                    0.0
                } else {
                    (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / l2).clamp(0.0, 1.0)
                };
                ((a.0 + t * dx - p.0).powi(2) + (a.1 + t * dy - p.1).powi(2)).sqrt()
            })
            .fold(f64::INFINITY, f64::min)
    };
    for d in dots {
        assert!(dist(d) <= 1.0, "dot {d:?} is {} px from the curve", dist(d));
    }
}

fn fixture(name: &str) -> Input {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    Input::parse(name, &std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every `<svg>` of a page.
fn svgs(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find("<svg ") {
        let end = rest[i..].find("</svg>").unwrap() + i + 6;
        if rest[i..end].contains("data-plot=") {
            out.push(rest[i..end].to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// `(x, y, text)` of every text element.
fn texts(svg: &str) -> Vec<(f64, f64, String)> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text ") {
        let j = rest[i..].find('>').unwrap() + i;
        let k = rest[j..].find("</text>").unwrap() + j;
        let tag = &rest[i..=j];
        let x = attr(tag, "x").and_then(|v| v.parse().ok()).unwrap_or(0.0);
        let y = attr(tag, "y").and_then(|v| v.parse().ok()).unwrap_or(0.0);
        out.push((x, y, unescape(rest[j + 1..k].trim())));
        rest = &rest[k..];
    }
    out
}

/// Pages with every chart kind, plus time axes far from zero (a 3 ms window at 41.4 s).
fn all_charts() -> Vec<String> {
    let mut pages = vec![render_html(
        &[
            fixture("measure.json"),
            fixture("measure-b.json"),
            fixture("trace.json"),
            fixture("analyze.json"),
            fixture("simulate.json"),
            fixture("tick-series.csv"),
            fixture("simulate.perfetto.json"),
            fixture("scenario.json"),
        ],
        &Options::default(),
    )
    .unwrap()];
    let tracks = vec![
        ("TICK_ISR".to_string(), vec![(41.4e9, 41.4e9 + 60_713.0)]),
        (
            "task_A".to_string(),
            vec![(41.4e9 + 70_000.0, 41.4e9 + 270_000.0)],
        ),
    ];
    let tl = charts::timeline(&tracks, (41.399e9, 41.402e9), Some((41.4e9, "peak".into())))
        .unwrap()
        .unwrap();
    pages.push(tl.svg);
    let (pts, _) = tick_series();
    let late: Vec<(f64, f64)> = pts
        .iter()
        .filter(|p| p.0 >= 41.398e9 && p.0 <= 41.406e9)
        .copied()
        .collect();
    pages.push(series_svg(&late));
    pages.iter().flat_map(|p| svgs(p)).collect()
}

#[test]
fn no_axis_repeats_a_tick_label() {
    let charts = all_charts();
    assert!(charts.len() >= 12, "{} charts", charts.len());
    for svg in &charts {
        let m = Map::of(svg);
        let t = texts(svg);
        // x tick labels sit just under the plot, y tick labels left of it.
        let x_labels: Vec<&String> = t
            .iter()
            .filter(|(_, y, s)| *y > m.px[3] && *y < m.px[3] + 30.0 && !s.is_empty())
            .map(|(_, _, s)| s)
            .collect();
        let y_labels: Vec<&String> = t
            .iter()
            .filter(|(x, y, s)| {
                *x < m.px[0] && *y >= m.px[1] - 8.0 && *y <= m.px[3] + 8.0 && !s.is_empty()
            })
            .map(|(_, _, s)| s)
            .collect();
        for (axis, labels) in [("x", x_labels), ("y", y_labels)] {
            let mut seen = std::collections::HashSet::new();
            for l in &labels {
                assert!(
                    seen.insert(l.as_str()),
                    "{axis} axis repeats the label {l:?}: {labels:?} in {}",
                    &svg[..200]
                );
            }
        }
    }
}

#[test]
fn every_axis_title_names_its_unit() {
    let units = [
        "(ns",
        "(µs",
        "(ms",
        "(s)",
        "s + ",
        "(%",
        "(time",
        "(count",
        "(instances",
    ];
    for svg in all_charts() {
        let m = Map::of(&svg);
        let drawn: Vec<String> = texts(&svg).into_iter().map(|t| t.2).collect();
        for ax in [&m.x, &m.y] {
            if ax["kind"] == "category" {
                continue;
            }
            let title = ax["title"].as_str().unwrap();
            assert!(
                units.iter().any(|u| title.contains(u)),
                "axis title without a unit: {title:?}"
            );
            assert!(
                drawn.iter().any(|d| d == title),
                "title {title:?} is not drawn: {drawn:?}"
            );
            assert!(!title.contains("us)"), "{title:?}: µs is the unit style");
        }
    }
}

#[test]
fn time_axes_far_from_zero_read_offset_plus_relative() {
    let tracks = vec![("TICK_ISR".to_string(), vec![(41.4e9, 41.4e9 + 60_713.0)])];
    let tl = charts::timeline(&tracks, (41.399e9, 41.405e9), None)
        .unwrap()
        .unwrap();
    let t = texts(&tl.svg);
    assert!(
        t.iter().any(|s| s.2 == "time since start (41.399 s + ms)"),
        "{t:?}"
    );
    assert!(t.iter().any(|s| s.2 == "TICK_ISR"), "names as given: {t:?}");
    for want in ["0", "1", "2", "3", "4", "5", "6"] {
        assert!(t.iter().any(|s| s.2 == want), "tick {want}: {t:?}");
    }
}

/// A result whose maximum is far out: 9 999 samples below 500 µs, one at 50 ms. The curve's
/// last drawn point (its rightmost end) is the maximum — on the chart's own value axis,
/// computed from the axis the SVG declares — and sits at the axis end, which is labelled
/// "max"; the page data's last step is the maximum too.
#[test]
fn percentile_curve_ends_at_the_maximum() {
    let max = 50_000_000.0;
    let mut b: Vec<Bucket> = (0..10)
        .map(|i| {
            let low = 40_000.0 + 45_000.0 * f64::from(i);
            Bucket {
                low,
                high: low + 45_000.0,
                count: if i == 9 { 999.0 } else { 1_000.0 },
            }
        })
        .collect();
    b.push(Bucket {
        low: 49_000_000.0,
        high: 51_000_000.0,
        count: 1.0,
    });
    let stats = Stats::from(DurationSummary {
        count: 10_000,
        min_ns: val(40_000.0),
        p50_ns: val(265_000.0),
        p90_ns: val(445_000.0),
        p99_ns: val(480_000.0),
        p999_ns: val(484_000.0),
        p9999_ns: val(484_900.0),
        max_ns: val(max),
        ..DurationSummary::default()
    });
    let chart = charts::cdf(&[("load".into(), b, Some(stats))], "wake-up latency")
        .unwrap()
        .unwrap();
    let m = Map::of(&chart.svg);
    let curve = drawn_line(&chart.svg, BLUE);
    let last = *curve
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .expect("a drawn curve");
    let (ylo, yhi) = (m.y["lo"].as_f64().unwrap(), m.y["hi"].as_f64().unwrap());
    let at = Map::plot(&m.y, max);
    assert!(
        at >= ylo - 1e-9 && at <= yhi + 1e-9,
        "the value axis [{ylo}, {yhi}] leaves out the maximum ({at})"
    );
    assert!(
        (last.1 - m.yp(max)).abs() <= 1.0,
        "the curve ends at y = {} px, the maximum is at {} px",
        last.1,
        m.yp(max)
    );
    let x_end = m.x["hi"].as_f64().unwrap();
    assert!(
        (last.0 - m.xp(x_end, true)).abs() <= 1.0,
        "the curve ends at x = {} px, not at the axis end {} px",
        last.0,
        m.xp(x_end, true)
    );
    assert!(
        texts(&chart.svg).iter().any(|t| t.2 == "max"),
        "the axis end is labelled max"
    );
    let data: Value = serde_json::from_str(chart.data.as_deref().unwrap()).unwrap();
    let steps = data["sets"][0]["steps"].as_array().unwrap();
    let tail = steps.last().unwrap();
    assert_eq!(tail[2].as_f64(), Some(max), "the page data's last step");
    assert_eq!(tail[1].as_f64(), Some(x_end));
}
