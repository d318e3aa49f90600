//! Steal time per spike: the hypervisor's time away from a vCPU is invisible in the
//! guest's trace (the task that was current seems to run on), so it is read from the
//! per-CPU steal counter of `/proc/stat` (8th value of `cpuN`, in USER_HZ ticks),
//! sampled on the monotonic clock during the run. A spike is given only the steal the
//! samples around it can place in its window: from the last sample at or before the
//! window to the first at or after it, the steal that must have fallen inside the
//! window (`min_ns`) and the most that can have (`max_ns`). Steal counted in other
//! periods is never charged to it.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// What the steal counter says of one spike's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Steal {
    /// Steal that certainly fell inside the window (ns).
    pub min_ns: i64,
    /// Steal that can have fallen inside it (ns; at most the window's length).
    pub max_ns: i64,
    /// Length of the stretch between the two counter samples around the window (ns):
    /// the resolution of the two figures.
    pub sampled_over_ns: i64,
}

/// Counter samples: (monotonic ns, steal ticks per CPU), oldest first.
#[derive(Clone, Debug)]
pub struct StealTimeline {
    tick_ns: i64,
    samples: VecDeque<(i64, BTreeMap<u32, u64>)>,
}

/// Samples kept at most (at 20 ms apart, about half an hour; older are dropped first).
pub const MAX_SAMPLES: usize = 100_000;

impl StealTimeline {
    /// `tick_ns`: one USER_HZ tick (10 ms at the usual 100 Hz).
    pub fn new(tick_ns: i64) -> StealTimeline {
        StealTimeline {
            tick_ns: tick_ns.max(1),
            samples: VecDeque::new(),
        }
    }

    /// Adds a reading of `/proc/stat` taken at `mono_ns` (readings must come in time order;
    /// an older or unreadable one is ignored).
    pub fn push(&mut self, mono_ns: i64, proc_stat: &str) {
        let m = crate::env::parse_proc_stat(proc_stat);
        if m.is_empty() || self.samples.back().is_some_and(|b| b.0 > mono_ns) {
            return;
        }
        if self.samples.len() >= MAX_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back((mono_ns, m));
    }

    /// The latest reading's time.
    pub fn latest(&self) -> Option<i64> {
        self.samples.back().map(|s| s.0)
    }

    /// Forgets readings no window starting at or after `ts` needs (keeps the last one
    /// at or before it).
    pub fn prune(&mut self, ts: i64) {
        while self.samples.len() > 1 && self.samples[1].0 <= ts {
            self.samples.pop_front();
        }
    }

    /// The steal of `cpu` that the readings place in `[from, to]`; None when no
    /// reading lies at or before `from` and one at or after `to`.
    pub fn within(&self, cpu: u32, from: i64, to: i64) -> Option<Steal> {
        let before = self.samples.iter().rev().find(|s| s.0 <= from)?;
        let after = self.samples.iter().find(|s| s.0 >= to)?;
        let a = *before.1.get(&cpu)?;
        let b = *after.1.get(&cpu)?;
        let window = (to - from).max(0);
        let span = after.0 - before.0;
        // The counter is whole ticks, rounded down when read: the true steal between
        // the readings is within one tick of the difference.
        let ticks = b.saturating_sub(a) as i64;
        let hi = ticks.saturating_add(1).saturating_mul(self.tick_ns);
        let lo = ticks.saturating_sub(1).max(0).saturating_mul(self.tick_ns);
        let hi = if ticks == 0 && span <= self.tick_ns {
            // No tick and less than a tick between the readings.
            hi.min(span)
        } else {
            hi
        };
        Some(Steal {
            // What does not fit outside the window fell inside it.
            min_ns: lo.saturating_sub(span - window).clamp(0, window),
            max_ns: hi.clamp(0, window),
            sampled_over_ns: span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(steal0: u64, steal1: u64) -> String {
        format!(
            "cpu  100 0 50 9000 3 0 1 {s} 0 0\n\
             cpu0 50 0 25 4500 1 0 0 {steal0} 0 0\n\
             cpu1 50 0 25 4500 2 0 1 {steal1} 0 0\nintr 1 2 3\nctxt 99\n",
            s = steal0 + steal1
        )
    }

    #[test]
    fn steal_is_placed_only_where_the_readings_allow() {
        let ms = 1_000_000;
        let mut t = StealTimeline::new(10 * ms);
        t.push(0, &stat(0, 7));
        t.push(20 * ms, &stat(0, 7));
        // 100 ms of steal on cpu 1 between 20 and 140 ms.
        t.push(140 * ms, &stat(0, 17));
        t.push(160 * ms, &stat(0, 17));
        // A 5 ms spike in the quiet stretch: no steal can be there.
        assert_eq!(
            t.within(1, 5 * ms, 10 * ms),
            Some(Steal {
                min_ns: 0,
                max_ns: 5 * ms,
                sampled_over_ns: 20 * ms
            })
        );
        // A 110 ms stall inside the stretch of 120 ms with 100 (±10) ms of steal: at
        // least 80 ms of it fell inside.
        let s = t.within(1, 25 * ms, 135 * ms).unwrap();
        assert_eq!(s.sampled_over_ns, 120 * ms);
        assert_eq!(s.min_ns, 80 * ms);
        assert_eq!(s.max_ns, 110 * ms);
        // The other CPU had none.
        assert_eq!(t.within(0, 25 * ms, 135 * ms).unwrap().max_ns, 10 * ms);
        assert_eq!(t.within(0, 25 * ms, 135 * ms).unwrap().min_ns, 0);
        // After the last reading: not known.
        assert_eq!(t.within(1, 150 * ms, 170 * ms), None);
        t.prune(140 * ms);
        assert!(t.within(1, 25 * ms, 135 * ms).is_none(), "pruned");
        assert!(t.within(1, 145 * ms, 150 * ms).is_some());
    }

    #[test]
    fn a_short_spike_in_a_long_stretch_is_not_given_its_steal() {
        let ms = 1_000_000;
        let mut t = StealTimeline::new(10 * ms);
        t.push(0, &stat(0, 0));
        t.push(1_000 * ms, &stat(0, 30)); // 300 ms somewhere in a second
        let s = t.within(1, 400 * ms, 402 * ms).unwrap();
        assert_eq!((s.min_ns, s.max_ns), (0, 2 * ms));
        // Out-of-order or unreadable readings are ignored.
        t.push(500 * ms, &stat(0, 99));
        t.push(2_000 * ms, "garbage");
        assert_eq!(t.latest(), Some(1_000 * ms));
    }
}
