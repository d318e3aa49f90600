//! One pass over an event recording: what each CPU runs (the current task and the stack
//! of interrupt handlers), each task's jobs, and each handler's runs.
//!
//! The rules (docs/event-traces.md, "Task timing"):
//! * a task *runs* while it is the current task of a CPU and no handler runs there;
//! * a job starts at a `Ready` of a task that is blocked, or at the task's very first
//!   event when that is a `Ready` (the recording saw it become ready), and ends at its
//!   `Block`. A task whose first event is a `Switch` or a `Block` was already ready when
//!   the recording started: that job is cut off and not counted, nor is a job still open
//!   when the recording ends;
//! * a handler run is its enter to its exit on one CPU, minus the time of the handlers
//!   nested in it (each handler's own execution); a handler still running at the end, or
//!   whose exit was never seen, is not counted.

use latscope_core::events::{ActorKind, EventKind, EventTrace};
use latscope_core::time::Picos;

/// One complete job of a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The `Ready` that started it.
    pub release: Picos,
    /// When it first ran after its release (None if it blocked without running, which a
    /// consistent recording does not show).
    pub first_run: Option<Picos>,
    /// The `Block` that ended it.
    pub end: Picos,
    /// Time it ran during the job (ps), handlers on its CPU excluded.
    pub execution: i64,
    /// Times it was switched out while still ready.
    pub preemptions: u32,
    /// The CPUs its events were on (released, switched in or out, blocked), ascending:
    /// a lost-event window of another CPU does not touch it.
    pub cpus: Vec<u16>,
}

/// One complete run of a handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsrRun {
    pub enter: Picos,
    pub exit: Picos,
    /// Exit − enter − the nested handlers' time (ps).
    pub duration: i64,
    /// `Ready` events of tasks while this handler was the innermost one running.
    pub released: u32,
    /// The tasks (actor indices) whose jobs a `Ready` inside it started, once per job.
    pub started: Vec<u32>,
    pub cpu: u16,
}

/// Everything the pass found about one actor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActorTimeline {
    /// Complete jobs (tasks only), in release order.
    pub jobs: Vec<Job>,
    /// Every release that started a job (including a job cut off by the end).
    pub releases: Vec<Picos>,
    /// Jobs not counted: one in progress when the recording started, one still open at
    /// its end.
    pub cut_off: u64,
    /// Complete handler runs (ISRs and the tick), in enter order.
    pub runs: Vec<IsrRun>,
    /// Total time the actor ran in the recording (ps): a task while current and not
    /// interrupted, a handler its own execution.
    pub run_ps: i64,
}

/// The pass's result: one timeline per actor (same order as `EventTrace::actors`) and
/// handler exits that matched no enter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    pub actors: Vec<ActorTimeline>,
    pub unmatched_exits: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No event of this task seen yet.
    Unknown,
    /// Ready since before the recording started (its job is cut off).
    CutOff,
    Blocked,
    /// In a counted job (index into `open`).
    InJob,
}

struct OpenJob {
    release: Picos,
    first_run: Option<Picos>,
    execution: i64,
    preemptions: u32,
    cpus: Vec<u16>,
}

impl OpenJob {
    fn on(&mut self, c: usize) {
        let c = u16::try_from(c).unwrap_or(u16::MAX);
        if let Err(i) = self.cpus.binary_search(&c) {
            self.cpus.insert(i, c);
        }
    }
}

struct TaskState {
    phase: Phase,
    job: Option<OpenJob>,
    on_cpu: Option<usize>,
    run_from: Option<Picos>,
    /// When its current job was last counted as preempted: a `Block` at that same instant
    /// means the switch was its block (a recorder may write the switch first, as perf's
    /// `sched_switch` carries both), not a preemption.
    preempted_at: Option<Picos>,
}

struct Frame {
    actor: usize,
    enter: Picos,
    nested: i64,
    released: u32,
    started: Vec<u32>,
}

#[derive(Default)]
struct Cpu {
    current: Option<usize>,
    stack: Vec<Frame>,
}

