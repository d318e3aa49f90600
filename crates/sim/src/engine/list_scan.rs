//! The list-scan scheduler (kernel v1): the scan of every thread and the run queue.

use super::*;

impl Sim {
    pub(super) fn start_sched(&mut self) {
        let ft = self.tick_flag.take().unwrap_or(self.now);
        self.events += 1;
        self.ls_runs += 1;
        self.ls_delay.add(self.now - ft, ft);
        if self.now >= self.tick_time(self.floor_tick(ft) + 1) {
            self.ls_late += 1;
        }
        let Kernel::ListScan(k) = &self.cfg.kernel else {
            return;
        };
        let check = k.check_cost.0;
        let mut cost = 0i64;
        let mut rel = 0u32;
        for i in 0..self.n {
            cost += check;
            // A writer suspended on a full FIFO goes back on the run queue once the
            // status check finds the FIFO-empty flag set.
            if self.out_state[i] == OutState::Suspended && self.output_flag_set(i) {
                cost += self.ls_enqueue(i);
            }
            self.ls_counter[i] -= 1;
            if self.ls_counter[i] > 0 {
                continue;
            }
            self.ls_counter[i] = self.ls_period[i];
            if self.ls_in_queue[i] || self.ls_cur == Some(i) || self.has_job[i] {
                self.ls_overruns += 1;
                self.overruns[i] += 1;
                continue;
            }
            cost += self.ls_enqueue(i);
            self.release_job(i, ft);
            rel += 1;
        }
        self.note_tick(ft, cost, rel);
        self.push_frame(FrameKind::Sched, cost, ft);
    }

    /// Puts thread `i` on the run queue behind every queued thread of equal or higher
    /// priority; returns the insertion's cost.
    pub(super) fn ls_enqueue(&mut self, i: usize) -> i64 {
        let p = self.prio[i];
        let pos = self
            .run_queue
            .iter()
            .position(|&x| self.prio[x as usize] < p)
            .unwrap_or(self.run_queue.len());
        self.run_queue.insert(pos, i as u32);
        self.ls_in_queue[i] = true;
        match &self.cfg.kernel {
            Kernel::ListScan(k) => k
                .insert_cost
                .get(pos)
                .or(k.insert_cost.last())
                .map_or(0, |c| c.0),
            Kernel::Tick(_) => 0,
        }
    }
}
