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

use crate::overheads::tick::levels_scanned;
use crate::range::{self, AnalysisError};
use crate::system::{KernelCosts, System, TaskSelection, TickMode};
use latscope_core::Picos;
use serde::Serialize;
use std::sync::Arc;

pub(crate) mod json;
pub mod offsets;

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
    /// Stop analysing a task as soon as its response time exceeds its deadline (its
    /// `wcrt` is then reported as unknown).
    pub stop_at_deadline: bool,
    /// Upper bound on fixed-point iterations per task (a budget, not a tuning knob).
    pub max_iterations: u64,
    /// Jump ahead in the fixed-point iteration with a linear lower bound (see
    /// `docs/analysis.md`). The results are identical either way (a property test
    /// checks it); turning it off only makes heavily loaded sets slower.
    pub accelerate: bool,
    /// How context switches are charged (tick-driven and interrupt-path kernels).
    pub switch_charge: SwitchCharge,
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
            max_iterations: 2_000_000,
            accelerate: true,
            switch_charge: SwitchCharge::PerEvent,
        }
    }
}

/// The whole analysis, serialisable as `latscope analyze --json`.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct AnalysisResult {
    #[serde(deserialize_with = "json::kind_word")]
    #[schemars(extend("const" = "analyze"))]
    pub kind: latscope_core::words::Word,
    pub schema_version: u32,
    pub source: String,
    #[serde(deserialize_with = "json::model_word")]
    pub model: latscope_core::words::Word,
    /// The tick mode of `tasks`.
    #[serde(deserialize_with = "json::tick_mode_word")]
    pub tick_mode: latscope_core::words::Word,
    pub overheads: bool,
    pub tick_release_delay: bool,
    /// Every task schedulable in the reported tick mode.
    pub schedulable: bool,
    /// Results in the reported tick mode, in descending priority order (ties: file order).
    pub tasks: Vec<TaskResult>,
    pub tick_modes: TickModes,
    pub pessimism_reduction: Vec<Reduction>,
    pub totals: Totals,
    /// Assumptions that shaped the numbers (human-readable).
    pub notes: Vec<std::borrow::Cow<'static, str>>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TickModes {
    pub pessimistic: Vec<TaskResult>,
    pub partitioned: Vec<TaskResult>,
}

/// One task's result.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct TaskResult {
    pub name: String,
    pub priority: u32,
    /// Worst-case response time from the nominal release; `None` (null) when unbounded
    /// or not found within the iteration budget.
    pub wcrt_ns: Option<f64>,
    pub deadline_ns: f64,
    pub period_ns: f64,
    /// `deadline - wcrt` (null with the WCRT).
    pub slack_ns: Option<f64>,
    pub schedulable: bool,
    /// Why the WCRT is unknown, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unbounded_reason: Option<String>,
    /// Jobs of this task in the longest level-i busy window examined.
    pub jobs_examined: u64,
    /// The job (0-based, in the busy window) with the largest response time.
    pub critical_job: u64,
    pub iterations: u64,
    /// Integer WCRT in picoseconds (exact; `wcrt_ns` is this divided by 1000).
    pub wcrt_ps: Option<i64>,
    pub jitter: JitterParts,
    pub breakdown: Breakdown,
    /// Blocking charged: the file's `blocking` (or the longest interrupts-disabled
    /// section, whichever is longer) plus the blocking computed from the resources.
    pub blocking_ns: f64,
    /// The critical sections that make up the computed blocking.
    pub blocking_from: Vec<crate::resource::blocking::BlockingPart>,
    /// `analyze --observed`: the worst response seen in the recording (ns), the release
    /// of that job (ns from the recording's start), its index among the task's complete
    /// jobs, and `observed_max_ns / wcrt_ns` (above 1: the WCET or the model is wrong for
    /// this system). Absent without `--observed` or when the recording has no complete
    /// job of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_max_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_at_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_job: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_ratio: Option<f64>,
}

/// The parts of a task's release jitter.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct JitterParts {
    pub file_ns: f64,
    pub tick_delay_ns: f64,
    pub tickless_ns: f64,
    pub irq_path_ns: f64,
    /// A kernel critical section masking the tick or the releasing interrupt
    /// (docs/resources.md).
    pub critical_ns: f64,
    pub total_ns: f64,
}

/// Where the WCRT goes; the items add up to `wcrt_ns` (when it is known).
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Breakdown {
    pub wcet_ns: f64,
    /// Earlier jobs of the same task in the busy window, `q * C_i`.
    pub own_previous_jobs_ns: f64,
    /// `-q * T_i`: the critical job is released q periods after the window starts.
    pub window_offset_ns: f64,
    /// Higher- or equal-priority tasks' execution (without their switches).
    pub interference: Interference,
    pub tick_ns: f64,
    pub context_switch_ns: f64,
    pub interrupts_ns: f64,
    pub blocking_ns: f64,
    pub jitter_ns: f64,
}

/// Higher- or equal-priority tasks' execution in a WCRT, one [`Share`] per task, in
/// descending priority order (ties in file order, like `tasks`). Serialised as
/// `[{"name": .., "ns": ..}, ..]`; the names are shared by every result of an analysis
/// (a task set of n tasks has O(n^2) shares).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interference {
    /// The task names (`None` only in an empty default).
    names: Option<Arc<[Arc<str>]>>,
    items: Vec<Share>,
}

/// One task's part of a WCRT.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    /// Index of the task in the system description's task list.
    pub task: u32,
    pub ns: f64,
}

/// A [`Share`] with its task's name.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NamedNs<'a> {
    pub name: &'a str,
    pub ns: f64,
}

impl Interference {
    fn new(names: Arc<[Arc<str>]>, capacity: usize) -> Self {
        Interference {
            names: Some(names),
            items: Vec::with_capacity(capacity),
        }
    }
    fn push(&mut self, task: usize, ns: f64) {
        self.items.push(Share {
            task: task as u32,
            ns,
        });
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Removes and returns the shares of the tasks `keep` selects (by file index).
    fn take_where(&mut self, keep: impl Fn(usize) -> bool) -> Vec<Share> {
        let (taken, rest) = self.items.drain(..).partition(|s| keep(s.task as usize));
        self.items = rest;
        taken
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The shares with their tasks' names.
    pub fn iter(&self) -> InterferenceIter<'_> {
        self.into_iter()
    }
}

impl<'a> IntoIterator for &'a Interference {
    type Item = NamedNs<'a>;
    type IntoIter = InterferenceIter<'a>;
    fn into_iter(self) -> InterferenceIter<'a> {
        InterferenceIter {
            names: self.names.as_deref().unwrap_or(&[]),
            items: self.items.iter(),
        }
    }
}

/// The shares of an [`Interference`] with their names.
pub struct InterferenceIter<'a> {
    names: &'a [Arc<str>],
    items: std::slice::Iter<'a, Share>,
}

