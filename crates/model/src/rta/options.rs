//! What an analysis is asked to do: the options and how context switches are charged.

use super::InterferenceDetail;
use crate::system::TickMode;

/// What to analyse.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisOptions {
    /// Tick accounting reported as `tasks` (`None`: the file's `kernel.tick_mode`).
    /// Both modes are always computed.
    pub tick_mode: Option<TickMode>,
    /// Charge kernel overheads (tick, context switches, interrupt entry `L`, tickless
    /// lateness, kernel critical sections). Interrupt handlers' own WCETs and the
    /// application's blocking are always charged.
    pub overheads: bool,
    /// Model the tick-driven release delay of tick-released tasks: one tick on top of
    /// the jitter when the period or offset is not a whole number of ticks, else the
    /// jitter rounded up to whole ticks.
    pub tick_release_delay: bool,
    /// Stop analysing a task as soon as its response time exceeds its deadline (or
    /// `stop_bound`, when that is later): past the deadline the task misses it whatever
    /// the exact value, and iterating on can take long when the level's utilisation is
    /// close to 1. Its `wcrt` is then reported as unknown, "unbounded past D", with
    /// `wcrt_above_ns` set to the bound passed. `latscope analyze` stops by default
    /// (`--exact-unbounded` asks for the value); the library default is exact.
    pub stop_at_deadline: bool,
    /// With `stop_at_deadline`: iterate on up to this response time when it is past the
    /// deadline (a user's bound of interest); `None`: the deadline.
    pub stop_bound: Option<latscope_core::Picos>,
    /// Upper bound on fixed-point iterations per task (a budget, not a tuning knob).
    pub max_iterations: u64,
    /// Jump ahead in the fixed-point iteration with a linear lower bound (see
    /// `docs/analysis.md`). The results are identical either way (a property test
    /// checks it); turning it off only makes heavily loaded sets slower.
    pub accelerate: bool,
    /// How context switches are charged (tick-driven and interrupt-path kernels).
    pub switch_charge: SwitchCharge,
    /// How many higher-priority tasks each breakdown names (memory: the full list is
    /// quadratic in the number of tasks).
    pub interference: InterferenceDetail,
}

/// How the analysis charges context switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SwitchCharge {
    /// What a PendSV-style kernel does (FreeRTOS on Cortex-M, the simulator): one switch
    /// per completion (out of the finished task into the next) and one per preemption (a
    /// tick or interrupt that releases a higher-priority task switches out and in at
    /// once, however many tasks it releases).
    #[default]
    PerEvent,
    /// The conservative charge: two switches (in and out) per job of every
    /// higher-priority task, for kernels whose switch-out and switch-in are separate.
    PerJob,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            tick_mode: None,
            overheads: true,
            tick_release_delay: true,
            stop_at_deadline: false,
            stop_bound: None,
            max_iterations: 2_000_000,
            accelerate: true,
            switch_charge: SwitchCharge::PerEvent,
            interference: InterferenceDetail::default(),
        }
    }
}
