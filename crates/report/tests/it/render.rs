//! Report rendering against fixture results written to the commands' JSON contracts
//! (issues 2–6): every chart type appears with plotted data, axes carry units, the page is
//! self-contained, and bad input is a clear error naming the file.

use latscope_report::{render_html, render_markdown, units, Input, Kind, Options};
use serde_json::{json, Value};
use std::path::Path;

/// A trace result as `latscope trace --json` writes it (docs/trace.schema.json) around
/// `measurements`: the members a test does not set and every measurement carries get
/// neutral values (no definition, unit ns, nothing unmatched, no worst list).
fn trace_doc(source: &str, mut measurements: Value) -> String {
    for m in measurements.as_array_mut().into_iter().flatten() {
        if let Some(o) = m.as_object_mut() {
            for (k, v) in [
                ("definition", json!("")),
                ("unit", json!("ns")),
                ("unmatched", json!(0)),
                ("worst", json!([])),
            ] {
                o.entry(k).or_insert(v);
            }
        }
    }
    json!({"kind": "trace", "schema_version": 1,
        "capture": {"source": source, "format": "vcd", "samplerate_hz": null,
            "resolution_ns": null, "start_ns": 0.0, "end_ns": 0.0, "duration_ns": 0.0,
            "channels": [], "analog": []},
        "range": {"from_ns": null, "to_ns": null},
        "measurements": measurements, "limits": [], "pass": true})
    .to_string()
}

