//! `latscope trace --chain 'IRQ:rise->Task:switch->Out:fall'`: an end-to-end chain
//! measured in a capture or an event recording (docs/trace.md, "Chains").
//!
//! The analysis bounds a chain and the simulator observes it (docs/analysis.md,
//! "End-to-end chains"); this is the same figure measured where the system really ran:
//! from each stimulus (an edge of the first step) through every later step to the
//! output, with each hop's share. How overlapping instances are paired is in
//! [`matching`]: FIFO, each step's time used once, an instance that would need the
//! next stimulus's response counted as `unmatched`.
//!
//! A step is an edge of a capture channel (`rise`, `fall`, `any`) or, in an event
//! recording (perf, TraceRecorder, SystemView), one of an actor's own events (`ready`,
//! `switch`, `block`, `enter`, `exit`): the channel `to_capture` draws for a task rises
//! on every switch to it *and* on every return from an interrupt, so only the event says
//! "the scheduler gave it the CPU".

pub mod matching;
pub mod parse;
mod text;

use crate::error::{Error, Result};
use crate::measure::{Instance, Measurement};
use crate::tasks::summarize::summarize;
use latscope_core::capture::{Capture, Edge};
use latscope_core::events::{ActorKind, EventKind, EventTrace};
use latscope_core::stats::{Location, Samples};
use latscope_core::summary::{nan, ResultSummary};
use latscope_core::time::Picos;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use parse::parse_chain;
pub use text::text;

/// An event of an event recording's actor that a step can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// The task became ready (release, wake-up).
    Ready,
    /// The scheduler gave the CPU to the task.
    Switch,
    /// The running task left the ready state.
    Block,
    /// An interrupt handler started.
    Enter,
    /// An interrupt handler ended.
    Exit,
}

impl Word {
    fn name(self) -> &'static str {
        match self {
            Word::Ready => "ready",
            Word::Switch => "switch",
            Word::Block => "block",
            Word::Enter => "enter",
            Word::Exit => "exit",
        }
    }
    fn of(self, k: &EventKind) -> Option<u32> {
        match (self, *k) {
            (Word::Ready, EventKind::Ready(a))
            | (Word::Switch, EventKind::Switch(a))
            | (Word::Block, EventKind::Block(a))
            | (Word::Enter, EventKind::IsrEnter(a))
            | (Word::Exit, EventKind::IsrExit(a)) => Some(a),
            _ => None,
        }
    }
}

/// What happens on a step's channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum On {
    Edge(Edge),
    Event(Word),
}

/// One step: a channel (or actor) and what marks the instance's passage there.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub channel: String,
    pub on: On,
}

impl Step {
    /// `IRQ:rise`, `Task:switch`.
    pub fn label(&self) -> String {
        let w = match self.on {
            On::Edge(Edge::Rise) => "rise",
            On::Edge(Edge::Fall) => "fall",
            On::Edge(Edge::Any) => "any",
            On::Event(w) => w.name(),
        };
        format!("{}:{w}", self.channel)
    }
}

/// A parsed `--chain`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainSpec {
    /// Name in the output and in `--limit` (default: the steps, `A:rise->B:rise`).
    pub name: String,
    /// As written.
    pub definition: String,
    pub steps: Vec<Step>,
}

impl ChainSpec {
    /// A step names an event, which only an event recording has.
    pub fn needs_events(&self) -> bool {
        self.steps.iter().any(|s| matches!(s.on, On::Event(_)))
    }
    /// The capture channels the chain reads (for decoding only what is needed).
    pub fn channels(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().map(|s| s.channel.as_str())
    }
}

/// One hop of a measured chain: from a step to the next, over the complete instances.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChainLink {
    /// The hop's first step (`IRQ:rise`).
    pub from: String,
    /// Its second step.
    pub to: String,
    /// Instances that reached `from` but were unmatched at `to` (see the chain's
    /// `unmatched`).
    pub lost: u64,
    /// The hop's latency over the complete instances (so the hops of one instance add
    /// up to its total); `max_at_ns` is when that hop started.
    #[serde(flatten)]
    pub summary: ResultSummary,
}