impl<'a> Iterator for InterferenceIter<'a> {
    type Item = NamedNs<'a>;
    fn next(&mut self) -> Option<NamedNs<'a>> {
        let s = self.items.next()?;
        Some(NamedNs {
            name: self.names.get(s.task as usize).map_or("?", |n| n),
            ns: s.ns,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl ExactSizeIterator for InterferenceIter<'_> {}

impl std::ops::Index<usize> for Interference {
    type Output = Share;
    fn index(&self, k: usize) -> &Share {
        &self.items[k]
    }
}

impl Serialize for Interference {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Per task: pessimistic WCRT minus partitioned WCRT.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Reduction {
    pub name: Arc<str>,
    pub pessimistic_ns: Option<f64>,
    pub partitioned_ns: Option<f64>,
    pub reduction_ns: Option<f64>,
    pub reduction_pct: Option<f64>,
}

/// Whole-system figures.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Totals {
    pub tasks: usize,
    pub interrupts: usize,
    pub utilisation_tasks: f64,
    pub utilisation_interrupts: f64,
    pub utilisation_tick_pessimistic: f64,
    pub utilisation_tick_partitioned: f64,
    pub utilisation_context_switch: f64,
    pub utilisation_time_slicing: f64,
    /// Tasks + interrupts + overheads in the reported tick mode.
    pub utilisation_total: f64,
    /// `n (2^(1/n) - 1)` (Liu & Layland 1973), for the tasks alone.
    pub liu_layland_bound: f64,
    /// `U_tasks <= bound` (sufficient only; implicit deadlines, no overheads).
    pub liu_layland_ok: bool,
    /// `prod (U_i + 1)` (Bini, Buttazzo & Buttazzo 2003).
    pub hyperbolic_product: f64,
    /// `prod (U_i + 1) <= 2` (sufficient only).
    pub hyperbolic_ok: bool,
    /// Least common multiple of the task periods (null on overflow).
    pub hyperperiod_ns: Option<f64>,
    pub tick_period_ns: f64,
    pub irq_entry_ns: f64,
}

// ---------------------------------------------------------------------------------------

/// What a charge is attributed to in the breakdown.
#[derive(Clone, Copy, PartialEq)]
enum Attr {
    Task(usize),
    Tick,
    Interrupt,
}

/// An interfering sporadic demand: `ceil((w + jitter) / period)` releases, each charging
/// `work + switch` (the entity's work and its context switches) and a tick pseudo-task
/// part `tick` that one tick pays at most once (`min(releases, ceil(w / T_tick))` times).
#[derive(Clone, Copy)]
struct Entity {
    period: i64,
    jitter: i64,
    work: i64,
    switch: i64,
    tick: i64,
    /// A task the tick releases, in partitioned mode: its releases count towards the
    /// ticks that release at least one task, which pay the tick's first-release excess.
    first_rel: bool,
    attr: Attr,
}

/// Whether the once-per-tick cap on a tick part can bind. Without jitter and with a
/// period of at least one tick, `ceil(w / T) <= ceil(w / T_tick)` for every `w`, so the
/// tick part is simply charged per release (the common case, and a cheaper one).
fn cap_binds(tick: i64, jitter: i64, period: i64, tick_p: i64) -> bool {
    tick != 0 && (jitter != 0 || period < tick_p)
}

/// What [`Demand::begin`] derives for the start of a task's iteration.
struct Started {
    /// Long-run utilisation of the interference (tick parts capped at one per tick).
    u_int: f64,
    /// `sum (work + switch)_e J_e / T_e`: the jitter term of the linear lower bound.
    jitter_work: f64,
    /// One release of every entity, `sum (work + switch + tick)_e`.
    first: i128,
}

/// The interfering entities of the tasks of one tick mode and their incremental demand,
/// carried from task to task.
///
/// Within one task's analysis a window only grows (across the fixed-point iterations and
/// across the jobs q of the busy window), so each entity's release count only grows: it
/// is recomputed only when w passes the entity's next release boundary (count n holds
/// while w <= n T - J), and most entities cost one comparison per iteration.
///
/// Across tasks (in priority order) only the charges change (which tasks are of higher
/// priority, their switch costs), not the periods and jitters. The counts found at the
/// previous task's first fixed point are kept (`snapshot`), and the next task's window
/// usually starts at or above it (see `Hint`), so its first evaluation reuses them. A
/// window below the counts' window resets them. Exact: the same integers as recomputing
/// every term at every step (a unit test checks it).
#[derive(Default)]
struct Demand {
    // Per entity, fixed for the mode.
    period: Vec<i64>,
    /// `1 / period`, for a division-free first guess in [`ceil_div_fast`].
    inv: Vec<f64>,
    jitter: Vec<i64>,
    tick: Vec<i64>,
    capped: Vec<bool>,
    /// Indices of the capped entities.
    capped_idx: Vec<usize>,
    attr: Vec<Attr>,
    // Per entity, per analysed task.
    work: Vec<i64>,
    switch: Vec<i64>,
    /// Charge per release folded into `sum`: `work + switch + tick`, or `work + switch`
    /// for a capped entity (whose tick part is summed in `sum_tick`).
    cost: Vec<i64>,
    /// Linear lower bound terms of the `cost` part: the rate `cost / T` and the jitter
    /// term `cost J / T`.
    rate: Vec<f64>,
    jterm: Vec<f64>,
    /// Entities `0..active` interfere with the analysed task.
    active: usize,
    // Release counts.
    /// Release count of each entity at `w_eval`.
    n: Vec<i64>,
    /// Largest window for which `n` still holds (`n T - J`).
    next: Vec<i64>,
    /// The window of the counts (`i64::MIN`: none yet).
    w_eval: i64,
    /// `ceil(w_eval / T_tick)`.
    ticks: i64,
    /// `sum n_e cost_e`
    sum: i128,
    /// `sum_capped min(n_e, ticks) tick_e`
    sum_tick: i128,
    /// Counts kept at the last task's first fixed point, if its window went further.
    snap_n: Vec<i64>,
    snap_next: Vec<i64>,
    snap_w: i64,
    snap_ticks: i64,
    snap_sum: i128,
    snap_valid: bool,
    /// `sum (work + switch)_e` over all entities.
    first: i128,
    /// Position of the last analysed task.
    prev_me: usize,
    /// Per entity: whether it is a tick-released task (see [`Entity::first_rel`]).
    first_rel: Vec<bool>,
    /// The tick's first-release excess `X` (piecewise tick cost, partitioned mode),
    /// charged once per tick that releases at least one task:
    /// `X min(ticks(w), sum_{first_rel} n_e(w))`.
    first_excess: i64,
    /// That charge at `w_eval`.
    sum_first: i128,
    /// Per entity: a higher-priority task the tick releases, when one switch is charged
    /// per preemption (`SwitchCharge::PerEvent`): a tick that releases at least one of
    /// them causes one preemption switch, `pre_cost` (see `docs/analysis.md`).
    pre_flag: Vec<bool>,
    pre_cost: i64,
    /// `pre_cost min(ticks(w), sum_{pre_flag} n_e(w))` at `w_eval`.
    sum_pre: i128,
    /// `sum_{first_rel} n_e` and `sum_{pre_flag} n_e` over all entities, kept up to date
    /// with the counts (so an evaluation does not sum them again).
    first_n: i64,
    pre_n: i64,
    /// Some entity has a negative jitter (a phase after the window start, from the
    /// offset-based bound, [`offsets`]): it may have no release in a short window, so
    /// one release of everything is no lower bound.
    negative_jitter: bool,
}

impl Demand {
    /// Removes every entity (keeping the allocations).
    fn clear(&mut self) {
        for v in [
            &mut self.period,
            &mut self.jitter,
            &mut self.tick,
            &mut self.work,
            &mut self.switch,
            &mut self.cost,
            &mut self.n,
            &mut self.next,
        ] {
            v.clear();
        }
        for v in [&mut self.inv, &mut self.rate, &mut self.jterm] {
            v.clear();
        }
        self.capped.clear();
        self.first_rel.clear();
        self.first_excess = 0;
        self.sum_first = 0;
        self.pre_flag.clear();
        self.pre_cost = 0;
        self.sum_pre = 0;
        self.first_n = 0;
        self.pre_n = 0;
        self.capped_idx.clear();
        self.attr.clear();
        self.active = 0;
        self.w_eval = i64::MIN;
        self.ticks = 0;
        self.sum = 0;
        self.sum_tick = 0;
        self.snap_valid = false;
        self.first = 0;
        self.prev_me = 0;
        self.negative_jitter = false;
    }

    fn with_capacity(n: usize) -> Demand {
        Demand {
            period: Vec::with_capacity(n),
            inv: Vec::with_capacity(n),
            jitter: Vec::with_capacity(n),
            tick: Vec::with_capacity(n),
            capped: Vec::with_capacity(n),
            attr: Vec::with_capacity(n),
            work: Vec::with_capacity(n),
            switch: Vec::with_capacity(n),
            cost: Vec::with_capacity(n),
            rate: Vec::with_capacity(n),
            jterm: Vec::with_capacity(n),
            n: Vec::with_capacity(n),
            next: Vec::with_capacity(n),
            ..Default::default()
        }
    }

    /// Adds an entity (inactive until `begin` includes it).
    fn push(&mut self, e: Entity, tick_p: i64) {
        let k = self.period.len();
        let capped = cap_binds(e.tick, e.jitter, e.period, tick_p);
        if capped {
            self.capped_idx.push(k);
        }
        let inv = 1.0 / e.period as f64;
        let cost = if capped { 0 } else { e.tick };
        self.negative_jitter |= e.jitter < 0;
        self.period.push(e.period);
        self.inv.push(inv);
        self.jitter.push(e.jitter);
        self.tick.push(e.tick);
        self.capped.push(capped);
        self.first_rel.push(e.first_rel);
        self.pre_flag.push(false);
        self.attr.push(e.attr);
        self.work.push(0);
        self.switch.push(0);
        self.cost.push(cost);
        self.rate.push(cost as f64 * inv);
        self.jterm.push(cost as f64 * inv * e.jitter as f64);
        self.n.push(0);
        self.next.push(i64::MIN);
        self.set(k, e.work, e.switch);
        self.w_eval = i64::MIN;
        self.snap_valid = false;
    }

    /// Sets an entity's work and switch charges per release (keeping `sum` and `first`
    /// up to date for the current counts).
    #[inline]
    fn set(&mut self, k: usize, work: i64, switch: i64) {
        if work == self.work[k] && switch == self.switch[k] {
            return;
        }
        let ws = work.saturating_add(switch);
        let cost = if self.capped[k] {
            ws
        } else {
            ws.saturating_add(self.tick[k])
        };
        self.first += ws as i128 - (self.work[k] as i128 + self.switch[k] as i128);
        self.sum += self.n[k] as i128 * (cost as i128 - self.cost[k] as i128);
        self.work[k] = work;
        self.switch[k] = switch;
        self.cost[k] = cost;
        let c = cost as f64 * self.inv[k];
        self.rate[k] = c;
        self.jterm[k] = c * self.jitter[k] as f64;
    }

    fn reset_counts(&mut self) {
        self.sum = 0;
        self.n.fill(0);
        self.next.fill(i64::MIN);
        self.w_eval = i64::MIN;
        self.ticks = 0;
        self.sum_tick = 0;
        self.sum_first = 0;
        self.sum_pre = 0;
        self.first_n = 0;
        self.pre_n = 0;
    }

    /// Sets whether entity `k` counts towards the preemption switches (keeping `pre_n`).
    #[inline]
    fn set_pre(&mut self, k: usize, flag: bool) {
        if self.pre_flag[k] != flag {
            self.pre_flag[k] = flag;
            self.pre_n += if flag { self.n[k] } else { -self.n[k] };
        }
    }

    /// Recomputes `first_n` and `pre_n` from the counts.
    fn recount_groups(&mut self) {
        let (mut f, mut p) = (0i64, 0i64);
        for k in 0..self.n.len() {
            if self.first_rel[k] {
                f += self.n[k];
            }
            if self.pre_flag[k] {
                p += self.n[k];
            }
        }
        self.first_n = f;
        self.pre_n = p;
    }

    /// Restores the counts kept by `snapshot` (before a task's `set` calls).
    fn restore(&mut self) {
        if self.snap_valid {
            self.n.copy_from_slice(&self.snap_n);
            self.next.copy_from_slice(&self.snap_next);
            self.w_eval = self.snap_w;
            self.ticks = self.snap_ticks;
            self.sum = self.snap_sum;
            self.snap_valid = false;
            self.recount_groups();
        }
    }

    /// Starts a task's analysis with entities `0..active` (after its `set` calls).
    fn begin(&mut self, active: usize, tick_p: i64) -> Started {
        // Entities past `active` have no charges (see `analyse_task`), so `first` and
        // `sum` over all entities are those of the active ones.
        self.active = active;
        let mut u_int: f64 = self.rate[..active].iter().sum();
        let jitter_work: f64 = self.jterm[..active].iter().sum();
        for &k in self.capped_idx.iter().filter(|&&k| k < active) {
            u_int += self.tick[k] as f64 / self.period[k].max(tick_p) as f64;
        }
        // min(ticks, sum n_e) >= w min(1 / T_tick, sum 1 / T_e): a linear bound.
        let tick_rate = 1.0 / tick_p as f64;
        if self.first_excess > 0 {
            let rate: f64 = (0..active)
                .filter(|&k| self.first_rel[k])
                .map(|k| self.inv[k])
                .sum();
            u_int += self.first_excess as f64 * rate.min(tick_rate);
        }
        if self.pre_cost > 0 {
            let rate: f64 = (0..active)
                .filter(|&k| self.pre_flag[k])
                .map(|k| self.inv[k])
                .sum();
            u_int += self.pre_cost as f64 * rate.min(tick_rate);
        }
        Started {
            u_int,
            jitter_work,
            first: if self.negative_jitter {
                0
            } else {
                self.first + self.tick_first(active)
            },
        }
    }

    /// `sum tick_e` over the first `active` entities.
    fn tick_first(&self, active: usize) -> i128 {
        self.tick[..active].iter().map(|&t| t as i128).sum()
    }

    /// Keeps the counts at the current window for the next task.
    fn snapshot(&mut self) {
        self.snap_n.clone_from(&self.n);
        self.snap_next.clone_from(&self.next);
        self.snap_w = self.w_eval;
        self.snap_ticks = self.ticks;
        self.snap_sum = self.sum;
        self.snap_valid = true;
    }

    /// `sum_e n_e(w) (work + switch)_e + min(n_e(w), ticks(w)) tick_e` over the active
    /// entities.
    fn at(&mut self, w: i64, tick_p: i64, tick_inv: f64) -> i128 {
        if w < self.w_eval {
            self.reset_counts();
        } else if w == self.w_eval {
            // The same window again (the first evaluation of the next job q + 1).
            return self.advance(w, tick_p, tick_inv);
        }
        let a = self.active;
        let (period, jitter, inv) = (&self.period[..a], &self.jitter[..a], &self.inv[..a]);
        let (cost, n, next) = (&self.cost[..a], &mut self.n[..a], &mut self.next[..a]);
        let (fr, pf) = (&self.first_rel[..a], &self.pre_flag[..a]);
        let (mut first_n, mut pre_n) = (self.first_n, self.pre_n);
        let mut sum = self.sum;
        for k in 0..a {
            if w > next[k] {
                let d;
                if n[k] > 0 && w.saturating_sub(next[k]) <= period[k] {
                    // Within one period past the boundary: exactly one more release.
                    sum += cost[k] as i128;
                    n[k] += 1;
                    d = 1;
                    next[k] = next[k].saturating_add(period[k]);
                } else {
                    // Recount (exact integers).
                    let c = ceil_div_fast(w.saturating_add(jitter[k]), period[k], inv[k]);
                    sum += (c - n[k]) as i128 * cost[k] as i128;
                    d = c - n[k];
                    n[k] = c;
                    // `c T - J`, saturated (i64 arithmetic unless it overflows).
                    next[k] = match c
                        .checked_mul(period[k])
                        .and_then(|x| x.checked_sub(jitter[k]))
                    {
                        Some(x) => x,
                        None => (c as i128 * period[k] as i128 - jitter[k] as i128)
                            .clamp(i64::MIN as i128, i64::MAX as i128)
                            as i64,
                    };
                }
                // Branch-free: the flags are 0 or 1.
                first_n += d * fr[k] as i64;
                pre_n += d * pf[k] as i64;
            }
        }
        self.first_n = first_n;
        self.pre_n = pre_n;
        self.sum = sum;
        self.advance(w, tick_p, tick_inv)
    }

    /// Moves the counts' window to `w` (at or above `w_eval`, with no entity releasing
    /// in between) and returns the demand there: the tick-count terms.
    #[inline]
    fn advance(&mut self, w: i64, tick_p: i64, tick_inv: f64) -> i128 {
        self.w_eval = w;
        self.ticks = ceil_div_fast(w, tick_p, tick_inv);
        let ticks = self.ticks;
        self.sum_tick = self
            .capped_idx
            .iter()
            .filter(|&&k| k < self.active)
            .map(|&k| self.n[k].min(ticks) as i128 * self.tick[k] as i128)
            .sum();
        // Entities past `active` carry no flags in use (the preemption group is the
        // higher-priority tasks; the first-release group is used in partitioned mode,
        // where every entity is active).
        self.sum_first = self.first_n.min(ticks) as i128 * self.first_excess as i128;
        self.sum_pre = self.pre_n.min(ticks) as i128 * self.pre_cost as i128;
        self.sum + self.sum_tick + self.sum_first + self.sum_pre
    }

    /// The preemption switches charged in a window `w` (see `pre_flag`), from fresh
    /// counts.
    fn pre_charge(&self, w: i64, ticks: i64) -> i128 {
        if self.pre_cost <= 0 {
            return 0;
        }
        let rel: i64 = (0..self.active)
            .filter(|&k| self.pre_flag[k])
            .map(|k| self.counts(k, w, ticks).0)
            .sum();
        rel.min(ticks) as i128 * self.pre_cost as i128
    }

    /// The first-release excess charged in a window `w` (see `first_excess`), from
    /// fresh counts.
    fn first_charge(&self, w: i64, ticks: i64) -> i128 {
        if self.first_excess <= 0 {
            return 0;
        }
        let rel: i64 = (0..self.active)
            .filter(|&k| self.first_rel[k])
            .map(|k| self.counts(k, w, ticks).0)
            .sum();
        rel.min(ticks) as i128 * self.first_excess as i128
    }

    /// Releases of entity `k` in a window `w`, and its tick-charged releases (a tick
    /// releases a task at most once, so its tick pseudo-task is charged at most once per
    /// tick, `ticks` = ceil(w / T_tick); this keeps every partitioned charge at or below
    /// the pessimistic one).
    fn counts(&self, k: usize, w: i64, ticks: i64) -> (i64, i64) {
        let n = ceil_div_fast(
            w.saturating_add(self.jitter[k]),
            self.period[k],
            self.inv[k],
        );
        (n, n.min(ticks))
    }

    /// A lower bound on the least fixed point of `w = base + demand(w)` that is at least
    /// `next` (the plain iteration's next value), or `None`. Every entity's contribution
    /// at the fixed point is at least its contribution at the last window (counts only
    /// grow) and at least its linear bound `rate * w + J-term` (since `ceil(x) >= x` and
    /// a capped tick count is at least `w / max(T, T_tick)`). Taking, per entity, either
    /// of the two and solving the resulting linear inequality gives a bound the fixed
    /// point cannot be below; jumping there skips the slow geometric approach of the
    /// plain iteration when the utilisation is close to 1.
    ///
    /// The linear bound is the larger at `next` exactly when `next` is past the entity's
    /// release boundary (`cost (x + J) / T >= n cost` iff `x >= n T - J`), so only the
    /// entities about to release again are visited: the others keep their count's
    /// contribution, which is already in the running total.
    fn linear_lower_bound(&self, base: i128, next: i64, tick_p: i64) -> Option<i64> {
        let x0 = next as f64;
        let a = self.active;
        let (ns, cost, rate, jterm, bound) = (
            &self.n[..a],
            &self.cost[..a],
            &self.rate[..a],
            &self.jterm[..a],
            &self.next[..a],
        );
        // The first-release and preemption-switch charges only grow with the window:
        // at least their values at the last evaluation.
        let mut num = base as f64 + self.sum as f64 + (self.sum_first + self.sum_pre) as f64;
        let mut den = 1.0f64;
        for k in 0..a {
            if bound[k] <= next {
                den -= rate[k];
                num += jterm[k] - ns[k] as f64 * cost[k] as f64;
            }
        }
        // The tick parts of capped entities, bounded on their own (splitting an entity's
        // demand into two parts bounded separately is still a lower bound).
        for &k in self.capped_idx.iter().filter(|&&k| k < self.active) {
            let c = self.n[k].min(self.ticks) as f64 * self.tick[k] as f64;
            let rate = self.tick[k] as f64 / self.period[k].max(tick_p) as f64;
            if rate * x0 >= c {
                den -= rate;
            } else {
                num += c;
            }
        }
        // A small denominator magnifies rounding: only trust a well-conditioned bound, and
        // keep a margin far above the floating-point error of the sums.
        if den < 1e-4 {
            return None;
        }
        let lb = num / den * (1.0 - 1e-9) - 1.0;
        (lb.is_finite() && lb > x0 && lb < (i64::MAX / 4) as f64).then_some(lb as i64)
    }
}

/// Per-system quantities computed once.
struct Prep {
    /// Tasks in descending priority order, ties in file order.
    order: Vec<usize>,
    /// Each task's position in `order`.
    pos: Vec<usize>,
    /// Per position: the first position of a lower priority.
    group_end: Vec<usize>,
    names: Arc<[Arc<str>]>,
    l: Picos,
    tick: Picos,
    /// Effective release jitter of each task.
    jitter: Vec<JitterParts>,
    jitter_ps: Vec<i64>,
    /// Whether the tick releases the task (periodic, not released by an interrupt).
    tick_released: Vec<bool>,
    tick_base: Picos,
    tick_per_release: Picos,
    /// The piecewise tick's excess over `tick_base + r tick_per_release` on a tick that
    /// releases at least one task (`TickCosts::first_release_excess`).
    tick_first_excess: Picos,
    tick_pessimistic: Picos,
    blocking_cs: Picos,
    /// Blocking computed from the resources, per task, and its parts.
    res_blocking: Vec<i64>,
    res_from: Vec<Vec<crate::resource::blocking::BlockingPart>>,
    /// Per task (file order): exposed to a chain of nested inheritance mutexes, so
    /// given no bound ([`crate::resource::blocking::nested_inheritance_exposed`]).
    nested_inheritance: Vec<Option<&'static str>>,
    /// The longest kernel critical section (a masked tick runs that much late).
    masking: Picos,
    /// The highest priority shared by two or more tasks: round-robin switches at that
    /// level interfere with every task at or below it.
    max_shared_level: Option<u32>,
    /// Release jitter of interrupt handlers: an interrupt arriving while the CPU sleeps
    /// runs its handler only after the whole exit latency (docs/simulator.md, tickless),
    /// so its handler can run closer to the next one than `min_interarrival`.
    irq_jitter: Picos,
    /// Per interrupt (file order), subtracted from `irq_jitter`: the offset-based bound's
    /// phase reduction (`rta::offsets`); empty elsewhere.
    irq_shift: Vec<i64>,
    /// What every interrupt handler runs besides its WCET and `L` (irqpath: prologue,
    /// send and dispatch, and the stage's entry above `L`).
    irq_path: Picos,
}

/// `ceil(a / b)` for `b > 0` (0 for `a <= 0`), exact: a floating-point guess from the
/// reciprocal `inv = 1/b`, corrected with integer products. This is the analysis' inner
/// loop; an integer division there costs several times more.
#[inline]
fn ceil_div_fast(a: i64, b: i64, inv: f64) -> i64 {
    if a <= 0 {
        return 0;
    }
    // Truncation, not `ceil` (a libm call on baseline x86-64); the loops fix the rest.
    let mut n = (a as f64 * inv) as i64;
    // The guess is off by at most a * 2^-52 / b + 1 releases, so the true remainder
    // a - n b is below 2^11 + b in magnitude and fits an i64: wrapping arithmetic gives
    // it exactly.
    let mut r = a.wrapping_sub(n.wrapping_mul(b));
    while r > 0 {
        n += 1;
        r -= b;
    }
    while r <= -b {
        n -= 1;
        r += b;
    }
    n
}

const PS_PER_S: i128 = 1_000_000_000_000;

/// Whether `d` is a whole number of tick periods, exactly: `d * tick_hz` is a multiple
/// of 1 s (audit D20: at 300 Hz a 10 ms period is 3 ticks, although the tick period is
/// not a whole number of picoseconds).
pub fn on_tick_grid(d: Picos, tick_hz: u64) -> bool {
    (d.0 as i128 * tick_hz as i128) % PS_PER_S == 0
}

/// The fewest whole ticks covering `d`: `ceil(d * tick_hz / 1 s)`.
fn ticks_covering(d: Picos, tick_hz: u64) -> i64 {
    let x = d.0.max(0) as i128 * tick_hz as i128;
    ((x + PS_PER_S - 1) / PS_PER_S).min(i64::MAX as i128) as i64
}

/// `k` exact tick periods rounded up to whole picoseconds, `ceil(k * 1 s / tick_hz)`:
/// at least the distance of any two tick instants `k` ticks apart, whether the ticks
/// sit at `round(k 1e12 / hz)` or at multiples of the truncated period.
fn ticks_ps_ceil(k: i64, tick_hz: u64) -> i64 {
    let hz = tick_hz.max(1) as i128;
    ((k as i128 * PS_PER_S + hz - 1) / hz).min(i64::MAX as i128) as i64
}

fn ns(p: i64) -> f64 {
    p as f64 / 1000.0
}

/// The cost of one context switch scanning `levels` priority levels, including the
/// entry latency `L` where the switch is an interrupt (PendSV, ready-queue interrupt).
pub(crate) fn switch_at(sys: &System, opts: &AnalysisOptions, l: Picos, levels: u32) -> Picos {
    if !opts.overheads {
        return Picos::ZERO;
    }
    match &sys.kernel.costs {
        KernelCosts::Tick(c) => {
            l + match sys.kernel.task_selection {
                TaskSelection::Generic => c.switch_cost(levels),
                TaskSelection::Optimised => c.optimised_switch_cost(),
            }
        }
        KernelCosts::Listscan(c) => c.switch,
        KernelCosts::Irqpath(c) => l + c.switch,
    }
}

fn prepare(sys: &System, opts: &AnalysisOptions) -> Prep {
    let res = crate::resource::blocking::effect(sys);
    let ov = opts.overheads;
    let l = if ov {
        sys.platform.irq_entry()
    } else {
        Picos::ZERO
    };
    let tick = sys.kernel.tick_period();
    let n = sys.tasks.len() as u32;
    let tick_released: Vec<bool> = sys
        .tasks
        .iter()
        // A sporadic task no interrupt releases is released by the tick too: the
        // simulator runs it as periodic at its minimum inter-arrival time (audit D3).
        .map(|t| t.released_by.is_none())
        .collect();
    let n_rel = tick_released.iter().filter(|&&b| b).count() as u32;
    let (tick_base, tick_per_release, tick_first_excess, tick_pessimistic) = if !ov {
        (Picos::ZERO, Picos::ZERO, Picos::ZERO, Picos::ZERO)
    } else {
        match &sys.kernel.costs {
            KernelCosts::Tick(c) => (
                l + c.tick_base,
                c.tick_per_release,
                c.first_release_excess(),
                l + c.worst_tick_cost(n_rel),
            ),
            KernelCosts::Listscan(c) => (
                l + c.scheduler_run(n, &[]),
                c.insertion_cost(n_rel.saturating_sub(1)),
                Picos::ZERO,
                l + c.worst_scheduler_run(n, n_rel),
            ),
            KernelCosts::Irqpath(c) => (l + c.tick, Picos::ZERO, Picos::ZERO, l + c.tick),
        }
    };
    let max_wake = sys
        .kernel
        .sleep_states
        .iter()
        .map(|s| s.unpredictable_extra())
        .max()
        .unwrap_or(Picos::ZERO);
    let max_timed = sys
        .kernel
        .sleep_states
        .iter()
        .map(|s| s.timed_lateness(tick))
        .max()
        .unwrap_or(Picos::ZERO);
    let cold = sys.platform.cache.assume == crate::system::CacheState::Cold;
    let mut jitter = Vec::with_capacity(sys.tasks.len());
    let mut jitter_ps = Vec::with_capacity(sys.tasks.len());
    for (i, t) in sys.tasks.iter().enumerate() {
        let mut jp = JitterParts {
            file_ns: t.jitter.as_ns_f64(),
            ..Default::default()
        };
        let mut total = t.jitter;
        if tick_released[i] && opts.tick_release_delay {
            // The kernel notices a release only at a tick (docs/simulator.md section 2
            // rule 2, FreeRTOS xTaskIncrementTick). Released at most J after its arrival:
            // on the tick grid (exact rational test, audit D20) the noticing tick is at
            // most ceil(J / tick) ticks after the arrival (audit D3); off the grid it
            // is less than one tick after the latest release, J + tick.
            let hz = sys.kernel.tick_hz;
            let aligned = on_tick_grid(t.period(), hz) && on_tick_grid(t.offset, hz);
            let delay = if aligned {
                Picos(ticks_ps_ceil(ticks_covering(t.jitter, hz), hz))
            } else {
                t.jitter + Picos(ticks_ps_ceil(1, hz))
            };
            let extra = Picos((delay - t.jitter).0.max(0));
            total += extra;
            jp.tick_delay_ns = extra.as_ns_f64();
        }
        if ov && !sys.kernel.sleep_states.is_empty() {
            let extra = if t.released_by.is_some() {
                max_wake
            } else if tick_released[i] {
                max_timed
            } else {
                Picos::ZERO
            };
            total += extra;
            jp.tickless_ns = extra.as_ns_f64();
        }
        if let Some(x) = t.released_by {
            let irq = &sys.interrupts[x];
            let path = match (&sys.kernel.costs, ov) {
                (KernelCosts::Irqpath(c), true) => {
                    let entry = sys.platform.irq_entry();
                    c.stage(cold).activation_latency(entry) + irq.wcet
                }
                _ => l + irq.wcet,
            };
            total += path;
            jp.irq_path_ns = path.as_ns_f64();
        }
        // A kernel critical section masks the tick and the interrupts at or below the
        // kernel's level: the release is noticed that much later (docs/resources.md).
        let masked = match t.released_by {
            Some(x) => !sys.interrupts[x].above_kernel,
            None => tick_released[i],
        };
        if masked && res.masking > Picos::ZERO {
            total += res.masking;
            jp.critical_ns = res.masking.as_ns_f64();
        }
        jp.total_ns = total.as_ns_f64();
        jitter.push(jp);
        jitter_ps.push(total.0);
    }
    let cs = &sys.critical_sections;
    let blocking_cs = if ov {
        cs.kernel.max(cs.application)
    } else {
        cs.application
    };
    let order = priority_order(sys);
    let mut pos = vec![0; order.len()];
    for (x, &j) in order.iter().enumerate() {
        pos[j] = x;
    }
    let mut group_end = vec![order.len(); order.len()];
    for x in (0..order.len().saturating_sub(1)).rev() {
        let (a, b) = (order[x], order[x + 1]);
        group_end[x] = if sys.tasks[a].priority == sys.tasks[b].priority {
            group_end[x + 1]
        } else {
            x + 1
        };
    }
    Prep {
        order,
        pos,
        group_end,
        names: sys.tasks.iter().map(|t| t.name.as_str().into()).collect(),
        l,
        tick,
        jitter,
        jitter_ps,
        tick_released,
        tick_base,
        tick_per_release,
        tick_first_excess,
        tick_pessimistic,
        blocking_cs,
        res_blocking: res.tasks.iter().map(|b| b.total.0).collect(),
        res_from: res.tasks.into_iter().map(|b| b.from).collect(),
        nested_inheritance: unbounded_by_nesting(sys),
        masking: res.masking,
        irq_jitter: if ov { max_wake } else { Picos::ZERO } + res.masking,
        irq_shift: Vec::new(),
        irq_path: match (&sys.kernel.costs, ov) {
            (KernelCosts::Irqpath(c), true) => {
                let st = c.stage(cold);
                let entry_extra = st.entry.map_or(Picos::ZERO, |e| Picos((e - l).0.max(0)));
                entry_extra + st.prologue + st.send + st.dispatch
            }
            _ => Picos::ZERO,
        },
        max_shared_level: {
            let mut prios: Vec<u32> = sys.tasks.iter().map(|t| t.priority).collect();
            prios.sort_unstable();
            prios
                .windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| w[0])
                .max()
        },
    }
}

/// What the analysis of the next-higher-priority task tells the next one (see the start
/// value in `analyse_task`).
#[derive(Clone, Copy)]
struct Hint {
    prio: u32,
    /// `B + C + S` of that task (its q = 0 constant term).
    konst: i128,
    /// Its q = 0 fixed point.
    w0: i64,
    wcet: i64,
}

/// What the analyses of one tick mode share: computed once, not once per task.
struct ModeCtx<'a> {
    partitioned: bool,
    /// One switch into a task from the next level down.
    sw1: Picos,
    /// The in + out switches charged to each higher-priority job when they do not depend
    /// on the levels scanned (port-optimised selection, the irq-path kernel, no overheads).
    const_switch: Option<i64>,
    tick_p: i64,
    tick_inv: f64,
    /// Tasks in priority order (descending, ties in file order), and each task's position.
    order: &'a [usize],
    pos: &'a [usize],
    /// Per position: the first position of a lower priority.
    group_end: &'a [usize],
    /// Entities before the tasks': the tick (index 0), the tickless wake-up, interrupts.
    nf: usize,
    /// One switch per completion and per preemption ([`SwitchCharge::PerEvent`]).
    per_event: bool,
}

/// Index of the tick entity in [`Demand`].
const TICK_ENTITY: usize = 0;

impl<'a> ModeCtx<'a> {
    fn new(
        sys: &System,
        opts: &AnalysisOptions,
        p: &'a Prep,
        mode: TickMode,
        dem: &mut Demand,
    ) -> ModeCtx<'a> {
        let ov = opts.overheads;
        let partitioned = mode == TickMode::Partitioned;
        let tick_p = p.tick.0;
        let sw1 = switch_at(sys, opts, p.l, 1);
        let generic = matches!(
            (&sys.kernel.costs, sys.kernel.task_selection),
            (KernelCosts::Tick(_), TaskSelection::Generic)
        );
        let per_event = opts.switch_charge == SwitchCharge::PerEvent;
        // Per higher-priority job: its completion switch, and with the per-job charge also
        // the switch into it.
        let const_switch = (!ov || !generic).then(|| {
            let out = switch_at(sys, opts, p.l, 1);
            if per_event {
                out.0
            } else {
                (sw1 + out).0
            }
        });
        // The tick itself (and round-robin switches among equal priorities, set per task).
        let every_tick = if partitioned {
            p.tick_base
        } else {
            p.tick_pessimistic
        };
        dem.push(
            Entity {
                period: tick_p,
                jitter: 0,
                work: 0,
                switch: 0,
                tick: every_tick.0,
                first_rel: false,
                attr: Attr::Tick,
            },
            tick_p,
        );
        // Tickless: a wake-up with a task due processes the pending tick at once
        // (vTaskStepTick + xPendedTicks; simulator engine, FrameKind::Wake), one tick off
        // the grid at the start of the window, on top of the grid's ticks. The CPU does not
        // sleep while the window's work is pending, so it happens at most once per window:
        // a one-shot entity charging a whole pessimistic tick (in both modes, so the
        // partitioned bound stays at or below the pessimistic one).
        // The first switch after a wake-up also costs the sleep state's switch part (seed
        // 000: 6.6 us instead of 3.5 us; docs/simulator.md section 1), charged here whole
        // (not only its excess over a normal switch): also once per window.
        let wake_switch = sys
            .kernel
            .sleep_states
            .iter()
            .map(|st| {
                st.parts
                    .iter()
                    .filter(|(name, _)| name.contains("switch"))
                    .fold(Picos::ZERO, |a, (_, d)| a + *d)
            })
            .max()
            .unwrap_or(Picos::ZERO);
        if ov && !sys.kernel.sleep_states.is_empty() && (p.tick_pessimistic + wake_switch).0 > 0 {
            dem.push(
                Entity {
                    period: i64::MAX / 4,
                    jitter: 0,
                    work: 0,
                    switch: wake_switch.0,
                    tick: p.tick_pessimistic.0,
                    first_rel: false,
                    attr: Attr::Tick,
                },
                tick_p,
            );
        }
        // Interrupt-path kernel (K4perf): every handler also runs the prologue, the
        // message send and the ready-queue dispatch in interrupt context, so they interfere
        // like the handler's WCET (docs/simulator.md section 1; audit D13).
        for (qi, x) in sys.interrupts.iter().enumerate() {
            let shift = p.irq_shift.get(qi).copied().unwrap_or(0);
            dem.push(
                Entity {
                    period: x.min_interarrival.0,
                    jitter: p.irq_jitter.0 - shift,
                    work: (x.wcet + p.l + p.irq_path).0,
                    switch: 0,
                    tick: 0,
                    first_rel: false,
                    attr: Attr::Interrupt,
                },
                tick_p,
            );
        }
        // A kernel critical section can delay a tick by up to its length: one more tick
        // in a window at most (ceil((w + d) / T) <= ceil(w / T) + 1), charged once.
        if p.masking > Picos::ZERO && every_tick.0 > 0 {
            dem.push(
                Entity {
                    period: i64::MAX / 4,
                    jitter: 0,
                    work: 0,
                    switch: 0,
                    tick: every_tick.0,
                    first_rel: false,
                    attr: Attr::Tick,
                },
                tick_p,
            );
        }
        let nf = dem.period.len();
        if partitioned {
            dem.first_excess = p.tick_first_excess.0;
        }
        if per_event {
            dem.pre_cost = sw1.0;
        }
        // The tasks, in priority order; charges are set per analysed task. In partitioned
        // mode every tick-released task has a tick pseudo-task, whatever its priority
        // (the analysed task's own one is the tick that releases it).
        for &j in &p.order {
            dem.push(
                Entity {
                    period: sys.tasks[j].period().0,
                    jitter: p.jitter_ps[j],
                    work: 0,
                    switch: 0,
                    tick: if partitioned && p.tick_released[j] {
                        p.tick_per_release.0
                    } else {
                        0
                    },
                    first_rel: partitioned && p.tick_released[j],
                    attr: Attr::Task(j),
                },
                tick_p,
            );
        }
        ModeCtx {
            partitioned,
            sw1,
            const_switch,
            tick_p,
            tick_inv: 1.0 / tick_p as f64,
            order: &p.order,
            pos: &p.pos,
            group_end: &p.group_end,
            nf,
            per_event,
        }
    }
}

