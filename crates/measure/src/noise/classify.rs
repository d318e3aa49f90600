//! What one noise gap was made of, from the trace events of its CPU inside it.
//!
//! The gap `[start, end]` is the time the spinning thread did not see its clock move.
//! Walking the events in it in time order, every stretch belongs to the innermost
//! context running then: an NMI, else an interrupt handler (numbered IRQ or x86
//! vector), else a softirq, else a thread the scheduler switched to. A gap without any
//! event is **hardware or hypervisor noise** (`hw`, the definition of the kernel's
//! hwnoise tracer: nothing the kernel records took the time). Time inside a gap that
//! has events but that no handler or thread covers (kernel entry and exit, the
//! tracepoints' own cost, or the hypervisor) is `unaccounted`, never silently given to
//! a neighbour; so is the stretch before the trace first shows a thread it never
//! switched to (an event naming it as current, or a switch away from it), which counts
//! that thread's run. The parts of a gap add up to its length exactly.

use super::events::{NoiseEvent, What};

/// A noise gap seen by the spinning thread of `cpu` (CLOCK_MONOTONIC ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gap {
    pub cpu: u32,
    pub start: i64,
    pub end: i64,
}

impl Gap {
    pub fn len(&self) -> i64 {
        self.end.saturating_sub(self.start).max(0)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where noise time went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    Hw,
    Nmi,
    Irq,
    Softirq,
    Thread,
    /// Inside a gap with events, covered by none of them.
    Unaccounted,
    /// Not classified: no tracer, lost trace events, or the hand-over to the trace
    /// reader was full.
    Unclassified,
}

impl Source {
    pub const ALL: [Source; 7] = [
        Source::Hw,
        Source::Nmi,
        Source::Irq,
        Source::Softirq,
        Source::Thread,
        Source::Unaccounted,
        Source::Unclassified,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Hw => "hw",
            Source::Nmi => "nmi",
            Source::Irq => "irq",
            Source::Softirq => "softirq",
            Source::Thread => "thread",
            Source::Unaccounted => "unaccounted",
            Source::Unclassified => "unclassified",
        }
    }
}

/// Who, within a source: an interrupt (number or vector), a softirq, a thread (pid), an
/// NMI handler.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Who {
    pub name: String,
    pub pid: Option<i32>,
    pub irq: Option<u32>,
    pub vector: Option<u32>,
}

/// One share of a gap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub source: Source,
    pub who: Who,
    pub ns: i64,
    /// Handler runs (NMI, IRQ, softirq) that began in the gap; for a thread the times
    /// the scheduler switched to it (1 when it held the CPU when the gap began); for
    /// `hw` and `unaccounted` 1.
    pub count: u64,
}

/// Deepest nesting of handlers followed; deeper entries are counted to the innermost.
const MAX_DEPTH: usize = 16;

/// Resolution of ftrace's text timestamps: microseconds, rounded down. An event stamped
/// `ts` happened in `[ts, ts + 1 us)`, so one stamped up to 1 us before a gap's start
/// may lie inside it. (An entry or a switch away from the spinner that early can only
/// be inside it: the spinner was reading its clock until the start. An exit or a switch
/// back that early may belong to the gap before: it is then held no time and counted
/// nowhere.)
pub const TS_RESOLUTION_NS: i64 = 1_000;

/// A context that holds the CPU: a handler on the stack or a thread.
#[derive(Clone, Debug)]
struct Ctx {
    source: Source,
    who: Who,
}

/// What starts or ends at a point in time.
enum Act {
    Push(Ctx),
    Pop(Source, Who),
    /// A switch away from the first thread (pid and name) to the second.
    Switch(Who, Who),
    /// The task an event inside the gap names as current (its line's prefix).
    Current(Who),
}

/// A point: its time, its rank among points of one time (NMIs first), what happens.
type Point = (i64, u8, Act);

/// The parts of `gap`. `events`: the gap's CPU's events in time order (others are
/// skipped, and so are events outside the gap); `own_tid`: the spinning thread.
pub fn classify(gap: Gap, events: &[NoiseEvent], own_tid: i32) -> Vec<Part> {
    let mut walk = Walk {
        own_tid,
        parts: Vec::new(),
        stack: Vec::new(),
        thread: None,
        last: gap.start,
        uncovered: 0,
        had_events: false,
    };
    for (t, _, act) in points(gap, events) {
        walk.step(t.clamp(walk.last, gap.end), act);
    }
    walk.finish(gap)
}

