//! The trace events noise classification reads, parsed from ftrace's text lines: the
//! ones spike attribution already parses (`irq_handler_entry/exit`,
//! `softirq_entry/exit`, `sched_switch`) plus x86's interrupt vectors
//! (`irq_vectors:local_timer_entry/exit` and the other `*_entry/_exit` pairs: the local
//! timer is no numbered IRQ, so without them the tick would look like hardware noise)
//! and `nmi:nmi_handler`, which is recorded once at the handler's end with its length.

use crate::ftrace::parse::{self, Kind};

/// One event on one CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseEvent {
    pub cpu: u32,
    /// CLOCK_MONOTONIC ns (the instance's trace clock is `mono`).
    pub ts: i64,
    /// The task current when the event was recorded (pid, comm: the line's prefix);
    /// None for events made by hand.
    pub task: Option<(i32, String)>,
    pub what: What,
}

/// What happened, as classification needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    /// An interrupt handler starts: numbered IRQs carry their number; x86 vectors
    /// (`local_timer`, `reschedule`, …) carry the vector and no number.
    IrqEntry {
        irq: Option<u32>,
        vector: Option<u32>,
        name: String,
    },
    IrqExit {
        irq: Option<u32>,
        /// x86 vector (`vector=` of the vector exit events): a handler whose entry fell
        /// before the events kept is still named by its number.
        vector: Option<u32>,
        name: String,
    },
    SoftirqEntry {
        vec: u32,
        name: String,
    },
    SoftirqExit {
        vec: u32,
    },
    /// `sched_switch`: the CPU goes from `prev_pid` to `next_pid`.
    Switch {
        prev_pid: i32,
        prev_comm: String,
        next_pid: i32,
        next_comm: String,
    },
    /// An NMI handler that ended at `ts` after `delta_ns`.
    Nmi {
        handler: String,
        delta_ns: i64,
    },
}

/// The x86 vector events enabled where the kernel has them (entry and exit each).
pub const VECTORS: [&str; 7] = [
    "local_timer",
    "reschedule",
    "call_function",
    "call_function_single",
    "irq_work",
    "thermal_apic",
    "x86_platform_ipi",
];

/// Parses one line; None for other events, comments and malformed lines.
pub fn parse(line: &str) -> Option<NoiseEvent> {
    if let Some(e) = parse::parse_line(line) {
        let what = match e.kind {
            Kind::IrqEntry { irq, name } => What::IrqEntry {
                irq: Some(irq),
                vector: None,
                name,
            },
            Kind::IrqExit { irq } => What::IrqExit {
                irq: Some(irq),
                vector: None,
                name: String::new(),
            },
            Kind::SoftirqEntry { vec, name } => What::SoftirqEntry { vec, name },
            Kind::SoftirqExit { vec } => What::SoftirqExit { vec },
            Kind::Switch {
                prev_pid,
                prev_comm,
                next_pid,
                next_comm,
                ..
            } => What::Switch {
                prev_pid,
                prev_comm,
                next_pid,
                next_comm,
            },
            _ => return None,
        };
        return Some(NoiseEvent {
            cpu: e.cpu,
            ts: e.ts,
            task: Some((e.pid, e.comm)),
            what,
        });
    }
    let (comm, pid, cpu, ts, rest) = parse::split_head(line)?;
    let rest = rest.trim_start();
    let (name, fields) = rest.split_once(": ")?;
    let fields = fields.trim();
    let what = if name == "nmi_handler" {
        // `perf_event_nmi_handler() delta_ns: 1234 handled: 1`
        let (handler, after) = fields.split_once("()")?;
        let d = after.trim().strip_prefix("delta_ns:")?.trim_start();
        let d = d.split_whitespace().next()?;
        What::Nmi {
            handler: handler.trim().to_string(),
            delta_ns: d.parse::<i64>().ok()?.max(0),
        }
    } else if let Some(v) = name.strip_suffix("_entry") {
        let v = VECTORS.iter().find(|x| **x == v)?;
        What::IrqEntry {
            irq: None,
            vector: fields.strip_prefix("vector=").and_then(|x| x.parse().ok()),
            name: (*v).to_string(),
        }
    } else if let Some(v) = name.strip_suffix("_exit") {
        let v = VECTORS.iter().find(|x| **x == v)?;
        What::IrqExit {
            irq: None,
            vector: fields.strip_prefix("vector=").and_then(|x| x.parse().ok()),
            name: (*v).to_string(),
        }
    } else {
        return None;
    };
    Some(NoiseEvent {
        cpu,
        ts,
        task: Some((pid, comm.to_string())),
        what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_noise_needs_parse() {
        let e = parse(
            "          <idle>-0       [001] d.h1.   100.000010: local_timer_entry: vector=236",
        )
        .unwrap();
        assert_eq!(
            (e.cpu, e.ts, e.task),
            (1, 100_000_010_000, Some((0, "<idle>".to_string()))),
            "cpu, time and current task of the line"
        );
        assert_eq!(
            e.what,
            What::IrqEntry {
                irq: None,
                vector: Some(236),
                name: "local_timer".into()
            }
        );
        let e = parse(
            "          <idle>-0       [001] d.h1.   100.000012: local_timer_exit: vector=236",
        )
        .unwrap();
        assert_eq!(
            e.what,
            What::IrqExit {
                irq: None,
                vector: Some(236),
                name: "local_timer".into()
            }
        );
        let e = parse("   latscope-noise-1-77 [001] d.Z1.   100.5: nmi_handler: perf_event_nmi_handler() delta_ns: 4321 handled: 1").unwrap();
        assert_eq!(
            e.what,
            What::Nmi {
                handler: "perf_event_nmi_handler".into(),
                delta_ns: 4321
            }
        );
        let e = parse(
            "  kworker/1:2-55 [001] d.h.. 100.5: irq_handler_entry: irq=36 name=virtio1-req.0",
        )
        .unwrap();
        assert_eq!(
            e.what,
            What::IrqEntry {
                irq: Some(36),
                vector: None,
                name: "virtio1-req.0".into()
            }
        );
        let e = parse("  a b-9 [000] d..2. 7.000001: sched_switch: prev_comm=a b prev_pid=9 prev_prio=120 prev_state=R ==> next_comm=burst er next_pid=42 next_prio=49").unwrap();
        assert_eq!(
            e.what,
            What::Switch {
                prev_pid: 9,
                prev_comm: "a b".into(),
                next_pid: 42,
                next_comm: "burst er".into()
            }
        );
        // The line's task of a switch is the one it leaves.
        assert_eq!(e.task, Some((9, "a b".to_string())));
        for junk in [
            "  x-1 [001] d... 1.0: vector_alloc: irq=1",
            "  x-1 [001] d... 1.0: nmi_handler: garbage",
            "  x-1 [001] d... 1.0: hrtimer_start: hrtimer=1 function=f expires=1",
        ] {
            assert!(parse(junk).is_none(), "{junk}");
        }
    }
}