fn fixture(name: &str) -> Input {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("fixture readable");
    Input::parse(name, &text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A fixture as JSON, to compute what the page must show from it.
fn fixture_json(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture readable"))
        .expect("fixture is JSON")
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

/// A `<script` the report did not put there itself: the page has one script (zoom, pan,
/// hover) and inert `application/json` chart data, nothing else.
fn injected_script(page: &str) -> bool {
    let own = page
        .matches("<script type=\"application/json\" class=\"chart-data\">")
        .count()
        + 1;
    page.matches("<script").count() != own || page.contains("<script>alert")
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
        "slack",
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
                assert!(
                    t.iter().any(|s| s == "count (instances, log scale)"),
                    "{t:?}"
                );
                // The unit on the tick labels, or once in the axis title.
                assert!(
                    t.iter().any(|s| s.ends_with(" µs")
                        || s.ends_with(" ms")
                        || s.ends_with("(µs)")
                        || s.ends_with("(ms)")),
                    "{t:?}"
                );
            }
            "cdf" => {
                // Percentile ticks in percent (how far the tail reaches depends on the count).
                assert!(t.iter().any(|s| s == "90 %" || s == "99 %"), "{t:?}");
                assert!(
                    t.iter()
                        .any(|s| s.contains("log scale)") || s.contains("(µs)")),
                    "{t:?}"
                );
            }
            // Each time axis names its origin (a trace's: the capture's start).
            "series" => assert!(
                t.iter().any(|s| s.starts_with("time since start (")
                    || s.starts_with("time from capture start (")),
                "{t:?}"
            ),
            "sweep" => assert!(
                t.iter().any(|s| s == "sleep length (time, log scale)"),
                "{t:?}"
            ),
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
    let m = fixture_json("measure.json");
    let max = m["total"]["max_ns"].as_f64().unwrap();
    assert!(page.contains(&units::dur(max)), "max of the fixture");
    for item in m["environment"]["items"].as_array().unwrap() {
        let status = item["status"].as_str().unwrap();
        let tone = match status {
            "ok" => "good",
            "warn" => "warn",
            "bad" => "bad",
            _ => "neutral",
        };
        assert!(
            page.contains(&format!("badge {tone}\">{status}<")),
            "{status}"
        );
    }
    // A real `scenario run freertos-tick --quick --json`: its own verdict, in its words.
    let page = html(&["scenario.json"]);
    let s = fixture_json("scenario.json");
    let p = &s["predictions"];
    assert!(page.contains("badge good\">within<"));
    assert!(page.contains("badge warn\">outside (explained)<"));
    assert!(page.contains(&format!(
        "{} of {} predictions within tolerance; {} outside",
        p["within"], p["genuine"], p["outside"]
    )));
    // The embedded analyze result is rendered, a result of an unknown kind reported.
    assert!(page.contains("Response-time breakdown"));
    let mut s = s;
    s["results"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kind": "bogus"}));
    let input = Input::parse("s.json", &s.to_string()).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
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
    let input = Input::parse("x.json", &trace_doc("x.vcd", json!([]))).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(page.contains("no measurements"));
    let mut sim = fixture_json("simulate.json");
    sim["tasks"] = json!([]);
    sim["interrupts"] = json!([]);
    let input = Input::parse("x.json", &sim.to_string()).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(!page.contains("deadline misses") && !page.contains(">Interrupts<"));
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
    assert!(md.contains("⚠️ outside (explained)"));
    assert!(!md.contains("<svg"));
    // A measure run and a real freertos-tick scenario with its analyze, simulate and trace
    // results embedded: tables only stay well inside a CI comment (65,536 characters).
    assert!(md.len() < 25_000, "compact: {} bytes", md.len());
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
    // Extreme values of the types a measure result holds, and markup in a free-text field.
    let mut m = fixture_json("measure-b.json");
    m["total"]["min_ns"] = json!(-5);
    m["total"]["mean_ns"] = json!(1e300);
    m["total"]["max_ns"] = json!(8_000_000_000_000_000i64);
    m["total"]["histogram"] = json!([{"low_ns": 0, "high_ns": 0, "count": 5},
        {"low_ns": 1, "high_ns": 8_000_000_000_000_000i64, "count": 1}]);
    m["cpus"][0]["max_ns"] = json!(-8_000_000_000_000_000i64);
    m["environment"]["items"][0]["name"] = json!("<script>");
    let doc = m.to_string();
    let doc = doc.as_str();
    let input = Input::parse("h.json", doc).unwrap();
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(!injected_script(&page), "names are escaped");
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
            format!(
                "{{\"at_ns\": {}, \"window_ns\": 1000000, \"value\": {v}}}",
                i as u64 * 1_000_000
            )
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
    let measurements: Value = serde_json::from_str(&format!(
        r#"[{{"name":"tick","kind":"pulse",
        "count":200000,"min_ns":1500,"max_ns":90000,"mean_ns":20000,"p50_ns":20000,"p99_ns":60000,
        "min_at_ns":0,"max_at_ns":123456000000,"histogram":[{}],"series":[{}]}}]"#,
        hist.join(","),
        series.join(",")
    ))
    .unwrap();
    let doc = trace_doc("big.vcd", measurements);
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

/// Numbers in a `points="x,y x,y …"` or an attribute `name="…"` of every tag starting with `tag`.
fn attr_nums(svg: &str, tag: &str, attr: &str) -> Vec<Vec<f64>> {
    svg.split('<')
        .filter(|t| t.starts_with(&format!("{tag} ")) && t.contains("#2563EB"))
        .filter_map(|t| {
            let v = t.split(&format!(" {attr}=\"")).nth(1)?.split('"').next()?;
            Some(
                v.split([' ', ','])
                    .filter_map(|x| x.parse::<f64>().ok())
                    .collect(),
            )
        })
        .collect()
}

/// The x pixel of each numeric x-axis tick label (labels at `y`, below the plot).
fn x_ticks(svg: &str) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for t in svg.split("<text ").skip(1) {
        let (Some(x), Some(dy)) = (
            t.split("x=\"").nth(1).and_then(|s| s.split('"').next()),
            t.split("dy=\"").nth(1).and_then(|s| s.split('"').next()),
        ) else {
            continue;
        };
        let label = t
            .split('>')
            .nth(1)
            .unwrap_or("")
            .split('<')
            .next()
            .unwrap_or("");
        if dy == "0.76em" && !t.contains("rotate") {
            if let (Ok(x), Ok(v)) = (x.parse::<f64>(), label.trim().parse::<f64>()) {
                out.push((v, x));
            }
        }
    }
    out
}