/// Analyses one task in one tick mode; `dem` carries the entities from task to task
/// (tasks are analysed in priority order).
#[allow(clippy::too_many_arguments)]
fn analyse_task(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    ctx: &ModeCtx,
    dem: &mut Demand,
    i: usize,
    hint: Option<Hint>,
    hint_out: &mut Option<Hint>,
) -> TaskResult {
    *hint_out = None;
    let t = &sys.tasks[i];
    let ov = opts.overheads;
    let prio = t.priority;
    let tick_p = ctx.tick_p;
    let me = ctx.pos[i];
    let hp_end = ctx.group_end[me];
    dem.restore();
    // Charges: tasks of higher or equal priority run their jobs with two switches each
    // (into j from a lower level: one list inspected; out of j down to a task at or above
    // i's level); the others (and i itself) are at most tick pseudo-tasks. Tasks are
    // analysed in priority order, so with switch costs that do not depend on the levels
    // only the positions from the previous task's on can change.
    let from = if ctx.const_switch.is_some() {
        dem.prev_me.min(me)
    } else {
        0
    };
    dem.prev_me = me;
    for (x, &j) in ctx.order.iter().enumerate().take(hp_end).skip(from) {
        let hp = x < hp_end && x != me;
        let (work, switch) = if hp {
            let o = &sys.tasks[j];
            let sw = ctx.const_switch.unwrap_or_else(|| {
                let out = switch_at(sys, opts, p.l, levels_scanned(o.priority, prio));
                if ctx.per_event {
                    out.0
                } else {
                    (ctx.sw1 + out).0
                }
            });
            // Per event: a task an interrupt releases preempts on its own (the handler
            // pends the switch), not at a tick: its preemption switch is per job.
            let pre = if ctx.per_event && !p.tick_released[j] {
                ctx.sw1.0
            } else {
                0
            };
            (o.wcet.0, sw + pre)
        } else {
            (0, 0)
        };
        dem.set(ctx.nf + x, work, switch);
        dem.set_pre(ctx.nf + x, hp && ctx.per_event && p.tick_released[j]);
    }
    // The task's own switch in stays charged per own job (in `c_own`): folding it into
    // the preemption group would count the task's releases as `ceil((w + J_i) / T_i)`,
    // which with jitter exceeds the q + 1 jobs of the window, and could then charge more
    // than two switches per job.
    dem.set_pre(ctx.nf + me, false);
    // Time slicing switches among equal priorities at or above this task's level run in
    // its window too (at most one per tick): audit reproduction r5/33.toml, where t0 and
    // t1 share priority 4 and the rotation between them delayed t2 and t3.
    let has_peer = p.max_shared_level.is_some_and(|l| l >= prio);
    let slice = if ov && sys.kernel.time_slicing && has_peer {
        ctx.sw1.0
    } else {
        0
    };
    dem.set(TICK_ENTITY, 0, slice);
    let active = ctx.nf
        + if ctx.partitioned {
            ctx.order.len()
        } else {
            hp_end
        };

    // Own switches: in (from a lower level or after a higher task, one list) and out
    // (down to the idle task at priority 0, the worst scan).
    let own_switch = if ov {
        (ctx.sw1 + switch_at(sys, opts, p.l, levels_scanned(prio, 0))).0
    } else {
        0
    };
    let c_own = t.wcet.0 + own_switch;
    let period = t.period().0;
    let blocking = t.blocking.max(p.blocking_cs).0 + p.res_blocking.get(i).copied().unwrap_or(0);
    let jit = p.jitter_ps[i];

    // Interference utilisation, the jitter term of the lower bound used as a start, and
    // one release of everything.
    let Started {
        u_int,
        jitter_work,
        first,
    } = dem.begin(active, tick_p);
    let util = u_int + c_own as f64 / period as f64;

    let mut result = TaskResult {
        name: t.name.clone(),
        priority: prio,
        wcrt_ns: None,
        deadline_ns: t.deadline.as_ns_f64(),
        period_ns: t.period().as_ns_f64(),
        slack_ns: None,
        schedulable: false,
        unbounded_reason: None,
        jobs_examined: 0,
        critical_job: 0,
        iterations: 0,
        wcrt_ps: None,
        jitter: p.jitter[i].clone(),
        breakdown: Breakdown::default(),
        blocking_ns: ns(blocking),
        blocking_from: p.res_from.get(i).cloned().unwrap_or_default(),
        observed_max_ns: None,
        observed_at_ns: None,
        observed_job: None,
        bound_ratio: None,
    };
    if util > 1.0 + 1e-12 {
        result.unbounded_reason = Some(format!(
            "the level-{prio} utilisation is {util:.4} > 1: the busy window never ends"
        ));
        return result;
    }

    let mut best: Option<(i64, u64, i64)> = None; // (R, q, w)
    let mut iters: u64 = 0;
    let mut w: i64 = 0;
    let mut q: u64 = 0;
    loop {
        let base = blocking as i128 + (q as i128 + 1) * c_own as i128;
        if w == 0 {
            w = (base + first).min(i64::MAX as i128) as i64;
            // With distinct priorities, task i's entities include every entity of the
            // next-higher task h (same periods, jitters and tick parts; switch costs at
            // least as large) plus h's own jobs, so demand_i(x) >= demand_h(x) + C_h for
            // x > 0. If also base_i + C_h >= base_h, the least fixed point of i is at least
            // h's (a larger monotone function has a larger least fixed point).
            if let Some(h) = hint {
                if opts.accelerate && h.prio > prio && base + h.wcet as i128 >= h.konst && h.w0 > w
                {
                    w = h.w0;
                }
            }
        }
        // Start closer to the fixed point: since ceil(x) >= x and a capped tick count is at
        // least w / max(T_e, T_tick), every fixed point satisfies
        // w >= (base + sum (work+switch)_e J_e / T_e) / (1 - U_e), so starting there (less a
        // safety margin for rounding) stays below the least fixed point. The first w with
        // f(w) <= w at or above a start that is not past the least fixed point is that
        // fixed point (Knaster-Tarski), so the result is unchanged; only iterations are saved.
        if u_int < 1.0 {
            let lb = (base as f64 + jitter_work) / (1.0 - u_int) * (1.0 - 1e-9) - 1.0;
            if lb.is_finite() && lb > w as f64 && lb < (i64::MAX / 4) as f64 {
                w = lb as i64;
            }
        }
        // Fixed point of w = base + demand(w), from below.
        let mut inner = 0u32;
        loop {
            iters += 1;
            inner += 1;
            let next = base + dem.at(w, tick_p, ctx.tick_inv);
            if next > i64::MAX as i128 / 2 {
                result.unbounded_reason = Some("the response time overflows".into());
                result.iterations = iters;
                return result;
            }
            let mut next = next as i64;
            if next <= w {
                break;
            }
            if opts.accelerate && inner > 2 {
                if let Some(lb) = dem.linear_lower_bound(base, next, tick_p) {
                    next = next.max(lb);
                }
            }
            w = next;
            if iters >= opts.max_iterations {
                result.unbounded_reason = Some(format!(
                    "no fixed point within {} iterations (utilisation {util:.6})",
                    opts.max_iterations
                ));
                result.iterations = iters;
                return result;
            }
            if opts.stop_at_deadline && w - q as i64 * period + jit > t.deadline.0 {
                result.unbounded_reason = Some("stopped: past the deadline".into());
                result.iterations = iters;
                result.jobs_examined = q + 1;
                return result;
            }
        }
        if q == 0 {
            *hint_out = Some(Hint {
                prio,
                konst: base,
                w0: w,
                wcet: t.wcet.0,
            });
        }
        let r = w - q as i64 * period + jit;
        if best.is_none_or(|(br, _, _)| r > br) {
            best = Some((r, q, w));
        }
        if opts.stop_at_deadline && r > t.deadline.0 {
            result.unbounded_reason = Some("stopped: past the deadline".into());
            result.iterations = iters;
            result.jobs_examined = q + 1;
            return result;
        }
        // Does job q+1 arrive before the window closes?
        if (w as i128) + (jit as i128) <= (q as i128 + 1) * period as i128 {
            break;
        }
        if q == 0 {
            // The next task starts from this window, not from the later jobs' ones.
            dem.snapshot();
        }
        q += 1;
    }
    let (r, qc, wc) = best.unwrap_or((0, 0, 0));
    result.iterations = iters;
    result.jobs_examined = q + 1;
    result.critical_job = qc;
    result.wcrt_ps = Some(r);
    result.wcrt_ns = Some(ns(r));
    result.slack_ns = Some(ns(t.deadline.0 - r));
    result.schedulable = r <= t.deadline.0;
    result.breakdown = breakdown(
        t,
        p,
        ctx,
        dem,
        hp_end,
        (qc, wc),
        qc == q,
        own_switch,
        blocking,
        jit,
    );
    result
}

