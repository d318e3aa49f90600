//! What held a CPU between a timer's expiry and the measuring thread's wake-up, from the
//! events of that CPU: the split into interrupt latency (expiry → hrtimer handler) and
//! thread latency (handler → the thread reading the clock), and the blockers — interrupt
//! handlers, softirqs, other tasks (with policy, priority and time run), idle — with how
//! long each held the CPU inside the window.

use super::parse::{describe_prio, Event, Kind};
use super::steal::Steal;
use latscope_core::time::human;
use serde::{Deserialize, Serialize};

/// Task names of latscope's own measuring threads (`latscope-cpuN`).
pub const MEASURING_COMM: &str = "latscope-cpu";

/// One thing that held the CPU during a spike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Blocker {
    /// `irq`, `softirq`, `task`, `idle`, `steal`, `timer_late` (the interrupt part with
    /// only a task current: IRQs off or the vCPU not running, [`TIMER_LATE`]) or
    /// `unknown`.
    pub kind: String,
    pub name: String,
    pub duration_ns: i64,
    /// For tasks: FIFO, RR, OTHER (RT when the trace alone cannot tell FIFO from RR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// For tasks: real-time priority (1..99) or nice value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// For tasks: the process id (thread group), where it could be resolved (the
    /// process still existed at the end of the window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<i32>,
    /// For tasks: the thread id, as the trace records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<i32>,
}

impl Blocker {
    /// One of latscope's own helper threads (`latscope-trace`, `latscope-rivals`, …),
    /// not the measuring thread: named as such, since a user would otherwise hunt for it.
    pub fn is_latscope_helper(&self) -> bool {
        self.kind == "task" && self.name.starts_with("latscope-")
    }
}

/// One sample above `--trace-above`, explained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Spike {
    pub cpu: u32,
    /// Intended wake time, ns since the phase start.
    pub at_ns: i64,
    pub latency_ns: i64,
    /// Timer expiry → hrtimer handler; None when the trace did not show the handler.
    pub irq_latency_ns: Option<i64>,
    /// Handler → the measuring thread running (latency − irq latency).
    pub thread_latency_ns: Option<i64>,
    /// Longest first.
    pub blockers: Vec<Blocker>,
    /// One line: "cpu 1, 2.3 ms: 2.1 ms ran 'kworker/1:2' FIFO 90; …".
    pub explanation: String,
    /// Events the trace lost in this spike's window, where the lost-events markers
    /// counted them (0 also when a loss had no count: see `incomplete`).
    #[serde(default)]
    pub lost_events: u64,
    /// Why the blockers may be incomplete (the trace lost events in or possibly in this
    /// window), or null when the window's trace is whole.
    #[serde(default)]
    pub incomplete: Option<String>,
    /// The hypervisor's steal time the per-CPU counter places in this window (absent
    /// when the counter was not read around it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal: Option<Steal>,
    /// Spikes on several CPUs whose windows coincide share a group number
    /// ([`super::stalls::group`]): the CPUs stalled together, which no task on one of
    /// them can cause (a hypervisor descheduling the guest, or an SMI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_group: Option<StallGroup>,
}

/// Several CPUs stalled at the same time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StallGroup {
    /// Group number, the same for each spike of the group (from 1, in time order).
    pub id: u32,
    /// The CPUs of the group.
    pub cpus: Vec<u32>,
    /// Every measured CPU stalled (said as "all CPUs stalled together").
    pub all_cpus: bool,
}

impl Spike {
    /// Marks the spike as possibly incomplete (the first reason is kept; counts add up).
    pub fn mark_incomplete(&mut self, lost_events: u64, why: String) {
        self.lost_events = self.lost_events.saturating_add(lost_events);
        if self.incomplete.is_none() {
            self.incomplete = Some(why);
        }
        self.rebuild_explanation();
    }

    /// Sets the steal placed in the window.
    pub fn set_steal(&mut self, steal: Steal) {
        self.steal = Some(steal);
        self.rebuild_explanation();
    }

