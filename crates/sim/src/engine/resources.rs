//! Shared resources in the engine (docs/simulator.md section 2a): a job's sections turned
//! into steps (lock call, held execution, unlock call), and the three protocols —
//! FreeRTOS-style inheritance mutexes, the immediate priority ceiling, kernel critical
//! sections of tasks and handlers — with their statistics.

use super::Sim;
use crate::config::{SimProtocol, SimSection};
use std::cmp::Reverse;

/// Pseudo-resource of the application interrupts-disabled section at a job's start.
pub(super) const APP: u32 = u32::MAX;

/// One step of a job's execution (docs/simulator.md section 2a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpKind {
    /// Plain execution.
    Run,
    /// The lock call; at its end the task takes the resource or blocks.
    Lock(u32),
    /// The inherit call of a task that found the mutex taken; at its end it takes the
    /// mutex if it is free by then, otherwise it raises the holder and blocks.
    Inherit(u32),
    /// The unlock call, the resource still held; at its end the resource is given back.
    Unlock(u32),
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Op {
    pub(super) len: i64,
    pub(super) kind: OpKind,
}

/// Turns a job's sections into its steps for an execution time `c`: sections run at
/// their `at` (execution time), clipped to `c` (a section starting at or after `c` is
/// not run); each take is preceded by a lock call, each give by an unlock call. At one
/// instant gives come before takes, inner sections are given back before outer ones.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_ops(
    out: &mut Vec<Op>,
    scratch: &mut Vec<(i64, u8, i64, u32)>,
    secs: &[SimSection],
    app: i64,
    c: i64,
    lock: i64,
    unlock: i64,
) {
    out.clear();
    if secs.is_empty() && app <= 0 {
        if c > 0 {
            out.push(Op {
                len: c,
                kind: OpKind::Run,
            });
        }
        return;
    }
    scratch.clear();
    if app > 0 && c > 0 {
        scratch.push((0, 1, -1, APP));
        scratch.push((app.min(c), 0, 1, APP));
    }
    for (k, s) in secs.iter().enumerate() {
        if s.at.0 >= c {
            continue;
        }
        let end = s.at.0.saturating_add(s.duration.0).min(c);
        scratch.push((s.at.0, 1, k as i64, s.resource as u32));
        scratch.push((end, 0, -(k as i64), s.resource as u32));
    }
    scratch.sort_unstable();
    let mut pos = 0i64;
    for &(t, kind, _, r) in scratch.iter() {
        if t > pos {
            out.push(Op {
                len: t - pos,
                kind: OpKind::Run,
            });
            pos = t;
        }
        let free = r == APP;
        out.push(if kind == 1 {
            Op {
                len: if free { 0 } else { lock },
                kind: OpKind::Lock(r),
            }
        } else {
            Op {
                len: if free { 0 } else { unlock },
                kind: OpKind::Unlock(r),
            }
        });
    }
    if c > pos {
        out.push(Op {
            len: c - pos,
            kind: OpKind::Run,
        });
    }
}

/// Per-resource statistics.
#[derive(Clone, Debug, Default)]
pub(super) struct ResStat {
    pub(super) takes: u64,
    pub(super) contended: u64,
    pub(super) inheritances: u64,
    pub(super) held: i64,
    pub(super) max_hold: i64,
    pub(super) waited: i64,
    pub(super) max_wait: i64,
    pub(super) episodes: Vec<Episode>,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Episode {
    pub(super) at: i64,
    pub(super) task: u32,
    pub(super) holder: Option<u32>,
    pub(super) holder_prio: u32,
    pub(super) inherited: bool,
    pub(super) wait: Option<i64>,
}

impl Sim {
    /// Works off the running task's finished steps. Returns true when the job is done;
    /// false when a step still runs, the task blocked, or a give lets pending work in
    /// first (the give's yield, the end of a masked section).
    pub(super) fn step_ops(&mut self, i: usize) -> bool {
        loop {
            let k = self.op_i[i];
            let Some(op) = self.ops[i].get(k).copied() else {
                return true;
            };
            if self.op_rem[i] > 0 {
                return false;
            }
            match op.kind {
                OpKind::Run => self.next_op(i),
                OpKind::Unlock(r) => {
                    self.next_op(i);
                    self.give(i, r);
                    // the give lets pending work in before the job goes on (a job
                    // whose section ends with it ends with the give)
                    return self.op_i[i] >= self.ops[i].len();
                }
                OpKind::Lock(r) | OpKind::Inherit(r) => {
                    if self.try_take(i, r) {
                        self.next_op(i);
                        continue;
                    }
                    let inh = r != APP
                        && self.cfg.resources[r as usize].protocol == SimProtocol::Inheritance;
                    if matches!(op.kind, OpKind::Lock(_)) && inh && self.inherit_cost > 0 {
                        // xTaskPriorityInherit runs in the taker's context first.
                        self.ops[i][k] = Op {
                            len: self.inherit_cost,
                            kind: OpKind::Inherit(r),
                        };
                        self.op_rem[i] = self.inherit_cost;
                        return false;
                    }
                    self.block(i, r as usize);
                    return false;
                }
            }
        }
    }

