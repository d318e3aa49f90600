//! The pages that answer first, read back from what is drawn (issue 26, items 2 and 4):
//! analyze's slack per task (each response bar and deadline tick where the result puts
//! them), a scenario's own verdict and the predictions it compared, a fit's lines over
//! its samples. The fixtures are results the commands wrote (`analyze.json` from
//! examples/system.toml, `analyze-miss.json` from `analyze-miss.toml`, `scenario.json`
//! and `scenario-k4perf.json` from `scenario run freertos-tick|k4perf --quick`,
//! `fit.json` from `fit examples/ticks.csv --target tick`).

use latscope_report::{render_html, render_markdown, Input, Options};
use serde_json::Value;
use std::path::Path;

fn text_of(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn fixture(name: &str) -> Input {
    Input::parse(name, &text_of(name)).unwrap()
}

fn json(name: &str) -> Value {
    serde_json::from_str(&text_of(name)).unwrap()
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let j = tag[i..].find('"')? + i;
    Some(&tag[i..j])
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name).unwrap().parse().unwrap()
}

/// The `<svg>` of the chart named `name` on a page.
fn chart(page: &str, name: &str) -> Option<String> {
    let key = format!("data-chart=\"{name}\"");
    let at = page.find(&key)?;
    let start = page[..at].rfind("<svg ")?;
    let end = page[at..].find("</svg>")? + at + 6;
    Some(page[start..end].to_string())
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

fn points(tag: &str) -> Vec<(f64, f64)> {
    attr(tag, "points")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|p| {
            let (a, b) = p.split_once(',')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect()
}

/// Pixel ↔ value of one axis of a chart, from its `data-plot` and `data-x`/`data-y`.
struct Axis {
    lo_px: f64,
    hi_px: f64,
    ax: Value,
}

impl Axis {
    fn of(svg: &str, which: &str) -> Axis {
        let head = &svg[..svg.find('>').unwrap()];
        let px: Vec<f64> = attr(head, "data-plot")
            .unwrap()
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        let ax: Value =
            serde_json::from_str(&attr(head, which).unwrap().replace("&quot;", "\"")).unwrap();
        let (lo_px, hi_px) = if which == "data-x" {
            (px[0], px[2] - 1.0)
        } else {
            (px[3] - 1.0, px[1])
        };
        Axis { lo_px, hi_px, ax }
    }
    /// The pixel of a value (ns for a time axis).
    fn px(&self, v: f64) -> f64 {
        let f = |k: &str| self.ax[k].as_f64().unwrap();
        let mut p = (v - f("offset")) / f("scale");
        if self.ax["log"].as_bool().unwrap() {
            p = p.log10();
        }
        self.lo_px + (p - f("lo")) / (f("hi") - f("lo")) * (self.hi_px - self.lo_px)
    }
}

const INK: &str = "#222222";
const ALERT: &str = "#DC2626";

/// A bar: pixel x of its right end, pixel y of its middle, its fill.
type Bar = (f64, f64, String);

/// Bars (filled rectangles in a data colour) and deadline ticks (vertical ink lines) of a
/// slack chart, each as (pixel x of its right end / of the tick, pixel y of its middle),
/// top to bottom.
fn slack_marks(svg: &str) -> (Vec<Bar>, Vec<(f64, f64)>) {
    let mut bars: Vec<Bar> = elements(svg, "rect")
        .into_iter()
        .filter(|t| {
            let f = attr(t, "fill").unwrap_or("").to_ascii_uppercase();
            f.starts_with('#') && f != "#FFFFFF"
        })
        .map(|t| {
            (
                num(t, "x") + num(t, "width"),
                num(t, "y") + num(t, "height") / 2.0,
                attr(t, "fill").unwrap().to_ascii_uppercase(),
            )
        })
        .collect();
    bars.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut ticks: Vec<(f64, f64)> = elements(svg, "polyline")
        .into_iter()
        .filter(|t| attr(t, "stroke").unwrap_or("").eq_ignore_ascii_case(INK))
        .map(points)
        .filter(|p| p.len() == 2 && (p[0].0 - p[1].0).abs() < 0.5)
        .map(|p| (p[0].0, (p[0].1 + p[1].1) / 2.0))
        .collect();
    ticks.sort_by(|a, b| a.1.total_cmp(&b.1));
    (bars, ticks)
}

#[test]
fn analyze_draws_each_response_against_its_deadline() {
    let page = render_html(&[fixture("analyze.json")], &Options::default()).unwrap();
    let svg = chart(&page, "slack").expect("a slack chart");
    let x = Axis::of(&svg, "data-x");
    let (bars, ticks) = slack_marks(&svg);
    let doc = json("analyze.json");
    let tasks = doc["tasks"].as_array().unwrap();
    // One tick mode drawn (both give the same responses here): a bar and a tick per task,
    // in the result's order, top to bottom.
    assert_eq!(bars.len(), tasks.len(), "{bars:?}");
    assert_eq!(ticks.len(), tasks.len(), "deadline ticks: {ticks:?}");
    for (i, t) in tasks.iter().enumerate() {
        let wcrt = t["wcrt_ns"].as_f64().unwrap();
        let dl = t["deadline_ns"].as_f64().unwrap();
        assert!(
            (bars[i].0 - x.px(wcrt)).abs() <= 1.0,
            "{}: bar ends at {} px, its WCRT is at {} px",
            t["name"],
            bars[i].0,
            x.px(wcrt)
        );
        assert!(
            (ticks[i].0 - x.px(dl)).abs() <= 1.5,
            "{}: deadline tick at {} px, the deadline is at {} px",
            t["name"],
            ticks[i].0,
            x.px(dl)
        );
        // Bar and tick on the same row.
        assert!((bars[i].1 - ticks[i].1).abs() < 20.0);
    }
    // The critical task, named at the top: the least slack.
    let least = tasks
        .iter()
        .min_by(|a, b| {
            a["slack_ns"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["slack_ns"].as_f64().unwrap())
        })
        .unwrap();
    // The first screen (the verdict and the worst case, before the first chart) names it.
    let first = &page[page.find("class=\"verdict").unwrap()..];
    let first = &first[..first.find("<svg").unwrap_or(first.len())];
    assert!(
        first.contains(&format!("task {}", least["name"].as_str().unwrap()))
            && first.contains("critical task: least slack"),
        "{first}"
    );
}

#[test]
fn a_miss_and_an_unbounded_task_are_drawn_as_such() {
    let page = render_html(&[fixture("analyze-miss.json")], &Options::default()).unwrap();
    let svg = chart(&page, "slack").expect("a slack chart");
    let x = Axis::of(&svg, "data-x");
    let (bars, ticks) = slack_marks(&svg);
    let doc = json("analyze-miss.json");
    let tasks = doc["tasks"].as_array().unwrap();
    assert_eq!(bars.len(), tasks.len());
    assert_eq!(ticks.len(), tasks.len());
    let texts = svg.replace("&gt;", ">");
    for (i, t) in tasks.iter().enumerate() {
        let dl = t["deadline_ns"].as_f64().unwrap();
        assert!((ticks[i].0 - x.px(dl)).abs() <= 1.5, "{}", t["name"]);
        match (t["wcrt_ns"].as_f64(), t["wcrt_above_ns"].as_f64()) {
            (Some(w), _) => {
                assert!((bars[i].0 - x.px(w)).abs() <= 1.0, "{}", t["name"]);
                assert_ne!(bars[i].2, ALERT, "{} meets its deadline", t["name"]);
            }
            (None, Some(d)) => {
                // Stopped past D: the bar runs to D, red, and says so.
                assert!((bars[i].0 - x.px(d)).abs() <= 1.0, "{}", t["name"]);
                assert_eq!(bars[i].2, ALERT);
                assert!(texts.contains(&format!(
                    "unbounded past {}",
                    latscope_report::units::dur(d)
                )));
            }
            (None, None) => {
                // No bound at all: red to the axis' end.
                assert_eq!(bars[i].2, ALERT);
                assert!(bars[i].0 >= x.px(dl), "{}", t["name"]);
            }
        }
    }
    // The first miss (highest priority first) is named at the top.
    let first = tasks
        .iter()
        .find(|t| !t["schedulable"].as_bool().unwrap())
        .unwrap();
    assert!(page.contains(&format!(
        "first miss: {}, unbounded past",
        first["name"].as_str().unwrap()
    )));
}

#[test]
fn both_tick_modes_are_drawn_where_they_differ() {
    // The analysis embedded in the freertos-tick scenario: pessimistic and partitioned
    // ticks give different responses.
    let s = json("scenario.json");
    let a = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "analyze")
        .unwrap()
        .clone();
    let input = Input::parse("a.json", &a.to_string()).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    let svg = chart(&page, "slack").unwrap();
    let x = Axis::of(&svg, "data-x");
    let (bars, ticks) = slack_marks(&svg);
    let modes = &a["tick_modes"];
    let pess = modes["pessimistic"].as_array().unwrap();
    let part = modes["partitioned"].as_array().unwrap();
    assert_eq!(bars.len(), 2 * pess.len());
    assert_eq!(ticks.len(), pess.len());
    for (i, (p, q)) in pess.iter().zip(part).enumerate() {
        assert_eq!(p["name"], q["name"]);
        for (k, t) in [p, q].into_iter().enumerate() {
            let w = t["wcrt_ns"].as_f64().unwrap();
            assert!(
                (bars[2 * i + k].0 - x.px(w)).abs() <= 1.0,
                "{} mode {k}",
                t["name"]
            );
        }
    }
}

/// The verdict line after the heading "Published against latscope" (not its entry in
/// the contents).
fn published_verdict(page: &str) -> (String, String) {
    let at = page.find(">Published against latscope</h").unwrap();
    let v = &page[at..];
    let v = &v[v.find("class=\"verdict ").unwrap() + 15..];
    let tone = v[..v.find('"').unwrap()].to_string();
    let v = &v[v.find('>').unwrap() + 1..];
    (tone, v[..v.find('<').unwrap()].to_string())
}

#[test]
fn a_scenario_page_shows_the_scenarios_own_verdict() {
    for name in ["scenario.json", "scenario-k4perf.json"] {
        let doc = json(name);
        let p = &doc["predictions"];
        let t = &doc["summary"];
        let page = render_html(&[fixture(name)], &Options::default()).unwrap();
        let (tone, line) = published_verdict(&page);
        // The counts are the scenario's genuine predictions, never the table's rows.
        assert!(
            line.starts_with(&format!(
                "{} of {} predictions within tolerance; {} outside",
                p["within"], p["genuine"], p["outside"]
            )),
            "{name}: {line}"
        );
        assert!(line.contains(&format!("{} not compared", t["not_compared"])));
        let unexplained = doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["verdict"] == "outside")
            .count();
        let want = match (unexplained, p["outside"].as_u64().unwrap()) {
            (0, 0) => "good",
            (0, _) => "warn",
            _ => "bad",
        };
        assert_eq!(tone, want, "{name}");
        // The Markdown says the same.
        let md = render_markdown(&[fixture(name)], &Options::default()).unwrap();
        assert!(md.contains(&line), "{name}: the Markdown verdict differs");
        // Only the compared predictions are on the deviation chart, in their own colour.
        let svg = chart(&page, "deviation").unwrap();
        let compared: Vec<&Value> = doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                ["within", "outside", "outside (explained)"]
                    .contains(&r["verdict"].as_str().unwrap())
            })
            .collect();
        let dots: Vec<&str> = elements(&svg, "circle");
        assert_eq!(dots.len(), compared.len(), "{name}");
        let x = Axis::of(&svg, "data-x");
        let lim = compared
            .iter()
            .map(|r| {
                r["deviation"]
                    .as_f64()
                    .unwrap()
                    .abs()
                    .max(r["tolerance"].as_f64().unwrap_or(0.0))
            })
            .fold(0.05, f64::max)
            * 100.0;
        // The axis reaches the largest compared deviation and not much further (a row
        // that was not compared does not stretch it).
        let hi = x.ax["hi"].as_f64().unwrap();
        assert!(
            hi >= lim && hi <= lim * 2.0,
            "{name}: axis to {hi} %, rows to {lim} %"
        );
        for (dot, r) in dots.iter().zip(&compared) {
            let green = attr(dot, "fill").unwrap().eq_ignore_ascii_case("#16A34A");
            assert_eq!(green, r["verdict"] == "within", "{name}: {}", r["figure"]);
        }
    }
}