    /// Sets the group of CPUs that stalled with this one.
    pub fn set_stall_group(&mut self, g: StallGroup) {
        self.stall_group = Some(g);
        self.rebuild_explanation();
    }

    /// Fills each task blocker's process id from its thread id (`tgid_of`: live runs
    /// read /proc/TID/status) and renews the explanation.
    pub fn resolve_pids(&mut self, tgid_of: &dyn Fn(i32) -> Option<i32>) {
        for b in &mut self.blockers {
            if let (None, Some(tid)) = (b.pid, b.tid) {
                b.pid = tgid_of(tid);
            }
        }
        self.rebuild_explanation();
    }

    /// The explanation line: blockers, then steal where the counter placed any, then the
    /// warning when events were lost.
    fn rebuild_explanation(&mut self) {
        let mut text = explain(
            self.cpu,
            self.latency_ns,
            self.irq_latency_ns,
            &self.blockers,
        );
        if let Some(g) = &self.stall_group {
            let cpus: Vec<String> = g.cpus.iter().map(u32::to_string).collect();
            if g.all_cpus {
                text.push_str(&format!(
                    "; all CPUs stalled together (cpus {}: hypervisor or SMI)",
                    cpus.join(",")
                ));
            } else {
                text.push_str(&format!(
                    "; {} CPUs stalled together (cpus {}: hypervisor or SMI likely)",
                    g.cpus.len(),
                    cpus.join(",")
                ));
            }
        }
        // Only steal the counter places in the window for certain is named.
        if let Some(st) = self.steal.filter(|s| s.min_ns > 0) {
            text.push_str(&format!(
                "; steal at least {} of it (the hypervisor ran something else; /proc/stat)",
                human::ns(st.min_ns as f64)
            ));
        }
        if let Some(why) = &self.incomplete {
            text.push_str(&format!(" (MAY BE INCOMPLETE: {why})"));
        }
        self.explanation = text;
    }
}

/// Name of the interrupt part's time when only a task was current: a task cannot hold
/// off a hardware timer interrupt unless it disabled interrupts, and the guest's vCPU
/// not running looks the same from inside; charging the task would blame a bystander.
pub const TIMER_LATE: &str = "timer interrupt late: IRQs off or vCPU not running";

/// Below this, the interrupt part with only a task current is called what it usually is:
/// the timer interrupt's ordinary entry (a few us, more in a virtual machine).
pub const TIMER_ENTRY_NS: i64 = 20_000;

/// Name of the time no event accounts for: the CPU changed task inside it untraced.
pub const UNTRACED_CHANGE: &str =
    "unknown (no event: the CPU changed task without a traced switch)";

/// Most blockers kept per spike (the longest).
pub const MAX_BLOCKERS: usize = 8;

/// The hrtimer handler time (`now` of `hrtimer_expire_entry`, ns) of the measuring
/// thread's timer due at `expires_abs`, from one CPU's events in time order. The timer
/// is found through the `hrtimer_start` a measuring thread issued for that expiry (the
/// closest within 200 µs after it, for relative sleeps); for timerfd, the first
/// `timerfd_tmrproc` expiry at or after it.
pub fn handler_time(events: &[Event], expires_abs: i64, wake_abs: i64) -> Option<i64> {
    let mut best: Option<(i64, u64)> = None;
    for e in events {
        if let Kind::HrtimerStart {
            hrtimer, expires, ..
        } = &e.kind
        {
            if e.comm.starts_with(MEASURING_COMM) {
                let d = expires - expires_abs;
                if (0..=200_000).contains(&d) && best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, *hrtimer));
                }
            }
        }
    }
    let limit = wake_abs.saturating_add(1_000_000);
    for e in events {
        if let Kind::HrtimerExpire {
            hrtimer,
            function,
            now,
        } = &e.kind
        {
            if *now < expires_abs || *now > limit {
                continue;
            }
            match best {
                Some((_, p)) if *hrtimer == p => return Some(*now),
                None if function == "timerfd_tmrproc" => return Some(*now),
                _ => {}
            }
        }
    }
    None
}

#[derive(Clone, Debug)]
struct Current {
    comm: String,
    pid: i32,
    prio: Option<i32>,
}

