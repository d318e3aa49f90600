//! Global fixed-priority simulation (docs/simulator.md, Multicore (global)): every task
//! is unpinned and, at every instant, the `m` highest-priority ready jobs run on the
//! `m` cores, preemptively.
//!
//! The rules, which the global analysis (`latscope_model::rta::global`) bounds:
//! - Time advances from event to event (tick instants, interrupt arrivals, the end of a
//!   core's handler work, a job's completion); nothing is sampled.
//! - A task's job arrives at `offset + n T` and is released at the first tick at or
//!   after its arrival (the kernel notices releases in the tick handler of core 0); its
//!   response is counted from the arrival. A job of a task waits until the task's
//!   previous job completes (one job of a task runs at a time).
//! - Every core runs the tick handler at every tick (core 0's releases tasks and costs
//!   the analysis's worst tick when it releases any; the others cost the base tick), and
//!   each interrupt's handler on its `interrupt.core`: handler work stops whatever runs
//!   on the core and is done in arrival order.
//! - Order: priority, then file order (the earlier task wins a tie). A running job that
//!   stays among the `m` highest keeps its core; a job that leaves them is preempted; a
//!   job that enters them takes its last core if free, else the free core of lowest id
//!   (a different core than its last one counts a migration).
//! - Every dispatch costs the worst switch, spent by the job before its own work; a
//!   dispatch on a core other than 0 that was not freed by a completion at that instant
//!   (an idle or preempted core, which core 0 must interrupt) costs the inter-core
//!   interrupt as well.
//!   Execution times are the WCET or uniform in `[BCET, WCET]`.
//!
//! Everything is integer picoseconds and the only randomness is the seeded generator,
//! so a run depends only on the system, the options and the seed.

use crate::report::{
    ns, CoreReport, CpuSplit, Dist, IrqReport, SimReport, SwitchReport, TaskReport, TickReport,
};
use crate::{ExecMode, IrqMode};
use latscope_core::capture::{Capture, DigitalChannel};
use latscope_core::Picos;
use latscope_model::rta::global::GlobalCosts;
use latscope_model::rta::AnalysisOptions;
use latscope_model::system::System;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How a global run is set up.
#[derive(Clone, Debug, Default)]
pub struct GlobalOptions {
    /// `Auto` is the WCET (execution-time files are refused for global systems).
    pub exec: ExecMode,
    pub irq: IrqMode,
    pub seed: u64,
    /// Per task (file order): the first arrival instead of the file's `offset`.
    pub offsets: Option<Vec<Picos>>,
    /// Record the capture (one channel per core and per task).
    pub capture: bool,
    pub source: String,
}

/// The global run's own figures in `simulate --json` (`global`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct GlobalReport {
    /// `"global-fp"`.
    pub scheduler: String,
    /// Dispatches (each paid one switch).
    pub dispatches: u64,
    /// Dispatches on another core than the job's previous one.
    pub migrations: u64,
    /// Inter-core interrupts paid.
    pub ipis: u64,
}

#[derive(Clone, Debug)]
struct Job {
    arrival: i64,
    /// Work left, dispatch and inter-core interrupt costs included.
    left: i64,
    last_core: Option<usize>,
}

#[derive(Clone, Debug, Default)]
struct Core {
    /// Task whose head job runs here.
    task: Option<usize>,
    /// Tick and interrupt handler work not yet done (stops the task); `irq_left` of it
    /// is interrupt work (accounted first: the split is for the report only).
    handler: i64,
    irq_left: i64,
    tick_ps: i64,
    irq_ps: i64,
    task_ps: i64,
    idle_ps: i64,
    events: u64,
    busy_edges: Vec<Picos>,
    busy: bool,
}

