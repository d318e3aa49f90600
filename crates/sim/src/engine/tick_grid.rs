//! The tick grid: the instant of tick k and the tick of an instant, in integer arithmetic.

use super::*;

/// The first tick number whose instant is at or after `t` (see [`Sim::ceil_tick`]).
#[inline]
pub(super) fn ceil_tick_of(t: i64, exact: bool, period: i64, num: i128, den: i128) -> i64 {
    if exact {
        return ceil_div(t, period);
    }
    // tick_time(k) = floor((2 k num + den) / (2 den)) >= t  <=>  2 k num >= 2 den t - den
    let a = 2 * den * t as i128 - den;
    let b = 2 * num;
    let q = a.div_euclid(b) + i128::from(a.rem_euclid(b) != 0);
    q.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

#[inline]
pub(super) fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    if a.rem_euclid(b) == 0 {
        q
    } else {
        q + 1
    }
}

impl Sim {
    /// Instant of tick `k`: `round(k * 1e12 / tick_hz)` ps, integer arithmetic (ties
    /// round up); `k * period` when the period is a whole number of picoseconds.
    #[inline]
    pub(super) fn tick_time(&self, k: i64) -> i64 {
        if self.tick_exact {
            return k.saturating_mul(self.period);
        }
        let v = (2 * k as i128 * self.tick_num + self.tick_den).div_euclid(2 * self.tick_den);
        v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// The first tick number whose instant is at or after `t`.
    #[inline]
    pub(super) fn ceil_tick(&self, t: i64) -> i64 {
        ceil_tick_of(
            t,
            self.tick_exact,
            self.period,
            self.tick_num,
            self.tick_den,
        )
    }

    /// The last tick number whose instant is at or before `t`.
    #[inline]
    pub(super) fn floor_tick(&self, t: i64) -> i64 {
        self.ceil_tick(t.saturating_add(1)) - 1
    }
}
