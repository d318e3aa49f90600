//! `latscope report` end to end: fixture results in, HTML or Markdown file out; bad input
//! gives exit status 2 and a message naming the file.

use std::path::{Path, PathBuf};

use crate::common;
use common::latscope;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/fixtures")
        .join(name)
}

#[test]
fn html_report_from_several_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let st = latscope()
        .arg("report")
        .args(
            [
                "measure.json",
                "simulate.json",
                "tick-series.csv",
                "scenario.json",
            ]
            .map(fixture),
        )
        .arg("-o")
        .arg(&out)
        .args(["--title", "Nightly run"])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("<title>Nightly run</title>"));
    assert!(html.contains("data-chart=\"histogram\""));
    assert!(html.contains("data-chart=\"series\""));
    assert!(html.contains("data-chart=\"deviation\""));
    assert!(!html.contains("https://") && !html.contains("http://"));
}

#[test]
fn markdown_by_flag_and_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    for (args, file) in [(vec!["--format", "md"], "a.txt"), (vec![], "b.md")] {
        let out = dir.path().join(file);
        let st = latscope()
            .arg("report")
            .arg(fixture("analyze.json"))
            .arg("-o")
            .arg(&out)
            .args(&args)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        let md = std::fs::read_to_string(&out).unwrap();
        assert!(md.starts_with("# latscope report"), "{md}");
        assert!(md.contains("| task | priority |"), "{md}");
        assert!(!md.contains("<svg"));
    }
}

#[test]
fn malformed_input_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken-result.json");
    std::fs::write(&bad, "{\"kind\": \"measure\", ").unwrap();
    let st = latscope()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(dir.path().join("x.html"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(
        err.contains("broken-result.json") && err.contains("not valid JSON"),
        "{err}"
    );
    assert!(!dir.path().join("x.html").exists());

    let unknown = dir.path().join("u.json");
    std::fs::write(&unknown, r#"{"kind":"horoscope","schema_version":1}"#).unwrap();
    let st = latscope()
        .arg("report")
        .arg(&unknown)
        .arg("-o")
        .arg(dir.path().join("y.html"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    let err = String::from_utf8_lossy(&st.stderr);
    assert!(
        err.contains("u.json") && err.contains("unknown kind"),
        "{err}"
    );

    let st = latscope()
        .arg("report")
        .arg(dir.path().join("missing.json"))
        .arg("-o")
        .arg(dir.path().join("z.html"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&st.stderr).contains("missing.json"));
}

#[test]
fn a_capture_on_its_own_is_a_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("vcd.html");
    let vcd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/fixtures/demo8.vcd");
    let st = latscope()
        .arg("report")
        .arg(&vcd)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("data-chart=\"timeline\""), "a timeline");
    assert!(html.contains("(capture)"), "listed as a capture");
}

#[test]
fn a_scenario_brings_its_artifacts_from_next_to_it() {
    // The scenario names its tick series by a path that no longer exists (a moved
    // directory): the file next to the JSON is used.
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("time_ns,duration_ns,released\n");
    for k in 1..20_000u64 {
        let v = if k == 12_345 { 60_712.857 } else { 1_642.857 };
        csv.push_str(&format!("{},{v},0\n", k * 1_000_000));
    }
    std::fs::write(dir.path().join("tick-series.csv"), csv).unwrap();
    // A simulate result as the command writes it (the report's fixture), its tick as the
    // series has it.
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/simulate.json");
    let mut sim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sim).unwrap()).unwrap();
    sim["tick"]["count"] = serde_json::json!(19_999);
    sim["tick"]["min_ns"] = serde_json::json!(1642.857);
    sim["tick"]["max_ns"] = serde_json::json!(60712.857);
    sim["tick"]["peaks_at_ns"] = serde_json::json!([12_345_000_000.0]);
    // A real scenario result (the report's fixture) holding that simulation alone, its
    // artifacts written elsewhere.
    let scn = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/scenario.json");
    let mut scn: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scn).unwrap()).unwrap();
    scn["artifacts"] = serde_json::json!(["/nonexistent/run/tick-series.csv"]);
    scn["results"] = serde_json::json!([sim]);
    let json = dir.path().join("scenario.json");
    std::fs::write(&json, scn.to_string()).unwrap();
    let out = dir.path().join("s.html");
    let st = latscope()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains("over the whole simulation"),
        "the full series is drawn, not the per-bucket maxima"
    );
    assert!(html.contains("worst 60.71 µs at 12.35 s"));
}

