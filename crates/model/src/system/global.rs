//! Unpinned tasks (`task.core = "any"`): global fixed-priority placement
//! (docs/system-format.md, Cores).
//!
//! A file either pins every task (a core number, or no `core` key: core 0) or leaves
//! every task unpinned; a mix of the two would need a scheduler that keeps some cores'
//! ready queues apart from the global one (FreeRTOS SMP core affinity masks), which the
//! global analysis does not model, so it is refused naming the first task that differs.
//! The global analysis and simulator model tick-released tasks, interrupts that release
//! no task, and the kernel's tick, switch and inter-core interrupt costs; the features
//! they do not model are refused here with the task or table that uses them, so that a
//! bound is never printed for a system it does not describe.

use super::context::{task_label, Ctx};
use super::raw::{RawFile, RawTaskCore};
use super::{Placement, Scheduler, SystemError};
use crate::system::System;

/// The word that marks a task as unpinned.
pub const ANY: &str = "any";

/// Reads every task's `core` key: the placement of the whole system and, per task, its
/// core (0 for an unpinned task). `cores` is `platform.cores`.
pub(super) fn task_cores(
    ctx: &Ctx,
    raw: &RawFile,
    cores: u32,
) -> Result<(Placement, Vec<u32>), SystemError> {
    let mut out = Vec::with_capacity(raw.task.len());
    let mut first_any: Option<usize> = None;
    let mut first_pinned: Option<usize> = None;
    for (i, rt) in raw.task.iter().enumerate() {
        let t = rt.get_ref();
        let label = task_label(i, t.name.get_ref());
        match &t.core {
            Some(c) => match c.get_ref() {
                RawTaskCore::Word(w) if w == ANY => {
                    if cores < 2 {
                        return Err(ctx.err(
                            Some(c.span()),
                            &label,
                            Some("core"),
                            "core = \"any\" (global scheduling) needs platform.cores of 2 or more",
                        ));
                    }
                    first_any.get_or_insert(i);
                    out.push(0);
                }
                RawTaskCore::Word(w) => {
                    return Err(ctx.err(
                        Some(c.span()),
                        &label,
                        Some("core"),
                        format!("\"{w}\" is not a core: give a core number or \"any\" (unpinned)"),
                    ))
                }
                RawTaskCore::Id(id) => {
                    if !(0..cores as i64).contains(id) {
                        return Err(ctx.err(
                            Some(c.span()),
                            &label,
                            Some("core"),
                            format!(
                                "core {id} does not exist: platform.cores is {cores}, so cores are numbered 0 ..= {}",
                                cores - 1
                            ),
                        ));
                    }
                    first_pinned.get_or_insert(i);
                    out.push(*id as u32);
                }
            },
            None => {
                first_pinned.get_or_insert(i);
                out.push(0);
            }
        }
    }
    let Some(a) = first_any else {
        return Ok((Placement::Partitioned, out));
    };
    if let Some(p) = first_pinned {
        let t = raw.task[p].get_ref();
        return Err(ctx.err(
            t.core
                .as_ref()
                .map(|c| c.span())
                .or(Some(raw.task[p].span())),
            &task_label(p, t.name.get_ref()),
            Some("core"),
            format!(
                "task \"{}\" is pinned while task \"{}\" has core = \"any\": give every task \
                 core = \"any\" (global fixed priority) or pin every task (partitioned); a mix \
                 is not modelled",
                t.name.get_ref(),
                raw.task[a].get_ref().name.get_ref()
            ),
        ));
    }
    Ok((Placement::Global, out))
}

/// Refuses, in a global system, what the global analysis and simulator do not model.
pub(super) fn check_supported(ctx: &Ctx, raw: &RawFile, sys: &System) -> Result<(), SystemError> {
    if sys.platform.placement != Placement::Global {
        return Ok(());
    }
    let refuse = |table: String, key: Option<&str>, what: &str| {
        Err(ctx.err(
            None,
            &table,
            key,
            format!(
                "{what} is not modelled with unpinned tasks (core = \"any\", global fixed \
                 priority) so far"
            ),
        ))
    };
    for (i, t) in sys.tasks.iter().enumerate() {
        let label = task_label(i, &t.name);
        if let Some(q) = t.released_by {
            return refuse(
                label,
                None,
                &format!(
                    "task \"{}\" is released by interrupt \"{}\": an interrupt-released task",
                    t.name, sys.interrupts[q].name
                ),
            );
        }
        if t.exec_time_file.is_some() {
            return refuse(
                label,
                Some("exec_time_file"),
                &format!("task \"{}\" has an execution-time file: it", t.name),
            );
        }
        if !raw.task[i].get_ref().critical.is_empty() {
            return refuse(
                label,
                Some("critical"),
                &format!(
                    "task \"{}\" has critical sections on resources: a shared resource",
                    t.name
                ),
            );
        }
    }
    for (i, x) in raw.interrupt.iter().enumerate() {
        if !x.get_ref().critical.is_empty() {
            return refuse(
                format!("interrupt[{i}] \"{}\"", x.get_ref().name.get_ref()),
                Some("critical"),
                "a shared resource",
            );
        }
    }
    if !sys.chains.is_empty() {
        return refuse("chain[0]".into(), None, "an end-to-end chain");
    }
    if !sys.kernel.sleep_states.is_empty() {
        return refuse("kernel".into(), Some("sleep_state"), "tickless idle");
    }
    if sys.kernel.time_slicing {
        return refuse("kernel".into(), Some("time_slicing"), "time slicing");
    }
    if (0..sys.platform.cores).any(|c| sys.kernel.scheduler_of(c) != Scheduler::Fp) {
        return refuse("kernel".into(), Some("scheduler"), "EDF");
    }
    Ok(())
}
