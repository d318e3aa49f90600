//! A sound bound for tasks exposed to nested inheritance mutexes under FreeRTOS
//! semantics (docs/resources.md, "Nested inheritance mutexes").
//!
//! FreeRTOS raises only the direct holder of a mutex, to the *current* priority of the
//! task that blocks on it, at the moment it blocks; nothing is passed along a chain later
//! (unlike the transitive inheritance of Sha, Rajkumar & Lehoczky 1990). A task `j` that
//! can hold an inheritance mutex while it waits for another (an inheritance section
//! nested in one of its inheritance sections) is a possible *intermediate holder*. Let
//! `f` be the lowest base priority of any intermediate holder (and at most `i`'s own
//! priority `p`). While any task of base priority `>= f` is pending, some task runs at an
//! effective priority `>= f`: a blocked task's chain ends in a ready holder, raised to at
//! least the base priority of the task blocked on it, which is either that pending task or
//! an intermediate holder, so `>= f`. Hence a task of base priority `< f` (a *low* task)
//! runs in such a window only inside the one outermost section it held when the window
//! began, and it cannot start another. Low tasks have no nested inheritance sections (they
//! would be intermediate holders), so the classic one-section-per-task / per-resource
//! counting holds for them at level `f`.
//!
//! So `i` is analysed as if its priority were `f`: every other task of base priority
//! `>= f` interferes with whole jobs (the middle tasks that can run while `i` waits, and
//! the intermediate holders), and the low tasks block by the classic bounds at level `f`,
//! with the same tick, interrupt and overhead terms as any other task. When that fixed
//! point diverges the task stays unbounded, with the analysis's own reason.

use super::Protocol;
use crate::system::System;

/// How the analysis notes about the nested bound start (printed under the table).
pub const NOTE_PREFIX: &str = "nested inheritance mutexes:";

/// The `resource` of a [`super::blocking::BlockingPart`] that is a task of middle
/// priority running while the analysed task waits on a chain of nested mutexes (its
/// whole jobs, not a section it holds).
pub const PREEMPTS_CHAIN: &str = "(nested-mutex chain)";

/// The lowest base priority of any task that can hold an inheritance mutex while it
/// waits for another (`None` when no task nests inheritance mutexes).
pub fn intermediate_floor(sys: &System) -> Option<u32> {
    (0..sys.tasks.len())
        .filter(|&j| holds_while_waiting(sys, j))
        .filter_map(|j| sys.tasks.get(j).map(|t| t.priority))
        .min()
}

/// Whether task `j` has an inheritance section with another inheritance section nested
/// in it (at any depth).
fn holds_while_waiting(sys: &System, j: usize) -> bool {
    let r = &sys.resources;
    let secs = r.of_task(j);
    (0..secs.len()).any(|k| {
        r.protocol(&secs[k]) == Protocol::Inheritance
            && (0..secs.len()).any(|m| {
                r.protocol(&secs[m]) == Protocol::Inheritance
                    && super::blocking::is_inside(secs, m, k)
            })
    })
}

/// The priority task `i` is analysed at: the floor `f` of the intermediate holders, or
/// its own priority when that is lower (`None` when nothing nests, or `i` is unknown).
pub fn analysis_priority(sys: &System, i: usize) -> Option<u32> {
    let p = sys.tasks.get(i)?.priority;
    intermediate_floor(sys).map(|f| f.min(p))
}

/// The system with task `i` moved down to priority `f` (the other tasks, the resources
/// and the kernel unchanged): the analysis of `i` in it is the nested-inheritance bound.
pub fn lowered(sys: &System, i: usize, f: u32) -> System {
    let mut s = sys.clone();
    if let Some(t) = s.tasks.get_mut(i) {
        t.priority = f;
    }
    s
}

/// The tasks other than `i` that the bound charges as whole jobs although their
/// priority is below `i`'s: base priority in `[f, p)`.
pub fn middle_tasks(sys: &System, i: usize, f: u32) -> Vec<String> {
    let Some(p) = sys.tasks.get(i).map(|t| t.priority) else {
        return Vec::new();
    };
    sys.tasks
        .iter()
        .enumerate()
        .filter(|&(j, t)| j != i && t.priority >= f && t.priority < p)
        .map(|(_, t)| t.name.clone())
        .collect()
}

/// How the bound of an exposed task was obtained, for the analysis notes.
pub fn note(sys: &System, i: usize, f: u32) -> String {
    let name = sys.tasks.get(i).map_or("?", |t| t.name.as_str());
    let mid = middle_tasks(sys, i, f);
    let mid = if mid.is_empty() {
        "none".to_string()
    } else {
        mid.join(", ")
    };
    format!(
        "{NOTE_PREFIX} {name}: FreeRTOS raises only the direct holder, so a holder in the \
         chain may run at priority {f}; {name} is bounded as if at priority {f}: tasks at \
         or above it interfere with whole jobs (below {name}: {mid}, charged as blocking) \
         and the tasks below it block by the classic bound (docs/resources.md)"
    )
}