/// A measured chain: the JSON element of `chains[]` in `latscope trace --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChainResult {
    pub name: String,
    /// The `--chain` argument as written.
    pub definition: String,
    /// The steps, `CHANNEL:EDGE` or `ACTOR:EVENT`.
    pub steps: Vec<String>,
    /// Instances that passed every step.
    pub count: u64,
    /// Instances (first-step times) that did not: the sum of the links' `lost`.
    pub unmatched: u64,
    /// First step of the instance with the longest end-to-end latency (ns from the
    /// capture start; null without a complete instance).
    pub max_at_ns: Option<f64>,
    /// End-to-end latency: last step minus first step, per complete instance.
    pub total: ResultSummary,
    /// Each hop's latency.
    pub links: Vec<ChainLink>,
    /// The longest instances, longest first (at: the first step).
    pub worst: Vec<Instance>,
    /// One sample period of the capture (one clock tick of a recording), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_ns: Option<f64>,
}

impl ChainResult {
    /// The end-to-end figure as a measurement of kind `chain`, so that `--limit
    /// 'NAME.max<5ms'` checks a chain as it checks any measurement.
    pub fn as_measurement(&self) -> Measurement {
        let t = &self.total;
        Measurement {
            name: self.name.clone(),
            kind: "chain",
            definition: self.definition.clone(),
            unit: "ns",
            count: self.count,
            min_ns: nan(t.min_ns),
            max_ns: nan(t.max_ns),
            mean_ns: nan(t.mean_ns),
            stdev_ns: nan(t.stdev_ns),
            mode_ns: nan(t.mode_ns),
            p50_ns: nan(t.p50_ns),
            p90_ns: nan(t.p90_ns),
            p99_ns: nan(t.p99_ns),
            p999_ns: nan(t.p999_ns),
            p9999_ns: nan(t.p9999_ns),
            min_at_ns: nan(t.min_at_ns),
            max_at_ns: nan(t.max_at_ns),
            min_at_sample: None,
            max_at_sample: None,
            resolution_ns: self.resolution_ns,
            unmatched: self.unmatched,
            unmatched_to: None,
            worst: self.worst.clone(),
            histogram: Vec::new(),
            frequency_hz: None,
            jitter: None,
            busy_percent: None,
            series: None,
            values: Vec::new(),
        }
    }
}

/// Where the steps' times come from.
#[derive(Clone, Copy, Debug)]
pub struct Sources<'a> {
    /// The capture (an event recording's `to_capture()`), for edges.
    pub cap: &'a Capture,
    /// The event recording itself, for `ready`/`switch`/`block`/`enter`/`exit` steps.
    pub events: Option<&'a EventTrace>,
    /// Range restriction from the capture start (`--from`, `--to`).
    pub from: Option<Picos>,
    pub to: Option<Picos>,
    /// Worst instances to list, most histogram bins.
    pub worst: usize,
    pub bins: usize,
}

/// Channel names of an event recording's actors, as `EventTrace::to_capture` gives
/// them (a repeated name gets `#2`, `#3`…).
fn actor_names(tr: &EventTrace) -> Vec<String> {
    let mut seen = std::collections::HashMap::<&str, usize>::new();
    tr.actors
        .iter()
        .map(|a| {
            let k = seen.entry(a.name.as_str()).or_insert(0);
            *k += 1;
            if *k == 1 {
                a.name.clone()
            } else {
                format!("{}#{k}", a.name)
            }
        })
        .collect()
}

