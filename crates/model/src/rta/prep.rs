//! Per-system quantities computed once before any fixed point: priority order, release
//! jitters, tick and switch costs, blocking.

use super::nesting::unbounded_by_nesting;
use super::ticks::{on_tick_grid, ticks_covering, ticks_ps_ceil};
use super::{AnalysisOptions, JitterParts};
use crate::system::{KernelCosts, System, TaskSelection};
use latscope_core::Picos;
use std::sync::Arc;

/// Per-system quantities computed once.
pub(super) struct Prep {
    /// Tasks in descending priority order, ties in file order.
    pub(super) order: Vec<usize>,
    /// Each task's position in `order`.
    pub(super) pos: Vec<usize>,
    /// Per position: the first position of a lower priority.
    pub(super) group_end: Vec<usize>,
    pub(super) names: Arc<[Arc<str>]>,
    pub(super) l: Picos,
    pub(super) tick: Picos,
    /// Effective release jitter of each task.
    pub(super) jitter: Vec<JitterParts>,
    pub(super) jitter_ps: Vec<i64>,
    /// Whether the tick releases the task (periodic, not released by an interrupt).
    pub(super) tick_released: Vec<bool>,
    pub(super) tick_base: Picos,
    pub(super) tick_per_release: Picos,
    /// The piecewise tick's excess over `tick_base + r tick_per_release` on a tick that
    /// releases at least one task (`TickCosts::first_release_excess`).
    pub(super) tick_first_excess: Picos,
    pub(super) tick_pessimistic: Picos,
    /// The partitioned demand is at or below the pessimistic one at every window: a
    /// tick's partitioned charge, `tick_base + n_rel tick_per_release + X` at most, does
    /// not exceed the pessimistic tick (it can, when the last release is cheaper than the
    /// others). The pessimistic analysis then starts from the partitioned windows
    /// ([`super::fixed_point::Floor`]).
    pub(super) modes_nested: bool,
    pub(super) blocking_cs: Picos,
    /// Blocking computed from the resources, per task, and its parts.
    pub(super) res_blocking: Vec<i64>,
    pub(super) res_from: Vec<Vec<crate::resource::blocking::BlockingPart>>,
    /// Per task (file order): exposed to a chain of nested inheritance mutexes, so
    /// given no bound ([`crate::resource::blocking::nested_inheritance_exposed`]).
    pub(super) nested_inheritance: Vec<Option<&'static str>>,
    /// The longest kernel critical section (a masked tick runs that much late).
    pub(super) masking: Picos,
    /// The highest priority shared by two or more tasks: round-robin switches at that
    /// level interfere with every task at or below it.
    pub(super) max_shared_level: Option<u32>,
    /// Release jitter of interrupt handlers: an interrupt arriving while the CPU sleeps
    /// runs its handler only after the whole exit latency (docs/simulator.md, tickless),
    /// so its handler can run closer to the next one than `min_interarrival`.
    pub(super) irq_jitter: Picos,
    /// Per interrupt (file order), subtracted from `irq_jitter`: the offset-based bound's
    /// phase reduction (`rta::offsets`); empty elsewhere.
    pub(super) irq_shift: Vec<i64>,
    /// What every interrupt handler runs besides its WCET and `L` (irqpath: prologue,
    /// send and dispatch, and the stage's entry above `L`).
    pub(super) irq_path: Picos,
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

/// Computes the per-system quantities every task's fixed point reads.
pub(super) fn prepare(sys: &System, opts: &AnalysisOptions) -> Prep {
    let res = crate::resource::blocking::effect(sys);
    let ov = opts.overheads;
    let l = if ov {
        sys.platform.irq_entry()
    } else {
        Picos::ZERO
    };
    let tick = sys.kernel.tick_period();
    let tick_released = tick_released(sys);
    let n_rel = tick_released.iter().filter(|&&b| b).count() as u32;
    let tc = TickCharges::of(sys, ov, l, n_rel);
    let sleep = SleepLateness::of(sys, tick);
    let cold = sys.platform.cache.assume == crate::system::CacheState::Cold;
    let inputs = JitterInputs {
        opts,
        l,
        sleep,
        cold,
        masking: res.masking,
    };
    let (jitter, jitter_ps) = (0..sys.tasks.len())
        .map(|i| release_jitter(sys, &inputs, i, &tick_released))
        .unzip();
    let cs = &sys.critical_sections;
    let blocking_cs = if ov {
        cs.kernel.max(cs.application)
    } else {
        cs.application
    };
    let order = priority_order(sys);
    Prep {
        pos: positions(&order),
        group_end: group_ends(sys, &order),
        order,
        names: sys.tasks.iter().map(|t| t.name.as_str().into()).collect(),
        l,
        tick,
        jitter,
        jitter_ps,
        tick_released,
        tick_base: tc.base,
        tick_per_release: tc.per_release,
        tick_first_excess: tc.first_excess,
        tick_pessimistic: tc.pessimistic,
        modes_nested: tc.modes_nested(n_rel),
        blocking_cs,
        res_blocking: res.tasks.iter().map(|b| b.total.0).collect(),
        res_from: res.tasks.into_iter().map(|b| b.from).collect(),
        nested_inheritance: unbounded_by_nesting(sys),
        masking: res.masking,
        irq_jitter: if ov { sleep.max_wake } else { Picos::ZERO } + res.masking,
        irq_shift: Vec::new(),
        irq_path: irq_path(sys, ov, cold, l),
        max_shared_level: max_shared_level(sys),
    }
}

/// Per task (file order): whether the tick releases it.
fn tick_released(sys: &System) -> Vec<bool> {
    sys.tasks
        .iter()
        .enumerate()
        // A sporadic task no interrupt releases is released by the tick too: the
        // simulator runs it as periodic at its minimum inter-arrival time (audit D3).
        // A task released by another's completion (a chain's event link) is not.
        .map(|(i, t)| {
            t.released_by.is_none() && (sys.chains.is_empty() || sys.activator(i).is_none())
        })
        .collect()
}

/// What a tick costs, by kernel model, for the two tick modes.
struct TickCharges {
    base: Picos,
    per_release: Picos,
    first_excess: Picos,
    pessimistic: Picos,
}

impl TickCharges {
    /// The charges with `n_rel` tick-released tasks (all zero without overheads).
    fn of(sys: &System, ov: bool, l: Picos, n_rel: u32) -> TickCharges {
        let n = sys.tasks.len() as u32;
        let (base, per_release, first_excess, pessimistic) = if !ov {
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
        TickCharges {
            base,
            per_release,
            first_excess,
            pessimistic,
        }
    }

    /// [`Prep::modes_nested`]: the partitioned charge of a tick never exceeds the
    /// pessimistic one (in i128: `n_rel` ticks' charges can pass `i64`).
    fn modes_nested(&self, n_rel: u32) -> bool {
        self.per_release >= Picos::ZERO
            && self.base <= self.pessimistic
            && self.base.0 as i128
                + n_rel as i128 * self.per_release.0 as i128
                + self.first_excess.0 as i128
                <= self.pessimistic.0 as i128
    }
}

/// How late a sleeping CPU runs what wakes it (docs/simulator.md, tickless).
#[derive(Clone, Copy)]
struct SleepLateness {
    /// The longest exit latency an interrupt can meet: its arrival is unpredictable.
    max_wake: Picos,
    /// The longest lateness of a timed wake-up (the kernel programs the exit ahead).
    max_timed: Picos,
}

impl SleepLateness {
    fn of(sys: &System, tick: Picos) -> SleepLateness {
        let states = &sys.kernel.sleep_states;
        SleepLateness {
            max_wake: states
                .iter()
                .map(|s| s.unpredictable_extra())
                .max()
                .unwrap_or(Picos::ZERO),
            max_timed: states
                .iter()
                .map(|s| s.timed_lateness(tick))
                .max()
                .unwrap_or(Picos::ZERO),
        }
    }
}

/// What every task's release jitter is built from.
struct JitterInputs<'a> {
    opts: &'a AnalysisOptions,
    /// The interrupt entry latency charged (zero without overheads).
    l: Picos,
    sleep: SleepLateness,
    cold: bool,
    /// The longest kernel critical section.
    masking: Picos,
}

/// Task `i`'s effective release jitter, by part and in total (picoseconds).
fn release_jitter(
    sys: &System,
    x: &JitterInputs,
    i: usize,
    tick_released: &[bool],
) -> (JitterParts, i64) {
    let t = &sys.tasks[i];
    let ov = x.opts.overheads;
    let mut jp = JitterParts {
        file_ns: t.jitter.as_ns_f64(),
        ..Default::default()
    };
    let mut total = t.jitter;
    if tick_released[i] && x.opts.tick_release_delay {
        let extra = tick_release_delay(sys, i);
        total += extra;
        jp.tick_delay_ns = extra.as_ns_f64();
    }
    let relay = sys.kernel.tick_relay.delay;
    if tick_released[i] && relay > Picos::ZERO {
        // A tick broadcast from another core runs here up to `relay` after its
        // nominal instant (rta/tick_relay.rs): the release is noticed that much later.
        total += relay;
        jp.tick_delay_ns += relay.as_ns_f64();
    }
    if ov && !sys.kernel.sleep_states.is_empty() {
        let extra = if t.released_by.is_some() {
            x.sleep.max_wake
        } else if tick_released[i] {
            x.sleep.max_timed
        } else {
            Picos::ZERO
        };
        total += extra;
        jp.tickless_ns = extra.as_ns_f64();
    }
    if let Some(r) = t.released_by {
        let path = releasing_irq_path(sys, r, ov, x.cold, x.l);
        total += path;
        jp.irq_path_ns = path.as_ns_f64();
    }
    // A kernel critical section masks the tick and the interrupts at or below the
    // kernel's level: the release is noticed that much later (docs/resources.md).
    let masked = match t.released_by {
        Some(r) => !sys.interrupts[r].above_kernel,
        None => tick_released[i],
    };
    if masked && x.masking > Picos::ZERO {
        total += x.masking;
        jp.critical_ns = x.masking.as_ns_f64();
    }
    jp.total_ns = total.as_ns_f64();
    (jp, total.0)
}

/// The wait for the tick that notices task `i`'s release, beyond its file jitter.
fn tick_release_delay(sys: &System, i: usize) -> Picos {
    let t = &sys.tasks[i];
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
    Picos((delay - t.jitter).0.max(0))
}

/// From interrupt `r`'s arrival to the end of its handler, which releases the task.
fn releasing_irq_path(sys: &System, r: usize, ov: bool, cold: bool, l: Picos) -> Picos {
    let irq = &sys.interrupts[r];
    match (&sys.kernel.costs, ov) {
        (KernelCosts::Irqpath(c), true) => {
            let entry = sys.platform.irq_entry();
            c.stage(cold).activation_latency(entry) + irq.wcet
        }
        _ => l + irq.wcet,
    }
}

/// [`Prep::irq_path`]: the irqpath model's stage costs beyond `L` (zero elsewhere).
fn irq_path(sys: &System, ov: bool, cold: bool, l: Picos) -> Picos {
    match (&sys.kernel.costs, ov) {
        (KernelCosts::Irqpath(c), true) => {
            let st = c.stage(cold);
            let entry_extra = st.entry.map_or(Picos::ZERO, |e| Picos((e - l).0.max(0)));
            entry_extra + st.prologue + st.send + st.dispatch
        }
        _ => Picos::ZERO,
    }
}

/// Each task's position in `order`.
fn positions(order: &[usize]) -> Vec<usize> {
    let mut pos = vec![0; order.len()];
    for (x, &j) in order.iter().enumerate() {
        pos[j] = x;
    }
    pos
}

/// Per position in `order`: the first position of a lower priority.
fn group_ends(sys: &System, order: &[usize]) -> Vec<usize> {
    let mut group_end = vec![order.len(); order.len()];
    for x in (0..order.len().saturating_sub(1)).rev() {
        let (a, b) = (order[x], order[x + 1]);
        group_end[x] = if sys.tasks[a].priority == sys.tasks[b].priority {
            group_end[x + 1]
        } else {
            x + 1
        };
    }
    group_end
}

/// [`Prep::max_shared_level`].
fn max_shared_level(sys: &System) -> Option<u32> {
    let mut prios: Vec<u32> = sys.tasks.iter().map(|t| t.priority).collect();
    prios.sort_unstable();
    prios
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .max()
}

/// Tasks in descending priority order, ties in file order.
pub(super) fn priority_order(sys: &System) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..sys.tasks.len()).collect();
    idx.sort_by(|&a, &b| {
        sys.tasks[b]
            .priority
            .cmp(&sys.tasks[a].priority)
            .then(a.cmp(&b))
    });
    idx
}
