//! Inputs that are not latscope result JSON: CSV time series and timelines.

use crate::ReportError;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A CSV time series with a header. Two layouts:
/// * wide: a time column (`time_ns`, `at_ns`, `t_ns`, else the first) and value columns, e.g.
///   `simulate --series`: `time_ns,duration_ns,released` (the first value column is shown);
/// * long: `measurement,…,at_ns,value,unit` rows, e.g. `trace --series`: one series per
///   measurement.
///
/// Returns `{"series": [{"name", "unit", "points": [[t, v]]}]}`.
pub fn csv_series(file: &str, text: &str) -> Result<Value, ReportError> {
    let mut lines = text
        .lines()
        .enumerate()
        // Rows may start with '#' (trace names channels `#0`, `#1`), so no comment syntax.
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(ReportError::Csv {
            file: file.into(),
            line: 1,
            message: "empty file".into(),
        });
    };
    let cols: Vec<String> = header.split(',').map(|c| c.trim().to_string()).collect();
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
    for (i, l) in lines {
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        let parse = |k: usize| -> Result<f64, ReportError> {
            f.get(k)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|x| x.is_finite())
                .ok_or_else(|| ReportError::Csv {
                    file: file.into(),
                    line: i + 1,
                    message: format!(
                        "column {:?} is not a number: {:?}",
                        cols[k],
                        f.get(k).copied().unwrap_or("")
                    ),
                })
        };
        let (t, v) = (parse(tcol)?, parse(vcol)?);
        let name = match mcol {
            Some(m) => f.get(m).copied().unwrap_or("").to_string(),
            None => cols[vcol].clone(),
        };
        let unit = match ucol {
            Some(u) => f.get(u).copied().unwrap_or("").to_string(),
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
        .or_else(|| doc.as_array());
    if let Some(ev) = events {
        return Some(from_trace_events(ev));
    }
    let channels = doc.get("channels")?.as_array()?;
    let start = doc.get("start").and_then(Value::as_f64).unwrap_or(0.0) / 1000.0;
    let end = doc.get("end").and_then(Value::as_f64).map(|e| e / 1000.0);
    let mut tracks = Vec::new();
    for c in channels {
        let name = c.get("name")?.as_str()?.to_string();
        let mut high = c.get("initial").and_then(Value::as_bool).unwrap_or(false);
        let mut since = start;
        let mut iv = Vec::new();
        for e in c.get("edges")?.as_array()? {
            let t = e.as_f64()? / 1000.0;
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
