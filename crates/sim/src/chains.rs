//! Observing end-to-end chains (`[[chain]]`) in a simulation: each chain's latency as
//! the engine runs it, by the definitions the analysis bounds (docs/analysis.md,
//! "End-to-end chains").
//!
//! Every value flowing along a chain carries a token: the nominal arrival of the first
//! step's job it comes from (an interrupt's arrival, a task's nominal release). A task
//! job of a later step takes its token when it is released: through an event link from
//! the job whose completion released it, through a sampled link from the latest value
//! its predecessor wrote (at its last completion); in a chain with `read = "start"` a
//! sampled link's reader takes that value when the job first runs instead (the engine
//! calls [`ChainObserver::task_runs`] whenever a task is running). The last step's
//! completions are the chain's outputs:
//!
//! - event chain: latency = output time - token, for every output;
//! - sampled chain, reaction time: an output whose token is newer than every earlier
//!   output's is the first to reflect the stimuli that arrived since the first step read
//!   the previous output's data (a tick-released first step: from that previous read; a
//!   first step released by an event: from the first event after it);
//! - sampled chain, data age: from a token's read to the last output that carries it.
//!
//! The engine calls [`ChainObserver::task_release`], [`ChainObserver::task_complete`]
//! and [`ChainObserver::irq_complete`]; the observer does not change what runs.

use latscope_model::chain::{Link, ReadAt, Step};
use latscope_model::System;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Pending event-link activations kept per step (as the engine's release queue).
const PENDING_CAP: usize = 64;
/// First-step reads kept while waiting for an output (reaction times of event-started
/// sampled chains); older ones are dropped.
const ORIGINS_CAP: usize = 4096;

/// A chain to observe, in the simulator's indices (tasks and interrupts as in the
/// system file).
#[derive(Clone, Debug, PartialEq)]
pub struct SimChain {
    pub name: String,
    pub steps: Vec<Step>,
    pub links: Vec<Link>,
    /// The first step is released by an event (an interrupt, or a task an interrupt or
    /// another task releases), not by the tick: the stimulus is that event.
    pub event_first: bool,
    /// The sampled links' readers read when a job first runs (`read = "start"`), not
    /// when it is released.
    pub read_start: bool,
}

/// The chains of a system, for [`crate::Sim::observe_chains`].
pub fn from_system(sys: &System) -> Vec<SimChain> {
    sys.chains
        .iter()
        .map(|c| SimChain {
            name: c.name.clone(),
            steps: c.steps.clone(),
            links: c.links.clone(),
            event_first: match c.steps.first() {
                Some(Step::Task(i)) => {
                    sys.tasks[*i].released_by.is_some() || sys.activator(*i).is_some()
                }
                _ => true,
            },
            read_start: c.read == ReadAt::Start,
        })
        .collect()
}

/// One chain's observed latencies, as `simulate --json` writes them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ChainReport {
    pub name: String,
    /// `event` or `sampled`.
    pub kind: String,
    /// Event chain: the longest latency; sampled chain: the longest reaction time
    /// (null when nothing was observed).
    pub max_ns: Option<f64>,
    /// The first step's nominal release (ns) of the instance with that latency (for a
    /// reaction time: the output's token).
    pub max_at_ns: Option<f64>,
    /// Latencies (reaction times) observed.
    pub count: u64,
    /// Sampled chain: the longest data age and the token's release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_max_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_max_at_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_count: Option<u64>,
}

#[derive(Clone, Debug, Default)]
struct Max {
    max: Option<(i64, i64)>,
    count: u64,
}

impl Max {
    fn add(&mut self, v: i64, at: i64) {
        self.count += 1;
        if self.max.is_none_or(|(m, _)| v > m) {
            self.max = Some((v, at));
        }
    }
}

#[derive(Clone, Debug)]
struct State {
    spec: SimChain,
    event: bool,
    /// Per step: the token of the step's current job.
    job_token: Vec<Option<i64>>,
    /// Per link: the latest value its writer wrote (sampled links).
    latest: Vec<Option<i64>>,
    /// Per step: event-link activations waiting for the step's release (activating
    /// job's arrival, token).
    pending: Vec<VecDeque<(i64, i64)>>,
    /// First-step tokens newer than the last output's (event-started chains).
    origins: VecDeque<i64>,
    last_out: Option<i64>,
    age_cur: Option<(i64, i64)>,
    latency: Max,
    age: Max,
}

/// One core's chain event, in the whole system's indices (multicore: each core's
/// engine records them, [`crate::MultiSim`] feeds them to one observer in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hook {
    Release { task: usize, arrival: i64 },
    Start { task: usize, arrival: i64 },
    Complete { task: usize, arrival: i64, now: i64 },
    IrqEnd { irq: usize, arrival: i64, now: i64 },
}

/// A core's recorder: its tasks' and own interrupts' indices in the whole system.
#[derive(Clone, Debug)]
struct Forward {
    tasks: Vec<usize>,
    irqs: Vec<Option<usize>>,
    log: Vec<Hook>,
}

