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
//! the bound is the largest over the candidates `c`. Ticks and blocking keep their
//! offset-free charges (they hold for any window start); so do sporadic interrupts.
//!
//! Interrupts declared strictly periodic ([`IrqPhasing::Periodic`]: every
//! `min_interarrival`, first at `offset`) are phased the same way: handler q's arrivals
//! relative to `a_c` are `O_q - O_c + n gcd(T_q, T_c)`, so its handlers interfere with
//! jitter `J_q - d_qc`; a task released by such an interrupt arrives with it (phase
//! `O_q`, period `T_q`, its jitter covering the handler path) and is phased and may start
//! a window like a tick-released task. The tick's phase is known too (multiples of its
//! period from 0) but is not used: when `c` is released by the tick `d = 0` for it, and
//! the tick count also caps the tick parts charged per task release, so it stays
//! `ceil(w / T_tick)`.
//! Blocking keeps its offset-free charge.
//!
//! Tasks without a phase (sporadic, or released by a sporadic interrupt) can start a
//! window at any moment: when one of them is at or above i's priority the bound is the
//! offset-free one.

use super::{analyse_task, prepare, priority_order, Demand, ModeCtx, TICK_ENTITY};
use crate::range::{self, AnalysisError};
use crate::system::{Arrival, KernelCosts, System, TickMode};
use latscope_core::words::Word;
use serde::{Deserialize, Serialize};

latscope_core::words!(fn method_word = [METHOD]);
latscope_core::words!(fn mode_word = ["pessimistic", "partitioned"]);
latscope_core::words!(fn irq_word = ["sporadic", "periodic", "mixed"]);

fn sporadic_word() -> Word {
    "sporadic"
}

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
    /// How interrupts were treated: "sporadic" (offset-free charges, released tasks
    /// phase-less), "periodic" (phased by their offsets, as tasks) or "mixed" (only those
    /// whose system-file entry says `periodic = true` phased).
    #[serde(default = "sporadic_word", deserialize_with = "irq_word")]
    pub interrupts: Word,
    /// `Z`: the longest busy period of the ticks and interrupts alone (ns).
    pub overhead_busy_ns: Option<f64>,
    /// Why the bound equals the offset-free one, when it does for every task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub tasks: Vec<OffsetBoundTask>,
}

/// How the offset-based bound treats interrupts. The system file gives an interrupt a
/// minimum inter-arrival time and an offset; whether it really is strictly periodic (a
/// timer, a sampling clock) is the user's declaration, not the file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IrqPhasing {
    /// `min_interarrival` is only a minimum: handlers keep their offset-free charge and
    /// the tasks they release have no phase (sound for any arrival pattern).
    #[default]
    Sporadic,
    /// Every interrupt arrives strictly every `min_interarrival`, first at its `offset`
    /// (the simulator's worst mode): its handler and the task it releases are phased
    /// like periodic tasks.
    Periodic,
}

impl IrqPhasing {
    pub fn name(self) -> &'static str {
        match self {
            IrqPhasing::Sporadic => "sporadic",
            IrqPhasing::Periodic => "periodic",
        }
    }
    /// How the interrupts of `sys` were treated: "periodic" when every one is (by this
    /// setting or by its own `periodic` key), "sporadic" when none is, else "mixed".
    pub fn name_for(self, sys: &System) -> &'static str {
        if self == IrqPhasing::Periodic {
            return "periodic";
        }
        let n = sys.interrupts.iter().filter(|x| x.periodic).count();
        match n {
            0 => "sporadic",
            n if n == sys.interrupts.len() => "periodic",
            _ => "mixed",
        }
    }
}

/// Nominal arrivals `offset + n period` (n = 0, 1, ...) on the common time origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Phase {
    offset: i64,
    period: i64,
}

/// An interrupt's phase: only when it is taken as periodic (`phased[q]`: declared in the
/// system file, or all of them with [`IrqPhasing::Periodic`]).
fn irq_phase(sys: &System, q: usize, phased: &[bool]) -> Option<Phase> {
    let x = sys.interrupts.get(q)?;
    (phased.get(q).copied().unwrap_or(false) && x.min_interarrival.0 > 0).then_some(Phase {
        offset: x.offset.0,
        period: x.min_interarrival.0,
    })
}

/// A task's phase: a periodic task the tick releases keeps its own; a task released by a
/// periodic interrupt arrives with the interrupt (its jitter covers the handler path),
/// provided the interrupt's period is at least the task's (the analysis counts its jobs
/// `T_j` apart, so they must not come closer). Anything else has none.
fn task_phase(sys: &System, j: usize, phased: &[bool]) -> Option<Phase> {
    let t = sys.tasks.get(j)?;
    match t.released_by {
        None => matches!(t.arrival, Arrival::Periodic(_)).then_some(Phase {
            offset: t.offset.0,
            period: t.period().0,
        }),
        Some(q) => irq_phase(sys, q, phased).filter(|ph| ph.period >= t.period().0),
    }
}

