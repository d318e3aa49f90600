//! The analysis entry points: one tick mode, and both with the totals and notes.

use super::demand::Demand;
use super::fixed_point::{analyse_task, Floor, Trail};
use super::listscan::analyse_listscan_task;
use super::mode::ModeCtx;
use super::nesting::nested_bound;
use super::prep::{prepare, switch_at, Prep};
use super::ticks::ns;
use super::{
    AnalysisOptions, AnalysisResult, Reduction, SwitchCharge, TaskResult, TickModes, Totals,
};
use crate::overheads::tick::levels_scanned;
use crate::range::{self, AnalysisError};
use crate::system::{KernelCosts, System, TickMode};
use latscope_core::Picos;

/// Response times of every task in one tick mode, in descending priority order. An
/// input past the analysis range is an error naming where it is ([`crate::range`]).
pub fn analyze_mode(
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
) -> Result<Vec<TaskResult>, AnalysisError> {
    let inflated = crate::resource::blocking::with_lock_costs(sys);
    let sys = inflated.as_ref().unwrap_or(sys);
    range::check(sys, opts)?;
    let mut dem = Demand::with_capacity(sys.tasks.len() + sys.interrupts.len() + 2);
    let p = prepare(sys, opts);
    let mut trails = Vec::new();
    Ok(analyze_mode_with(
        sys,
        opts,
        &p,
        mode,
        &mut dem,
        None,
        &mut trails,
    ))
}

/// One tick mode's results with the nested-inheritance bounds in place; `floors` and
/// `trails` as in [`analyze_mode_bounds`].
pub(super) fn analyze_mode_with(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    mode: TickMode,
    dem: &mut Demand,
    floors: Option<&[Trail]>,
    trails: &mut Vec<Trail>,
) -> Vec<TaskResult> {
    let mut out = analyze_mode_bounds(sys, opts, p, mode, dem, floors, trails);
    for (r, &i) in out.iter_mut().zip(&p.order) {
        match p.nested_inheritance.get(i).copied().flatten() {
            Some(why) if why == crate::resource::blocking::NESTED_INHERITANCE => {
                *r = nested_bound(sys, opts, mode, i, r);
            }
            Some(why) => {
                r.wcrt_ns = None;
                r.wcrt_ps = None;
                r.slack_ns = None;
                r.schedulable = false;
                r.unbounded_reason = Some(why.into());
            }
            None => {}
        }
    }
    out
}

/// One tick mode's fixed points, in priority order. `floors`: the other mode's trails
/// per position, lower bounds for this mode ([`Floor`]); `trails` receives this mode's.
pub(super) fn analyze_mode_bounds(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    mode: TickMode,
    dem: &mut Demand,
    floors: Option<&[Trail]>,
    trails: &mut Vec<Trail>,
) -> Vec<TaskResult> {
    trails.clear();
    if let KernelCosts::Listscan(c) = &sys.kernel.costs {
        // Cooperative: both tick modes charge the scheduler run the same way.
        return p
            .order
            .iter()
            .map(|&i| analyse_listscan_task(sys, opts, p, c, i))
            .collect();
    }
    let mut prios: Vec<u32> = sys.tasks.iter().map(|t| t.priority).collect();
    prios.sort_unstable();
    let distinct = prios.windows(2).all(|w| w[0] != w[1]);
    dem.clear();
    let ctx = ModeCtx::new(sys, opts, p, mode, dem);
    trails.resize(ctx.order.len(), Trail::default());
    let mut out = Vec::with_capacity(ctx.order.len());
    for (x, &i) in ctx.order.iter().enumerate() {
        let hint = x
            .checked_sub(1)
            .and_then(|h| trails[h].hint)
            .filter(|_| distinct);
        let floor = floors.and_then(|f| f.get(x)).map(|f| Floor {
            windows: f.windows(),
            past_bound: f.past_bound,
        });
        out.push(analyse_task(&ctx, dem, i, hint, floor, &mut trails[x]));
    }
    out
}
/// Analyses the system in both tick modes; `tasks` holds the mode chosen by the options
/// (or the file). An input past the analysis range is an error naming where it is
/// ([`crate::range`]); the analysis itself never overflows or panics.
///
/// With `[[chain]]` tables, a task released by another task's completion gets that
/// task's worst response as release jitter, iterated to a fixed point (holistic
/// analysis, [`crate::chain::analysis`]), and `chains` holds each chain's bound.
pub fn analyze(sys: &System, opts: &AnalysisOptions) -> Result<AnalysisResult, AnalysisError> {
    if sys.platform.placement == crate::system::Placement::Global {
        // Unpinned tasks: global fixed priority (docs/analysis.md, Multicore (global)).
        return super::global::analyze_global(sys, opts);
    }
    if sys.platform.cores > 1 {
        // Partitioned multicore: each core on its own (docs/analysis.md, Multicore).
        return super::cores::analyze_cores(sys, opts);
    }
    if sys.chains.is_empty() {
        return analyze_tasks(sys, opts);
    }
    crate::chain::analysis::analyze_with_chains(sys, opts)
}

