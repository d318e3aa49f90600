//! The simulator's own, flat input: tasks, interrupts and kernel overheads already turned
//! into integer picoseconds and cost tables.
//!
//! Nobody writes this by hand: [`crate::from_system`] fills it from the shared system
//! description (`latscope_model::system::System`), calling the model's cost functions to
//! fill the tables, so the overhead models have one source of truth. Tests build it
//! directly to state small hand-checked timelines.

use latscope_core::Picos;

/// How long one job of a task executes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecTime {
    /// Always the same time (normally the WCET).
    Fixed(Picos),
    /// Uniformly distributed between BCET and WCET (inclusive), integer picoseconds.
    Uniform { bcet: Picos, wcet: Picos },
    /// Drawn uniformly from measured values (an empirical distribution).
    Empirical(Vec<Picos>),
}

impl ExecTime {
    /// The largest time this model can produce.
    pub fn max(&self) -> Picos {
        match self {
            ExecTime::Fixed(c) => *c,
            ExecTime::Uniform { wcet, .. } => *wcet,
            ExecTime::Empirical(v) => v.iter().copied().max().unwrap_or(Picos::ZERO),
        }
    }
}

/// What makes a task's job arrive.
#[derive(Clone, Debug, PartialEq)]
pub enum Activation {
    /// Periodic: job j arrives at `offset + j * period` (+ release jitter). The kernel
    /// notices it at the first tick at or after that time.
    Periodic,
    /// Released by the handler of interrupt `irq` (index into [`SimConfig::interrupts`]);
    /// the job's arrival is the interrupt's arrival.
    Interrupt(usize),
    /// Released by the completion of a job of task `task` (a chain's event link); the
    /// job's arrival is that job's arrival, so its response counts from the release of
    /// the chain segment's first step.
    Task(usize),
}

/// One task (FreeRTOS task, or kernel-v1 thread in list-scan mode).
#[derive(Clone, Debug, PartialEq)]
pub struct SimTask {
    pub name: String,
    /// Larger number = higher priority (FreeRTOS convention); 0 is the idle priority.
    pub priority: u32,
    pub period: Picos,
    pub offset: Picos,
    pub deadline: Picos,
    /// Release jitter: each job is released up to this much after its arrival (uniform).
    pub jitter: Picos,
    pub exec: ExecTime,
    /// Interrupts-disabled section at the start of every job (kernel-level interrupts,
    /// the tick and the context switch are held off while it runs).
    pub critical: Picos,
    pub activation: Activation,
    /// Critical sections on shared resources, in the order the job runs them (an inner
    /// section after the one it is nested in). Empty for most tasks.
    pub sections: Vec<SimSection>,
}

/// When an interrupt source fires.
#[derive(Clone, Debug, PartialEq)]
pub enum IrqArrival {
    /// Every `period` from `offset`.
    Periodic { period: Picos, offset: Picos },
    /// First at `offset`, then gaps drawn uniformly from `[min, max]`.
    Sporadic {
        min: Picos,
        max: Picos,
        offset: Picos,
    },
}

/// One interrupt source.
#[derive(Clone, Debug, PartialEq)]
pub struct SimIrq {
    pub name: String,
    /// Larger = more urgent. Every interrupt ranks above the tick and the context switch
    /// (which sit at the lowest interrupt priority, as FreeRTOS configures them).
    pub priority: u32,
    /// Above the kernel's mask level (`configMAX_SYSCALL_INTERRUPT_PRIORITY`): never held
    /// off by kernel or application critical sections, may not release a task.
    pub above_kernel: bool,
    /// Handler execution time, without the entry latency.
    pub wcet: Picos,
    pub arrival: IrqArrival,
    /// Kernel critical sections of the handler (`taskENTER_CRITICAL_FROM_ISR`): only
    /// resources with [`SimProtocol::Critical`]; `at` is execution time into the handler.
    pub sections: Vec<SimSection>,
}

