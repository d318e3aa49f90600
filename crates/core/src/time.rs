//! Integer time with the unit in the type, and exact parsing of human durations.
//!
//! Why integers: latency work compares values that differ by a few nanoseconds on
//! runs that last days; floats lose that resolution past a few hours. Why two types:
//! Linux measurements come from `clock_gettime` in nanoseconds, while captures and
//! kernel models need sub-nanosecond resolution (12 cycles at 84 MHz is 142.857 ns).

use serde::{Deserialize, Serialize};
use std::fmt;

pub mod human;

/// A time or duration in nanoseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub i64);

/// A time or duration in picoseconds (±106 days fit in an i64).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
// The layout of an i64, so a slice of edge times can be lent to numpy without a copy.
#[repr(transparent)]
pub struct Picos(pub i64);

pub const PS_PER_NS: i64 = 1_000;
pub const PS_PER_US: i64 = 1_000_000;
pub const PS_PER_MS: i64 = 1_000_000_000;
pub const PS_PER_S: i64 = 1_000_000_000_000;

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);
    pub fn from_secs_f64(s: f64) -> Nanos {
        Nanos((s * 1e9).round() as i64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }
    pub fn to_picos(self) -> Picos {
        Picos(self.0.saturating_mul(PS_PER_NS))
    }
}

impl Picos {
    pub const ZERO: Picos = Picos(0);
    pub const MAX: Picos = Picos(i64::MAX);
    pub fn from_ns(ns: i64) -> Picos {
        Picos(ns.saturating_mul(PS_PER_NS))
    }
    pub fn from_us(us: i64) -> Picos {
        Picos(us.saturating_mul(PS_PER_US))
    }
    pub fn from_ms(ms: i64) -> Picos {
        Picos(ms.saturating_mul(PS_PER_MS))
    }
    /// Nanoseconds as a float: the unit of every JSON time in latscope's outputs.
    pub fn as_ns_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    /// Truncating conversion to nanoseconds.
    pub fn to_nanos(self) -> Nanos {
        Nanos(self.0 / PS_PER_NS)
    }
    /// Duration of `cycles` clock cycles at `hz`, rounded to the nearest picosecond.
    pub fn from_cycles(cycles: u64, hz: u64) -> Picos {
        let ps = (cycles as i128 * PS_PER_S as i128 + hz as i128 / 2) / hz.max(1) as i128;
        Picos(ps.min(i64::MAX as i128) as i64)
    }
}

// Arithmetic saturates: a sum past ±106 days of picoseconds (a system file with absurd
// but individually valid costs) becomes "as large as representable", which every
// consumer treats as unbounded, instead of wrapping to a negative duration or panicking.
impl std::ops::Add for Picos {
    type Output = Picos;
    fn add(self, o: Picos) -> Picos {
        Picos(self.0.saturating_add(o.0))
    }
}
impl std::ops::Sub for Picos {
    type Output = Picos;
    fn sub(self, o: Picos) -> Picos {
        Picos(self.0.saturating_sub(o.0))
    }
}
impl std::ops::AddAssign for Picos {
    fn add_assign(&mut self, o: Picos) {
        self.0 = self.0.saturating_add(o.0)
    }
}
impl std::ops::Add for Nanos {
    type Output = Nanos;
    fn add(self, o: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(o.0))
    }
}
impl std::ops::Sub for Nanos {
    type Output = Nanos;
    fn sub(self, o: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for Nanos {
    /// Human form with a unit chosen for readability: `850 ns`, `12.3 µs`, `4.05 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_ps(self.0 as i128 * 1000))
    }
}
impl fmt::Display for Picos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_ps(self.0 as i128))
    }
}

/// Picoseconds in the human form ([`human::ps`]); kept under this name for its callers.
pub fn format_ps(ps: i128) -> String {
    human::ps(ps)
}

/// A nanosecond float (as found in JSON outputs) in the human form ([`human::ns`]).
pub fn format_ns_f64(ns: f64) -> String {
    human::ns(ns)
}

/// Machine form for CSV columns in nanoseconds: picoseconds as an exact decimal number
/// of nanoseconds, no unit, no float rounding (`1500`, `1500.25`, `-0.001`). The
/// `simulate --series` and `trace --tick-series` files are written with it so that one
/// tool's series reads like the other's.
pub fn ns_decimal(ps: i64) -> String {
    let sign = if ps < 0 { "-" } else { "" };
    let a = ps.unsigned_abs();
    let (i, f) = (a / 1000, a % 1000);
    if f == 0 {
        format!("{sign}{i}")
    } else {
        let frac = format!("{f:03}");
        format!("{sign}{i}.{}", frac.trim_end_matches('0'))
    }
}

