//! Whole-number helpers the analysis and the simulator share: greatest common divisor
//! and the least common multiple of a list of periods (a hyperperiod), overflow-checked.

pub use num_integer::gcd;

/// Least common multiple of `values`, `None` once it passes `i64::MAX` (1 for no value).
/// Computed in `u128` as `h / gcd(h, v) * v`, so no intermediate step overflows before
/// the check.
pub fn lcm_all(values: impl IntoIterator<Item = u64>) -> Option<i64> {
    let mut h: u128 = 1;
    for v in values {
        let v = u128::from(v);
        h = h / gcd(h, v).max(1) * v;
        if h > i64::MAX as u128 {
            return None;
        }
    }
    i64::try_from(h).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcm_of_periods() {
        assert_eq!(lcm_all([4, 6, 10]), Some(60));
        assert_eq!(lcm_all([]), Some(1));
        assert_eq!(lcm_all([7]), Some(7));
        // Two large coprime periods overflow i64.
        assert_eq!(lcm_all([(1 << 62) - 1, 1 << 62]), None);
    }
}