#[test]
fn unknown_kind_and_prose_are_refused_with_a_description() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, want) in [
        (
            "k.json",
            r#"{"kind":"benchmark","runs":[]}"#,
            "keys kind, runs",
        ),
        ("p.json", "just words\n", "just words"),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, text).unwrap();
        let out = dir.path().join(format!("{name}.html"));
        let st = latscope()
            .arg("report")
            .arg(&f)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&st.stderr);
        assert_eq!(st.status.code(), Some(2), "{err}");
        assert!(err.contains(name) && err.contains(want), "{err}");
        assert!(!out.exists(), "no report from bad input");
    }
}

// ---- one verdict in every output -------------------------------------------------------

/// The first screen's verdict line of each section of an HTML report, unescaped.
fn html_verdicts(html: &str) -> Vec<String> {
    html.split("data-verdict>")
        .skip(1)
        .map(|s| {
            s.split("</p>")
                .next()
                .unwrap_or_default()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&")
        })
        .collect()
}

/// The verdict lines of a Markdown report (`✅ **PASS: …**`), unescaped.
fn md_verdicts(md: &str) -> Vec<String> {
    md.lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(" **")?;
            let text = rest.strip_suffix("**")?;
            ["PASS: ", "FAIL: ", "INFO: "]
                .iter()
                .any(|p| text.starts_with(p))
                .then(|| {
                    text.replace("\\[", "[")
                        .replace("\\]", "]")
                        .replace("\\|", "|")
                        .replace("\\`", "`")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&amp;", "&")
                })
        })
        .collect()
}

/// The verdict of a result file, from the one verdict function.
fn verdict_of(json: &Path) -> latscope_results::Verdict {
    let text = std::fs::read_to_string(json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    if v["kind"] == "scenario" {
        let t: latscope_results::ScenarioTally =
            serde_json::from_value(v["summary"].clone()).unwrap();
        return latscope_results::Verdict::scenario(t);
    }
    latscope_results::Verdict::of(&latscope_results::Document::from_json(&text).unwrap())
}

/// The report of `json` in HTML and in Markdown opens with the verdict `want`.
fn report_says(json: &Path, want: &str, dir: &Path) {
    let html = dir.join("v.html");
    let md = dir.join("v.md");
    for out in [&html, &md] {
        let st = latscope()
            .arg("report")
            .arg(json)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    }
    let h = html_verdicts(&std::fs::read_to_string(&html).unwrap());
    let m = md_verdicts(&std::fs::read_to_string(&md).unwrap());
    assert_eq!(
        h.first().map(String::as_str),
        Some(want),
        "HTML of {json:?}"
    );
    assert_eq!(
        m.first().map(String::as_str),
        Some(want),
        "Markdown of {json:?}"
    );
    // A comparison states its gate's verdict once: the first line; the section below it
    // lists what regressed and improved but does not say "worse" / "not worse" again.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    if doc["kind"] == "compare" {
        for lines in [&h, &m] {
            let again: Vec<&String> = lines
                .iter()
                .skip(1)
                .filter(|l| l.contains("worse"))
                .collect();
            assert!(again.is_empty(), "{json:?} repeats its verdict: {again:?}");
        }
    }
}

/// A small capture: 40 interrupt pulses, the 24th 1.2 µs long, starting 100 µs in.
fn capture(dir: &Path) -> PathBuf {
    let mut s = String::from(
        "$timescale 1ns $end\n$scope module top $end\n$var wire 1 ! irq $end\n$upscope $end\n$enddefinitions $end\n#100000\n0!\n",
    );
    let mut t = 100_000;
    for i in 0..40 {
        t += 1000;
        let w = 200 + 37 * (i % 7) + if i == 23 { 900 } else { 0 };
        s += &format!("#{t}\n1!\n#{}\n0!\n", t + w);
        t += w;
    }
    s += &format!("#{}\n", t + 2000);
    let p = dir.join("cap.vcd");
    std::fs::write(&p, s).unwrap();
    p
}

