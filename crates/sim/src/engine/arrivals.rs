//! Arrivals: the tick interrupt and user interrupts becoming pending.

use super::*;

impl Sim {
    pub(super) fn tick_arrival(&mut self) {
        if self.tick_ext.is_some() {
            self.relayed_tick_arrival();
            return;
        }
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
        if let Some(queue) = self.ext.get_mut(q).and_then(Option::as_mut) {
            // Raised from another core: the job it releases keeps the arrival of the
            // interrupt that started the path there.
            let origin = queue.pop_front().map_or(t, |(_, o)| o);
            self.irq_next[q] = queue.front().map_or(NEVER, |&(at, _)| at);
            if self.irq_pending[q].is_some() {
                self.irq_lost[q] += 1;
            } else {
                self.irq_pending[q] = Some(origin);
            }
            return;
        }
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

impl Sim {
    /// Makes interrupt `q` arrive only when raised by [`Sim::raise`] (an inter-core
    /// interrupt), never by itself.
    pub(crate) fn make_external(&mut self, q: usize) {
        if let Some(e) = self.ext.get_mut(q) {
            *e = Some(VecDeque::new());
            self.irq_next[q] = NEVER;
        }
    }

    /// Raises the external interrupt `q` at `at` (not before the clock); the job it
    /// releases counts its response from `origin`.
    pub(crate) fn raise(&mut self, q: usize, at: i64, origin: i64) {
        let Some(Some(queue)) = self.ext.get_mut(q) else {
            return;
        };
        queue.push_back((at, origin));
        if self.irq_next[q] == NEVER {
            self.irq_next[q] = at;
        }
    }

    /// Asks for a record of every completion of interrupt `q`'s handler
    /// ([`Sim::take_fired`]).
    pub(crate) fn notify_on_end(&mut self, q: usize) {
        if let Some(n) = self.notify.get_mut(q) {
            *n = true;
        }
    }

    /// The handler completions recorded since the last call: (interrupt, end, arrival).
    pub(crate) fn take_fired(&mut self) -> Vec<(usize, i64, i64)> {
        std::mem::take(&mut self.fired)
    }
}
