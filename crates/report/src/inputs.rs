//! Inputs that are not latscope result JSON: CSV time series and timelines.

use crate::ReportError;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// What `latscope report` reads, for error messages.
pub const HINT: &str =
    "latscope report reads the --json results of measure, noise, trace, analyze, \
simulate and scenario, the CSV series of simulate --series and trace --series, the raw samples \
of measure --samples, Perfetto trace-event JSON, and (from the command line) captures such as \
.vcd, .lscap and .sr files";

/// The magic of `measure --samples x.bin`.
pub const SAMPLES_MAGIC: &[u8] = b"LATSCOPESMP1";

/// A short description of a JSON document: what kind of value, which top-level keys.
pub fn describe_json(doc: &Value) -> String {
    match doc {
        Value::Object(m) => {
            let keys: Vec<&str> = m.keys().map(String::as_str).take(8).collect();
            format!(
                "a JSON object with the keys {}{}",
                keys.join(", "),
                if m.len() > 8 { ", …" } else { "" }
            )
        }
        Value::Array(a) => format!("a JSON array of {} elements", a.len()),
        other => format!("a bare JSON value ({})", excerpt(&other.to_string())),
    }
}

fn excerpt(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut t: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        t.push('…');
    }
    format!("{t:?}")
}

/// Binary content, described by its signature.
pub fn describe_binary(b: &[u8]) -> String {
    if b.starts_with(b"PK\x03\x04") {
        "a zip archive (a sigrok .sr session? measure it with `latscope trace`, or give it to `latscope report` on the command line)".into()
    } else if b.starts_with(b"<SALEAE>") {
        "a Saleae binary export (measure it with `latscope trace`)".into()
    } else if b.starts_with(b"LSCAP") || b.starts_with(b"LATSCOPE") {
        "a latscope capture (.lscap; give it to `latscope report` on the command line)".into()
    } else {
        format!(
            "binary data of {} bytes starting with {:02x?}",
            b.len(),
            &b[..b.len().min(8)]
        )
    }
}

/// `Some(description)` when a text file is not a CSV table: a VCD, an INI file, prose…
pub fn not_tabular(text: &str) -> Option<String> {
    let first = text.lines().find(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return Some("an empty file".into());
    };
    let t = first.trim_start();
    if t.starts_with('$') {
        return Some(format!(
            "a VCD capture (first line {}); give it to `latscope report` on the command line, which draws its timeline, or measure it with `latscope trace`",
            excerpt(first)
        ));
    }
    if t.starts_with('<') {
        return Some(format!(
            "an HTML or XML document (first line {})",
            excerpt(first)
        ));
    }
    if !first.contains(',') {
        return Some(format!(
            "text without comma-separated columns (first line {})",
            excerpt(first)
        ));
    }
    None
}

/// The rows of a CSV text through the `csv` crate: (1-based line, trimmed cells), rows of
/// only empty cells left out, quoted cells unquoted. No comment syntax (trace names
/// channels `#0`, `#1`). A row that cannot be read is an error naming the file and line.
fn csv_rows<'a>(
    file: &'a str,
    text: &'a str,
) -> impl Iterator<Item = Result<(usize, Vec<String>), ReportError>> + 'a {
    let mut lines = latscope_core::textpos::LineCounter::new();
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
        .into_records()
        .filter_map(move |r| {
            let mut line = |p: Option<&csv::Position>| {
                p.map_or(0, |p| lines.record_line(text, p.byte(), false))
            };
            match r {
                Ok(r) if r.iter().all(str::is_empty) => None,
                Ok(r) => Some(Ok((
                    line(r.position()),
                    r.iter().map(str::to_string).collect(),
                ))),
                Err(e) => Some(Err(ReportError::Csv {
                    file: file.into(),
                    line: line(e.position()),
                    message: e.to_string(),
                })),
            }
        })
}

/// The header of `measure --samples x.csv`.
pub fn is_samples_csv(text: &str) -> bool {
    text.lines().next().is_some_and(|h| {
        let cols: Vec<&str> = h.split(',').map(str::trim).collect();
        cols.contains(&"intended_ns") && cols.contains(&"latency_ns")
    })
}

/// One raw sample: (cpu, phase, intended_ns, latency_ns, missed).
type Raw = (u32, u32, f64, f64, f64);