struct TaskState {
    period: i64,
    wcet: i64,
    bcet: i64,
    deadline: i64,
    priority: u32,
    next_arrival: i64,
    queue: VecDeque<Job>,
    resp: Dist,
    max: Option<i64>,
    first: Option<i64>,
    jobs: u64,
    released: u64,
    misses: u64,
    first_miss: Option<i64>,
    preemptions: u64,
    cpu: i64,
    edges: Vec<Picos>,
    running: bool,
}

struct Irq {
    core: usize,
    min: i64,
    cost: i64,
    periodic: bool,
    next: i64,
    count: u64,
}

/// A global fixed-priority simulation in progress.
pub struct GlobalSim {
    names: Vec<String>,
    irq_names: Vec<String>,
    tasks: Vec<TaskState>,
    irqs: Vec<Irq>,
    cores: Vec<Core>,
    /// Tasks in scheduling order (priority, then file order).
    order: Vec<usize>,
    costs: GlobalCosts,
    tick: i64,
    next_tick: i64,
    ticks: u64,
    now: i64,
    rng: ChaCha8Rng,
    exec: ExecMode,
    irq_mode: IrqMode,
    capture: bool,
    source: String,
    seed: u64,
    kernel: &'static str,
    hyperperiod: Option<i64>,
    global: GlobalReport,
    events: u64,
}

impl GlobalSim {
    /// A run of `sys` (its placement should be global; any system is run as if it were).
    pub fn new(sys: &System, o: &GlobalOptions) -> GlobalSim {
        let costs = GlobalCosts::of(sys, &AnalysisOptions::default());
        let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
        let tasks = sys
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| TaskState {
                period: t.period().0.max(1),
                wcet: t.wcet.0.max(0),
                bcet: t.bcet.0.clamp(0, t.wcet.0.max(0)),
                deadline: t.deadline.0,
                priority: t.priority,
                next_arrival: o
                    .offsets
                    .as_ref()
                    .and_then(|v| v.get(i).copied())
                    .unwrap_or(t.offset)
                    .0
                    .max(0),
                queue: VecDeque::new(),
                resp: Dist::new(t.deadline.0.saturating_mul(16), true),
                max: None,
                first: None,
                jobs: 0,
                released: 0,
                misses: 0,
                first_miss: None,
                preemptions: 0,
                cpu: 0,
                edges: Vec::new(),
                running: false,
            })
            .collect();
        let m = sys.platform.cores.max(1) as usize;
        let irqs = sys
            .interrupts
            .iter()
            .zip(&costs.interrupt)
            .map(|(x, c)| {
                let min = x.min_interarrival.0.max(1);
                let random = o.irq == IrqMode::Random && !x.periodic;
                Irq {
                    core: (x.core as usize).min(m - 1),
                    min,
                    cost: c.0,
                    periodic: !random,
                    next: if random {
                        rng.gen_range(0..min)
                    } else {
                        x.offset.0.max(0)
                    },
                    count: 0,
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..sys.tasks.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(sys.tasks[i].priority), i));
        GlobalSim {
            names: sys.tasks.iter().map(|t| t.name.clone()).collect(),
            irq_names: sys.interrupts.iter().map(|x| x.name.clone()).collect(),
            tasks,
            irqs,
            cores: vec![Core::default(); m],
            order,
            tick: sys.kernel.tick_period().0.max(1),
            next_tick: 0,
            ticks: 0,
            costs,
            now: 0,
            rng,
            exec: o.exec,
            irq_mode: o.irq,
            capture: o.capture,
            source: o.source.clone(),
            seed: o.seed,
            kernel: match sys.kernel.model() {
                latscope_model::system::ModelKind::Listscan => "list-scan",
                _ => "tick",
            },
            hyperperiod: latscope_model::rta::hyperperiod(sys).map(|h| h.0),
            global: GlobalReport {
                scheduler: "global-fp".into(),
                ..GlobalReport::default()
            },
            events: 0,
        }
    }