/// The chains' state while the engine runs.
#[derive(Clone, Debug)]
pub struct ChainObserver {
    /// Multicore: record the hooks instead of observing (no chains of its own).
    forward: Option<Forward>,
    chains: Vec<State>,
    /// Per task: (chain, step position).
    of_task: Vec<Vec<(usize, usize)>>,
    /// Per interrupt: chains it starts.
    of_irq: Vec<Vec<usize>>,
    /// Per task (the engine's indices): whether its current job has run yet. Empty when
    /// no chain reads at start (the engine's hook then does nothing).
    started: Vec<bool>,
}

impl ChainObserver {
    pub fn new(chains: Vec<SimChain>, tasks: usize, interrupts: usize) -> ChainObserver {
        let mut of_task = vec![Vec::new(); tasks];
        let mut of_irq = vec![Vec::new(); interrupts];
        for (c, ch) in chains.iter().enumerate() {
            for (k, s) in ch.steps.iter().enumerate() {
                match *s {
                    Step::Task(i) if i < tasks => of_task[i].push((c, k)),
                    Step::Interrupt(q) if q < interrupts && k == 0 => of_irq[q].push(c),
                    _ => {}
                }
            }
        }
        let chains: Vec<State> = chains
            .into_iter()
            .map(|spec| {
                let n = spec.steps.len();
                State {
                    event: spec.links.iter().all(|l| *l == Link::Event),
                    job_token: vec![None; n],
                    latest: vec![None; n],
                    pending: vec![VecDeque::new(); n],
                    origins: VecDeque::new(),
                    last_out: None,
                    age_cur: None,
                    latency: Max::default(),
                    age: Max::default(),
                    spec,
                }
            })
            .collect();
        let started = if chains.iter().any(|c| c.spec.read_start) {
            vec![false; tasks]
        } else {
            Vec::new()
        };
        ChainObserver {
            forward: None,
            chains,
            of_task,
            of_irq,
            started,
        }
    }

    /// A recorder for one core of a multicore run: `tasks[k]` and `irqs[k]` are the
    /// whole system's indices of the core's task and interrupt `k` (None: an
    /// inter-core interrupt, which starts no chain).
    /// `starts`: whether some chain reads at start (the recorder then records each job's
    /// first run).
    pub(crate) fn forwarding(
        tasks: Vec<usize>,
        irqs: Vec<Option<usize>>,
        starts: bool,
    ) -> ChainObserver {
        let started = if starts {
            vec![false; tasks.len()]
        } else {
            Vec::new()
        };
        ChainObserver {
            started,
            forward: Some(Forward {
                tasks,
                irqs,
                log: Vec::new(),
            }),
            chains: Vec::new(),
            of_task: Vec::new(),
            of_irq: Vec::new(),
        }
    }

    /// The hooks recorded since the last call (a recorder; empty otherwise).
    pub(crate) fn take_hooks(&mut self) -> Vec<Hook> {
        self.forward
            .as_mut()
            .map_or_else(Vec::new, |f| std::mem::take(&mut f.log))
    }

    /// Observes one recorded hook.
    pub(crate) fn apply(&mut self, h: Hook) {
        match h {
            Hook::Release { task, arrival } => self.task_release(task, arrival),
            Hook::Start { task, arrival } => self.job_starts(task, arrival),
            Hook::Complete { task, arrival, now } => self.task_complete(task, arrival, now),
            Hook::IrqEnd { irq, arrival, now } => self.irq_complete(irq, arrival, now),
        }
    }

    /// A job of task `i` with nominal arrival `arrival` is released.
    pub fn task_release(&mut self, i: usize, arrival: i64) {
        if let Some(s) = self.started.get_mut(i) {
            *s = false;
        }
        if let Some(f) = &mut self.forward {
            if let Some(&task) = f.tasks.get(i) {
                f.log.push(Hook::Release { task, arrival });
            }
            return;
        }
        let Some(list) = self.of_task.get(i) else {
            return;
        };
        for &(c, k) in list {
            let st = &mut self.chains[c];
            let tok = if k == 0 {
                if st.spec.event_first {
                    st.push_origin(arrival);
                }
                Some(arrival)
            } else {
                match st.spec.links[k - 1] {
                    // Read when the job first runs (`job_starts`).
                    Link::Sampled if st.spec.read_start => None,
                    Link::Sampled => st.latest[k - 1],
                    Link::Event => {
                        let q = &mut st.pending[k];
                        while q.front().is_some_and(|&(a, _)| a < arrival) {
                            q.pop_front();
                        }
                        match q.front() {
                            Some(&(a, t)) if a == arrival => {
                                q.pop_front();
                                Some(t)
                            }
                            _ => None,
                        }
                    }
                }
            };
            st.job_token[k] = tok;
        }
    }

