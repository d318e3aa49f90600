//! The tick and switch series of a recording, as CSV rows.
//!
//! The tick series has exactly the columns of `latscope simulate --series`
//! (`time_ns,duration_ns,released`), so `latscope fit --target tick --x released --y
//! duration_ns --unit ns` reads either. A switch's duration is not an event of any
//! recorder; the switch series measures what a recording does show: from the event that
//! made the scheduler run on that CPU (the outgoing task's `Block`, or the exit of the
//! handler that ran last) to the `Switch`, when nothing else happened on that CPU between.

use latscope_core::events::{EventKind, EventTrace};
use latscope_core::time::{ns_decimal as ns, Picos};
use std::io::Write;

use super::walk::Timeline;

/// One tick: its enter (ps from the recording start), its duration (nested handlers
/// excluded) and the tasks it made ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickRow {
    pub time: Picos,
    pub duration: Picos,
    pub released: u32,
}

/// One switch: when (ps from the recording start), how long since the event that caused
/// it, to which task, and the priorities switched from and to when the recording gives
/// both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchRow {
    pub time: Picos,
    pub duration: Picos,
    pub task: String,
    pub from_priority: Option<i64>,
    pub to_priority: Option<i64>,
}

/// Every complete run of the tick handler(s), in time order.
pub fn tick_rows(trace: &EventTrace, tl: &Timeline) -> Vec<TickRow> {
    let mut rows: Vec<TickRow> = trace
        .actors
        .iter()
        .zip(&tl.actors)
        .filter(|(a, _)| a.kind == latscope_core::events::ActorKind::Tick)
        .flat_map(|(_, t)| t.runs.iter())
        .map(|r| TickRow {
            time: Picos(r.enter.0.saturating_sub(trace.start.0)),
            duration: Picos(r.duration),
            released: r.released,
        })
        .collect();
    rows.sort_by_key(|r| r.time);
    rows
}

/// Every switch whose cause the recording shows (see the module documentation).
pub fn switch_rows(trace: &EventTrace) -> Vec<SwitchRow> {
    let ncpu = usize::from(trace.cpus.max(1));
    // Per CPU: the current actor, and the time of the last event there if it was a
    // block of that actor or a handler exit.
    let mut current: Vec<Option<usize>> = vec![None; ncpu];
    let mut cause: Vec<Option<Picos>> = vec![None; ncpu];
    let mut rows = Vec::new();
    for e in &trace.events {
        let c = usize::from(e.cpu).min(ncpu - 1);
        let a = e.kind.actor() as usize;
        let Some(actor) = trace.actors.get(a) else {
            continue;
        };
        match e.kind {
            EventKind::Switch(_) => {
                if let (Some(t0), Some(prev)) = (cause[c], current[c]) {
                    if prev != a {
                        rows.push(SwitchRow {
                            time: Picos(e.t.0.saturating_sub(trace.start.0)),
                            duration: Picos(e.t.0.saturating_sub(t0.0)),
                            task: actor.name.clone(),
                            from_priority: trace.actors.get(prev).and_then(|p| p.priority),
                            to_priority: actor.priority,
                        });
                    }
                }
                current[c] = Some(a);
                cause[c] = None;
            }
            EventKind::Block(_) if current[c] == Some(a) => cause[c] = Some(e.t),
            EventKind::IsrExit(_) => cause[c] = Some(e.t),
            _ => cause[c] = None,
        }
    }
    rows
}

/// `time_ns,duration_ns,released`, one row per tick.
pub fn write_tick_series<W: Write>(rows: &[TickRow], w: W) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(["time_ns", "duration_ns", "released"])?;
    for r in rows {
        out.write_record([ns(r.time.0), ns(r.duration.0), r.released.to_string()])?;
    }
    out.flush()
}

/// `time_ns,duration_ns,task,from_priority,to_priority`, one row per switch (priorities
/// empty when unknown).
pub fn write_switch_series<W: Write>(rows: &[SwitchRow], w: W) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record([
        "time_ns",
        "duration_ns",
        "task",
        "from_priority",
        "to_priority",
    ])?;
    let p = |x: Option<i64>| x.map(|v| v.to_string()).unwrap_or_default();
    for r in rows {
        out.write_record([
            ns(r.time.0),
            ns(r.duration.0),
            r.task.clone(),
            p(r.from_priority),
            p(r.to_priority),
        ])?;
    }
    out.flush()
}
