//! The diagnosis items a session adds after its run: what it did (scheduling, timer
//! slack, memory lock, PM QoS hold, background load), what explains a loaded run that is
//! faster, and what the tracing saw. One function per item keeps each item's wording
//! beside its status rule.

use super::{Plan, Prepared};
use crate::engine::{Effective, MemLock, PhaseResult};
use crate::env::{self, Item, Snapshot, Status};
use crate::ftrace::live::TraceResult;
use crate::output;

/// Which policy and priority the measuring threads got.
pub(super) fn scheduling(eff: &Effective) -> Item {
    Item {
        name: "scheduling".into(),
        status: if eff.fallback_reason.is_some() {
            Status::Bad
        } else if eff.policy == crate::settings::Policy::Other {
            Status::Warn
        } else {
            Status::Ok
        },
        value: match &eff.fallback_reason {
            Some(r) => format!("fell back to SCHED_OTHER: {r}"),
            None => format!("SCHED_{} priority {}", eff.policy.as_str().to_uppercase(), eff.priority),
        },
        effect: "A SCHED_OTHER measuring thread shares its CPU fairly with every other task, so its wake-ups wait behind them; results then describe ordinary threads, not real-time ones.".into(),
    }
}

/// The timer slack the measuring threads had in the first phase.
pub(super) fn timer_slack(first: &PhaseResult, interval_ns: i64) -> Item {
    let slacks: Vec<u64> = first.cpus.iter().filter_map(|c| c.timer_slack_ns).collect();
    Item {
        name: "timer_slack".into(),
        status: if slacks.is_empty() {
            Status::Unknown
        } else if slacks.iter().all(|&v| v <= 1_000) {
            Status::Ok
        } else {
            Status::Warn
        },
        value: if slacks.is_empty() {
            "not readable".into()
        } else {
            let lo = slacks.iter().min().copied().unwrap_or(0);
            let hi = slacks.iter().max().copied().unwrap_or(0);
            if lo == hi {
                format!("{lo} ns on every measuring thread (set with PR_SET_TIMERSLACK)")
            } else {
                format!("{lo}..{hi} ns on the measuring threads (set with PR_SET_TIMERSLACK)")
            }
        },
        effect: slack_effect(interval_ns),
    }
}

/// Whether the memory was locked.
pub(super) fn memory_lock(memlock: &MemLock) -> Item {
    Item {
        name: "memory_lock".into(),
        status: if memlock.locked { Status::Ok } else { Status::Warn },
        value: memlock.detail.clone(),
        effect: "Unlocked memory can be paged out or faulted in lazily; a page fault on the measuring path adds microseconds to milliseconds.".into(),
    }
}

/// The PM QoS hold latscope kept during the run.
pub(super) fn pm_qos_hold(us: i32) -> Item {
    Item {
        name: "pm_qos_hold".into(),
        status: Status::Info,
        value: format!("latscope held /dev/cpu_dma_latency at {us} µs for the run (released afterwards)"),
        effect: "While held, no CPU of the whole machine enters an idle state slower than this: results show the machine with deep idle states forbidden.".into(),
    }
}

/// The built-in load that ran during the measurement.
pub(super) fn background_load(plan: &Plan) -> Item {
    Item {
        name: "background_load".into(),
        status: Status::Info,
        value: plan
            .loads
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(","),
        effect: "Built-in load ran during the measurement (SCHED_OTHER threads, not pinned)."
            .into(),
    }
}