/// Raw samples of `measure --samples x.csv` (`phase,cpu,intended_ns,latency_ns,missed`).
pub fn samples_csv(file: &str, text: &str) -> Result<Value, ReportError> {
    let mut rows = csv_rows(file, text);
    let cols: Vec<String> = rows.next().transpose()?.map(|r| r.1).unwrap_or_default();
    let col = |n: &str| cols.iter().position(|c| c == n);
    let (ci, ii, li) = match (col("cpu"), col("intended_ns"), col("latency_ns")) {
        (Some(c), Some(i), Some(l)) => (c, i, l),
        _ => {
            return Err(ReportError::Csv {
                file: file.into(),
                line: 1,
                message: "a samples CSV needs the columns cpu, intended_ns and latency_ns".into(),
            })
        }
    };
    let (pi, mi) = (col("phase"), col("missed"));
    let mut raw: Vec<Raw> = Vec::new();
    for row in rows {
        let (line, f) = row?;
        let get = |k: usize| -> Result<f64, ReportError> {
            f.get(k)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|x| x.is_finite())
                .ok_or_else(|| ReportError::Csv {
                    file: file.into(),
                    line,
                    message: format!(
                        "column {:?} is not a number: {:?}",
                        cols[k],
                        f.get(k).map_or("", String::as_str)
                    ),
                })
        };
        raw.push((
            get(ci)? as u32,
            match pi {
                Some(p) => get(p)? as u32,
                None => 0,
            },
            get(ii)?,
            get(li)?,
            match mi {
                Some(m) => get(m)?,
                None => 0.0,
            },
        ));
    }
    samples_doc(file, raw)
}

/// Raw samples of `measure --samples x.bin`: a 16-byte header (`LATSCOPESMP1`, u32 record
/// size 24) and records `u32 cpu, u16 phase, u16 missed, i64 intended_ns, i64 latency_ns`.
pub fn samples_bin(file: &str, b: &[u8]) -> Result<Value, ReportError> {
    let bad = |m: String| ReportError::Csv {
        file: file.into(),
        line: 0,
        message: m,
    };
    if b.len() < 16 {
        return Err(bad("truncated header".into()));
    }
    let size = u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize;
    if size != 24 {
        return Err(bad(format!("record size {size}, expected 24")));
    }
    let body = &b[16..];
    if !body.len().is_multiple_of(24) {
        return Err(bad(format!(
            "{} bytes after the header are not whole 24-byte records",
            body.len()
        )));
    }
    let raw: Vec<Raw> = body
        .chunks_exact(24)
        .map(|r| {
            let u32_ = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
            let u16_ = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
            let i64_ = |i: usize| {
                let mut a = [0u8; 8];
                a.copy_from_slice(&r[i..i + 8]);
                i64::from_le_bytes(a)
            };
            (
                u32_(0),
                u32::from(u16_(4)),
                i64_(8) as f64,
                i64_(16) as f64,
                f64::from(u16_(6)),
            )
        })
        .collect();
    samples_doc(file, raw)
}

/// At most this many points are kept per CPU (the min and max of 100,000 time columns when
/// there are more): memory stays bounded whatever the run length, and every peak is kept.
const MAX_POINTS: usize = 200_000;

