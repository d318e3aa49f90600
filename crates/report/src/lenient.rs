//! Lenient readers of `serde_json::Value` by key, for the sections that do not read a
//! typed document yet (analyze, scenario, the overview's analyze headline, the generic
//! settings table): a member read by name, numbers also written as strings, named parts
//! of an analysis breakdown, and the CSV time series and timelines the command line turns
//! into JSON (`Input::parse`). Issue 24 item 1: this file goes when its last caller reads
//! the typed document (crates/results/tests/typed_consumers.rs lists it as pending).

use crate::data::Point;
use serde_json::Value;

/// A numeric member, also accepting numbers written as strings.
pub fn num(v: &Value, key: &str) -> Option<f64> {
    match v.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

/// The first of several numeric members that is present.
pub fn num_any(v: &Value, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| num(v, k))
}

/// A string member; numbers and booleans are rendered as text.
pub fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The first of several string members that is present.
pub fn text_any(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| text(v, k))
}

/// A boolean member (also `"yes"`/`"no"`, `"true"`/`"false"`).
pub fn flag(v: &Value, key: &str) -> Option<bool> {
    match v.get(key)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "ok" | "pass" => Some(true),
            "false" | "no" | "fail" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// An array member, or an empty slice.
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A time series in any of the accepted shapes:
/// `[{t_ns, value_ns}]` (time keys `t_ns`, `time_ns`, `at_ns`; value keys `value_ns`,
/// `duration_ns`, `latency_ns`, `value`), `[[t, v]]`, or `{t_ns: [...], value_ns: [...]}`
/// (also nested under `points`).
pub fn series(v: Option<&Value>) -> Vec<Point> {
    const T: &[&str] = &["t_ns", "time_ns", "at_ns", "start_ns", "t", "time"];
    const V: &[&str] = &[
        "value_ns",
        "duration_ns",
        "latency_ns",
        "response_ns",
        "value",
        "v",
        "duration",
    ];
    let mut out: Vec<Point> = match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|p| match p {
                Value::Array(t) if t.len() >= 2 => Some((t[0].as_f64()?, t[1].as_f64()?)),
                Value::Object(_) => Some((num_any(p, T)?, num_any(p, V)?)),
                _ => None,
            })
            .collect(),
        Some(obj @ Value::Object(_)) => {
            if let Some(p) = obj.get("points") {
                return series(Some(p));
            }
            let ts = T.iter().find_map(|k| obj.get(*k).and_then(Value::as_array));
            let vs = V.iter().find_map(|k| obj.get(*k).and_then(Value::as_array));
            match (ts, vs) {
                (Some(ts), Some(vs)) => ts
                    .iter()
                    .zip(vs)
                    .filter_map(|(t, v)| Some((t.as_f64()?, v.as_f64()?)))
                    .collect(),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    out.retain(|(t, v)| t.is_finite() && v.is_finite());
    out
}

/// The points of the series called `name` in a series document (what
/// [`crate::Input::parse`] makes of a CSV time series), when it has one.
pub fn named_series(doc: &Value, name: &str) -> Option<Vec<Point>> {
    arr(doc, "series")
        .iter()
        .find(|s| text(s, "name").as_deref() == Some(name))
        .map(|s| series(s.get("points")))
}

/// The `points` of one series of a series document.
pub fn points_of(series_entry: &Value) -> Vec<Point> {
    series(series_entry.get("points"))
}

/// One named component of a response time or of a utilisation split.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    pub value: f64,
}

/// Flattens an object of numbers (nested objects give `outer inner` names, `_ns` suffixes are
/// removed) or an array of `{name, value_ns|value}` into named parts; zero parts are kept.
pub fn parts(v: Option<&Value>) -> Vec<Part> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<Part>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let k = clean_key(k);
                    let name = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix} {k}")
                    };
                    walk(&name, x, out);
                }
            }
            Value::Array(items) => {
                for it in items {
                    if let (Some(n), Some(x)) = (
                        text_any(it, &["name", "component", "task", "kind"]),
                        num_any(it, &["value_ns", "ns", "value", "time_ns", "fraction"]),
                    ) {
                        let name = if prefix.is_empty() {
                            n
                        } else {
                            format!("{prefix} {n}")
                        };
                        out.push(Part { name, value: x });
                    }
                }
            }
            Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    out.push(Part {
                        name: prefix.to_string(),
                        value: x,
                    });
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(v) = v {
        walk("", v, &mut out);
    }
    out.retain(|p| p.value.is_finite() && !p.name.is_empty());
    out
}

/// Like [`parts`], but a nested object or array (e.g. interference per higher-priority task)
/// becomes one part holding its sum; `total` members are left out.
pub fn parts_grouped(v: Option<&Value>) -> Vec<Part> {
    let Some(Value::Object(m)) = v else {
        return parts(v);
    };
    let mut out = Vec::new();
    for (k, x) in m {
        let name = clean_key(k);
        if name.contains("total") {
            continue;
        }
        let value = match x {
            Value::Number(n) => n.as_f64(),
            Value::Object(_) | Value::Array(_) => {
                Some(parts(Some(x)).iter().map(|p| p.value).sum())
            }
            _ => None,
        };
        if let Some(value) = value.filter(|v| v.is_finite()) {
            out.push(Part { name, value });
        }
    }
    out
}

/// `wcet_ns` → `wcet`, `context_switch` → `context switch`.
pub fn clean_key(k: &str) -> String {
    let k = k
        .strip_suffix("_ns")
        .or_else(|| k.strip_suffix("_fraction"))
        .unwrap_or(k);
    k.replace('_', " ")
}

/// Scalar members of an object (strings, numbers, booleans), for "run settings" tables.
pub fn scalars(v: &Value, skip: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(m) = v.as_object() {
        for (k, x) in m {
            if skip.contains(&k.as_str()) {
                continue;
            }
            let s = match x {
                Value::String(s) => s.clone(),
                Value::Number(n) => {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    if k.ends_with("_ns") {
                        crate::units::dur(f)
                    } else if k.ends_with("_hz") {
                        format!("{} Hz", crate::units::int(f))
                    } else if f.fract() == 0.0 && f.abs() >= 10_000.0 {
                        crate::units::int(f)
                    } else {
                        n.to_string()
                    }
                }
                Value::Bool(b) => b.to_string(),
                _ => continue,
            };
            out.push((clean_key(k), s));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn series_shapes() {
        let a = series(Some(&json!([{"t_ns": 1, "value_ns": 2}, [3, 4]])));
        assert_eq!(a, vec![(1.0, 2.0), (3.0, 4.0)]);
        let b = series(Some(&json!({"time_ns": [1, 2], "duration_ns": [5, 6]})));
        assert_eq!(b, vec![(1.0, 5.0), (2.0, 6.0)]);
        assert!(series(Some(&json!("x"))).is_empty());
    }

    #[test]
    fn parts_flatten() {
        let p = parts(Some(
            &json!({"wcet_ns": 5, "interference": {"A": 2, "B": 1}}),
        ));
        let mut names: Vec<_> = p.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        assert_eq!(names, ["interference A", "interference B", "wcet"]);
    }
}
