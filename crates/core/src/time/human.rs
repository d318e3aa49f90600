//! Durations written for people: one rule for the unit, one for the digits, and `µs` for
//! the microsecond everywhere.
//!
//! Why one family: the terminal summaries, the analysis tables, the verdict lines and the
//! report pages used to carry their own formatters, which switched units at different
//! points (`9999 ns` beside `10.0 us`) and wrote `us` in some places and `µs` in others, so
//! one value read differently depending on which command printed it.
//!
//! The rule: a value is shown in the largest unit (ps, ns, µs, ms, s) in which it is at
//! least 1 (zero is `0 ns`), with a fixed number of significant digits and trailing zeros
//! dropped; a value that rounds up to 1000 moves to the next unit. [`SHORT`] digits is
//! the default (summaries, one-line messages); a table where the digits matter asks for
//! more ([`REPORT`], [`PRECISE`], or a count of its own through [`ps_sig`] / [`ns_sig`]).
//!
//! Machine forms are not made here: CSV, JSON, OpenMetrics and system files (`tick_base =
//! "1.5us"`) keep their plain-ASCII spellings that parsers read back.

use super::Picos;
use std::fmt;

/// Significant digits of the default human form (`12.3 µs`).
pub const SHORT: usize = 3;
/// Significant digits of report tables and figures (`12.35 µs`).
pub const REPORT: usize = 4;
/// Significant digits where the exact value matters (analysis results, whose inputs are
/// often exact to the nanosecond: `1.64286 µs` rather than `1.64 µs`).
pub const PRECISE: usize = 6;

/// Picoseconds per unit and the unit's symbol, smallest first.
const UNITS: [(f64, &str); 5] = [
    (1.0, "ps"),
    (1e3, "ns"),
    (1e6, "µs"),
    (1e9, "ms"),
    (1e12, "s"),
];
/// Index of `ns` in [`UNITS`]: the unit of zero.
const NS: usize = 1;

/// A time or duration in the human form with [`SHORT`] significant digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Human(pub Picos);

impl fmt::Display for Human {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&ps_sig(self.0 .0 as f64, SHORT))
    }
}

/// Picoseconds with [`SHORT`] significant digits: `12.3 µs`.
pub fn ps(ps: i128) -> String {
    ps_sig(ps as f64, SHORT)
}

/// Nanoseconds (the unit of latscope's JSON times) with [`SHORT`] significant digits.
pub fn ns(ns: f64) -> String {
    ns_sig(ns, SHORT)
}

/// Nanoseconds with [`PRECISE`] significant digits: `60.7129 µs`.
pub fn ns_precise(ns: f64) -> String {
    ns_sig(ns, PRECISE)
}

/// Nanoseconds with `sig` significant digits.
pub fn ns_sig(ns: f64, sig: usize) -> String {
    ps_sig(ns * 1e3, sig)
}

/// Picoseconds (as a float, so sums past `i64` still print) with `sig` significant digits.
/// A value that is not finite prints as `∞` or `–` with no unit.
pub fn ps_sig(ps: f64, sig: usize) -> String {
    if !ps.is_finite() {
        return num(ps, sig);
    }
    let a = ps.abs();
    let mut i = if a == 0.0 {
        NS
    } else {
        UNITS.iter().rposition(|u| a >= u.0).unwrap_or(0)
    };
    let mut s = num(ps / UNITS[i].0, sig);
    // 999.96 ns at three digits reads "1000 ns": the next unit says it shorter.
    if i + 1 < UNITS.len() && s.trim_start_matches('-').parse::<f64>().unwrap_or(0.0) >= 1e3 {
        i += 1;
        s = num(ps / UNITS[i].0, sig);
    }
    format!("{s} {}", UNITS[i].1)
}

/// Every digit down to the picosecond, in the unit of the same rule (`1.642857 µs`), for
/// the few lines where a difference below three significant digits is the point (the
/// bounds of a lost-event window).
pub fn exact(p: Picos) -> String {
    let v = i128::from(p.0);
    let a = v.unsigned_abs();
    let i = if a == 0 {
        NS
    } else {
        UNITS.iter().rposition(|u| a as f64 >= u.0).unwrap_or(0)
    };
    let div = UNITS[i].0 as u128;
    let (int, frac) = (a / div, a % div);
    let sign = if v < 0 { "-" } else { "" };
    let unit = UNITS[i].1;
    if frac == 0 {
        return format!("{sign}{int} {unit}");
    }
    let width = div.ilog10() as usize;
    let f = format!("{frac:0width$}");
    format!("{sign}{int}.{} {unit}", f.trim_end_matches('0'))
}

/// A number with at most `sig` significant digits, trailing zeros removed (`1.50` → `1.5`,
/// `12.0` → `12`, `123.4` → `123`); integer digits are never dropped (`12345` stays).
/// Not finite: `∞`, `-∞` or `–`.
pub fn num(v: f64, sig: usize) -> String {
    if v.is_nan() {
        return "–".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "∞".into() } else { "-∞".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    let decimals = (sig as i32 - 1 - mag).clamp(0, 9) as usize;
    let s = format!("{:.*}", decimals, v);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_unit_rule() {
        assert_eq!(ps(0), "0 ns");
        assert_eq!(ps(500), "500 ps");
        assert_eq!(ps(1_000), "1 ns");
        assert_eq!(ps(999_000), "999 ns");
        assert_eq!(ps(1_000_000), "1 µs");
        assert_eq!(ps(12_345_000), "12.3 µs");
        assert_eq!(ps(-12_345_000), "-12.3 µs");
        assert_eq!(ps(4_050_000_000), "4.05 ms");
        assert_eq!(ps(90 * 1_000_000_000_000), "90 s");
        // Rounding up to 1000 moves to the next unit.
        assert_eq!(ps(999_960), "1 µs");
    }

    #[test]
    fn digits_are_significant_and_trimmed() {
        assert_eq!(ns(1500.0), "1.5 µs");
        assert_eq!(ns_sig(12_345.6, REPORT), "12.35 µs");
        assert_eq!(ns_precise(60_712.857), "60.7129 µs");
        assert_eq!(ns_sig(60_712.857, 6), "60.7129 µs");
        assert_eq!(ns(142.857), "143 ns");
        assert_eq!(ns(f64::INFINITY), "∞");
        assert_eq!(Human(Picos(2_098_000_000)).to_string(), "2.1 ms");
    }

    #[test]
    fn exact_keeps_every_digit() {
        assert_eq!(exact(Picos(1_642_857)), "1.642857 µs");
        assert_eq!(exact(Picos(0)), "0 ns");
        assert_eq!(exact(Picos(-41_398_000_000_001)), "-41.398000000001 s");
        assert_eq!(exact(Picos(7)), "7 ps");
    }

    #[test]
    fn numbers() {
        assert_eq!(num(1.50, 3), "1.5");
        assert_eq!(num(12.0, 3), "12");
        assert_eq!(num(123.4, 3), "123");
        assert_eq!(num(12345.0, 3), "12345");
        assert_eq!(num(-0.0001, 2), "-0.0001");
        assert_eq!(num(f64::NAN, 3), "–");
    }
}
