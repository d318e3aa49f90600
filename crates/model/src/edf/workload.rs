//! The system as the EDF analysis sees it, in integer picoseconds.
//!
//! Overheads (with `overheads`): every job runs two context switches besides its WCET
//! (under EDF a job preempts at most once, when it is released, and switches out when it
//! completes); the tick handler and every interrupt handler preempt whatever job runs,
//! whatever its deadline, so they are *interference*, counted by arrivals in a window
//! like higher-priority tasks in fixed-priority analysis; the longest critical section
//! (interrupts disabled, or the resources' blocking) is a constant blocking term. Release
//! jitter per task is the fixed-priority analysis's (the file's jitter, the tick-driven
//! release delay, the interrupt path of a task an interrupt releases).

use crate::rta::{self, AnalysisOptions};
use crate::system::{KernelCosts, System};
use latscope_core::Picos;

/// One task: WCET with its per-job overheads, period, relative deadline, release jitter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub name: String,
    pub c: i64,
    pub t: i64,
    pub d: i64,
    pub j: i64,
}

/// Work that preempts any job: a tick or an interrupt handler (cost per arrival,
/// minimum inter-arrival, release jitter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preempting {
    pub name: String,
    pub c: i64,
    pub t: i64,
    pub j: i64,
}

/// Everything the EDF tests read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    pub tasks: Vec<Job>,
    pub preempting: Vec<Preempting>,
    /// Constant blocking (longest interrupts-disabled section or resource blocking).
    pub blocking: i64,
}

impl Workload {
    /// The workload of `sys` with `opts.overheads` and `opts.tick_release_delay` as the
    /// fixed-priority analysis applies them.
    pub fn of(
        sys: &System,
        opts: &AnalysisOptions,
    ) -> Result<Workload, crate::range::AnalysisError> {
        // The release jitter per task and the blocking are the fixed-priority analysis's:
        // they depend on how a release reaches the kernel, not on the scheduling policy.
        let fp = rta::analyze(sys, opts)?;
        let by_name = |n: &str| fp.tasks.iter().find(|r| &*r.name == n);
        let ov = opts.overheads;
        let l = if ov {
            sys.platform.irq_entry()
        } else {
            Picos::ZERO
        };
        // Each job: two switches. The deadline-ordered ready list is charged as the
        // priority scan over every task (the longest the generic selection can take).
        let switch = crate::rta::switch_at(sys, opts, l, sys.tasks.len() as u32);
        let mut tasks = Vec::with_capacity(sys.tasks.len());
        let mut blocking = 0i64;
        for t in &sys.tasks {
            let r = by_name(&t.name);
            let j = r.map_or(0, |r| (r.jitter.total_ns * 1000.0).round() as i64);
            blocking = blocking.max(r.map_or(0, |r| (r.blocking_ns * 1000.0).round() as i64));
            tasks.push(Job {
                name: t.name.clone(),
                c: t.wcet.0.saturating_add(switch.0.saturating_mul(2)),
                t: t.period().0,
                d: t.deadline.0,
                j,
            });
        }
        let mut preempting = Vec::new();
        if ov {
            let n = sys.tasks.len() as u32;
            let n_rel = sys.tasks.iter().filter(|t| t.released_by.is_none()).count() as u32;
            let tick = match &sys.kernel.costs {
                KernelCosts::Tick(c) => l + c.worst_tick_cost(n_rel),
                KernelCosts::Listscan(c) => l + c.worst_scheduler_run(n, n_rel),
                KernelCosts::Irqpath(c) => l + c.tick,
            };
            preempting.push(Preempting {
                name: "tick".into(),
                c: tick.0,
                t: sys.kernel.tick_period().0,
                // A kernel critical section delays a tick; it then runs closer to the next.
                // So does a broadcast tick's varying relay (rta/tick_relay.rs).
                j: sys.critical_sections.kernel.0 + sys.kernel.tick_relay.spread.0,
            });
        }
        let cold = sys.platform.cache.assume == crate::system::CacheState::Cold;
        for irq in &sys.interrupts {
            let path = match (&sys.kernel.costs, ov) {
                (KernelCosts::Irqpath(c), true) => {
                    let st = c.stage(cold);
                    let extra = st.entry.map_or(Picos::ZERO, |e| Picos((e - l).0.max(0)));
                    extra + st.prologue + st.send + st.dispatch
                }
                _ => Picos::ZERO,
            };
            preempting.push(Preempting {
                name: irq.name.clone(),
                c: (irq.wcet + l + path).0,
                t: irq.min_interarrival.0,
                j: if irq.above_kernel {
                    0
                } else {
                    sys.critical_sections.kernel.0
                },
            });
        }
        Ok(Workload {
            tasks,
            preempting,
            blocking,
        })
    }

    /// Utilisation of tasks and preempting work together.
    pub fn utilisation(&self) -> f64 {
        let u = |c: i64, t: i64| c as f64 / t.max(1) as f64;
        self.tasks.iter().map(|x| u(x.c, x.t)).sum::<f64>()
            + self.preempting.iter().map(|x| u(x.c, x.t)).sum::<f64>()
    }
}
