//! The one event-trace model: what an RTOS trace recorder (Percepio TraceRecorder, SEGGER
//! SystemView) or a kernel scheduler trace (`perf sched record`) saw.
//!
//! A logic-analyzer capture shows what GPIO pins did; an event trace says what the kernel
//! did: which task became ready, which one the scheduler switched to, which one blocked,
//! which interrupt ran. Every importer of such a recording produces an [`EventTrace`];
//! [`EventTrace::to_capture`] turns it into the one capture model (a channel per task and
//! per interrupt, high while it runs — what the source documents did with GPIO pins), so
//! every capture measurement works on a recording unchanged, and the task-timing analysis
//! reads the events themselves (releases, blocks, lost-event windows), which only a trace
//! has.
//!
//! Times are picoseconds (as in [`Capture`]) from the recording's own time origin.

use crate::capture::{Capture, DigitalChannel};
use crate::time::Picos;
use serde::{Deserialize, Serialize};

/// What an actor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActorKind {
    /// A task (RTOS task, Linux thread): has jobs (ready → … → block).
    Task,
    /// An interrupt service routine other than the tick.
    Isr,
    /// The kernel tick interrupt (SysTick): its releases are counted per tick.
    Tick,
    /// The idle task (or Linux's swapper): runs, but has no jobs.
    Idle,
}

/// A task, an ISR, the tick or idle, as the recording names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub name: String,
    pub kind: ActorKind,
    /// The priority the recording gives (RTOS: higher number = more urgent, as FreeRTOS;
    /// Linux: the kernel's `prio`, lower = more urgent). None when not recorded.
    pub priority: Option<i64>,
    /// The recording's own identifier (TCB address, handle, pid, ISR number).
    pub id: u64,
}

/// What happened at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "actor", rename_all = "snake_case")]
pub enum EventKind {
    /// The actor became ready (periodic release, wake-up, semaphore given). A task that
    /// was blocked starts a new job here; a ready event for a task already ready is
    /// counted but starts nothing.
    Ready(u32),
    /// The scheduler switched the CPU to this task (or idle): whatever ran on that CPU
    /// before stops running (it stays ready unless a [`EventKind::Block`] said otherwise).
    Switch(u32),
    /// The task left the ready state (delay, delay-until, waiting on an object, suspend,
    /// exit): the job that was running ends here.
    Block(u32),
    /// An interrupt handler started (nested handlers nest).
    IsrEnter(u32),
    /// An interrupt handler ended.
    IsrExit(u32),
}

impl EventKind {
    /// The actor index the event is about.
    pub fn actor(self) -> u32 {
        match self {
            EventKind::Ready(a)
            | EventKind::Switch(a)
            | EventKind::Block(a)
            | EventKind::IsrEnter(a)
            | EventKind::IsrExit(a) => a,
        }
    }
}

/// One event: when, on which CPU, what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub t: Picos,
    pub cpu: u16,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Events the recorder could not keep: `count` events (0 when the recorder says only
/// that some were lost, or when the loss is inferred) somewhere between `from` and `to`,
/// on one CPU or on all of them. Every figure whose window touches such a gap on a CPU
/// it ran on is suspect, and results say so.
///
/// The fields after `to` were added later and default when absent (events JSON written
/// before them still reads): a window without a CPU applies to every CPU, one without a
/// kind is the recorder's own report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LostEvents {
    pub count: u64,
    pub from: Picos,
    pub to: Picos,
    /// The CPU whose events were lost (perf: the ring buffer's CPU, or the CPU whose
    /// events disagree); None: every CPU, or the recorder does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u16>,
    /// Reported by the recorder's counter, or inferred from events that contradict each
    /// other (then `count` is unknown and 0).
    #[serde(default)]
    pub kind: LossKind,
    /// For an inferred hole: the actor the recording shows on `cpu` right after it (perf:
    /// the task the first disagreeing event ran in). It ran there during the hole without
    /// a recorded switch to it, so its figures are suspect even where none of its own
    /// events is on that CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<u32>,
}