/// The points in time of the gap's CPU's events that can lie in the gap, sorted. An NMI
/// is known at its end, with its length: it becomes a start and an end point.
fn points(gap: Gap, events: &[NoiseEvent]) -> Vec<Point> {
    let mut points: Vec<Point> = Vec::new();
    for e in events.iter().filter(|e| e.cpu == gap.cpu) {
        match &e.what {
            What::Nmi { handler, delta_ns } => {
                let from = e.ts.saturating_sub(*delta_ns);
                if e.ts <= gap.start - TS_RESOLUTION_NS || from > gap.end {
                    continue;
                }
                let who = Who {
                    name: handler.clone(),
                    ..Who::default()
                };
                points.push((
                    from.max(gap.start),
                    0,
                    Act::Push(Ctx {
                        source: Source::Nmi,
                        who: who.clone(),
                    }),
                ));
                points.push((e.ts.min(gap.end), 1, Act::Pop(Source::Nmi, who)));
            }
            _ if e.ts <= gap.start - TS_RESOLUTION_NS || e.ts > gap.end => {}
            what => {
                // The task an event names is current at its time. A switch names the
                // task it leaves, which the switch itself says; a stamp before the
                // start may name the task of the gap before.
                if let (Some((pid, comm)), false, true) = (
                    &e.task,
                    matches!(what, What::Switch { .. }),
                    e.ts >= gap.start,
                ) {
                    let who = Who {
                        name: comm.clone(),
                        pid: Some(*pid),
                        ..Who::default()
                    };
                    points.push((e.ts, 2, Act::Current(who)));
                }
                points.extend(act_of(what).map(|a| (e.ts, 2, a)));
            }
        }
    }
    // Stable: events of one time keep their order; NMI points go first.
    points.sort_by_key(|p| (p.0, p.1));
    points
}

/// What an event other than an NMI starts or ends.
fn act_of(what: &What) -> Option<Act> {
    Some(match what {
        What::IrqEntry { irq, vector, name } => Act::Push(Ctx {
            source: Source::Irq,
            who: Who {
                name: name.clone(),
                pid: None,
                irq: *irq,
                vector: *vector,
            },
        }),
        What::IrqExit { irq, vector, name } => Act::Pop(
            Source::Irq,
            Who {
                name: name.clone(),
                irq: *irq,
                vector: *vector,
                ..Who::default()
            },
        ),
        What::SoftirqEntry { vec, name } => Act::Push(Ctx {
            source: Source::Softirq,
            who: Who {
                name: name.clone(),
                irq: Some(*vec),
                ..Who::default()
            },
        }),
        What::SoftirqExit { vec } => Act::Pop(
            Source::Softirq,
            Who {
                irq: Some(*vec),
                ..Who::default()
            },
        ),
        What::Switch {
            prev_pid,
            prev_comm,
            next_pid,
            next_comm,
        } => Act::Switch(
            Who {
                name: prev_comm.clone(),
                pid: Some(*prev_pid),
                ..Who::default()
            },
            Who {
                name: next_comm.clone(),
                pid: Some(*next_pid),
                ..Who::default()
            },
        ),
        // Two points, made by `points` from its end and length.
        What::Nmi { .. } => return None,
    })
}

/// Adds `ns` and `count` to the part of (`source`, `who`), creating it.
fn add(parts: &mut Vec<Part>, source: Source, who: &Who, ns: i64, count: u64) {
    if ns <= 0 && count == 0 {
        return;
    }
    match parts
        .iter_mut()
        .find(|p| p.source == source && p.who == *who)
    {
        Some(p) => {
            p.ns = p.ns.saturating_add(ns.max(0));
            p.count = p.count.saturating_add(count);
        }
        None => parts.push(Part {
            source,
            who: who.clone(),
            ns: ns.max(0),
            count,
        }),
    }
}

/// The walk through a gap's points, in time order.
struct Walk {
    own_tid: i32,
    parts: Vec<Part>,
    /// Open handlers, innermost last (at most [`MAX_DEPTH`]).
    stack: Vec<Ctx>,
    /// The thread on the CPU when it is not the spinning one.
    thread: Option<Who>,
    /// The time up to which the gap is shared out.
    last: i64,
    uncovered: i64,
    /// Whether anything in the gap took time or began in it (stale exits do not count).
    had_events: bool,
}

