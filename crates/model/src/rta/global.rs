//! Global fixed-priority analysis (docs/analysis.md, Multicore (global)): every task is
//! unpinned (`task.core = "any"`) and the `m` highest-priority ready jobs run on the `m`
//! cores. The bound is the response-time test of M. Bertogna and M. Cirinei,
//! "Response-Time Analysis for Globally Scheduled Symmetric Multiprocessor Platforms"
//! (RTSS 2007): a **sufficient** test, so a task it calls unschedulable may still meet
//! its deadlines.
//!
//! For task `k`, in priority order, with `w` the window from its release:
//!
//! ```text
//! w = own_k + (S + ipi) P(w) + floor( sum_{i in hp(k)} min(W_i(w), w - C_k + 1) / m ) + I(w)
//! R_k = J_k + w
//! W_i(L) = N_i(L) E_i + min(E_i, L + R_i - E_i - N_i(L) T_i),
//! N_i(L) = floor((L + R_i - E_i) / T_i)                      (carry-in workload)
//! ```
//!
//! * `min(W_i, w - C_k + 1)` is Bertogna & Cirinei's limited interference: a task
//!   delays `k` only while all `m` cores run higher-priority work, and no single task
//!   can fill more of that than `k`'s time not running.
//! * Kernel overheads enter as the partitioned analysis charges them, per job
//!   (`own_k = C_k + S + ipi + B_k`): each job is dispatched once (`S`, the worst switch
//!   cost, charged in the simulator at every dispatch) and its dispatch on another core
//!   than the one that took the release pays the inter-core interrupt (`ipi = L +
//!   kernel.costs.ipi`). A preempted job is dispatched again when it resumes, possibly
//!   on an idle core that must be interrupted: `k` pays `S + ipi` for each
//!   higher-priority release in its window (`P(w) = sum ceil((w + J_i) / T_i)`, each
//!   release preempts at most one job), and a higher-priority task's jobs execute at
//!   most `E_i = C_i + (S + ipi)(1 + P_i(w_i))` each, which is what its workload
//!   charges.
//! * The tick and the interrupts stop whatever runs on their core: all of their work in
//!   the window on every core is charged in full (`I(w)`; a tick or handler started
//!   before the window counts once more). Time they take while `k` waits would be
//!   divided by `m`, time on `k`'s core while it runs would not; charging all of it
//!   covers both.
//! * `J_k` is the release jitter of the one-core analysis (the file's jitter, the
//!   tick-driven release delay, a masking critical section); the workload bound needs no
//!   jitter term because `R_i` is measured from the arrival, so each job's execution
//!   lies within `[arrival, arrival + R_i]` and arrivals are `T_i` apart.
//! * Equal priorities: the task earlier in the file is treated as the higher one (the
//!   simulator breaks the tie the same way).
//!
//! A task whose bound exceeds its deadline or its period has none for the tasks below
//! it (the carry-in bound needs every higher-priority job done within `R_i <= T_i`).

use super::prep::{prepare, switch_at};
use super::{AnalysisOptions, AnalysisResult, Breakdown, TaskResult};
use crate::overheads::tick::levels_scanned;
use crate::range::AnalysisError;
use crate::system::System;
use latscope_core::Picos;

/// The method named in `analyze` output for a global system.
pub const METHOD: &str = "global-fp (Bertogna & Cirinei 2007), sufficient";

/// The kernel costs the global analysis charges and the global simulator spends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalCosts {
    /// One dispatch: the worst context switch (every priority level scanned), `L`
    /// included where the switch is an interrupt.
    pub switch: Picos,
    /// The inter-core interrupt that makes another core dispatch: `L + kernel.costs.ipi`.
    pub ipi: Picos,
    /// The tick handler on the core that releases tasks (core 0), releasing the most.
    pub tick_release: Picos,
    /// The tick handler on the other cores (no releases).
    pub tick_other: Picos,
    /// Per interrupt (file order): its handler's time, `L` (and the interrupt path)
    /// included.
    pub interrupt: Vec<Picos>,
}

