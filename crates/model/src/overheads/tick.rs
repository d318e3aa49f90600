//! Tick-driven fixed-priority kernel (FreeRTOS-like).
//!
//! Source: B. D. Miranda, R. S. de Oliveira, A. Carminati, "Analysis of FreeRTOS
//! Overheads on Periodic Tasks" (the FreeRTOS overheads paper): equation (1) `I_tick = L + C_tick`,
//! equation (2) `I_cs = L + C_cs`, Table 2 (tick pseudo-tasks: 1.5 us base every tick,
//! 3.7 + 2.207 us per released task) and Table 4 (context-switch time against the loop
//! iterations of `taskSELECT_HIGHEST_PRIORITY_TASK`: 1.5, 2.875, 3.255, 3.875, 4.375 us
//! for 1..5 iterations). `L` (interrupt entry, 12 cycles on Cortex-M4) is not part of
//! these costs; callers add it (see [`crate::system::Platform::irq_entry`]).

use super::affine;
use latscope_core::Picos;
use serde::Serialize;

/// Costs of the tick handler and the context switch, without the entry latency `L`.
///
/// The tick cost is piecewise in the number `r` of tasks the tick releases, because in
/// FreeRTOS's `xTaskIncrementTick` the first task moved from the delayed list costs
/// more than each further one, and the last one (whose loop exit finds the list empty
/// or the next task not yet due) differs again:
///
/// ```text
/// C_tick(0)      = tick_base
/// C_tick(1)      = tick_base + tick_first_release
/// C_tick(r >= 2) = tick_base + tick_first_release + (r - 2) tick_per_release
///                  + tick_last_release
/// ```
///
/// A file that gives only `tick_per_release` keeps its meaning (first = last = further
/// = `tick_per_release`, the straight line of the FreeRTOS overheads paper section 5.2). The context switch
/// already has a distinct first step: `switch_base` is the switch that inspects one
/// ready list, `switch_per_level` each further level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TickCosts {
    /// `xTaskIncrementTick` with no task released (the FreeRTOS overheads paper: 1.5 us, the mode of the samples).
    pub tick_base: Picos,
    /// Extra tick time for each further task released at that tick, after the first
    /// (the FreeRTOS overheads paper Table 2: 3.7 + 2.207 us for every one).
    pub tick_per_release: Picos,
    /// Extra tick time for the first task released at that tick (`None`: follows
    /// `tick_per_release`; see [`TickCosts::first_release`]).
    pub tick_first_release: Option<Picos>,
    /// Extra tick time for the last of two or more tasks released at that tick, in place
    /// of `tick_per_release` (`None`: follows `tick_per_release`).
    pub tick_last_release: Option<Picos>,
    /// Context switch with one loop iteration of the ready-list scan (Table 4: 1.5 us).
    pub switch_base: Picos,
    /// Extra context-switch time per additional priority level scanned (generic selection).
    pub switch_per_level: Picos,
    /// Context switch with port-optimised selection (constant; `None`: follows
    /// `switch_base`).
    pub switch_optimised: Option<Picos>,
}

impl TickCosts {
    /// A straight-line tick (first = last = further = `per_release`).
    pub fn linear_tick(tick_base: Picos, per_release: Picos) -> TickCosts {
        TickCosts {
            tick_base,
            tick_per_release: per_release,
            ..Default::default()
        }
    }

    /// The first released task's cost (`tick_first_release`, else `tick_per_release`).
    pub fn first_release(&self) -> Picos {
        self.tick_first_release.unwrap_or(self.tick_per_release)
    }

    /// The last released task's cost (`tick_last_release`, else `tick_per_release`).
    pub fn last_release(&self) -> Picos {
        self.tick_last_release.unwrap_or(self.tick_per_release)
    }

