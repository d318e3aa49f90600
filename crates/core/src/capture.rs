//! The one capture model: what a logic analyzer, a scope or the simulator saw.
//!
//! A digital channel is its level at the capture start plus the times at which it
//! toggled. Edge lists, not sample arrays: a 50 M-sample capture of a 1 kHz tick is a
//! few thousand edges, and every timing figure (pulse width, latency, period) is a
//! difference of edge times.

use crate::time::Picos;
use serde::{Deserialize, Serialize};

/// A digital channel: initial level and toggle times (strictly increasing).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DigitalChannel {
    pub name: String,
    pub initial: bool,
    pub edges: Vec<Picos>,
}

/// An analog channel sampled at a fixed interval from `start`. `values` is empty when
/// an import measured only some channels: the channel is listed, and its samples were
/// not kept (a measured one was thresholded while read into a digital channel of the
/// same name).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AnalogChannel {
    pub name: String,
    pub start: Picos,
    pub interval: Picos,
    pub values: Vec<f32>,
}

/// A whole capture. Times are picoseconds from the capture's time origin (the trigger
/// point where the source has one, so `start` may be negative for pre-trigger data).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// Where it came from (a file name, "simulation"), for messages and reports.
    pub source: String,
    /// Sample rate of the instrument, when known: it sets the ±1 sample resolution.
    pub samplerate_hz: Option<u64>,
    pub start: Picos,
    pub end: Picos,
    pub channels: Vec<DigitalChannel>,
    pub analog: Vec<AnalogChannel>,
}

/// Which edge of a digital signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Edge {
    Rise,
    Fall,
    Any,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    #[error("no channel '{name}' in {source_name}; channels are: {available}")]
    UnknownChannel {
        name: String,
        source_name: String,
        available: String,
    },
    /// A name shared by several channels (a capture may repeat names): the user
    /// must pick one by index.
    #[error("{source_name}: channel name '{name}' is ambiguous ({candidates}): use #N")]
    AmbiguousChannel {
        name: String,
        source_name: String,
        /// "#0, #1"
        candidates: String,
    },
    #[error("channel '{channel}': edge {index} at {at} ps is not after the previous one")]
    NonMonotonic {
        channel: String,
        index: usize,
        at: i64,
    },
    #[error("channel '{channel}': edge at {at} ps lies outside the capture [{start}, {end}] ps")]
    OutOfRange {
        channel: String,
        at: i64,
        start: i64,
        end: i64,
    },
}

impl DigitalChannel {
    /// Level just after time `t` (an edge at exactly `t` has already happened).
    pub fn level_at(&self, t: Picos) -> bool {
        let n = self.edges.partition_point(|&e| e <= t);
        self.initial ^ (n & 1 == 1)
    }
    /// Level right after edge `i`.
    pub fn level_after(&self, i: usize) -> bool {
        self.initial ^ (i & 1 == 0)
    }
    /// Times of edges of the given kind, in order.
    pub fn edges_of(&self, kind: Edge) -> impl Iterator<Item = Picos> + '_ {
        self.edges.iter().enumerate().filter_map(move |(i, &t)| {
            let rising = self.level_after(i);
            match kind {
                Edge::Any => Some(t),
                Edge::Rise if rising => Some(t),
                Edge::Fall if !rising => Some(t),
                _ => None,
            }
        })
    }
    /// Complete pulses at `level` as (start, end): both edges inside the capture.
    pub fn pulses(&self, level: bool) -> impl Iterator<Item = (Picos, Picos)> + '_ {
        // A pulse at `level` starts at an edge after which the channel is at `level`.
        let first = if self.level_after(0) == level { 0 } else { 1 };
        self.edges
            .iter()
            .skip(first)
            .step_by(2)
            .zip(self.edges.iter().skip(first + 1).step_by(2))
            .map(|(&a, &b)| (a, b))
    }
}

