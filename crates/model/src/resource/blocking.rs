//! Blocking computed from the declared critical sections (docs/resources.md).
//!
//! For task `i` of priority `p`, only lower-priority tasks block (equal priorities are
//! analysed as higher: their whole jobs already interfere). A section of a lower task
//! can block `i` when its resource's ceiling (the highest priority among the resource's
//! users) is at or above `p` — directly, or by push-through when the holder inherits a
//! priority above `i` — or, for a kernel critical section, always (preemption is off).
//! The length charged for a section is its duration plus the `unlock` cost (the holder
//! gives it back before `i` continues), plus `inherit` for an inheritance mutex.
//!
//! * Inheritance: the Sha–Rajkumar–Lehoczky bound (Sha, Rajkumar & Lehoczky, "Priority
//!   inheritance protocols: an approach to real-time synchronization", IEEE Trans.
//!   Computers 39(9), 1990, Theorems 6–7 and the bound B_i = min(B_l, B_s) as presented
//!   in Buttazzo, "Hard Real-Time Computing Systems", 3rd ed., section 7.6.3): at most one
//!   section per lower-priority task (`B_l`, the sum over those tasks of their longest
//!   blocking section) and at most one per resource (`B_s`, the sum over resources of
//!   their longest blocking section): the smaller sum.
//! * Ceiling and kernel critical sections: at most one section, before the job starts
//!   (Baker 1991; Buttazzo section 7.7): the longest blocking section.
//!
//! A job can meet both kinds, so the two bounds add. Interrupt handlers' sections do
//! not block tasks (a handler's time is already interference); kernel critical sections
//! of tasks and handlers mask the interrupts at or below the kernel's level and the tick
//! for their duration: the longest one, `masking`, is release jitter of the tick-released
//! and interrupt-released tasks and of the masked handlers.

use super::{Protocol, Resources};
use crate::system::System;
use latscope_core::Picos;
use serde::Serialize;

/// One section that makes up a task's computed blocking.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct BlockingPart {
    pub task: String,
    pub resource: String,
    /// Section duration plus the unlock (and inherit) cost, picoseconds.
    #[serde(skip)]
    pub duration: Picos,
    pub duration_ns: f64,
}

/// The computed blocking of one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskBlocking {
    /// Inheritance (SRL) part plus the ceiling / critical part.
    pub total: Picos,
    pub from: Vec<BlockingPart>,
}

/// What the resources add to the analysis of a system.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effect {
    /// Per task (file order).
    pub tasks: Vec<TaskBlocking>,
    /// Extra execution per job of each task: its sections' calls ([`calls_cost`]).
    pub own_cost: Vec<Picos>,
    /// The longest kernel critical section (tasks' and handlers'): how late a masked
    /// interrupt handler or the tick can run.
    pub masking: Picos,
}

impl Effect {
    pub fn is_empty(&self) -> bool {
        self.masking == Picos::ZERO
            && self.tasks.iter().all(|t| t.total == Picos::ZERO)
            && self.own_cost.iter().all(|c| *c == Picos::ZERO)
    }
}

/// The ceiling of each resource: the highest priority among the tasks using it (`None`
/// when only interrupt handlers or nobody use it).
pub fn ceilings(sys: &System) -> Vec<Option<u32>> {
    let r = &sys.resources;
    let mut c = vec![None; r.list.len()];
    for (i, t) in sys.tasks.iter().enumerate() {
        for s in r.of_task(i) {
            if let Some(x) = c.get_mut(s.resource) {
                *x = Some(x.map_or(t.priority, |v: u32| v.max(t.priority)));
            }
        }
    }
    c
}