/// How a shared resource is taken (docs/resources.md, docs/simulator.md section 2a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimProtocol {
    /// Mutex with priority inheritance (FreeRTOS `xSemaphoreCreateMutex`, Zephyr `k_mutex`).
    Inheritance,
    /// Immediate priority ceiling: the holder runs at the highest priority of the
    /// resource's users from the moment it takes it.
    Ceiling,
    /// Kernel critical section (`taskENTER_CRITICAL`): preemption, the tick and the
    /// interrupts at or below the kernel's level are masked while it is held.
    Critical,
}

/// One shared resource.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResource {
    pub name: String,
    pub protocol: SimProtocol,
}

/// One critical section of a job: `resource` (index into [`SimConfig::resources`]) is
/// held from `at` (execution time into the job, without the lock calls) for `duration`
/// of execution. Sections nest by containment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimSection {
    pub resource: usize,
    pub at: Picos,
    pub duration: Picos,
}

/// Execution costs of the resource calls (`[kernel.costs]` `lock`, `unlock`, `inherit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SimLockCosts {
    /// Taking a resource, paid by the taker before it holds it.
    pub lock: Picos,
    /// Giving it back, paid by the holder while it still holds it.
    pub unlock: Picos,
    /// Paid by a task that finds an inheritance mutex taken, before it blocks
    /// (`xTaskPriorityInherit` runs in its context).
    pub inherit: Picos,
}

/// Cost of selecting the next task in the deferred context switch.
#[derive(Clone, Debug, PartialEq)]
pub enum SwitchCost {
    /// Generic C selection: `table[k]` is the cost when the walk from
    /// `uxTopReadyPriority` passed `k` empty levels (the last entry is used beyond).
    PerLevel(Vec<Picos>),
    /// Port-optimised selection (one CLZ): the same cost for every switch.
    Constant(Picos),
}

/// A FreeRTOS-like tick-driven preemptive kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct TickKernel {
    /// `tick_cost[n]` = handler cost (without entry latency) when `n` tasks are released
    /// (the last entry is used beyond its length).
    pub tick_cost: Vec<Picos>,
    pub switch_cost: SwitchCost,
    pub time_slicing: bool,
    /// Earliest deadline first (`kernel.scheduler = "edf"`): the ready job with the
    /// earliest absolute deadline (arrival + relative deadline) runs; ties go to the
    /// earlier arrival, then to the lower task index. Priorities then order nothing
    /// but the interrupts. Every kernel overhead is charged as under fixed priority; a
    /// switch costs what the selection over every task costs (`switch_cost` at as many
    /// levels as there are tasks), as the EDF analysis charges it.
    pub edf: bool,
}

