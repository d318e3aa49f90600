//! The bottom line of a `measure` run: what dominates the tail, and the concrete fix
//! for each cause found — the few lines a user reads after the figures, instead of
//! deriving them from fifty lines of diagnosis.
//!
//! With `--trace-above`, every spike is classified by what held its CPU longest (or by
//! its stall group: several CPUs stalled together), and the causes are ranked by their
//! share of spikes. Without it, latscope cannot say which cause dominates; the
//! environment items that are known to lengthen the tail are listed as candidates, and
//! the line says how to find out.

use crate::env::{Item, Status};
use crate::ftrace::Spike;
use crate::output::Report;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The verdict after the figures (`bottom_line` in the JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BottomLine {
    /// One sentence: the tail and what dominates it (or that no trace says).
    pub summary: String,
    /// Causes, the most frequent first.
    pub causes: Vec<Cause>,
}

/// One cause of the tail, with its fix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cause {
    /// Stable identifier: `hypervisor_stall`, `timer_late`, `rt_task`, `kernel_preemption`,
    /// `task`, `irq`, `softirq`, `idle_exit`, `untraced`, or an environment item's name
    /// when the cause is only a candidate (no trace).
    pub cause: String,
    /// What was seen, in plain words (e.g. "ran 'kworker/1:2' pid 77 FIFO 90").
    pub what: String,
    /// Spikes this cause dominated, and their share of all spikes (percent); absent for
    /// candidates from the environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spikes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_pct: Option<f64>,
    /// The concrete fix.
    pub fix: String,
}

const FIX_VCPU: &str = "give the guest dedicated, pinned vCPUs (no overcommit) or run on bare metal; on bare metal, look for SMIs (BIOS power/thermal management)";
const FIX_PREEMPT: &str =
    "boot with preempt=full (PREEMPT_DYNAMIC kernels) or use a PREEMPT_RT kernel";
const FIX_IRQS_OFF: &str = "on a VM: dedicated vCPUs; on bare metal: a PREEMPT_RT kernel, and the irqsoff tracer to find the section that disables interrupts";
const FIX_ISOLATE: &str = "keep other work off the measured CPUs: isolcpus= (or a cpuset) with nohz_full= and rcu_nocbs= for them";
const FIX_IDLE: &str =
    "forbid deep idle states: --pm-qos 0 (or hold /dev/cpu_dma_latency at 0), or limit C-states";

fn env_item<'a>(r: &'a Report, name: &str) -> Option<&'a Item> {
    r.environment.items.iter().find(|i| i.name == name)
}

/// Whether the kernel preempts kernel code (mode `full`, or PREEMPT_RT).
fn fully_preemptible(r: &Report) -> bool {
    env_item(r, "preemption").is_some_and(|i| i.status == Status::Ok)
}

/// The cause of one spike: its stall group, else the blocker that held it longest.
fn classify(s: &Spike, r: &Report) -> (String, String, String) {
    if let Some(g) = &s.stall_group {
        let cpus: Vec<String> = g.cpus.iter().map(u32::to_string).collect();
        return (
            "hypervisor_stall".into(),
            format!(
                "{} stalled together (cpus {}): the hypervisor or firmware stopped the machine",
                if g.all_cpus {
                    "all CPUs"
                } else {
                    "several CPUs"
                },
                cpus.join(",")
            ),
            FIX_VCPU.into(),
        );
    }
    let Some(b) = s.blockers.iter().max_by_key(|b| b.duration_ns) else {
        return (
            "wake_up_path".into(),
            "nothing else ran: the kernel's own wake-up path".into(),
            FIX_PREEMPT.into(),
        );
    };
    let pid = b
        .pid
        .or(b.tid)
        .map(|p| format!(" pid {p}"))
        .unwrap_or_default();
    match b.kind.as_str() {
        "timer_late" => (
            "timer_late".into(),
            "the timer interrupt came late (interrupts off, or the vCPU not running)".into(),
            FIX_IRQS_OFF.into(),
        ),
        "task" if matches!(b.policy.as_deref(), Some("FIFO" | "RR" | "RT")) => (
            format!("rt_task:{}", b.name),
            format!(
                "real-time task '{}'{pid} {} {} ran first",
                b.name,
                b.policy.as_deref().unwrap_or(""),
                b.priority.unwrap_or(0)
            ),
            format!(
                "run '{}' below the measuring priority ({}) or move it off the measured CPUs (taskset, cpusets)",
                b.name, r.settings.priority
            ),
        ),
        "task" if !fully_preemptible(r) => (
            "kernel_preemption".into(),
            "ordinary tasks held the CPU in non-preemptible kernel code".into(),
            FIX_PREEMPT.into(),
        ),
        "task" => (format!("task:{}", b.name), format!("task '{}'{pid} ran first", b.name), FIX_ISOLATE.into()),
        "irq" => (
            format!("irq:{}", b.name),
            format!("interrupt handler '{}'", b.name),
            format!(
                "move interrupt '{}' off the measured CPUs (/proc/irq/N/smp_affinity, irqbalance banned CPUs) or use threaded interrupts (PREEMPT_RT)",
                b.name
            ),
        ),
        "softirq" => (
            format!("softirq:{}", b.name),
            format!("softirq {}", b.name),
            "move the interrupts that raise it off the measured CPUs, or use PREEMPT_RT (softirqs in threads)".into(),
        ),
        "idle" => (
            "idle_exit".into(),
            "waking the CPU from a deep idle state".into(),
            FIX_IDLE.into(),
        ),
        _ => (
            "untraced".into(),
            "time no trace event explains (lost events, or an untraced switch)".into(),
            "rerun with a larger trace buffer, or on fewer CPUs".into(),
        ),
    }
}

