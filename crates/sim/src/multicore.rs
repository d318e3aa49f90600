//! Partitioned multicore simulation (docs/simulator.md, Multicore): one engine per core,
//! each built from the core's view of the system ([`System::core_view`]), all stepped
//! through one shared sequence of instants.
//!
//! At each instant every core processes its events in core order (ties between cores
//! are broken by core id). A handler that releases a task on another core raises, when
//! it ends, that core's inter-core interrupt (`ipi<NAME>`, cost `L + ipi`) at the same
//! instant; a core that receives one processes the instant again, lower ids first, so
//! the order never depends on anything but the input and the seed. The job the
//! inter-core interrupt releases counts its response from the arrival of the interrupt
//! that started the path on the other core, as the analysis does.
//!
//! With a broadcast tick (`kernel.tick_source = "broadcast"`) only the tick core's timer
//! ticks; each end of its tick handler raises, at that instant, the relayed tick on
//! every other core (in core order), whose handler (`L` + the tick's cost + `ipi`) runs
//! there as that core's tick and keeps the nominal tick instant.

use crate::chains::{ChainObserver, Hook};
use crate::engine::{Sim, SimOptions};
use crate::from_system::{from_system, FromSystemError, FromSystemOptions};
use crate::report::{CoreReport, SimReport};
use latscope_core::capture::{Capture, DigitalChannel};
use latscope_core::Picos;
use latscope_model::system::cores::{CoreIrq, CoreView};
use latscope_model::system::System;
use std::collections::BTreeSet;

/// A partitioned multicore simulation in progress.
pub struct MultiSim {
    cores: Vec<Sim>,
    views: Vec<CoreView>,
    /// Per core, per interrupt of its view: where its handler's end raises an
    /// inter-core interrupt (core, interrupt of that core's view).
    routes: Vec<Vec<Option<(usize, usize)>>>,
    /// The system's tasks in file order: (core, index in the core's view).
    order: Vec<(usize, usize)>,
    source: String,
    seed: u64,
    /// The chains, observed over all cores from the cores' recorded hooks (more than
    /// one core with chains).
    chains: Option<ChainObserver>,
    /// Per task of the system: the inter-core interrupts its completions raise (core,
    /// interrupt of that core's view), a chain's event links across cores.
    task_routes: Vec<Vec<(usize, usize)>>,
    /// The core whose tick is broadcast to the others (`kernel.tick_source =
    /// "broadcast"`); `None`: every core has its own tick.
    tick_core: Option<usize>,
}

