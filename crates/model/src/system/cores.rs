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
        }
    }
}