/// Where the WCRT of job `qc` (window `wc`) goes. When that job is the last one examined,
/// `dem` still holds the release counts at `wc` (its last evaluation was there).
#[allow(clippy::too_many_arguments)]
fn breakdown(
    t: &crate::system::Task,
    p: &Prep,
    ctx: &ModeCtx,
    dem: &Demand,
    hp_end: usize,
    (qc, wc): (u64, i64),
    counts_at_wc: bool,
    own_switch: i64,
    blocking: i64,
    jit: i64,
) -> Breakdown {
    let period = t.period().0;
    let ticks = if counts_at_wc {
        dem.ticks
    } else {
        ceil_div_fast(wc, ctx.tick_p, ctx.tick_inv)
    };
    let mut interference = Interference::new(p.names.clone(), hp_end);
    let (tick_ps, cs_ps, irq_ps) = if counts_at_wc {
        // The counts are those at `wc`, and so is the running total `sum + sum_tick`: the
        // tick part is what remains of it after the work and switches, so the tasks below
        // the analysed one (tick pseudo-tasks only) need no visit.
        let (mut work_ps, mut cs_ps, mut irq_ps) = (0i128, 0i128, 0i128);
        for k in 0..ctx.nf {
            let n = dem.n[k] as i128;
            cs_ps += n * dem.switch[k] as i128;
            if dem.attr[k] == Attr::Interrupt {
                irq_ps += n * dem.work[k] as i128;
            } else {
                work_ps += n * dem.work[k] as i128;
            }
        }
        for (x, &j) in ctx.order[..hp_end].iter().enumerate() {
            let k = ctx.nf + x;
            let (n, work) = (dem.n[k], dem.work[k]);
            cs_ps += n as i128 * dem.switch[k] as i128;
            work_ps += n as i128 * work as i128;
            if work > 0 {
                interference.push(j, ns(n.saturating_mul(work)));
            }
        }
        cs_ps += dem.sum_pre;
        let total = dem.sum + dem.sum_tick + dem.sum_first + dem.sum_pre;
        (total - work_ps - cs_ps - irq_ps, cs_ps, irq_ps)
    } else {
        let (mut tick_ps, mut cs_ps, mut irq_ps) = (
            dem.first_charge(wc, ticks),
            dem.pre_charge(wc, ticks),
            0i128,
        );
        for k in 0..dem.active {
            let (tick, switch, work) = (dem.tick[k], dem.switch[k], dem.work[k]);
            if tick == 0 && switch == 0 && work == 0 {
                continue;
            }
            let (n, nt) = dem.counts(k, wc, ticks);
            tick_ps += nt as i128 * tick as i128;
            cs_ps += n as i128 * switch as i128;
            match dem.attr[k] {
                Attr::Interrupt => irq_ps += n as i128 * work as i128,
                Attr::Task(j) if work > 0 => interference.push(j, ns(n.saturating_mul(work))),
                _ => {}
            }
        }
        (tick_ps, cs_ps, irq_ps)
    };
    let ns_wide = |v: i128| ns(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64);
    Breakdown {
        wcet_ns: t.wcet.as_ns_f64(),
        own_previous_jobs_ns: ns(qc as i64 * t.wcet.0),
        window_offset_ns: ns(-(qc as i64) * period),
        interference,
        tick_ns: ns_wide(tick_ps),
        context_switch_ns: ns((qc as i64 + 1) * own_switch) + ns_wide(cs_ps),
        interrupts_ns: ns_wide(irq_ps),
        blocking_ns: ns(blocking),
        jitter_ns: ns(jit),
    }
}

