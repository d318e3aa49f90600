//! The typed summaries a result carries, checked when the result is read: every place
//! a result writes the shared summary (`latscope_core::summary::ResultSummary`) is read
//! as that type, and a value of the wrong type is an error naming the file and the key
//! (`measurements[2].max_ns`) instead of a section silently left out.
//!
//! The places, by kind: measure `total`, `cpus[]`, `rounds[]`, `sweep[].total`,
//! `sweep[].cpus[]`, `compare.idle|loaded.total|cpus[]`; trace `measurements[]`;
//! simulate `tasks[].response`, `tick`, `switches`, `interrupts[].response`; a scenario's
//! nested `results[]` by their own kind.

use latscope_core::summary::ResultSummary;
use serde_json::Value;

/// The first summary of `doc` (a result of `kind`) that does not read: (key, message).
pub fn first_bad(kind: &str, doc: &Value) -> Option<(String, String)> {
    let mut places: Vec<(String, &Value)> = Vec::new();
    let arr = |v: &Value, k: &str| -> Vec<usize> {
        (0..v.get(k).and_then(Value::as_array).map_or(0, Vec::len)).collect()
    };
    match kind {
        "measure" => {
            fn phase<'a>(prefix: &str, p: &'a Value, out: &mut Vec<(String, &'a Value)>) {
                if let Some(t) = p.get("total") {
                    out.push((format!("{prefix}total"), t));
                }
                if let Some(cs) = p.get("cpus").and_then(Value::as_array) {
                    for (i, c) in cs.iter().enumerate() {
                        out.push((format!("{prefix}cpus[{i}]"), c));
                    }
                }
            }
            phase("", doc, &mut places);
            for i in arr(doc, "rounds") {
                places.push((format!("rounds[{i}]"), &doc["rounds"][i]));
            }
            for i in arr(doc, "sweep") {
                phase(&format!("sweep[{i}]."), &doc["sweep"][i], &mut places);
            }
            if let Some(c) = doc.get("compare") {
                for p in ["idle", "loaded"] {
                    if let Some(x) = c.get(p) {
                        phase(&format!("compare.{p}."), x, &mut places);
                    }
                }
            }
        }
        "trace" => {
            for i in arr(doc, "measurements") {
                places.push((format!("measurements[{i}]"), &doc["measurements"][i]));
            }
        }
        "simulate" => {
            for i in arr(doc, "tasks") {
                if let Some(r) = doc["tasks"][i].get("response") {
                    places.push((format!("tasks[{i}].response"), r));
                }
            }
            for i in arr(doc, "interrupts") {
                if let Some(r) = doc["interrupts"][i].get("response") {
                    places.push((format!("interrupts[{i}].response"), r));
                }
            }
            for k in ["tick", "switches"] {
                if let Some(t) = doc.get(k) {
                    places.push((k.to_string(), t));
                }
            }
        }
        "scenario" => {
            for i in arr(doc, "results") {
                let r = &doc["results"][i];
                if let Some((key, msg)) = r
                    .get("kind")
                    .and_then(Value::as_str)
                    .and_then(|k| first_bad(k, r))
                {
                    return Some((format!("results[{i}].{key}"), msg));
                }
            }
        }
        _ => {}
    }
    places.into_iter().find_map(|(key, v)| {
        if !v.is_object() {
            return Some((key, format!("expected a summary object, found {v}")));
        }
        ResultSummary::from_json(v).err().map(|e| {
            let key = if e.key.is_empty() {
                key
            } else {
                format!("{key}.{}", e.key)
            };
            (key, e.message)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_key_at_fault() {
        let t = json!({"kind": "trace", "measurements": [
            {"name": "a", "count": 1, "max_ns": 5},
            {"name": "b", "count": 1, "max_ns": "big"}]});
        let (k, m) = first_bad("trace", &t).unwrap();
        assert_eq!(k, "measurements[1].max_ns");
        assert!(m.contains("\"big\""), "{m}");
        let m = json!({"total": {"count": 2, "p99_ns": 3}, "cpus": [{"count": 2, "histogram": 7}]});
        assert_eq!(first_bad("measure", &m).unwrap().0, "cpus[0].histogram");
        let s =
            json!({"tasks": [{"response": {"count": 1, "max_ns": null}}], "tick": {"count": true}});
        assert_eq!(first_bad("simulate", &s).unwrap().0, "tick.count");
        let sc =
            json!({"results": [{"kind": "trace", "measurements": [{"name": "x", "min_ns": []}]}]});
        assert_eq!(
            first_bad("scenario", &sc).unwrap().0,
            "results[0].measurements[0].min_ns"
        );
        assert!(first_bad(
            "trace",
            &json!({"measurements": [{"count": 0, "max_ns": null}]})
        )
        .is_none());
    }

    #[test]
    fn a_result_with_a_bad_summary_is_an_error_naming_file_and_key() {
        let text = r#"{"kind":"trace","schema_version":1,
            "measurements":[{"name":"a","count":1,"p99_ns":"x"}]}"#;
        let e = crate::Input::parse("t.json", text).unwrap_err().to_string();
        assert_eq!(
            e,
            r#"t.json: `measurements[0].p99_ns`: "x" is not a number"#
        );
    }
}