impl GlobalCosts {
    pub fn of(sys: &System, opts: &AnalysisOptions) -> GlobalCosts {
        let p = prepare(sys, opts);
        let switch = sys
            .tasks
            .iter()
            .map(|t| switch_at(sys, opts, p.l, levels_scanned(t.priority, 0)))
            .max()
            .unwrap_or(Picos::ZERO);
        let ipi = if opts.overheads {
            p.l + sys.kernel.ipi
        } else {
            Picos::ZERO
        };
        GlobalCosts {
            switch,
            ipi,
            tick_release: p.tick_pessimistic.max(p.tick_base),
            tick_other: p.tick_base,
            interrupt: sys
                .interrupts
                .iter()
                .map(|x| p.l + p.irq_path + x.wcet)
                .collect(),
        }
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    let b = b.max(1);
    if a <= 0 {
        0
    } else {
        (a + b - 1) / b
    }
}

/// The carry-in workload bound of a task with per-job execution `e`, response `r` (from
/// arrival) and period `t` in a window of length `l`.
pub(crate) fn workload(l: i128, e: i128, r: i128, t: i128) -> i128 {
    let t = t.max(1);
    let x = l + r - e;
    if x < 0 {
        return l.clamp(0, e);
    }
    let n = x / t;
    n * e + e.min(x - n * t).max(0)
}

/// The analysis's time unit (100 ns). Bertogna & Cirinei's test is stated in integer
/// time, where the limited interference `w - C + 1` grows by one unit per step; in
/// picoseconds the fixed point would creep one picosecond at a time. Costs, WCETs and
/// jitters are rounded up to whole units and periods down, so the bound in units is an
/// upper bound on the one in picoseconds (at most a unit per term of pessimism).
pub const UNIT_PS: i64 = 100_000;

fn up(ps: i64) -> i128 {
    ceil_div(ps.max(0) as i128, UNIT_PS as i128)
}
fn down(ps: i64) -> i128 {
    (ps.max(0) as i128 / UNIT_PS as i128).max(1)
}

/// What is known of a higher-priority task once analysed (in units).
struct Done {
    /// Execution bound of one job (`E_i`).
    exec: i128,
    /// Response bound from arrival (`R_i`).
    resp: i128,
    period: i128,
    jitter: i128,
}

/// Where one task's bound comes from (units).
struct Parts {
    w: i128,
    hp: i128,
    switches: i128,
    tick: i128,
    irq: i128,
    resumes: i128,
}

/// Largest window tried before giving up (10^16 units, about 30 years).
const LIMIT: i128 = 10_000_000_000_000_000;

/// What the recurrence needs besides the higher-priority tasks (units).
struct Env {
    m: i128,
    /// One resumption: a switch, and the inter-core interrupt when the core it resumes
    /// on was idle or preempted.
    resume: i128,
    tick: i128,
    /// Tick work of all cores at one tick instant.
    tick_all: i128,
    /// Per interrupt: minimum inter-arrival and handler time.
    irqs: Vec<(i128, i128)>,
    irq_jitter: i128,
}

/// The first window at or after `w` where `d` no longer fills the limited interference
/// `w - c + 1` (`W(w) <= w - c`); `W(w) - w` never increases, so that holds from there
/// on. [`LIMIT`] + 1 when never.
fn exit_point(d: &Done, c: i128, w: i128) -> i128 {
    let free = |x: i128| workload(x, d.exec, d.resp, d.period) <= x - c;
    if free(w) {
        return w;
    }
    if !free(LIMIT) {
        return LIMIT + 1;
    }
    let (mut lo, mut hi) = (w, LIMIT);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if free(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The fixed point for one task (`own`, `c` in units); `None` when it passes `stop`.
fn window(
    own: i128,
    c: i128,
    hp: &[Done],
    env: &Env,
    stop: i128,
    iterations: &mut u64,
) -> Option<Parts> {
    let mut w = own;
    loop {
        *iterations += 1;
        let cap = w - c + 1;
        // With m or more tasks filling the limited interference, f(w) >= w + 1: no
        // fixed point until enough of them stop filling it (each stops for good).
        let binding: Vec<i128> = hp
            .iter()
            .filter(|d| workload(w, d.exec, d.resp, d.period) >= cap)
            .map(|d| exit_point(d, c, w))
            .collect();
        let jump = if binding.len() as i128 >= env.m {
            let mut exits = binding;
            exits.sort_unstable();
            exits[exits.len() - env.m as usize]
        } else {
            w
        };
        let resumes: i128 = hp
            .iter()
            .map(|d| ceil_div(w + d.jitter, d.period))
            .sum::<i128>();
        let hp_sum: i128 = hp
            .iter()
            .map(|d| workload(w, d.exec, d.resp, d.period).min(cap).max(0))
            .sum();
        let hp_part = hp_sum / env.m;
        let tick_part = (ceil_div(w, env.tick) + 1) * env.tick_all;
        let irq_part: i128 = env
            .irqs
            .iter()
            .map(|&(t, e)| (ceil_div(w + env.irq_jitter, t) + 1) * e)
            .sum();
        let next = (own + env.resume * resumes + hp_part + tick_part + irq_part).max(jump);
        if next > stop || next > LIMIT {
            return None;
        }
        if next == w {
            return Some(Parts {
                w,
                hp: hp_part,
                switches: env.resume * resumes,
                tick: tick_part,
                irq: irq_part,
                resumes,
            });
        }
        w = next;
    }
}

/// Analyses a global system (`platform.placement = global`).
pub(super) fn analyze_global(
    sys: &System,
    opts: &AnalysisOptions,
) -> Result<AnalysisResult, AnalysisError> {
    // The one-core analysis of the same tasks gives the result's frame: the release
    // jitters, the totals (utilisations are sums over the tasks), the notes' inputs.
    // Every bound in it is replaced below.
    let frame = AnalysisOptions {
        stop_at_deadline: true,
        stop_bound: None,
        ..opts.clone()
    };
    let mut base = super::analyze_tasks(sys, &frame)?;
    let p = prepare(sys, opts);
    let costs = GlobalCosts::of(sys, opts);
    let m = sys.platform.cores.max(1) as i128;
    let env = Env {
        m,
        resume: up(costs.switch.0) + up(costs.ipi.0),
        tick: down(sys.kernel.tick_period().0),
        tick_all: up(costs.tick_release.0) + (m - 1) * up(costs.tick_other.0),
        irqs: sys
            .interrupts
            .iter()
            .zip(&costs.interrupt)
            .map(|(x, e)| (down(x.min_interarrival.0), up(e.0)))
            .collect(),
        irq_jitter: up(p.irq_jitter.0),
    };
    let blocking_cs = if opts.overheads {
        sys.critical_sections.longest()
    } else {
        sys.critical_sections.application
    };
    let unit_ns = |u: i128| (u * UNIT_PS as i128) as f64 / 1000.0;
    let mut done: Vec<Done> = Vec::new();
    let mut broken: Option<String> = None;
    let mut results: Vec<TaskResult> = Vec::with_capacity(sys.tasks.len());
    for &i in &p.order {
        let t = &sys.tasks[i];
        let Some(mut r) = base.tasks.iter().find(|x| *x.name == *t.name).cloned() else {
            continue;
        };
        r.breakdown = Breakdown::default();
        r.observed_max_ns = None;
        r.wcrt_above_ns = None;
        r.jobs_examined = 1;
        r.critical_job = 0;
        r.iterations = 0;
        let jitter = up(p.jitter_ps[i]);
        let blocking = up(t.blocking.max(blocking_cs).0);
        r.blocking_ns = unit_ns(blocking);
        r.blocking_from = Vec::new();
        let c = up(t.wcet.0);
        let dispatch = up(costs.switch.0) + up(costs.ipi.0);
        let own = c + dispatch + blocking;
        let period = down(t.period().0);
        // The bound must stay within the deadline and the period (in whole units).
        let limit = (t.deadline.0.min(t.period().0) as i128 / UNIT_PS as i128 - jitter).max(0);
        let stop = if opts.stop_at_deadline { limit } else { LIMIT };
        let found = match &broken {
            Some(_) => None,
            None => window(own, c, &done, &env, stop, &mut r.iterations),
        };
        match found {
            Some(x) => {
                let resp = jitter + x.w;
                let wcrt = i64::try_from(resp * UNIT_PS as i128).unwrap_or(i64::MAX);
                r.wcrt_ps = Some(wcrt);
                r.wcrt_ns = Some(wcrt as f64 / 1000.0);
                r.slack_ns = Some((t.deadline.0 as f64 - wcrt as f64) / 1000.0);
                r.schedulable = wcrt <= t.deadline.0;
                r.unbounded_reason = None;
                let b = &mut r.breakdown;
                b.wcet_ns = unit_ns(c);
                b.interference_others_ns = unit_ns(x.hp);
                b.tick_ns = unit_ns(x.tick);
                b.context_switch_ns = unit_ns(x.switches + dispatch);
                b.interrupts_ns = unit_ns(x.irq);
                b.blocking_ns = unit_ns(blocking);
                b.jitter_ns = unit_ns(jitter);
                if resp <= period && r.schedulable {
                    done.push(Done {
                        exec: c + dispatch + env.resume * x.resumes,
                        resp,
                        period,
                        jitter,
                    });
                } else {
                    broken.get_or_insert_with(|| t.name.clone());
                }
            }
            None => {
                r.wcrt_ns = None;
                r.wcrt_ps = None;
                r.slack_ns = None;
                r.schedulable = false;
                r.unbounded_reason = Some(match &broken {
                    Some(n) => format!(
                        "the higher-priority task \"{n}\" has no bound within its deadline \
                         and period, which the global bound needs"
                    ),
                    None => {
                        if opts.stop_at_deadline {
                            r.wcrt_above_ns = Some(unit_ns(jitter + limit));
                        }
                        "the global fixed-priority bound (sufficient) exceeds the deadline \
                         or the period"
                            .into()
                    }
                });
                broken.get_or_insert_with(|| t.name.clone());
            }
        }
        results.push(r);
    }
    base.schedulable = results.iter().all(|t| t.schedulable);
    base.tasks = results.clone();
    base.tick_modes.pessimistic = results.clone();
    base.tick_modes.partitioned = results;
    base.pessimism_reduction = Vec::new();
    // The one-core quick checks say nothing about global scheduling on m cores.
    base.totals.liu_layland_ok = false;
    base.totals.hyperbolic_ok = false;
    base.method = Some(METHOD.into());
    base.notes = vec![format!(
        "global fixed priority on {m} cores: {METHOD}. Each job is charged one dispatch \
         (worst switch) and one inter-core interrupt, a dispatch more per higher-priority \
         release in its window (a resumption), and every core's tick and interrupts in \
         full; a task reported unschedulable may still meet its deadlines"
    )
    .into()];
    let names: Vec<String> = sys.tasks.iter().map(|t| t.name.clone()).collect();
    base.cores = (0..sys.platform.cores)
        .map(|c| super::cores::CoreResult {
            core: c,
            tasks: names.clone(),
            interrupts: sys
                .interrupts
                .iter()
                .filter(|x| x.core == c)
                .map(|x| x.name.clone())
                .collect(),
            utilisation_tasks: base.totals.utilisation_tasks / m as f64,
            utilisation: base.totals.utilisation_total / m as f64,
            schedulable: base.schedulable,
        })
        .collect();
    Ok(base)
}

#[cfg(test)]
mod tests {
    use super::workload;

    /// Bertogna & Cirinei's carry-in workload: a task with C = 2, T = 10, R = 4 in a
    /// window of 13 fits one body job whose carry-in job ends at R; by hand:
    /// N = floor((13 + 4 - 2) / 10) = 1, W = 1 * 2 + min(2, 13 + 4 - 2 - 10) = 4.
    #[test]
    fn carry_in_workload_by_hand() {
        assert_eq!(workload(13, 2, 4, 10), 4);
        // A window shorter than the job: at most the window.
        assert_eq!(workload(1, 2, 2, 10), 1);
        // L = 8: N = floor(10 / 10) = 1, W = 2 + min(2, 0) = 2.
        assert_eq!(workload(8, 2, 4, 10), 2);
        // L = 9: N = 1, W = 2 + min(2, 1) = 3.
        assert_eq!(workload(9, 2, 4, 10), 3);
    }
}
