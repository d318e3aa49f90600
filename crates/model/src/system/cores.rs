//! Partitioned multicore: one core's share of a system (docs/system-format.md, Cores).
//!
//! Each core runs its own scheduler and tick, so a core is analysed and simulated as a
//! one-core system holding only the tasks and interrupts pinned to it. A cross-core
//! release (an interrupt on one core whose `releases` task sits on another) becomes, on
//! the task's core, an inter-core interrupt: a handler of `kernel.costs.ipi` that
//! releases the task. Building the view here keeps the analysis and the simulator on
//! the same picture of a core.

use super::model::{Interrupt, System};
use latscope_core::Picos;

/// Where an interrupt of a core's view comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoreIrq {
    /// The system's own interrupt (index into [`System::interrupts`]).
    Own(usize),
    /// The inter-core interrupt raised when the system's interrupt at this index, on
    /// another core, finishes its handler.
    Ipi(usize),
    /// The inter-core interrupt raised when a job of the system's task at this index,
    /// on another core, completes and releases its successor here (a chain's event
    /// link across cores).
    TaskIpi(usize),
}

/// One core's tasks and interrupts as a one-core system.
#[derive(Debug, Clone)]
pub struct CoreView {
    pub core: u32,
    /// The one-core system (`platform.cores = 1`).
    pub sys: System,
    /// Per task of `sys`: its index in the whole system.
    pub tasks: Vec<usize>,
    /// Per interrupt of `sys`: where it comes from.
    pub interrupts: Vec<CoreIrq>,
    /// The core receives a broadcast tick whose relay has no bound (the tick core's tick
    /// handler does not finish within a tick period; set by the analysis).
    pub tick_unbounded: bool,
}

/// The name of the inter-core interrupt that relays `irq`'s release.
pub fn ipi_name(irq: &str) -> String {
    format!("ipi<{irq}")
}

impl System {
    /// Core `core`'s view. `ipi_jitter[q]` (missing: zero) is how much earlier than the
    /// interrupt `q`'s minimum inter-arrival time two of its handler completions can
    /// follow each other (its response varies on its own core): the inter-core interrupt
    /// it raises is given that much shorter a minimum inter-arrival time, and
    /// `release_delay[q]` (missing: zero) is added to the released task's jitter (the
    /// releasing handler's worst response on its core, which the task's core does not
    /// see).
    pub fn core_view(&self, core: u32, ipi_jitter: &[Picos], release_delay: &[Picos]) -> CoreView {
        self.core_view_with(core, ipi_jitter, release_delay, &[], &[])
    }