    fn next_op(&mut self, i: usize) {
        self.op_i[i] += 1;
        self.op_rem[i] = self.ops[i].get(self.op_i[i]).map_or(0, |o| o.len);
    }

    /// Takes `r` for task `i` if it is free, with the protocol's effect.
    fn try_take(&mut self, i: usize, r: u32) -> bool {
        if r == APP {
            self.mask_depth += 1;
            return true;
        }
        let r = r as usize;
        if self.owner[r].is_some() || self.isr_holds[r] > 0 {
            return false;
        }
        self.owner[r] = Some(i as u32);
        self.on_take(i, r);
        true
    }

    fn on_take(&mut self, i: usize, r: usize) {
        self.hold_since[r] = self.now;
        self.res_stats[r].takes += 1;
        match self.cfg.resources[r].protocol {
            SimProtocol::Critical => self.mask_depth += 1,
            SimProtocol::Ceiling => {
                self.ceil_stack[i].push(self.ceil[r]);
                self.update_prio(i);
            }
            SimProtocol::Inheritance => self.held_inh[i] += 1,
        }
        self.sync_res(r);
    }

    /// Task `i` gives `r` back: the protocol's priority is restored (inheritance: only
    /// once every mutex is given back, as FreeRTOS does), the highest-priority waiter
    /// (first come among equals) is made ready and takes the resource when it runs
    /// (FreeRTOS `xQueueSemaphoreTake` retries; the resource is not handed over, so a
    /// waiter of lower priority cannot hold it while a higher task still runs), and the
    /// giver yields to any ready task above it.
    fn give(&mut self, i: usize, r: u32) {
        if r == APP {
            self.mask_depth = self.mask_depth.saturating_sub(1);
            return;
        }
        let r = r as usize;
        let proto = self.cfg.resources[r].protocol;
        match proto {
            SimProtocol::Critical => self.mask_depth = self.mask_depth.saturating_sub(1),
            SimProtocol::Ceiling => {
                self.ceil_stack[i].pop();
            }
            SimProtocol::Inheritance => {
                self.held_inh[i] = self.held_inh[i].saturating_sub(1);
                if self.held_inh[i] == 0 {
                    self.inh_prio[i] = 0;
                }
            }
        }
        self.end_hold(r);
        self.owner[r] = None;
        let best = self.waiters[r]
            .iter()
            .enumerate()
            .max_by_key(|&(k, &w)| (self.prio[w as usize], Reverse(k)))
            .map(|(k, _)| k);
        if let Some(k) = best {
            let w = self.waiters[r].remove(k) as usize;
            self.unwait(w);
            if self.tick_mode {
                self.ready_add(w);
            }
        }
        self.update_prio(i);
        self.sync_res(r);
        self.maybe_yield();
    }

    fn end_hold(&mut self, r: usize) {
        let d = self.now - self.hold_since[r];
        let st = &mut self.res_stats[r];
        st.held += d;
        st.max_hold = st.max_hold.max(d);
    }

    /// Task `w` stops waiting (it got the resource or may retry).
    fn unwait(&mut self, w: usize) {
        self.waiting[w] = None;
        let d = self.now - self.wait_since[w];
        self.blocked_total[w] += d;
        if let Some(r) = self.waiting_res_of_episode(w) {
            let st = &mut self.res_stats[r];
            st.waited += d;
            st.max_wait = st.max_wait.max(d);
        }
        if let Some((r, e)) = self.wait_ep[w].take().map(|x| (x >> 32, x & 0xffff_ffff)) {
            if let Some(ep) = self.res_stats[r].episodes.get_mut(e) {
                ep.wait = Some(d);
            }
        }
    }