/// `w = base + sum_x ceil(w / T_x) (C_x + L)` over the interrupts, from below; `None`
/// when it does not converge within the budget.
fn with_interrupts(
    sys: &System,
    opts: &AnalysisOptions,
    l: Picos,
    base: i64,
) -> Option<(i64, i64)> {
    let mut w = base;
    for _ in 0..opts.max_iterations.max(1) {
        let irq: i128 = sys
            .interrupts
            .iter()
            .map(|x| {
                let t = x.min_interarrival.0.max(1) as i128;
                ((w as i128 + t - 1) / t) * (x.wcet + l).0 as i128
            })
            .sum();
        let next = base as i128 + irq;
        if next > i64::MAX as i128 / 2 {
            return None;
        }
        if next as i64 <= w {
            return Some((w, irq as i64));
        }
        w = next as i64;
    }
    None
}

/// Cooperative list-scan kernel (KernelPerf; docs/simulator.md section 3; audit D21).
///
/// Threads run their jobs to the end and the scheduler runs only when the run queue is
/// empty, so this is non-preemptive fixed-priority scheduling (George, Rivierre & Spuri,
/// INRIA RR-2966, 1996; Davis, Burns, Bril & Lukkien, Real-Time Systems 35(3), 2007)
/// with one difference that makes it worse: a thread due at a tick is not even queued
/// until the whole batch queued by the previous scheduler run has finished, whatever its
/// priorities. A job's arrival is the tick flag consumed by the run that queues it.
///
/// Let `X` be the longest scheduler run plus batch (every thread at most once, each with
/// its switch) with interrupts: `X = S + sum_all (C + sw) + I(X)`, `S` the scheduler run
/// inserting all `n` threads. Let `D_k = s_k - f_k` be how late run `k` starts after the
/// flag `f_k` it consumes (`D_0 = 0`). The next flag is set no earlier than
/// `max(s_k, f_k + T_tick)`, so `D_{k+1} <= max(0, X - max(0, T_tick - D_k))`: `D = 0`
/// for ever when `X <= T_tick`, else `D <= X`. Once run `k` starts, the queue is empty;
/// task `i` is inserted behind the due threads of higher or equal priority, so
/// `R_i = D + w`, `w = S + B_i + sum_{hep(i)} (C_j + sw) + C_i + sw + I(w)`, plus the
/// task's release jitter. A thread has at most one job pending (a run only starts on an
/// empty queue), so no busy window over several jobs is needed.
fn analyse_listscan_task(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    c: &crate::overheads::listscan::ListScanCosts,
    i: usize,
) -> TaskResult {
    let t = &sys.tasks[i];
    let n = sys.tasks.len() as u32;
    let (sched, sw) = if opts.overheads {
        (p.l + c.worst_scheduler_run(n, n), c.switch)
    } else {
        (Picos::ZERO, Picos::ZERO)
    };
    let all: i64 = sys.tasks.iter().map(|o| (o.wcet + sw).0).sum();
    let hep: Vec<usize> = (0..sys.tasks.len())
        .filter(|&j| j != i && sys.tasks[j].priority >= t.priority)
        .collect();
    let hep_sum: i64 = hep.iter().map(|&j| (sys.tasks[j].wcet + sw).0).sum();
    let blocking = t.blocking.max(p.blocking_cs).0 + p.res_blocking.get(i).copied().unwrap_or(0);
    let jit = p.jitter_ps[i];
    let mut result = TaskResult {
        name: t.name.clone(),
        priority: t.priority,
        wcrt_ns: None,
        deadline_ns: t.deadline.as_ns_f64(),
        period_ns: t.period().as_ns_f64(),
        slack_ns: None,
        schedulable: false,
        unbounded_reason: None,
        jobs_examined: 1,
        critical_job: 0,
        iterations: 1,
        wcrt_ps: None,
        jitter: p.jitter[i].clone(),
        breakdown: Breakdown::default(),
        blocking_ns: ns(blocking),
        blocking_from: p.res_from.get(i).cloned().unwrap_or_default(),
        observed_max_ns: None,
        observed_at_ns: None,
        observed_job: None,
        bound_ratio: None,
    };
    let Some((x, _)) = with_interrupts(sys, opts, p.l, sched.0 + all) else {
        result.unbounded_reason = Some("interrupts leave no time for the threads".into());
        return result;
    };
    let d = if x <= p.tick.0 { 0 } else { x };
    let base = sched.0 + blocking + hep_sum + (t.wcet + sw).0;
    let Some((w, irq)) = with_interrupts(sys, opts, p.l, base) else {
        result.unbounded_reason = Some("interrupts leave no time for the threads".into());
        return result;
    };
    // d and w are each below i64::MAX / 2 (with_interrupts), jit below 2^58.
    let r = (d as i128 + w as i128 + jit as i128).min(i64::MAX as i128) as i64;
    if r > i64::MAX / 2 {
        result.unbounded_reason = Some("the response time overflows".into());
        return result;
    }
    result.wcrt_ps = Some(r);
    result.wcrt_ns = Some(ns(r));
    result.slack_ns = Some(ns(t.deadline.0 - r));
    result.schedulable = r <= t.deadline.0;
    result.breakdown = Breakdown {
        wcet_ns: t.wcet.as_ns_f64(),
        interference: {
            let mut v = Interference::new(p.names.clone(), hep.len());
            for &j in &hep {
                v.push(j, sys.tasks[j].wcet.as_ns_f64());
            }
            v
        },
        tick_ns: sched.as_ns_f64(),
        context_switch_ns: ns((hep.len() as i64 + 1) * sw.0),
        interrupts_ns: ns(irq),
        // Waiting for the previous batch is the non-preemptive blocking.
        blocking_ns: ns(blocking + d),
        jitter_ns: ns(jit),
        ..Default::default()
    };
    result
}