/// Why a loaded run came out faster than the idle one, when the compare phases and the
/// snapshots around them say so (steal time, idle states, frequency).
pub(super) fn underload(
    plan: &Plan,
    prep: &Prepared,
    phase_snaps: &[(Snapshot, i64)],
    phases: &[PhaseResult],
) -> Option<Item> {
    let ([a0, a1, b0, b1], [idle, loaded]) = (phase_snaps, phases) else {
        return None;
    };
    let s = &plan.settings;
    let (pi, pl) = (
        output::merged_stats(&idle.cpus).p50_ns,
        output::merged_stats(&loaded.cpus).p50_ns,
    );
    let steal = |x: &Snapshot, y: &Snapshot, ns: i64| {
        let ticks: u64 = s
            .cpus
            .iter()
            .map(|c| {
                let at = |m: &Snapshot| m.steal_ticks.get(c).copied().unwrap_or(0);
                at(y).saturating_sub(at(x))
            })
            .sum();
        let ms = ticks as f64 * 1000.0 / env::clk_tck().max(1) as f64;
        ms / (ns.max(1) as f64 / 1e9) / s.cpus.len().max(1) as f64
    };
    let (si, sl) = (
        steal(&a0.0, &a1.0, a1.1 - a0.1),
        steal(&b0.0, &b1.0, b1.1 - b0.1),
    );
    let find = |n: &str| {
        prep.items
            .iter()
            .find(|i| i.name == n)
            .map(|i| i.value.clone())
            .unwrap_or_else(|| "not readable".into())
    };
    crate::underload::explain((pi, pl), (si, sl), &find("cpuidle"), &find("cpufreq"))
}

/// What the `--trace-above` tracing saw: events, the split's source, matched samples,
/// spikes attributed and any lost events.
pub(super) fn tracing(t: &TraceResult, trace_above_ns: i64) -> Item {
    let total = t.matched + t.unmatched;
    let lost = t.lost_any();
    let split = match (&t.source_reason, t.source) {
        (None, src) => format!("split from {}", src.as_str()),
        (Some(why), src) => format!("split from {} ({why})", src.as_str()),
    };
    Item {
        name: "tracing".into(),
        status: if total > 0 && t.matched * 10 >= total * 9 && !lost {
            Status::Ok
        } else {
            Status::Warn
        },
        value: format!(
            "{} trace events ({} dropped from full windows); {}; timer handler found for {} of {} samples; {} spike(s) above {} ns attributed{}{}",
            t.events,
            t.events_dropped,
            split,
            t.matched,
            total,
            t.spikes.len(),
            trace_above_ns,
            if t.spikes_dropped > 0 {
                format!(", {} more not kept", t.spikes_dropped)
            } else {
                String::new()
            },
            if lost { lost_events(t) } else { String::new() }
        ),
        effect: "Kernel tracepoints (timer, irq, sched) in a private trace instance split each latency into the interrupt part (timer expiry to its handler) and the thread part (handler to the thread running), and name what held the CPU during each spike; the timerlat tracer gives the split where the kernel has it. A spike whose window lost events may be missing its cause.".into(),
    }
}

/// The tracing item's warning when the trace lost events, per CPU.
fn lost_events(t: &TraceResult) -> String {
    let sm = t.summary();
    format!(
        "; THE TRACE LOST EVENTS: {} ({}), {} spike(s) marked possibly incomplete",
        sm.lost_events,
        t.losses
            .iter()
            .filter(|l| l.any())
            .map(|l| format!("cpu {}: {}", l.cpu, l.lost()))
            .collect::<Vec<_>>()
            .join(", "),
        sm.spikes_incomplete
    )
}

/// What the tracing item says when `--trace-above` could not start.
pub(super) fn not_traced(why: &str) -> Item {
    Item {
        name: "tracing".into(),
        status: Status::Warn,
        value: format!("--trace-above: not traced: {why}"),
        effect: "Without tracepoints the spikes cannot be attributed and the interrupt/thread split of each latency is unknown; the run measured as usual.".into(),
    }
}

/// What the timer-slack item tells: the kernel may defer a thread's timer by up to its
/// slack, and what a program with the default slack would see at this interval.
fn slack_effect(interval_ns: i64) -> String {
    let select_us = (interval_ns.max(0) as f64 / 1e3 / 1000.0).max(50.0);
    format!(
        "The kernel may defer a thread's timer by up to the thread's slack to batch wake-ups \
         (`--timer-slack` sets it for the measuring threads). A program with the default slack \
         (50 µs for every SCHED_OTHER thread that does not change it: Python's time.sleep, \
         sleep(1), most services) wakes up to 50 µs later than a 1 ns-slack measurement shows; \
         one sleeping in select() or poll() (Python up to 3.10) gets max(50 µs, timeout/1000) \
         of slack: {select_us:.0} µs at this interval."
    )
}
