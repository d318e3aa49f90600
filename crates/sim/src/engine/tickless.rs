//! Tickless idle: going to sleep until the next wake tick and waking (exit latency).

use super::*;

impl Sim {
    pub(super) fn begin_wake(&mut self) {
        self.events += 1;
        self.sleeping = false;
        self.waking = true;
        self.wake_req = false;
        self.wake_timer = NEVER;
        if self.wake_by_timer {
            self.wake_timer_n += 1;
        } else {
            self.wake_irq_n += 1;
        }
        self.wake_by_timer = false;
        let lat = self.cfg.tickless.as_ref().map_or(0, |t| t.exit_latency.0);
        self.push_frame(FrameKind::Wake, lat, self.now);
    }

    pub(super) fn try_sleep(&mut self) {
        let Some(tl) = &self.cfg.tickless else {
            return;
        };
        if self.tick_pending.is_some() || self.len[0] > 1 {
            return;
        }
        let next_wake = self.delayed.first_wake();
        let need = tl.min_idle_ticks.max(tl.margin_ticks + 1) as i64;
        let wake_at = match next_wake {
            Some(w) => {
                if w - self.tick_count < need {
                    return;
                }
                self.tick_time(w - tl.margin_ticks as i64)
            }
            None => NEVER,
        };
        if wake_at <= self.now {
            return;
        }
        self.sleeping = true;
        self.wake_timer = wake_at;
        self.sleeps += 1;
        self.events += 1;
        let c = self.n + 1;
        self.set_channel(c);
    }
}