/// Blocking of every task, with the parts that make it up.
pub fn effect(sys: &System) -> Effect {
    let r: &Resources = &sys.resources;
    let n = sys.tasks.len();
    if r.is_empty() {
        return Effect {
            tasks: vec![TaskBlocking::default(); n],
            own_cost: vec![Picos::ZERO; n],
            masking: Picos::ZERO,
        };
    }
    let ceil = ceilings(sys);
    let own_cost = (0..n).map(|i| calls_cost(r, r.of_task(i))).collect();
    let masking = (0..n)
        .map(|i| r.of_task(i))
        .chain((0..sys.interrupts.len()).map(|x| r.of_interrupt(x)))
        .flat_map(|secs| {
            (0..secs.len())
                .filter(|&k| r.protocol(&secs[k]) == Protocol::Critical)
                .map(move |k| held_time(r, secs, k))
        })
        .max()
        .unwrap_or(Picos::ZERO);
    let mut tasks = Vec::with_capacity(n);
    for t in &sys.tasks {
        let p = t.priority;
        // Inheritance candidates per lower task and per resource; single-block
        // (ceiling / critical) candidates.
        let mut by_task: Vec<BlockingPart> = Vec::new();
        let mut by_res: Vec<Option<BlockingPart>> = vec![None; r.list.len()];
        let mut single: Option<BlockingPart> = None;
        for (j, o) in sys.tasks.iter().enumerate() {
            if o.priority >= p {
                continue;
            }
            let mut best_j: Option<BlockingPart> = None;
            let secs = r.of_task(j);
            for (k, s) in secs.iter().enumerate() {
                let proto = r.protocol(s);
                let reaches = match proto {
                    Protocol::Critical => true,
                    _ => ceil
                        .get(s.resource)
                        .copied()
                        .flatten()
                        .is_some_and(|c| c >= p),
                };
                if !reaches {
                    continue;
                }
                let mut len = held_time(r, secs, k);
                if proto == Protocol::Inheritance {
                    len += r.costs.inherit;
                }
                let part = BlockingPart {
                    task: o.name.clone(),
                    resource: r.name(s).to_string(),
                    duration: len,
                    duration_ns: len.as_ns_f64(),
                };
                let better =
                    |cur: &Option<BlockingPart>| cur.as_ref().is_none_or(|c| len > c.duration);
                if proto == Protocol::Inheritance {
                    if better(&best_j) {
                        best_j = Some(part.clone());
                    }
                    if better(&by_res[s.resource]) {
                        by_res[s.resource] = Some(part);
                    }
                } else if better(&single) {
                    single = Some(part);
                }
            }
            by_task.extend(best_j);
        }
        let by_res: Vec<BlockingPart> = by_res.into_iter().flatten().collect();
        let sum = |v: &[BlockingPart]| v.iter().fold(Picos::ZERO, |a, b| a + b.duration);
        let (inh, mut from) = if sum(&by_res) < sum(&by_task) {
            (sum(&by_res), by_res)
        } else {
            (sum(&by_task), by_task)
        };
        let one = single.as_ref().map_or(Picos::ZERO, |b| b.duration);
        from.extend(single);
        tasks.push(TaskBlocking {
            total: inh + one,
            from,
        });
    }
    Effect {
        tasks,
        own_cost,
        masking,
    }
}

/// How long section `k` of a job holds its resource: from the end of its lock call to
/// the end of its unlock call, so its duration, its unlock call and the calls of the
/// sections nested in it (at any depth), which run while it is held.
pub fn held_time(r: &Resources, secs: &[super::Section], k: usize) -> Picos {
    let nested: Vec<super::Section> = secs
        .iter()
        .enumerate()
        .filter(|&(j, _)| {
            let mut up = secs[j].inside;
            let mut hops = 0;
            while let Some(u) = up {
                if u == k {
                    return true;
                }
                hops += 1;
                if hops > secs.len() {
                    break;
                }
                up = secs.get(u).and_then(|x| x.inside);
            }
            false
        })
        .map(|(_, s)| *s)
        .collect();
    let base = secs.get(k).map_or(Picos::ZERO, |s| s.duration) + r.costs.unlock;
    Picos(base.0.saturating_add(calls_cost(r, &nested).0))
}

/// The calls a job with these sections makes: `lock + unlock` per section, plus
/// `inherit` per inheritance mutex (a task that finds a mutex taken runs the inherit
/// call itself before it blocks, as `xTaskPriorityInherit` runs in the taker's
/// context; the simulator charges it there).
pub fn calls_cost(r: &Resources, secs: &[super::Section]) -> Picos {
    let per_call = r.costs.lock + r.costs.unlock;
    secs.iter().fold(Picos::ZERO, |a, s| {
        let mut c = per_call;
        if r.protocol(s) == Protocol::Inheritance {
            c += r.costs.inherit;
        }
        Picos(a.0.saturating_add(c.0))
    })
}