/// Tasks in descending priority order, ties in file order.
fn priority_order(sys: &System) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..sys.tasks.len()).collect();
    idx.sort_by(|&a, &b| {
        sys.tasks[b]
            .priority
            .cmp(&sys.tasks[a].priority)
            .then(a.cmp(&b))
    });
    idx
}

/// Response times of every task in one tick mode, in descending priority order. An
/// input past the analysis range is an error naming where it is ([`crate::range`]).
pub fn analyze_mode(
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
) -> Result<Vec<TaskResult>, AnalysisError> {
    let inflated = crate::resource::blocking::with_lock_costs(sys);
    let sys = inflated.as_ref().unwrap_or(sys);
    range::check(sys, opts)?;
    let mut dem = Demand::with_capacity(sys.tasks.len() + sys.interrupts.len() + 2);
    Ok(analyze_mode_with(
        sys,
        opts,
        &prepare(sys, opts),
        mode,
        &mut dem,
    ))
}

fn analyze_mode_with(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    mode: TickMode,
    dem: &mut Demand,
) -> Vec<TaskResult> {
    let mut out = analyze_mode_bounds(sys, opts, p, mode, dem);
    for (r, &i) in out.iter_mut().zip(&p.order) {
        match p.nested_inheritance.get(i).copied().flatten() {
            Some(why) if why == crate::resource::blocking::NESTED_INHERITANCE => {
                *r = nested_bound(sys, opts, mode, i, r);
            }
            Some(why) => {
                r.wcrt_ns = None;
                r.wcrt_ps = None;
                r.slack_ns = None;
                r.schedulable = false;
                r.unbounded_reason = Some(why.into());
            }
            None => {}
        }
    }
    out
}

