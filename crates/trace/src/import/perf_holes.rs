//! Holes in a `perf.data` recording that perf did not report.
//!
//! perf writes a LOST record when a ring buffer overflows, but it can also miss events
//! without saying so: on a 2-vCPU guest here, no sample was ever recorded in the context
//! of some tasks (one CPU's idle task, another process's threads), so the switches to
//! and from them are simply absent, and the tasks switched to in their place seem never
//! to have been switched in. Left alone, those tasks get wrong start latencies and
//! execution times with nothing to say so.
//!
//! The evidence used is one the kernel guarantees: every tracepoint sample is taken in
//! the context of the task running on the sample's CPU (the sample's `tid`; for
//! `sched_switch` that is `prev_pid`), and that task is the one the last `sched_switch`
//! on that CPU put there (`next_pid`). A sample on CPU c whose task is not the one c's
//! last switch put there means switches on c are missing: a hole on c, after the last
//! sample on c that agreed. The missing switches lie before the sample that disagreed,
//! but the window runs on to the next switch recorded on c (or the recording's end):
//! until then the recorded switches, and so the event model, still name the task that
//! was there before, and figures there are as wrong as inside the gap. The first sample
//! of each CPU sets what it runs; the disagreeing sample's task is what it runs from
//! then on.
//!
//! One more case at a CPU's first sample (perf enables each CPU's buffer in turn, so a
//! CPU's recording may start later than the others'): when it runs in a task that was
//! woken earlier in the recording and has not been switched in anywhere since, its
//! switch-in on that CPU is missing — a hole from the wake-up to that sample.
//!
//! Two readings run side by side, because the sample `tid` is reported in perf's own pid
//! namespace while the tracepoint fields carry the kernel's global pids: one compares
//! only `sched_switch` fields (`prev_pid` against the previous `next_pid`), the other also
//! each sample's `tid`, which finds the hole at its first disagreeing sample rather
//! than at the next switch. The second is used unless a `sched_switch` sample's `tid`
//! differs from its own `prev_pid` (perf ran in another pid namespace, so `tid`s cannot
//! be compared with fields).
//!
//! Not used as evidence, because the kernel produces it without loss: a wake-up of a
//! task that seems to be running (a task that set its sleeping state is woken before it
//! calls the scheduler), and a task switched in on one CPU shortly before its switch-out
//! on another is dated (per-CPU clocks may be skewed by a few µs) — that second case is
//! also found, soundly, by the next sample on the CPU it left.

use std::collections::HashMap;

/// One hole: on `cpu`, switches after `from_ns` are missing, and the recorded switches do
/// not say what ran there until `to_ns`; `found` (a pid, 0 for idle) is the task the
/// disagreeing sample ran in, which ran there unseen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hole {
    pub cpu: u32,
    pub from_ns: u64,
    pub to_ns: u64,
    pub found: i64,
}

/// What one CPU runs and the last time a sample agreed with it.
#[derive(Clone, Copy, Default)]
struct CpuState {
    current: Option<i64>,
    seen_ns: u64,
    /// A hole on this CPU not yet closed by a switch (index into `holes`).
    open: Option<usize>,
}

/// One reading: per CPU the task it runs.
#[derive(Default)]
struct Detector {
    cpus: Vec<CpuState>,
    holes: Vec<Hole>,
    /// Tasks woken and not seen running since: when.
    woken: HashMap<i64, u64>,
}

impl Detector {
    fn cpu(&mut self, cpu: u32) -> &mut CpuState {
        let i = cpu as usize;
        if i >= self.cpus.len() {
            self.cpus.resize(i + 1, CpuState::default());
        }
        &mut self.cpus[i]
    }

    /// Ends the CPU's open hole at `t`.
    fn close(&mut self, cpu: u32, t: u64) {
        if let Some(i) = self.cpu(cpu).open.take() {
            if let Some(h) = self.holes.get_mut(i) {
                h.to_ns = h.to_ns.max(t);
            }
        }
    }

    /// A sample at `t` on `cpu` ran in task `ctx`.
    fn observe(&mut self, t: u64, cpu: u32, ctx: i64) {
        let s = *self.cpu(cpu);
        let woken = self.woken.remove(&ctx).filter(|_| ctx != 0);
        let from = match (s.current, woken) {
            (Some(cur), _) if cur != ctx => Some(s.seen_ns),
            (None, Some(w)) => Some(w),
            _ => None,
        };
        if let Some(from) = from {
            self.close(cpu, t);
            self.holes.push(Hole {
                cpu,
                from_ns: from.min(t),
                to_ns: t,
                found: ctx,
            });
            self.cpu(cpu).open = Some(self.holes.len() - 1);
        }
        let s = self.cpu(cpu);
        s.current = Some(ctx);
        s.seen_ns = t;
    }

    /// A `sched_switch` at `t` on `cpu` put `next` there.
    fn switched(&mut self, t: u64, cpu: u32, next: i64) {
        self.woken.remove(&next);
        self.close(cpu, t);
        let s = self.cpu(cpu);
        s.current = Some(next);
        s.seen_ns = t;
    }

