//! The schedulability-ratio chart of a sweep, read back from the SVG: every point sits at
//! its utilisation and at `schedulable / sets` of its configuration, in that
//! configuration's colour, and the axes name their units.

use latscope_report::{render_html, Input, Kind, Options};
use serde_json::{json, Value};

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

/// Plot area and the axes' value ranges, from the chart's own attributes; pixel → value.
struct Map {
    px: [f64; 4],
    x: Value,
    y: Value,
}

impl Map {
    fn of(svg: &str) -> Map {
        let head = &svg[..svg.find('>').unwrap()];
        let px: Vec<f64> = attr(head, "data-plot")
            .unwrap()
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
    fn range(ax: &Value) -> (f64, f64) {
        (ax["lo"].as_f64().unwrap(), ax["hi"].as_f64().unwrap())
    }
    /// The value at pixel `(cx, cy)`.
    fn value(&self, cx: f64, cy: f64) -> (f64, f64) {
        let (xl, xh) = Map::range(&self.x);
        let (yl, yh) = Map::range(&self.y);
        let fx = (cx - self.px[0]) / (self.px[2] - 1.0 - self.px[0]);
        let fy = ((self.px[3] - 1.0) - cy) / (self.px[3] - 1.0 - self.px[1]);
        (xl + fx * (xh - xl), yl + fy * (yh - yl))
    }
    /// One pixel in value units (x, y).
    fn pixel(&self) -> (f64, f64) {
        let (xl, xh) = Map::range(&self.x);
        let (yl, yh) = Map::range(&self.y);
        (
            (xh - xl) / (self.px[2] - 1.0 - self.px[0]),
            (yh - yl) / (self.px[3] - 1.0 - self.px[1]),
        )
    }
}

/// Two configurations with counts that give uneven ratios (not a multiple of the grid).
fn doc() -> Value {
    json!({"kind": "sweep", "schema_version": 1, "curves": [
        {"config": "kernel.tick_hz=100", "points": [
            {"utilisation": 0.5, "sets": 30, "schedulable": 29},
            {"utilisation": 0.65, "sets": 30, "schedulable": 17},
            {"utilisation": 0.8, "sets": 30, "schedulable": 4},
            {"utilisation": 0.95, "sets": 30, "schedulable": 0}]},
        {"config": "kernel.tick_hz=1000", "points": [
            {"utilisation": 0.5, "sets": 7, "schedulable": 7},
            {"utilisation": 0.65, "sets": 7, "schedulable": 6},
            {"utilisation": 0.8, "sets": 7, "schedulable": 3},
            {"utilisation": 0.95, "sets": 7, "schedulable": 1}]}
    ]})
}

#[test]
fn every_point_sits_at_its_ratio() {
    let d = doc();
    let page = render_html(
        &[Input::new("sweep.csv", Kind::Sweep, d.clone())],
        &Options::default(),
    )
    .unwrap();
    let start = page
        .find("<svg aria-label=\"Schedulability ratio\"")
        .expect("chart drawn");
    let svg = &page[start..start + page[start..].find("</svg>").unwrap()];
    let map = Map::of(svg);
    assert!(map.x["title"].as_str().unwrap().contains("(%)"));
    assert!(map.y["title"].as_str().unwrap().contains("(%)"));
    let (px, py) = map.pixel();
    let palette = ["#2563EB", "#EA580C"];
    for (ci, c) in d["curves"].as_array().unwrap().iter().enumerate() {
        let circles: Vec<(f64, f64)> = elements(svg, "circle")
            .into_iter()
            .filter(|t| {
                attr(t, "fill")
                    .unwrap_or("")
                    .eq_ignore_ascii_case(palette[ci])
            })
            .map(|t| {
                let cx: f64 = attr(t, "cx").unwrap().parse().unwrap();
                let cy: f64 = attr(t, "cy").unwrap().parse().unwrap();
                map.value(cx, cy)
            })
            .collect();
        let pts = c["points"].as_array().unwrap();
        assert_eq!(circles.len(), pts.len(), "{}", c["config"]);
        for (p, (x, y)) in pts.iter().zip(&circles) {
            let u = p["utilisation"].as_f64().unwrap() * 100.0;
            let r = 100.0 * p["schedulable"].as_f64().unwrap() / p["sets"].as_f64().unwrap();
            assert!((x - u).abs() <= 1.5 * px, "{}: x {x} for {u}", c["config"]);
            assert!(
                (y - r).abs() <= 1.5 * py,
                "{}: y {y} for ratio {r}",
                c["config"]
            );
        }
    }
    // The table gives the same ratios with their counts.
    assert!(page.contains("56.7 % (17/30)"), "table row missing");
    assert!(page.contains("kernel.tick_hz=1000"));
}
