//! The JSON result of `latscope compare --json` (docs/compare.schema.json is generated
//! from these types): the verdict, and per statistic the change with its confidence
//! interval, from the same estimator the terminal prints, so the two cannot disagree.

use crate::compare::{Comparison, Method, Row, Threshold};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const KIND: &str = "compare";
pub const SCHEMA_VERSION: u32 = 1;

/// A comparison of two `measure` results (A the baseline, B the candidate).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CompareResult {
    /// Always "compare".
    pub kind: String,
    pub schema_version: u32,
    /// The two files, as given.
    pub a: String,
    pub b: String,
    /// `worse` (exit 1) or `not worse` (exit 0).
    pub verdict: String,
    /// How the verdict was reached: `rounds` (rank test over per-round figures) or
    /// `single` (one figure per run; ignores run-to-run spread).
    pub method: String,
    /// Rounds in A and B when `method` is `rounds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<[usize; 2]>,
    /// Confidence of the intervals, in (0, 1).
    pub confidence: f64,
    /// How much worse B may be: `threshold_pct` (percent of A) or `threshold_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_ns: Option<i64>,
    /// Why `max` is or is not gated (absent when `--metrics` chose the gate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_note: Option<String>,
    /// All CPUs merged, one row per statistic.
    pub rows: Vec<CompareRow>,
    /// Per CPU present in both runs (shown, never gated).
    pub per_cpu: Vec<CpuRows>,
    /// Settings that differ: `[name, A, B]`.
    pub settings_differ: Vec<Differs>,
    /// Environment items that differ (status and value in each run; absent: the run
    /// did not report the item).
    pub environment_differs: Vec<Differs>,
}

/// One statistic of A and B.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CompareRow {
    /// `min`, `mean`, `p50`, `p90`, `p99`, `p99.9`, `p99.99`, `max`, `stdev`, `overruns`.
    pub metric: String,
    /// A's and B's figure (ns, or a count for `overruns`): the merged total, or the
    /// median of the rounds when the verdict comes from rounds.
    pub a: f64,
    pub b: f64,
    /// B − A (ns or count) and in percent of A, by one estimator (the rounds' shift
    /// estimate when there is one, else the difference of the two figures).
    pub diff: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_pct: Option<f64>,
    /// The change's confidence interval from the rounds, in the threshold's unit
    /// (percent of A for a relative threshold, else ns); absent without rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
    /// Part of the verdict, and worse beyond the threshold.
    pub gated: bool,
    pub worse: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CpuRows {
    pub cpu: u32,
    pub rows: Vec<CompareRow>,
}

/// A setting or environment item whose value differs between the runs.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Differs {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

fn row(r: &Row) -> CompareRow {
    CompareRow {
        metric: r.metric.name().to_string(),
        a: r.a,
        b: r.b,
        diff: r.diff(),
        change_pct: r.change_pct(),
        lower: r.estimate.as_ref().map(|e| e.lower),
        upper: r.estimate.as_ref().map(|e| e.upper),
        gated: r.gated,
        worse: r.worse,
    }
}

impl CompareResult {
    /// The document of a comparison of `a` against `b` (file names as given).
    pub fn new(c: &Comparison, threshold: Threshold, a: &str, b: &str) -> CompareResult {
        let (method, rounds) = match c.method {
            Method::Rounds { a, b } => ("rounds", Some([a, b])),
            Method::Single => ("single", None),
        };
        let (threshold_pct, threshold_ns) = match threshold {
            Threshold::Percent(p) => (Some(p), None),
            Threshold::Nanos(n) => (None, Some(n)),
        };
        let env = |v: &Option<(String, String)>| v.as_ref().map(|(s, v)| format!("[{s}] {v}"));
        CompareResult {
            kind: KIND.into(),
            schema_version: SCHEMA_VERSION,
            a: a.into(),
            b: b.into(),
            verdict: if c.worse { "worse" } else { "not worse" }.into(),
            method: method.into(),
            rounds,
            confidence: c.confidence,
            threshold_pct,
            threshold_ns,
            max_note: c.max_note.clone(),
            rows: c.rows.iter().map(row).collect(),
            per_cpu: c
                .per_cpu
                .iter()
                .map(|(cpu, rows)| CpuRows {
                    cpu: *cpu,
                    rows: rows.iter().map(row).collect(),
                })
                .collect(),
            settings_differ: c
                .settings_diffs
                .iter()
                .map(|(k, x, y)| Differs {
                    name: k.clone(),
                    a: Some(x.clone()),
                    b: Some(y.clone()),
                })
                .collect(),
            environment_differs: c
                .env_diffs
                .iter()
                .map(|d| Differs {
                    name: d.name.clone(),
                    a: env(&d.a),
                    b: env(&d.b),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{EnvDiff, Metric};
    use crate::gate::Estimate;

    #[test]
    fn the_document_carries_the_terminal_figures() {
        let r = Row {
            metric: Metric::P99,
            a: 10_000.0,
            b: 12_000.0,
            gated: true,
            worse: true,
            estimate: Some(Estimate {
                change: 18.0,
                lower: 12.0,
                upper: 25.0,
                relative: true,
            }),
        };
        let c = Comparison {
            method: Method::Rounds { a: 5, b: 6 },
            max_note: None,
            confidence: 0.95,
            rows: vec![r.clone()],
            per_cpu: vec![(1, vec![r])],
            settings_diffs: vec![("kernel".into(), "6.1".into(), "6.12".into())],
            env_diffs: vec![EnvDiff {
                name: "governor".into(),
                a: Some(("warn".into(), "powersave".into())),
                b: None,
            }],
            worse: true,
        };
        let d = CompareResult::new(&c, Threshold::Percent(10.0), "a.json", "b.json");
        assert_eq!(d.verdict, "worse");
        assert_eq!(d.rounds, Some([5, 6]));
        assert_eq!(d.rows[0].change_pct, Some(18.0));
        assert!((d.rows[0].diff - 1_800.0).abs() < 1e-9);
        assert_eq!((d.rows[0].lower, d.rows[0].upper), (Some(12.0), Some(25.0)));
        assert_eq!(d.per_cpu[0].cpu, 1);
        assert_eq!(
            d.environment_differs[0].a.as_deref(),
            Some("[warn] powersave")
        );
        assert_eq!(d.environment_differs[0].b, None);
        let text = serde_json::to_string(&d).unwrap();
        let back: CompareResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back, d);
    }
}
