//! The analysis' arithmetic range, checked before any fixed-point iteration.
//!
//! The analysis works in 64-bit picoseconds (`i64`, about ±106 days). Rather than
//! relying on a build profile's overflow checks (a library user, or a Python binding,
//! builds with its own profile and would get wrapped numbers), every input the busy
//! window adds up is checked here with exact (128-bit) arithmetic against
//! [`LIMIT_PS`] = 2^58 ps (about 3.3 days): each cost, period, deadline, offset,
//! jitter and blocking term on its own, and one job of every task and interrupt plus one
//! tick together. Within that range the busy-window iteration cannot overflow: it stops
//! (as "unbounded") once a window passes `i64::MAX / 2`, and every product it forms is
//! taken in 128 bits or is bounded by the window. A value outside the range is an
//! [`AnalysisError`] naming the task, interrupt or kernel table it comes from.

use crate::overheads::tick::levels_scanned;
use crate::rta::{switch_at, AnalysisOptions};
use crate::system::{KernelCosts, System};
use latscope_core::time::human;
use latscope_core::Picos;

/// The largest single term or one-release total the analysis accepts (2^58 ps).
pub const LIMIT_PS: i128 = 1 << 58;

/// Why the analysis refused to run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// A term, or the one-release total, is past [`LIMIT_PS`].
    #[error(
        "{place}: {what} is {value}, which overflows the analysis range ({limit}; \
         times are 64-bit picoseconds with headroom for the busy window)"
    )]
    OutOfRange {
        /// `task "B"`, `interrupt "uart"`, `kernel.costs`, `platform`, `the system`.
        place: String,
        what: String,
        value: String,
        limit: String,
    },
}

/// `ps` if within the range, else the error naming `place` (a closure: the text is made
/// only for the error). Inline with the error out of line: the check runs for every
/// term of every task on each analysis.
#[inline]
fn within(place: impl Fn() -> String, what: &str, ps: i128) -> Result<i128, AnalysisError> {
    if ps.abs() < LIMIT_PS {
        Ok(ps)
    } else {
        Err(out_of_range(place(), what, ps))
    }
}

#[cold]
#[inline(never)]
fn out_of_range(place: String, what: &str, ps: i128) -> AnalysisError {
    AnalysisError::OutOfRange {
        place,
        what: what.to_string(),
        value: human::ps(ps),
        limit: human::ps(LIMIT_PS),
    }
}

/// Checks every term the analysis of `sys` adds up (see the module documentation).
pub fn check(sys: &System, opts: &AnalysisOptions) -> Result<(), AnalysisError> {
    let ov = opts.overheads;
    let plat = || "platform".to_string();
    let kc = || "kernel.costs".to_string();
    let l = if ov {
        within(
            plat,
            "the interrupt entry latency",
            sys.platform.irq_entry().0 as i128,
        )?
    } else {
        0
    };
    let n = sys.tasks.len() as u32;
    // The tick with every task released, and its parts (costs saturate at i64::MAX,
    // which is past the limit, so a saturated cost is caught here too).
    let tick = if ov {
        match &sys.kernel.costs {
            KernelCosts::Tick(c) => {
                within(kc, "tick_base", c.tick_base.0 as i128)?;
                within(kc, "tick_per_release", c.tick_per_release.0 as i128)?;
                within(
                    kc,
                    &format!("the tick with all {n} tasks released"),
                    l + c.tick_cost(n).0 as i128,
                )?
            }
            KernelCosts::Listscan(c) => within(
                kc,
                &format!("the scheduler run inserting all {n} threads"),
                l + c.worst_scheduler_run(n, n).0 as i128,
            )?,
            KernelCosts::Irqpath(c) => within(kc, "tick", l + c.tick.0 as i128)?,
        }
    } else {
        0
    };
    let mut wake: i128 = 0;
    for s in &sys.kernel.sleep_states {
        let sum: i128 = s.parts.iter().map(|(_, p)| p.0 as i128).sum();
        wake = wake.max(within(
            || format!("kernel.sleep_state \"{}\"", s.name),
            "the wake-up latency",
            sum,
        )?);
    }
    let cs = &sys.critical_sections;
    let csx = || "critical_sections".to_string();
    within(csx, "kernel", cs.kernel.0 as i128)?;
    within(csx, "application", cs.application.0 as i128)?;
    let cold = sys.platform.cache.assume == crate::system::CacheState::Cold;
    let path: i128 = match (&sys.kernel.costs, ov) {
        (KernelCosts::Irqpath(c), true) => {
            let st = c.stage(cold);
            [
                st.entry.map_or(0, |e| e.0 as i128),
                st.prologue.0 as i128,
                st.send.0 as i128,
                st.dispatch.0 as i128,
            ]
            .iter()
            .sum()
        }
        _ => 0,
    };
    // Each task's own job and switches first, so that an error names the task.
    for t in &sys.tasks {
        let own = switch_at(sys, opts, Picos(l as i64), 1).0 as i128
            + switch_at(sys, opts, Picos(l as i64), levels_scanned(t.priority, 0)).0 as i128;
        within(
            || format!("task \"{}\"", t.name),
            "one job with its switches in and out (down to the idle task)",
            t.wcet.0 as i128 + own,
        )?;
    }
    // The dearest switch: scanning from the highest priority down to the idle task.
    let max_prio = sys.tasks.iter().map(|t| t.priority).max().unwrap_or(0);
    let worst_sw = within(
        kc,
        &format!(
            "a context switch scanning {} priority levels",
            max_prio.max(1)
        ),
        switch_at(sys, opts, Picos(l as i64), max_prio.max(1)).0 as i128,
    )?;
    let mut total: i128 = tick + wake + cs.kernel.0.max(cs.application.0) as i128;
    for t in &sys.tasks {
        let place = || format!("task \"{}\"", t.name);
        within(place, "the period", t.period().0 as i128)?;
        within(place, "the deadline", t.deadline.0 as i128)?;
        within(place, "the offset", t.offset.0 as i128)?;
        within(place, "the release jitter", t.jitter.0 as i128)?;
        within(place, "the blocking", t.blocking.0 as i128)?;
        total += within(
            place,
            "one job with its two worst context switches",
            t.wcet.0 as i128 + 2 * worst_sw,
        )?;
    }
    for x in &sys.interrupts {
        let place = || format!("interrupt \"{}\"", x.name);
        within(
            place,
            "the minimum inter-arrival time",
            x.min_interarrival.0 as i128,
        )?;
        within(place, "the offset", x.offset.0 as i128)?;
        total += within(
            place,
            "one handler run with its entry and kernel path",
            x.wcet.0 as i128 + l + path,
        )?;
    }
    within(
        || "the system".to_string(),
        "one job of every task and interrupt, one tick and the longest blocking",
        total,
    )?;
    Ok(())
}
