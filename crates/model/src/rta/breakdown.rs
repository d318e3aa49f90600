//! Where a WCRT goes: execution, tick, switches, interrupts, blocking and jitter.

use super::demand::{Attr, Demand};
use super::mode::ModeCtx;
use super::prep::Prep;
use super::ticks::{ceil_div_fast, ns, ns_wide};
use super::{Breakdown, Interference};

/// Where the WCRT of job `qc` (window `wc`) goes. When that job is the last one examined,
/// `dem` still holds the release counts at `wc` (its last evaluation was there).
#[allow(clippy::too_many_arguments)]
pub(super) fn breakdown(
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
    let mut interference = Interference::new(p.names.clone(), ctx.opts.interference, hp_end);
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
        // The higher-priority tasks' entities, as slices zipped together (one bounds
        // check per slice, not three per task).
        let hp = ctx.nf..ctx.nf + hp_end;
        let (hp_n, hp_work, hp_switch) =
            (&dem.n[hp.clone()], &dem.work[hp.clone()], &dem.switch[hp]);
        // The sums in a loop of their own: inside the selection's iterator they were
        // added through memory, one dependent read-modify-write per task.
        for ((&n, &work), &switch) in hp_n.iter().zip(hp_work).zip(hp_switch) {
            cs_ps += n as i128 * switch as i128;
            work_ps += n as i128 * work as i128;
        }
        // From the lowest priority up (see `Interference::select_from_lowest`).
        let shares = ctx.order[..hp_end]
            .iter()
            .zip(hp_n.iter().zip(hp_work))
            .rev()
            .filter_map(|(&j, (&n, &work))| {
                if work > 0 {
                    Some((j, n.saturating_mul(work)))
                } else {
                    None
                }
            });
        interference.select_from_lowest(shares, hp_end);
        cs_ps += dem.sum_pre;
        let total = dem.sum + dem.sum_tick + dem.sum_first + dem.sum_pre;
        (total - work_ps - cs_ps - irq_ps, cs_ps, irq_ps)
    } else {
        let (mut tick_ps, mut cs_ps, mut irq_ps) = (
            dem.first_charge(wc, ticks),
            dem.pre_charge(wc, ticks),
            0i128,
        );
        let shares = (0..dem.active).rev().filter_map(|k| {
            let (tick, switch, work) = (dem.tick[k], dem.switch[k], dem.work[k]);
            if tick == 0 && switch == 0 && work == 0 {
                return None;
            }
            let (n, nt) = dem.counts(k, wc, ticks);
            tick_ps += nt as i128 * tick as i128;
            cs_ps += n as i128 * switch as i128;
            match dem.attr[k] {
                Attr::Interrupt => irq_ps += n as i128 * work as i128,
                Attr::Task(j) if work > 0 => return Some((j, n.saturating_mul(work))),
                _ => {}
            }
            None
        });
        interference.select_from_lowest(shares, dem.active);
        (tick_ps, cs_ps, irq_ps)
    };
    Breakdown {
        wcet_ns: t.wcet.as_ns_f64(),
        own_previous_jobs_ns: ns(qc as i64 * t.wcet.0),
        window_offset_ns: ns(-(qc as i64) * period),
        interference_others_ns: interference.others_ns(),
        interference,
        tick_ns: ns_wide(tick_ps),
        context_switch_ns: ns((qc as i64 + 1) * own_switch) + ns_wide(cs_ps),
        interrupts_ns: ns_wide(irq_ps),
        blocking_ns: ns(blocking),
        jitter_ns: ns(jit),
    }
}
