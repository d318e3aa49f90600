//! Priority assignment (`latscope analyze --assign-priorities`): Audsley's optimal
//! priority assignment (OPA) over the full analysis (overheads, blocking, jitter, the
//! chosen tick mode).
//!
//! N. C. Audsley, "Optimal priority assignment and feasibility of static priority tasks
//! with arbitrary start times", University of York, YCS 164, 1991: for each priority
//! level from the lowest up, find a task that meets its deadline there with every other
//! unassigned task above it; if none exists at some level, no priority order works.
//!
//! OPA is optimal only when the schedulability test of a task does not depend on the
//! relative order of the tasks above it (nor of those below it) — Davis & Burns, "Priority
//! assignment for global fixed priority pre-emptive scheduling in multiprocessor real-time
//! systems", RTSS 2009, conditions 1–3. latscope's analysis meets them with port-optimised
//! task selection, the interrupt-path and list-scan models, or without overheads (release
//! jitter, blocking, the tick and interrupts do not depend on the order). With FreeRTOS's
//! generic task selection the switch into a higher-priority task scans the levels between
//! the two priorities, so a task's interference depends on *which* higher task sits at
//! which number: the test is not OPA-compatible. There, each candidate is tested with the
//! unassigned higher tasks in rate-monotonic order (the shortest period on the highest
//! number, where its many switches cost the most levels), and the final order is
//! analysed again as a whole: an assignment is only returned when that analysis passes.
//! An assignment may then be missed where one exists (`opa_compatible` is false and the
//! notes say so).
//!
//! The priority numbers used are the file's own when they are all distinct (so the
//! switch costs by levels stay those of the file's numbering), else `1..=n`.

use crate::rta::{analyze_mode, AnalysisOptions};
use crate::system::{KernelCosts, System, TaskSelection, TickMode};
use serde::Serialize;

/// The outcome (`assignment` and `assignment_detail` in `analyze --assign-priorities
/// --json`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Assignment {
    /// Tasks in descending priority with their new numbers, or `None` when no order was
    /// found.
    pub order: Option<Vec<Assigned>>,
    /// When none was found: the level that could not be filled.
    pub failure: Option<Failure>,
    /// Whether the analysis is OPA-compatible for this system (then "none found" means
    /// "none exists").
    pub opa_compatible: bool,
    #[serde(deserialize_with = "crate::rta::json::tick_mode_word")]
    pub tick_mode: latscope_core::words::Word,
    pub notes: Vec<String>,
}

/// A task and its assigned priority number.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Assigned {
    pub name: String,
    pub priority: u32,
}

/// The level no unassigned task can take.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Failure {
    /// The priority number of the level (the lowest not yet filled).
    pub priority: u32,
    /// How many levels below it were filled.
    pub levels_filled: usize,
    /// Each candidate's response time at that level (null: unbounded or past the
    /// deadline), with its deadline.
    pub candidates: Vec<Candidate>,
    /// A human-readable summary naming the task that cannot be placed.
    pub message: String,
}

/// A task tried at the failing level.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Candidate {
    pub name: String,
    pub wcrt_ns: Option<f64>,
    pub deadline_ns: f64,
}

/// Whether the analysis of a task is independent of the order of the others above and
/// below it (see the module documentation).
pub fn opa_compatible(sys: &System, opts: &AnalysisOptions) -> bool {
    // A task exposed to nested inheritance mutexes is bounded as if at the lowest priority
    // of the intermediate holders below it (resource/nested.rs): its result then depends
    // on the relative order of the lower tasks, which Audsley's optimality proof excludes.
    if crate::resource::nested::intermediate_floor(sys).is_some() {
        return false;
    }
    if !opts.overheads {
        return true;
    }
    match (&sys.kernel.costs, sys.kernel.task_selection) {
        (KernelCosts::Tick(c), TaskSelection::Generic) => c.switch_per_level.0 == 0,
        _ => true,
    }
}

/// The priority numbers to hand out, ascending.
pub fn priority_values(sys: &System) -> Vec<u32> {
    let mut v: Vec<u32> = sys.tasks.iter().map(|t| t.priority).collect();
    v.sort_unstable();
    v.dedup();
    if v.len() == sys.tasks.len() {
        v
    } else {
        (1..=sys.tasks.len() as u32).collect()
    }
}

/// The system with these priority numbers (by task index).
pub fn with_priorities(sys: &System, prio: &[u32]) -> System {
    let mut s = sys.clone();
    for (t, &p) in s.tasks.iter_mut().zip(prio) {
        t.priority = p;
    }
    s
}