/// Kernel priorities of the tasks seen so far, from `sched_waking` and `sched_switch`.
#[derive(Default)]
struct Prios(Vec<(i32, i32)>);

impl Prios {
    fn learn(&mut self, e: &Event) {
        let (pid, prio) = match &e.kind {
            Kind::Waking { pid, prio, .. } => (*pid, *prio),
            Kind::Switch {
                next_pid,
                next_prio,
                ..
            } => (*next_pid, *next_prio),
            _ => return,
        };
        match self.0.iter_mut().find(|x| x.0 == pid) {
            Some(x) => x.1 = prio,
            None => self.0.push((pid, prio)),
        }
    }

    fn of(&self, pid: i32) -> Option<i32> {
        self.0.iter().find(|x| x.0 == pid).map(|x| x.1)
    }
}

/// What one CPU was doing, as far as its events tell: the current task, and the
/// interrupt handler or softirq running on top of it.
#[derive(Default)]
struct CpuState {
    cur: Option<Current>,
    irq: Option<String>,
    softirq: Option<String>,
    prios: Prios,
}

impl CpuState {
    /// Moves the state past one event.
    fn step(&mut self, e: &Event) {
        self.prios.learn(e);
        self.follow_prefix(e);
        match &e.kind {
            Kind::Switch {
                next_comm,
                next_pid,
                next_prio,
                ..
            } => {
                self.cur = Some(Current {
                    comm: next_comm.clone(),
                    pid: *next_pid,
                    prio: Some(*next_prio),
                });
                self.irq = None;
                self.softirq = None;
            }
            Kind::IrqEntry { name, .. } => self.irq = Some(name.clone()),
            Kind::IrqExit { .. } => self.irq = None,
            Kind::SoftirqEntry { name, .. } => self.softirq = Some(name.clone()),
            Kind::SoftirqExit { .. } => self.softirq = None,
            _ => {}
        }
    }

    /// Every event names the task that was current when it was recorded. Some kernels
    /// emit no `sched_switch` when the CPU leaves its idle task (seen on a virtual
    /// machine's 6.x kernel: `rcu_preempt ==> swapper/1` is traced, `swapper/1 ==>
    /// rcu_preempt` is not), so a task that was woken from idle shows up first in the
    /// prefix of its own events: follow it, or its whole run would be charged to idle.
    fn follow_prefix(&mut self, e: &Event) {
        if self.cur.as_ref().is_some_and(|c| c.pid == e.pid) {
            return;
        }
        self.cur = Some(Current {
            comm: e.comm.clone(),
            pid: e.pid,
            prio: self.prios.of(e.pid),
        });
    }
}

/// Resolves the real policy of a task by pid (live runs ask the kernel); None keeps what
/// the trace says.
pub type PolicyOf<'a> = dyn Fn(i32) -> Option<String> + 'a;

/// Attributes one spike. `events` are one CPU's events in time order and must reach
/// back before `expires_abs` (for the task that was running then) and cover the window
/// up to `expires_abs + latency_ns`.
pub fn attribute(
    events: &[Event],
    cpu: u32,
    expires_abs: i64,
    at_ns: i64,
    latency_ns: i64,
    policy_of: &PolicyOf,
) -> Spike {
    let t0 = expires_abs;
    let t1 = expires_abs.saturating_add(latency_ns.max(0));
    let handler = handler_time(events, t0, t1);
    let irq_latency_ns = handler.map(|h| (h - t0).clamp(0, latency_ns.max(0)));
    let thread_latency_ns = irq_latency_ns.map(|i| latency_ns - i);

    let mut st = state_at(events, t0);
    let mut acc = Shares {
        t0,
        t1,
        handler,
        rows: Vec::new(),
    };
    let mut c = t0;
    for e in events.iter().filter(|e| e.ts > t0) {
        if e.ts > t1 {
            break;
        }
        acc.charge(c, e.ts, &st, Some(e.pid));
        c = e.ts;
        st.step(e);
    }
    let after = events.iter().find(|e| e.ts > t1).map(|e| e.pid);
    acc.charge(c, t1, &st, after);

    let blockers = acc.blockers(policy_of);
    let explanation = explain(cpu, latency_ns, irq_latency_ns, &blockers);
    Spike {
        cpu,
        at_ns,
        latency_ns,
        irq_latency_ns,
        thread_latency_ns,
        blockers,
        explanation,
        lost_events: 0,
        incomplete: None,
        steal: None,
        stall_group: None,
    }
}