/// Why a duration or frequency string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("empty value")]
    Empty,
    #[error("'{0}' is not a number with a unit (expected e.g. 1.5us, 10 ms, 250s)")]
    Malformed(String),
    #[error("'{0}' has no unit; write it as e.g. {0}us or {0}ms")]
    MissingUnit(String),
    #[error("unknown unit '{unit}' in '{text}' (use {DURATION_UNIT_LIST}{extra})")]
    UnknownUnit {
        text: String,
        unit: String,
        extra: &'static str,
    },
    #[error("'{0}' is given in cycles but no CPU clock (cpu_hz) is known")]
    CyclesWithoutClock(String),
    #[error("'{0}' is out of range")]
    OutOfRange(String),
    #[error("'{0}' is negative; a duration here must be zero or more")]
    Negative(String),
    #[error("'{0}' has more precision than one picosecond")]
    TooPrecise(String),
    #[error("'{0}' is not a whole number of nanoseconds (the resolution here is 1 ns)")]
    SubNanosecond(String),
    /// A rate of zero (a sample rate or clock must be more than zero).
    #[error("must be positive")]
    NotPositive,
}

/// A decimal number parsed exactly: value = mantissa / 10^scale.
struct Decimal {
    neg: bool,
    mantissa: i128,
    scale: u32,
}