/// The status a result's own JSON members state, read without the verdict function:
/// trace's limit outcomes, analyze's `schedulable`, simulate's deadline misses, the
/// scenario's tally, the comparison's `verdict`; the kinds without a limit are information.
fn json_status(v: &serde_json::Value) -> latscope_results::Status {
    use latscope_results::Status;
    let n = |x: &serde_json::Value| x.as_u64().unwrap_or(0);
    match v["kind"].as_str().unwrap_or_default() {
        "trace" => {
            let limits = v["limits"].as_array().cloned().unwrap_or_default();
            if limits.is_empty() {
                Status::Info
            } else if limits.iter().any(|l| l["pass"] == false) {
                Status::Fail
            } else {
                Status::Pass
            }
        }
        "analyze" if v["schedulable"] == true => Status::Pass,
        "analyze" => Status::Fail,
        "simulate" => {
            let misses: u64 = v["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| n(&t["deadline_misses"]))
                .sum();
            if misses > 0 {
                Status::Fail
            } else {
                Status::Pass
            }
        }
        "scenario" => {
            let s = &v["summary"];
            let (p, o, e) = (n(&s["predictions"]), n(&s["outside"]), n(&s["explained"]));
            match (p, o) {
                (0, _) => Status::Info,
                (_, 0) => Status::Pass,
                _ if o == e => Status::Info,
                _ => Status::Fail,
            }
        }
        "compare" if v["verdict"] == "worse" => Status::Fail,
        "compare" => Status::Pass,
        _ => Status::Info,
    }
}

/// Runs `latscope ARGS` (which writes `json`) and checks that its terminal output, the
/// JSON's own members, the HTML and the Markdown report state one verdict: the terminal
/// holds the verdict's lines, the JSON's members give its status, and both reports open
/// on its headline. Returns the status.
fn one_verdict_everywhere(args: &[String], json: &Path, d: &Path) -> latscope_results::Status {
    let out = latscope().args(args).output().unwrap();
    let term = String::from_utf8_lossy(&out.stdout);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "latscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = verdict_of(json);
    assert!(
        term.lines().any(|l| l.trim() == v.headline()),
        "latscope {args:?}: the terminal does not say {:?}:\n{term}",
        v.headline()
    );
    if let Some(w) = &v.worst {
        assert!(
            term.contains(&w.line()),
            "{args:?}: no worst line {:?}:\n{term}",
            w.line()
        );
    }
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(
        json_status(&doc),
        v.status,
        "{args:?}: the JSON's members and the verdict disagree"
    );
    // A failing gate exits 1, as its verdict says (trace limits, compare).
    if matches!(doc["kind"].as_str(), Some("trace" | "compare")) {
        assert_eq!(
            out.status.code() == Some(1),
            v.status == latscope_results::Status::Fail,
            "{args:?}: exit status against {:?}",
            v.status
        );
    }
    report_says(json, &v.headline(), d);
    v.status
}

#[test]
fn terminal_html_and_markdown_state_the_one_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cap = capture(d);
    let sys = root.join("scenarios/freertos-tick/system.toml");
    let j = |n: &str| d.join(n).to_string_lossy().into_owned();
    // (arguments, the JSON it writes); the terminal output must hold the verdict's lines.
    let runs: Vec<(Vec<String>, String)> = vec![
        (
            vec![
                "trace".into(),
                cap.to_string_lossy().into(),
                "--pulse".into(),
                "irq".into(),
                "--limit".into(),
                "irq.max<1us".into(),
                "--json".into(),
                j("fail.json"),
            ],
            j("fail.json"),
        ),
        (
            vec![
                "trace".into(),
                cap.to_string_lossy().into(),
                "--pulse".into(),
                "irq".into(),
                "--limit".into(),
                "irq.max<5us".into(),
                "--json".into(),
                j("pass.json"),
            ],
            j("pass.json"),
        ),
        (
            vec![
                "trace".into(),
                cap.to_string_lossy().into(),
                "--pulse".into(),
                "irq".into(),
                "--json".into(),
                j("info.json"),
            ],
            j("info.json"),
        ),
        (
            vec![
                "analyze".into(),
                sys.to_string_lossy().into(),
                "--json".into(),
                j("an.json"),
            ],
            j("an.json"),
        ),
        (
            vec![
                "simulate".into(),
                sys.to_string_lossy().into(),
                "--duration".into(),
                "200ms".into(),
                "--json".into(),
                j("sim.json"),
            ],
            j("sim.json"),
        ),
        (
            vec![
                "scenario".into(),
                "run".into(),
                "kernelperf".into(),
                "--quick".into(),
                "--json".into(),
                j("scn.json"),
            ],
            j("scn.json"),
        ),
    ];
    let mut statuses = Vec::new();
    for (args, json) in &runs {
        statuses.push(one_verdict_everywhere(args, Path::new(json), d));
    }
    // The limits decide: a 1.2 µs pulse fails 1 µs, passes 5 µs; no limit is information.
    use latscope_results::Status;
    assert_eq!(&statuses[..3], &[Status::Fail, Status::Pass, Status::Info]);
    // The fixtures of the other kinds: HTML and Markdown agree with the function (the
    // analyze and scenario fixtures predate fields the verdict reads; the real runs above
    // cover those kinds).
    for f in ["measure.json", "measure-b.json", "simulate.json"] {
        let v = verdict_of(&fixture(f));
        report_says(&fixture(f), &v.headline(), d);
    }
}

