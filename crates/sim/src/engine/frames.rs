//! Interrupt frames: pushing one, finishing the running activity and what each frame does when it ends.

use super::*;

impl Sim {
    pub(super) fn push_frame(&mut self, kind: FrameKind, cost: i64, arrival: i64) {
        let (prio, masks) = match kind {
            FrameKind::Tick | FrameKind::PendSv => (P_KERNEL_IRQ, true),
            FrameKind::Irq(q) => (self.irq_eff[q as usize], false),
            FrameKind::Wake => (P_WAKE, false),
            FrameKind::Sched | FrameKind::ThreadSwitch(_) => (P_THREAD_KERNEL, false),
        };
        self.frames.push(Frame {
            kind,
            rem: cost.max(0),
            prio,
            masks,
            arrival,
            total: cost.max(0),
            bi: 0,
        });
        if masks {
            self.mask_depth += 1;
        }
        if self.edges.is_some() {
            let c = self.frame_channel(kind);
            self.set_channel(c);
        }
    }

    pub(super) fn start_irq(&mut self, q: usize) {
        let arr = self.irq_pending[q].take().unwrap_or(self.now);
        let lat = self.now - arr;
        let m = &mut self.irq_max_lat[q];
        *m = Some(m.map_or(lat, |x| x.max(lat)));
        let cost = self.irq_cost[q];
        self.push_frame(FrameKind::Irq(q as u32), cost, arr);
    }

    pub(super) fn complete(&mut self) {
        if let Some(f) = self.frames.last().copied() {
            if let FrameKind::Irq(q) = f.kind {
                self.irq_section_bounds(q as usize);
            }
            if f.rem > 0 {
                return;
            }
            self.frames.pop();
            if f.masks {
                self.mask_depth -= 1;
            }
            self.end_frame(f);
            self.sync_channel();
            return;
        }
        let Some(i) = self.task_running() else {
            return;
        };
        // A job with output writes it after its own execution (engine/devices.rs).
        let done = if self.out_state[i] != OutState::Off {
            self.output_step(i)
        } else {
            self.step_ops(i) && self.output_begin(i)
        };
        if !done {
            // a step of the job ended (a section begins or ends, the task blocked, an
            // output step ended or the writer suspended)
            self.sync_channel();
            return;
        }
        self.record_completion(i);
        if self.tick_mode {
            // Successors first: the next job of `i` replaces its arrival.
            if !self.task_succ[i].is_empty() {
                self.release_successors(i);
            }
            self.after_job_tick_mode(i);
        } else {
            self.ls_cur = None;
            self.ls_last = i;
        }
        self.sync_channel();
    }

    pub(super) fn end_frame(&mut self, f: Frame) {
        match f.kind {
            FrameKind::Tick => self.end_tick(f.arrival),
            FrameKind::PendSv => self.end_pendsv(),
            FrameKind::Irq(q) => {
                let q = q as usize;
                let r = self.now - f.arrival;
                self.irq_resp[q].add(r, f.arrival);
                if self.notify[q] {
                    self.fired.push((q, self.now, f.arrival));
                }
                if let Some(c) = &mut self.chains {
                    c.irq_complete(q, f.arrival, self.now);
                }
                for k in 0..self.irq_tasks[q].len() {
                    let i = self.irq_tasks[q][k] as usize;
                    if !self.has_job[i] && !self.in_ready[i] {
                        self.release_job(i, f.arrival);
                        self.ready_add(i);
                        if i == self.cur {
                            self.cur_blocked = false;
                        }
                        if self.outranks(i, self.cur) || self.cur_blocked {
                            self.pendsv_pending = true;
                        }
                    } else if self.irq_queue[i].len() < IRQ_QUEUE_CAP {
                        self.irq_queue[i].push_back(f.arrival);
                    } else {
                        self.overruns[i] += 1;
                    }
                }
            }
            FrameKind::Wake => {
                self.waking = false;
                // vTaskStepTick: the count steps over the ticks slept through. When a
                // delayed task's wake time has come (the last tick instant at or before
                // now reaches it), the step stops one short and that tick is processed
                // at once (xPendedTicks / the pending SysTick), releasing every due task.
                let k = self.floor_tick(self.now);
                let due = self.delayed.first_wake().is_some_and(|w| w <= k);
                if due && k > self.tick_count && self.tick_pending.is_none() {
                    self.tick_count = k - 1;
                    self.tick_pending = Some((self.tick_time(k), k));
                    self.next_tick_k = (k + 1).max(self.next_tick_k);
                } else {
                    // Otherwise the tick resumes on its grid: the first tick instant at
                    // or after now fires (at once if now is one).
                    let kc = self.ceil_tick(self.now);
                    self.next_tick_k = kc.max(self.next_tick_k);
                    self.tick_count = self.tick_count.max(kc - 1);
                }
                if self
                    .cfg
                    .tickless
                    .as_ref()
                    .is_some_and(|t| t.switch_extra.0 > 0)
                {
                    self.wake_extra_pending = true;
                }
            }
            FrameKind::Sched => {}
            FrameKind::ThreadSwitch(th) => {
                self.ls_cur = Some(th as usize);
            }
        }
    }
}