fn split_number(s: &str) -> Option<(Decimal, &str)> {
    let s = s.trim();
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if i < bytes.len() && (bytes[i] == b'-' || bytes[i] == b'+') {
        neg = bytes[i] == b'-';
        i += 1;
    }
    let mut mantissa: i128 = 0;
    let mut scale = 0u32;
    let mut digits = 0;
    let mut seen_dot = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() {
            mantissa = mantissa.checked_mul(10)?.checked_add((c - b'0') as i128)?;
            if seen_dot {
                scale += 1;
            }
            digits += 1;
        } else if c == b'.' && !seen_dot {
            seen_dot = true;
        } else if c == b'_' && digits > 0 {
            // 84_000_000 as in TOML
        } else {
            break;
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    // Optional exponent: 1e-6s, 2.5E3ns
    let mut rest = &s[i..];
    if let Some(r) = rest.strip_prefix(['e', 'E']) {
        let (esign, r2) = match r.strip_prefix('-') {
            Some(r2) => (-1i32, r2),
            None => (1, r.strip_prefix('+').unwrap_or(r)),
        };
        let n = r2.bytes().take_while(|b| b.is_ascii_digit()).count();
        if n > 0 {
            let e: i32 = r2[..n].parse().ok()?;
            let e = e * esign;
            if e >= 0 {
                for _ in 0..e {
                    mantissa = mantissa.checked_mul(10)?;
                }
            } else {
                scale += (-e) as u32;
            }
            rest = &r2[n..];
        }
    }
    Some((
        Decimal {
            neg,
            mantissa,
            scale,
        },
        rest.trim(),
    ))
}

fn scale_exact(d: &Decimal, unit_ps: i128, text: &str) -> Result<i64, UnitError> {
    let num = d
        .mantissa
        .checked_mul(unit_ps)
        .ok_or_else(|| UnitError::OutOfRange(text.into()))?;
    let den = 10i128
        .checked_pow(d.scale)
        .ok_or_else(|| UnitError::TooPrecise(text.into()))?;
    if num % den != 0 {
        return Err(UnitError::TooPrecise(text.into()));
    }
    let v = num / den;
    let v = if d.neg { -v } else { v };
    i64::try_from(v).map_err(|_| UnitError::OutOfRange(text.into()))
}

/// Every spelling a duration's unit may take, with its length in picoseconds: the one
/// table both the parser and its error message read, so the message lists exactly what
/// is accepted. `µs` is accepted with the micro sign (U+00B5) and the Greek mu (U+03BC);
/// `m` is a minute, as in `sleep 1m` (a frequency's `m` is MHz, sigrok's habit, but
/// frequencies are parsed by [`parse_frequency_hz`]).
const DURATION_UNITS: &[(&[&str], i128)] = &[
    (&["ps", "psec", "psecs"], 1),
    (&["ns", "nsec", "nsecs"], PS_PER_NS as i128),
    (&["us", "µs", "μs", "usec", "usecs"], PS_PER_US as i128),
    (&["ms", "msec", "msecs"], PS_PER_MS as i128),
    (&["s", "sec", "secs", "second", "seconds"], PS_PER_S as i128),
    (
        &["m", "min", "mins", "minute", "minutes"],
        60 * PS_PER_S as i128,
    ),
    (
        &["h", "hr", "hrs", "hour", "hours"],
        3600 * PS_PER_S as i128,
    ),
];

/// The accepted duration units as the error message lists them (kept equal to
/// [`DURATION_UNITS`] by a test).
pub const DURATION_UNIT_LIST: &str = "ps, psec, psecs, ns, nsec, nsecs, us, µs, μs, usec, usecs, \
ms, msec, msecs, s, sec, secs, second, seconds, m, min, mins, minute, minutes, h, hr, hrs, hour, hours";

fn unit_ps(unit: &str) -> Option<i128> {
    DURATION_UNITS
        .iter()
        .find(|(names, _)| names.contains(&unit))
        .map(|&(_, ps)| ps)
}

/// Parses a duration such as `1.5us`, `10 ms`, `250s`, `5.907us`, `1e-3s` exactly into
/// picoseconds. A bare number is an error: a silent default unit is how `10` ends up
/// meaning 10 ns in one tool and 10 us in the next.
pub fn parse_duration(text: &str) -> Result<Picos, UnitError> {
    parse_duration_cycles(text, None)
}

/// Like [`parse_duration`], and also accepts `N cycles` (or `Ncyc`) when the CPU clock is
/// known. Cycles are converted to the nearest picosecond.
pub fn parse_duration_cycles(text: &str, cpu_hz: Option<u64>) -> Result<Picos, UnitError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(UnitError::Empty);
    }
    let (d, unit) = split_number(t).ok_or_else(|| UnitError::Malformed(t.into()))?;
    if unit.is_empty() {
        return Err(UnitError::MissingUnit(t.into()));
    }
    if matches!(unit, "cycles" | "cycle" | "cyc") {
        let hz = cpu_hz.ok_or_else(|| UnitError::CyclesWithoutClock(t.into()))?;
        if d.scale != 0 {
            return Err(UnitError::Malformed(t.into()));
        }
        let c = u64::try_from(d.mantissa).map_err(|_| UnitError::OutOfRange(t.into()))?;
        let ps = Picos::from_cycles(c, hz);
        return Ok(if d.neg { Picos(-ps.0) } else { ps });
    }
    let u = unit_ps(unit).ok_or_else(|| UnitError::UnknownUnit {
        text: t.into(),
        unit: unit.into(),
        extra: if cpu_hz.is_some() { ", cycles" } else { "" },
    })?;
    Ok(Picos(scale_exact(&d, u, t)?))
}

/// A duration with its unit (`1.5us`, `10 ms`), as [`parse_duration`] reads it: the one
/// parser behind the command line's duration flags (clap's `value_parser`) and the Python
/// binding's duration keywords, so both accept and refuse the same text in the same words.
impl std::str::FromStr for Picos {
    type Err = UnitError;
    fn from_str(text: &str) -> Result<Picos, UnitError> {
        parse_duration(text)
    }
}

/// Parses a non-negative duration; see [`parse_duration`]. Usable as a clap
/// `value_parser`, so that `--duration -1s` is refused in these words rather than taken
/// for an unknown flag (the argument also needs `allow_hyphen_values`).
pub fn parse_nonneg_duration(text: &str) -> Result<Picos, UnitError> {
    let p = parse_duration(text)?;
    if p.0 < 0 {
        return Err(UnitError::Negative(text.trim().into()));
    }
    Ok(p)
}

/// Parses a duration into whole nanoseconds (for Linux measurement settings).
pub fn parse_duration_ns(text: &str) -> Result<Nanos, UnitError> {
    let p = parse_duration(text)?;
    if p.0 % PS_PER_NS != 0 {
        return Err(UnitError::SubNanosecond(text.trim().into()));
    }
    Ok(Nanos(p.0 / PS_PER_NS))
}