/// [`analyze`] without the chains: every task with the release jitter its system gives.
pub(crate) fn analyze_tasks(
    sys: &System,
    opts: &AnalysisOptions,
) -> Result<AnalysisResult, AnalysisError> {
    let inflated = crate::resource::blocking::with_lock_costs(sys);
    let sys = inflated.as_ref().unwrap_or(sys);
    range::check(sys, opts)?;
    let mode = opts.tick_mode.unwrap_or(sys.kernel.tick_mode);
    let p = prepare(sys, opts);
    let mut dem = Demand::with_capacity(sys.tasks.len() + sys.interrupts.len() + 2);
    // Without a per-release tick cost the two modes charge the same entities (the
    // partitioned base equals the pessimistic tick): compute once. Otherwise the
    // partitioned mode first, its windows a start for the pessimistic one (`Floor`).
    let listscan = matches!(sys.kernel.costs, KernelCosts::Listscan(_));
    let (mut part_trails, mut pess_trails) = (Vec::new(), Vec::new());
    let (pess, part) =
        if listscan || (p.tick_per_release == Picos::ZERO && p.tick_pessimistic == p.tick_base) {
            let pess = analyze_mode_with(
                sys,
                opts,
                &p,
                TickMode::Pessimistic,
                &mut dem,
                None,
                &mut pess_trails,
            );
            (pess.clone(), pess)
        } else {
            let part = analyze_mode_with(
                sys,
                opts,
                &p,
                TickMode::Partitioned,
                &mut dem,
                None,
                &mut part_trails,
            );
            let floors = p.modes_nested.then_some(&part_trails[..]);
            let pess = analyze_mode_with(
                sys,
                opts,
                &p,
                TickMode::Pessimistic,
                &mut dem,
                floors,
                &mut pess_trails,
            );
            (pess, part)
        };

    let pessimism_reduction = reductions(&p, &pess, &part);
    let totals = totals(sys, opts, &p, mode);
    let notes = notes(sys, opts, &p, listscan);

    let tasks = match mode {
        TickMode::Pessimistic => pess.clone(),
        TickMode::Partitioned => part.clone(),
    };
    Ok(AnalysisResult {
        kind: "analyze",
        schema_version: 1,
        source: sys.source.clone(),
        model: sys.kernel.model().name(),
        tick_mode: mode.name(),
        overheads: opts.overheads,
        tick_release_delay: opts.tick_release_delay,
        schedulable: tasks.iter().all(|t| t.schedulable),
        tasks,
        tick_modes: TickModes {
            pessimistic: pess,
            partitioned: part,
        },
        pessimism_reduction,
        totals,
        notes,
        cores: Vec::new(),
        chains: Vec::new(),
        method: None,
    })
}

/// Least common multiple of the periods, `None` past `i64::MAX` picoseconds.
pub fn hyperperiod(sys: &System) -> Option<Picos> {
    latscope_core::arith::lcm_all(sys.tasks.iter().map(|t| t.period().0.max(0) as u64)).map(Picos)
}

/// Per task (priority order): pessimistic WCRT minus partitioned WCRT.
fn reductions(p: &Prep, pess: &[TaskResult], part: &[TaskResult]) -> Vec<Reduction> {
    pess.iter()
        .zip(part)
        .enumerate()
        .map(|(k, (a, b))| {
            let red = match (a.wcrt_ps, b.wcrt_ps) {
                (Some(x), Some(y)) => Some(x - y),
                _ => None,
            };
            Reduction {
                name: p.names[p.order[k]].clone(),
                pessimistic_ns: a.wcrt_ns,
                partitioned_ns: b.wcrt_ns,
                reduction_ns: red.map(ns),
                reduction_pct: match (red, a.wcrt_ps) {
                    (Some(r), Some(x)) if x > 0 => Some(100.0 * r as f64 / x as f64),
                    _ => None,
                },
            }
        })
        .collect()
}