/// Audsley's OPA in the given tick mode.
pub fn assign_priorities(sys: &System, opts: &AnalysisOptions, mode: TickMode) -> Assignment {
    let n = sys.tasks.len();
    let values = priority_values(sys);
    let chains = !sys.chains.is_empty();
    let whole = crate::chain::margins::needs_whole(sys);
    let compatible = opa_compatible(sys, opts) && !chains;
    let o = AnalysisOptions {
        stop_at_deadline: true,
        ..opts.clone()
    };
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
    // Candidates are tried longest deadline first (then longest period, then file
    // order), so where deadline-monotonic order works the result is that order.
    let mut unassigned: Vec<usize> = (0..n).collect();
    unassigned.sort_by(|&a, &b| {
        let (x, y) = (&sys.tasks[a], &sys.tasks[b]);
        y.deadline
            .cmp(&x.deadline)
            .then(y.period().cmp(&x.period()))
            .then(a.cmp(&b))
    });
    let mut prio = vec![0u32; n];
    for (k, &level) in values.iter().enumerate() {
        let mut found = None;
        let mut candidates = Vec::new();
        for (ci, &c) in unassigned.iter().enumerate() {
            // Every other unassigned task above, rate-monotonic (shortest period on the
            // highest number), ties in file order.
            let mut above: Vec<usize> = unassigned.iter().copied().filter(|&x| x != c).collect();
            above.sort_by(|&a, &b| {
                sys.tasks[b]
                    .period()
                    .cmp(&sys.tasks[a].period())
                    .then(b.cmp(&a))
            });
            let mut p = prio.clone();
            p[c] = level;
            for (x, &j) in above.iter().enumerate() {
                p[j] = values[k + 1 + x];
            }
            let s = with_priorities(sys, &p);
            // Past the analysis range nothing is proven: the candidate does not fit.
            let r = if whole {
                crate::chain::margins::analyze_mode_chains(&s, &o, mode)
                    .map(|(t, _)| t)
                    .unwrap_or_default()
            } else {
                analyze_mode(&s, &o, mode).unwrap_or_default()
            };
            let me = r.iter().find(|t| t.name == sys.tasks[c].name);
            if me.is_some_and(|t| t.schedulable) {
                found = Some(ci);
                break;
            }
            candidates.push(Candidate {
                name: sys.tasks[c].name.clone(),
                wcrt_ns: me.and_then(|t| t.wcrt_ns),
                deadline_ns: sys.tasks[c].deadline.as_ns_f64(),
            });
        }
        match found {
            Some(ci) => {
                let c = unassigned.remove(ci);
                prio[c] = level;
            }
            None => {
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
                return Assignment {
                    order: None,
                    failure: Some(Failure {
                        priority: level,
                        levels_filled: k,
                        candidates,
                        message,
                    }),
                    opa_compatible: compatible,
                    tick_mode: mode.name(),
                    notes,
                };
            }
        }
    }
    // The whole order, analysed again (needed where the test is not OPA-compatible).
    let s = with_priorities(sys, &prio);
    let (full, chain_miss) = if whole {
        match crate::chain::margins::analyze_mode_chains(&s, &o, mode) {
            Ok((t, c)) => (Ok(t), c),
            Err(e) => (Err(e), None),
        }
    } else {
        (analyze_mode(&s, &o, mode), None)
    };
    let miss = match &full {
        Ok(v) => v.iter().find(|t| !t.schedulable),
        Err(_) => None,
    };
    if let Err(e) = &full {
        return Assignment {
            order: None,
            failure: Some(Failure {
                priority: values.last().copied().unwrap_or(0),
                levels_filled: n,
                candidates: Vec::new(),
                message: format!("no feasible assignment: {e}"),
            }),
            opa_compatible: compatible,
            tick_mode: mode.name(),
            notes,
        };
    }
    if let Some(miss) = miss {
        let message = format!(
            "no feasible assignment found: Audsley's search placed every task, but in the \
             final order {} misses (its switch costs depend on the order of the tasks above \
             it; see the notes)",
            miss.name
        );
        return Assignment {
            order: None,
            failure: Some(Failure {
                priority: miss.priority,
                levels_filled: n,
                candidates: vec![Candidate {
                    name: miss.name.clone(),
                    wcrt_ns: miss.wcrt_ns,
                    deadline_ns: miss.deadline_ns,
                }],
                message,
            }),
            opa_compatible: compatible,
            tick_mode: mode.name(),
            notes,
        };
    }
    if let Some(c) = chain_miss {
        // Every task fits but a chain does not: try deadline-monotonic order (shortest
        // deadline on the highest number), which favours a chain's short-deadline steps.
        let mut dm: Vec<usize> = (0..n).collect();
        dm.sort_by(|&a, &b| {
            let (x, y) = (&sys.tasks[a], &sys.tasks[b]);
            y.deadline
                .cmp(&x.deadline)
                .then(y.period().cmp(&x.period()))
                .then(a.cmp(&b))
        });
        let mut p = vec![0u32; n];
        for (k, &i) in dm.iter().enumerate() {
            p[i] = values.get(k).copied().unwrap_or(k as u32 + 1);
        }
        let fits = crate::chain::margins::analyze_mode_chains(&with_priorities(sys, &p), &o, mode)
            .is_ok_and(|(t, c)| c.is_none() && t.iter().all(|t| t.schedulable));
        if fits {
            prio = p;
            notes.push(
                "Audsley's order kept every task within its deadline but not every chain; \
                 the deadline-monotonic order keeps both and is the one given"
                    .to_string(),
            );
        } else {
            return Assignment {
                order: None,
                failure: Some(Failure {
                    priority: values.last().copied().unwrap_or(0),
                    levels_filled: n,
                    candidates: Vec::new(),
                    message: format!(
                        "no assignment found that keeps every chain within its deadline: \
                         Audsley's order places every task, but chain \"{c}\" misses its \
                         end-to-end deadline in it, and in deadline-monotonic order too"
                    ),
                }),
                opa_compatible: compatible,
                tick_mode: mode.name(),
                notes,
            };
        }
    }
    let mut order: Vec<Assigned> = (0..n)
        .map(|i| Assigned {
            name: sys.tasks[i].name.clone(),
            priority: prio[i],
        })
        .collect();
    order.sort_by_key(|a| std::cmp::Reverse(a.priority));
    Assignment {
        order: Some(order),
        failure: None,
        opa_compatible: compatible,
        tick_mode: mode.name(),
        notes,
    }
}