/// `d = max(0, ((O_j - O_c + J_j + Z) mod g) - J_c - Z)`, `g = gcd(T_j, T_c)`: how much
/// later than `t0 - J_j` the first arrival of `j` that can fall in a window started by
/// `c` comes (docs/analysis.md). Wide arithmetic: no term can overflow.
fn reduction(j: Phase, jj: i64, c: Phase, jc: i64, z: i64) -> i64 {
    let g = latscope_core::arith::gcd(j.period, c.period).max(1) as i128;
    let r = (j.offset as i128 - c.offset as i128 + jj as i128 + z as i128).rem_euclid(g);
    // 0 <= d < g <= i64::MAX.
    (r - jc as i128 - z as i128).max(0) as i64
}

/// The offset-based bound of every task in one tick mode, interrupts sporadic (see the
/// module documentation).
pub fn offset_bound(
    sys: &System,
    opts: &super::AnalysisOptions,
    mode: TickMode,
) -> Result<OffsetBound, AnalysisError> {
    offset_bound_with(sys, opts, mode, IrqPhasing::Sporadic)
}

/// The offset-based bound of every task in one tick mode, with interrupts treated as
/// `irq` says, and those whose system-file entry says `periodic = true` phased in any case
/// (see the module documentation).
///
/// Phasing interrupts adds information, and the result never uses less: where the bound
/// with every interrupt sporadic (sound whatever the arrivals) is lower for a task, that
/// one is reported. (The windows a phased interrupt or its released task adds can make
/// the phased bound a little higher: by 0.01 % for a task of one random test set.)
pub fn offset_bound_with(
    sys: &System,
    opts: &super::AnalysisOptions,
    mode: TickMode,
    irq: IrqPhasing,
) -> Result<OffsetBound, AnalysisError> {
    // The bound's value for every task, also past its deadline: the offset-free results
    // it is compared with are exact too.
    let exact = super::AnalysisOptions {
        stop_at_deadline: false,
        ..opts.clone()
    };
    let opts = &exact;
    let phased: Vec<bool> = sys
        .interrupts
        .iter()
        .map(|x| irq == IrqPhasing::Periodic || x.periodic)
        .collect();
    let mut out = bound_for(sys, opts, mode, &phased)?;
    out.interrupts = irq.name_for(sys);
    if phased.iter().any(|&b| b) {
        let base = bound_for(sys, opts, mode, &vec![false; phased.len()])?;
        for (t, b) in out.tasks.iter_mut().zip(base.tasks) {
            if let (Some(x), Some(y)) = (t.wcrt_ps, b.wcrt_ps) {
                if y < x {
                    *t = b;
                }
            }
        }
    }
    Ok(out)
}

/// [`offset_bound_with`] with interrupt `q` phased when `phased[q]`.
fn bound_for(
    sys: &System,
    opts: &super::AnalysisOptions,
    mode: TickMode,
    phased: &[bool],
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
        interrupts: IrqPhasing::Sporadic.name(),
        overhead_busy_ns: None,
        reason: None,
        tasks: free
            .iter()
            .map(|r| OffsetBoundTask {
                name: r.name.to_string(),
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
    let ph: Vec<Option<Phase>> = (0..sys.tasks.len())
        .map(|j| task_phase(sys, j, phased))
        .collect();
    let irq_ph: Vec<Option<Phase>> = (0..sys.interrupts.len())
        .map(|q| irq_phase(sys, q, phased))
        .collect();
    let mut shifted = vec![0i64; sys.tasks.len()];
    let mut irq_shift = vec![0i64; sys.interrupts.len()];
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
        if !order[..hp_end].iter().all(|&j| ph[j].is_some()) {
            continue;
        }
        let mut best: Option<(i64, usize)> = None;
        let mut unbounded = false;
        for &c in &order[..hp_end] {
            let Some(pc) = ph[c] else { continue };
            let jc = jitter[c];
            let mut any = false;
            for j in 0..sys.tasks.len() {
                let d = ph[j].map_or(0, |pj| reduction(pj, jitter[j], pc, jc, z));
                shifted[j] = jitter[j] - d;
                any |= d > 0;
            }
            for (q, s) in irq_shift.iter_mut().enumerate() {
                *s = irq_ph[q].map_or(0, |pq| reduction(pq, p.irq_jitter.0, pc, jc, z));
                any |= *s > 0;
            }
            let r = if any {
                std::mem::swap(&mut p.jitter_ps, &mut shifted);
                std::mem::swap(&mut p.irq_shift, &mut irq_shift);
                dem.clear();
                let ctx = ModeCtx::new(sys, opts, &p, mode, &mut dem);
                let mut trail = super::fixed_point::Trail::default();
                let res = analyse_task(&ctx, &mut dem, i, None, None, &mut trail);
                std::mem::swap(&mut p.jitter_ps, &mut shifted);
                std::mem::swap(&mut p.irq_shift, &mut irq_shift);
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
            "no task has a phase to use (a sporadic task, or one released by a sporadic \
             interrupt, at or above each task's priority, or no finite offset-free bound)"
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
