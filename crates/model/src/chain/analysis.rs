//! End-to-end bounds of chains.
//!
//! **Event links** follow the holistic analysis of K. Tindell and J. Clark,
//! "Holistic schedulability analysis for distributed hard real-time systems",
//! Microprocessing and Microprogramming 40, 1994: a task released by its predecessor's
//! completion inherits the predecessor's period and gets its worst response time as
//! release jitter. Because that jitter raises the interference the successor causes to
//! lower-priority tasks (and so perhaps the predecessor's own response), the whole
//! analysis is repeated until no jitter changes. Every response is then measured from
//! the nominal release of the segment's first step, so the last step's worst response
//! is the segment's bound.
//!
//! **Sampled links** follow M. Di Natale, A. Davare et al., "Period optimization for
//! hard real-time distributed automotive systems", DAC 2007 (Davare, Zhu, Di Natale,
//! Pinello, Kanajan, Sangiovanni-Vincentelli): a reader that samples the latest value on
//! its own period adds at most its period (waiting for its next release) plus its
//! response. The chain is cut into segments at its sampled links; with `T_s` the period
//! of segment `s`'s first step and `R_s` the worst response of its last step from that
//! first step's release:
//!
//! ```text
//! reaction <= [T_0] + R_0 + sum_{s >= 1} (T_s + R_s)
//! age      <= sum_{s < last} (T_s + R_s) + R_last
//! ```
//!
//! `T_0` is counted when the first step is released by the tick (the stimulus arrives
//! just after its read and waits for the next release); a chain that starts at an
//! interrupt, or at a task an interrupt releases, starts at the event itself. The age
//! runs from the first step's release (its read) to the completion of the last job of
//! the last step that still works on that read: segment `s`'s value is overwritten at
//! most `T_s + R_s` after the release that wrote it. A writer whose releases are only
//! sporadic (an interrupt not declared `periodic`) may keep a value for ever: no age
//! bound. The tighter bounds of Dürr, von der Brüggen, Chen and Chen (2019) assume a
//! reader copies its input when it starts (implicit communication); they are used only
//! for a chain with `read = "start"` ([`super::sampled`]). By default a sampled link
//! reads at the reader's release, where a lower-priority reader released inside its
//! writer's response still reads the old value
//! (`crates/sim/tests/it/chains_sampled_reads.rs` works a case above their figure). Tasks
//! on EDF cores take Spuri's bounds instead of the responses here ([`super::edf`]).
//! Definitions and tightness: docs/analysis.md.

use super::error::StepUnbounded;
use super::{sampled, Chain, Link, ReadAt, Step};
use crate::range::AnalysisError;
use crate::rta::{analyze_tasks, AnalysisOptions, AnalysisResult, TaskResult};
use crate::system::{KernelCosts, System};
use latscope_core::Picos;
use serde::{Deserialize, Serialize};

/// The most rounds of the holistic fixed point before giving up.
const MAX_ROUNDS: usize = 1000;

/// One chain's bound, as `analyze --json` writes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ChainResult {
    pub name: String,
    /// `event` (every link an event link) or `sampled` (at least one sampled link).
    pub kind: String,
    pub steps: Vec<String>,
    pub links: Vec<String>,
    /// Event chain: worst time from the first step's release to the last step's
    /// completion (null when unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_ns: Option<f64>,
    /// Sampled chain: maximum reaction time (null when unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_ns: Option<f64>,
    /// Sampled chain: maximum data age (null when unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_ns: Option<f64>,
    /// Exact value of `bound_ns` or `reaction_ns` in picoseconds.
    pub bound_ps: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_ps: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ns: Option<f64>,
    /// Bound (reaction time for a sampled chain) within the deadline; null without one.
    pub meets_deadline: Option<bool>,
    /// Each step's contribution to the bound (reaction time); they add up to it.
    pub composition: Vec<ChainPart>,
    /// Why there is no bound (or no age bound), if so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbounded_reason: Option<String>,
    /// `start` when the chain's sampled readers read when they first run (`read =
    /// "start"`); absent for reads at release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<String>,
    /// Reads at start: the sampled links that take Dürr et al.'s terms (their index in
    /// `links`); the others keep Davare et al.'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duerr_links: Option<Vec<usize>>,
    /// Reads at start: Davare et al.'s reaction time, which `reaction_ns` (Dürr et
    /// al.'s where a link allows) never exceeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub davare_reaction_ns: Option<f64>,
    /// Reads at start: Davare et al.'s data age, which `age_ns` never exceeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub davare_age_ns: Option<f64>,
}

