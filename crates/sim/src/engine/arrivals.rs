//! Arrivals: the tick interrupt and user interrupts becoming pending.

use super::*;

impl Sim {
    pub(super) fn tick_arrival(&mut self) {
        let k = self.next_tick_k;
        let t = self.tick_time(k);
        self.next_tick_k += 1;
        self.events += 1;
        if self.tick_mode {
            if self.tick_pending.is_some() {
                self.tick_lost += 1;
                self.tick_count = self.tick_count.max(k);
            } else {
                self.tick_pending = Some((t, k));
            }
        } else if self.tick_flag.is_some() {
            self.ls_lost += 1;
        } else {
            self.tick_flag = Some(t);
        }
    }

    pub(super) fn irq_arrival(&mut self, q: usize) {
        let t = self.irq_next[q];
        self.events += 1;
        self.irq_count[q] += 1;
        if self.irq_pending[q].is_some() {
            self.irq_lost[q] += 1;
        } else {
            self.irq_pending[q] = Some(t);
        }
        self.irq_next[q] = match self.cfg.interrupts[q].arrival {
            IrqArrival::Periodic { period, .. } => t.saturating_add(period.0),
            IrqArrival::Sporadic { min, max, .. } => {
                let g = if min == max {
                    min.0
                } else {
                    self.rng.gen_range(min.0..=max.0)
                };
                t.saturating_add(g)
            }
        };
    }
}