    /// The next instant something happens (at most `until`).
    fn next_instant(&self, until: i64) -> i64 {
        let mut t = until.min(self.next_tick);
        for q in &self.irqs {
            t = t.min(q.next);
        }
        for c in &self.cores {
            if c.handler > 0 {
                t = t.min(self.now.saturating_add(c.handler));
            } else if let Some(k) = c.task {
                if let Some(j) = self.tasks[k].queue.front() {
                    t = t.min(self.now.saturating_add(j.left));
                }
            }
        }
        t
    }

    /// Spends the time up to `t` on every core.
    fn advance(&mut self, t: i64) {
        let dt = t - self.now;
        if dt <= 0 {
            return;
        }
        for c in &mut self.cores {
            if c.handler > 0 {
                c.handler -= dt;
                let from_irq = dt.min(c.irq_left);
                c.irq_left -= from_irq;
                c.irq_ps += from_irq;
                c.tick_ps += dt - from_irq;
            } else if let Some(k) = c.task {
                if let Some(j) = self.tasks[k].queue.front_mut() {
                    j.left -= dt;
                }
                self.tasks[k].cpu += dt;
                c.task_ps += dt;
            } else {
                c.idle_ps += dt;
            }
        }
        self.now = t;
    }

    /// Runs until `until` (exclusive: events at `until` are not processed).
    pub fn run_until(&mut self, until: Picos) {
        let until = until.0;
        loop {
            let t = self.next_instant(until);
            if t >= until {
                self.advance(until);
                return;
            }
            self.advance(t);
            self.step();
        }
    }

    /// Processes everything due at `now`: completions, interrupt arrivals, the tick and
    /// its releases, then the dispatch.
    fn step(&mut self) {
        let now = self.now;
        let m = self.cores.len();
        let mut freed = vec![false; m];
        for (c, core) in self.cores.iter_mut().enumerate() {
            if core.handler > 0 {
                continue;
            }
            let Some(k) = core.task else { continue };
            let ts = &mut self.tasks[k];
            if ts.queue.front().is_some_and(|j| j.left <= 0) {
                if let Some(j) = ts.queue.pop_front() {
                    let r = now - j.arrival;
                    ts.resp.add(r, j.arrival);
                    ts.jobs += 1;
                    ts.first.get_or_insert(r);
                    ts.max = Some(ts.max.map_or(r, |x| x.max(r)));
                    if r > ts.deadline {
                        ts.misses += 1;
                        ts.first_miss.get_or_insert(j.arrival + ts.deadline);
                    }
                }
                core.task = None;
                core.events += 1;
                freed[c] = true;
                self.events += 1;
            }
        }
        for i in 0..self.irqs.len() {
            while self.irqs[i].next <= now {
                let q = &mut self.irqs[i];
                let core = &mut self.cores[q.core];
                core.handler += q.cost;
                core.irq_left += q.cost;
                core.events += 1;
                q.count += 1;
                let gap = if q.periodic || self.irq_mode == IrqMode::Worst {
                    q.min
                } else {
                    self.rng.gen_range(q.min..=q.min.saturating_mul(2))
                };
                q.next = q.next.saturating_add(gap);
                self.events += 1;
            }
        }
        if self.next_tick <= now {
            let mut released = 0u32;
            for k in 0..self.tasks.len() {
                while self.tasks[k].next_arrival <= now {
                    let e = self.exec_time(k);
                    let ts = &mut self.tasks[k];
                    ts.queue.push_back(Job {
                        arrival: ts.next_arrival,
                        left: e,
                        last_core: None,
                    });
                    ts.released += 1;
                    ts.next_arrival = ts.next_arrival.saturating_add(ts.period);
                    released += 1;
                    self.events += 1;
                }
            }
            for (c, core) in self.cores.iter_mut().enumerate() {
                core.handler += if c == 0 && released > 0 {
                    self.costs.tick_release.0
                } else {
                    self.costs.tick_other.0
                };
                core.events += 1;
            }
            self.ticks += 1;
            self.next_tick = self.next_tick.saturating_add(self.tick);
        }
        self.dispatch(&freed);
        if self.capture {
            self.record();
        }
    }