struct Walker<'a> {
    trace: &'a EventTrace,
    out: Timeline,
    tasks: Vec<TaskState>,
    cpus: Vec<Cpu>,
}

fn span(from: Picos, to: Picos) -> i64 {
    to.0.saturating_sub(from.0).max(0)
}

impl Walker<'_> {
    /// The task stops running at `t`: its run time (and its job's execution) grow.
    fn stop(&mut self, a: usize, t: Picos) {
        let s = &mut self.tasks[a];
        if let Some(from) = s.run_from.take() {
            let d = span(from, t);
            let tl = &mut self.out.actors[a];
            tl.run_ps = tl.run_ps.saturating_add(d);
            if let Some(j) = &mut s.job {
                j.execution = j.execution.saturating_add(d);
            }
        }
    }

    /// The task starts running at `t` (if it is not already).
    fn start(&mut self, a: usize, t: Picos) {
        let s = &mut self.tasks[a];
        if s.run_from.is_none() {
            s.run_from = Some(t);
            if let Some(j) = &mut s.job {
                j.first_run.get_or_insert(t);
            }
        }
    }

    fn is_task(&self, a: usize) -> bool {
        self.trace.actors[a].kind == ActorKind::Task
    }

    fn switch(&mut self, c: usize, a: usize, t: Picos) {
        let prev = self.cpus[c].current;
        if prev == Some(a) {
            return;
        }
        if let Some(p) = prev {
            self.stop(p, t);
            self.tasks[p].on_cpu = None;
            if let Some(j) = &mut self.tasks[p].job {
                j.on(c);
                j.preemptions = j.preemptions.saturating_add(1);
                self.tasks[p].preempted_at = Some(t);
            }
        }
        // A task now current on another CPU left it (a migration whose switch-out was
        // lost).
        if let Some(c2) = self.tasks[a].on_cpu.filter(|&c2| c2 != c) {
            self.stop(a, t);
            self.cpus[c2].current = None;
        }
        self.cpus[c].current = Some(a);
        self.tasks[a].on_cpu = Some(c);
        if let Some(j) = &mut self.tasks[a].job {
            j.on(c);
        }
        if self.tasks[a].phase == Phase::Unknown && self.is_task(a) {
            self.tasks[a].phase = Phase::CutOff;
        }
        if self.cpus[c].stack.is_empty() {
            self.start(a, t);
        }
    }

    fn running(&self, a: usize) -> bool {
        self.tasks[a]
            .on_cpu
            .is_some_and(|c| self.cpus[c].stack.is_empty())
    }

    fn ready(&mut self, c: usize, a: usize, t: Picos) {
        if !self.is_task(a) {
            return;
        }
        if let Some(f) = self.cpus[c].stack.last_mut() {
            f.released = f.released.saturating_add(1);
        }
        match self.tasks[a].phase {
            Phase::Unknown | Phase::Blocked => {
                let running = self.running(a);
                if running {
                    // Still current after its block: the new job runs from here on.
                    self.stop(a, t);
                }
                self.tasks[a].phase = Phase::InJob;
                let mut job = OpenJob {
                    release: t,
                    first_run: None,
                    execution: 0,
                    preemptions: 0,
                    cpus: Vec::new(),
                };
                job.on(c);
                if let Some(on) = self.tasks[a].on_cpu {
                    job.on(on);
                }
                self.tasks[a].job = Some(job);
                self.tasks[a].preempted_at = None;
                self.out.actors[a].releases.push(t);
                if let Some(f) = self.cpus[c].stack.last_mut() {
                    f.started.push(a as u32);
                }
                if running {
                    self.start(a, t);
                }
            }
            // Ready while ready: counted by nobody, starts nothing.
            Phase::CutOff | Phase::InJob => {}
        }
    }

    fn block(&mut self, c: usize, a: usize, t: Picos) {
        if !self.is_task(a) {
            return;
        }
        match self.tasks[a].phase {
            Phase::InJob => {
                if let Some(j) = &mut self.tasks[a].job {
                    j.on(c);
                }
                let running = self.tasks[a].run_from.is_some();
                self.stop(a, t);
                if self.tasks[a].preempted_at.take() == Some(t) {
                    if let Some(j) = &mut self.tasks[a].job {
                        j.preemptions = j.preemptions.saturating_sub(1);
                    }
                }
                if let Some(j) = self.tasks[a].job.take() {
                    self.out.actors[a].jobs.push(Job {
                        release: j.release,
                        first_run: j.first_run,
                        end: t,
                        execution: j.execution,
                        preemptions: j.preemptions,
                        cpus: j.cpus,
                    });
                }
                // Until the switch away it is still the CPU's current task (kernel time
                // in its context: counted in its CPU share, as the capture shows it).
                if running {
                    self.tasks[a].run_from = Some(t);
                }
            }
            Phase::Unknown | Phase::CutOff => self.out.actors[a].cut_off += 1,
            Phase::Blocked => {}
        }
        self.tasks[a].phase = Phase::Blocked;
    }

    fn isr_enter(&mut self, c: usize, a: usize, t: Picos) {
        if self.cpus[c].stack.is_empty() {
            if let Some(p) = self.cpus[c].current {
                self.stop(p, t);
            }
        }
        self.cpus[c].stack.push(Frame {
            actor: a,
            enter: t,
            nested: 0,
            released: 0,
            started: Vec::new(),
        });
    }

    fn isr_exit(&mut self, c: usize, a: usize, t: Picos) {
        let stack = &mut self.cpus[c].stack;
        let Some(pos) = stack.iter().rposition(|f| f.actor == a) else {
            self.out.unmatched_exits += 1;
            return;
        };
        // Handlers above it whose exits were lost are dropped with it.
        stack.truncate(pos + 1);
        let Some(f) = stack.pop() else { return };
        let total = span(f.enter, t);
        if let Some(parent) = stack.last_mut() {
            parent.nested = parent.nested.saturating_add(total);
        }
        let duration = total.saturating_sub(f.nested).max(0);
        let tl = &mut self.out.actors[a];
        tl.run_ps = tl.run_ps.saturating_add(duration);
        tl.runs.push(IsrRun {
            enter: f.enter,
            exit: t,
            duration,
            released: f.released,
            started: f.started,
            cpu: c as u16,
        });
        if self.cpus[c].stack.is_empty() {
            if let Some(p) = self.cpus[c].current {
                self.start(p, t);
            }
        }
    }

    fn finish(mut self) -> Timeline {
        let end = self.trace.end;
        for a in 0..self.tasks.len() {
            self.stop(a, end);
            if self.tasks[a].job.take().is_some() {
                self.out.actors[a].cut_off += 1;
            }
        }
        self.out
    }
}

