//! The tick handler (SysTick): releasing delayed tasks and recording its cost.

use super::*;

impl Sim {
    pub(super) fn start_tick(&mut self) {
        let (nominal, cost) = self.begin_tick();
        self.push_frame(FrameKind::Tick, cost, nominal);
    }

    /// The tick handler's start: the count, the delayed tasks now due, the handler's
    /// cost (by how many it releases) and its statistics. Returns (nominal instant, cost).
    #[inline(always)]
    fn begin_tick(&mut self) -> (i64, i64) {
        let (nominal, k) = self
            .tick_pending
            .take()
            .unwrap_or((self.now, self.floor_tick(self.now)));
        self.tick_count = self.tick_count.max(k);
        self.tick_released.clear();
        while let Some(i) = self.delayed.pop_due(self.tick_count) {
            self.tick_released.push(i);
        }
        let r = self.tick_released.len();
        let cost = self.l + self.tick_cost[r.min(self.tick_cost.len() - 1)];
        self.note_tick(nominal, cost, r as u32);
        (nominal, cost)
    }

    /// The tick handler's end (`end_frame`): the tasks it moved off the delayed list
    /// become ready, and a switch is asked for when one outranks the running task or
    /// time slicing rotates the running task's priority.
    #[inline(always)]
    pub(super) fn end_tick(&mut self, nominal: i64) {
        if self.tick_notify {
            self.tick_fired.push((self.now, nominal));
        }
        let mut switch = false;
        for k in 0..self.tick_released.len() {
            let i = self.tick_released[k] as usize;
            let a = self.pending_arrival[i];
            self.release_job(i, a);
            self.ready_add(i);
            if self.outranks(i, self.cur) {
                switch = true;
            }
        }
        if self.slice_due() {
            switch = true;
        }
        if switch {
            self.pendsv_pending = true;
        }
    }

    /// A tick that nothing can interrupt or cut short, taken in one step when it arrives
    /// (`run_loop`): what `tick_arrival`, `start_tick`, the frame's run and its end
    /// (`end_tick`) would do over two turns of the loop, with the same figures. Returns
    /// false, changing nothing, when any of that could differ: a frame, a mask or a
    /// switch already pending, an interrupt pending or arriving before the handler ends,
    /// the next tick or the end of the run before the handler ends (the costliest
    /// handler of the cost table is assumed, as the tasks due are not counted before),
    /// a capture (its channel edges) or a relayed tick. Most of Table 1's ticks are such
    /// ticks; the loop then turns once instead of twice.
    #[inline(never)]
    pub(super) fn quiet_tick(&mut self, t_irq: i64, until: i64, inclusive: bool) -> bool {
        if !self.one_step
            || !self.tick_mode
            || !self.frames.is_empty()
            || self.mask_depth > 0
            || self.pendsv_pending
            || self.tick_pending.is_some()
            || self.edges.is_some()
            || self.tick_ext.is_some()
            || self.irq_pending.iter().any(Option::is_some)
        {
            return false;
        }
        let k = self.next_tick_k;
        let nominal = self.tick_time(k);
        let end = self.now.saturating_add(self.tick_cost_max.max(0));
        if nominal != self.now
            || end >= self.tick_time(k + 1)
            || end >= t_irq
            || end >= self.wake_timer
            || end > until
            || (end == until && !inclusive)
        {
            return false;
        }
        self.next_tick_k = k + 1;
        self.events += 1;
        self.one_steps.0 += 1;
        self.tick_pending = Some((nominal, k));
        let (_, cost) = self.begin_tick();
        let cost = cost.max(0);
        self.cpu.tick += cost;
        self.now += cost;
        self.end_tick(nominal);
        true
    }

    /// Takes every tick and deferred switch the long way (`false`), to test
    /// [`Sim::quiet_tick`] and [`Sim::pendsv_in_one_step`] against it.
    #[doc(hidden)]
    pub fn set_one_step(&mut self, on: bool) {
        self.one_step = on;
    }

    /// Ticks and switches taken in one step so far (for the test against the long way).
    #[doc(hidden)]
    pub fn one_steps_taken(&self) -> (u64, u64) {
        self.one_steps
    }

    /// Time slicing at the end of a tick: another task is ready at the running task's
    /// priority (fixed-priority selection only).
    #[inline]
    pub(super) fn slice_due(&self) -> bool {
        self.time_slicing && !self.edf && self.len[self.level[self.cur] as usize] > 1
    }

    #[inline(always)]
    pub(super) fn note_tick(&mut self, nominal: i64, cost: i64, released: u32) {
        self.tick_dur.add(cost, nominal);
        let lat = self.now - nominal;
        self.tick_max_lat = Some(self.tick_max_lat.map_or(lat, |x| x.max(lat)));
        self.tick_max_rel = self.tick_max_rel.max(released);
        let pk = &mut self.tick_peak;
        if cost > pk.0 {
            pk.0 = cost;
            pk.1 = 0;
            pk.2.clear();
        }
        if cost == pk.0 {
            pk.1 += 1;
            if pk.2.len() < 100 {
                pk.2.push(nominal);
            }
        }
        if self.opts.series {
            self.series.push(TickRow {
                time: Picos(nominal),
                duration: Picos(cost),
                released,
            });
        }
    }
}
