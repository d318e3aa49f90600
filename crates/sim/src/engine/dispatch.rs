//! Dispatching pending work by priority: user interrupts, the deferred switch, the tick, list-scan threads.

use super::*;

impl Sim {
    pub(super) fn dispatch(&mut self) {
        loop {
            if self.sleeping {
                if self.wake_req || self.irq_pending.iter().any(|p| p.is_some()) {
                    self.begin_wake();
                    continue;
                }
                return;
            }
            let cur_p = self.frames.last().map_or(P_TASK, |f| f.prio);
            let masked = self.masked();
            // user interrupts: highest effective priority, ties to the lower index
            let mut best: Option<usize> = None;
            for q in 0..self.irq_pending.len() {
                if self.irq_pending[q].is_none() {
                    continue;
                }
                if masked && !self.cfg.interrupts[q].above_kernel {
                    continue;
                }
                if self.irq_eff[q] <= cur_p {
                    continue;
                }
                if best.is_none_or(|b| self.irq_eff[q] > self.irq_eff[b]) {
                    best = Some(q);
                }
            }
            if let Some(q) = best {
                self.start_irq(q);
                continue;
            }
            if !masked && P_KERNEL_IRQ > cur_p {
                if self.pendsv_pending {
                    self.start_pendsv();
                    continue;
                }
                if self.tick_pending.is_some() {
                    self.start_tick();
                    continue;
                }
            }
            if !self.frames.is_empty() {
                return;
            }
            if self.tick_mode {
                if self.cur == self.idle && !self.pendsv_pending {
                    if self.len[0] > 1 {
                        // configIDLE_SHOULD_YIELD: the idle task yields at once to a
                        // ready application task of priority 0.
                        self.pendsv_pending = true;
                        continue;
                    }
                    if self.cfg.tickless.is_some() {
                        self.try_sleep();
                    }
                }
                return;
            }
            if self.ls_cur.is_none() {
                // The run queue is worked off first; the scheduler runs once it is empty
                // and the tick flag is set (so overrunning threads push it later).
                if let Some(th) = self.run_queue.pop_front() {
                    self.ls_in_queue[th as usize] = false;
                    self.push_frame(FrameKind::ThreadSwitch(th), self.sw_table[0], 0);
                    self.record_switch(self.ls_last, th as usize, self.sw_table[0], 0);
                    continue;
                }
                if self.tick_flag.is_some() {
                    self.start_sched();
                    continue;
                }
            }
            return;
        }
    }
}