/// The kinds the test above does not produce: measure, noise, compare and fit, each run
/// for real, state one verdict in the terminal, the JSON, the HTML and the Markdown. (A
/// sweep file and a merge have no verdict of their own: a sweep's report draws counts, a
/// merge writes a measure result, covered as measure.)
#[test]
fn measure_noise_compare_and_fit_state_the_one_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let j = |n: &str| d.join(n).to_string_lossy().into_owned();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let measure = |name: &str, loops: &str| {
        s(&[
            "measure",
            "--allow-fallback",
            "--cpus",
            "0",
            "--interval",
            "500us",
            "--rounds",
            "3",
            "--loops",
            loops,
            "--json",
            &j(name),
        ])
    };
    let csv = d.join("ins.csv");
    let rows: String = (0..12)
        .map(|i| format!("{i},{}\n", 400 + 35 * i + (i * 7) % 11))
        .collect();
    std::fs::write(&csv, format!("position,time\n{rows}")).unwrap();
    let runs: Vec<(Vec<String>, String)> = vec![
        (measure("a.json", "60"), j("a.json")),
        (measure("b.json", "90"), j("b.json")),
        (
            s(&[
                "compare",
                &j("a.json"),
                &j("b.json"),
                "--json",
                &j("cmp.json"),
            ]),
            j("cmp.json"),
        ),
        (
            s(&[
                "compare",
                &j("a.json"),
                &j("a.json"),
                "--json",
                &j("cmp2.json"),
            ]),
            j("cmp2.json"),
        ),
        (
            s(&[
                "fit",
                csv.to_str().unwrap(),
                "--target",
                "insert",
                "--x",
                "position",
                "--y",
                "time",
                "--unit",
                "ns",
                "--json",
                &j("fit.json"),
            ]),
            j("fit.json"),
        ),
        (
            s(&[
                "noise",
                "--cpus",
                "0",
                "-D",
                "200ms",
                "--window",
                "100ms",
                "--trace-events",
                "none",
                "--json",
                &j("noise.json"),
            ]),
            j("noise.json"),
        ),
    ];
    let mut statuses = Vec::new();
    for (args, json) in &runs {
        statuses.push(one_verdict_everywhere(args, Path::new(json), d));
    }
    use latscope_results::Status;
    assert_eq!(&statuses[..2], &[Status::Info, Status::Info], "measure");
    // The compare of two runs may pass or fail (a busy machine can give one of them
    // overruns); a run compared with itself passes.
    assert_eq!(statuses[3], Status::Pass, "a run compared with itself");
    assert_eq!(&statuses[4..], &[Status::Info, Status::Info], "fit, noise");
}

