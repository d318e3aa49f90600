//! Audsley's search itself: fill the levels from the lowest up, then analyse the order
//! found as a whole (see the module documentation of [`super`] for why the second step
//! is needed where the test is not OPA-compatible).

use super::{opa_compatible, priority_values, with_priorities};
use super::{Assigned, Assignment, Candidate, Failure};
use crate::range::AnalysisError;
use crate::rta::{analyze_mode, AnalysisOptions, TaskResult};
use crate::system::{System, TickMode};

/// Audsley's OPA in the given tick mode.
pub fn assign_priorities(sys: &System, opts: &AnalysisOptions, mode: TickMode) -> Assignment {
    let chains = !sys.chains.is_empty();
    let compatible = opa_compatible(sys, opts) && !chains;
    let search = Search {
        sys,
        o: AnalysisOptions {
            stop_at_deadline: true,
            ..opts.clone()
        },
        mode,
        whole: crate::chain::margins::needs_whole(sys),
        values: priority_values(sys),
    };
    let mut notes = search_notes(sys, chains, compatible);
    let found = search
        .place_levels()
        .and_then(|prio| search.verify(prio, &mut notes));
    let (order, failure) = match found {
        Ok(prio) => (Some(descending(sys, &prio)), None),
        Err(f) => (None, Some(f)),
    };
    Assignment {
        order,
        failure,
        opa_compatible: compatible,
        tick_mode: mode.name(),
        notes,
    }
}

/// The notes that say when a "none found" does not prove that none exists.
fn search_notes(sys: &System, chains: bool, compatible: bool) -> Vec<String> {
    let mut notes = Vec::new();
    if chains {
        notes.push(
            "chains: a task released by another's completion has that task's response as \
             release jitter, which depends on the order of the tasks above it, so Audsley's \
             assignment is not guaranteed to find an order when one exists; every candidate \
             is judged with the chains' jitter and the final order with every chain's \
             end-to-end deadline too"
                .to_string(),
        );
    }
    if crate::resource::nested::intermediate_floor(sys).is_some() {
        notes.push(
            "nested inheritance mutexes: a task waiting on a chain is bounded as if at the \
             lowest priority of the tasks that hold one mutex while waiting for another, so \
             its result depends on the order of the tasks below it: Audsley's assignment is \
             not guaranteed to find an order when one exists (the final order is verified)"
                .to_string(),
        );
    } else if !compatible {
        notes.push(
            "generic task selection charges switches by the priority levels scanned, so a \
             task's response time depends on the order of the tasks above it: Audsley's \
             assignment is not guaranteed to find an order when one exists (it tested the \
             unassigned higher tasks in rate-monotonic order and verified the final order)"
                .to_string(),
        );
    }
    notes
}

/// Task indices in deadline-monotonic order from the lowest priority up: longest
/// deadline first, then longest period, then file order. Candidates are tried in this
/// order, so where deadline-monotonic order works the result is that order.
fn longest_deadline_first(sys: &System) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..sys.tasks.len()).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (&sys.tasks[a], &sys.tasks[b]);
        y.deadline
            .cmp(&x.deadline)
            .then(y.period().cmp(&x.period()))
            .then(a.cmp(&b))
    });
    idx
}

/// The assigned order, highest priority first.
fn descending(sys: &System, prio: &[u32]) -> Vec<Assigned> {
    let mut order: Vec<Assigned> = sys
        .tasks
        .iter()
        .zip(prio)
        .map(|(t, &p)| Assigned {
            name: t.name.clone(),
            priority: p,
        })
        .collect();
    order.sort_by_key(|a| std::cmp::Reverse(a.priority));
    order
}

/// What every step of the search reads.
struct Search<'a> {
    sys: &'a System,
    /// The caller's options with the early stop at the deadline: a candidate only needs
    /// to be known to fit or not.
    o: AnalysisOptions,
    mode: TickMode,
    /// Whether chains must be analysed with the tasks (their jitter, their deadlines).
    whole: bool,
    /// The priority numbers handed out, ascending.
    values: Vec<u32>,
}