/// Parses a frequency such as `84_000_000`, `84 MHz`, `1m` (sigrok style), `200 kHz`,
/// `8000000 Hz` into whole hertz. A bare number means hertz.
pub fn parse_frequency_hz(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(UnitError::Empty);
    }
    let (d, unit) = split_number(t).ok_or_else(|| UnitError::Malformed(t.into()))?;
    let mult: i128 = match unit.to_ascii_lowercase().as_str() {
        "" | "hz" => 1,
        "k" | "khz" => 1_000,
        "m" | "mhz" => 1_000_000,
        "g" | "ghz" => 1_000_000_000,
        _ => {
            return Err(UnitError::UnknownUnit {
                text: t.into(),
                unit: unit.into(),
                extra: " for durations; Hz, kHz, MHz, GHz for frequencies",
            })
        }
    };
    if d.neg {
        return Err(UnitError::Negative(t.into()));
    }
    let v = scale_exact(&d, mult, t)?;
    Ok(v as u64)
}

/// One unit style in human output: the microsecond is written `µs`, never `us`. Rewrites
/// `us` after a number (`60.713 us`, `5us`), in parentheses (`(us)`) and as a whole text (a
/// unit column); any other `us` (a word) is left alone. The report and the verdict lines
/// (latscope-results) both write through this, so the terminal and the pages agree.
pub fn micro(s: &str) -> String {
    if !s.contains("us") {
        return s.to_string();
    }
    if s.trim() == "us" {
        return s.replace("us", "µs");
    }
    let c: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 4);
    let mut i = 0;
    while i < c.len() {
        if c[i] == 'u' && c.get(i + 1) == Some(&'s') {
            let next_ok = c.get(i + 2).is_none_or(|n| !n.is_alphanumeric());
            let prev = if i == 0 { None } else { Some(c[i - 1]) };
            let prev2 = if i >= 2 { Some(c[i - 2]) } else { None };
            let after_number = match prev {
                Some(p) if p.is_ascii_digit() => true,
                Some(' ') => prev2.is_some_and(|q| q.is_ascii_digit()),
                Some('(') => c.get(i + 2) == Some(&')'),
                _ => false,
            };
            if next_ok && after_number {
                out.push_str("µs");
                i += 2;
                continue;
            }
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_exactly() {
        assert_eq!(parse_duration("5.907us").unwrap(), Picos(5_907_000));
        assert_eq!(parse_duration("1.5 us").unwrap(), Picos(1_500_000));
        assert_eq!(parse_duration("10ms").unwrap(), Picos::from_ms(10));
        assert_eq!(parse_duration("250s").unwrap(), Picos(250 * PS_PER_S));
        assert_eq!(parse_duration("1e-3s").unwrap(), Picos::from_ms(1));
        assert_eq!(parse_duration("3µs").unwrap(), Picos::from_us(3));
        assert_eq!(
            parse_duration("0.5ps"),
            Err(UnitError::TooPrecise("0.5ps".into()))
        );
        assert_eq!(parse_duration_ns("1ms").unwrap(), Nanos(1_000_000));
        assert_eq!(
            parse_duration_ns("100ps"),
            Err(UnitError::SubNanosecond("100ps".into()))
        );
    }

    #[test]
    fn rejects_bad_durations() {
        assert_eq!(
            parse_duration("10"),
            Err(UnitError::MissingUnit("10".into()))
        );
        assert!(matches!(parse_duration("ms"), Err(UnitError::Malformed(_))));
        assert!(matches!(
            parse_duration("10 parsecs"),
            Err(UnitError::UnknownUnit { .. })
        ));
        assert!(matches!(parse_duration(""), Err(UnitError::Empty)));
        assert!(matches!(
            parse_nonneg_duration("-1ms"),
            Err(UnitError::Negative(_))
        ));
        assert!(matches!(
            parse_duration("99999999999h"),
            Err(UnitError::OutOfRange(_))
        ));
    }

    #[test]
    fn every_spelling_of_every_unit() {
        let one_s = Picos(PS_PER_S);
        for t in [
            "10s",
            "10 s",
            "10sec",
            "10 sec",
            "10secs",
            "10 seconds",
            "10second",
        ] {
            assert_eq!(parse_duration(t).unwrap(), Picos(10 * one_s.0), "{t}");
        }
        for t in ["1m", "1min", "1 mins", "1minute", "1 minutes", "60s"] {
            assert_eq!(parse_duration(t).unwrap(), Picos(60 * one_s.0), "{t}");
        }
        for t in [
            "1.5us",
            "1.5µs",
            "1.5μs",
            "1.5 usec",
            "1.5usecs",
            "1500ns",
            "1500 nsec",
        ] {
            assert_eq!(parse_duration(t).unwrap(), Picos(1_500_000), "{t}");
        }
        for t in ["2h", "2 hr", "2hrs", "2 hours", "120min"] {
            assert_eq!(parse_duration(t).unwrap(), Picos(7200 * one_s.0), "{t}");
        }
        assert_eq!(parse_duration("3 msecs").unwrap(), Picos::from_ms(3));
        assert_eq!(parse_duration("7psec").unwrap(), Picos(7));
        // `ms` stays milliseconds: `m` as a minute does not swallow it.
        assert_eq!(parse_duration("1ms").unwrap(), Picos::from_ms(1));
    }

    #[test]
    fn the_error_lists_exactly_the_accepted_units() {
        let listed: Vec<&str> = DURATION_UNIT_LIST.split(", ").collect();
        let table: Vec<&str> = DURATION_UNITS
            .iter()
            .flat_map(|(names, _)| names.iter().copied())
            .collect();
        assert_eq!(listed, table);
        let e = parse_duration("10 parsecs").unwrap_err().to_string();
        for u in &table {
            assert!(e.contains(u), "{e} lacks {u}");
        }
        assert!(e.contains("'parsecs'") && e.contains("'10 parsecs'"), "{e}");
    }

    #[test]
    fn negative_durations_are_refused_in_words() {
        for t in ["-1s", "-0.5 ms", "-1m"] {
            let e = parse_nonneg_duration(t).unwrap_err();
            assert_eq!(e, UnitError::Negative(t.into()));
            assert!(e.to_string().contains("negative"), "{e}");
        }
        assert_eq!(parse_nonneg_duration("0s").unwrap(), Picos(0));
        assert_eq!(parse_duration("-1s").unwrap(), Picos(-PS_PER_S));
    }

    #[test]
    fn cycles_need_a_clock() {
        assert_eq!(
            parse_duration_cycles("12 cycles", Some(84_000_000)).unwrap(),
            Picos(142_857)
        );
        assert_eq!(
            parse_duration_cycles("281cycles", Some(125_000_000)).unwrap(),
            Picos(2_248_000)
        );
        assert!(matches!(
            parse_duration_cycles("12 cycles", None),
            Err(UnitError::CyclesWithoutClock(_))
        ));
    }

    #[test]
    fn frequencies() {
        assert_eq!(parse_frequency_hz("84_000_000").unwrap(), 84_000_000);
        assert_eq!(parse_frequency_hz("1 MHz").unwrap(), 1_000_000);
        assert_eq!(parse_frequency_hz("200 kHz").unwrap(), 200_000);
        assert_eq!(parse_frequency_hz("1m").unwrap(), 1_000_000);
        assert_eq!(parse_frequency_hz("12.5 MHz").unwrap(), 12_500_000);
        assert!(parse_frequency_hz("fast").is_err());
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let big = Picos(i64::MAX - 5);
        assert_eq!(big + Picos(10), Picos::MAX);
        assert_eq!(Picos(i64::MIN + 1) - Picos(10), Picos(i64::MIN));
        let mut a = big;
        a += Picos(100);
        assert_eq!(a, Picos::MAX);
        assert_eq!(Nanos(i64::MAX) + Nanos(1), Nanos(i64::MAX));
        assert_eq!(Picos(3) + Picos(4), Picos(7));
    }

    #[test]
    fn nanosecond_decimals() {
        assert_eq!(ns_decimal(1_500_000), "1500");
        assert_eq!(ns_decimal(1_500_250), "1500.25");
        assert_eq!(ns_decimal(-1), "-0.001");
        assert_eq!(ns_decimal(i64::MIN), "-9223372036854775.808");
    }

    #[test]
    fn formatting() {
        assert_eq!(Picos(142_857).to_string(), "143 ns");
        assert_eq!(Nanos(12_345).to_string(), "12.3 µs");
        assert_eq!(Nanos(4_050_000).to_string(), "4.05 ms");
        assert_eq!(Nanos(850).to_string(), "850 ns");
        assert_eq!(Picos::from_cycles(26, 125_000_000), Picos(208_000));
    }
}