#[test]
fn a_failed_trace_reads_as_failed_in_the_overview() {
    let dir = tempfile::tempdir().unwrap();
    let cap = capture(dir.path());
    let json = dir.path().join("t.json");
    let out = latscope()
        .arg("trace")
        .arg(&cap)
        .args(["--pulse", "irq", "--limit", "irq.max<1us", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let md = dir.path().join("r.md");
    let st = latscope()
        .arg("report")
        .arg(&json)
        .arg(fixture("measure.json"))
        .arg("-o")
        .arg(&md)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let text = std::fs::read_to_string(&md).unwrap();
    let overview: Vec<&str> = text.lines().filter(|l| l.contains("| trace |")).collect();
    assert_eq!(overview.len(), 1, "{text}");
    assert!(
        overview[0].contains("FAIL: 1 of 1 limit exceeded"),
        "{}",
        overview[0]
    );
    // The worst pulse (1.174 µs, the 24th) is at its time from the capture's start, as the
    // timeline of the same capture counts it.
    let v = verdict_of(&json);
    let w = v.worst.unwrap();
    assert!((w.value_ns - 1174.0).abs() < 1e-6, "{w:?}");
    let want_at: f64 = (0..23)
        .map(|i| 1000.0 + 200.0 + 37.0 * (i % 7) as f64)
        .sum::<f64>()
        + 1000.0;
    assert!(
        (w.at_ns.unwrap() - want_at).abs() < 1e-6,
        "{w:?} vs {want_at}"
    );
}

/// One real short measure run on CPU 0 (loop counts: robust on a busy machine), with
/// `extra` arguments; returns its result file and the JSON.
fn measure_run(dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, serde_json::Value) {
    let p = dir.join(name);
    let mut args = vec!["measure", "--allow-fallback", "-q", "--cpus", "0"];
    args.extend_from_slice(extra);
    args.extend(["--json", p.to_str().unwrap()]);
    common::ok(&args);
    let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    (p, v)
}

/// The cells of the Markdown table row whose first cell is `**first**`.
fn md_row(md: &str, first: &str) -> Option<Vec<String>> {
    let start = format!("| **{first}** |");
    md.lines().find(|l| l.starts_with(&start)).map(|l| {
        l.trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().replace("\\[", "[").replace("\\]", "]"))
            .collect()
    })
}

fn report_to(out: &Path, inputs: &[&Path]) -> String {
    let mut args: Vec<&str> = vec!["report"];
    args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", out.to_str().unwrap()]);
    common::ok(&args);
    std::fs::read_to_string(out).unwrap()
}

/// `report cmp.json` of a `compare --json` document, and `report a.json b.json` of the two
/// runs it compared, show per statistic the change and its interval as the document has
/// them, a verdict per statistic, and the settings that differ between the runs: here the
/// one setting the two runs were given differently, found by comparing their settings.
#[test]
fn comparisons_show_the_change_its_interval_and_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let common_args = ["--interval", "500us", "--rounds", "3"];
    let (a, va) = measure_run(
        d,
        "a.json",
        &[&common_args[..], &["--loops", "60"]].concat(),
    );
    let (b, vb) = measure_run(
        d,
        "b.json",
        &[&common_args[..], &["--loops", "90"]].concat(),
    );
    let cmp = d.join("cmp.json");
    let out = common::run(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
        cmp.to_str().unwrap(),
    ]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cmp).unwrap()).unwrap();
    assert_eq!(doc["method"], "rounds", "three rounds each give intervals");
    // The settings that differ, from the two results themselves.
    let (sa, sb) = (
        va["settings"].as_object().unwrap(),
        vb["settings"].as_object().unwrap(),
    );
    let differ: Vec<&String> = sa.keys().filter(|k| sa[*k] != sb[*k]).collect();
    assert_eq!(differ, ["loops"], "the runs differ in the loops given");
    let md_doc = report_to(&d.join("cmp.md"), &[&cmp]);
    let md_pair = report_to(&d.join("ab.md"), &[&a, &b]);
    for md in [&md_doc, &md_pair] {
        let rows = doc["rows"].as_array().unwrap();
        assert!(rows.len() >= 8, "{doc}");
        for r in rows {
            let metric = r["metric"].as_str().unwrap();
            let cells = md_row(md, metric).unwrap_or_else(|| panic!("no row {metric}:\n{md}"));
            let verdict = &cells[5];
            if let Some(c) = r["change_pct"].as_f64() {
                assert_eq!(cells[3], format!("{c:+.2} %"), "{metric}: change");
            }
            let (lo, hi) = (r["lower"].as_f64().unwrap(), r["upper"].as_f64().unwrap());
            assert_eq!(
                cells[4],
                format!("[{lo:+.2} %, {hi:+.2} %]"),
                "{metric}: interval"
            );
            let want = if lo > 0.0 {
                "regressed"
            } else if hi < 0.0 {
                "improved"
            } else {
                "no change"
            };
            assert!(
                verdict.ends_with(want),
                "{metric}: {verdict} for [{lo}, {hi}]"
            );
        }
        // Each setting that differs is listed with A's and B's value, and nothing else.
        for k in &differ {
            let cells = md_row(md, k).unwrap_or_else(|| panic!("{k} not listed:\n{md}"));
            assert_eq!(cells[1], sa[*k].to_string(), "{k}");
            assert_eq!(cells[2], sb[*k].to_string(), "{k}");
        }
        let listed = doc["settings_differ"].as_array().unwrap();
        assert_eq!(listed.len(), differ.len(), "{listed:?}");
        // The pair's section says the gate's verdict; the document's page opens on it
        // (its first line, FAIL/PASS as `latscope compare` prints) and does not repeat it.
        let worse = doc["verdict"] == "worse";
        let verdict_line = match (std::ptr::eq(md, &md_doc), worse) {
            (false, true) => "❌ **worse",
            (false, false) => "✅ **not worse",
            (true, true) => "❌ **FAIL: B is worse than A",
            (true, false) => "✅ **PASS",
        };
        assert!(md.contains(verdict_line), "{verdict_line}:\n{md}");
    }
    // The comparison's HTML page overlays A and B, found where the document names them.
    let html = report_to(&d.join("cmp.html"), &[&cmp]);
    assert!(
        html.contains("Latency histograms, overlaid"),
        "A and B overlaid"
    );
    assert!(html.contains("Latency by percentile, overlaid"));
}

