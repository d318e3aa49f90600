//! Fixed-priority preemptive response-time analysis with kernel overheads.
//!
//! The recurrence is Joseph & Pandya (1986) with the extensions of Audsley, Burns,
//! Richardson, Tindell & Wellings, "Applying new scheduling theory to static priority
//! pre-emptive scheduling", Software Engineering Journal 8(5), 1993: release jitter,
//! blocking and arbitrary deadlines (the level-i busy window over q = 0, 1, .. jobs,
//! Tindell et al. 1994). For task i and job q of the busy window:
//!
//! ```text
//! w(q) = B_i + (q+1)(C_i + S_i) + sum_e ceil((w(q) + J_e) / T_e) * C_e
//! R_i  = max_q ( w(q) - q T_i ) + J_i
//! ```
//!
//! where the interfering entities `e` are the higher- or equal-priority tasks (cost
//! `C_j` plus two context switches), the kernel tick (one pseudo-task, or the FreeRTOS overheads paper's
//! partitioned pseudo-tasks), interrupts (`C + L`) and the time-slicing switches. `J_i`
//! is the task's whole release jitter: the file's jitter, the tick-driven release delay,
//! tickless wake-up lateness and the interrupt-to-task path. The busy window continues
//! while `w(q) + J_i > (q+1) T_i`. The deadline test is `R_i <= D_i` on the full
//! response time including `J_i`. See `docs/analysis.md` for every choice made here.

mod analyze;
mod breakdown;
pub mod cores;
mod demand;
mod fixed_point;
pub mod global;
mod interference;
pub(crate) mod json;
mod listscan;
mod mode;
mod nesting;
pub mod offsets;
mod options;
mod prep;
mod result;
mod tick_relay;
mod ticks;

pub(crate) use analyze::analyze_tasks;
pub use analyze::{analyze, analyze_mode, hyperperiod};
pub use interference::{
    Interference, InterferenceDetail, InterferenceDetailError, InterferenceIter, NamedNs, Share,
};
pub use options::{AnalysisOptions, SwitchCharge};
pub use result::{
    AnalysisResult, Breakdown, JitterParts, Reduction, TaskResult, TickModes, Totals,
};
pub use ticks::on_tick_grid;

pub(crate) use prep::switch_at;
// What the offset-based bound (`offsets`) reuses of the fixed point.
use demand::Demand;
use fixed_point::analyse_task;
use mode::{ModeCtx, TICK_ENTITY};
use prep::{prepare, priority_order, Prep};
