//! Exact integer arithmetic on the tick grid and the fast ceiling division of the inner loop.

use latscope_core::Picos;

/// `ceil(a / b)` for `b > 0` (0 for `a <= 0`), exact: a floating-point guess from the
/// reciprocal `inv = 1/b`, corrected with integer products. This is the analysis' inner
/// loop; an integer division there costs several times more.
#[inline]
pub(super) fn ceil_div_fast(a: i64, b: i64, inv: f64) -> i64 {
    if a <= 0 {
        return 0;
    }
    // Truncation, not `ceil` (a libm call on baseline x86-64); the loops fix the rest.
    let mut n = (a as f64 * inv) as i64;
    // The guess is off by at most a * 2^-52 / b + 1 releases, so the true remainder
    // a - n b is below 2^11 + b in magnitude and fits an i64: wrapping arithmetic gives
    // it exactly.
    let mut r = a.wrapping_sub(n.wrapping_mul(b));
    while r > 0 {
        n += 1;
        r -= b;
    }
    while r <= -b {
        n -= 1;
        r += b;
    }
    n
}

pub(super) const PS_PER_S: i128 = 1_000_000_000_000;

/// Whether `d` is a whole number of tick periods, exactly: `d * tick_hz` is a multiple
/// of 1 s (audit D20: at 300 Hz a 10 ms period is 3 ticks, although the tick period is
/// not a whole number of picoseconds).
pub fn on_tick_grid(d: Picos, tick_hz: u64) -> bool {
    (d.0 as i128 * tick_hz as i128) % PS_PER_S == 0
}

/// The fewest whole ticks covering `d`: `ceil(d * tick_hz / 1 s)`.
pub(super) fn ticks_covering(d: Picos, tick_hz: u64) -> i64 {
    let x = d.0.max(0) as i128 * tick_hz as i128;
    ((x + PS_PER_S - 1) / PS_PER_S).min(i64::MAX as i128) as i64
}

/// `k` exact tick periods rounded up to whole picoseconds, `ceil(k * 1 s / tick_hz)`:
/// at least the distance of any two tick instants `k` ticks apart, whether the ticks
/// sit at `round(k 1e12 / hz)` or at multiples of the truncated period.
pub(super) fn ticks_ps_ceil(k: i64, tick_hz: u64) -> i64 {
    let hz = tick_hz.max(1) as i128;
    ((k as i128 * PS_PER_S + hz - 1) / hz).min(i64::MAX as i128) as i64
}

pub(super) fn ns(p: i64) -> f64 {
    p as f64 / 1000.0
}

/// `x as f64` with a fast path: within `i64` the conversion is one instruction, where
/// the `i128` one is a call of ~40. Both round the same integer to the nearest `f64`
/// (ties to even), so the result is the same number.
#[inline]
pub(super) fn f64_of(x: i128) -> f64 {
    match i64::try_from(x) {
        Ok(v) => v as f64,
        Err(_) => x as f64,
    }
}

/// An `i128` sum of picoseconds in ns (saturated to `i64` first).
pub(super) fn ns_wide(p: i128) -> f64 {
    ns(p.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

#[cfg(test)]
mod tests {
    use super::{ceil_div_fast, f64_of};

    /// The fast path gives the very bits of the `i128` conversion: around 2^53 (where
    /// integers stop being exact and ties round to even), at the ends of `i64` and past
    /// them, and at random magnitudes.
    #[test]
    fn f64_of_is_the_i128_conversion() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut xs: Vec<i128> = Vec::new();
        for base in [
            0i128,
            1 << 53,
            1 << 54,
            1 << 62,
            i64::MAX as i128,
            i64::MIN as i128,
        ] {
            for d in -5..=5 {
                xs.push(base + d);
                xs.push(-(base + d));
            }
        }
        for _ in 0..100_000 {
            let bits = rng.gen_range(0..100);
            let x: i128 = rng.gen::<i128>() >> (127 - bits);
            xs.push(x);
        }
        for x in xs {
            assert_eq!(f64_of(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
    }

    use rand::{Rng, SeedableRng};

    #[test]
    fn fast_ceil_div_is_exact() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let cases = [
            (1, 1),
            (7, 7),
            (8, 7),
            (i64::MAX / 2, 3),
            (1_000_000_000_000_000, 999_999_999_999_999),
            (999_999_999_999_999_999, 1),
        ];
        for (a, b) in cases {
            assert_eq!(
                ceil_div_fast(a, b, 1.0 / b as f64),
                (a + b - 1) / b,
                "{a} {b}"
            );
        }
        for _ in 0..100_000 {
            let b: i64 = rng.gen_range(1..=1_000_000_000_000_000);
            let a: i64 = rng.gen_range(-10..=4_000_000_000_000_000_000);
            let want = if a <= 0 {
                0
            } else {
                (a as i128 + b as i128 - 1) / b as i128
            } as i64;
            assert_eq!(ceil_div_fast(a, b, 1.0 / b as f64), want, "{a} {b}");
        }
    }
}