/// With `--overrun catch-up` the samples file holds a row per missed period: the latency
/// chart marks them and the count it draws is the result's overruns; its worst sample is
/// named at the same instant, in the same words, as the table's "max at".
#[test]
fn overrun_marks_and_the_worst_instant_agree_with_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let samples = d.join("run.csv");
    let (r, v) = measure_run(
        d,
        "run.json",
        &[
            "--interval",
            "20us",
            "--loops",
            "4000",
            "--overrun",
            "catch-up",
            "--samples",
            samples.to_str().unwrap(),
        ],
    );
    let overruns = v["total"]["overruns"].as_u64().unwrap();
    let dropped: u64 = v["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["dropped_samples"].as_u64().unwrap())
        .sum();
    assert_eq!(dropped, 0, "the samples file holds every sample");
    let longest = v["total"]["longest_overrun_run"].as_u64().unwrap();
    assert!(longest <= 1000, "every missed period has its row");
    let html = report_to(&d.join("run.html"), &[&r]);
    let svg = html
        .split("<svg ")
        .find(|s| s.contains("data-chart=\"series\""))
        .expect("latency over time from the samples");
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let texts: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1).and_then(|s| s.split('<').next()))
        .map(str::trim)
        .collect();
    let marked = texts.iter().find_map(|t| {
        t.strip_suffix(" marked: overrun (period missed)")
            .map(|n| n.parse::<u64>().unwrap())
    });
    assert_eq!(marked.unwrap_or(0), overruns, "{texts:?}");
    // The worst sample's instant in the chart and in the table, one origin and one rounding.
    let worst_at = texts
        .iter()
        .find_map(|t| {
            t.strip_prefix("worst ")
                .and_then(|w| w.split(" at ").nth(1))
        })
        .expect("the worst sample is labelled");
    let table = html
        .split("<table")
        .find(|t| t.contains(">max at</th>"))
        .expect("the summary table");
    let heads: Vec<&str> = table
        .split("<th")
        .skip(1)
        .filter(|h| !h.starts_with("ead"))
        .filter_map(|h| h.split('>').nth(1).and_then(|s| s.split('<').next()))
        .collect();
    let col = heads.iter().position(|h| *h == "max at").unwrap();
    let body = table.split("<tbody>").nth(1).unwrap_or(table);
    let first_row = body.split("<tr").nth(1).unwrap();
    let cells: Vec<&str> = first_row
        .split("<td")
        .skip(1)
        .map(|c| {
            c.split('>')
                .nth(1)
                .and_then(|s| s.split('<').next())
                .unwrap()
        })
        .collect();
    assert_eq!(cells[0], "all CPUs");
    assert_eq!(cells[col], worst_at, "{heads:?} {cells:?}");
}