    fn waiting_res_of_episode(&self, w: usize) -> Option<usize> {
        self.wait_ep[w].map(|x| x >> 32)
    }

    /// Task `i` (running) finds `r` taken: it waits; an inheritance mutex's holder
    /// inherits its priority if lower (the direct holder only, as FreeRTOS and Zephyr
    /// do: no propagation along a chain of holders).
    fn block(&mut self, i: usize, r: usize) {
        self.waiting[i] = Some(r as u32);
        self.wait_since[i] = self.now;
        self.waiters[r].push(i as u32);
        let holder = self.owner[r].map(|o| o as usize);
        let mut inherited = false;
        if self.cfg.resources[r].protocol == SimProtocol::Inheritance {
            if let Some(o) = holder {
                if self.prio[o] < self.prio[i] {
                    self.inh_prio[o] = self.inh_prio[o].max(self.prio[i]);
                    self.update_prio(o);
                    inherited = true;
                }
            }
        }
        let st = &mut self.res_stats[r];
        st.contended += 1;
        if inherited {
            st.inheritances += 1;
        }
        // wait_ep packs (resource, episode index); the resource is kept even when the
        // episode list is full, for the wait statistics.
        let e = st.episodes.len();
        if e < 100 {
            st.episodes.push(Episode {
                at: self.now,
                task: i as u32,
                holder: holder.map(|o| o as u32),
                holder_prio: holder.map_or(0, |o| self.prio[o]),
                inherited,
                wait: None,
            });
        }
        self.wait_ep[i] = Some((r << 32) | e.min(0xffff_ffff));
        // the retry after the wake-up does not run the inherit call again
        if let Some(op) = self.ops[i].get_mut(self.op_i[i]) {
            op.kind = OpKind::Inherit(r as u32);
        }
        self.ready_remove(i);
        if i == self.cur {
            self.cur_blocked = true;
        }
        self.pendsv_pending = true;
        self.sync_res(r);
    }

    /// Re-evaluates task `i`'s priority: the highest of its base, an inherited priority
    /// and the ceilings of the resources it holds; moves it to its new ready list.
    fn update_prio(&mut self, i: usize) {
        let mut p = self.base[i].max(self.inh_prio[i]);
        // every ceiling resource held counts (an inner one may have a lower ceiling)
        if let Some(&c) = self.ceil_stack[i].iter().max() {
            p = p.max(c);
        }
        if p == self.prio[i] {
            return;
        }
        let was = self.in_ready[i];
        if was {
            self.ready_remove(i);
        }
        self.prio[i] = p;
        self.level[i] = self.level_prio.partition_point(|x| *x < p) as u32;
        if was {
            self.ready_add(i);
        }
    }

    /// Pends a switch when a ready task outranks the running one.
    fn maybe_yield(&mut self) {
        if !self.tick_mode {
            return;
        }
        if self.cur_blocked {
            self.pendsv_pending = true;
            return;
        }
        if self.edf {
            if self.outranks(self.edf_pick(), self.cur) {
                self.pendsv_pending = true;
            }
            return;
        }
        for w in (0..self.bitmap.len()).rev() {
            if self.bitmap[w] != 0 {
                let p = w * 64 + 63 - self.bitmap[w].leading_zeros() as usize;
                if self.level_prio[p] > self.prio[self.cur] {
                    self.pendsv_pending = true;
                }
                return;
            }
        }
    }

    /// The running handler's kernel critical sections that begin or end by now.
    pub(super) fn irq_section_bounds(&mut self, q: usize) {
        let Some(top) = self.frames.len().checked_sub(1) else {
            return;
        };
        let f = self.frames[top];
        let el = f.total - f.rem;
        let mut bi = f.bi as usize;
        while let Some(&(at, r, take)) = self.irq_bounds[q].get(bi) {
            if at > el {
                break;
            }
            bi += 1;
            let r = r as usize;
            if take {
                self.isr_holds[r] += 1;
                self.mask_depth += 1;
                if self.isr_holds[r] == 1 {
                    self.hold_since[r] = self.now;
                    self.res_stats[r].takes += 1;
                }
            } else {
                self.isr_holds[r] = self.isr_holds[r].saturating_sub(1);
                self.mask_depth = self.mask_depth.saturating_sub(1);
                if self.isr_holds[r] == 0 {
                    self.end_hold(r);
                }
            }
            self.sync_res(r);
        }
        self.frames[top].bi = bi as u32;
    }
}
