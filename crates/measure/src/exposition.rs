//! A [`Snapshot`] of the live metrics as text in the Prometheus exposition format
//! (version 0.0.4: what `/metrics` serves by default and what node_exporter's textfile
//! collector reads) or in OpenMetrics 1.0 (served when a scraper asks for it).
//!
//! Families, each per CPU (label `cpu`, plus `policy`, `interval` in seconds and the
//! user's `--label`s):
//! * `latscope_wakeup_latency_seconds` histogram (`_bucket{le=…}`, `_sum`, `_count`),
//!   cumulative since the start of the run, buckets [`BOUNDS_NS`];
//! * `latscope_samples_total`, `latscope_overruns_total` counters;
//!
//! and once per run: `latscope_diagnosis_info` (one series per diagnosis item, with its
//! `item`, `status` and `value`), `latscope_host_info` (host, kernel, CPU model,
//! latscope version) and the gauge `latscope_measure_running` (0 in the file written when
//! the run has ended).

use crate::metrics::{Snapshot, BOUNDS_NS};
use std::fmt::Write as _;

/// Which text format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Prometheus,
    OpenMetrics,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }

    /// The format a scraper's `Accept` header asks for: OpenMetrics when it names
    /// `application/openmetrics-text`, else the Prometheus text format.
    pub fn from_accept(accept: Option<&str>) -> Format {
        match accept {
            Some(a)
                if a.to_ascii_lowercase()
                    .contains("application/openmetrics-text") =>
            {
                Format::OpenMetrics
            }
            _ => Format::Prometheus,
        }
    }
}

/// What stays the same for the whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// Policy the threads run with (`fifo`, `rr`, `other`).
    pub policy: String,
    pub interval_ns: i64,
    /// The user's labels (already checked: valid Prometheus label names).
    pub labels: Vec<(String, String)>,
    /// host, kernel, cpu_model, latscope_version.
    pub host: Vec<(String, String)>,
    /// Diagnosis verdicts: (item, status, value).
    pub verdicts: Vec<(String, String, String)>,
}

/// A label value with `\`, `"` and newlines escaped (both formats use these escapes).
pub fn escape(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// Integer nanoseconds as exact decimal seconds: 1500 → `0.0000015`, 10^10 → `10`.
pub fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    let (whole, frac) = (a / 1_000_000_000, a % 1_000_000_000);
    if frac == 0 {
        return format!("{sign}{whole}");
    }
    let f = format!("{frac:09}");
    format!("{sign}{whole}.{}", f.trim_end_matches('0'))
}

pub(crate) fn label_set(pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let mut s = String::from("{");
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{k}=\"{}\"", escape(v));
    }
    s.push('}');
    s
}