/// The tasks below `i` but at or above `f` run while `i` waits on the chain: the bound
/// charges their whole jobs like interference, and they are lower-priority tasks running
/// while `i` is pending, so their shares move to `i`'s blocking (`blocking_from` names
/// them with [`crate::resource::nested::PREEMPTS_CHAIN`]). The breakdown still adds up.
fn middle_as_blocking(sys: &System, i: usize, f: u32, r: &mut TaskResult) {
    let Some(p) = sys.tasks.get(i).map(|t| t.priority) else {
        return;
    };
    let middle = |k: usize| {
        k != i
            && sys
                .tasks
                .get(k)
                .is_some_and(|t| t.priority >= f && t.priority < p)
    };
    for s in r.breakdown.interference.take_where(middle) {
        let name = sys
            .tasks
            .get(s.task as usize)
            .map_or("?", |t| t.name.as_str());
        r.blocking_ns += s.ns;
        r.breakdown.blocking_ns += s.ns;
        r.blocking_from
            .push(crate::resource::blocking::BlockingPart {
                task: name.to_string(),
                resource: crate::resource::nested::PREEMPTS_CHAIN.to_string(),
                duration: Picos((s.ns * 1000.0).round() as i64),
                duration_ns: s.ns,
            });
    }
}

/// The bound of task `i` exposed to nested inheritance mutexes: its analysis with its
/// priority moved down to the floor of the chain's holders
/// ([`crate::resource::nested`]); its own priority is kept in the result. Without a
/// floor (never for an exposed task) it stays unbounded.
fn nested_bound(
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
    i: usize,
    classic: &TaskResult,
) -> TaskResult {
    use crate::resource::{blocking, nested};
    let unbounded = || {
        let mut r = classic.clone();
        r.wcrt_ns = None;
        r.wcrt_ps = None;
        r.slack_ns = None;
        r.schedulable = false;
        r.unbounded_reason = Some(blocking::NESTED_INHERITANCE.into());
        r
    };
    let Some(f) = nested::analysis_priority(sys, i) else {
        return unbounded();
    };
    let low = nested::lowered(sys, i, f);
    let lp = prepare(&low, opts);
    let mut dem = Demand::with_capacity(low.tasks.len() + low.interrupts.len() + 2);
    let res = analyze_mode_bounds(&low, opts, &lp, mode, &mut dem);
    let found = lp.order.iter().zip(res).find(|(&k, _)| k == i);
    match found {
        Some((_, mut r)) => {
            r.priority = classic.priority;
            middle_as_blocking(sys, i, f, &mut r);
            r
        }
        None => unbounded(),
    }
}

/// Per task: why nested inheritance mutexes leave it without a sound bound, if they do
/// (docs/resources.md, "Nested inheritance mutexes").
fn unbounded_by_nesting(sys: &System) -> Vec<Option<&'static str>> {
    use crate::resource::{blocking as b, Protocol};
    let r = &sys.resources;
    let deadlock = b::inheritance_deadlock_possible(sys);
    b::nested_inheritance_exposed(sys)
        .into_iter()
        .enumerate()
        .map(|(i, exposed)| {
            let takes = r
                .of_task(i)
                .iter()
                .any(|s| r.protocol(s) == Protocol::Inheritance);
            if deadlock && takes {
                Some(b::INHERITANCE_DEADLOCK)
            } else if exposed {
                Some(b::NESTED_INHERITANCE)
            } else {
                None
            }
        })
        .collect()
}