    /// [`System::core_view`] with the chains' event links across cores: a task `b` on
    /// this core released by the completion of task `a` on another is released by an
    /// inter-core interrupt (`ipi<a`, cost `ipi`, the lowest interrupt priority, as
    /// kernels send their cross-core yield) whose minimum inter-arrival time is `a`'s
    /// period shortened by `task_ipi_jitter[a]` (how much `a`'s completions vary), and
    /// `task_release_delay[a]` (`a`'s worst completion after the nominal release of its
    /// chain segment's first step) is added to `b`'s release jitter. The view keeps the
    /// event links whose two tasks are both on this core as two-step chains, so that the
    /// one-core analysis and simulator treat them as on one core.
    pub fn core_view_with(
        &self,
        core: u32,
        ipi_jitter: &[Picos],
        release_delay: &[Picos],
        task_ipi_jitter: &[Picos],
        task_release_delay: &[Picos],
    ) -> CoreView {
        let tasks: Vec<usize> = (0..self.tasks.len())
            .filter(|&i| self.tasks[i].core == core)
            .collect();
        let mut new_task = vec![None; self.tasks.len()];
        for (k, &i) in tasks.iter().enumerate() {
            new_task[i] = Some(k);
        }
        let mut sys = self.clone();
        sys.platform.cores = 1;
        // The view is core 0 of a one-core system: it carries its core's policy there.
        sys.kernel.scheduler = self.kernel.scheduler_of(core);
        sys.kernel.cores = self
            .kernel
            .cores
            .iter()
            .filter(|c| c.id == core)
            .map(|c| super::model::CoreSettings { id: 0, ..*c })
            .collect();
        self.apply_tick_broadcast(core, &mut sys);
        sys.tasks = tasks.iter().map(|&i| self.tasks[i].clone()).collect();
        for t in &mut sys.tasks {
            t.core = 0;
            t.released_by = None;
        }
        let mut irqs: Vec<Interrupt> = Vec::new();
        let mut origin = Vec::new();
        let mut res_irqs = Vec::new();
        for (q, x) in self.interrupts.iter().enumerate() {
            if x.core == core {
                let mut y = x.clone();
                y.core = 0;
                y.releases = x.releases.and_then(|t| new_task[t]);
                irqs.push(y);
                origin.push(CoreIrq::Own(q));
                res_irqs.push(
                    self.resources
                        .interrupts
                        .get(q)
                        .cloned()
                        .unwrap_or_default(),
                );
            }
        }
        for (q, x) in self.interrupts.iter().enumerate() {
            let Some(t) = self.cross_core_release(q) else {
                continue;
            };
            let Some(k) = new_task[t] else { continue };
            let jit = ipi_jitter.get(q).copied().unwrap_or(Picos::ZERO);
            let delay = release_delay.get(q).copied().unwrap_or(Picos::ZERO);
            sys.tasks[k].jitter += delay;
            irqs.push(Interrupt {
                name: ipi_name(&x.name),
                min_interarrival: Picos(x.min_interarrival.0.saturating_sub(jit.0).max(1)),
                wcet: self.kernel.ipi,
                priority: x.priority,
                above_kernel: false,
                releases: Some(k),
                offset: x.offset,
                periodic: false,
                core: 0,
            });
            origin.push(CoreIrq::Ipi(q));
            res_irqs.push(Vec::new());
        }
        let mut chains = Vec::new();
        for (b, a) in self.event_links() {
            let Some(kb) = new_task[b] else { continue };
            if let Some(ka) = new_task[a] {
                chains.push(crate::chain::Chain {
                    name: format!("{}->{}", self.tasks[a].name, self.tasks[b].name),
                    steps: vec![crate::chain::Step::Task(ka), crate::chain::Step::Task(kb)],
                    links: vec![crate::chain::Link::Event],
                    deadline: None,
                    read: crate::chain::ReadAt::Release,
                });
                continue;
            }
            let jit = task_ipi_jitter.get(a).copied().unwrap_or(Picos::ZERO);
            let delay = task_release_delay.get(a).copied().unwrap_or(Picos::ZERO);
            sys.tasks[kb].jitter += delay;
            let ta = self.tasks[a].period();
            irqs.push(Interrupt {
                name: ipi_name(&self.tasks[a].name),
                min_interarrival: Picos(ta.0.saturating_sub(jit.0).max(1)),
                wcet: self.kernel.ipi,
                priority: 0,
                above_kernel: false,
                releases: Some(kb),
                offset: Picos::ZERO,
                periodic: false,
                core: 0,
            });
            origin.push(CoreIrq::TaskIpi(a));
            res_irqs.push(Vec::new());
        }
        sys.chains = chains;
        for (n, x) in irqs.iter().enumerate() {
            if let Some(k) = x.releases {
                sys.tasks[k].released_by = Some(n);
            }
        }
        sys.interrupts = irqs;
        sys.resources.tasks = tasks
            .iter()
            .map(|&i| self.resources.tasks.get(i).cloned().unwrap_or_default())
            .collect();
        sys.resources.interrupts = res_irqs;
        CoreView {
            core,
            sys,
            tasks,
            interrupts: origin,
            tick_unbounded: false,
        }
    }
}
