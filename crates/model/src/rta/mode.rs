//! The interfering entities of one tick mode (tick, tickless wake-up, interrupts, tasks)
//! and what every task's analysis in that mode shares.

use super::demand::{Attr, Demand, Entity};
use super::prep::{switch_at, Prep};
use super::{AnalysisOptions, SwitchCharge};
use crate::system::{KernelCosts, System, TaskSelection, TickMode};
use latscope_core::Picos;

/// What the analysis of the next-higher-priority task tells the next one (see the start
/// value in `analyse_task`).
#[derive(Clone, Copy)]
pub(super) struct Hint {
    pub(super) prio: u32,
    /// `B + C + S` of that task (its q = 0 constant term).
    pub(super) konst: i128,
    /// Its q = 0 fixed point.
    pub(super) w0: i64,
    pub(super) wcet: i64,
}

/// What the analyses of one tick mode share: computed once, not once per task.
pub(super) struct ModeCtx<'a> {
    pub(super) sys: &'a System,
    pub(super) opts: &'a AnalysisOptions,
    pub(super) p: &'a Prep,
    pub(super) partitioned: bool,
    /// One switch into a task from the next level down.
    pub(super) sw1: Picos,
    /// The in + out switches charged to each higher-priority job when they do not depend
    /// on the levels scanned (port-optimised selection, the irq-path kernel, no overheads).
    pub(super) const_switch: Option<i64>,
    pub(super) tick_p: i64,
    pub(super) tick_inv: f64,
    /// Tasks in priority order (descending, ties in file order), and each task's position.
    pub(super) order: &'a [usize],
    pub(super) pos: &'a [usize],
    /// Per position: the first position of a lower priority.
    pub(super) group_end: &'a [usize],
    /// Entities before the tasks': the tick (index 0), the tickless wake-up, interrupts.
    pub(super) nf: usize,
    /// One switch per completion and per preemption ([`SwitchCharge::PerEvent`]).
    pub(super) per_event: bool,
}

/// Index of the tick entity in [`Demand`].
pub(super) const TICK_ENTITY: usize = 0;

impl<'a> ModeCtx<'a> {
    pub(super) fn new(
        sys: &'a System,
        opts: &'a AnalysisOptions,
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
        // A tick broadcast from another core (rta/tick_relay.rs) runs up to `spread` later
        // than a strictly periodic one: with the masking, a window holds at most
        // ceil((masking + spread) / T) ticks more than ceil(w / T), one of which the
        // masking's entity above charges. Each further one is charged once per window as
        // a whole pessimistic tick (its per-release parts escape the once-per-tick cap)
        // with the switches a tick can cause (a release, a time slice).
        let spread = sys.kernel.tick_relay.spread;
        if spread > Picos::ZERO {
            let late = (p.masking + spread).0 as i128;
            let t = (tick_p as i128).max(1);
            let charged = i128::from(p.masking > Picos::ZERO && every_tick.0 > 0);
            let extra = ((late + t - 1) / t - charged).clamp(0, 1 << 20) as i64;
            let slices = 1 + i64::from(ov && sys.kernel.time_slicing);
            let tick = p.tick_pessimistic.0.saturating_mul(extra);
            let switch = sw1.0.saturating_mul(extra).saturating_mul(slices);
            if tick > 0 || switch > 0 {
                dem.push(
                    Entity {
                        period: i64::MAX / 4,
                        jitter: 0,
                        work: 0,
                        switch,
                        tick,
                        first_rel: false,
                        attr: Attr::Tick,
                    },
                    tick_p,
                );
            }
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
            sys,
            opts,
            p,
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