fn analyze_mode_bounds(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    mode: TickMode,
    dem: &mut Demand,
) -> Vec<TaskResult> {
    if let KernelCosts::Listscan(c) = &sys.kernel.costs {
        // Cooperative: both tick modes charge the scheduler run the same way.
        return p
            .order
            .iter()
            .map(|&i| analyse_listscan_task(sys, opts, p, c, i))
            .collect();
    }
    let mut prios: Vec<u32> = sys.tasks.iter().map(|t| t.priority).collect();
    prios.sort_unstable();
    let distinct = prios.windows(2).all(|w| w[0] != w[1]);
    dem.clear();
    let ctx = ModeCtx::new(sys, opts, p, mode, dem);
    let mut hint: Option<Hint> = None;
    ctx.order
        .iter()
        .map(|&i| {
            let mut out = None;
            let h = hint.filter(|_| distinct);
            let r = analyse_task(sys, opts, p, &ctx, dem, i, h, &mut out);
            hint = out;
            r
        })
        .collect()
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Least common multiple of the periods, `None` past `i64::MAX` picoseconds.
pub fn hyperperiod(sys: &System) -> Option<Picos> {
    let mut h: u128 = 1;
    for t in &sys.tasks {
        let p = t.period().0 as u128;
        h = h / gcd(h, p) * p;
        if h > i64::MAX as u128 {
            return None;
        }
    }
    Some(Picos(h as i64))
}

/// Analyses the system in both tick modes; `tasks` holds the mode chosen by the options
/// (or the file). An input past the analysis range is an error naming where it is
/// ([`crate::range`]); the analysis itself never overflows or panics.
pub fn analyze(sys: &System, opts: &AnalysisOptions) -> Result<AnalysisResult, AnalysisError> {
    let inflated = crate::resource::blocking::with_lock_costs(sys);
    let sys = inflated.as_ref().unwrap_or(sys);
    range::check(sys, opts)?;
    let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
    let p = prepare(sys, opts);
    let mut dem = Demand::with_capacity(sys.tasks.len() + sys.interrupts.len() + 2);
    let pess = analyze_mode_with(sys, opts, &p, TickMode::Pessimistic, &mut dem);
    // Without a per-release tick cost the two modes charge the same entities (the
    // partitioned base equals the pessimistic tick): compute once.
    let listscan = matches!(sys.kernel.costs, KernelCosts::Listscan(_));
    let part =
        if listscan || (p.tick_per_release == Picos::ZERO && p.tick_pessimistic == p.tick_base) {
            pess.clone()
        } else {
            analyze_mode_with(sys, opts, &p, TickMode::Partitioned, &mut dem)
        };

    let pessimism_reduction = pess
        .iter()
        .zip(&part)
        .enumerate()
        .map(|(k, (a, b))| {
            let red = match (a.wcrt_ps, b.wcrt_ps) {
                (Some(x), Some(y)) => Some(x - y),
                _ => None,
            };
            Reduction {
                name: p.names[p.order[k]].clone(),
                pessimistic_ns: a.wcrt_ns,
                partitioned_ns: b.wcrt_ns,
                reduction_ns: red.map(ns),
                reduction_pct: match (red, a.wcrt_ps) {
                    (Some(r), Some(x)) if x > 0 => Some(100.0 * r as f64 / x as f64),
                    _ => None,
                },
            }
        })
        .collect();

    // Totals
    let u = |c: Picos, t: Picos| c.0 as f64 / t.0 as f64;
    let n = sys.tasks.len();
    let ut: Vec<f64> = sys.tasks.iter().map(|t| u(t.wcet, t.period())).collect();
    let utilisation_tasks: f64 = ut.iter().sum();
    let utilisation_interrupts: f64 = sys
        .interrupts
        .iter()
        .map(|x| u(x.wcet + p.l + p.irq_path, x.min_interarrival))
        .sum::<f64>()
        + 0.0; // an empty f64 sum is -0.0
    let utilisation_tick_pessimistic = u(p.tick_pessimistic, p.tick);
    let utilisation_tick_partitioned = u(p.tick_base, p.tick)
        + sys
            .tasks
            .iter()
            .enumerate()
            .filter(|(i, _)| p.tick_released[*i])
            .map(|(_, t)| u(p.tick_per_release, t.period()))
            .sum::<f64>()
        + p.tick_first_excess.0 as f64
            * sys
                .tasks
                .iter()
                .enumerate()
                .filter(|(i, _)| p.tick_released[*i])
                .map(|(_, t)| 1.0 / t.period().0 as f64)
                .sum::<f64>()
                .min(1.0 / p.tick.0 as f64);
    let sw1 = switch_at(sys, opts, p.l, 1);
    let utilisation_context_switch: f64 = sys
        .tasks
        .iter()
        .map(|t| {
            u(
                sw1 + switch_at(sys, opts, p.l, levels_scanned(t.priority, 0)),
                t.period(),
            )
        })
        .sum();
    let any_peer = p.max_shared_level.is_some();
    let utilisation_time_slicing = if opts.overheads && sys.kernel.time_slicing && any_peer {
        u(sw1, p.tick)
    } else {
        0.0
    };
    let tick_u = match mode {
        TickMode::Pessimistic => utilisation_tick_pessimistic,
        TickMode::Partitioned => utilisation_tick_partitioned,
    };
    let liu_layland_bound = n as f64 * (2f64.powf(1.0 / n as f64) - 1.0);
    let hyperbolic_product: f64 = ut.iter().map(|x| x + 1.0).product();
    let totals = Totals {
        tasks: n,
        interrupts: sys.interrupts.len(),
        utilisation_tasks,
        utilisation_interrupts,
        utilisation_tick_pessimistic,
        utilisation_tick_partitioned,
        utilisation_context_switch,
        utilisation_time_slicing,
        utilisation_total: utilisation_tasks
            + utilisation_interrupts
            + tick_u
            + utilisation_context_switch
            + utilisation_time_slicing,
        liu_layland_bound,
        liu_layland_ok: utilisation_tasks <= liu_layland_bound,
        hyperbolic_product,
        hyperbolic_ok: hyperbolic_product <= 2.0,
        hyperperiod_ns: hyperperiod(sys).map(|h| h.as_ns_f64()),
        tick_period_ns: p.tick.as_ns_f64(),
        irq_entry_ns: p.l.as_ns_f64(),
    };

    let mut notes: Vec<std::borrow::Cow<'static, str>> =
        vec!["equal priorities interfere with each other (treated as higher priority)".into()];
    if opts.tick_release_delay && p.jitter.iter().any(|j| j.tick_delay_ns > 0.0) {
        notes.push(
            "tick-released tasks get a tick-driven release delay (the release is noticed \
             at the next tick): one tick period on top of the jitter when the period or \
             offset is not a whole number of ticks, else the jitter rounded up to whole ticks"
                .into(),
        );
    }
    if listscan {
        notes.push(
            "list-scan kernel: cooperative, analysed as non-preemptive fixed priority; a \
             thread due at a tick waits for the whole batch queued by the previous scheduler \
             run when one scheduler run plus every thread's job exceeds a tick"
                .into(),
        );
    }
    if opts.overheads && opts.switch_charge == SwitchCharge::PerJob {
        notes.push(
            "each job is charged two context switches (in, and out down to the idle task \
             for its own job or to the analysed task's level for higher-priority jobs)"
                .into(),
        );
    } else if opts.overheads {
        notes.push(
            "context switches as a PendSV-style kernel does them: one per completion (out of \
             the finished job, down to the analysed task's level) and one per preemption (at \
             most one per tick that releases a higher-priority task, one per interrupt that \
             releases one); the task's own job is charged its switch in and its switch out \
             down to the idle task"
                .into(),
        );
    } else {
        notes.push("kernel overheads are not charged (--no-overheads)".into());
    }
    for i in 0..sys.tasks.len() {
        if p.nested_inheritance[i] == Some(crate::resource::blocking::NESTED_INHERITANCE) {
            if let Some(f) = crate::resource::nested::analysis_priority(sys, i) {
                notes.push(crate::resource::nested::note(sys, i, f).into());
            }
        }
    }
    {
        let why = crate::resource::blocking::INHERITANCE_DEADLOCK;
        let detail = "some task takes mutex B inside A while another takes A inside B (or a \
                      longer cycle), so the tasks that take inheritance mutexes can wait forever";
        let exposed: Vec<&str> = (0..sys.tasks.len())
            .filter(|&i| p.nested_inheritance[i] == Some(why))
            .map(|i| sys.tasks[i].name.as_str())
            .collect();
        if !exposed.is_empty() {
            notes.push(
                format!(
                    "warning: {}: {why}: {detail}; no sound bound is given (check by \
                     simulation, or use ceiling resources for nested locking; \
                     docs/resources.md)",
                    exposed.join(", "),
                )
                .into(),
            );
        }
    }

    let tasks = match mode {
        TickMode::Pessimistic => pess.clone(),
        TickMode::Partitioned => part.clone(),
    };
    Ok(AnalysisResult {
        kind: "analyze",
        schema_version: 1,
        source: sys.source.clone(),
        model: sys.kernel.model().name(),
        tick_mode: mode.name(),
        overheads: opts.overheads,
        tick_release_delay: opts.tick_release_delay,
        schedulable: tasks.iter().all(|t| t.schedulable),
        tasks,
        tick_modes: TickModes {
            pessimistic: pess,
            partitioned: part,
        },
        pessimism_reduction,
        totals,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::{ceil_div_fast, Attr, Demand, Entity};
    use rand::{Rng, SeedableRng};

    #[test]
    fn fast_ceil_div_is_exact() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let cases = [
            (1, 1),
            (7, 7),
            (8, 7),
            (i64::MAX / 2, 3),
            (1_000_000_000_000_000, 999_999_999_999_999),
            (999_999_999_999_999_999, 1),
        ];
        for (a, b) in cases {
            assert_eq!(
                ceil_div_fast(a, b, 1.0 / b as f64),
                (a + b - 1) / b,
                "{a} {b}"
            );
        }
        for _ in 0..100_000 {
            let b: i64 = rng.gen_range(1..=1_000_000_000_000_000);
            let a: i64 = rng.gen_range(-10..=4_000_000_000_000_000_000);
            let want = if a <= 0 {
                0
            } else {
                (a as i128 + b as i128 - 1) / b as i128
            } as i64;
            assert_eq!(ceil_div_fast(a, b, 1.0 / b as f64), want, "{a} {b}");
        }
    }

    /// The incremental demand equals the direct sum `n (work + switch) + min(n, ticks)
    /// tick` through growing windows, charge changes between "tasks" (with the counts
    /// kept by `snapshot` and restored), windows below the counts' one (a reset), and a
    /// changing number of active entities.
    #[test]
    fn incremental_demand_equals_direct_sum() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for _ in 0..300 {
            let tick_p: i64 = rng.gen_range(1_000..1_000_000);
            let tick_inv = 1.0 / tick_p as f64;
            let mut d = Demand::default();
            let len = rng.gen_range(1..20);
            for _ in 0..len {
                let period: i64 = rng.gen_range(100..5_000_000);
                d.push(
                    Entity {
                        period,
                        jitter: if rng.gen_bool(0.3) {
                            rng.gen_range(0..3 * period)
                        } else {
                            0
                        },
                        work: rng.gen_range(0..1000),
                        switch: rng.gen_range(0..100),
                        tick: if rng.gen_bool(0.5) {
                            rng.gen_range(0..500)
                        } else {
                            0
                        },
                        first_rel: rng.gen_bool(0.5),
                        attr: Attr::Tick,
                    },
                    tick_p,
                );
            }
            d.first_excess = if rng.gen_bool(0.5) {
                rng.gen_range(0..700)
            } else {
                0
            };
            // Entities past `active` carry no charges (`begin`'s precondition).
            let mut active = rng.gen_range(1..=len);
            for k in active..len {
                d.set(k, 0, 0);
            }
            let mut w: i64 = rng.gen_range(0..1000);
            for task in 0..6 {
                if task > 0 {
                    d.restore();
                    for _ in 0..rng.gen_range(0..4) {
                        let k = rng.gen_range(0..active);
                        let (work, switch) = (rng.gen_range(0..1000), rng.gen_range(0..100));
                        d.set(k, work, switch);
                    }
                    let grown = rng.gen_range(active..=len);
                    for k in active..grown {
                        let (work, switch) = (rng.gen_range(0..1000), rng.gen_range(0..100));
                        d.set(k, work, switch);
                    }
                    active = grown;
                    if rng.gen_bool(0.3) {
                        w = rng.gen_range(0..w.max(1)); // below the counts: a reset
                    }
                }
                let st = d.begin(active, tick_p);
                let first: i128 = (0..active)
                    .map(|k| (d.work[k] + d.switch[k] + d.tick[k]) as i128)
                    .sum();
                assert_eq!(st.first, first);
                for step in 0..20 {
                    let ticks = ceil_div_fast(w, tick_p, tick_inv);
                    let direct: i128 = (0..active)
                        .map(|k| {
                            let (n, nt) = d.counts(k, w, ticks);
                            n as i128 * (d.work[k] + d.switch[k]) as i128
                                + nt as i128 * d.tick[k] as i128
                        })
                        .sum::<i128>()
                        + {
                            let rel: i64 = (0..active)
                                .filter(|&k| d.first_rel[k])
                                .map(|k| d.counts(k, w, ticks).0)
                                .sum();
                            rel.min(ticks) as i128 * d.first_excess as i128
                        };
                    assert_eq!(d.at(w, tick_p, tick_inv), direct, "w {w}");
                    if step == 3 {
                        d.snapshot();
                    }
                    // The same window again (the shortcut for job q + 1's first
                    // evaluation), sometimes after a charge change, which must show
                    // (charges change only before the snapshot, as in `analyse_task`).
                    if rng.gen_bool(0.3) {
                        let changed = step < 3 && rng.gen_bool(0.5);
                        if changed {
                            let k = rng.gen_range(0..active);
                            let (work, switch) = (rng.gen_range(0..1000), rng.gen_range(0..100));
                            d.set(k, work, switch);
                        }
                        let direct: i128 = (0..active)
                            .map(|k| {
                                let (n, nt) = d.counts(k, w, ticks);
                                n as i128 * (d.work[k] + d.switch[k]) as i128
                                    + nt as i128 * d.tick[k] as i128
                            })
                            .sum::<i128>()
                            + d.first_charge(w, ticks);
                        assert_eq!(d.at(w, tick_p, tick_inv), direct, "again at w {w}");
                    }
                    w += rng.gen_range(0..3_000_000);
                }
            }
        }
    }
}