impl Walk {
    /// Gives the stretch up to `t` (clamped into the gap) to its owner, then applies
    /// `act`.
    fn step(&mut self, t: i64, act: Act) {
        let slice = t - self.last;
        if let Act::Current(who) = act {
            self.current(t, slice, who);
            return;
        }
        if let Some(prev) = self.missed_switch(&act) {
            self.missed(slice, &prev);
            self.last = t;
            self.apply(act);
            return;
        }
        match self.owner(&act) {
            Some((s, w)) => {
                // An exit with nothing open, inside the gap, still is one run of its
                // handler (or of its thread).
                let count = u64::from(
                    slice > 0
                        && self.stack.is_empty()
                        && self.thread.is_none()
                        && matches!(act, Act::Pop(..) | Act::Switch(..)),
                );
                self.had_events |= slice > 0;
                add(&mut self.parts, s, &w, slice, count)
            }
            None => self.uncovered += slice,
        }
        self.last = t;
        self.apply(act);
    }

    /// An event names `who` as the current task (outside any handler). When the walk
    /// holds another thread, the switch between them is missing: the stretch before is
    /// unaccounted and `who` counts one run from here (this kernel records no switch
    /// when the CPU leaves its idle task, so a thread woken from idle is first seen in
    /// its own events). When the walk holds none, `who` held the CPU since the last
    /// point, as for a switch away from it.
    fn current(&mut self, t: i64, slice: i64, who: Who) {
        let held = self.thread.as_ref().map_or(Some(self.own_tid), |w| w.pid);
        if !self.stack.is_empty() || who.pid == held {
            return;
        }
        if self.thread.is_none() {
            add(&mut self.parts, Source::Thread, &who, slice, 1);
            self.had_events = true;
        } else {
            self.missed(slice, &who);
        }
        self.last = t;
        self.thread = (who.pid != Some(self.own_tid)).then_some(who);
    }

    /// The trace lacks the switch to `who`, seen running after a stretch of `slice`
    /// since the last point. Who held that stretch is not known (the thread held, then
    /// `who`): it is unaccounted. `who` counts one run, unless it is the spinner.
    fn missed(&mut self, slice: i64, who: &Who) {
        self.uncovered += slice;
        self.had_events = true;
        if who.pid != Some(self.own_tid) {
            add(&mut self.parts, Source::Thread, who, 0, 1);
        }
    }

    /// A switch away from a thread other than the one the walk holds: the trace lacks
    /// the switch to it. Seen on Linux 6.18 in a VM while RT throttling holds a
    /// real-time spinner: the CPU idles, and neither the wake-up of a higher real-time
    /// thread nor the switch from idle to it is recorded, only its switch back.
    fn missed_switch(&self, act: &Act) -> Option<Who> {
        match (self.stack.last(), &self.thread, act) {
            (None, Some(w), Act::Switch(prev, _)) if w.pid != prev.pid => Some(prev.clone()),
            _ => None,
        }
    }

    /// Who held the stretch up to a point with `act`. A handler or thread that ends
    /// there with nothing open before it began before the gap's first event: it held it.
    fn owner(&self, act: &Act) -> Option<(Source, Who)> {
        match (self.stack.last(), &self.thread, act) {
            (Some(c), _, _) => Some((c.source, c.who.clone())),
            (None, Some(w), _) => Some((Source::Thread, w.clone())),
            (None, None, Act::Pop(s, w)) => Some((*s, w.clone())),
            (None, None, Act::Switch(prev, _)) if prev.pid != Some(self.own_tid) => {
                Some((Source::Thread, prev.clone()))
            }
            _ => None,
        }
    }

    /// Opens or closes a handler, or switches thread; counts what begins.
    fn apply(&mut self, act: Act) {
        match act {
            Act::Push(c) => {
                self.had_events = true;
                add(&mut self.parts, c.source, &c.who, 0, 1);
                if self.stack.len() < MAX_DEPTH {
                    self.stack.push(c);
                }
            }
            Act::Pop(s, _) => {
                if self.stack.last().is_some_and(|c| c.source == s) {
                    self.stack.pop();
                }
            }
            Act::Current(_) => {}
            Act::Switch(_, next) => {
                self.thread = if next.pid == Some(self.own_tid) {
                    None
                } else {
                    self.had_events = true;
                    add(&mut self.parts, Source::Thread, &next, 0, 1);
                    Some(next)
                };
            }
        }
    }

