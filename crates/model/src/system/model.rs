//! The validated system model: platform, kernel, tasks, interrupts, critical sections.

use crate::overheads::irqpath::IrqPathCosts;
use crate::overheads::listscan::ListScanCosts;
use crate::overheads::tick::TickCosts;
use crate::overheads::tickless::SleepState;
use latscope_core::time::Picos;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A complete, validated system description.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct System {
    /// Where the description came from (a path or a name given by the caller).
    pub source: String,
    pub platform: Platform,
    pub kernel: Kernel,
    /// Tasks in file order.
    pub tasks: Vec<Task>,
    /// Interrupt handlers in file order.
    pub interrupts: Vec<Interrupt>,
    pub critical_sections: CriticalSections,
    /// Shared resources and the critical sections of tasks and handlers
    /// (docs/resources.md).
    pub resources: crate::resource::Resources,
    /// End-to-end chains (`[[chain]]`, docs/analysis.md); empty for most systems.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<crate::chain::Chain>,
}

/// The processor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Platform {
    /// CPU clock in hertz.
    pub cpu_hz: u64,
    /// Hardware interrupt entry latency in cycles (12 on Cortex-M3/M4/M33), the `L` of
    /// the FreeRTOS overheads paper's equations (1) and (2).
    pub irq_entry_cycles: u64,
    pub cache: CacheModel,
    /// Number of cores (`platform.cores`, default 1). Tasks and interrupts are pinned
    /// to one core each (partitioned scheduling, as ESP-IDF pinning and FreeRTOS SMP
    /// affinity do); each core runs its own tick and scheduler.
    #[serde(skip_serializing_if = "is_one")]
    pub cores: u32,
    /// How tasks are placed on the cores: pinned (`task.core` a number, the default) or
    /// every task unpinned (`task.core = "any"`, global fixed priority).
    #[serde(skip_serializing_if = "Placement::is_partitioned")]
    pub placement: Placement,
}

/// Where tasks run on a multicore platform (`task.core`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Each task is pinned to one core (`task.core` a number); each core schedules its
    /// own tasks (docs/analysis.md, Multicore (partitioned)).
    #[default]
    Partitioned,
    /// No task is pinned (`task.core = "any"` on every task): the `m` highest-priority
    /// ready jobs run on the `m` cores and a job may migrate (global fixed priority,
    /// docs/analysis.md, Multicore (global)). Interrupts stay on their `interrupt.core`.
    Global,
}

impl Placement {
    pub fn is_partitioned(&self) -> bool {
        *self == Placement::Partitioned
    }
}

fn is_one(v: &u32) -> bool {
    *v == 1
}
fn is_zero(v: &u32) -> bool {
    *v == 0
}
fn is_zero_ps(v: &Picos) -> bool {
    *v == Picos::ZERO
}

/// Cache states and which one the analysis assumes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheModel {
    /// The state charged by the analysis (`warm` unless the file says otherwise).
    pub assume: CacheState,
    /// Extra interrupt entry time with a warm cache (normally zero).
    pub warm_extra: Picos,
    /// Extra interrupt entry time with a cold cache (K4perf: the raw interrupt latency
    /// grows from 232 ns to over 3.3 us when the handler is fetched from flash).
    pub cold_extra: Picos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheState {
    Warm,
    Cold,
}

impl Platform {
    /// Hardware interrupt entry time `L` in the given cache state:
    /// `irq_entry_cycles / cpu_hz` plus the state's extra entry cost.
    pub fn irq_entry_in(&self, state: CacheState) -> Picos {
        let base = Picos::from_cycles(self.irq_entry_cycles, self.cpu_hz);
        base + match state {
            CacheState::Warm => self.cache.warm_extra,
            CacheState::Cold => self.cache.cold_extra,
        }
    }
    /// `L` in the cache state the analysis assumes.
    pub fn irq_entry(&self) -> Picos {
        self.irq_entry_in(self.cache.assume)
    }
    /// The duration of `cycles` CPU cycles.
    pub fn cycles(&self, cycles: u64) -> Picos {
        Picos::from_cycles(cycles, self.cpu_hz)
    }
}

