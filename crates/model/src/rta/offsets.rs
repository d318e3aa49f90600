//! A sound offset-based response-time bound for sets that are not deterministic (release
//! jitter, sporadic interrupts), beside the offset-free bound. The derivation is in
//! `docs/analysis.md` ("Offsets: a sound bound with jitter"); in short:
//!
//! A level-i busy window starts at `t0`; let `c` be the first task of priority at or above
//! i's released in it, at `r_c` in `[a_c, a_c + J_c]` (`a_c` its nominal arrival,
//! `O_c + m T_c`). Before `r_c` only ticks and interrupt handlers run, at most `Z` (the
//! longest busy period of the tick and the interrupts alone), so `t0 - a_c` lies in
//! `[-Z, J_c]`. Task j's nominal arrivals relative to `a_c` are `O_j - O_c + n g` for
//! integers n, `g = gcd(T_j, T_c)` (Tindell, "Using offset information to analyse static
//! priority pre-emptively scheduled task sets", YCS-182, University of York, 1992: the
//! offsets of two tasks fix their releases relative to each other modulo the gcd of their
//! periods). The jobs of j released in `[t0, t0 + w)` arrive in `[t0 - J_j, t0 + w)`;
//! the nearest such arrival is at least `d_jc = max(0, ((O_j - O_c + J_j + Z) mod g) -
//! J_c - Z)` after `t0 - J_j`, so at most `ceil((w + J_j - d_jc) / T_j)` of them are in
//! the window: task j interferes as if its jitter were `J_j - d_jc` (never more than the
//! offset-free `J_j`). Task i's own first job in the window arrives at least `d_ic - J_i`
//! after `t0`, so its jobs are analysed with jitter `J_i - d_ic` too. The usual busy-window
//! analysis with these jitters bounds every response whose busy window starts with `c`;
//! the bound is the largest over the candidates `c`. Ticks, interrupts and blocking keep
//! their offset-free charges (they hold for any window start).
//!
//! Tasks without a phase (sporadic, or released by an interrupt) can start a window at any
//! moment: when one of them is at or above i's priority the bound is the offset-free one.

use super::{analyse_task, prepare, priority_order, Demand, ModeCtx, TICK_ENTITY};
use crate::range::{self, AnalysisError};
use crate::system::{Arrival, KernelCosts, System, TickMode};
use latscope_core::words::Word;
use serde::{Deserialize, Serialize};

latscope_core::words!(fn method_word = [METHOD]);
latscope_core::words!(fn mode_word = ["pessimistic", "partitioned"]);

/// The method named in the result.
const METHOD: &str = "offset-based busy windows (one per first-released task)";

/// One task's offset-based bound.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct OffsetBoundTask {
    pub name: String,
    /// The offset-based bound (ns); null when unbounded.
    pub wcrt_ns: Option<f64>,
    pub wcrt_ps: Option<i64>,
    /// The offset-free bound of the same mode and options (ns), for comparison.
    pub offset_free_ns: Option<f64>,
    /// The task whose release starts the worst busy window found (null when the bound is
    /// the offset-free one for want of phases).
    pub window_start: Option<String>,
}

/// The offset-based bounds of one tick mode, in descending priority order.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct OffsetBound {
    #[serde(deserialize_with = "method_word")]
    pub method: Word,
    #[serde(deserialize_with = "mode_word")]
    pub tick_mode: Word,
    /// `Z`: the longest busy period of the ticks and interrupts alone (ns).
    pub overhead_busy_ns: Option<f64>,
    /// Why the bound equals the offset-free one, when it does for every task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub tasks: Vec<OffsetBoundTask>,
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Whether a task's releases keep a fixed phase (periodic, released by the tick).
fn phased(sys: &System, j: usize) -> bool {
    let t = &sys.tasks[j];
    matches!(t.arrival, Arrival::Periodic(_)) && t.released_by.is_none()
}