impl Search<'_> {
    /// Every task's result with these priorities, and the first chain that misses its
    /// end-to-end deadline where chains are analysed too.
    fn analyze(&self, prio: &[u32]) -> Result<(Vec<TaskResult>, Option<String>), AnalysisError> {
        let s = with_priorities(self.sys, prio);
        if self.whole {
            crate::chain::margins::analyze_mode_chains(&s, &self.o, self.mode)
        } else {
            analyze_mode(&s, &self.o, self.mode).map(|t| (t, None))
        }
    }

    /// Audsley's levels, lowest first: the priorities by task index, or the level no
    /// unassigned task can take.
    fn place_levels(&self) -> Result<Vec<u32>, Failure> {
        let mut unassigned = longest_deadline_first(self.sys);
        let mut prio = vec![0u32; self.sys.tasks.len()];
        for (k, &level) in self.values.iter().enumerate() {
            match self.fill_level(&unassigned, &prio, k) {
                Ok(ci) => {
                    let c = unassigned.remove(ci);
                    prio[c] = level;
                }
                Err(candidates) => return Err(level_failure(k, level, candidates)),
            }
        }
        Ok(prio)
    }

    /// The position in `unassigned` of the first task that meets its deadline at level
    /// `k` with every other unassigned task above it, or every candidate's result.
    fn fill_level(
        &self,
        unassigned: &[usize],
        prio: &[u32],
        k: usize,
    ) -> Result<usize, Vec<Candidate>> {
        let mut candidates = Vec::new();
        for (ci, &c) in unassigned.iter().enumerate() {
            let p = self.trial(unassigned, prio, c, k);
            // Past the analysis range nothing is proven: the candidate does not fit.
            let r = self.analyze(&p).map(|(t, _)| t).unwrap_or_default();
            let me = r.iter().find(|t| *t.name == *self.sys.tasks[c].name);
            if me.is_some_and(|t| t.schedulable) {
                return Ok(ci);
            }
            candidates.push(Candidate {
                name: self.sys.tasks[c].name.clone(),
                wcrt_ns: me.and_then(|t| t.wcrt_ns),
                deadline_ns: self.sys.tasks[c].deadline.as_ns_f64(),
            });
        }
        Err(candidates)
    }

    /// The priorities for trying candidate `c` at level `k`: the levels below as placed,
    /// every other unassigned task above in rate-monotonic order (shortest period on
    /// the highest number, ties in file order), where generic selection's switches cost
    /// the most levels.
    fn trial(&self, unassigned: &[usize], prio: &[u32], c: usize, k: usize) -> Vec<u32> {
        let tasks = &self.sys.tasks;
        let mut above: Vec<usize> = unassigned.iter().copied().filter(|&x| x != c).collect();
        above.sort_by(|&a, &b| tasks[b].period().cmp(&tasks[a].period()).then(b.cmp(&a)));
        let mut p = prio.to_vec();
        p[c] = self.values[k];
        for (x, &j) in above.iter().enumerate() {
            p[j] = self.values[k + 1 + x];
        }
        p
    }

    /// The whole order, analysed again (needed where the test is not OPA-compatible);
    /// where only a chain misses, the deadline-monotonic order is tried instead.
    fn verify(&self, prio: Vec<u32>, notes: &mut Vec<String>) -> Result<Vec<u32>, Failure> {
        let n = self.sys.tasks.len();
        let (full, chain_miss) = self.analyze(&prio).map_err(|e| Failure {
            priority: self.values.last().copied().unwrap_or(0),
            levels_filled: n,
            candidates: Vec::new(),
            message: format!("no feasible assignment: {e}"),
        })?;
        if let Some(miss) = full.iter().find(|t| !t.schedulable) {
            return Err(final_miss(miss, n));
        }
        match chain_miss {
            Some(c) => self.deadline_monotonic_for(&c, notes),
            None => Ok(prio),
        }
    }

    /// Every task fits but chain `chain` does not: deadline-monotonic order (shortest
    /// deadline on the highest number) favours a chain's short-deadline steps.
    fn deadline_monotonic_for(
        &self,
        chain: &str,
        notes: &mut Vec<String>,
    ) -> Result<Vec<u32>, Failure> {
        let n = self.sys.tasks.len();
        let mut p = vec![0u32; n];
        for (k, &i) in longest_deadline_first(self.sys).iter().enumerate() {
            p[i] = self.values.get(k).copied().unwrap_or(k as u32 + 1);
        }
        let fits = crate::chain::margins::analyze_mode_chains(
            &with_priorities(self.sys, &p),
            &self.o,
            self.mode,
        )
        .is_ok_and(|(t, c)| c.is_none() && t.iter().all(|t| t.schedulable));
        if !fits {
            return Err(Failure {
                priority: self.values.last().copied().unwrap_or(0),
                levels_filled: n,
                candidates: Vec::new(),
                message: format!(
                    "no assignment found that keeps every chain within its deadline: \
                     Audsley's order places every task, but chain \"{chain}\" misses its \
                     end-to-end deadline in it, and in deadline-monotonic order too"
                ),
            });
        }
        notes.push(
            "Audsley's order kept every task within its deadline but not every chain; \
             the deadline-monotonic order keeps both and is the one given"
                .to_string(),
        );
        Ok(p)
    }
}

/// The failure at level `level` (`k` levels below it filled), naming the candidates.
fn level_failure(k: usize, level: u32, candidates: Vec<Candidate>) -> Failure {
    let names: Vec<&str> = candidates.iter().map(|c| c.name.as_str()).collect();
    let message = if names.len() == 1 {
        format!(
            "no feasible assignment: {} cannot be placed at any priority (it misses \
             its deadline even at the highest level, with every other task below it)",
            names[0]
        )
    } else {
        format!(
            "no feasible assignment: with {k} lower level(s) filled, none of {} \
             meets its deadline at the next level (priority {level}) with the \
             others above it",
            names.join(", ")
        )
    };
    Failure {
        priority: level,
        levels_filled: k,
        candidates,
        message,
    }
}

/// The failure when every task was placed but the final order misses `miss`.
fn final_miss(miss: &TaskResult, n: usize) -> Failure {
    let message = format!(
        "no feasible assignment found: Audsley's search placed every task, but in the \
         final order {} misses (its switch costs depend on the order of the tasks above \
         it; see the notes)",
        miss.name
    );
    Failure {
        priority: miss.priority,
        levels_filled: n,
        candidates: vec![Candidate {
            name: miss.name.to_string(),
            wcrt_ns: miss.wcrt_ns,
            deadline_ns: miss.deadline_ns,
        }],
        message,
    }
}
