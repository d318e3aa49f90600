//! Shared resources of a system description: `[[resource]]` tables and the critical
//! sections tasks and interrupt handlers declare (`critical = [{ resource, duration, at,
//! inside }]`), and the blocking they cause ([`blocking`]).
//!
//! Three protocols, as kernels provide them:
//!
//! * `inheritance`: a mutex with priority inheritance (FreeRTOS `xSemaphoreCreateMutex`,
//!   Zephyr `k_mutex`): the holder inherits the highest priority of the tasks it blocks
//!   and returns to its base priority once it has given back every mutex it holds.
//! * `ceiling`: the immediate priority ceiling protocol (OSEK/AUTOSAR resources; as a
//!   blocking bound the same as Baker's stack resource policy): taking the resource
//!   raises the holder to the ceiling, the highest priority of the resource's users.
//! * `critical`: a kernel critical section (`taskENTER_CRITICAL`): preemption and the
//!   interrupts at or below the kernel's syscall level (the tick among them) are masked
//!   for its duration.

pub mod blocking;
pub mod nested;

use latscope_core::Picos;
use serde::{Deserialize, Serialize};

/// How a resource is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Inheritance,
    Ceiling,
    Critical,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Inheritance => "inheritance",
            Protocol::Ceiling => "ceiling",
            Protocol::Critical => "critical",
        }
    }
}

/// A `[[resource]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resource {
    pub name: String,
    pub protocol: Protocol,
}

/// One critical section of a job: the resource is held from `at` (execution time into
/// the job) for `duration` of execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Section {
    /// Index into [`Resources::list`].
    pub resource: usize,
    pub duration: Picos,
    pub at: Picos,
    /// The enclosing section (index into the same job's sections), when nested.
    pub inside: Option<usize>,
}

impl Section {
    pub fn end(&self) -> Picos {
        self.at + self.duration
    }
}

/// The kernel's costs of the resource calls (`[kernel.costs]` `lock`, `unlock`,
/// `inherit`), for every model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LockCosts {
    /// Taking a resource (mutex take, ceiling raise, entering a critical section).
    pub lock: Picos,
    /// Giving it back.
    pub unlock: Picos,
    /// Raising a holder's priority by inheritance (and restoring it), once per
    /// blocking episode.
    pub inherit: Picos,
}

/// Every resource and every job's sections.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Resources {
    pub list: Vec<Resource>,
    /// Sections per task (index as in `System::tasks`; empty when there are none).
    pub tasks: Vec<Vec<Section>>,
    /// Sections per interrupt handler (index as in `System::interrupts`).
    pub interrupts: Vec<Vec<Section>>,
    pub costs: LockCosts,
}

impl Resources {
    /// No resource declared and no lock costs.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.costs == LockCosts::default()
    }
    /// The sections of task `i`.
    pub fn of_task(&self, i: usize) -> &[Section] {
        self.tasks.get(i).map_or(&[], Vec::as_slice)
    }
    /// The sections of interrupt handler `x`.
    pub fn of_interrupt(&self, x: usize) -> &[Section] {
        self.interrupts.get(x).map_or(&[], Vec::as_slice)
    }
    pub fn protocol(&self, s: &Section) -> Protocol {
        self.list
            .get(s.resource)
            .map_or(Protocol::Critical, |r| r.protocol)
    }
    pub fn name(&self, s: &Section) -> &str {
        self.list.get(s.resource).map_or("?", |r| r.name.as_str())
    }
}