/// The CPU's state at `t0`: who was on the CPU is the last switch before it, else the
/// first later event's task.
fn state_at(events: &[Event], t0: i64) -> CpuState {
    let mut st = CpuState::default();
    for e in events.iter().take_while(|e| e.ts <= t0) {
        st.step(e);
    }
    if st.cur.is_none() {
        st.cur = events.iter().find(|e| e.ts > t0).map(|e| Current {
            comm: e.comm.clone(),
            pid: e.pid,
            prio: None,
        });
    }
    st
}

/// One holder's share: (kind, name, pid, prio, ns).
type Share = (String, String, i32, Option<i32>, i64);

/// The window `[t0, t1]` shared out among what held the CPU.
struct Shares {
    t0: i64,
    t1: i64,
    /// When the hrtimer handler ran, if the trace shows it.
    handler: Option<i64>,
    rows: Vec<Share>,
}

impl Shares {
    /// Charges the piece `[from, to]` (clipped to the window) to what `st` says held the
    /// CPU. `next_pid`: the task named by the event that ends the piece. When it is not
    /// the task the state holds, the CPU changed task somewhere inside the piece without
    /// a traced switch (a wake from idle on kernels that trace none): who held it is
    /// unknown, and charging it to the old task (idle, mostly) would be wrong.
    fn charge(&mut self, from: i64, to: i64, st: &CpuState, next_pid: Option<i32>) {
        let (a, b) = (from.max(self.t0), to.min(self.t1));
        if b <= a {
            return;
        }
        let changed = matches!((&st.cur, next_pid), (Some(c), Some(p)) if c.pid != p);
        let (a, late) = self.timer_late_part(a, b, st, changed);
        if late > 0 {
            match self.rows.iter_mut().find(|x| x.0 == "timer_late") {
                Some(x) => x.4 += late,
                None => self
                    .rows
                    .push(("timer_late".into(), TIMER_LATE.into(), -1, None, late)),
            }
        }
        if b <= a {
            return;
        }
        let (kind, name, pid, prio) = holder(st, changed);
        match self
            .rows
            .iter_mut()
            .find(|x| x.0 == kind && x.1 == name && x.2 == pid)
        {
            Some(x) => x.4 += b - a,
            None => self.rows.push((kind.to_string(), name, pid, prio, b - a)),
        }
    }

    /// The start of what is left of `[a, b]` and the part before it that goes to
    /// [`TIMER_LATE`]. Before the hrtimer handler ran (the interrupt part), a task or
    /// "nothing traced" on the CPU did not delay the interrupt by itself. Interrupt
    /// handlers, softirqs and idle exit keep their names there.
    fn timer_late_part(&self, a: i64, b: i64, st: &CpuState, changed: bool) -> (i64, i64) {
        let plain = st.irq.is_none() && st.softirq.is_none();
        let task_like = match &st.cur {
            Some(c) => c.pid != 0,
            None => true,
        };
        match self.handler {
            Some(h) if plain && task_like && !changed && a < h => {
                let e = b.min(h);
                (e, e - a)
            }
            _ => (a, 0),
        }
    }

