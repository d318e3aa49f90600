//! One task's busy-window fixed point (jobs q = 0, 1, ..) in one tick mode.

use super::breakdown::breakdown;
use super::demand::{Demand, Started};
use super::mode::{Hint, ModeCtx, TICK_ENTITY};
use super::prep::switch_at;
use super::ticks::{f64_of, ns};
use super::{Breakdown, TaskResult};
use crate::overheads::tick::levels_scanned;

/// The other tick mode's windows for the same task, lower bounds on this mode's: the
/// analysis runs the partitioned mode first, and where the partitioned demand is at or
/// below the pessimistic one at every window ([`super::prep::Prep::modes_nested`]), each
/// job's partitioned fixed point is at most its pessimistic one (a smaller monotone
/// function has a smaller least fixed point), so the pessimistic iteration may start
/// there. A task the partitioned mode found past its stop bound is past it here too.
#[derive(Clone, Copy)]
pub(super) struct Floor<'a> {
    /// Per job q of the busy window (the first [`TRAIL_JOBS`]), the window reached.
    pub(super) windows: &'a [i64],
    /// The job at which the partitioned response passed the stop bound, if it did.
    pub(super) past_bound: Option<u64>,
}

/// What one task's analysis leaves behind: the start hint for the next task of this
/// mode, and the windows for the other mode ([`Floor`]).
#[derive(Default, Clone)]
pub(super) struct Trail {
    pub(super) hint: Option<Hint>,
    /// The first `len` windows (an array: no allocation per task).
    windows: [i64; TRAIL_JOBS],
    len: usize,
    pub(super) past_bound: Option<u64>,
}

impl Trail {
    /// The windows of the jobs examined (at most [`TRAIL_JOBS`]).
    pub(super) fn windows(&self) -> &[i64] {
        &self.windows[..self.len]
    }

    fn push(&mut self, w: i64) {
        if let Some(slot) = self.windows.get_mut(self.len) {
            *slot = w;
            self.len += 1;
        }
    }
}

/// Jobs of a busy window whose windows a [`Trail`] keeps (memory stays linear in tasks).
const TRAIL_JOBS: usize = 16;

/// The analysed task's own constants.
struct Own {
    prio: u32,
    /// Its own switches per job (in, and out down to the idle task).
    own_switch: i64,
    /// `C_i` plus its own switches.
    c_own: i64,
    period: i64,
    blocking: i64,
    jit: i64,
    wcet: i64,
    /// A response above this stops the iteration ([`super::AnalysisOptions::stop_at_deadline`]).
    stop_above: Option<i64>,
}

/// Analyses one task in one tick mode; `dem` carries the entities from task to task
/// (tasks are analysed in priority order).
pub(super) fn analyse_task(
    ctx: &ModeCtx,
    dem: &mut Demand,
    i: usize,
    hint: Option<Hint>,
    floor: Option<Floor>,
    trail: &mut Trail,
) -> TaskResult {
    trail.hint = None;
    trail.len = 0;
    trail.past_bound = None;
    let me = ctx.pos[i];
    let hp_end = ctx.group_end[me];
    let own = own_constants(ctx, i);
    let mut result = skeleton(ctx, i, own.blocking);
    dem.restore();
    set_charges(ctx, dem, me, hp_end, own.prio);
    let active = ctx.nf
        + if ctx.partitioned {
            ctx.order.len()
        } else {
            hp_end
        };
    // Interference utilisation, the jitter term of the lower bound used as a start, and
    // one release of everything.
    let st = dem.begin(active, ctx.tick_p);
    let util = st.u_int + own.c_own as f64 / own.period as f64;
    if util > 1.0 + 1e-12 {
        result.unbounded_reason = Some(format!(
            "the level-{} utilisation is {util:.4} > 1: the busy window never ends",
            own.prio
        ));
        return result;
    }
    if let (Some(q), Some(limit)) = (floor.and_then(|f| f.past_bound), own.stop_above) {
        // Past the bound in the partitioned mode, so past it here (see `Floor`).
        trail.past_bound = Some(q);
        stopped(&mut result, limit, 0, q);
        return result;
    }
    let floor = floor.map_or(&[][..], |f| f.windows);
    let Some(bw) = busy_window(ctx, dem, &own, &st, hint, floor, trail, &mut result) else {
        return result;
    };
    let t = &ctx.sys.tasks[i];
    let BusyWindow {
        r,
        qc,
        wc,
        last_q,
        iters,
    } = bw;
    result.iterations = iters;
    result.jobs_examined = last_q + 1;
    result.critical_job = qc;
    result.wcrt_ps = Some(r);
    result.wcrt_ns = Some(ns(r));
    result.slack_ns = Some(ns(t.deadline.0 - r));
    result.schedulable = r <= t.deadline.0;
    result.breakdown = breakdown(
        t,
        ctx.p,
        ctx,
        dem,
        hp_end,
        (qc, wc),
        qc == last_q,
        own.own_switch,
        own.blocking,
        own.jit,
    );
    result
}

