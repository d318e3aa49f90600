//! The relayed tick of a broadcast tick (`kernel.tick_source = "broadcast"`,
//! docs/analysis.md, Multicore, "One core's tick broadcast"): how late after its nominal
//! instant the tick runs on a core that receives it.
//!
//! The tick core's tick handler raises the inter-core interrupts when it ends (after its
//! sends, the latest point a kernel can signal from it), so a receiving core's tick
//! arrives at `k T + d_k` with `d_k` between the tick handler's shortest run and its
//! worst response on the tick core. A task that tick releases is released up to
//! `d_max` after its nominal release (added to its release jitter by `prep`), and the
//! relayed ticks are not strictly periodic: a window `w` holds at most
//! `ceil((w + d_max - d_min) / T)` of them, charged by `mode` as
//! `ceil((masking + spread) / T)` extra ticks per window (replacing the masking's one).

use super::prep::{prepare, switch_at};
use super::AnalysisOptions;
use crate::overheads::tick::levels_scanned;
use crate::system::{System, TickRelay};
use latscope_core::Picos;

/// The relayed tick on every core that receives the broadcast, from the tick core's view
/// `tick_view` (its tasks and interrupts, inter-core interrupts included, and the sends
/// in its tick cost). `None` when the tick core's tick handler has no response below
/// one tick period (ticks are then lost on the tick core and the relay has no bound).
///
/// `d_max` is the tick handler's worst response from the nominal instant on the tick
/// core, a busy window of the lowest-priority interrupt (SysTick shares the lowest
/// priority with PendSV, which is taken first):
///
/// `d = B + J_irq + C_tick + sum_j ceil((d + J_irq) / T_j) (e_j + S)`
///
/// with `B` the longest critical section, kernel masking or switch already running,
/// `C_tick` the worst tick (all tick-released tasks released, plus the sends), every
/// handler `j` of the core (`e_j = L + irq path + C_j`) each followed by one switch `S`
/// (the PendSV its release may pend ahead of the tick). `d_min` is the tick with no
/// release without its entry latency (a tick cannot end sooner).
pub(crate) fn relay(tick_view: &System, opts: &AnalysisOptions) -> Option<TickRelay> {
    let sys = tick_view;
    let p = prepare(sys, opts);
    let mut sw = switch_at(sys, opts, p.l, 1);
    for t in &sys.tasks {
        sw = sw.max(switch_at(sys, opts, p.l, levels_scanned(t.priority, 0)));
    }
    let block = sys.critical_sections.longest().max(p.masking).max(sw);
    let base = block + p.irq_jitter + p.tick_pessimistic.max(p.tick_base);
    let period = p.tick;
    let mut d = base;
    loop {
        let mut next = base.0 as i128;
        for x in &sys.interrupts {
            let t = x.min_interarrival.0.max(1) as i128;
            let n = (d.0 as i128 + p.irq_jitter.0 as i128 + t - 1) / t;
            next += n * (p.l + p.irq_path + x.wcet + sw).0 as i128;
        }
        if next >= period.0 as i128 {
            return None;
        }
        let next = Picos(next as i64);
        if next == d {
            break;
        }
        d = next;
    }
    let shortest = Picos((p.tick_base - p.l).0.clamp(0, d.0));
    Some(TickRelay {
        delay: d,
        spread: d - shortest,
    })
}