/// Each core's seed: the run's seed mixed with the core id, so that cores draw
/// independent execution times and interrupt gaps.
fn core_seed(seed: u64, core: u32) -> u64 {
    if core == 0 {
        seed
    } else {
        seed ^ (core as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl MultiSim {
    /// Builds one engine per core of `sys` (any number of cores; one core gives the
    /// same run as [`Sim`] alone).
    pub fn new(
        sys: &System,
        o: &FromSystemOptions,
        opts: SimOptions,
    ) -> Result<MultiSim, FromSystemError> {
        let n = sys.platform.cores.max(1);
        let views: Vec<CoreView> = (0..n).map(|c| sys.core_view(c, &[], &[])).collect();
        let mut cores = Vec::with_capacity(views.len());
        for v in &views {
            let seed = core_seed(o.seed, v.core);
            let fo = FromSystemOptions { seed, ..o.clone() };
            let cfg = from_system(&v.sys, &fo)?;
            let sim = Sim::new(
                cfg,
                SimOptions {
                    seed: core_seed(opts.seed, v.core),
                    ..opts.clone()
                },
            )
            .map_err(|err| FromSystemError::Config {
                source_name: sys.source.clone(),
                err,
            })?;
            cores.push(sim);
        }
        let mut routes: Vec<Vec<Option<(usize, usize)>>> = views
            .iter()
            .map(|v| vec![None; v.interrupts.len()])
            .collect();
        for (d, v) in views.iter().enumerate() {
            for (dq, origin) in v.interrupts.iter().enumerate() {
                let CoreIrq::Ipi(q) = *origin else { continue };
                let src = sys.interrupts[q].core as usize;
                let Some(sq) = views[src]
                    .interrupts
                    .iter()
                    .position(|x| *x == CoreIrq::Own(q))
                else {
                    continue;
                };
                routes[src][sq] = Some((d, dq));
                cores[d].make_external(dq);
                cores[src].notify_on_end(sq);
            }
        }
        // Chains: each core records its hooks; one observer sees them all in order, and a
        // completion whose successor sits on another core raises that core's
        // inter-core interrupt.
        let mut task_routes = vec![Vec::new(); sys.tasks.len()];
        let mut chains = None;
        if views.len() == 1 {
            cores[0].observe_chains(crate::chains::from_system(sys));
        } else if !sys.chains.is_empty() {
            for (d, v) in views.iter().enumerate() {
                for (dq, origin) in v.interrupts.iter().enumerate() {
                    if let CoreIrq::TaskIpi(a) = *origin {
                        if let Some(r) = task_routes.get_mut(a) {
                            r.push((d, dq));
                            cores[d].make_external(dq);
                        }
                    }
                }
                let irqs = v
                    .interrupts
                    .iter()
                    .map(|o| match *o {
                        CoreIrq::Own(q) => Some(q),
                        _ => None,
                    })
                    .collect();
                let starts = sys
                    .chains
                    .iter()
                    .any(|c| c.read == latscope_model::chain::ReadAt::Start);
                cores[d].set_chain_observer(ChainObserver::forwarding(
                    v.tasks.clone(),
                    irqs,
                    starts,
                ));
            }
            chains = Some(ChainObserver::new(
                crate::chains::from_system(sys),
                sys.tasks.len(),
                sys.interrupts.len(),
            ));
        }
        // A broadcast tick: the tick core records its tick ends, the others take their
        // ticks only from there (engine/tick_relay.rs).
        let tick_core = sys
            .kernel
            .broadcasts_tick(n)
            .then_some(sys.kernel.tick_core as usize)
            .filter(|&tc| tc < cores.len());
        if let Some(tc) = tick_core {
            for (c, s) in cores.iter_mut().enumerate() {
                if c == tc {
                    s.notify_tick_end();
                } else {
                    s.make_tick_external();
                }
            }
        }
        let mut order = vec![(0, 0); sys.tasks.len()];
        for (c, v) in views.iter().enumerate() {
            for (k, &i) in v.tasks.iter().enumerate() {
                order[i] = (c, k);
            }
        }
        Ok(MultiSim {
            cores,
            views,
            routes,
            order,
            source: opts.source.clone(),
            seed: opts.seed,
            chains,
            task_routes,
            tick_core,
        })
    }

    /// Runs every core until `until` (exclusive, as [`Sim::run_until`]).
    pub fn run_until(&mut self, until: Picos) {
        let until = until.0;
        loop {
            let mut t = i64::MAX;
            for s in &mut self.cores {
                t = t.min(s.next_instant());
            }
            if t >= until {
                for c in 0..self.cores.len() {
                    self.cores[c].run_until(Picos(until));
                    self.pass_hooks(c, None);
                }
                return;
            }
            let mut todo: BTreeSet<usize> = (0..self.cores.len()).collect();
            while let Some(c) = todo.pop_first() {
                self.cores[c].run_through(t);
                for (q, at, origin) in self.cores[c].take_fired() {
                    if let Some(&Some((d, dq))) = self.routes[c].get(q) {
                        self.cores[d].raise(dq, at, origin);
                        todo.insert(d);
                    }
                }
                if self.tick_core == Some(c) {
                    // The tick handler's end raises the tick's inter-core interrupt on
                    // every other core at that instant.
                    for (end, nominal) in self.cores[c].take_tick_fired() {
                        for d in (0..self.cores.len()).filter(|&d| d != c) {
                            self.cores[d].raise_tick(end, nominal);
                            todo.insert(d);
                        }
                    }
                }
                self.pass_hooks(c, Some(&mut todo));
            }
        }
    }

    /// Feeds core `c`'s recorded chain hooks to the observer; a completion with a
    /// successor on another core raises that core's inter-core interrupt (its job
    /// keeps the completed job's arrival) and, with `todo`, schedules that core.
    fn pass_hooks(&mut self, c: usize, mut todo: Option<&mut BTreeSet<usize>>) {
        let Some(g) = &mut self.chains else { return };
        let hooks = self.cores[c]
            .chain_observer_mut()
            .map_or_else(Vec::new, ChainObserver::take_hooks);
        for h in hooks {
            g.apply(h);
            if let Hook::Complete { task, arrival, now } = h {
                for &(d, dq) in self.task_routes.get(task).map_or(&[][..], |r| &r[..]) {
                    self.cores[d].raise(dq, now, arrival);
                    if let Some(t) = todo.as_deref_mut() {
                        t.insert(d);
                    }
                }
            }
        }
    }

    /// The engines, in core order.
    pub fn cores(&self) -> &[Sim] {
        &self.cores
    }

    /// One report for the whole system: tasks in file order, interrupts core by core
    /// (inter-core interrupts included), `cores` with each core's time split.
    pub fn report(&self) -> SimReport {
        let reports: Vec<SimReport> = self.cores.iter().map(Sim::report).collect();
        let mut out = reports[0].clone();
        out.source = self.source.clone();
        out.seed = self.seed;
        if self.cores.len() == 1 {
            return out;
        }
        out.tasks = self
            .order
            .iter()
            .map(|&(c, k)| reports[c].tasks[k].clone())
            .collect();
        out.interrupts = reports.iter().flat_map(|r| r.interrupts.clone()).collect();
        out.resources = reports.iter().flat_map(|r| r.resources.clone()).collect();
        out.chains = self
            .chains
            .as_ref()
            .map_or_else(Vec::new, ChainObserver::report);
        out.events = reports.iter().map(|r| r.events).sum();
        out.duration_ns = reports.iter().map(|r| r.duration_ns).fold(0.0, f64::max);
        let mut cpu = reports[0].cpu.clone();
        for r in &reports[1..] {
            let x = &r.cpu;
            cpu.tasks_ns += x.tasks_ns;
            cpu.tick_ns += x.tick_ns;
            cpu.switch_ns += x.switch_ns;
            cpu.interrupts_ns += x.interrupts_ns;
            cpu.scheduler_ns += x.scheduler_ns;
            cpu.idle_ns += x.idle_ns;
            cpu.sleep_ns += x.sleep_ns;
            cpu.wake_ns += x.wake_ns;
        }
        // Fractions of all the cores' time together.
        let all = out.duration_ns * self.cores.len() as f64;
        let f = |v: f64| if all > 0.0 { v / all } else { 0.0 };
        cpu.tasks_fraction = f(cpu.tasks_ns);
        cpu.tick_fraction = f(cpu.tick_ns);
        cpu.switch_fraction = f(cpu.switch_ns);
        cpu.interrupts_fraction = f(cpu.interrupts_ns);
        cpu.scheduler_fraction = f(cpu.scheduler_ns);
        cpu.idle_fraction = f(cpu.idle_ns);
        cpu.sleep_fraction = f(cpu.sleep_ns);
        cpu.wake_fraction = f(cpu.wake_ns);
        out.cpu = cpu;
        out.cores = reports
            .iter()
            .zip(&self.views)
            .map(|(r, v)| CoreReport {
                core: v.core,
                tasks: v.sys.tasks.iter().map(|t| t.name.clone()).collect(),
                events: r.events,
                cpu: r.cpu.clone(),
            })
            .collect();
        out
    }

    /// The virtual capture of every core: per core a channel `coreN`, high while the
    /// core is busy (neither idle nor asleep), then that core's channels (tasks under
    /// their names, which are unique; the rest prefixed `coreN.`).
    pub fn capture(&self) -> Capture {
        if let [one] = &self.cores[..] {
            return one.capture();
        }
        let caps: Vec<Capture> = self.cores.iter().map(Sim::capture).collect();
        let mut channels = Vec::new();
        let mut end = Picos(0);
        for ((cap, v), c) in caps.into_iter().zip(&self.views).zip(0u32..) {
            end = end.max(cap.end);
            let ntasks = v.sys.tasks.len();
            // idle and sleep follow the tasks; at most one of them is high at a time.
            let mut idle_edges: Vec<Picos> = Vec::new();
            for ch in cap.channels.iter().skip(ntasks).take(2) {
                idle_edges.extend(ch.edges.iter().copied());
            }
            idle_edges.sort();
            // An edge of each at one instant (idle to sleep) leaves "not busy" unchanged.
            let mut busy: Vec<Picos> = Vec::with_capacity(idle_edges.len());
            for e in idle_edges {
                if busy.last() == Some(&e) {
                    busy.pop();
                } else {
                    busy.push(e);
                }
            }
            channels.push(DigitalChannel {
                name: format!("core{c}"),
                initial: true,
                edges: busy,
            });
            for (k, mut ch) in cap.channels.into_iter().enumerate() {
                if k >= ntasks {
                    ch.name = format!("core{c}.{}", ch.name);
                }
                channels.push(ch);
            }
        }
        Capture {
            source: if self.source.is_empty() {
                "simulation".into()
            } else {
                format!("simulation of {}", self.source)
            },
            samplerate_hz: None,
            start: Picos(0),
            end,
            channels,
            analog: Vec::new(),
        }
    }
}