/// Which overhead model the kernel follows (see `docs/models.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// Tick-driven fixed-priority kernel (FreeRTOS-like, the FreeRTOS overheads paper).
    Tick,
    /// List-scan scheduler run at every tick (kernel-v1-like, KernelPerf).
    Listscan,
    /// Message-passing interrupt-to-task activation (kernel-v4-like, K4perf).
    Irqpath,
}

impl ModelKind {
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Tick => "tick",
            ModelKind::Listscan => "listscan",
            ModelKind::Irqpath => "irqpath",
        }
    }
}

/// The kernel's overhead model with its costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum KernelCosts {
    Tick(TickCosts),
    Listscan(ListScanCosts),
    Irqpath(IrqPathCosts),
}

impl KernelCosts {
    pub fn kind(&self) -> ModelKind {
        match self {
            KernelCosts::Tick(_) => ModelKind::Tick,
            KernelCosts::Listscan(_) => ModelKind::Listscan,
            KernelCosts::Irqpath(_) => ModelKind::Irqpath,
        }
    }
}

/// How the highest-priority ready task is found (FreeRTOS
/// `configUSE_PORT_OPTIMISED_TASK_SELECTION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSelection {
    /// Walk down the ready lists one priority level at a time (cost grows with levels).
    Generic,
    /// One count-leading-zeros instruction (constant cost).
    #[serde(alias = "optimized")]
    Optimised,
}

/// How the analysis charges the tick handler (the FreeRTOS overheads paper, section 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TickMode {
    /// Every tick pays for releasing all n tasks.
    Pessimistic,
    /// A base tick pseudo-task plus one pseudo-task per task with that task's period.
    Partitioned,
}

impl TickMode {
    pub fn name(self) -> &'static str {
        match self {
            TickMode::Pessimistic => "pessimistic",
            TickMode::Partitioned => "partitioned",
        }
    }
}

/// How the kernel picks the task to run (`kernel.scheduler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    /// Fixed priority (FreeRTOS, the source documents' kernels).
    #[default]
    Fp,
    /// Earliest deadline first: the ready job with the earliest absolute deadline runs
    /// (Zephyr's `CONFIG_SCHED_DEADLINE`); `priority` is then unused for tasks.
    Edf,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Fp => "fp",
            Scheduler::Edf => "edf",
        }
    }
}

/// A `[[core]]` table: one core's own settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CoreSettings {
    pub id: u32,
    /// Overrides `kernel.scheduler` on this core.
    pub scheduler: Option<Scheduler>,
}

/// The kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Kernel {
    /// Tick rate in hertz.
    pub tick_hz: u64,
    pub costs: KernelCosts,
    pub task_selection: TaskSelection,
    pub tick_mode: TickMode,
    /// Round-robin among ready tasks of equal priority at every tick.
    pub time_slicing: bool,
    /// Whether two tasks may share a priority (FreeRTOS allows it).
    pub allow_equal_priorities: bool,
    /// Tickless-idle sleep states (empty: the tick always runs).
    pub sleep_states: Vec<SleepState>,
    /// The inter-core interrupt (`kernel.costs.ipi`): the receiving core's handler time
    /// when an interrupt on one core releases a task pinned to another. Zero on one core.
    #[serde(skip_serializing_if = "is_zero_ps")]
    pub ipi: Picos,
    /// The scheduling policy of every core without its own `[[core]]` setting.
    pub scheduler: Scheduler,
    /// The `[[core]]` tables, by id.
    pub cores: Vec<CoreSettings>,
    /// Each core's own tick, or one core's tick broadcast to the others
    /// (`kernel.tick_source`, `super::tick_broadcast`).
    #[serde(skip_serializing_if = "super::tick_broadcast::TickSource::is_per_core")]
    pub tick_source: super::tick_broadcast::TickSource,
    /// The core that takes the tick when it is broadcast (`kernel.tick_core`, default 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub tick_core: u32,
    /// What the broadcasting tick handler spends per inter-core interrupt it sends
    /// (`kernel.costs.ipi_send`, default 0).
    #[serde(skip_serializing_if = "is_zero_ps")]
    pub ipi_send: Picos,
    /// A core view's relayed tick: how late after the nominal instant it runs (set by
    /// the analysis on the cores that receive a broadcast tick; zero otherwise).
    #[serde(skip_serializing_if = "super::tick_broadcast::TickRelay::is_zero")]
    pub tick_relay: super::tick_broadcast::TickRelay,
}