pub(crate) fn header(out: &mut String, fmt: Format, family: &str, kind: &str, help: &str) {
    // OpenMetrics names a counter family without `_total` and an info family without
    // `_info`; the Prometheus text format names them as the samples and has no `info`.
    let (name, kind) = match (fmt, kind) {
        (Format::OpenMetrics, "counter") => (family.trim_end_matches("_total"), kind),
        (Format::OpenMetrics, "info") => (family.trim_end_matches("_info"), kind),
        (Format::Prometheus, "info") => (family, "gauge"),
        _ => (family, kind),
    };
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// The exposition text of `snap`. `running` is false for the last write of a run.
pub fn render(snap: &Snapshot, meta: &Meta, fmt: Format, running: bool) -> String {
    let mut out = String::with_capacity(4096 + snap.cpus.len() * 6000);
    latency_histograms(&mut out, snap, meta, fmt);
    cpu_counters(&mut out, snap, meta, fmt);
    info_series(&mut out, meta, fmt);
    header(
        &mut out,
        fmt,
        "latscope_measure_running",
        "gauge",
        "1 while latscope measure runs; 0 in the file written when it has ended.",
    );
    let _ = writeln!(
        out,
        "latscope_measure_running{} {}",
        set(&meta.labels, None),
        running as u8
    );
    if fmt == Format::OpenMetrics {
        out.push_str("# EOF\n");
    }
    out
}

/// The labels of one CPU's series: the CPU, the policy, the interval and the run's own
/// labels.
fn cpu_labels(meta: &Meta, cpu: u32) -> Vec<(String, String)> {
    let mut v = vec![
        ("cpu".to_string(), cpu.to_string()),
        ("policy".to_string(), meta.policy.clone()),
        ("interval".to_string(), seconds(meta.interval_ns)),
    ];
    v.extend(meta.labels.iter().cloned());
    v
}

/// The label set `{…}` of `v`, with `extra` last.
fn set(v: &[(String, String)], extra: Option<(&str, &str)>) -> String {
    let mut p: Vec<(&str, &str)> = v.iter().map(|(k, x)| (k.as_str(), x.as_str())).collect();
    if let Some(e) = extra {
        p.push(e);
    }
    label_set(&p)
}

/// Per CPU: the cumulative latency histogram with its sum and count.
fn latency_histograms(out: &mut String, snap: &Snapshot, meta: &Meta, fmt: Format) {
    header(
        out,
        fmt,
        "latscope_wakeup_latency_seconds",
        "histogram",
        "Timer wake-up latency of the measuring thread (wake time minus intended time), since the run started.",
    );
    for c in &snap.cpus {
        let l = cpu_labels(meta, c.cpu);
        let mut cum = 0u64;
        for (i, n) in c.buckets.iter().enumerate() {
            cum += n;
            let le = match BOUNDS_NS.get(i) {
                Some(&b) => seconds(b),
                None => "+Inf".to_string(),
            };
            let _ = writeln!(
                out,
                "latscope_wakeup_latency_seconds_bucket{} {cum}",
                set(&l, Some(("le", &le)))
            );
        }
        let sum = c.sum_ns as f64 / 1e9;
        let _ = writeln!(
            out,
            "latscope_wakeup_latency_seconds_sum{} {sum}",
            set(&l, None)
        );
        let _ = writeln!(
            out,
            "latscope_wakeup_latency_seconds_count{} {}",
            set(&l, None),
            c.count
        );
    }
}

/// Per CPU: the samples and overruns counted.
fn cpu_counters(out: &mut String, snap: &Snapshot, meta: &Meta, fmt: Format) {
    header(
        out,
        fmt,
        "latscope_samples_total",
        "counter",
        "Wake-up latencies recorded.",
    );
    for c in &snap.cpus {
        let l = cpu_labels(meta, c.cpu);
        let _ = writeln!(out, "latscope_samples_total{} {}", set(&l, None), c.count);
    }
    header(
        out,
        fmt,
        "latscope_overruns_total",
        "counter",
        "Periods whose intended wake time passed before the thread woke for an earlier one.",
    );
    for c in &snap.cpus {
        let l = cpu_labels(meta, c.cpu);
        let _ = writeln!(
            out,
            "latscope_overruns_total{} {}",
            set(&l, None),
            c.overruns
        );
    }
}

/// The diagnosis verdicts and the host, as info series.
fn info_series(out: &mut String, meta: &Meta, fmt: Format) {
    header(
        out,
        fmt,
        "latscope_diagnosis_info",
        "info",
        "The environment diagnosis before the run: one series per item with its verdict (ok, warn, bad, info, unknown).",
    );
    for (item, status, value) in &meta.verdicts {
        let mut l = meta.labels.to_vec();
        l.push(("item".into(), item.clone()));
        l.push(("status".into(), status.clone()));
        l.push(("value".into(), value.clone()));
        let _ = writeln!(out, "latscope_diagnosis_info{} 1", set(&l, None));
    }
    header(
        out,
        fmt,
        "latscope_host_info",
        "info",
        "The machine measured: host name, kernel release, CPU model and latscope version.",
    );
    let mut l = meta.labels.to_vec();
    l.extend(meta.host.iter().cloned());
    let _ = writeln!(out, "latscope_host_info{} 1", set(&l, None));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::LiveMetrics;

    fn meta() -> Meta {
        Meta {
            policy: "fifo".into(),
            interval_ns: 1_000_000,
            labels: vec![("board".into(), "rpi \"4\"".into())],
            host: vec![
                ("host".into(), "h1".into()),
                ("kernel".into(), "6.6".into()),
            ],
            verdicts: vec![("preemption".into(), "ok".into(), "PREEMPT_RT".into())],
        }
    }

    /// Parses `name{labels} value` lines into (name, labels text, value).
    fn samples(text: &str) -> Vec<(String, String, String)> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| {
                let (head, value) = l.rsplit_once(' ').unwrap();
                let (name, labels) = head.split_once('{').unwrap();
                (name.to_string(), labels.to_string(), value.to_string())
            })
            .collect()
    }

    #[test]
    fn seconds_are_exact_decimals() {
        assert_eq!(seconds(1_500), "0.0000015");
        assert_eq!(seconds(1_000_000), "0.001");
        assert_eq!(seconds(10_000_000_000), "10");
        assert_eq!(seconds(-2_500_000_000), "-2.5");
        assert_eq!(seconds(0), "0");
    }

    #[test]
    fn exposition_matches_the_data() {
        let m = LiveMetrics::new(&[0, 2]);
        let lat = [800i64, 1_400, 1_400, 2_900, 45_000, 12_000_000_000];
        for v in lat {
            m.cpu(1).unwrap().record(v);
        }
        m.cpu(1).unwrap().add_overruns(3);
        m.cpu(0).unwrap().record(5_000);
        let text = render(&m.snapshot(), &meta(), Format::Prometheus, true);
        let s = samples(&text);
        // Every bucket of cpu 2 against a count made here from the values.
        let cpu2: Vec<&(String, String, String)> = s
            .iter()
            .filter(|(n, l, _)| {
                n == "latscope_wakeup_latency_seconds_bucket" && l.starts_with("cpu=\"2\"")
            })
            .collect();
        assert_eq!(cpu2.len(), BOUNDS_NS.len() + 1);
        for (i, (_, l, v)) in cpu2.iter().enumerate() {
            let expect = match BOUNDS_NS.get(i) {
                Some(&b) => {
                    assert!(l.contains(&format!("le=\"{}\"", seconds(b))), "{l}");
                    lat.iter().filter(|&&x| x <= b).count()
                }
                None => {
                    assert!(l.ends_with("le=\"+Inf\"}"), "{l}");
                    lat.len()
                }
            };
            assert_eq!(v.parse::<usize>().unwrap(), expect, "bucket {i}: {l}");
        }
        let find = |name: &str, cpu: &str| {
            s.iter()
                .find(|(n, l, _)| n == name && l.starts_with(&format!("cpu=\"{cpu}\"")))
                .map(|x| x.2.clone())
                .unwrap_or_else(|| panic!("{name} cpu {cpu} missing\n{text}"))
        };
        let sum: i64 = lat.iter().sum();
        let got: f64 = find("latscope_wakeup_latency_seconds_sum", "2")
            .parse()
            .unwrap();
        assert!((got - sum as f64 / 1e9).abs() < 1e-12);
        assert_eq!(find("latscope_wakeup_latency_seconds_count", "2"), "6");
        assert_eq!(find("latscope_samples_total", "2"), "6");
        assert_eq!(find("latscope_overruns_total", "2"), "3");
        assert_eq!(find("latscope_samples_total", "0"), "1");
        assert_eq!(find("latscope_overruns_total", "0"), "0");
        // Labels: cpu, policy, interval in seconds, the user's, escaped.
        assert!(text.contains(
            "latscope_samples_total{cpu=\"2\",policy=\"fifo\",interval=\"0.001\",board=\"rpi \\\"4\\\"\"} 6"
        ));
        assert!(text.contains(
            "latscope_diagnosis_info{board=\"rpi \\\"4\\\"\",item=\"preemption\",status=\"ok\",value=\"PREEMPT_RT\"} 1"
        ));
        assert!(text
            .contains("latscope_host_info{board=\"rpi \\\"4\\\"\",host=\"h1\",kernel=\"6.6\"} 1"));
        assert!(text.contains("# TYPE latscope_overruns_total counter"));
        assert!(text.contains("# TYPE latscope_diagnosis_info gauge"));
        assert!(text.contains("latscope_measure_running{board=\"rpi \\\"4\\\"\"} 1"));
        assert!(!text.contains("# EOF"));
        let ended = render(&m.snapshot(), &meta(), Format::Prometheus, false);
        assert!(ended.contains("latscope_measure_running{board=\"rpi \\\"4\\\"\"} 0"));
    }

    #[test]
    fn openmetrics_names_families_its_way() {
        let m = LiveMetrics::new(&[0]);
        m.cpu(0).unwrap().record(5_000);
        let text = render(&m.snapshot(), &meta(), Format::OpenMetrics, true);
        assert!(text.ends_with("# EOF\n"));
        assert!(text.contains("# TYPE latscope_overruns counter\n"));
        assert!(text.contains("# TYPE latscope_samples counter\n"));
        assert!(text.contains("# TYPE latscope_diagnosis info\n"));
        assert!(text.contains("# TYPE latscope_wakeup_latency_seconds histogram\n"));
        assert!(text.contains("latscope_samples_total{cpu=\"0\""));
        assert_eq!(
            Format::from_accept(Some(
                "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
            )),
            Format::OpenMetrics
        );
        assert_eq!(Format::from_accept(Some("text/plain")), Format::Prometheus);
        assert_eq!(Format::from_accept(None), Format::Prometheus);
    }
}