    /// Gives the rest of the gap to what is still open, names and merges the parts, and
    /// adds `hw` (no event) or `unaccounted` (time nothing covered).
    fn finish(mut self, gap: Gap) -> Vec<Part> {
        let slice = gap.end - self.last;
        match (self.stack.last(), &self.thread) {
            (Some(c), _) => add(&mut self.parts, c.source, &c.who, slice, 0),
            (None, Some(w)) => add(&mut self.parts, Source::Thread, w, slice, 0),
            (None, None) => self.uncovered += slice,
        }
        name_threads(&mut self.parts);
        let mut merged = merge(self.parts);
        if !self.had_events {
            merged.push(Part {
                source: Source::Hw,
                who: Who::default(),
                ns: gap.len(),
                count: 1,
            });
        } else if self.uncovered > 0 {
            merged.push(Part {
                source: Source::Unaccounted,
                who: Who::default(),
                ns: self.uncovered,
                count: 1,
            });
        }
        merged
    }
}

/// Threads named only by a switch away from them get their name from another part.
fn name_threads(parts: &mut [Part]) {
    let names: Vec<(i32, String)> = parts
        .iter()
        .filter(|p| p.source == Source::Thread && !p.who.name.is_empty())
        .filter_map(|p| Some((p.who.pid?, p.who.name.clone())))
        .collect();
    for p in parts.iter_mut().filter(|p| p.who.name.is_empty()) {
        if let Some((_, n)) = names.iter().find(|(pid, _)| Some(*pid) == p.who.pid) {
            p.who.name = n.clone();
        }
    }
}