/// Why the priorities could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("not valid TOML: {0}")]
    Parse(String),
    #[error("task {0:?} is not a [[task]] entry of the file")]
    Missing(String),
    #[error("`task` is not an array of tables")]
    NotAnArray,
    #[error("the edited file does not read back as intended ({0})")]
    Verify(String),
}

/// Writes the assigned priorities into the TOML text the system was read from, changing
/// only the `priority` keys of the `[[task]]` entries (comments, order, formats and every
/// other key stay as written).
pub fn update_priorities_toml(text: &str, order: &[Assigned]) -> Result<String, WriteError> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| WriteError::Parse(e.to_string()))?;
    let item = doc.get_mut("task").ok_or(WriteError::NotAnArray)?;
    let mut tables: Vec<&mut dyn toml_edit::TableLike> = Vec::new();
    match item {
        toml_edit::Item::ArrayOfTables(a) => {
            for t in a.iter_mut() {
                tables.push(t);
            }
        }
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => {
            for v in a.iter_mut() {
                match v {
                    toml_edit::Value::InlineTable(t) => tables.push(t),
                    _ => return Err(WriteError::NotAnArray),
                }
            }
        }
        _ => return Err(WriteError::NotAnArray),
    }
    for a in order {
        let t = tables
            .iter_mut()
            .find(|t| t.get("name").and_then(|v| v.as_str()) == Some(a.name.as_str()))
            .ok_or_else(|| WriteError::Missing(a.name.clone()))?;
        let mut new = toml_edit::Value::from(a.priority as i64);
        match t.get_mut("priority").and_then(|i| i.as_value_mut()) {
            Some(old) => {
                *new.decor_mut() = old.decor().clone();
                *old = new;
            }
            None => {
                t.insert("priority", toml_edit::Item::Value(new));
            }
        }
    }
    let out = doc.to_string();
    let back = System::from_toml_str(&out, "the updated file")
        .map_err(|e| WriteError::Verify(e.to_string()))?;
    for a in order {
        let ok = back
            .tasks
            .iter()
            .any(|t| t.name == a.name && t.priority == a.priority);
        if !ok {
            return Err(WriteError::Verify(format!(
                "task {:?} does not read back with priority {}",
                a.name, a.priority
            )));
        }
    }
    Ok(out)
}