    fn exec_time(&mut self, k: usize) -> i64 {
        let t = &self.tasks[k];
        match self.exec {
            ExecMode::Uniform if t.bcet < t.wcet => self.rng.gen_range(t.bcet..=t.wcet),
            _ => t.wcet,
        }
    }

    /// Puts the `m` highest-priority ready jobs on the cores.
    fn dispatch(&mut self, freed: &[bool]) {
        let m = self.cores.len();
        let chosen: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&k| !self.tasks[k].queue.is_empty())
            .take(m)
            .collect();
        for core in &mut self.cores {
            if let Some(k) = core.task {
                if !chosen.contains(&k) {
                    self.tasks[k].preemptions += 1;
                    core.task = None;
                }
            }
        }
        for &k in &chosen {
            if self.cores.iter().any(|c| c.task == Some(k)) {
                continue;
            }
            let last = self.tasks[k].queue.front().and_then(|j| j.last_core);
            let c = match last.filter(|&c| self.cores[c].task.is_none()) {
                Some(c) => c,
                None => match self.cores.iter().position(|c| c.task.is_none()) {
                    Some(c) => c,
                    None => continue,
                },
            };
            let mut cost = self.costs.switch.0;
            if c != 0 && !freed[c] {
                cost += self.costs.ipi.0;
                self.global.ipis += 1;
            }
            self.global.dispatches += 1;
            if last.is_some_and(|l| l != c) {
                self.global.migrations += 1;
            }
            if let Some(j) = self.tasks[k].queue.front_mut() {
                j.left += cost;
                j.last_core = Some(c);
            }
            self.cores[c].task = Some(k);
            self.cores[c].events += 1;
            self.events += 1;
        }
    }

    /// Capture edges at `now`: a core is busy with handler work or a task; a task is
    /// high while its job runs (on any core, not stopped by a handler).
    fn record(&mut self) {
        let now = Picos(self.now);
        let mut running = vec![false; self.tasks.len()];
        for c in &mut self.cores {
            let busy = c.handler > 0 || c.task.is_some();
            if busy != c.busy {
                c.busy = busy;
                c.busy_edges.push(now);
            }
            if let (0, Some(k)) = (c.handler, c.task) {
                running[k] = true;
            }
        }
        for (t, r) in self.tasks.iter_mut().zip(running) {
            if t.running != r {
                t.running = r;
                t.edges.push(now);
            }
        }
    }

    /// Per task (file order): the largest response of a completed job.
    pub fn max_responses(&self) -> Vec<Option<Picos>> {
        self.tasks.iter().map(|t| t.max.map(Picos)).collect()
    }

    /// Per task (file order): jobs released past their deadline and still unfinished,
    /// plus completed ones that missed it.
    pub fn misses(&self) -> Vec<u64> {
        self.tasks
            .iter()
            .map(|t| {
                t.misses
                    + t.queue
                        .iter()
                        .filter(|j| self.now - j.arrival > t.deadline)
                        .count() as u64
            })
            .collect()
    }

    /// Dispatches, migrations and inter-core interrupts so far.
    pub fn figures(&self) -> &GlobalReport {
        &self.global
    }

    fn split(&self, cs: &[&Core]) -> CpuSplit {
        let sum = |f: fn(&Core) -> i64| cs.iter().map(|c| f(c)).sum::<i64>();
        let all = (self.now as f64) * cs.len() as f64;
        let frac = |v: i64| if all > 0.0 { v as f64 / all } else { 0.0 };
        let (tasks, tick, irq, idle) = (
            sum(|c| c.task_ps),
            sum(|c| c.tick_ps),
            sum(|c| c.irq_ps),
            sum(|c| c.idle_ps),
        );
        CpuSplit {
            tasks_ns: ns(tasks),
            tick_ns: ns(tick),
            interrupts_ns: ns(irq),
            idle_ns: ns(idle),
            tasks_fraction: frac(tasks),
            tick_fraction: frac(tick),
            interrupts_fraction: frac(irq),
            idle_fraction: frac(idle),
            ..CpuSplit::default()
        }
    }

    /// The run as `simulate --json` writes it: tasks in file order, `cores` with every
    /// core's time split, `global` with dispatches, migrations and inter-core interrupts.
    /// Switch and inter-core interrupt time is counted in the tasks' time (a job spends
    /// its dispatch before its own work).
    pub fn report(&self) -> SimReport {
        let misses = self.misses();
        let tasks = self
            .tasks
            .iter()
            .zip(&self.names)
            .zip(misses)
            .map(|((t, name), misses)| TaskReport {
                name: name.clone(),
                priority: t.priority,
                jobs: t.jobs,
                released: t.released,
                max_response_ns: t.max.map(ns),
                first_response_ns: t.first.map(ns),
                response: t.resp.summary(),
                deadline_ns: ns(t.deadline),
                deadline_misses: misses,
                first_miss_ns: t.first_miss.map(ns),
                preemptions: t.preemptions,
                overruns: 0,
                cpu_ns: ns(t.cpu),
                blocked_ns: 0.0,
                max_blocking_ns: 0.0,
            })
            .collect();
        let interrupts = self
            .irqs
            .iter()
            .zip(&self.irq_names)
            .map(|(q, name)| IrqReport {
                name: name.clone(),
                count: q.count,
                lost: 0,
                response: crate::report::DistSummary::default(),
                max_latency_ns: None,
            })
            .collect();
        let all: Vec<&Core> = self.cores.iter().collect();
        SimReport {
            kind: "simulate",
            schema_version: 1,
            source: self.source.clone(),
            kernel: self.kernel,
            seed: self.seed,
            duration_ns: ns(self.now),
            hyperperiod_ns: self.hyperperiod.map(ns),
            tick_period_ns: ns(self.tick),
            events: self.events,
            tasks,
            tick: TickReport {
                count: self.ticks,
                ..TickReport::default()
            },
            switches: SwitchReport {
                count: self.global.dispatches,
                min_ns: Some(ns(self.costs.switch.0)),
                mean_ns: Some(ns(self.costs.switch.0)),
                max_ns: Some(ns(self.costs.switch.0)),
                ..SwitchReport::default()
            },
            interrupts,
            cpu: self.split(&all),
            sleep: Default::default(),
            resources: Vec::new(),
            list_scan: None,
            cores: self
                .cores
                .iter()
                .enumerate()
                .map(|(c, core)| CoreReport {
                    core: c as u32,
                    tasks: self.names.clone(),
                    events: core.events,
                    cpu: self.split(&[core]),
                })
                .collect(),
            chains: Vec::new(),
            global: Some(self.global.clone()),
        }
    }

    /// The virtual capture: per core a channel `coreN`, high while the core runs a
    /// handler or a task, then per task a channel under its name, high while one of its
    /// jobs runs (on whichever core).
    pub fn capture(&self) -> Capture {
        let mut channels: Vec<DigitalChannel> = self
            .cores
            .iter()
            .enumerate()
            .map(|(c, core)| DigitalChannel {
                name: format!("core{c}"),
                initial: false,
                edges: core.busy_edges.clone(),
            })
            .collect();
        channels.extend(
            self.tasks
                .iter()
                .zip(&self.names)
                .map(|(t, n)| DigitalChannel {
                    name: n.clone(),
                    initial: false,
                    edges: t.edges.clone(),
                }),
        );
        Capture {
            source: if self.source.is_empty() {
                "simulation".into()
            } else {
                format!("simulation of {}", self.source)
            },
            samplerate_hz: None,
            start: Picos(0),
            end: Picos(self.now),
            channels,
            analog: Vec::new(),
        }
    }
}