    /// The holes, those no switch closed running to `end_ns`.
    fn finish(mut self, end_ns: u64) -> Vec<Hole> {
        for c in 0..self.cpus.len() {
            self.close(c as u32, end_ns);
        }
        self.holes
    }
}

/// Both readings over a whole recording, fed in time order.
#[derive(Default)]
pub struct Holes {
    by_switch: Detector,
    by_context: Detector,
    /// A `sched_switch` sample whose `tid` is not its `prev_pid` was seen.
    tids_foreign: bool,
}

impl Holes {
    /// A `sched_switch` sample: `prev` → `next` on `cpu` at `t`, taken in task `tid`
    /// (None when the samples carry no TID).
    pub fn switch(&mut self, t: u64, cpu: u32, prev: i64, next: i64, tid: Option<i64>) {
        if tid.is_some_and(|tid| tid != prev) {
            self.tids_foreign = true;
        }
        for d in [&mut self.by_switch, &mut self.by_context] {
            d.observe(t, cpu, prev);
            d.switched(t, cpu, next);
        }
    }

    /// Any other sample on `cpu` at `t`, taken in task `tid`.
    pub fn other(&mut self, t: u64, cpu: u32, tid: Option<i64>) {
        if let Some(tid) = tid {
            self.by_context.observe(t, cpu, tid);
        }
    }

    /// A wake-up of `pid` at `t` (after [`Holes::other`] for the sample itself).
    pub fn woken(&mut self, t: u64, pid: i64) {
        for d in [&mut self.by_switch, &mut self.by_context] {
            d.woken.entry(pid).or_insert(t);
        }
    }

    /// The holes found, in the order found; `end_ns` is the recording's last sample.
    pub fn finish(self, end_ns: u64) -> Vec<Hole> {
        if self.tids_foreign {
            self.by_switch.finish(end_ns)
        } else {
            self.by_context.finish(end_ns)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consistent_switches_leave_no_hole() {
        let mut h = Holes::default();
        h.switch(10, 0, 5, 6, Some(5));
        h.other(12, 0, Some(6));
        h.switch(20, 0, 6, 0, Some(6));
        h.switch(15, 1, 7, 8, Some(7));
        h.switch(30, 1, 8, 7, Some(8));
        assert!(h.finish(40).is_empty());
    }

    /// CPU 1 ran idle; its switch to 9 was not recorded. The hole starts at the last
    /// sample on CPU 1 that agreed and runs to the next switch there (until which the
    /// switches still say idle runs); CPU 0's events do not narrow or widen it.
    #[test]
    fn a_sample_in_another_task_ends_a_hole_on_its_cpu() {
        let mut h = Holes::default();
        h.switch(100, 1, 4, 0, Some(4));
        h.other(110, 1, Some(0)); // idle wakes something: agrees
        h.switch(115, 0, 2, 3, Some(2));
        h.other(130, 1, Some(9)); // 9 runs, its switch-in is missing
        h.other(135, 0, Some(3));
        h.switch(140, 1, 9, 4, Some(9)); // agrees with the new belief
        h.other(150, 1, Some(5)); // 4 left unseen: a second hole, to the end
        let holes = h.finish(170);
        assert_eq!(
            holes,
            vec![
                Hole {
                    cpu: 1,
                    from_ns: 110,
                    to_ns: 140,
                    found: 9
                },
                Hole {
                    cpu: 1,
                    from_ns: 140,
                    to_ns: 170,
                    found: 5
                }
            ]
        );
    }

    /// Samples whose tid is in another pid namespace than the fields: only switches count,
    /// and the hole ends at the switch that disagrees.
    #[test]
    fn foreign_tids_fall_back_to_switch_fields() {
        let mut h = Holes::default();
        h.switch(100, 0, 4, 5, Some(1004));
        h.other(110, 0, Some(1005));
        h.switch(120, 0, 6, 4, Some(1006));
        assert_eq!(
            h.finish(130),
            vec![Hole {
                cpu: 0,
                from_ns: 100,
                to_ns: 120,
                found: 6
            }]
        );
    }

    /// CPU 1's first sample runs in task 7, woken at 50 and never switched in since:
    /// its switch-in there is missing. Task 8, woken and then switched in, is not.
    #[test]
    fn a_cpus_first_sample_in_a_woken_task_is_a_hole() {
        let mut h = Holes::default();
        h.switch(10, 0, 3, 4, Some(3));
        h.other(50, 0, Some(4));
        h.woken(50, 7);
        h.woken(55, 8);
        h.switch(60, 0, 4, 8, Some(4));
        h.other(70, 1, Some(7));
        h.other(75, 0, Some(8));
        h.switch(80, 1, 7, 0, Some(7));
        assert_eq!(
            h.finish(90),
            vec![Hole {
                cpu: 1,
                from_ns: 50,
                to_ns: 80,
                found: 7
            }]
        );
    }

    #[test]
    fn samples_without_tid_use_switches() {
        let mut h = Holes::default();
        h.switch(100, 0, 4, 5, None);
        h.other(110, 0, None);
        h.switch(120, 0, 6, 4, None);
        let holes = h.finish(130);
        assert_eq!(holes.len(), 1);
        assert_eq!((holes[0].from_ns, holes[0].to_ns), (100, 120));
    }
}