/// Per-CPU (and per-phase) series, overruns and exact statistics of raw samples. Times
/// stay as measure writes them, from the phase's start (the origin of the result's
/// `max_at_ns`), so the chart and the table name one instant the same way.
fn samples_doc(file: &str, raw: Vec<Raw>) -> Result<Value, ReportError> {
    use crate::data::{Samples, SamplesCpu, Stats};
    use latscope_results::summary::{val, DurationSummary, HistogramBin};
    if raw.is_empty() {
        return Err(ReportError::Csv {
            file: file.into(),
            line: 2,
            message: "no samples".into(),
        });
    }
    let mut cpus: BTreeMap<(u32, u32), Vec<&Raw>> = BTreeMap::new();
    for r in &raw {
        cpus.entry((r.1, r.0)).or_default().push(r);
    }
    let stats_of = |lat: &mut Vec<f64>, over: f64| -> Stats {
        lat.sort_by(f64::total_cmp);
        let n = lat.len();
        // Nearest-rank percentiles of the exact samples.
        let q = |p: f64| lat[(((p * n as f64).ceil() as usize).max(1) - 1).min(n - 1)];
        let mean = lat.iter().sum::<f64>() / n as f64;
        Stats {
            summary: DurationSummary {
                count: n as u64,
                min_ns: val(lat[0]),
                mean_ns: val(mean),
                p50_ns: val(q(0.5)),
                p90_ns: val(q(0.9)),
                p99_ns: val(q(0.99)),
                p999_ns: val(q(0.999)),
                p9999_ns: val(q(0.9999)),
                max_ns: val(lat[n - 1]),
                histogram: Some(
                    log_buckets(lat)
                        .into_iter()
                        .map(|(low_ns, high_ns, count)| HistogramBin {
                            low_ns,
                            high_ns,
                            count,
                        })
                        .collect(),
                ),
                ..DurationSummary::default()
            },
            overruns: Some(over),
            resolution: None,
        }
    };
    let mut phases: Vec<u32> = cpus.keys().map(|k| k.0).collect();
    phases.dedup();
    let mut out_cpus = Vec::new();
    for ((phase, cpu), rs) in &cpus {
        let pts: Vec<(f64, f64)> = rs.iter().map(|r| (r.2, r.3)).collect();
        let pts = if pts.len() > MAX_POINTS {
            let lo = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let hi = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
            crate::charts::envelope(&pts, lo, hi, MAX_POINTS / 2)
        } else {
            pts
        };
        let missed: Vec<(f64, f64)> = rs
            .iter()
            .filter(|r| r.4 > 0.0)
            .take(MAX_POINTS)
            .map(|r| (r.2, r.4))
            .collect();
        let over: f64 = rs.iter().map(|r| r.4).sum();
        let mut lat: Vec<f64> = rs.iter().map(|r| r.3).collect();
        out_cpus.push(SamplesCpu {
            cpu: *cpu,
            phase: *phase,
            stats: stats_of(&mut lat, over),
            points: pts,
            missed,
        });
    }
    let mut all: Vec<f64> = raw.iter().map(|r| r.3).collect();
    let over: f64 = raw.iter().map(|r| r.4).sum();
    let doc = Samples {
        total: stats_of(&mut all, over),
        phases,
        cpus: out_cpus,
    };
    serde_json::to_value(&doc).map_err(|e| ReportError::Csv {
        file: file.into(),
        line: 0,
        message: e.to_string(),
    })
}

/// Buckets of sorted latencies, 20 per decade (log spaced), for histogram and percentile
/// charts, as (low, high, count); values ≤ 0 share one bucket below the first.
fn log_buckets(sorted: &[f64]) -> Vec<(f64, f64, u64)> {
    let edge = |k: i64| 10f64.powf(k as f64 / 20.0);
    let key = |v: f64| -> i64 {
        if v <= 1.0 {
            -1
        } else {
            (v.log10() * 20.0).floor() as i64
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let k = key(sorted[i]);
        let mut j = i;
        while j < sorted.len() && key(sorted[j]) == k {
            j += 1;
        }
        let (low, high) = if k < 0 {
            (sorted[i].min(0.0), 1.0)
        } else {
            (edge(k), edge(k + 1))
        };
        out.push((low, high, (j - i) as u64));
        i = j;
    }
    out
}

/// A CSV time series with a header. Two layouts:
/// * wide: a time column (`time_ns`, `at_ns`, `t_ns`, else the first) and value columns, e.g.
///   `simulate --series`: `time_ns,duration_ns,released` (the first value column is shown);
/// * long: `measurement,…,at_ns,value,unit` rows, e.g. `trace --series`: one series per
///   measurement.
///
/// Returns `{"series": [{"name", "unit", "points": [[t, v]]}]}`.
pub fn csv_series(file: &str, text: &str) -> Result<Value, ReportError> {
    // Rows may start with '#' (trace names channels `#0`, `#1`), so no comment syntax.
    let mut rows = csv_rows(file, text);
    let Some((_, cols)) = rows.next().transpose()? else {
        return Err(ReportError::Csv {
            file: file.into(),
            line: 1,
            message: "empty file".into(),
        });
    };
    if cols.len() < 2 {
        return Err(ReportError::Csv {
            file: file.into(),
            line: 1,
            message: "expected a header with a time column and a value column".into(),
        });
    }
    let find = |names: &[&str]| cols.iter().position(|c| names.contains(&c.as_str()));
    let tcol = find(&["time_ns", "at_ns", "t_ns", "start_ns"]).unwrap_or(0);
    let mcol = find(&["measurement", "name", "series"]);
    let ucol = find(&["unit"]);
    let vcol = match mcol {
        Some(_) => find(&["value", "value_ns"]),
        None => (0..cols.len()).find(|&i| i != tcol),
    }
    .ok_or_else(|| ReportError::Csv {
        file: file.into(),
        line: 1,
        message: "no value column".into(),
    })?;
    // (name, unit, points) in order of first appearance.
    let mut series: Vec<(String, String, Vec<Value>)> = Vec::new();
    for row in rows {
        let (line, f) = row?;
        let parse = |k: usize| -> Result<f64, ReportError> {
            f.get(k)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|x| x.is_finite())
                .ok_or_else(|| ReportError::Csv {
                    file: file.into(),
                    line,
                    message: format!(
                        "column {:?} is not a number: {:?}",
                        cols[k],
                        f.get(k).map_or("", String::as_str)
                    ),
                })
        };
        let (t, v) = (parse(tcol)?, parse(vcol)?);
        let name = match mcol {
            Some(m) => f.get(m).cloned().unwrap_or_default(),
            None => cols[vcol].clone(),
        };
        let unit = match ucol {
            Some(u) => f.get(u).cloned().unwrap_or_default(),
            None if cols[vcol].ends_with("_ns") => "ns".to_string(),
            None => String::new(),
        };
        match series.iter_mut().find(|s| s.0 == name) {
            Some(s) => s.2.push(json!([t, v])),
            None => series.push((name, unit, vec![json!([t, v])])),
        }
    }
    let series: Vec<Value> = series
        .into_iter()
        .map(|(name, unit, points)| json!({"name": name, "unit": unit, "points": points}))
        .collect();
    Ok(json!({ "time_column": cols[tcol], "series": series }))
}