/// The analysed task's constants: own switches, blocking, jitter and the stop bound.
fn own_constants(ctx: &ModeCtx, i: usize) -> Own {
    let (sys, opts, p) = (ctx.sys, ctx.opts, ctx.p);
    let t = &sys.tasks[i];
    let prio = t.priority;
    // Own switches: in (from a lower level or after a higher task, one list) and out
    // (down to the idle task at priority 0, the worst scan).
    let own_switch = if opts.overheads {
        (ctx.sw1 + switch_at(sys, opts, p.l, levels_scanned(prio, 0))).0
    } else {
        0
    };
    Own {
        prio,
        own_switch,
        c_own: t.wcet.0 + own_switch,
        period: t.period().0,
        blocking: t.blocking.max(p.blocking_cs).0 + p.res_blocking.get(i).copied().unwrap_or(0),
        jit: p.jitter_ps[i],
        wcet: t.wcet.0,
        stop_above: opts.stop_at_deadline.then(|| {
            opts.stop_bound
                .map_or(t.deadline.0, |b| b.0.max(t.deadline.0))
        }),
    }
}

/// The result before the fixed point: the task's constants, no WCRT yet.
fn skeleton(ctx: &ModeCtx, i: usize, blocking: i64) -> TaskResult {
    let t = &ctx.sys.tasks[i];
    TaskResult {
        name: ctx.p.names[i].clone(),
        priority: t.priority,
        wcrt_ns: None,
        deadline_ns: t.deadline.as_ns_f64(),
        period_ns: t.period().as_ns_f64(),
        slack_ns: None,
        schedulable: false,
        unbounded_reason: None,
        wcrt_above_ns: None,
        jobs_examined: 0,
        critical_job: 0,
        iterations: 0,
        wcrt_ps: None,
        jitter: ctx.p.jitter[i].clone(),
        breakdown: Breakdown::default(),
        blocking_ns: ns(blocking),
        blocking_from: ctx.p.res_from.get(i).cloned().unwrap_or_default(),
        observed_max_ns: None,
        observed_at_ns: None,
        observed_job: None,
        bound_ratio: None,
    }
}

/// Marks a result as stopped past its bound `limit` at job `q`.
fn stopped(result: &mut TaskResult, limit: i64, iters: u64, q: u64) {
    let what = if ns(limit) == result.deadline_ns {
        "the deadline"
    } else {
        "the bound asked for"
    };
    result.unbounded_reason = Some(format!(
        "unbounded past D: the response time exceeds {what} ({} ns) at job {q} of the busy \
         window; --exact-unbounded computes it",
        ns(limit)
    ));
    result.wcrt_above_ns = Some(ns(limit));
    result.iterations = iters;
    result.jobs_examined = q + 1;
}

/// Sets the entities' charges for the task at position `me`: tasks of higher or equal
/// priority run their jobs with two switches each (into j from a lower level: one list
/// inspected; out of j down to a task at or above i's level); the others (and i itself)
/// are at most tick pseudo-tasks. Tasks are analysed in priority order, so with switch
/// costs that do not depend on the levels only the positions from the previous task's on
/// can change.
fn set_charges(ctx: &ModeCtx, dem: &mut Demand, me: usize, hp_end: usize, prio: u32) {
    let (sys, opts, p) = (ctx.sys, ctx.opts, ctx.p);
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
    let slice = if opts.overheads && sys.kernel.time_slicing && has_peer {
        ctx.sw1.0
    } else {
        0
    };
    dem.set(TICK_ENTITY, 0, slice);
}

/// The outcome of a busy window: the WCRT `r`, its job `qc` and window `wc`, the last
/// job examined and the iterations spent.
struct BusyWindow {
    r: i64,
    qc: u64,
    wc: i64,
    last_q: u64,
    iters: u64,
}