/// Whole-system utilisations and quick checks in the reported tick `mode`.
fn totals(sys: &System, opts: &AnalysisOptions, p: &Prep, mode: TickMode) -> Totals {
    let u = |c: Picos, t: Picos| c.0 as f64 / t.0 as f64;
    let n = sys.tasks.len();
    let ut: Vec<f64> = sys.tasks.iter().map(|t| u(t.wcet, t.period())).collect();
    let utilisation_tasks: f64 = ut.iter().sum();
    let utilisation_interrupts: f64 = sys
        .interrupts
        .iter()
        .map(|x| u(x.wcet + p.l + p.irq_path, x.min_interarrival))
        .sum::<f64>()
        + 0.0; // an empty f64 sum is -0.0
    let utilisation_tick_pessimistic = u(p.tick_pessimistic, p.tick);
    let utilisation_tick_partitioned = u(p.tick_base, p.tick)
        + sys
            .tasks
            .iter()
            .enumerate()
            .filter(|(i, _)| p.tick_released[*i])
            .map(|(_, t)| u(p.tick_per_release, t.period()))
            .sum::<f64>()
        + p.tick_first_excess.0 as f64
            * sys
                .tasks
                .iter()
                .enumerate()
                .filter(|(i, _)| p.tick_released[*i])
                .map(|(_, t)| 1.0 / t.period().0 as f64)
                .sum::<f64>()
                .min(1.0 / p.tick.0 as f64);
    let sw1 = switch_at(sys, opts, p.l, 1);
    let utilisation_context_switch: f64 = sys
        .tasks
        .iter()
        .map(|t| {
            u(
                sw1 + switch_at(sys, opts, p.l, levels_scanned(t.priority, 0)),
                t.period(),
            )
        })
        .sum();
    let any_peer = p.max_shared_level.is_some();
    let utilisation_time_slicing = if opts.overheads && sys.kernel.time_slicing && any_peer {
        u(sw1, p.tick)
    } else {
        0.0
    };
    let tick_u = match mode {
        TickMode::Pessimistic => utilisation_tick_pessimistic,
        TickMode::Partitioned => utilisation_tick_partitioned,
    };
    let liu_layland_bound = n as f64 * (2f64.powf(1.0 / n as f64) - 1.0);
    let hyperbolic_product: f64 = ut.iter().map(|x| x + 1.0).product();
    Totals {
        tasks: n,
        interrupts: sys.interrupts.len(),
        utilisation_tasks,
        utilisation_interrupts,
        utilisation_tick_pessimistic,
        utilisation_tick_partitioned,
        utilisation_context_switch,
        utilisation_time_slicing,
        utilisation_total: utilisation_tasks
            + utilisation_interrupts
            + tick_u
            + utilisation_context_switch
            + utilisation_time_slicing,
        liu_layland_bound,
        liu_layland_ok: utilisation_tasks <= liu_layland_bound,
        hyperbolic_product,
        hyperbolic_ok: hyperbolic_product <= 2.0,
        hyperperiod_ns: hyperperiod(sys).map(|h| h.as_ns_f64()),
        tick_period_ns: p.tick.as_ns_f64(),
        irq_entry_ns: p.l.as_ns_f64(),
    }
}

/// The assumptions that shaped the numbers, for `notes`.
fn notes(
    sys: &System,
    opts: &AnalysisOptions,
    p: &Prep,
    listscan: bool,
) -> Vec<std::borrow::Cow<'static, str>> {
    let mut notes: Vec<std::borrow::Cow<'static, str>> =
        vec!["equal priorities interfere with each other (treated as higher priority)".into()];
    if opts.tick_release_delay && p.jitter.iter().any(|j| j.tick_delay_ns > 0.0) {
        notes.push(
            "tick-released tasks get a tick-driven release delay (the release is noticed \
             at the next tick): one tick period on top of the jitter when the period or \
             offset is not a whole number of ticks, else the jitter rounded up to whole ticks"
                .into(),
        );
    }
    if listscan {
        notes.push(
            "list-scan kernel: cooperative, analysed as non-preemptive fixed priority; a \
             thread due at a tick waits for the whole batch queued by the previous scheduler \
             run when one scheduler run plus every thread's job exceeds a tick"
                .into(),
        );
    }
    if opts.overheads && opts.switch_charge == SwitchCharge::PerJob {
        notes.push(
            "each job is charged two context switches (in, and out down to the idle task \
             for its own job or to the analysed task's level for higher-priority jobs)"
                .into(),
        );
    } else if opts.overheads {
        notes.push(
            "context switches as a PendSV-style kernel does them: one per completion (out of \
             the finished job, down to the analysed task's level) and one per preemption (at \
             most one per tick that releases a higher-priority task, one per interrupt that \
             releases one); the task's own job is charged its switch in and its switch out \
             down to the idle task"
                .into(),
        );
    } else {
        notes.push("kernel overheads are not charged (--no-overheads)".into());
    }
    for i in 0..sys.tasks.len() {
        if p.nested_inheritance[i] == Some(crate::resource::blocking::NESTED_INHERITANCE) {
            if let Some(f) = crate::resource::nested::analysis_priority(sys, i) {
                notes.push(crate::resource::nested::note(sys, i, f).into());
            }
        }
    }
    {
        let why = crate::resource::blocking::INHERITANCE_DEADLOCK;
        let detail = "some task takes mutex B inside A while another takes A inside B (or a \
                      longer cycle), so the tasks that take inheritance mutexes can wait forever";
        let exposed: Vec<&str> = (0..sys.tasks.len())
            .filter(|&i| p.nested_inheritance[i] == Some(why))
            .map(|i| sys.tasks[i].name.as_str())
            .collect();
        if !exposed.is_empty() {
            notes.push(
                format!(
                    "warning: {}: {why}: {detail}; no sound bound is given (check by \
                     simulation, or use ceiling resources for nested locking; \
                     docs/resources.md)",
                    exposed.join(", "),
                )
                .into(),
            );
        }
    }
    notes
}