/// Converts a timeline document into `{"tracks": [{"name", "intervals": [[start_ns, end_ns]]}],
/// "start_ns", "end_ns"}`. Accepts Chrome/Perfetto trace-event JSON (`traceEvents`, complete
/// `X` events and `B`/`E` pairs, thread names from `M` events; times in µs) and latscope's
/// capture JSON (`channels[]` with `name`, `initial`, `edges` in ps; a channel is busy while high).
pub fn capture_from(doc: &Value) -> Option<Value> {
    let events = doc
        .get("traceEvents")
        .and_then(Value::as_array)
        .or_else(|| {
            doc.as_array()
                .filter(|a| a.iter().any(|e| e.get("ph").is_some()))
        });
    if let Some(ev) = events {
        return Some(from_trace_events(ev));
    }
    let channels = doc.get("channels")?.as_array()?;
    // Times count from the capture's start, as `latscope trace` counts its instants, so
    // a trace result and the timeline of its capture name one instant alike.
    let origin = doc.get("start").and_then(Value::as_f64).unwrap_or(0.0) / 1000.0;
    let start = 0.0;
    let end = doc
        .get("end")
        .and_then(Value::as_f64)
        .map(|e| e / 1000.0 - origin);
    let mut tracks = Vec::new();
    for c in channels {
        let name = c.get("name")?.as_str()?.to_string();
        let mut high = c.get("initial").and_then(Value::as_bool).unwrap_or(false);
        let mut since = start;
        let mut iv = Vec::new();
        for e in c.get("edges")?.as_array()? {
            let t = e.as_f64()? / 1000.0 - origin;
            if high {
                iv.push(json!([since, t]));
            }
            high = !high;
            since = t;
        }
        if high {
            if let Some(e) = end {
                iv.push(json!([since, e]));
            }
        }
        tracks.push(json!({"name": name, "intervals": iv}));
    }
    Some(json!({"tracks": tracks, "start_ns": start, "end_ns": end}))
}

