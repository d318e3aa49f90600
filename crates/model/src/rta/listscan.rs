//! Response times under the cooperative list-scan kernel (non-preemptive).

use super::prep::Prep;
use super::ticks::ns;
use super::{AnalysisOptions, Breakdown, Interference, TaskResult};
use crate::system::System;
use latscope_core::Picos;

/// `w = base + sum_x ceil(w / T_x) (C_x + L)` over the interrupts, from below; `None`
/// when it does not converge within the budget.
pub(super) fn with_interrupts(
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
pub(super) fn analyse_listscan_task(
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
        name: p.names[i].clone(),
        priority: t.priority,
        wcrt_ns: None,
        deadline_ns: t.deadline.as_ns_f64(),
        period_ns: t.period().as_ns_f64(),
        slack_ns: None,
        schedulable: false,
        unbounded_reason: None,
        wcrt_above_ns: None,
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
            let mut v = Interference::new(p.names.clone(), opts.interference, hep.len());
            for &j in &hep {
                v.push(j, sys.tasks[j].wcet.as_ns_f64());
            }
            v
        },
        interference_others_ns: 0.0,
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
