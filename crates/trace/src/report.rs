//! The `latscope trace` result: JSON document (schema in docs/trace.md), text table,
//! `--series` CSV and Perfetto counter tracks.

use crate::export::perfetto::CounterTrack;
use crate::measure::{LimitOutcome, Measurement};
use latscope_core::capture::Capture;
use latscope_core::time::{format_ns_f64, Picos};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChannelInfo {
    pub index: usize,
    pub name: String,
    pub initial: u8,
    pub edges: usize,
    /// False when the importer skipped this channel's edges because no measurement
    /// read it (large sigrok captures); `edges` is then 0.
    pub decoded: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CaptureInfo {
    pub source: String,
    pub format: String,
    pub samplerate_hz: Option<u64>,
    pub resolution_ns: Option<f64>,
    pub start_ns: f64,
    pub end_ns: f64,
    pub duration_ns: f64,
    pub channels: Vec<ChannelInfo>,
    pub analog: Vec<String>,
}

impl CaptureInfo {
    pub fn new(cap: &Capture, format: &str) -> CaptureInfo {
        CaptureInfo::with_decoded(cap, format, None)
    }
    /// `decoded`: the channels whose edges were decoded (None = all).
    pub fn with_decoded(cap: &Capture, format: &str, decoded: Option<&[String]>) -> CaptureInfo {
        CaptureInfo {
            source: cap.source.clone(),
            format: format.to_string(),
            samplerate_hz: cap.samplerate_hz,
            resolution_ns: cap.resolution().map(|r| r.as_ns_f64()),
            start_ns: cap.start.as_ns_f64(),
            end_ns: cap.end.as_ns_f64(),
            duration_ns: (cap.end - cap.start).as_ns_f64(),
            channels: cap
                .channels
                .iter()
                .enumerate()
                .map(|(i, c)| ChannelInfo {
                    index: i,
                    name: c.name.clone(),
                    initial: c.initial as u8,
                    edges: c.edges.len(),
                    decoded: decoded.is_none_or(|d| {
                        d.iter().any(|x| {
                            *x == c.name
                                || x.strip_prefix('#').and_then(|k| k.parse::<usize>().ok())
                                    == Some(i)
                        })
                    }),
                })
                .collect(),
            analog: cap.analog.iter().map(|a| a.name.clone()).collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Range {
    pub from_ns: Option<f64>,
    pub to_ns: Option<f64>,
}

latscope_core::words!(fn kind_word = ["trace"]);

/// The whole JSON document (`latscope trace --json`; docs/trace.schema.json is generated
/// from it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    #[serde(deserialize_with = "kind_word")]
    #[schemars(extend("const" = "trace"))]
    pub kind: latscope_core::words::Word,
    pub schema_version: u32,
    pub capture: CaptureInfo,
    pub range: Range,
    pub measurements: Vec<Measurement>,
    /// End-to-end chains measured with `--chain`; absent when none was asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<crate::chain::ChainResult>,
    pub limits: Vec<LimitOutcome>,
    /// False when any limit failed.
    pub pass: bool,
}

impl Report {
    /// Reads a `trace --json` result back (per-instance values are not in the JSON).
    pub fn from_json(text: &str) -> std::result::Result<Report, serde_json::Error> {
        serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
    }

    pub fn new(
        cap: &Capture,
        format: &str,
        from: Option<Picos>,
        to: Option<Picos>,
        measurements: Vec<Measurement>,
        limits: Vec<LimitOutcome>,
    ) -> Report {
        let pass = limits.iter().all(|l| l.pass);
        Report {
            kind: "trace",
            schema_version: 1,
            capture: CaptureInfo::new(cap, format),
            range: Range {
                from_ns: from.map(|p| p.as_ns_f64()),
                to_ns: to.map(|p| p.as_ns_f64()),
            },
            measurements,
            chains: Vec::new(),
            limits,
            pass,
        }
    }

    /// Marks each channel as decoded or not, one flag per channel of `cap` (as
    /// [`crate::import::Merged::decoded`] gives them).
    pub fn set_decoded_flags(&mut self, cap: &Capture, decoded: &[bool]) {
        self.capture = CaptureInfo::with_decoded(cap, &self.capture.format, None);
        for (c, d) in self.capture.channels.iter_mut().zip(decoded) {
            c.decoded = *d;
        }
    }

    /// Human-readable summary.
    pub fn text(&self) -> String {
        let c = &self.capture;
        let mut s = format!(
            "{} ({}): {} channels, {}, {}\n",
            c.source,
            c.format,
            c.channels.len(),
            format_ns_f64(c.duration_ns),
            match (c.samplerate_hz, c.resolution_ns) {
                (Some(r), Some(res)) => format!("{} Hz, resolution ±{}", r, format_ns_f64(res)),
                _ => "sample rate unknown".into(),
            }
        );
        for m in &self.measurements {
            let f = |v: f64| {
                if m.unit == "count" {
                    format!("{v}")
                } else {
                    format_ns_f64(v)
                }
            };
            s += &format!("\n{} [{}: {}]\n", m.name, m.kind, m.definition);
            if m.count == 0 {
                s += "  no instances\n";
            } else {
                s += &format!(
                    "  count {}  min {} (at {})  max {} (at {})\n  mean {}  stdev {}  mode {}\n  p50 {}  p90 {}  p99 {}  p99.9 {}  p99.99 {}\n",
                    m.count,
                    f(m.min_ns),
                    format_ns_f64(m.min_at_ns),
                    f(m.max_ns),
                    format_ns_f64(m.max_at_ns),
                    f(m.mean_ns),
                    f(m.stdev_ns),
                    f(m.mode_ns),
                    f(m.p50_ns),
                    f(m.p90_ns),
                    f(m.p99_ns),
                    f(m.p999_ns),
                    f(m.p9999_ns)
                );
            }
            if m.unmatched > 0 || m.unmatched_to.is_some_and(|u| u > 0) {
                s += &format!(
                    "  unmatched: {} start events, {} end events\n",
                    m.unmatched,
                    m.unmatched_to.unwrap_or(0)
                );
            }
            if let Some(fr) = m.frequency_hz {
                s += &format!("  frequency {fr:.6} Hz\n");
            }
            if let Some(j) = &m.jitter {
                s += &format!(
                    "  jitter vs {}: min {} max {} rms {}\n",
                    format_ns_f64(j.nominal_ns),
                    format_ns_f64(j.min_ns),
                    format_ns_f64(j.max_ns),
                    format_ns_f64(j.rms_ns)
                );
            }
            if let Some(b) = &m.busy_percent {
                if m.is_empty() {
                    s += &format!("  busy {:.3} % overall; no windows\n", b.overall);
                } else {
                    s += &format!(
                        "  busy {:.3} % overall; per window min {:.3} % max {:.3} % mean {:.3} %\n",
                        b.overall, b.min, b.max, b.mean
                    );
                }
            }
            if !m.worst.is_empty() && m.count > 1 {
                s += "  worst:";
                for w in &m.worst {
                    s += &format!(" {} at {};", f(w.value_ns), format_ns_f64(w.at_ns));
                }
                s.pop();
                s.push('\n');
            }
            if let Some(r) = m.resolution_ns {
                if m.unit != "count" {
                    s += &format!("  resolution ±{} (one sample)\n", format_ns_f64(r));
                }
            }
        }
        s += &crate::chain::text(&self.chains);
        for l in &self.limits {
            s += &format!(
                "\nlimit {}: {} ({})\n",
                l.limit,
                if l.pass { "PASS" } else { "FAIL" },
                l.actual_text()
            );
        }
        s
    }
}

/// `--series`: `measurement,kind,at_ns,value,unit`, one row per instance (busy: the
/// percent of each window).
pub fn write_series<W: Write>(ms: &[Measurement], w: W) -> io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(["measurement", "kind", "at_ns", "value", "unit"])?;
    for m in ms {
        let unit = match m.kind {
            "busy" => "percent",
            "count" => "count",
            _ => "ns",
        };
        for (t, v) in &m.values {
            let (t, v) = (t.to_string(), v.to_string());
            out.write_record([m.name.as_str(), m.kind, t.as_str(), v.as_str(), unit])?;
        }
    }
    out.flush()
}

/// One Perfetto counter track per measurement (value against time).
pub fn counter_tracks(ms: &[Measurement], cap_start: Picos) -> Vec<CounterTrack> {
    ms.iter()
        .map(|m| CounterTrack {
            name: match m.kind {
                "busy" => format!("{} %", m.name),
                "count" => m.name.clone(),
                _ => format!("{} (ns)", m.name),
            },
            points: m
                .values
                .iter()
                .map(|&(t, v)| (Picos(cap_start.0 + (t * 1000.0).round() as i64), v))
                .collect(),
        })
        .collect()
}