/// Walks the recording once. Events naming an actor that does not exist are skipped (a
/// validated recording has none); a CPU index past `cpus` counts as the last CPU.
pub fn walk(trace: &EventTrace) -> Timeline {
    let n = trace.actors.len();
    let ncpu = usize::from(trace.cpus.max(1));
    let mut w = Walker {
        trace,
        out: Timeline {
            actors: vec![ActorTimeline::default(); n],
            unmatched_exits: 0,
        },
        tasks: (0..n)
            .map(|_| TaskState {
                phase: Phase::Unknown,
                job: None,
                on_cpu: None,
                run_from: None,
                preempted_at: None,
            })
            .collect(),
        cpus: (0..ncpu).map(|_| Cpu::default()).collect(),
    };
    for e in &trace.events {
        let a = e.kind.actor() as usize;
        if a >= n {
            continue;
        }
        let c = usize::from(e.cpu).min(ncpu - 1);
        match e.kind {
            EventKind::Switch(_) => w.switch(c, a, e.t),
            EventKind::Ready(_) => w.ready(c, a, e.t),
            EventKind::Block(_) => w.block(c, a, e.t),
            EventKind::IsrEnter(_) => w.isr_enter(c, a, e.t),
            EventKind::IsrExit(_) => w.isr_exit(c, a, e.t),
        }
    }
    w.finish()
}