/// The system with each task's and handler's WCET grown by its sections' calls
/// ([`calls_cost`]; `None` when there is nothing to add). The sections stay where they
/// are.
pub fn with_lock_costs(sys: &System) -> Option<System> {
    let r = &sys.resources;
    let per_call = r.costs.lock + r.costs.unlock + r.costs.inherit;
    if per_call == Picos::ZERO
        || (r.tasks.iter().all(Vec::is_empty) && r.interrupts.iter().all(Vec::is_empty))
    {
        return None;
    }
    let mut s = sys.clone();
    for (i, t) in s.tasks.iter_mut().enumerate() {
        let add = calls_cost(r, r.of_task(i));
        t.wcet = Picos(t.wcet.0.saturating_add(add.0));
        t.bcet = Picos(t.bcet.0.saturating_add(add.0));
    }
    for (x, q) in s.interrupts.iter_mut().enumerate() {
        let add = calls_cost(r, r.of_interrupt(x));
        q.wcet = Picos(q.wcet.0.saturating_add(add.0));
    }
    Some(s)
}

/// Why a task exposed to a chain of inheritance mutexes gets no bound (docs/resources.md,
/// "Nested inheritance mutexes").
pub const NESTED_INHERITANCE: &str =
    "unbounded (nested inheritance mutexes: FreeRTOS does not pass inheritance along the chain)";

/// Why a task taking an inheritance mutex gets no bound when mutexes are nested in
/// opposite orders (a possible deadlock).
pub const INHERITANCE_DEADLOCK: &str =
    "unbounded (inheritance mutexes nested in opposite orders: the tasks can deadlock)";

/// Whether inheritance mutexes are nested in orders that form a cycle (task 1 takes B
/// inside A, task 2 A inside B): the tasks can deadlock, and every task that takes an
/// inheritance mutex may wait forever.
pub fn inheritance_deadlock_possible(sys: &System) -> bool {
    let r = &sys.resources;
    let m = r.list.len();
    let mut edge = vec![vec![false; m]; m];
    for j in 0..sys.tasks.len() {
        let secs = r.of_task(j);
        for (k, o) in secs.iter().enumerate() {
            for (q, s) in secs.iter().enumerate() {
                if r.protocol(o) == Protocol::Inheritance
                    && r.protocol(s) == Protocol::Inheritance
                    && is_inside(secs, q, k)
                    && o.resource < m
                    && s.resource < m
                {
                    edge[o.resource][s.resource] = true;
                }
            }
        }
    }
    // Transitive closure (a handful of resources): a cycle is a resource reaching itself.
    for k in 0..m {
        for a in 0..m {
            if edge[a][k] {
                let via = edge[k].clone();
                for (e, v) in edge[a].iter_mut().zip(via) {
                    *e |= v;
                }
            }
        }
    }
    (0..m).any(|a| edge[a][a])
}

/// The tasks (file order) whose blocking the Sha–Rajkumar–Lehoczky bound does not cover
/// because FreeRTOS and Zephyr raise only the direct holder of a mutex: task `i` is
/// exposed when a lower-priority task can hold an inheritance mutex that `i` takes while
/// it waits for another inheritance mutex (a section nested, at any depth, inside that
/// section). The holder of the inner mutex is then raised only to the waiter's priority
/// at the time it blocked, so tasks between that priority and `i`'s run while `i` waits.
pub fn nested_inheritance_exposed(sys: &System) -> Vec<bool> {
    let r = &sys.resources;
    let n = sys.tasks.len();
    // Per task: the inheritance resources it holds while it may wait for another one.
    let holds_waiting: Vec<Vec<usize>> = (0..n)
        .map(|j| {
            let secs = r.of_task(j);
            (0..secs.len())
                .filter(|&k| {
                    r.protocol(&secs[k]) == Protocol::Inheritance
                        && secs.iter().enumerate().any(|(m, s)| {
                            r.protocol(s) == Protocol::Inheritance && is_inside(secs, m, k)
                        })
                })
                .map(|k| secs[k].resource)
                .collect()
        })
        .collect();
    if holds_waiting.iter().all(Vec::is_empty) {
        return vec![false; n];
    }
    (0..n)
        .map(|i| {
            let p = sys.tasks[i].priority;
            let mine = r.of_task(i);
            (0..n).any(|j| {
                sys.tasks[j].priority < p
                    && holds_waiting[j]
                        .iter()
                        .any(|&res| mine.iter().any(|s| s.resource == res))
            })
        })
        .collect()
}

/// Whether section `m` is nested, at any depth, inside section `k` of the same job.
pub(super) fn is_inside(secs: &[super::Section], m: usize, k: usize) -> bool {
    let mut up = secs.get(m).and_then(|s| s.inside);
    let mut hops = 0;
    while let Some(u) = up {
        if u == k {
            return true;
        }
        hops += 1;
        if hops > secs.len() {
            return false;
        }
        up = secs.get(u).and_then(|x| x.inside);
    }
    false
}