    /// `C_tick(r)`: the tick handler's execution time when `released` tasks become ready
    /// at that tick (see the type's documentation; the FreeRTOS overheads paper, section 5.2: each released
    /// task is one more iteration of the loop in `xTaskIncrementTick`). Saturating.
    pub fn tick_cost(&self, released: u32) -> Picos {
        let r = released as i128;
        let v = self.tick_base.0 as i128
            + match r {
                0 => 0,
                1 => self.first_release().0 as i128,
                _ => {
                    self.first_release().0 as i128
                        + (r - 2) * self.tick_per_release.0 as i128
                        + self.last_release().0 as i128
                }
            };
        Picos(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
    }

    /// The dearest tick with at most `released` tasks released, `max_{r <= released}
    /// C_tick(r)` (equal to `C_tick(released)` for the non-negative costs a system file
    /// holds).
    pub fn worst_tick_cost(&self, released: u32) -> Picos {
        (0..=released)
            .map(|r| self.tick_cost(r))
            .max()
            .unwrap_or(self.tick_base)
    }

    /// `X = max(0, first - per, first + last - 2 per)`: the smallest excess with
    /// `C_tick(r) <= tick_base + r tick_per_release + X` for every `r >= 1`. The
    /// partitioned analysis charges it once per tick that releases at least one task.
    pub fn first_release_excess(&self) -> Picos {
        let (f, p, l) = (
            self.first_release().0 as i128,
            self.tick_per_release.0 as i128,
            self.last_release().0 as i128,
        );
        let x = (f - p).max(f + l - 2 * p).max(0);
        Picos(x.min(i64::MAX as i128) as i64)
    }

    /// `C_cs(k) = switch_base + (k - 1) * switch_per_level` for `k >= 1` loop iterations
    /// of the generic `taskSELECT_HIGHEST_PRIORITY_TASK` (the FreeRTOS overheads paper, section 6.2 and
    /// Table 4). `k = 0` is treated as 1 (the scan always inspects one list).
    pub fn switch_cost(&self, levels_scanned: u32) -> Picos {
        affine(
            self.switch_base,
            self.switch_per_level,
            levels_scanned.max(1) as u64 - 1,
        )
    }

    /// The constant context-switch cost with port-optimised selection (one CLZ).
    pub fn optimised_switch_cost(&self) -> Picos {
        self.switch_optimised.unwrap_or(self.switch_base)
    }
}

/// Loop iterations of the generic ready-list scan when switching from a task of
/// priority `from` to one of priority `to` (the FreeRTOS overheads paper, section 7.2): `from - to` when
/// the processor goes down to a lower priority, 1 when it goes up (`uxTopReadyPriority`
/// already names the new task's level). The idle task has priority 0.
pub fn levels_scanned(from: u32, to: u32) -> u32 {
    from.saturating_sub(to).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: f64) -> Picos {
        Picos((x * 1e6).round() as i64)
    }

    #[test]
    fn seed001_table2_tick_with_all_ten_released() {
        // Table 2: base 1.5 us, each released task 3.7 + 2.207 us = 5.907 us.
        let c = TickCosts::linear_tick(us(1.5), us(3.7) + us(2.207));
        assert_eq!(c.tick_cost(0), us(1.5));
        // 1.5 + 10 * 5.907 = 60.57 us; the paper's measured WCET is 60.75 us, 0.18 us more
        // (its text rounds the per-task share: (60.75 - 1.5 - 37) / 10 = 2.225, not 2.207).
        assert_eq!(c.tick_cost(10), us(60.57));
        assert_eq!(us(60.75) - c.tick_cost(10), us(0.18));
    }

    #[test]
    fn switch_levels_follow_table4_rule() {
        // Table 3 priorities: A 6, B 5, C 4, D 3, idle 0.
        assert_eq!(levels_scanned(5, 6), 1); // CS(B, A)
        assert_eq!(levels_scanned(6, 5), 1); // CS(A, B)
        assert_eq!(levels_scanned(6, 4), 2); // CS(A, C)
        assert_eq!(levels_scanned(6, 3), 3); // CS(A, D)
        assert_eq!(levels_scanned(3, 0), 3); // CS(D, IDLE)
        let c = TickCosts {
            switch_base: us(1.5),
            switch_per_level: us(0.7),
            ..Default::default()
        };
        assert_eq!(c.switch_cost(1), us(1.5));
        assert_eq!(c.switch_cost(0), us(1.5));
        assert_eq!(c.switch_cost(5), us(4.3));
    }

    #[test]
    fn piecewise_tick_first_further_last() {
        let c = TickCosts {
            tick_base: us(1.0),
            tick_first_release: Some(us(3.0)),
            tick_per_release: us(1.0),
            tick_last_release: Some(us(1.5)),
            ..Default::default()
        };
        assert_eq!(c.tick_cost(0), us(1.0));
        assert_eq!(c.tick_cost(1), us(4.0));
        assert_eq!(c.tick_cost(2), us(5.5));
        assert_eq!(c.tick_cost(5), us(8.5));
        // X = max(0, 3 - 1, 3 + 1.5 - 2) = 2.5: base + r per + X bounds every r >= 1.
        assert_eq!(c.first_release_excess(), us(2.5));
        for r in 1..20 {
            let bound = us(1.0) + Picos(r as i64 * us(1.0).0) + c.first_release_excess();
            assert!(c.tick_cost(r) <= bound, "r {r}");
        }
        assert_eq!(c.worst_tick_cost(5), c.tick_cost(5));
        // A straight line has no excess.
        assert_eq!(
            TickCosts::linear_tick(us(1.0), us(2.0)).first_release_excess(),
            Picos::ZERO
        );
    }
}
