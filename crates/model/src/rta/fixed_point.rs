//! One task's busy-window fixed point (jobs q = 0, 1, ..) in one tick mode.

use super::breakdown::breakdown;
use super::demand::{Demand, Started};
use super::mode::{Hint, ModeCtx, TICK_ENTITY};
use super::prep::{switch_at, Prep};
use super::ticks::ns;
use super::{AnalysisOptions, Breakdown, TaskResult};
use crate::overheads::tick::levels_scanned;
use crate::system::System;

/// Analyses one task in one tick mode; `dem` carries the entities from task to task
/// (tasks are analysed in priority order).
#[allow(clippy::too_many_arguments)]
pub(super) fn analyse_task(
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