    /// The blockers, longest first, at most [`MAX_BLOCKERS`], without the measuring
    /// thread itself; a task's policy resolved by `policy_of` where the trace says only
    /// "RT".
    fn blockers(self, policy_of: &PolicyOf) -> Vec<Blocker> {
        let mut blockers: Vec<Blocker> = self
            .rows
            .into_iter()
            .filter(|x| x.0 != "self")
            .map(|(kind, name, pid, prio, d)| {
                let (policy, priority) = match (kind.as_str(), prio) {
                    ("task", Some(p)) => {
                        let (pol, pr) = describe_prio(p);
                        let pol = if pol == "RT" {
                            policy_of(pid).unwrap_or(pol)
                        } else {
                            pol
                        };
                        (Some(pol), Some(pr))
                    }
                    _ => (None, None),
                };
                let tid = (kind == "task" && pid > 0).then_some(pid);
                Blocker {
                    kind,
                    name,
                    duration_ns: d,
                    policy,
                    priority,
                    pid: None,
                    tid,
                }
            })
            .collect();
        blockers.sort_by_key(|b| std::cmp::Reverse(b.duration_ns));
        blockers.truncate(MAX_BLOCKERS);
        blockers
    }
}

/// What held the CPU in state `st`: (kind, name, pid, prio). `changed`: the task changed
/// without a traced switch (then unknown).
fn holder(st: &CpuState, changed: bool) -> (&'static str, String, i32, Option<i32>) {
    if changed {
        ("unknown", UNTRACED_CHANGE.to_string(), -1, None)
    } else if let Some(n) = &st.irq {
        ("irq", n.clone(), -1, None)
    } else if let Some(n) = &st.softirq {
        ("softirq", n.clone(), -1, None)
    } else {
        match &st.cur {
            Some(c) if c.pid == 0 => (
                "idle",
                "idle (waking the CPU from its idle state)".to_string(),
                0,
                None,
            ),
            Some(c) if c.comm.starts_with(MEASURING_COMM) => ("self", c.comm.clone(), c.pid, None),
            Some(c) => ("task", c.comm.clone(), c.pid, c.prio),
            None => (
                "unknown",
                "no trace event in the window".to_string(),
                -1,
                None,
            ),
        }
    }
}

/// "cpu 1, 2.3 ms: 2.1 ms ran 'kworker/1:2' FIFO 90; 200 µs softirq NET_RX".
pub fn explain(cpu: u32, latency: i64, irq: Option<i64>, blockers: &[Blocker]) -> String {
    let mut parts: Vec<String> = blockers
        .iter()
        .filter(|b| b.duration_ns > 0)
        .map(|b| {
            let d = human::ns(b.duration_ns as f64);
            match b.kind.as_str() {
                "task" => {
                    let pol = match (&b.policy, b.priority) {
                        (Some(p), Some(pr)) if p == "OTHER" => format!(" OTHER nice {pr}"),
                        (Some(p), Some(pr)) => format!(" {p} {pr}"),
                        _ => String::new(),
                    };
                    let ids = match (b.pid, b.tid) {
                        (Some(p), Some(t)) if p != t => format!(" pid {p} tid {t}"),
                        (Some(p), _) => format!(" pid {p}"),
                        (None, Some(t)) => format!(" tid {t}"),
                        _ => String::new(),
                    };
                    let own = if b.is_latscope_helper() {
                        " (latscope's own helper thread)"
                    } else {
                        ""
                    };
                    format!("{d} ran '{}'{ids}{pol}{own}", b.name)
                }
                "irq" => format!("{d} irq {}", b.name),
                "softirq" => format!("{d} softirq {}", b.name),
                "idle" => format!("{d} idle exit"),
                // A few us are the hardware's (and a VM's) ordinary interrupt entry.
                "timer_late" if b.duration_ns < TIMER_ENTRY_NS => {
                    format!("{d} timer interrupt entry")
                }
                "timer_late" => format!("{d} {TIMER_LATE}"),
                "steal" => format!("{d} steal ({})", b.name),
                _ => format!("{d} {}", b.name),
            }
        })
        .collect();
    if parts.is_empty() {
        parts.push("nothing else ran (the wake-up path itself)".into());
    }
    let split = match irq {
        Some(i) => format!(
            " [interrupt {}, thread {}]",
            human::ns(i as f64),
            human::ns((latency - i) as f64)
        ),
        None => String::new(),
    };
    format!(
        "cpu {cpu}, {}{split}: {}",
        human::ns(latency as f64),
        parts.join("; ")
    )
}
