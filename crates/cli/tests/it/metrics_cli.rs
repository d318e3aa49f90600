//! `measure --listen` and `--openmetrics`: the published metrics against the run's own
//! JSON result, scraped over HTTP while the run goes on, and the refusals.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common;
use common::{s, BIN};

/// `name{labels} value` lines of an exposition text whose labels contain `needle`.
fn values<'a>(text: &'a str, name: &str, needle: &str) -> Vec<(&'a str, f64)> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) && l.contains(needle))
        .map(|l| {
            let (head, v) = l.rsplit_once(' ').unwrap();
            (head, v.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_textfile_agrees_with_the_json_result() {
    let d = tempfile::tempdir().unwrap();
    let prom = d.path().join("latscope.prom");
    let json = d.path().join("r.json");
    let o = Command::new(BIN)
        .args([
            "measure",
            "--cpus",
            "0",
            "--policy",
            "other",
            "--interval",
            "200us",
            "--loops",
            "1500",
            "-q",
            "--label",
            "rack=b7",
            "--openmetrics",
            s(&prom),
            "--json",
            s(&json),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&prom).unwrap();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let c = &r["cpus"][0];
    let n = c["count"].as_u64().unwrap() as f64;
    let sel = "cpu=\"0\",policy=\"other\",interval=\"0.0002\",rack=\"b7\"";
    assert_eq!(
        values(&text, "latscope_samples_total", sel),
        [(&*format!("latscope_samples_total{{{sel}}}"), n)]
    );
    assert_eq!(
        values(&text, "latscope_overruns_total", sel)[0].1,
        c["overruns"].as_f64().unwrap()
    );
    assert_eq!(
        values(&text, "latscope_wakeup_latency_seconds_count", sel)[0].1,
        n
    );
    let sum = values(&text, "latscope_wakeup_latency_seconds_sum", sel)[0].1;
    let mean = c["mean_ns"].as_f64().unwrap();
    assert!(
        (sum - mean * n / 1e9).abs() <= 1e-6 * sum.max(1e-9),
        "{sum} vs {}",
        mean * n / 1e9
    );
    // Every cumulative bucket lies between the JSON histogram's counts of buckets wholly
    // below the bound and of buckets starting at or below it.
    let hist: Vec<(i64, i64, u64)> = c["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["low_ns"].as_i64().unwrap(),
                b["high_ns"].as_i64().unwrap(),
                b["count"].as_u64().unwrap(),
            )
        })
        .collect();
    let buckets = values(&text, "latscope_wakeup_latency_seconds_bucket", sel);
    assert_eq!(buckets.len(), 44);
    for (head, v) in &buckets {
        let le = head.rsplit_once("le=\"").unwrap().1.trim_end_matches("\"}");
        if le == "+Inf" {
            assert_eq!(*v, n);
            continue;
        }
        let b = (le.parse::<f64>().unwrap() * 1e9).round() as i64;
        let below: u64 = hist.iter().filter(|h| h.1 <= b).map(|h| h.2).sum();
        let upto: u64 = hist.iter().filter(|h| h.0 <= b).map(|h| h.2).sum();
        assert!(
            below as f64 <= *v && *v <= upto as f64,
            "le {le}: {v} not in {below}..={upto}"
        );
    }
    assert!(text.contains("latscope_measure_running{rack=\"b7\"} 0"));
    assert!(text.contains("latscope_diagnosis_info{rack=\"b7\",item=\"preemption\""));
    assert!(text.contains("latscope_host_info{"));
    assert!(
        !text.contains("# EOF"),
        "the textfile collector reads the Prometheus format"
    );
}

#[test]
fn listen_serves_while_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let mut child = Command::new(BIN)
        .args([
            "measure",
            "--cpus",
            "0",
            "--policy",
            "other",
            "--interval",
            "1ms",
            "--duration",
            "3s",
            "--listen",
            "127.0.0.1:0",
            "--json",
            s(&json),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let l = lines.next().expect("no 'Serving metrics' line").unwrap();
        if let Some(rest) = l.strip_prefix("Serving metrics at http://") {
            break rest.trim_end_matches("/metrics").to_string();
        }
    };
    std::thread::sleep(Duration::from_millis(800));
    let get = |accept: &str| {
        let mut t = std::net::TcpStream::connect(&addr).unwrap();
        t.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(t, "GET /metrics HTTP/1.0\r\nAccept: {accept}\r\n\r\n").unwrap();
        let mut out = String::new();
        t.read_to_string(&mut out).unwrap();
        out
    };
    let r = get("text/plain");
    let v = values(&r, "latscope_samples_total", "cpu=\"0\"");
    assert_eq!(v.len(), 1, "{r}");
    assert!(v[0].1 > 0.0, "samples counted while running: {r}");
    assert!(r.contains("latscope_measure_running 1"), "{r}");
    let om = get("application/openmetrics-text; version=1.0.0");
    assert!(om.contains("# TYPE latscope_samples counter") && om.trim_end().ends_with("# EOF"));
    for _ in lines.by_ref() {}
    assert!(child.wait().unwrap().success());
    // The final count is at least what was scraped.
    let res: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(res["total"]["count"].as_f64().unwrap() >= v[0].1);
}

#[test]
fn bad_uses_exit_2_before_measuring() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let run = |extra: &[&str]| {
        let mut a = vec![
            "measure",
            "--policy",
            "other",
            "--loops",
            "5",
            "--json",
            s(&json),
        ];
        a.extend_from_slice(extra);
        Command::new(BIN).args(&a).output().unwrap()
    };
    let o = run(&["--listen", "999.0.0.1:1"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--listen 999.0.0.1:1"), "{e}");
    let o = run(&["--listen", "127.0.0.1:0", "--sweep", "100us..1ms"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--sweep"), "{e}");
    let o = run(&["--openmetrics", s(d.path())]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--openmetrics") && e.contains("directory"),
        "{e}"
    );
    assert!(!json.exists(), "nothing measured, nothing written");
}