fn from_trace_events(ev: &[Value]) -> Value {
    let key = |e: &Value| -> (i64, i64) {
        (
            e.get("pid").and_then(Value::as_i64).unwrap_or(0),
            e.get("tid").and_then(Value::as_i64).unwrap_or(0),
        )
    };
    let mut names: BTreeMap<(i64, i64), String> = BTreeMap::new();
    let mut iv: BTreeMap<(i64, i64), Vec<(f64, f64)>> = BTreeMap::new();
    let mut open: BTreeMap<(i64, i64), Vec<f64>> = BTreeMap::new();
    let mut first_name: BTreeMap<(i64, i64), String> = BTreeMap::new();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for e in ev {
        let ph = e.get("ph").and_then(Value::as_str).unwrap_or("");
        let k = key(e);
        let ts = e.get("ts").and_then(Value::as_f64).map(|t| t * 1000.0);
        match (ph, ts) {
            ("M", _) if e.get("name").and_then(Value::as_str) == Some("thread_name") => {
                if let Some(n) = e.pointer("/args/name").and_then(Value::as_str) {
                    names.insert(k, n.to_string());
                }
            }
            ("X", Some(t)) => {
                let d = e.get("dur").and_then(Value::as_f64).unwrap_or(0.0) * 1000.0;
                iv.entry(k).or_default().push((t, t + d));
                lo = lo.min(t);
                hi = hi.max(t + d);
                if let Some(n) = e.get("name").and_then(Value::as_str) {
                    first_name.entry(k).or_insert_with(|| n.to_string());
                }
            }
            ("B", Some(t)) => {
                open.entry(k).or_default().push(t);
                if let Some(n) = e.get("name").and_then(Value::as_str) {
                    first_name.entry(k).or_insert_with(|| n.to_string());
                }
            }
            ("E", Some(t)) => {
                if let Some(s) = open.get_mut(&k).and_then(Vec::pop) {
                    iv.entry(k).or_default().push((s, t));
                    lo = lo.min(s);
                    hi = hi.max(t);
                }
            }
            _ => {}
        }
    }
    let tracks: Vec<Value> = iv
        .into_iter()
        .map(|(k, v)| {
            let name = names
                .get(&k)
                .or_else(|| first_name.get(&k))
                .cloned()
                .unwrap_or_else(|| format!("track {}", k.1));
            let intervals: Vec<Value> = v.into_iter().map(|(a, b)| json!([a, b])).collect();
            json!({"name": name, "intervals": intervals})
        })
        .collect();
    json!({
        "tracks": tracks,
        "start_ns": if lo.is_finite() { json!(lo) } else { Value::Null },
        "end_ns": if hi.is_finite() { json!(hi) } else { Value::Null },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_series_parses_and_errors_name_line() {
        let v = csv_series(
            "s.csv",
            "time_ns,duration_ns,released\n0,1500,1\n1000000,2000,2\n",
        )
        .unwrap();
        assert_eq!(v["series"][0]["points"].as_array().unwrap().len(), 2);
        assert_eq!(v["series"][0]["name"], "duration_ns");
        assert_eq!(v["series"][0]["unit"], "ns");
        let v = csv_series(
            "t.csv",
            "measurement,kind,at_ns,value,unit\nA,pulse,0,5,ns\n#1,count,1,3,\nA,pulse,2,6,ns\n",
        )
        .unwrap();
        assert_eq!(v["series"].as_array().unwrap().len(), 2);
        assert_eq!(v["series"][0]["points"][1][0].as_f64(), Some(2.0));
        assert_eq!(v["series"][1]["unit"], "");
        let e = csv_series("s.csv", "time_ns,duration_ns\n0,x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("s.csv") && e.contains("line 2"), "{e}");
    }

    #[test]
    fn perfetto_slices_become_tracks() {
        let doc = serde_json::json!({"traceEvents": [
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "tick"}},
            {"ph": "X", "name": "tick", "pid": 1, "tid": 2, "ts": 1000.0, "dur": 2.5},
            {"ph": "B", "name": "A", "pid": 1, "tid": 3, "ts": 1003.0},
            {"ph": "E", "pid": 1, "tid": 3, "ts": 1005.0}
        ]});
        let c = capture_from(&doc).unwrap();
        let t = c["tracks"].as_array().unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0]["name"], "tick");
        assert_eq!(t[0]["intervals"][0][1].as_f64(), Some(1_002_500.0));
        assert_eq!(t[1]["name"], "A");
    }

    #[test]
    fn capture_channels_high_intervals() {
        let doc = serde_json::json!({"start": 0, "end": 10000, "channels": [
            {"name": "A", "initial": false, "edges": [1000, 3000, 5000]}
        ]});
        let c = capture_from(&doc).unwrap();
        let iv = c["tracks"][0]["intervals"].as_array().unwrap();
        assert_eq!(iv.len(), 2);
        assert_eq!(iv[1][1].as_f64(), Some(10.0));
    }
}