/// A kernel-v1-like cooperative list-scan scheduler (KernelPerf).
#[derive(Clone, Debug, PartialEq)]
pub struct ListScanKernel {
    /// Status check of one installed thread.
    pub check_cost: Picos,
    /// `insert_cost[pos]` = run-queue insertion at position `pos` (last entry beyond).
    pub insert_cost: Vec<Picos>,
    /// One thread-to-thread switch.
    pub switch_cost: Picos,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kernel {
    Tick(TickKernel),
    ListScan(ListScanKernel),
}

/// Tickless idle (the pico]OS tickless report).
#[derive(Clone, Debug, PartialEq)]
pub struct Tickless {
    /// Sleep only when the next timed wake-up is at least this many ticks away
    /// (`configEXPECTED_IDLE_TIME_BEFORE_SLEEP`, at least 2).
    pub min_idle_ticks: u64,
    /// Wake this many ticks before the next timed wake-up (the safety margin).
    pub margin_ticks: u64,
    /// Name of the sleep state (for outputs).
    pub state: String,
    /// Time from the wake-up event until the CPU runs code: CPU wake + oscillator restart.
    pub exit_latency: Picos,
    /// Extra cost of the first context switch after a wake-up (the pico]OS tickless report: an extra SVCall).
    pub switch_extra: Picos,
}

/// A transmit device with a FIFO, drained at a fixed rate (a UART: one character per
/// frame time at the baud rate). Items written while the line is idle start at once;
/// the FIFO holds the items waiting behind the one on the line, so `capacity + 1` items
/// fit before a writer must wait. Its two flags are what the writers wait for: "room"
/// (the FIFO holds fewer than `capacity`) and "FIFO empty" (nothing waits behind the
/// item on the line; the PL011's TXFE).
#[derive(Clone, Debug, PartialEq)]
pub struct SimDevice {
    pub name: String,
    /// Time one item occupies the line (UART: frame bits / baud rate).
    pub item_time: Picos,
    /// FIFO entries behind the item on the line.
    pub capacity: u32,
}

/// What a writer does when the device's FIFO is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitMode {
    /// Busy-waits for room: the thread keeps the CPU (charged as its own execution) until
    /// the item on the line has gone and an entry frees.
    Spin,
    /// Suspends until the FIFO-empty flag: the thread leaves the CPU, and the list-scan
    /// scheduler's status check puts it back on the run queue at the first scheduler run
    /// that finds the flag set.
    Suspend,
}

/// Output written at the end of every job of task `task`: `items` items to `device`, each
/// costing `put_cost` of the task's CPU time, waiting as `wait` says when the FIFO is full.
/// The job completes when its last item is in the FIFO (not when it has been sent).
#[derive(Clone, Debug, PartialEq)]
pub struct SimOutput {
    pub task: usize,
    pub device: usize,
    pub items: u32,
    pub put_cost: Picos,
    pub wait: WaitMode,
}

/// Everything the engine needs.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// The tick period. With [`SimConfig::tick_hz`] set it is informational (1 s / tick_hz
    /// truncated to whole picoseconds) and the tick instants come from the rate.
    pub tick_period: Picos,
    /// The tick rate, when known: tick `k` is then at exactly `round(k * 1e12 / tick_hz)`
    /// picoseconds, so a rate whose period is not a whole number of picoseconds (300 Hz)
    /// keeps its ticks on the exact grid. `None`: tick `k` is at `k * tick_period`.
    pub tick_hz: Option<u64>,
    /// Interrupt entry latency `L`, added to every tick, switch and interrupt handler.
    pub irq_entry: Picos,
    pub kernel: Kernel,
    pub tasks: Vec<SimTask>,
    pub interrupts: Vec<SimIrq>,
    pub tickless: Option<Tickless>,
    /// Shared resources (empty: none).
    pub resources: Vec<SimResource>,
    pub lock_costs: SimLockCosts,
    /// Transmit devices (empty: none; see [`SimDevice`]).
    pub devices: Vec<SimDevice>,
    /// Task outputs to those devices, at most one per task (list-scan kernel only).
    pub outputs: Vec<SimOutput>,
}

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

/// Highest task priority [`crate::from_system`] accepts with generic task selection: its
/// switch-cost table has one entry per priority number the selection loop can walk past
/// (FreeRTOS walks every number, empty or not). Port-optimised selection takes any `u32`.
pub const MAX_GENERIC_PRIORITY: u32 = 65_535;