impl Sources<'_> {
    /// Times of one step inside the range, sorted.
    fn times(&self, chain: &ChainSpec, step: &Step) -> Result<Vec<Picos>> {
        let s = self
            .from
            .map_or(self.cap.start, |f| self.cap.start + f)
            .max(self.cap.start);
        let e = self
            .to
            .map_or(self.cap.end, |t| self.cap.start + t)
            .min(self.cap.end);
        let mut v: Vec<Picos> = match step.on {
            On::Edge(edge) => self
                .cap
                .channel(&step.channel)?
                .edges_of(edge)
                .filter(|&t| t >= s && t <= e)
                .collect(),
            On::Event(w) => {
                let what = || format!("--chain '{}': step '{}'", chain.definition, step.label());
                let tr = self.events.ok_or_else(|| {
                    Error::usage(format!(
                        "{}: '{}' is an event of an event recording (perf.data, \
                         TraceRecorder .psf, SystemView .SVDat), and {} is a capture; \
                         use an edge: rise, fall or any",
                        what(),
                        w.name(),
                        self.cap.source
                    ))
                })?;
                let names = actor_names(tr);
                let a = step
                    .channel
                    .strip_prefix('#')
                    .and_then(|k| k.parse::<usize>().ok())
                    .filter(|&k| k < names.len())
                    .or_else(|| names.iter().position(|n| *n == step.channel))
                    .ok_or_else(|| {
                        Error::usage(format!(
                            "{}: no actor '{}' in {}; actors are: {}",
                            what(),
                            step.channel,
                            tr.source,
                            names
                                .iter()
                                .enumerate()
                                .map(|(i, n)| format!("#{i} {n}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })?;
                let kind = tr.actors.get(a).map(|x| x.kind);
                let isr = matches!(kind, Some(ActorKind::Isr | ActorKind::Tick));
                if isr != matches!(w, Word::Enter | Word::Exit) {
                    return Err(Error::usage(format!(
                        "{}: '{}' is {}, which has no '{}' events (a task: ready, switch, \
                         block; an interrupt handler: enter, exit)",
                        what(),
                        step.channel,
                        if isr {
                            "an interrupt handler"
                        } else {
                            "a task"
                        },
                        w.name()
                    )));
                }
                tr.events
                    .iter()
                    .filter(|ev| w.of(&ev.kind).is_some_and(|x| x as usize == a))
                    .map(|ev| ev.t)
                    .filter(|&t| t >= s && t <= e)
                    .collect()
            }
        };
        v.sort_unstable();
        // one instant counts once (two CPUs' events at one timestamp)
        v.dedup();
        Ok(v)
    }
}

const PS_NS: f64 = 1000.0;

/// Measures one chain.
pub fn measure(chain: &ChainSpec, src: &Sources) -> Result<ChainResult> {
    if chain.steps.len() < 2 {
        return Err(Error::usage(format!(
            "--chain '{}': a chain needs at least two steps",
            chain.definition
        )));
    }
    let steps = chain
        .steps
        .iter()
        .map(|s| src.times(chain, s))
        .collect::<Result<Vec<_>>>()?;
    // as --latency: on one channel a step's successor comes strictly after it
    let index = |c: &str| src.cap.channel_index(c).ok();
    let strict: Vec<bool> = chain
        .steps
        .windows(2)
        .map(|s| {
            s[0].channel == s[1].channel
                || index(&s[0].channel).is_some_and(|i| index(&s[1].channel) == Some(i))
        })
        .collect();
    let m = matching::follow(&steps, &strict);
    let origin = src.cap.start;
    let loc = |t: Picos| Location {
        at: t.0.saturating_sub(origin.0),
        source: 0,
    };
    let res_ps = src.cap.resolution().map(|r| r.0);
    let res = res_ps.unwrap_or(1);
    let mut total = Samples::with_capacity(m.complete.len());
    let mut hops: Vec<Samples> = (1..steps.len())
        .map(|_| Samples::with_capacity(m.complete.len()))
        .collect();
    for path in &m.complete {
        let (Some(&a), Some(&z)) = (path.first(), path.last()) else {
            continue;
        };
        total.push(z.0.saturating_sub(a.0), loc(a));
        for (k, h) in hops.iter_mut().enumerate() {
            if let (Some(&x), Some(&y)) = (path.get(k), path.get(k + 1)) {
                h.push(y.0.saturating_sub(x.0), loc(x));
            }
        }
    }
    let mut worst: Vec<(i64, i64)> = total.values().iter().map(|&(v, l)| (v, l.at)).collect();
    worst.sort_by_key(|&(v, at)| (std::cmp::Reverse(v), at));
    worst.truncate(src.worst);
    let labels: Vec<String> = chain.steps.iter().map(Step::label).collect();
    let total_summary = summarize(&mut total, res, src.bins);
    let links = hops
        .iter_mut()
        .enumerate()
        .map(|(k, h)| ChainLink {
            from: labels[k].clone(),
            to: labels[k + 1].clone(),
            lost: m.lost.get(k).copied().unwrap_or(0),
            summary: summarize(h, res, src.bins),
        })
        .collect();
    Ok(ChainResult {
        name: chain.name.clone(),
        definition: chain.definition.clone(),
        steps: labels,
        count: m.complete.len() as u64,
        unmatched: m.lost.iter().sum(),
        max_at_ns: total_summary.max_at_ns.flatten(),
        total: total_summary,
        links,
        worst: worst
            .into_iter()
            .map(|(v, at)| Instance {
                value_ns: v as f64 / PS_NS,
                at_ns: at as f64 / PS_NS,
            })
            .collect(),
        resolution_ns: res_ps.map(|r| r as f64 / PS_NS),
    })
}

/// Measures every chain, in order.
pub fn measure_all(chains: &[ChainSpec], src: &Sources) -> Result<Vec<ChainResult>> {
    chains.iter().map(|c| measure(c, src)).collect()
}

#[cfg(test)]
mod tests;
