//! Checking a configuration before the engine runs it: the engine indexes tables and
//! subtracts times on the strength of these invariants, so a broken one is an error
//! here, naming the task, interrupt or device, never a panic later.

use super::*;

/// Why a configuration cannot be simulated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("tick period must be positive")]
    TickPeriod,
    #[error("task '{task}': {what}")]
    Task { task: String, what: String },
    #[error("interrupt '{irq}': {what}")]
    Irq { irq: String, what: String },
    #[error("{0}")]
    Other(String),
}

/// The error for task `t`.
fn task_error(t: &SimTask, what: &str) -> ConfigError {
    ConfigError::Task {
        task: t.name.clone(),
        what: what.into(),
    }
}

impl SimConfig {
    /// Checks the invariants the engine relies on; every error names the task or interrupt.
    /// The checks run in a fixed order, so a file with several faults always names the
    /// same one first.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_clock()?;
        for t in &self.tasks {
            self.check_task(t)?;
        }
        let c = &self.lock_costs;
        if c.lock.0 < 0 || c.unlock.0 < 0 || c.inherit.0 < 0 {
            return Err(ConfigError::Other(
                "lock, unlock and inherit costs must be >= 0".into(),
            ));
        }
        for t in &self.tasks {
            self.check_sections(&t.sections, t.exec.max(), false)
                .map_err(|w| task_error(t, &w.to_string()))?;
        }
        for q in &self.interrupts {
            self.check_interrupt(q)?;
        }
        self.check_devices()?;
        self.check_tickless()?;
        self.check_kernel_costs()
    }

    /// The tick period, the tick rate it comes from, and the interrupt entry latency.
    fn check_clock(&self) -> Result<(), ConfigError> {
        if self.tick_period.0 <= 0 {
            return Err(ConfigError::TickPeriod);
        }
        if let Some(hz) = self.tick_hz {
            if hz == 0
                || hz > 1_000_000_000_000
                || self.tick_period.0 != 1_000_000_000_000 / hz as i64
            {
                return Err(ConfigError::Other(format!(
                    "tick rate {hz} Hz: need 1 Hz to 1 THz, and tick_period = 1 s / tick_hz truncated to picoseconds"
                )));
            }
        }
        if self.irq_entry.0 < 0 {
            return Err(ConfigError::Other(
                "interrupt entry latency is negative".into(),
            ));
        }
        Ok(())
    }

    /// One task's times, execution model and activation (`t` is an element of
    /// `self.tasks`: a task released by itself is found by address).
    fn check_task(&self, t: &SimTask) -> Result<(), ConfigError> {
        if t.deadline.0 <= 0 {
            return Err(task_error(t, "deadline must be positive"));
        }
        if t.offset.0 < 0 || t.jitter.0 < 0 || t.critical.0 < 0 {
            return Err(task_error(
                t,
                "offset, jitter and critical section must be >= 0",
            ));
        }
        match &t.exec {
            ExecTime::Fixed(c) if c.0 < 0 => return Err(task_error(t, "negative WCET")),
            ExecTime::Uniform { bcet, wcet } if bcet.0 < 0 || bcet > wcet => {
                return Err(task_error(t, "need 0 <= BCET <= WCET"))
            }
            ExecTime::Empirical(v) if v.is_empty() || v.iter().any(|x| x.0 < 0) => {
                return Err(task_error(
                    t,
                    "empirical execution times must be non-empty and >= 0",
                ))
            }
            _ => {}
        }
        self.check_activation(t)?;
        if let Kernel::ListScan(_) = self.kernel {
            if !self.is_whole_ticks(t.period) {
                return Err(task_error(
                    t,
                    "list-scan threads need a period that is a whole number of ticks",
                ));
            }
        }
        Ok(())
    }

    /// What releases task `t` exists and can release it in this kernel model.
    fn check_activation(&self, t: &SimTask) -> Result<(), ConfigError> {
        match t.activation {
            Activation::Periodic if t.period.0 <= 0 => {
                return Err(task_error(t, "period must be positive"))
            }
            Activation::Interrupt(i) => {
                let Some(irq) = self.interrupts.get(i) else {
                    return Err(task_error(t, "released by an unknown interrupt"));
                };
                if irq.above_kernel {
                    return Err(task_error(
                        t,
                        "released by an interrupt above the kernel's mask level (it may not call the kernel)",
                    ));
                }
                if matches!(self.kernel, Kernel::ListScan(_)) {
                    return Err(task_error(
                        t,
                        "interrupt-released threads are not modelled in list-scan mode",
                    ));
                }
            }
            Activation::Task(a) => {
                if a >= self.tasks.len() || std::ptr::eq(&self.tasks[a], t) {
                    return Err(task_error(t, "released by an unknown task or by itself"));
                }
                if matches!(self.kernel, Kernel::ListScan(_)) {
                    return Err(task_error(
                        t,
                        "task-released threads are not modelled in list-scan mode",
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// One interrupt's handler time, critical sections and arrivals.
    fn check_interrupt(&self, q: &SimIrq) -> Result<(), ConfigError> {
        let e = |w: &str| ConfigError::Irq {
            irq: q.name.clone(),
            what: w.into(),
        };
        if q.wcet.0 < 0 {
            return Err(e("negative WCET"));
        }
        if q.above_kernel && !q.sections.is_empty() {
            return Err(e(
                "a handler above the kernel's mask level cannot enter a kernel critical section",
            ));
        }
        self.check_sections(&q.sections, q.wcet, true)
            .map_err(|w| e(&w.to_string()))?;
        match q.arrival {
            IrqArrival::Periodic { period, offset } => {
                if period.0 <= 0 || offset.0 < 0 {
                    return Err(e("period must be positive and offset >= 0"));
                }
            }
            IrqArrival::Sporadic { min, max, offset } => {
                if min.0 <= 0 || max < min || offset.0 < 0 {
                    return Err(e("need 0 < min <= max inter-arrival and offset >= 0"));
                }
            }
        }
        Ok(())
    }

    /// Tickless idle: at least two idle ticks before sleeping, latencies >= 0, tick
    /// kernel only.
    fn check_tickless(&self) -> Result<(), ConfigError> {
        let Some(tl) = &self.tickless else {
            return Ok(());
        };
        if tl.min_idle_ticks < 2 {
            return Err(ConfigError::Other(
                "tickless: the minimum idle time before sleeping is at least 2 ticks".into(),
            ));
        }
        if tl.exit_latency.0 < 0 || tl.switch_extra.0 < 0 {
            return Err(ConfigError::Other(
                "tickless: latencies must be >= 0".into(),
            ));
        }
        if matches!(self.kernel, Kernel::ListScan(_)) {
            return Err(ConfigError::Other(
                "tickless idle is modelled for the tick kernel only".into(),
            ));
        }
        Ok(())
    }

    /// The kernel model's cost tables are non-empty and >= 0; under EDF only kernel
    /// critical sections are simulated.
    fn check_kernel_costs(&self) -> Result<(), ConfigError> {
        match &self.kernel {
            Kernel::Tick(k) => {
                if k.tick_cost.is_empty() || k.tick_cost.iter().any(|c| c.0 < 0) {
                    return Err(ConfigError::Other(
                        "tick cost table must be non-empty and >= 0".into(),
                    ));
                }
                match &k.switch_cost {
                    SwitchCost::PerLevel(v) if v.is_empty() || v.iter().any(|c| c.0 < 0) => {
                        return Err(ConfigError::Other(
                            "switch cost table must be non-empty and >= 0".into(),
                        ))
                    }
                    SwitchCost::Constant(c) if c.0 < 0 => {
                        return Err(ConfigError::Other("negative switch cost".into()))
                    }
                    _ => {}
                }
                if k.edf {
                    // Inheritance and ceilings raise priorities, which order nothing
                    // under EDF (the deadline-based protocols are not modelled).
                    if let Some(r) = self
                        .resources
                        .iter()
                        .find(|r| r.protocol != SimProtocol::Critical)
                    {
                        return Err(ConfigError::Other(format!(
                            "resource '{}': under EDF only kernel critical sections \
                             (protocol = \"critical\") are simulated",
                            r.name
                        )));
                    }
                }
            }
            Kernel::ListScan(k) => {
                if k.check_cost.0 < 0
                    || k.switch_cost.0 < 0
                    || k.insert_cost.is_empty()
                    || k.insert_cost.iter().any(|c| c.0 < 0)
                {
                    return Err(ConfigError::Other(
                        "list-scan costs must be >= 0 and the insertion table non-empty".into(),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Devices drain at a positive rate into a FIFO whose span of time fits in `i64`;
    /// outputs name a known task and device, one per task, in list-scan mode.
    fn check_devices(&self) -> Result<(), ConfigError> {
        for d in &self.devices {
            let span = d.item_time.0.checked_mul(d.capacity as i64 + 1);
            if d.item_time.0 <= 0 || span.is_none() {
                return Err(ConfigError::Other(format!(
                    "device '{}': need an item time > 0 and item time x (capacity + 1) within i64 picoseconds",
                    d.name
                )));
            }
        }
        for (k, o) in self.outputs.iter().enumerate() {
            let Some(t) = self.tasks.get(o.task) else {
                return Err(ConfigError::Other(format!(
                    "output {k}: unknown task {}",
                    o.task
                )));
            };
            let terr = |w: String| ConfigError::Task {
                task: t.name.clone(),
                what: w,
            };
            if self.devices.get(o.device).is_none() {
                return Err(terr(format!("output to an unknown device {}", o.device)));
            }
            if o.items == 0 || o.put_cost.0 < 0 {
                return Err(terr(
                    "output needs at least one item and a put cost >= 0".into(),
                ));
            }
            if self.outputs[..k].iter().any(|p| p.task == o.task) {
                return Err(terr("more than one output".into()));
            }
            if !matches!(self.kernel, Kernel::ListScan(_)) {
                return Err(terr(
                    "device output is modelled for the list-scan kernel only".into(),
                ));
            }
        }
        Ok(())
    }

    /// Sections of one job: known resources, inside the execution time, in order, nested
    /// by containment without taking a resource twice; handlers: critical ones only.
    fn check_sections(
        &self,
        secs: &[SimSection],
        exec: Picos,
        handler: bool,
    ) -> Result<(), SectionError> {
        for (k, s) in secs.iter().enumerate() {
            let Some(r) = self.resources.get(s.resource) else {
                return Err(SectionError::UnknownResource {
                    section: k,
                    resource: s.resource,
                });
            };
            let name = || r.name.clone();
            if handler && r.protocol != SimProtocol::Critical {
                return Err(SectionError::HandlerTakes {
                    section: k,
                    resource: name(),
                });
            }
            let end = s.at.0.checked_add(s.duration.0).unwrap_or(i64::MAX);
            if s.at.0 < 0 || s.duration.0 <= 0 || end > exec.0 {
                return Err(SectionError::OutsideJob {
                    section: k,
                    resource: name(),
                });
            }
            for (j, o) in secs[..k].iter().enumerate() {
                let oe = o.at.0 + o.duration.0;
                let disjoint = oe <= s.at.0;
                let nested = o.at.0 <= s.at.0 && end <= oe;
                if !disjoint && !nested {
                    return Err(SectionError::Overlaps {
                        section: k,
                        resource: name(),
                        other: j,
                    });
                }
                if nested && !disjoint && o.resource == s.resource {
                    return Err(SectionError::TakenTwice {
                        section: k,
                        resource: name(),
                        other: j,
                    });
                }
            }
        }
        Ok(())
    }
}

/// What is wrong with one critical section of a task or interrupt handler.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SectionError {
    #[error("section {section}: unknown resource {resource}")]
    UnknownResource { section: usize, resource: usize },
    #[error("section {section}: an interrupt handler can only enter kernel critical sections, not take '{resource}'")]
    HandlerTakes { section: usize, resource: String },
    #[error("section {section} on '{resource}': need at >= 0, duration > 0 and at + duration <= the execution time")]
    OutsideJob { section: usize, resource: String },
    #[error("section {section} on '{resource}' overlaps section {other} without lying inside it (sections run in order)")]
    Overlaps {
        section: usize,
        resource: String,
        other: usize,
    },
    #[error("section {section} takes '{resource}' again while section {other} holds it")]
    TakenTwice {
        section: usize,
        resource: String,
        other: usize,
    },
}
