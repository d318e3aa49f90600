//! Context switches: the deferred switch (PendSV), its cost and the switch statistics.

use super::*;

impl Sim {
    pub(super) fn switch_cost(&self, levels: u32) -> i64 {
        match self.sw_const {
            Some(c) => c,
            None => self.sw_table[(levels as usize).min(self.sw_table.len() - 1)],
        }
    }

    pub(super) fn start_pendsv(&mut self) {
        self.pendsv_pending = false;
        let (to, skipped) = if self.edf {
            (self.edf_pick(), 0)
        } else {
            let (p, skipped) = self.select_level();
            (self.next_owner(p), skipped)
        };
        self.pendsv_to = to;
        self.pendsv_levels = skipped;
        let mut cost = self.l + self.switch_cost(if self.edf { self.n as u32 } else { skipped });
        if self.wake_extra_pending {
            self.wake_extra_pending = false;
            cost += self.cfg.tickless.as_ref().map_or(0, |t| t.switch_extra.0);
        }
        self.record_switch(self.cur, to, cost, skipped);
        if !self.pendsv_in_one_step(cost) {
            self.push_frame(FrameKind::PendSv, cost, self.now);
        }
    }

    /// The deferred switch just chosen, run and ended in one step when nothing can come
    /// before its end: no frame below it, no capture, no interrupt pending, and no tick,
    /// interrupt, wake-up timer or end of the run before its handler ends (at that end
    /// they would be processed in a different turn of the loop). It does what the
    /// PendSV frame would: its time is switch time, then `end_pendsv`.
    fn pendsv_in_one_step(&mut self, cost: i64) -> bool {
        if !self.one_step
            || !self.frames.is_empty()
            || self.edges.is_some()
            || self.irq_pending.iter().any(Option::is_some)
        {
            return false;
        }
        let end = self.now.saturating_add(cost.max(0));
        if end > self.run_limit
            || (end == self.run_limit && !self.run_inclusive)
            || end >= self.next_tick_at()
            || end >= self.next_irq_at()
            || end >= self.wake_timer
        {
            return false;
        }
        self.one_steps.1 += 1;
        self.cpu.switch += end - self.now;
        self.now = end;
        self.end_pendsv();
        true
    }

    /// The end of the deferred switch: the chosen task runs (a task switched out with
    /// its job not done counts a preemption).
    pub(super) fn end_pendsv(&mut self) {
        let prev = self.cur;
        let to = self.pendsv_to;
        if prev != to && prev != self.idle && !self.cur_blocked && self.has_job[prev] {
            self.preempt[prev] += 1;
        }
        self.cur = to;
        self.cur_blocked = false;
    }

    #[inline(always)]
    pub(super) fn record_switch(&mut self, from: usize, to: usize, cost: i64, levels: u32) {
        self.events += 1;
        // Kept by (from, to) and by levels: the overall figures are merged from the pairs
        // when the report is written (`Sim::switch_report`), exactly, as `Agg` is
        // integers, and so are those by priority distance unless shared resources can
        // change a task's priority (then the distance is the one at the switch).
        let nn = self.n + 1;
        if self.sw_pair_dense.is_empty() {
            self.sw_pair
                .entry((from as u32, to as u32))
                .or_default()
                .add(cost);
        } else {
            self.sw_pair_dense[from * nn + to].add(cost);
        }
        // the FreeRTOS overheads paper Table 4 counts loop iterations: at least one list is inspected.
        let lv = levels.max(1) as usize;
        if self.sw_levels.len() <= lv {
            self.sw_levels.resize(lv + 1, Agg::default());
        }
        self.sw_levels[lv].add(cost);
        if self.res_on {
            let d = self.prio[from] as i64 - self.prio[to] as i64;
            if self.sw_dist.is_empty() {
                self.sw_dist_map.entry(d).or_default().add(cost);
            } else {
                let k = (d + self.maxp as i64) as usize;
                self.sw_dist[k].add(cost);
            }
        }
    }
}