/// A trace measurement as `latscope trace` writes it for a 1 MHz capture: values are whole
/// samples and sit on the low edges of 1 µs buckets.
fn quantised_trace() -> Input {
    let doc = trace_doc(
        "demo8.sr",
        json!([{"name":"D0","kind":"pulse","unit":"ns","count":624,"min_ns":3000.0,
        "max_ns":11000.0,"mean_ns":5375.0,"p50_ns":4000.0,"p90_ns":11000.0,"p99_ns":11000.0,
        "p999_ns":11000.0,"resolution_ns":1000.0,
        "histogram":[{"low_ns":3000.0,"high_ns":4000.0,"count":78},
          {"low_ns":4000.0,"high_ns":5000.0,"count":234},{"low_ns":5000.0,"high_ns":6000.0,"count":156},
          {"low_ns":6000.0,"high_ns":7000.0,"count":0},{"low_ns":7000.0,"high_ns":8000.0,"count":78},
          {"low_ns":11000.0,"high_ns":12000.0,"count":78}]}]),
    );
    Input::parse("tr.json", &doc).unwrap()
}

#[test]
fn percentile_curve_never_exceeds_the_worst_case() {
    // D23: the curve used each bucket's exclusive upper edge and ended at 12 µs although the
    // worst pulse is 11 µs (the p99 dot). Its highest point must be the max dot's height.
    let page = render_html(&[quantised_trace()], &Options::default()).unwrap();
    let (_, svg) = charts(&page)
        .into_iter()
        .find(|(n, _)| n == "cdf")
        .expect("cdf chart");
    let curve_top = attr_nums(&svg, "polyline", "points")
        .iter()
        .flat_map(|p| p.chunks(2).map(|c| c[1]).collect::<Vec<_>>())
        .fold(f64::INFINITY, f64::min);
    let dot_top = attr_nums(&svg, "circle", "cy")
        .iter()
        .flatten()
        .fold(f64::INFINITY, |a, b| a.min(*b));
    assert!(curve_top.is_finite() && dot_top.is_finite(), "{svg}");
    assert!(
        (curve_top - dot_top).abs() <= 1.0,
        "curve top at y={curve_top}, 11 µs dot at y={dot_top}"
    );
    // HDR buckets (wider than any resolution): the upper edge 1536 ns is capped at the max.
    let doc = trace_doc(
        "h.vcd",
        json!([{"name":"t","kind":"pulse",
          "count":100,"min_ns":1300,"max_ns":1500,"p50_ns":1300,"p99_ns":1500,"p999_ns":1500,
          "histogram":[{"low_ns":1280,"high_ns":1536,"count":100}]}]),
    );
    let page = render_html(
        &[Input::parse("h.json", &doc).unwrap()],
        &Options::default(),
    )
    .unwrap();
    let (_, svg) = charts(&page).into_iter().find(|(n, _)| n == "cdf").unwrap();
    let curve_top = attr_nums(&svg, "polyline", "points")
        .iter()
        .flat_map(|p| p.chunks(2).map(|c| c[1]).collect::<Vec<_>>())
        .fold(f64::INFINITY, f64::min);
    let dot_top = attr_nums(&svg, "circle", "cy")
        .iter()
        .flatten()
        .fold(f64::INFINITY, |a, b| a.min(*b));
    assert!(
        (curve_top - dot_top).abs() <= 1.0,
        "{curve_top} vs {dot_top}"
    );
}

