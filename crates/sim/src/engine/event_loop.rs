//! The main loop: the next instant, charging elapsed time to what ran, and the same-instant order.

use super::*;

impl Sim {
    /// Current simulated time.
    pub fn now(&self) -> Picos {
        Picos(self.now)
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Runs until `until` (exclusive: events at exactly `until` are not processed).
    pub fn run_until(&mut self, until: Picos) {
        self.run_loop(until.0, false);
    }

    /// Runs through `until` (inclusive: every event at exactly `until` is processed and
    /// the clock stays there). The multicore driver steps every core through one
    /// instant at a time (`crate::multicore`).
    pub(crate) fn run_through(&mut self, until: i64) {
        self.run_loop(until, true);
    }

    /// The next instant at which something happens (after dispatching what is pending).
    pub(crate) fn next_instant(&mut self) -> i64 {
        self.dispatch();
        self.next_times().0
    }

    /// (next instant, activity end, tick, interrupt arrival). Inlined into the loop: it
    /// runs once per event and the call cost was a tenth of the loop's (callgrind).
    #[inline(always)]
    fn next_times(&self) -> (i64, i64, i64, i64) {
        let t_act = self.activity_end();
        let t_tick = self.next_tick_at();
        let t_irq = self.next_irq_at();
        let t = t_act.min(t_tick).min(t_irq).min(self.wake_timer);
        (t, t_act, t_tick, t_irq)
    }

    /// The next tick's arrival (a relayed one on a core whose tick is relayed), `NEVER`
    /// while the CPU sleeps or wakes.
    #[inline(always)]
    pub(super) fn next_tick_at(&self) -> i64 {
        if let Some(q) = &self.tick_ext {
            q.front().map_or(NEVER, |&(at, _)| at)
        } else if !self.sleeping && !self.waking {
            self.tick_time(self.next_tick_k)
        } else {
            NEVER
        }
    }

    /// The next interrupt arrival.
    #[inline(always)]
    pub(super) fn next_irq_at(&self) -> i64 {
        let mut t_irq = NEVER;
        for &t in &self.irq_next {
            t_irq = t_irq.min(t);
        }
        t_irq
    }

    fn run_loop(&mut self, until: i64, inclusive: bool) {
        self.run_limit = until;
        self.run_inclusive = inclusive;
        self.run_loop_to(until, inclusive);
        self.run_limit = i64::MIN;
    }

    fn run_loop_to(&mut self, until: i64, inclusive: bool) {
        loop {
            self.dispatch();
            if self.chains.is_some() {
                self.chain_job_runs();
            }
            let (t, t_act, t_tick, t_irq) = self.next_times();
            if t > until || (t == until && !inclusive) {
                self.advance(until);
                return;
            }
            // A job's step of zero length (a section beginning where the job resumes)
            // waits for the arrivals at the same instant and the work they bring: a
            // section begins only once the job has run.
            let zero_step = t_act == self.now
                && self.frames.is_empty()
                && self.task_running().is_some()
                && (t_tick == t || t_irq == t || self.wake_timer == t);
            self.advance(t);
            if t_act == t && !zero_step {
                self.complete();
            }
            if t_tick == t && !self.quiet_tick(t_irq, until, inclusive) {
                self.tick_arrival();
            }
            if t_irq == t {
                for q in 0..self.irq_next.len() {
                    if self.irq_next[q] == t {
                        self.irq_arrival(q);
                    }
                }
            }
            if self.wake_timer == t {
                self.wake_timer = NEVER;
                self.wake_req = true;
                self.wake_by_timer = true;
            }
        }
    }

    /// Tells the chain observer which task runs now (no handler or kernel frame on top):
    /// a `read = "start"` chain's reader reads at its job's first run.
    fn chain_job_runs(&mut self) {
        if !self.frames.is_empty() || self.sleeping {
            return;
        }
        let Some(i) = self.task_running() else {
            return;
        };
        let arrival = self.job_arrival[i];
        if let Some(c) = self.chains.as_deref_mut() {
            c.task_runs(i, arrival);
        }
    }

    #[inline]
    pub(super) fn task_running(&self) -> Option<usize> {
        if self.tick_mode {
            (self.cur != self.idle && self.has_job[self.cur] && !self.cur_blocked)
                .then_some(self.cur)
        } else {
            self.ls_cur
        }
    }

    #[inline(always)]
    pub(super) fn activity_end(&self) -> i64 {
        if let Some(f) = self.frames.last() {
            let mut r = f.rem;
            if let FrameKind::Irq(q) = f.kind {
                // stop at the handler's next section boundary
                if let Some(&(at, _, _)) = self.irq_bounds[q as usize].get(f.bi as usize) {
                    r = r.min((at - (f.total - f.rem)).max(0));
                }
            }
            return self.now.saturating_add(r);
        }
        if self.sleeping {
            return NEVER;
        }
        match self.task_running() {
            Some(i) => self.now.saturating_add(self.op_rem[i]),
            None => NEVER,
        }
    }

    #[inline(always)]
    pub(super) fn advance(&mut self, t: i64) {
        let dt = t - self.now;
        if dt <= 0 {
            self.now = self.now.max(t);
            return;
        }
        if let Some(f) = self.frames.last_mut() {
            f.rem -= dt;
            match f.kind {
                FrameKind::Tick => self.cpu.tick += dt,
                FrameKind::PendSv | FrameKind::ThreadSwitch(_) => self.cpu.switch += dt,
                FrameKind::Irq(_) => self.cpu.irq += dt,
                FrameKind::Wake => self.cpu.wake += dt,
                FrameKind::Sched => self.cpu.sched += dt,
            }
        } else if self.sleeping {
            self.cpu.sleep += dt;
        } else if let Some(i) = self.task_running() {
            self.op_rem[i] -= dt;
            self.cpu.task += dt;
            self.task_cpu[i] += dt;
            if self.res_on {
                // blocking: a lower-priority task runs while a higher job is pending
                let b = self.base[i];
                for j in 0..self.n {
                    if j != i && self.has_job[j] && self.base[j] > b {
                        self.job_inv[j] += dt;
                    }
                }
            }
        } else {
            self.cpu.idle += dt;
        }
        self.now = t;
    }

    /// Kernel-level interrupts, the tick and PendSV held off: a kernel frame runs, or a
    /// task or handler is inside a kernel (or application) critical section.
    #[inline]
    pub(super) fn masked(&self) -> bool {
        self.mask_depth > 0
    }
}