/// Where a lost-event window comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossKind {
    /// The recorder counted the loss (TraceRecorder's dropped counter, a SystemView
    /// overflow packet, a perf LOST record).
    #[default]
    Reported,
    /// The recorder reported nothing, but its events contradict each other (perf: a
    /// CPU's event ran in a task the last switch there did not put on it): events are
    /// missing, how many is unknown.
    Inferred,
}

impl LostEvents {
    /// A loss the recorder counted, on every CPU (or one it does not name).
    pub fn reported(count: u64, from: Picos, to: Picos) -> LostEvents {
        LostEvents {
            count,
            from,
            to,
            cpu: None,
            kind: LossKind::Reported,
            actor: None,
        }
    }

    /// A hole the recorder did not report, on `cpu`, found by an inconsistency; `actor`
    /// is the one the recording shows there right after it.
    pub fn inferred(cpu: u16, from: Picos, to: Picos, actor: Option<u32>) -> LostEvents {
        LostEvents {
            count: 0,
            from,
            to,
            cpu: Some(cpu),
            kind: LossKind::Inferred,
            actor,
        }
    }

    /// True when `[a, b]` on one of `cpus` (or of `actor`) touches this window: it
    /// overlaps in time, and the window has no CPU, names one of `cpus`, or names the
    /// actor as the one that ran unseen.
    pub fn touches(&self, a: Picos, b: Picos, cpus: &[u16], actor: Option<u32>) -> bool {
        self.from <= b
            && self.to >= a
            && match self.cpu {
                None => true,
                Some(c) => cpus.contains(&c) || (actor.is_some() && self.actor == actor),
            }
    }
}

/// A whole event recording.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventTrace {
    /// Where it came from (a file name), for messages and reports.
    pub source: String,
    /// The recorder's format ("perf", "tracerecorder", "systemview").
    pub format: String,
    /// Frequency of the recorder's timestamp clock, when known: one tick of it is the
    /// resolution of every figure.
    pub clock_hz: Option<u64>,
    pub start: Picos,
    pub end: Picos,
    /// Number of CPUs events name (`cpu` < this).
    pub cpus: u16,
    pub actors: Vec<Actor>,
    /// In time order (equal times keep the recording's order).
    pub events: Vec<Event>,
    pub lost: Vec<LostEvents>,
}

/// A recording that breaks the model's rules (an importer's bug or a corrupt file that
/// got past its checks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventTraceError {
    #[error("{source_name}: event {index} at {} ps is before the previous event", .at.0)]
    OutOfOrder {
        source_name: String,
        index: usize,
        at: Picos,
    },
    #[error("{source_name}: event {index} names actor {actor}; the recording has {actors}")]
    UnknownActor {
        source_name: String,
        index: usize,
        actor: u32,
        actors: usize,
    },
    #[error("{source_name}: event {index} names CPU {cpu}; the recording has {cpus}")]
    UnknownCpu {
        source_name: String,
        index: usize,
        cpu: u16,
        cpus: u16,
    },
    #[error("{source_name}: lost-event window {index} {what}")]
    BadLostWindow {
        source_name: String,
        index: usize,
        what: String,
    },
    #[error("{source_name}: event {index} at {} ps lies outside the recording [{}, {}] ps", .at.0, .start.0, .end.0)]
    OutOfRange {
        source_name: String,
        index: usize,
        at: Picos,
        start: Picos,
        end: Picos,
    },
}

