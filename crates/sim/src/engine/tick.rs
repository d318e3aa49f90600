//! The tick handler (SysTick): releasing delayed tasks and recording its cost.

use super::*;

impl Sim {
    pub(super) fn start_tick(&mut self) {
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
        self.push_frame(FrameKind::Tick, cost, nominal);
    }

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