impl SimConfig {
    /// Checks the invariants the engine relies on; every error names the task or interrupt.
    pub fn validate(&self) -> Result<(), ConfigError> {
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
        let terr = |t: &SimTask, w: &str| ConfigError::Task {
            task: t.name.clone(),
            what: w.into(),
        };
        for t in &self.tasks {
            if t.deadline.0 <= 0 {
                return Err(terr(t, "deadline must be positive"));
            }
            if t.offset.0 < 0 || t.jitter.0 < 0 || t.critical.0 < 0 {
                return Err(terr(t, "offset, jitter and critical section must be >= 0"));
            }
            match &t.exec {
                ExecTime::Fixed(c) if c.0 < 0 => return Err(terr(t, "negative WCET")),
                ExecTime::Uniform { bcet, wcet } if bcet.0 < 0 || bcet > wcet => {
                    return Err(terr(t, "need 0 <= BCET <= WCET"))
                }
                ExecTime::Empirical(v) if v.is_empty() || v.iter().any(|x| x.0 < 0) => {
                    return Err(terr(
                        t,
                        "empirical execution times must be non-empty and >= 0",
                    ))
                }
                _ => {}
            }
            match t.activation {
                Activation::Periodic if t.period.0 <= 0 => {
                    return Err(terr(t, "period must be positive"))
                }
                Activation::Interrupt(i) => {
                    let Some(irq) = self.interrupts.get(i) else {
                        return Err(terr(t, "released by an unknown interrupt"));
                    };
                    if irq.above_kernel {
                        return Err(terr(
                            t,
                            "released by an interrupt above the kernel's mask level (it may not call the kernel)",
                        ));
                    }
                    if matches!(self.kernel, Kernel::ListScan(_)) {
                        return Err(terr(
                            t,
                            "interrupt-released threads are not modelled in list-scan mode",
                        ));
                    }
                }
                Activation::Task(a) => {
                    if a >= self.tasks.len() || std::ptr::eq(&self.tasks[a], t) {
                        return Err(terr(t, "released by an unknown task or by itself"));
                    }
                    if matches!(self.kernel, Kernel::ListScan(_)) {
                        return Err(terr(
                            t,
                            "task-released threads are not modelled in list-scan mode",
                        ));
                    }
                }
                _ => {}
            }
            if let Kernel::ListScan(_) = self.kernel {
                if !self.is_whole_ticks(t.period) {
                    return Err(terr(
                        t,
                        "list-scan threads need a period that is a whole number of ticks",
                    ));
                }
            }
        }
        let c = &self.lock_costs;
        if c.lock.0 < 0 || c.unlock.0 < 0 || c.inherit.0 < 0 {
            return Err(ConfigError::Other(
                "lock, unlock and inherit costs must be >= 0".into(),
            ));
        }
        for t in &self.tasks {
            self.check_sections(&t.sections, t.exec.max(), false)
                .map_err(|w| terr(t, &w.to_string()))?;
        }
        for q in &self.interrupts {
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
        }
        self.check_devices()?;
        if let Some(tl) = &self.tickless {
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
        }
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

    /// The ceiling of each resource: the highest priority among the tasks using it
    /// (0 when only interrupt handlers or nobody use it).
    pub fn ceilings(&self) -> Vec<u32> {
        let mut c = vec![0; self.resources.len()];
        for t in &self.tasks {
            for s in &t.sections {
                if let Some(x) = c.get_mut(s.resource) {
                    *x = (*x).max(t.priority);
                }
            }
        }
        c
    }

    /// Whether `d` is a whole number of tick periods (exactly, with [`Self::tick_hz`]).
    pub fn is_whole_ticks(&self, d: Picos) -> bool {
        match self.tick_hz {
            Some(hz) => (d.0 as i128 * hz as i128) % 1_000_000_000_000 == 0,
            None => d.0 % self.tick_period.0 == 0,
        }
    }

    /// Least common multiple of the periodic tasks' periods plus the largest offset, in
    /// picoseconds; `None` when it overflows or there is no periodic task.
    pub fn hyperperiod(&self) -> Option<Picos> {
        let periodic = || {
            self.tasks
                .iter()
                .filter(|t| t.activation == Activation::Periodic)
        };
        periodic().next()?;
        let off = periodic().map(|t| t.offset.0).max().unwrap_or(0).max(0);
        let h = latscope_core::arith::lcm_all(periodic().map(|t| t.period.0.max(0) as u64))?;
        h.checked_add(off).map(Picos)
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
