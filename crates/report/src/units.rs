//! Formatting of times, numbers and fractions for tables and chart axes.

use latscope_core::time::human;

/// A display unit for durations given in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    /// Nanoseconds per unit.
    pub ns: f64,
    /// Symbol printed after numbers and in axis titles.
    pub symbol: &'static str,
}

pub const NS: TimeUnit = TimeUnit {
    ns: 1.0,
    symbol: "ns",
};
pub const US: TimeUnit = TimeUnit {
    ns: 1e3,
    symbol: "µs",
};
pub const MS: TimeUnit = TimeUnit {
    ns: 1e6,
    symbol: "ms",
};
pub const S: TimeUnit = TimeUnit {
    ns: 1e9,
    symbol: "s",
};

/// The unit in which `ns` reads as a number between 1 and 1000 (seconds above).
pub fn unit_for(ns: f64) -> TimeUnit {
    let a = ns.abs();
    if !a.is_finite() || a < 1e3 {
        NS
    } else if a < 1e6 {
        US
    } else if a < 1e9 {
        MS
    } else {
        S
    }
}

/// A number with at most `sig` significant digits, trailing zeros removed
/// (`1.50` → `1.5`, `12.0` → `12`, `123.4` → `123`): the digit rule of every human
/// duration ([`latscope_core::time::human::num`]).
pub fn num(v: f64, sig: usize) -> String {
    human::num(v, sig)
}

/// An integer with thin-space thousands separators: `1234567` → `1 234 567`.
pub fn int(v: f64) -> String {
    if !v.is_finite() {
        return num(v, 3);
    }
    let neg = v < 0.0;
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

/// A duration in its natural unit with four significant digits: `12345.6` → `12.35 µs`.
pub fn dur(ns: f64) -> String {
    human::ns_sig(ns, human::REPORT)
}

/// A duration tick label (three significant digits), for log axes where each tick carries
/// its own unit.
pub fn dur_tick(ns: f64) -> String {
    human::ns(ns)
}

/// A fraction (0..1) as a percentage: `0.1234` → `12.34 %`.
pub fn pct(frac: f64) -> String {
    format!("{} %", num(frac * 100.0, 4))
}

/// One unit style in reports: the microsecond is written `µs`, never `us`. Rewrites `us`
/// after a number (`60.713 us`, `5us`), in parentheses (`(us)`) and as a whole text (a unit
/// column); any other `us` (a word) is left alone.
pub fn micro(s: &str) -> String {
    latscope_core::time::micro(s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_microsecond_style() {
        use super::micro;
        assert_eq!(micro("60.713 us at t = 41.4 s"), "60.713 µs at t = 41.4 s");
        assert_eq!(micro("us"), "µs");
        assert_eq!(micro("tick (us)"), "tick (µs)");
        assert_eq!(micro("5us, thus us and bus"), "5µs, thus us and bus");
    }

    use super::*;

    #[test]
    fn numbers_trim_zeros() {
        assert_eq!(num(1.5, 3), "1.5");
        assert_eq!(num(12.0, 3), "12");
        assert_eq!(num(123.456, 3), "123");
        assert_eq!(num(0.012345, 3), "0.0123");
        assert_eq!(num(-0.0001, 2), "-0.0001");
        assert_eq!(num(f64::NAN, 2), "–");
    }

    #[test]
    fn durations_pick_units() {
        assert_eq!(dur(950.0), "950 ns");
        assert_eq!(dur(12_345.6), "12.35 µs");
        assert_eq!(dur(39_000_000.0), "39 ms");
        assert_eq!(dur(2.5e9), "2.5 s");
        assert_eq!(dur_tick(1000.0), "1 µs");
        assert_eq!(int(1234567.0), "1\u{202f}234\u{202f}567");
        assert_eq!(int(999.0), "999");
        assert_eq!(pct(0.1234), "12.34 %");
    }
}