/// The busy window's jobs q = 0, 1, .. until one completes before the next arrives.
/// `None` when the result is already final (overflow, budget, past the stop bound).
#[allow(clippy::too_many_arguments)]
fn busy_window(
    ctx: &ModeCtx,
    dem: &mut Demand,
    own: &Own,
    st: &Started,
    hint: Option<Hint>,
    floor: &[i64],
    trail: &mut Trail,
    result: &mut TaskResult,
) -> Option<BusyWindow> {
    let mut best: Option<(i64, u64, i64)> = None; // (R, q, w)
    let mut iters: u64 = 0;
    let mut w: i64 = 0;
    let mut q: u64 = 0;
    loop {
        let base = own.blocking as i128 + (q as i128 + 1) * own.c_own as i128;
        w = start(ctx, own, st, hint, floor, q, base, w);
        // The start is not above the least fixed point, so a start already past the stop
        // bound is a response past it at this job: no evaluation of the demand needed.
        let r0 = w as i128 - q as i128 * own.period as i128 + own.jit as i128;
        if let Some(limit) = own.stop_above.filter(|&l| r0 > l as i128) {
            trail.push(w);
            trail.past_bound = Some(q);
            stopped(result, limit, iters, q);
            return None;
        }
        w = fixed_point(ctx, dem, own, st, base, q, w, &mut iters, trail, result)?;
        if q == 0 {
            trail.hint = Some(Hint {
                prio: own.prio,
                konst: base,
                w0: w,
                wcet: own.wcet,
            });
        }
        trail.push(w);
        let r = w - q as i64 * own.period + own.jit;
        if best.is_none_or(|(br, _, _)| r > br) {
            best = Some((r, q, w));
        }
        if let Some(limit) = own.stop_above.filter(|&l| r > l) {
            trail.past_bound = Some(q);
            stopped(result, limit, iters, q);
            return None;
        }
        // Does job q+1 arrive before the window closes?
        if (w as i128) + (own.jit as i128) <= (q as i128 + 1) * own.period as i128 {
            break;
        }
        if q == 0 {
            // The next task starts from this window, not from the later jobs' ones.
            dem.snapshot();
        }
        q += 1;
    }
    let (r, qc, wc) = best.unwrap_or((0, 0, 0));
    Some(BusyWindow {
        r,
        qc,
        wc,
        last_q: q,
        iters,
    })
}

/// Where job q's iteration starts: the previous job's window, raised to lower bounds of
/// the least fixed point (never above it, so the fixed point found is the least one).
#[allow(clippy::too_many_arguments)]
fn start(
    ctx: &ModeCtx,
    own: &Own,
    st: &Started,
    hint: Option<Hint>,
    floor: &[i64],
    q: u64,
    base: i128,
    mut w: i64,
) -> i64 {
    let accelerate = ctx.opts.accelerate;
    if w == 0 {
        w = (base + st.first).min(i64::MAX as i128) as i64;
        // With distinct priorities, task i's entities include every entity of the
        // next-higher task h (same periods, jitters and tick parts; switch costs at
        // least as large) plus h's own jobs, so demand_i(x) >= demand_h(x) + C_h for
        // x > 0. If also base_i + C_h >= base_h, the least fixed point of i is at least
        // h's (a larger monotone function has a larger least fixed point).
        if let Some(h) = hint {
            if accelerate && h.prio > own.prio && base + h.wcet as i128 >= h.konst && h.w0 > w {
                w = h.w0;
            }
        }
    }
    // The other mode's window for this job (see `Floor`).
    if let Some(&f) = floor.get(q as usize) {
        if accelerate && f > w {
            w = f;
        }
    }
    // Start closer to the fixed point: since ceil(x) >= x and a capped tick count is at
    // least w / max(T_e, T_tick), every fixed point satisfies
    // w >= (base + sum (work+switch)_e J_e / T_e) / (1 - U_e), so starting there (less a
    // safety margin for rounding) stays below the least fixed point. The first w with
    // f(w) <= w at or above a start that is not past the least fixed point is that
    // fixed point (Knaster-Tarski), so the result is unchanged; only iterations are saved.
    if st.u_int < 1.0 {
        let lb = (f64_of(base) + st.jitter_work) / (1.0 - st.u_int) * (1.0 - 1e-9) - 1.0;
        if lb.is_finite() && lb > w as f64 && lb < (i64::MAX / 4) as f64 {
            w = lb as i64;
        }
    }
    w
}

/// The least fixed point of `w = base + demand(w)` at or above `w`, from below; `None`
/// when the result is final (overflow, iteration budget, past the stop bound).
#[allow(clippy::too_many_arguments)]
fn fixed_point(
    ctx: &ModeCtx,
    dem: &mut Demand,
    own: &Own,
    st: &Started,
    base: i128,
    q: u64,
    mut w: i64,
    iters: &mut u64,
    trail: &mut Trail,
    result: &mut TaskResult,
) -> Option<i64> {
    let opts = ctx.opts;
    let mut inner = 0u32;
    loop {
        *iters += 1;
        inner += 1;
        let next = base + dem.at(w, ctx.tick_p, ctx.tick_inv);
        if next > i64::MAX as i128 / 2 {
            result.unbounded_reason = Some("the response time overflows".into());
            result.iterations = *iters;
            return None;
        }
        let mut next = next as i64;
        if next <= w {
            return Some(w);
        }
        if opts.accelerate && inner > 2 {
            if let Some(lb) = dem.linear_lower_bound(base, next, ctx.tick_p) {
                next = next.max(lb);
            }
        }
        w = next;
        if *iters >= opts.max_iterations {
            let util = st.u_int + own.c_own as f64 / own.period as f64;
            result.unbounded_reason = Some(format!(
                "no fixed point within {} iterations (utilisation {util:.6})",
                opts.max_iterations
            ));
            result.iterations = *iters;
            return None;
        }
        if let Some(limit) = own
            .stop_above
            .filter(|&l| w - q as i64 * own.period + own.jit > l)
        {
            trail.push(w);
            trail.past_bound = Some(q);
            stopped(result, limit, *iters, q);
            return None;
        }
    }
}
