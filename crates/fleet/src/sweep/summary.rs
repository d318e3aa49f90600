//! A sweep's rows counted per configuration and utilisation: how many sets, how many
//! schedulable (what `latscope report` draws as the schedulability ratio).

use crate::table::{Table, Values};
use serde_json::{json, Value};

/// Sets and schedulable sets at one utilisation of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioPoint {
    pub utilisation: f64,
    pub sets: u64,
    pub schedulable: u64,
}

/// Per configuration (in order of first appearance), points by increasing utilisation.
pub fn ratios(t: &Table) -> Vec<(String, Vec<RatioPoint>)> {
    let (Some(Values::Text(cfg)), Some(util), Some(Values::Bool(ok))) = (
        t.column("config"),
        t.column("utilisation"),
        t.column("schedulable"),
    ) else {
        return Vec::new();
    };
    let util_at = |r: usize| match util {
        Values::Float(v) => v[r],
        Values::Int(v) => v[r].map(|x| x as f64),
        _ => None,
    };
    let mut out: Vec<(String, Vec<RatioPoint>)> = Vec::new();
    for r in 0..t.rows() {
        let (Some(c), Some(u)) = (cfg[r].as_deref(), util_at(r)) else {
            continue;
        };
        let i = match out.iter().position(|(n, _)| n == c) {
            Some(i) => i,
            None => {
                out.push((c.to_string(), Vec::new()));
                out.len() - 1
            }
        };
        let pts = &mut out[i].1;
        let p = match pts.iter().position(|p| p.utilisation == u) {
            Some(k) => &mut pts[k],
            None => {
                pts.push(RatioPoint {
                    utilisation: u,
                    sets: 0,
                    schedulable: 0,
                });
                pts.last_mut().expect("just pushed")
            }
        };
        p.sets += 1;
        p.schedulable += u64::from(ok[r] == Some(true));
    }
    for (_, pts) in &mut out {
        pts.sort_by(|a, b| a.utilisation.total_cmp(&b.utilisation));
    }
    out
}

/// The report's input document for a sweep (`kind: "sweep"`).
pub fn report_doc(t: &Table, source: &str) -> Value {
    let curves: Vec<Value> = ratios(t)
        .into_iter()
        .map(|(config, pts)| {
            json!({
                "config": config,
                "points": pts.iter().map(|p| json!({
                    "utilisation": p.utilisation,
                    "sets": p.sets,
                    "schedulable": p.schedulable,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"kind": "sweep", "schema_version": 1, "source": source, "curves": curves})
}
