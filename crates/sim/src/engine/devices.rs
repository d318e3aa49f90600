//! Transmit devices and the threads that write to them (`SimDevice`, `SimOutput`):
//! KernelPerf's thread 0 printing through a UART FIFO, busy-waiting for room or
//! suspending until the FIFO-empty flag.
//!
//! A device needs no events of its own: items leave the line back to back, so its whole
//! state is the instant the line goes idle (`dev_idle_at`). With `k` items not yet sent
//! at time `t` (`k = ceil((idle_at - t) / item_time)`), one is on the line and `k - 1`
//! wait in the FIFO; there is room while `k <= capacity`, i.e. from
//! `idle_at - capacity * item_time` on, and the FIFO-empty flag is set from
//! `idle_at - item_time` on. A writer's steps (a put, a spin until room) are ordinary
//! execution of its job (`op_rem`), so the main loop needs nothing new; a suspended
//! writer is off the CPU until the list-scan scheduler's status check finds the flag set.

use super::Sim;
use crate::config::WaitMode;

/// Where a job is in its output (per task).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OutState {
    /// Not writing: computing, or no output.
    Off,
    /// Between items: decides the next step.
    Next,
    /// Putting one item (`op_rem` = the put cost left).
    Put,
    /// Busy-waiting for room (`op_rem` = time until an entry frees).
    Spin,
    /// Off the CPU until the FIFO-empty flag.
    Suspended,
}

/// What happened on one device during the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceStats {
    pub name: String,
    /// Items put into the FIFO.
    pub items: u64,
    /// Busy-wait steps, and the time they held the CPU (picoseconds).
    pub spins: u64,
    pub spin_ps: i64,
    /// Writers that suspended on a full FIFO, and were put back on the run queue.
    pub suspensions: u64,
    pub resumes: u64,
    /// Scheduler runs whose status check found a suspended writer with the FIFO-empty
    /// flag still clear (the writer skips that cycle).
    pub flag_clear_scans: u64,
}

impl Sim {
    /// Called when task `i`'s job has finished its own execution: starts its output, or
    /// returns true (the job is complete) when it has none.
    pub(super) fn output_begin(&mut self, i: usize) -> bool {
        let Some(k) = self.out_of[i] else {
            return true;
        };
        self.out_left[i] = self.cfg.outputs[k].items;
        self.out_state[i] = OutState::Next;
        self.output_step(i)
    }

    /// Task `i`'s current output step has ended (or the writer was just resumed): runs
    /// the output on until the next step that takes time, a suspension, or the end of the
    /// job (returns true).
    pub(super) fn output_step(&mut self, i: usize) -> bool {
        let Some(k) = self.out_of[i] else {
            return true;
        };
        let o = &self.cfg.outputs[k];
        let (d, put, wait) = (o.device, o.put_cost.0, o.wait);
        let tau = self.cfg.devices[d].item_time.0;
        let cap = self.cfg.devices[d].capacity as i64;
        loop {
            match self.out_state[i] {
                OutState::Off => return true,
                OutState::Suspended => return false,
                OutState::Put => {
                    let start = self.dev_idle_at[d].max(self.now);
                    self.dev_idle_at[d] = start.saturating_add(tau);
                    self.out_left[i] = self.out_left[i].saturating_sub(1);
                    self.dev_stats[d].items += 1;
                    self.out_state[i] = OutState::Next;
                }
                OutState::Spin => self.out_state[i] = OutState::Next,
                OutState::Next => {
                    if self.out_left[i] == 0 {
                        self.out_state[i] = OutState::Off;
                        return true;
                    }
                    // validate() checked that cap * tau fits.
                    let room_at = self.dev_idle_at[d].saturating_sub(cap * tau);
                    if self.now >= room_at {
                        self.out_state[i] = OutState::Put;
                        if put > 0 {
                            self.op_rem[i] = put;
                            return false;
                        }
                        continue;
                    }
                    match wait {
                        WaitMode::Spin => {
                            let w = room_at - self.now;
                            self.op_rem[i] = w;
                            self.dev_stats[d].spins += 1;
                            self.dev_stats[d].spin_ps += w;
                            self.out_state[i] = OutState::Spin;
                        }
                        WaitMode::Suspend => {
                            self.out_state[i] = OutState::Suspended;
                            self.dev_stats[d].suspensions += 1;
                            self.ls_cur = None;
                            self.ls_last = i;
                        }
                    }
                    return false;
                }
            }
        }
    }

    /// The scheduler's status check of a suspended writer: true when the FIFO-empty flag
    /// is set (the caller puts the thread back on the run queue).
    pub(super) fn output_flag_set(&mut self, i: usize) -> bool {
        let Some(k) = self.out_of[i] else {
            return false;
        };
        let d = self.cfg.outputs[k].device;
        let tau = self.cfg.devices[d].item_time.0;
        if self.now >= self.dev_idle_at[d].saturating_sub(tau) {
            self.out_state[i] = OutState::Next;
            self.dev_stats[d].resumes += 1;
            true
        } else {
            self.dev_stats[d].flag_clear_scans += 1;
            false
        }
    }

    /// Per-device statistics of the run so far, in configuration order.
    pub fn device_stats(&self) -> &[DeviceStats] {
        &self.dev_stats
    }
}
