//! Jobs: execution-time sampling, releases, periodic scheduling, completions and what a task does after a job.

use super::*;

impl Sim {
    pub(super) fn sample_exec(&mut self, i: usize) -> i64 {
        match &self.cfg.tasks[i].exec {
            ExecTime::Fixed(c) => c.0,
            ExecTime::Uniform { bcet, wcet } => {
                if bcet == wcet {
                    wcet.0
                } else {
                    self.rng.gen_range(bcet.0..=wcet.0)
                }
            }
            ExecTime::Empirical(v) => {
                let k = self.rng.gen_range(0..v.len());
                v[k].0
            }
        }
    }

    pub(super) fn release_job(&mut self, i: usize, arrival: i64) {
        let c = self.sample_exec(i);
        self.has_job[i] = true;
        build_ops(
            &mut self.ops[i],
            &mut self.scratch,
            &self.cfg.tasks[i].sections,
            self.cfg.tasks[i].critical.0,
            c,
            self.lock_cost,
            self.unlock_cost,
        );
        self.op_i[i] = 0;
        self.op_rem[i] = self.ops[i].first().map_or(0, |o| o.len);
        self.job_inv[i] = 0;
        self.job_arrival[i] = arrival;
        self.released[i] += 1;
        self.events += 1;
        if let Some(c) = &mut self.chains {
            c.task_release(i, arrival);
        }
    }

    /// Job `job_idx[i]` of a periodic task: arrival, release time and wake tick. Either
    /// releases it now (wake tick already counted: `at_start` or a late job) or delays it.
    /// Returns true when it was released at once.
    pub(super) fn schedule_periodic(&mut self, i: usize, j: u64, at_start: bool) -> bool {
        let t = &self.cfg.tasks[i];
        let arrival = t
            .offset
            .0
            .saturating_add((j as i64).saturating_mul(t.period.0));
        let jit = if t.jitter.0 > 0 {
            self.rng.gen_range(0..=t.jitter.0)
        } else {
            0
        };
        let rel = arrival.saturating_add(jit);
        let wake = self.ceil_tick(rel);
        self.job_idx[i] = j;
        if (at_start && rel <= 0) || (!at_start && wake <= self.tick_count) {
            self.release_job(i, arrival);
            if at_start {
                self.ready_add(i);
            }
            true
        } else {
            self.pending_arrival[i] = arrival;
            self.delayed.push(wake, i as u32);
            false
        }
    }

    pub(super) fn record_completion(&mut self, i: usize) {
        let r = self.now - self.job_arrival[i];
        self.resp[i].add(r, self.job_arrival[i]);
        if self.jobs[i] == 0 {
            self.first_resp[i] = Some(r);
        }
        self.jobs[i] += 1;
        self.events += 1;
        self.max_inv[i] = self.max_inv[i].max(self.job_inv[i]);
        let d = self.cfg.tasks[i].deadline.0;
        if r > d {
            self.misses[i] += 1;
            let abs = self.job_arrival[i] + d;
            if self.first_miss[i].is_none_or(|f| abs < f) {
                self.first_miss[i] = Some(abs);
            }
        }
        self.has_job[i] = false;
        if let Some(c) = &mut self.chains {
            c.task_complete(i, self.job_arrival[i], self.now);
        }
    }

    /// A completed job of task `i` releases a job of each task it activates (a chain's
    /// event link), with its own arrival; a busy successor queues it as an interrupt
    /// release does.
    pub(super) fn release_successors(&mut self, i: usize) {
        let arrival = self.job_arrival[i];
        for k in 0..self.task_succ[i].len() {
            let b = self.task_succ[i][k] as usize;
            if !self.has_job[b] && !self.in_ready[b] {
                self.release_job(b, arrival);
                self.ready_add(b);
                if b == self.cur {
                    self.cur_blocked = false;
                }
                if self.outranks(b, self.cur) || self.cur_blocked {
                    self.pendsv_pending = true;
                }
            } else if self.irq_queue[b].len() < IRQ_QUEUE_CAP {
                self.irq_queue[b].push_back(arrival);
            } else {
                self.overruns[b] += 1;
            }
        }
    }

    pub(super) fn after_job_tick_mode(&mut self, i: usize) {
        match self.cfg.tasks[i].activation {
            Activation::Periodic => {
                let j = self.job_idx[i] + 1;
                if !self.schedule_periodic(i, j, false) {
                    self.ready_remove(i);
                    self.cur_blocked = true;
                }
                // vTaskDelayUntil yields whether or not it blocked.
                self.pendsv_pending = true;
            }
            Activation::Interrupt(_) | Activation::Task(_) => {
                if let Some(a) = self.irq_queue[i].pop_front() {
                    self.release_job(i, a);
                    // Under EDF the next job has a later deadline than the one that
                    // completed: another ready job may now come first, so the kernel
                    // chooses again (under fixed priority the task keeps its place).
                    if self.edf && self.edf_pick() != i {
                        self.pendsv_pending = true;
                    }
                } else {
                    self.ready_remove(i);
                    self.cur_blocked = true;
                    self.pendsv_pending = true;
                }
            }
        }
    }
}