#[test]
fn quantised_histogram_bars_sit_on_their_values() {
    // D23: bars were drawn at bucket centres (3.5, 4.5, … 11.5 µs) for values of 3 … 11 µs.
    let page = render_html(&[quantised_trace()], &Options::default()).unwrap();
    let (_, svg) = charts(&page)
        .into_iter()
        .find(|(n, _)| n == "histogram")
        .expect("histogram chart");
    let ticks = x_ticks(&svg);
    assert!(ticks.len() >= 2, "{ticks:?}");
    let (v0, x0) = ticks[0];
    let (v1, x1) = ticks[ticks.len() - 1];
    let value_at = |px: f64| v0 + (px - x0) * (v1 - v0) / (x1 - x0);
    let xs = attr_nums(&svg, "rect", "x");
    let ws = attr_nums(&svg, "rect", "width");
    let mut centres: Vec<f64> = xs
        .iter()
        .zip(&ws)
        .map(|(x, w)| value_at(x[0] + w[0] / 2.0))
        .collect();
    centres.sort_by(f64::total_cmp);
    let want = [3.0, 4.0, 5.0, 7.0, 11.0];
    assert_eq!(centres.len(), want.len(), "{centres:?}");
    for (c, w) in centres.iter().zip(want) {
        assert!(
            (c - w).abs() < 0.1,
            "bar centred on {c} µs for a value of {w} µs"
        );
    }
}

#[test]
fn markdown_escapes_html_in_every_cell() {
    // D19.10: a capture-controlled name went into a Markdown table cell as raw HTML.
    let evil = "<script>alert(1)</script> & <b> ![i](https://t.example/p.png)";
    // The measurement's kind is one of five words (the typed document refuses others);
    // the source and the name are free text.
    let doc = trace_doc(
        evil,
        json!([{"name": evil, "kind": "pulse", "count": 3, "min_ns": 1, "max_ns": 3,
            "p50_ns": 2, "p99_ns": 3, "histogram": [{"low_ns": 1, "high_ns": 4, "count": 3}]}]),
    );
    let input = Input::parse("x.json", &doc).unwrap();
    let md = render_markdown(std::slice::from_ref(&input), &Options::default()).unwrap();
    assert!(
        md.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt; !\\[i\\](https://t"),
        "{md}"
    );
    for line in md.lines() {
        // Only the report's own folding markup may be raw HTML; code spans are shown verbatim.
        let rest: String = line
            .split('`')
            .step_by(2)
            .collect::<Vec<_>>()
            .join("")
            .replace("<details>", "")
            .replace("</details>", "")
            .replace("<summary>", "")
            .replace("</summary>", "");
        assert!(
            !rest.contains('<') && !rest.contains('>'),
            "raw HTML in: {line}"
        );
    }
    let page = render_html(&[input], &Options::default()).unwrap();
    assert!(
        !injected_script(&page) && !page.contains("<b>"),
        "HTML escapes too"
    );
}

#[test]
fn wide_quantised_buckets_reach_only_real_values() {
    // Histogram bins several samples wide (long captures): [9 µs, 12 µs) holds 9, 10 and 11 µs,
    // but the worst case is 9 µs. Neither the curve nor the bar may reach past it.
    let doc = trace_doc(
        "w.vcd",
        json!([{"name":"w","kind":"pulse",
          "count":200,"min_ns":3000,"max_ns":9000,"p50_ns":5000,"p90_ns":9000,"p99_ns":9000,
          "resolution_ns":1000,
          "histogram":[{"low_ns":3000,"high_ns":6000,"count":100},{"low_ns":6000,"high_ns":9000,"count":50},
            {"low_ns":9000,"high_ns":12000,"count":50}]}]),
    );
    let page = render_html(
        &[Input::parse("w.json", &doc).unwrap()],
        &Options::default(),
    )
    .unwrap();
    let all = charts(&page);
    let svg = &all.iter().find(|(n, _)| n == "cdf").unwrap().1;
    let curve_top = attr_nums(svg, "polyline", "points")
        .iter()
        .flat_map(|p| p.chunks(2).map(|c| c[1]).collect::<Vec<_>>())
        .fold(f64::INFINITY, f64::min);
    let dot_top = attr_nums(svg, "circle", "cy")
        .iter()
        .flatten()
        .fold(f64::INFINITY, |a, b| a.min(*b));
    assert!(
        (curve_top - dot_top).abs() <= 1.0,
        "{curve_top} vs {dot_top}"
    );
    let svg = &all.iter().find(|(n, _)| n == "histogram").unwrap().1;
    let ticks = x_ticks(svg);
    let (v0, x0) = ticks[0];
    let (v1, x1) = ticks[ticks.len() - 1];
    let value_at = |px: f64| v0 + (px - x0) * (v1 - v0) / (x1 - x0);
    let xs = attr_nums(svg, "rect", "x");
    let ws = attr_nums(svg, "rect", "width");
    let left = xs
        .iter()
        .map(|x| value_at(x[0]))
        .fold(f64::INFINITY, f64::min);
    let right = xs
        .iter()
        .zip(&ws)
        .map(|(x, w)| value_at(x[0] + w[0]))
        .fold(0.0, f64::max);
    // Values 3 … 9 µs, each bar half a sample either side of its values.
    assert!((left - 2.5).abs() < 0.1, "first bar starts at {left} µs");
    assert!((right - 9.5).abs() < 0.1, "last bar ends at {right} µs");
}

#[test]
fn markdown_fits_a_ci_comment_whatever_is_combined() {
    let names = [
        "scenario.json",
        "trace.json",
        "analyze.json",
        "measure.json",
    ];
    let mut inputs = Vec::new();
    for _ in 0..15 {
        inputs.extend(names.iter().map(|n| fixture(n)));
    }
    let md = render_markdown(&inputs, &Options::default()).unwrap();
    let n = md.chars().count();
    assert!(n <= 60_000, "{n} characters");
    assert!(md.contains("Cut to fit a CI comment"), "the cut is said");
    assert!(md.contains("left out:"), "and what was left out");
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "no <details> left open"
    );
    // A small report is not cut.
    let small = render_markdown(&[fixture("measure.json")], &Options::default()).unwrap();
    assert!(!small.contains("Cut to fit"));
    // One unit style.
    assert!(!md.contains(" us ") && !md.contains(" us|") && !md.contains("(us)"));
}