/// Candidates from the environment when no trace ranks the causes.
fn candidates(r: &Report) -> Vec<Cause> {
    let mut out = Vec::new();
    let mut add = |name: &str, what: String, fix: &str| {
        out.push(Cause {
            cause: name.into(),
            what,
            spikes: None,
            share_pct: None,
            fix: fix.into(),
        })
    };
    for i in &r.environment.items {
        let warn = matches!(i.status, Status::Warn | Status::Bad);
        match i.name.as_str() {
            "preemption" if warn => add("preemption", i.value.clone(), FIX_PREEMPT),
            "hypervisor" if warn => add("hypervisor", i.value.clone(), FIX_VCPU),
            "steal_time" if warn => add("steal_time", i.value.clone(), FIX_VCPU),
            "cpufreq" if warn => add(
                "cpufreq",
                i.value.clone(),
                "set the 'performance' governor on the measured CPUs",
            ),
            "cpuidle" if warn => add("cpuidle", i.value.clone(), FIX_IDLE),
            "rival_rt_threads" if warn => add(
                "rival_rt_threads",
                i.value.clone(),
                "lower those threads' priority below the measuring one or move them off the measured CPUs",
            ),
            "scheduling" if warn => add(
                "scheduling",
                i.value.clone(),
                "run as root or grant RLIMIT_RTPRIO so the measuring thread is real-time",
            ),
            "isolation" if i.value.contains("isolcpus=none") => {
                add("isolation", i.value.clone(), FIX_ISOLATE)
            }
            _ => {}
        }
    }
    out
}

fn fmt(ns: i64) -> String {
    latscope_core::time::human::ns(ns as f64)
}

