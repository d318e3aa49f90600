//! `--limit 'SysTick.max<5us'`: pass/fail checks on measurement results.
//!
//! Syntax: `NAME.STAT OP VALUE` with OP one of `<`, `<=`, `>`, `>=`; STAT one of
//! `count`, `min`, `max`, `mean`, `stdev`, `mode`, `p50`, `p90`, `p99`, `p999`,
//! `unmatched`, and for busy measurements `percent` (overall busy %), `max_percent`,
//! `mean_percent`. VALUE is a duration (`5us`), a plain number for counts, or a
//! percentage (`20%`).
//!
//! A limit on any statistic but `count` and `unmatched` FAILS when the measurement
//! has no instance in the range: an absent signal must not pass a gate.

use super::Measurement;
use crate::error::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Op {
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
}

/// A parsed limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Limit {
    pub text: String,
    pub name: String,
    pub stat: String,
    pub op: Op,
    /// In ns for durations, percent for percentages, plain otherwise.
    pub value: f64,
}

latscope_core::words!(fn unit_word = ["ns", "percent", "count"]);

/// `--limit` (clap's `value_parser`) reads the text through [`Limit::parse`].
impl std::str::FromStr for Limit {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Limit> {
        Limit::parse(s)
    }
}

/// The outcome of one limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LimitOutcome {
    pub limit: String,
    /// The measured value, in `unit`; `null` when the measurement has no instance
    /// (the limit then fails: a disconnected probe must not pass a gate).
    pub actual: Option<f64>,
    /// The bound, in `unit`.
    pub bound: f64,
    /// Unit of `actual` and `bound`: "ns", "percent" or "count".
    #[serde(deserialize_with = "unit_word")]
    pub unit: latscope_core::words::Word,
    pub pass: bool,
    /// Why the limit failed without a value ("no instances of X in the range").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl LimitOutcome {
    /// `30 ns`, `12.5 %`, `3`; the note when there is no value.
    pub fn actual_text(&self) -> String {
        match self.actual {
            None => self.note.clone().unwrap_or_else(|| "no value".into()),
            Some(v) => match self.unit {
                "ns" => format!("actual {}", latscope_core::time::human::ns_precise(v)),
                "percent" => format!("actual {v} %"),
                _ => format!("actual {v}"),
            },
        }
    }
}

impl Limit {
    pub fn parse(s: &str) -> Result<Limit> {
        let bad = |m: &str| Error::usage(format!("--limit '{s}': {m}"));
        let (pos, op, len) = ["<=", ">=", "<", ">"]
            .iter()
            .filter_map(|o| s.find(o).map(|p| (p, *o, o.len())))
            .min_by_key(|x| (x.0, std::cmp::Reverse(x.2)))
            .ok_or_else(|| bad("expected NAME.STAT<VALUE, e.g. SysTick.max<5us"))?;
        let left = s[..pos].trim();
        let right = s[pos + len..].trim();
        let (name, stat) = left
            .rsplit_once('.')
            .ok_or_else(|| bad("expected NAME.STAT on the left, e.g. SysTick.max"))?;
        let stat = stat.trim().to_ascii_lowercase();
        const STATS: [&str; 15] = [
            "count",
            "min",
            "max",
            "mean",
            "stdev",
            "mode",
            "p50",
            "p90",
            "p99",
            "p999",
            "p9999",
            "unmatched",
            "percent",
            "max_percent",
            "mean_percent",
        ];
        if !STATS.contains(&stat.as_str()) {
            return Err(bad(&format!(
                "unknown statistic '{stat}' (use {})",
                STATS.join(", ")
            )));
        }
        let value = if let Some(p) = right.strip_suffix('%') {
            p.trim()
                .parse::<f64>()
                .map_err(|_| bad(&format!("'{right}' is not a percentage")))?
        } else if let Ok(v) = right.parse::<f64>() {
            if !["count", "unmatched"].contains(&stat.as_str()) && !stat.contains("percent") {
                return Err(bad(&format!("'{right}' needs a unit, e.g. {right}us")));
            }
            v
        } else {
            latscope_core::time::parse_duration(right)
                .map_err(|e| bad(&e.to_string()))?
                .as_ns_f64()
        };
        let op = match op {
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            _ => Op::Ge,
        };
        Ok(Limit {
            text: s.to_string(),
            name: name.trim().to_string(),
            stat,
            op,
            value,
        })
    }

    /// The statistic's unit for measurement `m`.
    fn unit(&self, m: &Measurement) -> &'static str {
        match self.stat.as_str() {
            "count" | "unmatched" => "count",
            s if s.contains("percent") => "percent",
            _ if m.unit == "count" => "count",
            _ => "ns",
        }
    }

    /// The statistic's value; None when the measurement has no instance (only `count`
    /// and `unmatched` have a value then).
    fn actual(&self, m: &Measurement) -> Result<Option<f64>> {
        let pct = |f: fn(&super::PercentStats) -> f64| {
            m.busy_percent.as_ref().map(f).ok_or_else(|| {
                Error::usage(format!(
                    "--limit '{}': '{}' is not a busy measurement",
                    self.text, m.name
                ))
            })
        };
        let v = match self.stat.as_str() {
            "count" => return Ok(Some(m.count as f64)),
            "unmatched" => return Ok(Some(m.unmatched as f64)),
            "min" => m.min_ns,
            "max" => m.max_ns,
            "mean" => m.mean_ns,
            "stdev" => m.stdev_ns,
            "mode" => m.mode_ns,
            "p50" => m.p50_ns,
            "p90" => m.p90_ns,
            "p99" => m.p99_ns,
            "p999" => m.p999_ns,
            "p9999" => m.p9999_ns,
            "percent" => pct(|p| p.overall)?,
            "max_percent" => pct(|p| p.max)?,
            _ => pct(|p| p.mean)?,
        };
        Ok(if m.is_empty() || v.is_nan() {
            None
        } else {
            Some(v)
        })
    }
}

/// Checks every limit; an unknown measurement name is an error listing the names.
pub fn check_limits(limits: &[Limit], ms: &[Measurement]) -> Result<Vec<LimitOutcome>> {
    limits
        .iter()
        .map(|l| {
            let m = ms.iter().find(|m| m.name == l.name).ok_or_else(|| {
                Error::usage(format!(
                    "--limit '{}': no measurement named '{}'; measurements are: {}",
                    l.text,
                    l.name,
                    ms.iter()
                        .map(|m| m.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            let actual = l.actual(m)?;
            let pass = actual.is_some_and(|a| match l.op {
                Op::Lt => a < l.value,
                Op::Le => a <= l.value,
                Op::Gt => a > l.value,
                Op::Ge => a >= l.value,
            });
            Ok(LimitOutcome {
                limit: l.text.clone(),
                actual,
                bound: l.value,
                unit: l.unit(m),
                pass,
                note: actual
                    .is_none()
                    .then(|| format!("no instances of {} in the range", m.name)),
            })
        })
        .collect()
}
