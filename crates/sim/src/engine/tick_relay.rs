//! A tick broadcast from one core to the others (`kernel.tick_source = "broadcast"`,
//! docs/simulator.md, Multicore): the tick core records when each of its tick handlers
//! ends, which is where it raises the inter-core interrupts, and every other core takes
//! its tick only when the multicore driver relays one ([`Sim::raise_tick`]), never from
//! its own timer. A relayed tick keeps the nominal instant of the tick core's tick, so
//! it counts the same tick number and releases the same delayed tasks, whose jobs keep
//! their nominal release as arrival (responses count from it, as the analysis does).

use super::*;

impl Sim {
    /// Takes this core's ticks only from [`Sim::raise_tick`].
    pub(crate) fn make_tick_external(&mut self) {
        self.tick_ext = Some(VecDeque::new());
    }

    /// Relays a tick to this core: its handler becomes pending at `at` (not before the
    /// clock); `nominal` is the tick core's nominal instant of that tick.
    pub(crate) fn raise_tick(&mut self, at: i64, nominal: i64) {
        if let Some(q) = &mut self.tick_ext {
            q.push_back((at.max(self.now), nominal));
        }
    }

    /// Asks for a record of every end of this core's tick handler
    /// ([`Sim::take_tick_fired`]).
    pub(crate) fn notify_tick_end(&mut self) {
        self.tick_notify = true;
    }

    /// The tick handler ends recorded since the last call: (end, nominal instant).
    pub(crate) fn take_tick_fired(&mut self) -> Vec<(i64, i64)> {
        std::mem::take(&mut self.tick_fired)
    }

    /// A relayed tick arrives: it becomes pending with the tick core's nominal instant
    /// and tick number (a tick still pending when the next arrives is lost, as a timer
    /// tick is).
    pub(super) fn relayed_tick_arrival(&mut self) {
        let Some((_, nominal)) = self.tick_ext.as_mut().and_then(VecDeque::pop_front) else {
            return;
        };
        let k = self.floor_tick(nominal);
        self.next_tick_k = self.next_tick_k.max(k + 1);
        self.events += 1;
        if self.tick_pending.is_some() {
            self.tick_lost += 1;
            self.tick_count = self.tick_count.max(k);
        } else {
            self.tick_pending = Some((nominal, k));
        }
    }
}