impl EventTrace {
    /// Checks the rules every consumer relies on: events in time order inside
    /// `[start, end]`, actor and CPU indices that exist.
    pub fn validate(&self) -> Result<(), EventTraceError> {
        let mut last = Picos(i64::MIN);
        for (index, e) in self.events.iter().enumerate() {
            let err_src = || self.source.clone();
            if e.t < last {
                return Err(EventTraceError::OutOfOrder {
                    source_name: err_src(),
                    index,
                    at: e.t,
                });
            }
            last = e.t;
            if e.t < self.start || e.t > self.end {
                return Err(EventTraceError::OutOfRange {
                    source_name: err_src(),
                    index,
                    at: e.t,
                    start: self.start,
                    end: self.end,
                });
            }
            let a = e.kind.actor();
            if a as usize >= self.actors.len() {
                return Err(EventTraceError::UnknownActor {
                    source_name: err_src(),
                    index,
                    actor: a,
                    actors: self.actors.len(),
                });
            }
            if e.cpu >= self.cpus.max(1) {
                return Err(EventTraceError::UnknownCpu {
                    source_name: err_src(),
                    index,
                    cpu: e.cpu,
                    cpus: self.cpus,
                });
            }
        }
        for (index, l) in self.lost.iter().enumerate() {
            let bad = |what: String| EventTraceError::BadLostWindow {
                source_name: self.source.clone(),
                index,
                what,
            };
            if l.from > l.to {
                return Err(bad(format!(
                    "runs backwards ({} ps to {} ps)",
                    l.from.0, l.to.0
                )));
            }
            if let Some(c) = l.cpu.filter(|&c| c >= self.cpus.max(1)) {
                return Err(bad(format!(
                    "names CPU {c}; the recording has {}",
                    self.cpus
                )));
            }
            if let Some(a) = l.actor.filter(|&a| a as usize >= self.actors.len()) {
                return Err(bad(format!(
                    "names actor {a}; the recording has {}",
                    self.actors.len()
                )));
            }
        }
        Ok(())
    }

    /// Looks an actor up by name (first match).
    pub fn actor_index(&self, name: &str) -> Option<u32> {
        self.actors
            .iter()
            .position(|a| a.name == name)
            .map(|i| i as u32)
    }

    /// Total events lost (the recorders' own counters; inferred holes add 0).
    pub fn lost_total(&self) -> u64 {
        self.lost.iter().map(|l| l.count).sum()
    }