/// The offset-based bound of every task in one tick mode (see the module documentation).
pub fn offset_bound(
    sys: &System,
    opts: &super::AnalysisOptions,
    mode: TickMode,
) -> Result<OffsetBound, AnalysisError> {
    // The offset-free results from the file's system (analyze_mode adds the lock costs
    // itself); the windows below from the system with them added, as analyze_mode does.
    let free = super::analyze_mode(sys, opts, mode)?;
    let inflated = crate::resource::blocking::with_lock_costs(sys);
    let sys = inflated.as_ref().unwrap_or(sys);
    range::check(sys, opts)?;
    let order = priority_order(sys);
    let mut out = OffsetBound {
        method: METHOD,
        tick_mode: mode.name(),
        overhead_busy_ns: None,
        reason: None,
        tasks: free
            .iter()
            .map(|r| OffsetBoundTask {
                name: r.name.clone(),
                wcrt_ns: r.wcrt_ns,
                wcrt_ps: r.wcrt_ps,
                offset_free_ns: r.wcrt_ns,
                window_start: None,
            })
            .collect(),
    };
    if matches!(sys.kernel.costs, KernelCosts::Listscan(_)) {
        out.reason = Some("the cooperative list-scan kernel is analysed without offsets".into());
        return Ok(out);
    }
    let mut p = prepare(sys, opts);
    let mut dem = Demand::with_capacity(sys.tasks.len() + sys.interrupts.len() + 2);
    let Some(z) = overhead_busy(sys, opts, &p, &mut dem) else {
        out.reason = Some("the ticks and interrupts alone never leave the CPU idle".into());
        return Ok(out);
    };
    out.overhead_busy_ns = Some(z as f64 / 1000.0);
    let jitter = p.jitter_ps.clone();
    let offset: Vec<i64> = sys.tasks.iter().map(|t| t.offset.0).collect();
    let period: Vec<i64> = sys.tasks.iter().map(|t| t.period().0).collect();
    let ph: Vec<bool> = (0..sys.tasks.len()).map(|j| phased(sys, j)).collect();
    let mut shifted = vec![0i64; sys.tasks.len()];
    for (me, &i) in order.iter().enumerate() {
        let Some(free_ps) = free[me].wcrt_ps else {
            continue;
        };
        // A task exposed to nested inheritance mutexes keeps its chain bound (analysed at
        // a lower priority, docs/resources.md): the windows below assume its own priority.
        if p.nested_inheritance.get(i).copied().flatten().is_some() {
            continue;
        }
        let hp_end = p.group_end[me];
        if !order[..hp_end].iter().all(|&j| ph[j]) {
            continue;
        }
        let mut best: Option<(i64, usize)> = None;
        let mut unbounded = false;
        for &c in &order[..hp_end] {
            let mut any = false;
            for j in 0..sys.tasks.len() {
                shifted[j] = jitter[j];
                if !ph[j] {
                    continue;
                }
                let g = gcd(period[j], period[c]).max(1);
                // (O_j - O_c + J_j + Z) mod g, without overflow (all terms below 2^60).
                let r = (offset[j] as i128 - offset[c] as i128 + jitter[j] as i128 + z as i128)
                    .rem_euclid(g as i128) as i64;
                let d = (r - jitter[c] - z).max(0);
                if d > 0 {
                    shifted[j] = jitter[j] - d;
                    any = true;
                }
            }
            let r = if any {
                std::mem::swap(&mut p.jitter_ps, &mut shifted);
                dem.clear();
                let ctx = ModeCtx::new(sys, opts, &p, mode, &mut dem);
                let mut hint = None;
                let res = analyse_task(sys, opts, &p, &ctx, &mut dem, i, None, &mut hint);
                std::mem::swap(&mut p.jitter_ps, &mut shifted);
                res.wcrt_ps
            } else {
                Some(free_ps)
            };
            match r {
                Some(r) => {
                    if best.is_none_or(|(b, _)| r > b) {
                        best = Some((r, c));
                    }
                }
                None => {
                    unbounded = true;
                    break;
                }
            }
        }
        if unbounded {
            continue;
        }
        if let Some((r, c)) = best {
            // Never above the offset-free bound (each candidate is below it; kept explicit).
            let r = r.min(free_ps);
            let t = &mut out.tasks[me];
            t.wcrt_ps = Some(r);
            t.wcrt_ns = Some(r as f64 / 1000.0);
            t.window_start = Some(sys.tasks[c].name.clone());
        }
    }
    if out.tasks.iter().all(|t| t.window_start.is_none()) {
        out.reason = Some(
            "no task has a phase to use (a sporadic or interrupt-released task at or above \
             each task's priority, or no finite offset-free bound)"
                .into(),
        );
    }
    Ok(out)
}

/// `Z`: the least fixed point of `z = ticks(z) + interrupts(z)` from one picosecond,
/// with the pessimistic tick (at least the partitioned one) and the time-slicing switch.
fn overhead_busy(
    sys: &System,
    opts: &super::AnalysisOptions,
    p: &super::Prep,
    dem: &mut Demand,
) -> Option<i64> {
    dem.clear();
    let ctx = ModeCtx::new(sys, opts, p, TickMode::Pessimistic, dem);
    if opts.overheads && sys.kernel.time_slicing {
        dem.set(TICK_ENTITY, 0, ctx.sw1.0);
    }
    dem.begin(ctx.nf, ctx.tick_p);
    let mut w: i64 = 1;
    for _ in 0..opts.max_iterations.max(1) {
        let next = dem.at(w, ctx.tick_p, ctx.tick_inv);
        if next > (i64::MAX / 4) as i128 {
            return None;
        }
        let next = (next as i64).max(1);
        if next <= w {
            return Some(w);
        }
        w = next;
    }
    None
}