#[test]
fn measure_samples_csv_draws_latency_over_time() {
    let mut csv = String::from("phase,cpu,intended_ns,latency_ns,missed\n");
    for i in 0..5000u64 {
        let cpu = i % 2;
        let lat = if i == 3001 {
            250_000
        } else {
            20_000 + (i % 7) * 1000
        };
        let missed = u64::from(i == 4000);
        csv.push_str(&format!(
            "0,{cpu},{},{lat},{missed}\n",
            1_000_000 + (i / 2) * 1_000_000
        ));
    }
    let input = Input::parse("run.csv", &csv).unwrap();
    assert_eq!(input.kind, Kind::Samples);
    let page = render_html(&[input], &Options::default()).unwrap();
    let cs = charts(&page);
    let series: Vec<&String> = cs
        .iter()
        .filter(|(n, _)| n == "series")
        .map(|(_, s)| s)
        .collect();
    assert_eq!(series.len(), 1, "one latency-over-time chart");
    let t = texts(series[0]);
    assert!(t.iter().any(|s| s == "wake-up latency (µs)"), "{t:?}");
    assert!(
        !t.iter().any(|s| s.contains("cpu")),
        "not 'cpu over time': {t:?}"
    );
    // The worst sample, at its intended wake time as the file gives it (from the phase's
    // start, the origin of the result's `max_at_ns`).
    assert!(t.iter().any(|s| s == "worst 250 µs at 1.501 s"), "{t:?}");
    assert!(page.contains("overrun (period missed)"), "overruns marked");
    // One missed row, one mark, and the count drawn says so.
    assert!(
        t.iter().any(|s| s == "1 marked: overrun (period missed)"),
        "{t:?}"
    );
    assert!(page.contains("Latency CDF"));
}

