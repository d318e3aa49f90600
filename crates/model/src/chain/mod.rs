//! End-to-end chains (`[[chain]]` in the system description): an ordered list of steps
//! (an interrupt handler, then tasks) joined by links. An `event` link releases the next
//! step when the previous one completes (a message, a queue, a notification: K4perf's
//! interrupt → handler → message → actor path); a `sampled` link lets the next step read
//! the latest value the previous one wrote, on its own period (register or shared
//! variable communication, the cause-effect chains of automotive and ROS 2 work).
//!
//! Rooms: this file (the validated types), [`analysis`] (the bounds: holistic analysis
//! for event links, maximum reaction time and data age for sampled links), [`edf`] and
//! [`edf_cores`] (tasks on EDF cores, event links across cores into or out of them), the
//! reading and writing of the tables in `system::chains`.

pub mod analysis;
pub(crate) mod cores;
pub mod edf;
pub mod edf_cores;
pub mod error;
pub mod margins;
pub mod sampled;

use latscope_core::time::Picos;
use serde::Serialize;

/// One chain, validated against the tasks and interrupts of its system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    pub name: String,
    /// At least two steps, each task or interrupt at most once.
    pub steps: Vec<Step>,
    /// `steps.len() - 1` links; `links[k]` joins `steps[k]` to `steps[k + 1]`.
    pub links: Vec<Link>,
    /// End-to-end deadline: the event bound, or for a chain with a sampled link the
    /// maximum reaction time, must not exceed it.
    pub deadline: Option<Picos>,
    /// When the readers of the chain's sampled links take their input (`read`).
    #[serde(skip_serializing_if = "ReadAt::is_release")]
    pub read: ReadAt,
}

/// When a sampled link's reader takes the latest value its writer completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadAt {
    /// At the reader job's release (the default; Davare et al.'s bound).
    #[default]
    Release,
    /// When the reader job first runs: a task that copies its inputs at the top of its
    /// loop (a FreeRTOS queue peek before the work, AUTOSAR implicit communication).
    /// Allows Dürr et al.'s tighter bound on links whose writer outranks the reader on
    /// one core ([`sampled`]).
    Start,
}

impl ReadAt {
    /// The word in the system file.
    pub fn name(self) -> &'static str {
        match self {
            ReadAt::Release => "release",
            ReadAt::Start => "start",
        }
    }

    /// Whether this is the default (skipped when written).
    pub fn is_release(&self) -> bool {
        *self == ReadAt::Release
    }
}

/// A step of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "index", rename_all = "lowercase")]
pub enum Step {
    /// Index into `System::tasks`.
    Task(usize),
    /// Index into `System::interrupts` (only as the first step).
    Interrupt(usize),
}

/// How a step hands its result to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    /// The next step is released by this step's completion.
    Event,
    /// The next step reads the latest value on its own period.
    Sampled,
}

impl Link {
    pub fn name(self) -> &'static str {
        match self {
            Link::Event => "event",
            Link::Sampled => "sampled",
        }
    }
}

impl Chain {
    /// Whether every link is an event link.
    pub fn is_event(&self) -> bool {
        self.links.iter().all(|l| *l == Link::Event)
    }
}

impl crate::system::System {
    /// The task whose completion releases task `i` through an event link of some chain
    /// (validation allows at most one).
    pub fn activator(&self, i: usize) -> Option<usize> {
        self.chains.iter().find_map(|c| {
            c.links.iter().enumerate().find_map(|(k, l)| {
                match (l, c.steps.get(k), c.steps.get(k + 1)) {
                    (Link::Event, Some(Step::Task(a)), Some(Step::Task(b))) if *b == i => Some(*a),
                    _ => None,
                }
            })
        })
    }

    /// Every event link between two tasks as `(successor, predecessor)`, successors in
    /// task order.
    pub fn event_links(&self) -> Vec<(usize, usize)> {
        (0..self.tasks.len())
            .filter_map(|b| self.activator(b).map(|a| (b, a)))
            .collect()
    }

    /// The event links whose two tasks sit on different cores, as
    /// `(successor, predecessor)`.
    pub fn cross_core_links(&self) -> Vec<(usize, usize)> {
        self.event_links()
            .into_iter()
            .filter(|&(b, a)| self.tasks[b].core != self.tasks[a].core)
            .collect()
    }

    /// The name of a step.
    pub fn step_name(&self, s: Step) -> &str {
        match s {
            Step::Task(i) => self.tasks.get(i).map_or("", |t| t.name.as_str()),
            Step::Interrupt(i) => self.interrupts.get(i).map_or("", |x| x.name.as_str()),
        }
    }
}