/// The bottom line of a result.
pub fn of(r: &Report) -> BottomLine {
    let t = &r.total;
    let tail = if t.count == 0 {
        "No samples".to_string()
    } else {
        format!(
            "Tail: max {} (p99 {}, median {})",
            fmt(t.max_ns),
            fmt(t.p99_ns),
            fmt(t.p50_ns)
        )
    };
    let Some(spikes) = r.spikes.as_ref().filter(|s| !s.is_empty()) else {
        let causes = candidates(r);
        let summary = match (&r.spikes, causes.is_empty()) {
            (Some(_), _) => format!("{tail}; no sample crossed --trace-above, so nothing to blame."),
            (None, true) => format!(
                "{tail}. Nothing in the environment stands out; rerun with --trace-above (about the p99.9) as root to see what held the CPU."
            ),
            (None, false) => format!(
                "{tail}. Without --trace-above latscope cannot say which dominates; the environment points at: {}. Rerun as root with --trace-above to know.",
                causes.iter().map(|c| c.cause.as_str()).collect::<Vec<_>>().join(", ")
            ),
        };
        return BottomLine { summary, causes };
    };
    // (cause, what, fix, spikes, worst latency)
    let mut tally: Vec<(String, String, String, usize, i64)> = Vec::new();
    for s in spikes {
        let (cause, what, fix) = classify(s, r);
        match tally.iter_mut().find(|x| x.0 == cause) {
            Some(x) => {
                x.3 += 1;
                x.4 = x.4.max(s.latency_ns);
            }
            None => tally.push((cause, what, fix, 1, s.latency_ns)),
        }
    }
    tally.sort_by_key(|x| (std::cmp::Reverse(x.3), std::cmp::Reverse(x.4)));
    let n = spikes.len();
    let causes: Vec<Cause> = tally
        .into_iter()
        .map(|(cause, what, fix, k, _)| Cause {
            cause,
            what,
            spikes: Some(k),
            share_pct: Some(k as f64 * 100.0 / n as f64),
            fix,
        })
        .collect();
    let top = &causes[0];
    let summary = format!(
        "{tail}; {} of {n} spikes ({:.0} %) come from {}: {}.",
        top.spikes.unwrap_or(0),
        top.share_pct.unwrap_or(0.0),
        top.what,
        top.fix
    );
    BottomLine { summary, causes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftrace::attribute::{Blocker, StallGroup};

    fn report(preempt: Status) -> Report {
        let text = include_str!("../tests/fixtures/bottom_line_report.json");
        let mut r = Report::from_json(text).expect("fixture");
        for i in &mut r.environment.items {
            if i.name == "preemption" {
                i.status = preempt;
            }
        }
        r
    }

    fn spike(lat: i64, blocker: Option<(&str, &str, Option<&str>)>) -> Spike {
        let mut s = crate::ftrace::attribute::attribute(&[], 0, 0, 0, lat, &|_| None);
        s.blockers = blocker
            .map(|(kind, name, policy)| Blocker {
                kind: kind.into(),
                name: name.into(),
                duration_ns: lat,
                policy: policy.map(String::from),
                priority: Some(90),
                pid: Some(77),
                tid: Some(77),
            })
            .into_iter()
            .collect();
        s
    }

    #[test]
    fn the_dominant_cause_and_its_fix_come_first() {
        let mut r = report(Status::Warn);
        let mut stalled = spike(4_000_000, Some(("task", "grep", Some("OTHER"))));
        stalled.stall_group = Some(StallGroup {
            id: 1,
            cpus: vec![0, 1],
            all_cpus: true,
        });
        r.spikes = Some(vec![
            stalled.clone(),
            stalled.clone(),
            stalled,
            spike(2_000_000, Some(("task", "kworker/0:1", Some("FIFO")))),
            spike(900_000, Some(("task", "make", Some("OTHER")))),
        ]);
        let b = of(&r);
        assert_eq!(b.causes[0].cause, "hypervisor_stall");
        assert_eq!(b.causes[0].spikes, Some(3));
        assert_eq!(b.causes[0].share_pct, Some(60.0));
        assert!(b.summary.contains("3 of 5 spikes (60 %)"), "{}", b.summary);
        assert!(
            b.summary.contains("dedicated, pinned vCPUs"),
            "{}",
            b.summary
        );
        let rt = b
            .causes
            .iter()
            .find(|c| c.cause == "rt_task:kworker/0:1")
            .unwrap();
        assert!(rt.what.contains("pid 77") && rt.fix.contains("below the measuring priority"));
        // An OTHER task on a kernel that does not preempt: the preemption mode is blamed.
        assert!(b.causes.iter().any(|c| c.cause == "kernel_preemption"));
        // On a fully preemptible kernel the same OTHER task is a task to move away.
        let mut full = r.clone();
        for i in &mut full.environment.items {
            if i.name == "preemption" {
                i.status = Status::Ok;
            }
        }
        let b = of(&full);
        assert!(b
            .causes
            .iter()
            .any(|c| c.cause == "task:make" && c.fix.contains("isolcpus")));
    }

    #[test]
    fn without_a_trace_the_environment_names_candidates() {
        let r = report(Status::Warn);
        let b = of(&r);
        assert!(
            b.summary.contains("cannot say which dominates"),
            "{}",
            b.summary
        );
        assert!(b.causes.iter().all(|c| c.spikes.is_none()));
        assert!(b
            .causes
            .iter()
            .any(|c| c.cause == "preemption" && c.fix.contains("preempt=full")));
        let quiet = report(Status::Ok);
        assert!(!of(&quiet).causes.iter().any(|c| c.cause == "preemption"));
    }
}