#[test]
fn unknown_input_says_what_it_looks_like() {
    let e = Input::parse("x.json", r#"{"kind":"benchmark","runs":[]}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.json") && e.contains("looks like") && e.contains("runs"),
        "{e}"
    );
    let e = Input::parse(
        "cap.vcd.json",
        "$timescale 1 ns $end\n$var wire 1 ! a $end\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("cap.vcd.json") && e.contains("VCD"), "{e}");
    let e = Input::parse("notes.json", "hello there\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("notes.json") && e.contains("hello there"), "{e}");
    let e = Input::parse_bytes("s.sr", b"PK\x03\x04\x00\x00binary")
        .unwrap_err()
        .to_string();
    assert!(e.contains("s.sr") && e.contains("zip"), "{e}");
}

#[test]
fn binary_samples_are_read() {
    let mut b = Vec::from(&b"LATSCOPESMP1"[..]);
    b.extend_from_slice(&24u32.to_le_bytes());
    for i in 0..100i64 {
        b.extend_from_slice(&0u32.to_le_bytes()); // cpu
        b.extend_from_slice(&0u16.to_le_bytes()); // phase
        b.extend_from_slice(&u16::from(i == 50).to_le_bytes()); // missed
        b.extend_from_slice(&(1_000_000 * (i + 1)).to_le_bytes()); // intended
        b.extend_from_slice(&(if i == 70 { 90_000i64 } else { 10_000 }).to_le_bytes());
    }
    let input = Input::parse_bytes("run.bin", &b).unwrap();
    assert_eq!(input.kind, Kind::Samples);
    assert_eq!(input.doc["total"]["max_ns"].as_f64(), Some(90_000.0));
    assert_eq!(input.doc["total"]["overruns"].as_f64(), Some(1.0));
    // A truncated record is an error naming the file.
    let e = Input::parse_bytes("run.bin", &b[..b.len() - 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("run.bin") && e.contains("24-byte"), "{e}");
}

/// With `--overrun skip` the samples file holds no missed rows: the measure page that draws
/// those samples takes the overrun count from the result and says that the chart cannot mark
/// them, instead of a chart that silently shows none.
#[test]
fn overruns_missing_from_the_samples_come_from_the_result() {
    // A run that counted 3 overruns: the fixture compares idle with loaded, and the
    // samples file holds both phases, so its count is both phases' (the top-level total
    // of a comparison is its idle phase only).
    let mut v = fixture_json("measure.json");
    v["compare"]["idle"]["total"]["overruns"] = json!(2);
    v["compare"]["loaded"]["total"]["overruns"] = json!(1);
    let mut m = Input::parse("measure.json", &v.to_string()).unwrap();
    let counted = 3;
    let mut csv = String::from("phase,cpu,intended_ns,latency_ns,missed\n");
    for i in 0..200u64 {
        csv.push_str(&format!("0,0,{},{},0\n", 1_000_000 * (i + 1), 20_000 + i));
    }
    let s = Input::parse("run.csv", &csv).unwrap();
    assert_eq!(s.doc["total"]["overruns"].as_f64(), Some(0.0));
    m.attachments.push(s);
    let page = render_html(&[m], &Options::default()).unwrap();
    let said = format!(
        "{} overruns (periods missed) counted by the run; the samples file holds 0 of them",
        counted
    );
    assert!(page.contains(&said), "the result's count is said");
}

/// A capture alone in Markdown names, per track, its longest interval and when it began
/// (issue 26: it said "tracks: 13 · intervals: 2 889" and nothing else): each row is
/// checked against the longest interval found in the track's own intervals here.
#[test]
fn capture_only_markdown_names_the_longest_interval_per_track() {
    let input = fixture("simulate.perfetto.json");
    let md = render_markdown(std::slice::from_ref(&input), &Options::default()).unwrap();
    let tracks = input.doc["tracks"].as_array().unwrap();
    assert!(!tracks.is_empty());
    for t in tracks {
        let name = t["name"].as_str().unwrap();
        let iv: Vec<(f64, f64)> = t["intervals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect();
        let Some(&(at, _)) = iv
            .iter()
            .fold(None, |best: Option<&(f64, f64)>, p| match best {
                Some(q) if q.1 - q.0 >= p.1 - p.0 => Some(q),
                _ => Some(p),
            })
        else {
            continue;
        };
        let longest = iv.iter().map(|p| p.1 - p.0).fold(f64::MIN, f64::max);
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for track {name}:\n{md}"));
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells[1], units::int(iv.len() as f64), "{row}");
        assert_eq!(cells[2], format!("**{}**", units::dur(longest)), "{row}");
        assert_eq!(cells[3], units::dur(at), "{row}");
    }
}
