//! Report rendering against fixture results written to the commands' JSON contracts
//! (issues 2–6): every chart type appears with plotted data, axes carry units, the page is
//! self-contained, and bad input is a clear error naming the file.

use latscope_report::{render_html, render_markdown, Input, Kind, Options};
use std::path::Path;

fn fixture(name: &str) -> Input {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("fixture readable");
    Input::parse(name, &text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn html(names: &[&str]) -> String {
    let inputs: Vec<Input> = names.iter().map(|n| fixture(n)).collect();
    render_html(&inputs, &Options::default()).expect("renders")
}

/// The `<svg …>…</svg>` elements of a page, with their `data-chart` name.
fn charts(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find("<svg ") {
        let end = rest[i..].find("</svg>").expect("closed svg") + i + 6;
        let svg = &rest[i..end];
        let name = svg
            .split("data-chart=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("")
            .to_string();
        out.push((name, svg.to_string()));
        rest = &rest[end..];
    }
    out
}

/// Elements drawn in a chromatic colour: data (axes, grid and labels are pure greys).
fn plotted(svg: &str) -> usize {
    let mut n = 0;
    for tag in svg.split('<').skip(1) {
        let is_shape = ["rect", "path", "polyline", "polygon", "circle", "line"]
            .iter()
            .any(|t| tag.starts_with(&format!("{t} ")));
        if !is_shape {
            continue;
        }
        for attr in ["fill=\"#", "stroke=\"#"] {
            if let Some(p) = tag.find(attr) {
                let hex = &tag[p + attr.len()..p + attr.len() + 6];
                let (r, g, b) = (&hex[0..2], &hex[2..4], &hex[4..6]);
                if !(r == g && g == b) {
                    n += 1;
                    break;
                }
            }
        }
    }
    n
}

fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1).and_then(|s| s.split('<').next()))
        .map(|s| s.trim().to_string())
        .collect()
}

#[test]
fn every_chart_type_renders_with_data() {
    let page = html(&[
        "measure.json",
        "measure-b.json",
        "trace.json",
        "analyze.json",
        "simulate.json",
        "tick-series.csv",
        "simulate.perfetto.json",
        "scenario.json",
    ]);
    let cs = charts(&page);
    for kind in [
        "histogram",
        "cdf",
        "series",
        "sweep",
        "breakdown",
        "split",
        "timeline",
        "deviation",
    ] {
        let of_kind: Vec<&(String, String)> = cs.iter().filter(|c| c.0 == kind).collect();
        assert!(!of_kind.is_empty(), "no {kind} chart in the report");
        for (_, svg) in of_kind {
            assert!(plotted(svg) > 0, "{kind} chart has no plotted element");
        }
    }
    for (name, svg) in &cs {
        assert!(plotted(svg) > 0, "empty {name} chart");
    }
}

#[test]
fn axes_carry_units() {
    let page = html(&[
        "measure.json",
        "trace.json",
        "analyze.json",
        "simulate.json",
        "tick-series.csv",
    ]);
    let unit = |s: &str| {
        ["ns", "µs", "ms", " s", "%", "(s)"]
            .iter()
            .any(|u| s.contains(u))
    };
    for (name, svg) in charts(&page) {
        let t = texts(&svg);
        match name.as_str() {
            "histogram" => {
                assert!(t.iter().any(|s| s == "count (log scale)"), "{t:?}");
                assert!(
                    t.iter().any(|s| s.ends_with(" µs") || s.ends_with(" ms")),
                    "{t:?}"
                );
            }
            "cdf" => {
                assert!(t.iter().any(|s| s == "99 %"), "{t:?}");
                assert!(
                    t.iter()
                        .any(|s| s.contains("(log scale)") || s.contains("(µs)")),
                    "{t:?}"
                );
            }
            "series" => assert!(t.iter().any(|s| s == "time since start (ms)"), "{t:?}"),
            "sweep" => assert!(t.iter().any(|s| s == "sleep length (log scale)"), "{t:?}"),
            "breakdown" => assert!(
                t.iter().any(|s| s == "worst-case response time (ms)"),
                "{t:?}"
            ),
            _ => {}
        }
        // At least one tick label or title of every chart states a unit.
        assert!(t.iter().any(|s| unit(s)), "{name}: no unit among {t:?}");
    }
}

#[test]
fn report_is_self_contained() {
    let page = html(&[
        "measure.json",
        "scenario.json",
        "simulate.json",
        "simulate.perfetto.json",
    ]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("http://"), "an http:// reference");
    assert!(!page.contains("https://"), "an https:// reference");
    assert!(!page.contains("<script src"));
    assert!(!page.contains("<link"));
    assert!(!page.contains("<img"));
    assert!(page.contains("<style>"));
}

#[test]
fn tables_show_contract_figures() {
    let page = html(&["measure.json"]);
    // The total row of the summary table and environment verdicts with their tones.
    assert!(page.contains("all CPUs"));
    assert!(page.contains("11.62 ms"), "max of the fixture");
    assert!(page.contains("badge bad\">bad<"));
    assert!(page.contains("badge good\">ok<"));
    let page = html(&["scenario.json"]);
    assert!(page.contains("badge good\">within<"));
    assert!(page.contains("badge bad\">outside<"));
    assert!(page.contains("3 of 4 predictions within tolerance"));
    // The embedded analyze result is rendered, the bogus one reported.
    assert!(page.contains("Response-time breakdown"));
    assert!(page.contains("unknown kind &quot;bogus&quot;"));
}