    /// Task `i`'s job (nominal arrival `arrival`) is running: the first call after its
    /// release is the job's start, when a reader of a `read = "start"` chain reads.
    pub fn task_runs(&mut self, i: usize, arrival: i64) {
        match self.started.get_mut(i) {
            Some(s) if !*s => *s = true,
            _ => return,
        }
        if let Some(f) = &mut self.forward {
            if let Some(&task) = f.tasks.get(i) {
                f.log.push(Hook::Start { task, arrival });
            }
            return;
        }
        self.job_starts(i, arrival);
    }

    /// Task `i`'s job starts: each `read = "start"` chain's sampled link into it takes
    /// the latest value its writer completed.
    fn job_starts(&mut self, i: usize, _arrival: i64) {
        let Some(list) = self.of_task.get(i) else {
            return;
        };
        for &(c, k) in list {
            let st = &mut self.chains[c];
            if k > 0 && st.spec.read_start && st.spec.links[k - 1] == Link::Sampled {
                st.job_token[k] = st.latest[k - 1];
            }
        }
    }

    /// The job of task `i` with nominal arrival `arrival` completes at `now`.
    pub fn task_complete(&mut self, i: usize, arrival: i64, now: i64) {
        if let Some(f) = &mut self.forward {
            if let Some(&task) = f.tasks.get(i) {
                f.log.push(Hook::Complete { task, arrival, now });
            }
            return;
        }
        let Some(list) = self.of_task.get(i) else {
            return;
        };
        for &(c, k) in list {
            let st = &mut self.chains[c];
            let Some(tok) = st.job_token[k].take() else {
                continue;
            };
            st.hand_on(k, arrival, tok, now);
        }
    }

    /// The handler of interrupt `q` that arrived at `arrival` ends at `now`.
    pub fn irq_complete(&mut self, q: usize, arrival: i64, now: i64) {
        if let Some(f) = &mut self.forward {
            if let Some(&Some(irq)) = f.irqs.get(q) {
                f.log.push(Hook::IrqEnd { irq, arrival, now });
            }
            return;
        }
        let Some(list) = self.of_irq.get(q) else {
            return;
        };
        for &c in list {
            let st = &mut self.chains[c];
            st.push_origin(arrival);
            st.hand_on(0, arrival, arrival, now);
        }
    }

    /// What was observed, chain by chain.
    pub fn report(&self) -> Vec<ChainReport> {
        let ns = |p: i64| p as f64 / 1000.0;
        self.chains
            .iter()
            .map(|st| ChainReport {
                name: st.spec.name.clone(),
                kind: if st.event { "event" } else { "sampled" }.into(),
                max_ns: st.latency.max.map(|(v, _)| ns(v)),
                max_at_ns: st.latency.max.map(|(_, a)| ns(a)),
                count: st.latency.count,
                age_max_ns: (!st.event)
                    .then(|| st.age.max.map(|(v, _)| ns(v)))
                    .flatten(),
                age_max_at_ns: (!st.event)
                    .then(|| st.age.max.map(|(_, a)| ns(a)))
                    .flatten(),
                age_count: (!st.event).then_some(st.age.count),
            })
            .collect()
    }
}

impl State {
    fn push_origin(&mut self, t: i64) {
        if self.origins.len() >= ORIGINS_CAP {
            self.origins.pop_front();
        }
        self.origins.push_back(t);
    }

    /// Step `k`'s job (nominal arrival `arrival`) ends at `now` with token `tok`.
    fn hand_on(&mut self, k: usize, arrival: i64, tok: i64, now: i64) {
        if k + 1 == self.spec.steps.len() {
            self.output(tok, now);
            return;
        }
        match self.spec.links[k] {
            Link::Sampled => self.latest[k] = Some(tok),
            Link::Event => {
                let q = &mut self.pending[k + 1];
                if q.len() < PENDING_CAP {
                    q.push_back((arrival, tok));
                }
            }
        }
    }

    fn output(&mut self, tok: i64, now: i64) {
        if self.event {
            self.latency.add(now - tok, tok);
            return;
        }
        if self.last_out.is_some_and(|m| tok <= m) {
            if let Some((cur, last)) = &mut self.age_cur {
                if *cur == tok {
                    *last = now;
                }
            }
            return;
        }
        // Reaction: the stimuli since the previous output's read reach the output now.
        if self.spec.event_first {
            while self
                .origins
                .front()
                .is_some_and(|&s| self.last_out.is_some_and(|m| s <= m))
            {
                self.origins.pop_front();
            }
            let s = self.origins.front().copied().unwrap_or(tok).min(tok);
            self.latency.add(now - s, tok);
        } else if let Some(m) = self.last_out {
            self.latency.add(now - m, tok);
        }
        // Age: the previous token has had its last output.
        if let Some((cur, last)) = self.age_cur {
            self.age.add(last - cur, cur);
        }
        self.age_cur = Some((tok, now));
        self.last_out = Some(tok);
    }
}