#[test]
fn a_fit_draws_its_lines_over_its_samples() {
    let doc = json("fit.json");
    let page = render_html(&[fixture("fit.json")], &Options::default()).unwrap();
    let svg = chart(&page, "fit").expect("a fit chart");
    let x = Axis::of(&svg, "data-x");
    let y = Axis::of(&svg, "data-y");
    let (xlo, xhi) = (x.ax["lo"].as_f64().unwrap(), x.ax["hi"].as_f64().unwrap());
    for (key, stroke) in [("least_squares", "#2563EB"), ("upper_bound", ALERT)] {
        let l = &doc[key];
        let (b, m) = (
            l["intercept_ns"].as_f64().unwrap(),
            l["slope_ns"].as_f64().unwrap(),
        );
        let line: Vec<(f64, f64)> = elements(&svg, "polyline")
            .into_iter()
            .filter(|t| attr(t, "stroke").unwrap_or("").eq_ignore_ascii_case(stroke))
            .flat_map(points)
            .collect();
        assert_eq!(line.len(), 2, "{key}: {line:?}");
        for (p, xv) in line.iter().zip([xlo, xhi]) {
            assert!((p.0 - x.px(xv)).abs() <= 1.0, "{key}: x {p:?}");
            assert!(
                (p.1 - y.px(b + m * xv)).abs() <= 1.0,
                "{key} at x = {xv}: drawn at {} px, the line is at {} px",
                p.1,
                y.px(b + m * xv)
            );
        }
    }
    // Every sample carried is drawn, and the residuals beside them.
    let n = doc["points"].as_array().unwrap().len();
    assert_eq!(elements(&svg, "circle").len(), n);
    let res = chart(&page, "residuals").expect("a residual chart");
    assert_eq!(elements(&res, "circle").len(), n);
}