impl Kernel {
    /// The tick period, `1 s / tick_hz`, truncated to whole picoseconds (a truncated
    /// period is shorter, which makes every tick-based bound slightly pessimistic).
    pub fn tick_period(&self) -> Picos {
        Picos(1_000_000_000_000 / self.tick_hz.max(1) as i64)
    }
    pub fn model(&self) -> ModelKind {
        self.costs.kind()
    }
    /// The scheduling policy of core `id`.
    pub fn scheduler_of(&self, id: u32) -> Scheduler {
        self.cores
            .iter()
            .find(|c| c.id == id)
            .and_then(|c| c.scheduler)
            .unwrap_or(self.scheduler)
    }
}

/// How a task's jobs arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "t", rename_all = "lowercase")]
pub enum Arrival {
    /// Strictly periodic with this period.
    Periodic(Picos),
    /// Sporadic with this minimum inter-arrival time.
    Sporadic(Picos),
}

impl Arrival {
    /// The period or minimum inter-arrival time.
    pub fn period(self) -> Picos {
        match self {
            Arrival::Periodic(t) | Arrival::Sporadic(t) => t,
        }
    }
}

/// A task (FreeRTOS convention: a larger priority number is a higher priority).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    pub name: String,
    pub arrival: Arrival,
    pub wcet: Picos,
    pub bcet: Picos,
    pub priority: u32,
    /// Relative deadline (default: the period).
    pub deadline: Picos,
    pub offset: Picos,
    /// Release jitter given in the file (the tick-driven release delay is added by the
    /// analysis, not stored here).
    pub jitter: Picos,
    /// Longest blocking by lower-priority tasks (e.g. a lower-priority critical section).
    pub blocking: Picos,
    /// Optional execution-time distribution file for the simulator, resolved relative
    /// to the system file's directory.
    pub exec_time_file: Option<PathBuf>,
    /// The interrupt (index into [`System::interrupts`]) whose handler releases this
    /// task, if any.
    pub released_by: Option<usize>,
    /// The core the task is pinned to (`task.core`, default 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub core: u32,
}

impl Task {
    pub fn period(&self) -> Picos {
        self.arrival.period()
    }
}

/// An interrupt handler.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interrupt {
    pub name: String,
    pub min_interarrival: Picos,
    pub wcet: Picos,
    /// Hardware priority among interrupts (larger = more urgent).
    pub priority: u32,
    /// Above the kernel's interrupt mask (not delayed by kernel critical sections, may
    /// not call the kernel).
    pub above_kernel: bool,
    /// The task this handler releases (index into [`System::tasks`]).
    pub releases: Option<usize>,
    /// First arrival (phase) in the simulator's periodic worst mode, to replay a
    /// measured phasing; the offset-free analysis does not depend on it.
    pub offset: Picos,
    /// Declared strictly periodic (a timer, a sampling clock): it arrives every
    /// `min_interarrival`, first at `offset`, in every simulation mode, and the
    /// offset-based bound phases it and the task it releases like periodic tasks. False:
    /// `min_interarrival` is only a minimum (unless `analyze --periodic-interrupts`
    /// declares every interrupt periodic).
    pub periodic: bool,
    /// The core whose interrupt controller takes this interrupt (`interrupt.core`,
    /// default 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub core: u32,
}

/// Longest interrupts-disabled sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CriticalSections {
    pub kernel: Picos,
    pub application: Picos,
}

impl CriticalSections {
    pub fn longest(&self) -> Picos {
        self.kernel.max(self.application)
    }
}
impl From<TickCosts> for KernelCosts {
    fn from(c: TickCosts) -> Self {
        KernelCosts::Tick(c)
    }
}

impl System {
    /// Index of the task called `name`.
    pub fn task_index(&self, name: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.name == name)
    }

    /// Whether the interrupt at `irq` releases a task pinned to another core (a
    /// cross-core release, which pays [`Kernel::ipi`]).
    pub fn cross_core_release(&self, irq: usize) -> Option<usize> {
        let x = self.interrupts.get(irq)?;
        let t = x.releases?;
        (self.tasks.get(t)?.core != x.core).then_some(t)
    }
}