    /// The recording as a capture: one channel per actor (in actor order, named as the
    /// actor; a repeated name gets `#2`, `#3`…), high while that actor runs. A task runs
    /// from the switch to it until the next switch on its CPU, except while an interrupt
    /// handler runs there; a handler runs from its enter to its exit (nested handlers:
    /// the outer one is low while the inner one runs). Idle has a channel too.
    pub fn to_capture(&self) -> Capture {
        let n = self.actors.len();
        let mut edges: Vec<Vec<Picos>> = vec![Vec::new(); n];
        let mut high = vec![false; n];
        let cpus = usize::from(self.cpus.max(1));
        // Per CPU: the current task and the stack of running handlers.
        let mut current: Vec<Option<usize>> = vec![None; cpus];
        let mut stack: Vec<Vec<usize>> = vec![Vec::new(); cpus];
        let mut set = |a: usize, level: bool, t: Picos, edges: &mut Vec<Vec<Picos>>| {
            if high[a] != level {
                high[a] = level;
                let ch = &mut edges[a];
                // Two edges at one instant cancel (a zero-width pulse is not drawn).
                if ch.last() == Some(&t) {
                    ch.pop();
                } else {
                    ch.push(t);
                }
            }
        };
        for e in &self.events {
            let cpu = usize::from(e.cpu).min(cpus - 1);
            let a = e.kind.actor() as usize;
            if a >= n {
                continue;
            }
            match e.kind {
                EventKind::Switch(_) => {
                    if let Some(prev) = current[cpu] {
                        set(prev, false, e.t, &mut edges);
                    }
                    current[cpu] = Some(a);
                    if stack[cpu].is_empty() {
                        set(a, true, e.t, &mut edges);
                    }
                }
                EventKind::IsrEnter(_) => {
                    if let Some(&outer) = stack[cpu].last() {
                        set(outer, false, e.t, &mut edges);
                    } else if let Some(task) = current[cpu] {
                        set(task, false, e.t, &mut edges);
                    }
                    stack[cpu].push(a);
                    set(a, true, e.t, &mut edges);
                }
                EventKind::IsrExit(_) => {
                    // Exit of the innermost handler with that actor (a lost enter leaves
                    // the stack untouched).
                    if let Some(pos) = stack[cpu].iter().rposition(|&x| x == a) {
                        stack[cpu].truncate(pos);
                        set(a, false, e.t, &mut edges);
                        if let Some(&outer) = stack[cpu].last() {
                            set(outer, true, e.t, &mut edges);
                        } else if let Some(task) = current[cpu] {
                            set(task, true, e.t, &mut edges);
                        }
                    }
                }
                EventKind::Ready(_) | EventKind::Block(_) => {}
            }
        }
        let mut seen = std::collections::HashMap::<&str, usize>::new();
        let channels = self
            .actors
            .iter()
            .zip(edges)
            .map(|(actor, edges)| {
                let k = seen.entry(actor.name.as_str()).or_insert(0);
                *k += 1;
                let name = if *k == 1 {
                    actor.name.clone()
                } else {
                    format!("{}#{k}", actor.name)
                };
                DigitalChannel {
                    name,
                    initial: false,
                    edges,
                }
            })
            .collect();
        Capture {
            source: self.source.clone(),
            samplerate_hz: self.clock_hz,
            start: self.start,
            end: self.end,
            channels,
            analog: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn actor(name: &str, kind: ActorKind) -> Actor {
        Actor {
            name: name.into(),
            kind,
            priority: None,
            id: 0,
        }
    }

    fn ev(t: i64, kind: EventKind) -> Event {
        Event {
            t: Picos(t),
            cpu: 0,
            kind,
        }
    }

    /// Two tasks and a tick on one CPU: the tick interrupts A, releases B, B preempts A,
    /// blocks, A resumes.
    fn sample() -> EventTrace {
        use EventKind::*;
        EventTrace {
            source: "t".into(),
            format: "test".into(),
            clock_hz: None,
            start: Picos(0),
            end: Picos(100),
            cpus: 1,
            actors: vec![
                actor("A", ActorKind::Task),
                actor("B", ActorKind::Task),
                actor("tick", ActorKind::Tick),
            ],
            events: vec![
                ev(0, Switch(0)),
                ev(10, IsrEnter(2)),
                ev(12, Ready(1)),
                ev(15, IsrExit(2)),
                ev(15, Switch(1)),
                ev(30, Block(1)),
                ev(31, Switch(0)),
            ],
            lost: vec![],
        }
    }

    fn ps(v: &[i64]) -> Vec<Picos> {
        v.iter().map(|&x| Picos(x)).collect()
    }

    #[test]
    fn capture_has_a_channel_high_while_each_actor_runs() {
        let c = sample().to_capture();
        assert_eq!(c.channels.len(), 3);
        // A: 0..10, then (tick 10..15, B 15..31), then 31..
        assert_eq!(c.channels[0].edges, ps(&[0, 10, 31]));
        // The tick exit and the switch to B at 15: A is raised and lowered at one
        // instant, which cancels; B runs 15..31.
        assert_eq!(c.channels[1].edges, ps(&[15, 31]));
        assert_eq!(c.channels[2].edges, ps(&[10, 15]));
        let pulses: Vec<_> = c.channels[2].pulses(true).collect();
        assert_eq!(pulses, vec![(Picos(10), Picos(15))]);
    }

    #[test]
    fn validate_refuses_disorder_and_unknown_actors() {
        let mut t = sample();
        assert!(t.validate().is_ok());
        t.events[3].t = Picos(5);
        assert!(matches!(
            t.validate(),
            Err(EventTraceError::OutOfOrder { index: 3, .. })
        ));
        let mut t = sample();
        t.events[0].kind = EventKind::Switch(9);
        assert!(matches!(
            t.validate(),
            Err(EventTraceError::UnknownActor { actor: 9, .. })
        ));
        let mut t = sample();
        t.events[6].t = Picos(101);
        assert!(matches!(
            t.validate(),
            Err(EventTraceError::OutOfRange { .. })
        ));
    }

    #[test]
    fn repeated_names_get_suffixes() {
        let mut t = sample();
        t.actors[1].name = "A".into();
        let c = t.to_capture();
        assert_eq!(c.channels[0].name, "A");
        assert_eq!(c.channels[1].name, "A#2");
    }
}