/// Parts that became equal once named, merged (first place kept).
fn merge(parts: Vec<Part>) -> Vec<Part> {
    let mut merged: Vec<Part> = Vec::with_capacity(parts.len() + 1);
    for p in parts {
        match merged
            .iter_mut()
            .find(|m| m.source == p.source && m.who == p.who)
        {
            Some(m) => {
                m.ns = m.ns.saturating_add(p.ns);
                m.count = m.count.saturating_add(p.count);
            }
            None => merged.push(p),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: i32 = 100;

    fn ev(ts: i64, what: What) -> NoiseEvent {
        NoiseEvent {
            cpu: 1,
            ts,
            task: None,
            what,
        }
    }
    /// The same event with the task its line names as current.
    fn by(mut e: NoiseEvent, pid: i32, comm: &str) -> NoiseEvent {
        e.task = Some((pid, comm.into()));
        e
    }
    fn irq_in(ts: i64, irq: u32) -> NoiseEvent {
        ev(
            ts,
            What::IrqEntry {
                irq: Some(irq),
                vector: None,
                name: format!("dev{irq}"),
            },
        )
    }
    fn irq_out(ts: i64, irq: u32) -> NoiseEvent {
        ev(
            ts,
            What::IrqExit {
                irq: Some(irq),
                vector: None,
                name: String::new(),
            },
        )
    }
    fn switch(ts: i64, prev: i32, next: i32, comm: &str) -> NoiseEvent {
        ev(
            ts,
            What::Switch {
                prev_pid: prev,
                prev_comm: String::new(),
                next_pid: next,
                next_comm: comm.into(),
            },
        )
    }
    fn total(parts: &[Part]) -> i64 {
        parts.iter().map(|p| p.ns).sum()
    }
    fn of(parts: &[Part], s: Source) -> (u64, i64) {
        parts
            .iter()
            .filter(|p| p.source == s)
            .fold((0, 0), |a, p| (a.0 + p.count, a.1 + p.ns))
    }
    const GAP: Gap = Gap {
        cpu: 1,
        start: 1_000,
        end: 11_000,
    };

    #[test]
    fn a_gap_no_event_covers_is_hardware() {
        // Events of another CPU and outside the gap do not count.
        let mut other = irq_in(5_000, 9);
        other.cpu = 0;
        let p = classify(GAP, &[irq_in(-2_000, 3), irq_out(-1_500, 3), other], OWN);
        assert_eq!(p.len(), 1);
        assert_eq!(of(&p, Source::Hw), (1, GAP.len()));
    }

    #[test]
    fn a_gap_covered_by_an_interrupt_is_irq_and_the_rest_unaccounted() {
        let p = classify(GAP, &[irq_in(1_500, 36), irq_out(9_500, 36)], OWN);
        assert_eq!(of(&p, Source::Irq), (1, 8_000));
        let row = p.iter().find(|p| p.source == Source::Irq).unwrap();
        assert_eq!((row.who.irq, row.who.name.as_str()), (Some(36), "dev36"));
        // Entry and exit overhead around the handler: nobody's, said so.
        assert_eq!(of(&p, Source::Unaccounted), (1, 2_000));
        assert_eq!(of(&p, Source::Hw), (0, 0));
        assert_eq!(total(&p), GAP.len());
    }

    #[test]
    fn nesting_gives_each_stretch_to_the_innermost_context() {
        let events = [
            switch(2_000, OWN, 42, "burster"),
            irq_in(3_000, 7),
            ev(
                4_000,
                What::SoftirqEntry {
                    vec: 3,
                    name: "NET_RX".into(),
                },
            ),
            // An NMI of 500 ns that ended at 4_700, inside the softirq.
            ev(
                4_700,
                What::Nmi {
                    handler: "perf".into(),
                    delta_ns: 500,
                },
            ),
            ev(5_000, What::SoftirqExit { vec: 3 }),
            irq_out(5_500, 7),
            switch(10_000, 42, OWN, "spinner"),
        ];
        let p = classify(GAP, &events, OWN);
        assert_eq!(of(&p, Source::Nmi), (1, 500));
        assert_eq!(of(&p, Source::Softirq), (1, 500));
        // irq 3_000..4_000 and 5_000..5_500
        assert_eq!(of(&p, Source::Irq), (1, 1_500));
        // thread 2_000..3_000 and 5_500..10_000
        assert_eq!(of(&p, Source::Thread), (1, 5_500));
        let t = p.iter().find(|p| p.source == Source::Thread).unwrap();
        assert_eq!((t.who.pid, t.who.name.as_str()), (Some(42), "burster"));
        assert_eq!(of(&p, Source::Unaccounted), (1, 2_000));
        assert_eq!(total(&p), GAP.len());
    }

    #[test]
    fn a_thread_that_ran_until_the_first_event_is_named_by_the_switch_back() {
        // The switch to the thread lies before the gap (the trace lost it, say).
        let events = [
            switch(-500, OWN, 42, "burster"),
            switch(8_000, 42, 43, "other"),
            switch(10_500, 43, OWN, "spinner"),
        ];
        let p = classify(GAP, &events, OWN);
        assert_eq!(thread(&p, 42), Some((1, 7_000, String::new())));
        assert_eq!(thread(&p, 43), Some((1, 2_500, "other".to_string())));
        assert_eq!(of(&p, Source::Thread).0, 2, "two threads ran");
        assert_eq!(total(&p), GAP.len());
    }

    #[test]
    fn a_switch_away_from_a_thread_never_switched_to_leaves_its_stretch_unaccounted() {
        // RT throttling holds the spinner and the CPU idles; the switch from idle to a
        // higher real-time thread is missing, only its switch back is recorded.
        let mut back = switch(10_800, 42, OWN, "spinner");
        if let What::Switch { prev_comm, .. } = &mut back.what {
            *prev_comm = "burster".into();
        }
        let events = [
            switch(1_500, OWN, 0, "swapper/1"),
            irq_in(2_000, 36),
            irq_out(2_300, 36),
            back,
        ];
        let p = classify(GAP, &events, OWN);
        // Idle is known from its switch to the interrupt, and after it until the next
        // event: the interrupt's exit. Then nothing says when the burster began.
        assert_eq!(thread(&p, 0), Some((1, 500, "swapper/1".to_string())));
        assert_eq!(thread(&p, 42), Some((1, 0, "burster".to_string())));
        assert_eq!(of(&p, Source::Irq), (1, 300));
        // Before the switch to idle (500 ns), between the interrupt's exit and the
        // switch back (8,500 ns) and after it (200 ns).
        assert_eq!(of(&p, Source::Unaccounted), (1, 9_200));
        assert_eq!(total(&p), GAP.len());
        // A switch away from the spinner itself while another thread holds the CPU is
        // no run of the spinner.
        let p = classify(
            GAP,
            &[
                switch(1_500, OWN, 0, "swapper/1"),
                switch(9_000, OWN, 7, "x"),
            ],
            OWN,
        );
        assert!(p.iter().all(|x| x.who.pid != Some(OWN)), "{p:?}");
        assert_eq!(total(&p), GAP.len());
    }

    #[test]
    fn a_thread_woken_from_idle_is_followed_from_its_first_own_event() {
        // As above, but an interrupt hits the burster: its lines name the burster as
        // current, so the burster holds the CPU from there; before it nothing says.
        let events = [
            by(switch(1_500, OWN, 0, "swapper/1"), OWN, "spinner"),
            by(irq_in(9_000, 36), 42, "burster"),
            by(irq_out(9_100, 36), 42, "burster"),
            by(switch(10_800, 42, OWN, "spinner"), 42, "burster"),
        ];
        let p = classify(GAP, &events, OWN);
        assert_eq!(thread(&p, 0), Some((1, 0, "swapper/1".to_string())));
        assert_eq!(thread(&p, 42), Some((1, 1_700, "burster".to_string())));
        assert_eq!(of(&p, Source::Irq), (1, 100));
        // 500 ns before the switch to idle, 7,500 from it to the interrupt, 200 after
        // the switch back.
        assert_eq!(of(&p, Source::Unaccounted), (1, 8_200));
        assert_eq!(total(&p), GAP.len());
        // An event naming the spinner while the walk holds another thread: the switch
        // back is missing; the spinner is no thread noise.
        let p = classify(
            GAP,
            &[
                by(switch(1_500, OWN, 7, "x"), OWN, "spinner"),
                by(irq_in(6_000, 36), OWN, "spinner"),
                by(irq_out(6_500, 36), OWN, "spinner"),
            ],
            OWN,
        );
        assert_eq!(thread(&p, 7), Some((1, 0, "x".to_string())));
        assert!(p.iter().all(|x| x.who.pid != Some(OWN)), "{p:?}");
        assert_eq!(of(&p, Source::Unaccounted), (1, 500 + 4_500 + 4_500));
        assert_eq!(total(&p), GAP.len());
        // A stamp before the gap names the task of the gap before: not followed.
        let gap = Gap {
            cpu: 1,
            start: 10_400,
            end: 13_400,
        };
        let p = classify(gap, &[by(irq_out(9_800, 5), 42, "old")], OWN);
        assert!(p.iter().all(|x| x.who.pid != Some(42)), "{p:?}");
    }

    /// The thread part of `pid`: (count, ns, name).
    fn thread(p: &[Part], pid: i32) -> Option<(u64, i64, String)> {
        p.iter()
            .find(|p| p.source == Source::Thread && p.who.pid == Some(pid))
            .map(|p| (p.count, p.ns, p.who.name.clone()))
    }

    #[test]
    fn microsecond_stamps_just_before_the_start_are_read_for_what_they_can_be() {
        // The interrupt that made a 3 us gap was stamped 0.4 us before the gap began
        // (ftrace prints whole microseconds); the exit and switch back of the gap before
        // were stamped 0.6 us before it: they hold nothing and count nowhere.
        let gap = Gap {
            cpu: 1,
            start: 10_400,
            end: 13_400,
        };
        let p = classify(
            gap,
            &[
                irq_out(9_800, 5),
                switch(9_800, 42, OWN, "spinner"),
                irq_in(10_000, 36),
                irq_out(13_000, 36),
            ],
            OWN,
        );
        assert_eq!(of(&p, Source::Irq), (1, 2_600));
        assert_eq!(of(&p, Source::Hw), (0, 0));
        assert_eq!(of(&p, Source::Thread), (0, 0));
        assert!(p.iter().all(|x| x.who.irq != Some(5)), "{p:?}");
        assert_eq!(total(&p), gap.len());
        // The same stale events alone leave the gap to the hardware; a stamp a whole
        // microsecond before the start is not looked at.
        let p = classify(
            gap,
            &[
                irq_out(9_800, 5),
                switch(9_800, 42, OWN, "x"),
                irq_in(9_400, 7),
            ],
            OWN,
        );
        assert_eq!(of(&p, Source::Hw), (1, gap.len()));
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn unmatched_and_deep_events_never_lose_time() {
        let mut events = vec![irq_out(2_000, 5)];
        for i in 0..40 {
            events.push(irq_in(3_000 + i, i as u32));
        }
        events.push(ev(4_000, What::SoftirqExit { vec: 1 }));
        let p = classify(GAP, &events, OWN);
        assert_eq!(total(&p), GAP.len());
        let five = p.iter().find(|p| p.who.irq == Some(5)).unwrap();
        assert_eq!((five.count, five.ns), (1, 1_000));
        assert_eq!(of(&p, Source::Irq).0, 41);
    }
}