#[test]
fn several_runs_are_overlaid() {
    let page = html(&["measure.json", "measure-b.json"]);
    assert!(page.contains("Comparison of measure runs"));
    let hist = charts(&page)
        .into_iter()
        .find(|c| c.0 == "histogram")
        .expect("overlaid histogram");
    // Two data colours: one per run.
    assert!(hist.1.contains("#2563EB") && hist.1.contains("#EA580C"));
}

#[test]
fn missing_sections_are_skipped() {
    let page = html(&["measure-minimal.json"]);
    assert!(page.contains("<table"));
    assert!(
        charts(&page).is_empty(),
        "no histogram in the input, so no chart"
    );
    let input = Input::parse("x.json", r#"{"kind":"trace","schema_version":1}"#).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(page.contains("no measurements"));
    let input = Input::parse(
        "x.json",
        r#"{"kind":"simulate","schema_version":1,"tasks":[]}"#,
    )
    .unwrap();
    render_html(&[input], &Options::default()).unwrap();
}

#[test]
fn markdown_is_tables_only() {
    let inputs = vec![fixture("measure.json"), fixture("scenario.json")];
    let md = render_markdown(
        &inputs,
        &Options {
            title: Some("CI run".into()),
        },
    )
    .unwrap();
    assert!(md.starts_with("# CI run"));
    assert!(md.contains("| CPU | count |"));
    assert!(md.contains("---:"));
    assert!(md.contains("✅ within"));
    assert!(md.contains("❌ outside"));
    assert!(!md.contains("<svg"));
    assert!(md.len() < 20_000, "compact: {} bytes", md.len());
}

#[test]
fn bad_input_is_a_clear_error() {
    let e = Input::parse("bad.json", "{\"kind\": ")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("bad.json: not valid JSON"), "{e}");
    let e = Input::parse("k.json", r#"{"kind":"weather"}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("k.json") && e.contains("unknown kind \"weather\""),
        "{e}"
    );
    let e = Input::parse("m.json", r#"{"total":{}}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("m.json") && e.contains("no \"kind\""), "{e}");
    let e = Input::parse("v.json", r#"{"kind":"measure","schema_version":2}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("v.json") && e.contains("schema_version 2"),
        "{e}"
    );
    let e = Input::parse("a.json", "[1, 2]").unwrap_err().to_string();
    assert!(e.contains("a.json"), "{e}");
    let e = Input::parse("s.csv", "time_ns,duration_ns\n1,2\n3,oops\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("s.csv") && e.contains("line 3"), "{e}");
    assert!(render_html(&[], &Options::default()).is_err());
}

#[test]
fn inputs_are_classified() {
    assert_eq!(fixture("tick-series.csv").kind, Kind::Series);
    assert_eq!(fixture("simulate.perfetto.json").kind, Kind::Capture);
    assert_eq!(fixture("scenario.json").kind, Kind::Scenario);
}

#[test]
fn hostile_values_do_not_panic() {
    let doc = r#"{"kind":"measure","schema_version":1,
        "total":{"count":1,"min_ns":-5,"mean_ns":1e300,"p50_ns":0,"p99_ns":0,"p999_ns":0,"max_ns":1e300,"overruns":0},
        "histogram":[{"low_ns":0,"high_ns":0,"count":5},{"low_ns":1,"high_ns":1e300,"count":1}],
        "sweep":[{"interval_ns":0,"total":{"min_ns":0}}],
        "environment":{"items":[{"name":"<script>","status":"ok","value":1}]}}"#;
    let input = Input::parse("h.json", doc).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(!page.contains("<script>"), "names are escaped");
}

#[test]
fn large_inputs_stay_light() {
    // 200,000 tick durations and a histogram of 5,000 buckets: the page stays small because
    // series are thinned (min and max per slice) and buckets re-binned.
    let series: Vec<String> = (0..200_000)
        .map(|i| {
            let v = if i == 123_456 {
                90_000
            } else {
                1_500 + (i % 10) * 5_907
            };
            format!("[{}, {v}]", i as u64 * 1_000_000)
        })
        .collect();
    let hist: Vec<String> = (0..5_000)
        .map(|i| {
            format!(
                "{{\"low_ns\": {}, \"high_ns\": {}, \"count\": {}}}",
                1000 + i * 10,
                1010 + i * 10,
                1 + i % 7
            )
        })
        .collect();
    let doc = format!(
        r#"{{"kind":"trace","schema_version":1,"measurements":[{{"name":"tick","kind":"pulse",
        "count":200000,"min_ns":1500,"max_ns":90000,"mean_ns":20000,"p50_ns":20000,"p99_ns":60000,
        "min_at_ns":0,"max_at_ns":123456000000,"histogram":[{}],"series":[{}]}}]}}"#,
        hist.join(","),
        series.join(",")
    );
    let input = Input::parse("big.json", &doc).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(page.len() < 600_000, "page is {} bytes", page.len());
    let series_svg = charts(&page)
        .into_iter()
        .find(|c| c.0 == "series")
        .expect("series chart");
    // The single peak survives the thinning and is the marked worst case.
    assert!(texts(&series_svg.1)
        .iter()
        .any(|t| t.starts_with("worst 90 µs at 123.5 s")));
}