impl Capture {
    /// Looks a channel up by name or by `#index`; the error lists the channels there are.
    /// A name that several channels share is an error listing their indices (never a
    /// silent pick of the first one).
    pub fn channel_index(&self, name: &str) -> Result<usize, CaptureError> {
        if let Some(ix) = name.strip_prefix('#').and_then(|s| s.parse::<usize>().ok()) {
            if ix < self.channels.len() {
                return Ok(ix);
            }
        }
        let mut hits = self
            .channels
            .iter()
            .enumerate()
            .filter(|(_, c)| c.name == name)
            .map(|(i, _)| i);
        if let Some(i) = hits.next() {
            let rest: Vec<usize> = hits.collect();
            if rest.is_empty() {
                return Ok(i);
            }
            return Err(CaptureError::AmbiguousChannel {
                name: name.into(),
                source_name: self.source.clone(),
                candidates: std::iter::once(i)
                    .chain(rest)
                    .map(|k| format!("#{k}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Err(CaptureError::UnknownChannel {
            name: name.into(),
            source_name: self.source.clone(),
            available: self.channel_list(),
        })
    }
    pub fn channel(&self, name: &str) -> Result<&DigitalChannel, CaptureError> {
        Ok(&self.channels[self.channel_index(name)?])
    }
    /// "#0 SysTick, #1 PendSV, …" for error messages and `--list`.
    pub fn channel_list(&self) -> String {
        if self.channels.is_empty() {
            return "(none)".into();
        }
        self.channels
            .iter()
            .enumerate()
            .map(|(i, c)| format!("#{i} {}", c.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
    /// One sample period, the resolution of every edge time (None when unknown).
    pub fn resolution(&self) -> Option<Picos> {
        self.samplerate_hz
            .filter(|&r| r > 0)
            .map(|r| Picos((crate::time::PS_PER_S as u64 / r) as i64))
    }
    /// Checks the invariants every consumer relies on: edges strictly increasing and
    /// inside [start, end].
    pub fn validate(&self) -> Result<(), CaptureError> {
        for c in &self.channels {
            for (i, w) in c.edges.windows(2).enumerate() {
                if w[1] <= w[0] {
                    return Err(CaptureError::NonMonotonic {
                        channel: c.name.clone(),
                        index: i + 1,
                        at: w[1].0,
                    });
                }
            }
            if let (Some(f), Some(l)) = (c.edges.first(), c.edges.last()) {
                for e in [f, l] {
                    if *e < self.start || *e > self.end {
                        return Err(CaptureError::OutOfRange {
                            channel: c.name.clone(),
                            at: e.0,
                            start: self.start.0,
                            end: self.end.0,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch() -> DigitalChannel {
        DigitalChannel {
            name: "T".into(),
            initial: false,
            edges: vec![Picos(10), Picos(15), Picos(30), Picos(42)],
        }
    }

    #[test]
    fn levels_and_pulses() {
        let c = ch();
        assert!(!c.level_at(Picos(9)));
        assert!(c.level_at(Picos(10)));
        assert!(!c.level_at(Picos(20)));
        assert_eq!(
            c.pulses(true).collect::<Vec<_>>(),
            vec![(Picos(10), Picos(15)), (Picos(30), Picos(42))]
        );
        assert_eq!(
            c.pulses(false).collect::<Vec<_>>(),
            vec![(Picos(15), Picos(30))]
        );
        assert_eq!(
            c.edges_of(Edge::Fall).collect::<Vec<_>>(),
            vec![Picos(15), Picos(42)]
        );
        let mut hi = ch();
        hi.initial = true;
        assert_eq!(
            hi.edges_of(Edge::Rise).collect::<Vec<_>>(),
            vec![Picos(15), Picos(42)]
        );
    }

    #[test]
    fn lookup_and_validation() {
        let mut cap = Capture {
            source: "x.vcd".into(),
            start: Picos(0),
            end: Picos(100),
            channels: vec![ch()],
            ..Default::default()
        };
        assert_eq!(cap.channel_index("#0").unwrap(), 0);
        assert_eq!(cap.channel_index("T").unwrap(), 0);
        let e = cap.channel_index("Tick").unwrap_err().to_string();
        assert!(e.contains("x.vcd") && e.contains("#0 T"), "{e}");
        assert!(cap.validate().is_ok());
        // a repeated name is ambiguous: an error naming the candidates, never the first
        let mut dup = cap.clone();
        dup.channels.push(ch());
        let e = dup.channel_index("T").unwrap_err();
        assert!(matches!(e, CaptureError::AmbiguousChannel { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("channel name 'T' is ambiguous (#0, #1): use #N") && e.contains("x.vcd"),
            "{e}"
        );
        assert_eq!(dup.channel_index("#1").unwrap(), 1);
        cap.channels[0].edges[2] = Picos(12);
        assert!(matches!(
            cap.validate(),
            Err(CaptureError::NonMonotonic { index: 2, .. })
        ));
        cap.channels[0].edges = vec![Picos(200)];
        assert!(matches!(
            cap.validate(),
            Err(CaptureError::OutOfRange { .. })
        ));
    }
}