/// The writer's composition part on a link bounded by Dürr et al.'s terms: what its
/// response exceeds the reader's period by.
pub const DUERR_WRITER_PART: &str = "response beyond the reader's period";

/// One term of a chain's bound.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ChainPart {
    pub step: String,
    /// `period`: waiting for the step's next release (a sampled read, or the first
    /// step's read of the stimulus); `response`: the step's worst response beyond its
    /// predecessor's (the first step's: from its release); on a link that takes Dürr
    /// et al.'s terms (`read = "start"`), the writer's part is
    /// [`DUERR_WRITER_PART`]: `max(R_w - T_r, 0)`.
    pub part: String,
    pub ns: f64,
}

/// The analysis with the chains: the holistic fixed point over the event links between
/// tasks, then each chain's bound from the final responses.
pub(crate) fn analyze_with_chains(
    sys: &System,
    opts: &AnalysisOptions,
) -> Result<AnalysisResult, AnalysisError> {
    let acts: Vec<(usize, usize)> = (0..sys.tasks.len())
        .filter_map(|b| sys.activator(b).map(|a| (b, a)))
        .collect();
    let mut cur = sys.clone();
    let mut res = analyze_tasks(&cur, opts)?;
    let mut unbounded_from: Vec<Option<usize>> = vec![None; sys.tasks.len()];
    let mut converged = acts.is_empty();
    for _ in 0..MAX_ROUNDS {
        if converged {
            break;
        }
        let mut changed = false;
        for &(b, a) in &acts {
            let ra = wcrt_ps(&res, &sys.tasks[a].name);
            let want = match ra {
                Some(r) => sys.tasks[b].jitter.0.checked_add(r),
                None => None,
            };
            match want {
                Some(j) if unbounded_from[b].is_none() => {
                    if cur.tasks[b].jitter.0 != j {
                        cur.tasks[b].jitter = Picos(j);
                        changed = true;
                    }
                }
                Some(_) => {}
                None => {
                    if unbounded_from[b].is_none() {
                        unbounded_from[b] = Some(a);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            converged = true;
            break;
        }
        res = analyze_tasks(&cur, opts)?;
    }
    // A successor of an unbounded predecessor has no bound either (transitively: its
    // own successors follow from its null response in the next lines).
    let mut unb: Vec<Option<String>> = vec![None; sys.tasks.len()];
    for (b, slot) in unb.iter_mut().enumerate() {
        let mut x = b;
        let mut hops = 0;
        while let Some(a) = sys.activator(x) {
            if unbounded_from[x].is_some() || (!converged && hops == 0) {
                *slot = Some(if converged {
                    format!(
                        "released by task \"{}\", whose response is unbounded",
                        sys.tasks[a].name
                    )
                } else {
                    format!("the holistic jitter did not settle in {MAX_ROUNDS} rounds")
                });
                break;
            }
            x = a;
            hops += 1;
            if hops > sys.tasks.len() {
                break;
            }
        }
    }
    for list in [
        &mut res.tasks,
        &mut res.tick_modes.pessimistic,
        &mut res.tick_modes.partitioned,
    ] {
        for t in list.iter_mut() {
            if let Some(i) = sys.task_index(&t.name) {
                if let Some(why) = &unb[i] {
                    mark_unbounded(t, why);
                }
            }
        }
    }
    res.schedulable = res.tasks.iter().all(|t| t.schedulable);
    for &(b, a) in &acts {
        res.notes.push(
            format!(
                "task \"{}\" is released by task \"{}\"'s completion (chain event link): its \
                 release jitter includes that task's worst response (holistic analysis, \
                 Tindell & Clark 1994), and its response counts from the release of the \
                 first step of its chain segment",
                sys.tasks[b].name, sys.tasks[a].name
            )
            .into(),
        );
    }
    res.chains = sys
        .chains
        .iter()
        .map(|c| chain_bound(&cur, &res, c, &|q| irq_response(&cur, opts, q)))
        .collect();
    Ok(res)
}

pub(super) fn mark_unbounded(t: &mut TaskResult, why: &str) {
    t.wcrt_ns = None;
    t.wcrt_ps = None;
    t.slack_ns = None;
    t.schedulable = false;
    t.unbounded_reason = Some(why.to_string());
}

pub(super) fn wcrt_ps(res: &AnalysisResult, name: &str) -> Option<i64> {
    res.tasks
        .iter()
        .find(|t| &*t.name == name)
        .and_then(|t| t.wcrt_ps)
}

fn ns(p: i64) -> f64 {
    p as f64 / 1000.0
}

/// The chain's segments: `(first, last)` step positions, cut at sampled links.
fn segments(c: &Chain) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, l) in c.links.iter().enumerate() {
        if *l == Link::Sampled {
            out.push((start, k));
            start = k + 1;
        }
    }
    out.push((start, c.steps.len() - 1));
    out
}

/// The worst response of a step from the release of its segment's first step (a task's
/// worst response, an interrupt handler's), or why it has none.
fn step_response(
    sys: &System,
    irq: &dyn Fn(usize) -> Option<i64>,
    res: &AnalysisResult,
    s: Step,
) -> Result<i64, StepUnbounded> {
    match s {
        Step::Task(i) => wcrt_ps(res, &sys.tasks[i].name).ok_or_else(|| StepUnbounded::Task {
            task: sys.tasks[i].name.clone(),
            why: res
                .tasks
                .iter()
                .find(|t| *t.name == *sys.tasks[i].name)
                .and_then(|t| t.unbounded_reason.clone()),
        }),
        Step::Interrupt(q) => irq(q).ok_or_else(|| StepUnbounded::Interrupt {
            irq: sys.interrupts[q].name.clone(),
        }),
    }
}

/// The period with which a segment's first step writes a new value, when its releases
/// are periodic (a task released by the tick, or by a periodic interrupt).
fn writer_period(sys: &System, s: Step) -> Option<Picos> {
    match s {
        Step::Task(i) => match sys.tasks[i].released_by {
            Some(q) => sys.interrupts[q]
                .periodic
                .then_some(sys.interrupts[q].min_interarrival),
            None => Some(sys.tasks[i].period()),
        },
        Step::Interrupt(q) => sys.interrupts[q]
            .periodic
            .then_some(sys.interrupts[q].min_interarrival),
    }
}

/// Whether the tick releases the step (a stimulus waits up to one period for it).
fn tick_released(sys: &System, s: Step) -> bool {
    match s {
        Step::Task(i) => sys.tasks[i].released_by.is_none() && sys.activator(i).is_none(),
        Step::Interrupt(_) => false,
    }
}

/// One chain's bound from the final task responses `res`; `irq(q)` is interrupt `q`'s
/// worst handler response (on its own core).
pub(super) fn chain_bound(
    sys: &System,
    res: &AnalysisResult,
    c: &Chain,
    irq: &dyn Fn(usize) -> Option<i64>,
) -> ChainResult {
    let event = c.is_event();
    let name = |s: Step| sys.step_name(s).to_string();
    let mut out = ChainResult {
        name: c.name.clone(),
        kind: if event { "event" } else { "sampled" }.into(),
        steps: c.steps.iter().map(|s| name(*s)).collect(),
        links: c.links.iter().map(|l| l.name().to_string()).collect(),
        bound_ns: None,
        reaction_ns: None,
        age_ns: None,
        bound_ps: None,
        age_ps: None,
        deadline_ns: c.deadline.map(|d| d.as_ns_f64()),
        meets_deadline: c.deadline.map(|_| false),
        composition: Vec::new(),
        unbounded_reason: None,
        read: (c.read == ReadAt::Start).then(|| c.read.name().to_string()),
        duerr_links: None,
        davare_reaction_ns: None,
        davare_age_ns: None,
    };
    let segs = segments(c);
    let mut reaction: i64 = 0;
    let mut age: Option<i64> = Some(0);
    let mut age_why: Option<String> = None;
    // Per step position: its response part's index in the composition; per segment:
    // its response (for Dürr et al.'s terms, `super::sampled`).
    let mut part_at: Vec<usize> = vec![0; c.steps.len()];
    let mut seg_rs: Vec<i64> = Vec::with_capacity(segs.len());
    for (si, &(first, last)) in segs.iter().enumerate() {
        let head = c.steps[first];
        let period = writer_period(sys, head).map(|t| t.0);
        // An event chain counts from its first step's release; a sampled chain's
        // reaction from a stimulus that the first step (when the tick releases it) just
        // missed.
        let counts_period = si > 0 || (!event && tick_released(sys, head));
        if counts_period {
            // A sampled reader is released by the tick (validated), so it has a period.
            let t = match head {
                Step::Task(i) => sys.tasks[i].period().0,
                Step::Interrupt(q) => sys.interrupts[q].min_interarrival.0,
            };
            reaction = reaction.saturating_add(t);
            out.composition.push(ChainPart {
                step: name(head),
                part: "period".into(),
                ns: ns(t),
            });
        }
        // Responses along the segment: each step's increment over its predecessor's.
        let mut before: i64 = 0;
        let mut seg_r: i64 = 0;
        for k in first..=last {
            let s = c.steps[k];
            let r = match (s, k > first) {
                // An interrupt that releases the next step: its part is the path the
                // analysis puts in front of the task (inside the task's response).
                (Step::Interrupt(_), _) if k < last => {
                    let j = match c.steps[k + 1] {
                        Step::Task(i) => res
                            .tasks
                            .iter()
                            .find(|t| *t.name == *sys.tasks[i].name)
                            .map(|t| (t.jitter.irq_path_ns * 1000.0).round() as i64),
                        Step::Interrupt(_) => None,
                    };
                    match j {
                        Some(j) => Ok(j),
                        None => step_response(sys, irq, res, s),
                    }
                }
                _ => step_response(sys, irq, res, s),
            };
            let r = match r {
                Ok(r) => r,
                Err(why) => {
                    out.unbounded_reason = Some(why.to_string());
                    return out;
                }
            };
            let part = (r - before).max(0);
            if let Some(p) = part_at.get_mut(k) {
                *p = out.composition.len();
            }
            out.composition.push(ChainPart {
                step: name(s),
                part: "response".into(),
                ns: ns(part),
            });
            before = before.max(r);
            seg_r = before;
        }
        reaction = reaction.saturating_add(seg_r);
        seg_rs.push(seg_r);
        age = match (age, si + 1 < segs.len()) {
            (Some(a), true) => match period {
                Some(t) => Some(a.saturating_add(t).saturating_add(seg_r)),
                None => {
                    age_why = Some(format!(
                        "{} is released only sporadically, so the value it writes can stay \
                         unread-over for ever: no data-age bound",
                        name(head)
                    ));
                    None
                }
            },
            (Some(a), false) => Some(a.saturating_add(seg_r)),
            (None, _) => None,
        };
    }
    if c.read == ReadAt::Start && !event {
        let (mut less_r, mut less_a, mut used) = (0i64, 0i64, Vec::new());
        for (si, &(first, last)) in segs.iter().enumerate() {
            if si + 1 >= segs.len() || first != last || !sampled::tightens(sys, c, last) {
                continue;
            }
            let Some(Step::Task(r)) = c.steps.get(last + 1) else {
                continue;
            };
            let r_w = seg_rs.get(si).copied().unwrap_or(0);
            let (cr, ca) = sampled::cut(r_w, sys.tasks[*r].period().0);
            less_r = less_r.saturating_add(cr);
            less_a = less_a.saturating_add(ca);
            if let Some(p) = part_at.get(last).and_then(|&i| out.composition.get_mut(i)) {
                // Dürr's `max(R_w, T_r)` charges the writer only what its response
                // exceeds the reader's period by; named so, a 0 here does not read as
                // "the writer takes no time".
                p.part = DUERR_WRITER_PART.into();
                p.ns = ns(r_w - cr);
            }
            used.push(last);
        }
        out.davare_reaction_ns = Some(ns(reaction));
        out.davare_age_ns = age.map(ns);
        reaction = reaction.saturating_sub(less_r);
        age = age.map(|a| a.saturating_sub(less_a));
        out.duerr_links = Some(used);
    }
    out.bound_ps = Some(reaction);
    if event {
        out.bound_ns = Some(ns(reaction));
    } else {
        out.reaction_ns = Some(ns(reaction));
        out.age_ns = age.map(ns);
        out.age_ps = age;
        out.unbounded_reason = age_why;
    }
    out.meets_deadline = c.deadline.map(|d| reaction <= d.0);
    out
}

/// A bound on an interrupt handler's response, from its arrival to the end of its
/// handler: the longest stretch with it masked (a kernel or application critical
/// section, the tick handler and a context switch, each counted once, none for a
/// handler above the kernel's mask), the wake-up from the deepest sleep state, its own
/// entry, path and WCET, and the handlers of equal or higher priority arriving meanwhile
/// (Joseph & Pandya's recurrence over the interrupts). `None` past the minimum
/// inter-arrival time.
pub fn irq_response(sys: &System, opts: &AnalysisOptions, q: usize) -> Option<i64> {
    let ov = opts.overheads;
    let l = if ov { sys.platform.irq_entry().0 } else { 0 };
    let cold = sys.platform.cache.assume == crate::system::CacheState::Cold;
    let path = match (&sys.kernel.costs, ov) {
        (KernelCosts::Irqpath(c), true) => {
            let st = c.stage(cold);
            let entry_extra = st.entry.map_or(0, |e| (e.0 - l).max(0));
            entry_extra + st.prologue.0 + st.send.0 + st.dispatch.0
        }
        _ => 0,
    };
    let cost = |x: usize| -> i64 {
        let i = &sys.interrupts[x];
        let sections: i64 = sys
            .resources
            .interrupts
            .get(x)
            .map_or(0, |v| v.iter().map(|s| s.duration.0).sum());
        i.wcet.0 + l + path + if ov { sections.min(i.wcet.0) } else { 0 }
    };
    let me = &sys.interrupts[q];
    let n = sys.tasks.len() as u32;
    let wake = if ov {
        sys.kernel
            .sleep_states
            .iter()
            .map(|s| s.unpredictable_extra().0)
            .max()
            .unwrap_or(0)
    } else {
        0
    };
    let masked = if me.above_kernel {
        0
    } else {
        let tick = if ov {
            match &sys.kernel.costs {
                KernelCosts::Tick(c) => l + c.worst_tick_cost(n).0,
                KernelCosts::Listscan(c) => l + c.worst_scheduler_run(n, n).0,
                KernelCosts::Irqpath(c) => l + c.tick.0,
            }
        } else {
            0
        };
        let levels = sys.tasks.len() as u32 + 1;
        let switch = crate::rta::switch_at(sys, opts, Picos(l), levels).0;
        let cs = sys.critical_sections.longest().0;
        let res_mask = crate::resource::blocking::effect(sys).masking.0;
        let task_cs: i64 = sys.tasks.iter().map(|t| t.blocking.0).max().unwrap_or(0);
        cs.max(res_mask).max(task_cs) + tick + switch
    };
    let others: Vec<usize> = (0..sys.interrupts.len())
        .filter(|&x| x != q && sys.interrupts[x].priority >= me.priority)
        .collect();
    let base = masked.checked_add(cost(q))?;
    let mut w = base;
    for _ in 0..100_000 {
        let mut next = base;
        for &x in &others {
            let t = sys.interrupts[x].min_interarrival.0.max(1);
            let k = (w.checked_add(wake)?).div_euclid(t) + 1;
            next = next.checked_add(k.checked_mul(cost(x))?)?;
        }
        if next == w {
            let r = w.checked_add(wake)?;
            return (r <= me.min_interarrival.0).then_some(r);
        }
        if next > me.min_interarrival.0 {
            return None;
        }
        w = next;
    }
    None
}
