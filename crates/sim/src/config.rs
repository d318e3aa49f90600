//! The simulator's own, flat input: tasks, interrupts and kernel overheads already turned
//! into integer picoseconds and cost tables.
//!
//! Nobody writes this by hand: [`crate::from_system`] fills it from the shared system
//! description (`latscope_model::system::System`), calling the model's cost functions to
//! fill the tables, so the overhead models have one source of truth. Tests build it
//! directly to state small hand-checked timelines.

mod validate;

pub use validate::{ConfigError, SectionError};

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

/// Highest task priority [`crate::from_system`] accepts with generic task selection: its
/// switch-cost table has one entry per priority number the selection loop can walk past
/// (FreeRTOS walks every number, empty or not). Port-optimised selection takes any `u32`.
pub const MAX_GENERIC_PRIORITY: u32 = 65_535;

impl SimConfig {
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
