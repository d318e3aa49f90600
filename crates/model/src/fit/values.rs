//! Reading measured values: counts (x) and durations (y) as written in a CSV cell or a
//! trace result.

/// The largest count accepted as x: 2^53, the largest integer up to which every integer
/// is exact in an `f64` (the fit computes in `f64`).
pub const MAX_COUNT: u64 = 1 << 53;

/// Why a text is not a count (x value).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CountError {
    #[error("'{0}' is not a whole count (expected an integer >= 0)")]
    NotANumber(String),
    #[error("{0} is not a whole count (expected an integer >= 0)")]
    Fractional(String),
    #[error("{0} is negative; a count is an integer >= 0")]
    Negative(String),
    #[error("{0} is a count written with an exponent; write it as digits (an integer >= 0)")]
    Exponent(String),
    #[error("{text} is too large for a count (at most {max})")]
    TooLarge { text: String, max: u64 },
}

/// Parses a count (tasks released, levels scanned, queue position, priority): digits,
/// optionally followed by a decimal point and zeros only (`3`, `3.0`: spreadsheets and
/// numeric libraries write whole floats that way), at most `max`. Negative, fractional,
/// exponent-notation, non-finite and empty values are errors.
pub fn parse_count(text: &str, max: u64) -> Result<u64, CountError> {
    let t = text.trim();
    let (int, frac) = match t.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (t, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(int) && frac.unwrap_or("").bytes().all(|b| b == b'0') {
        let too_large = || CountError::TooLarge {
            text: t.to_string(),
            max,
        };
        let v: u64 = int.parse().map_err(|_| too_large())?;
        return if v > max { Err(too_large()) } else { Ok(v) };
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v < 0.0 => Err(CountError::Negative(t.to_string())),
        Ok(v) if v.is_finite() && v.fract() != 0.0 => Err(CountError::Fractional(t.to_string())),
        Ok(v) if v.is_finite() && t.contains(['e', 'E']) => {
            Err(CountError::Exponent(t.to_string()))
        }
        _ => Err(CountError::NotANumber(t.to_string())),
    }
}

/// A text split after its last digit or point: (`"69.1 "`, `"cycles"`).
fn split_number(text: &str) -> (&str, &str) {
    let cut = text
        .rfind(|c: char| c.is_ascii_digit() || c == '.')
        .map_or(0, |i| i + 1);
    text.split_at(cut)
}

/// `text` (a number and a unit) in nanoseconds, the number read as an `f64`.
fn float_duration_ns(text: &str) -> Option<f64> {
    let (num, unit) = split_number(text);
    let per_unit = latscope_core::time::parse_duration(&format!("1{}", unit.trim()))
        .ok()?
        .as_ns_f64();
    let v: f64 = num.trim().parse().ok()?;
    Some(v * per_unit)
}

/// Why a text is not a measured duration (y value).
#[derive(Debug, thiserror::Error)]
pub enum SampleDurationError {
    #[error(
        "'{0}' is a cycle count: converting cycles to time needs the CPU clock; give \
         --cpu-hz (e.g. --cpu-hz 84MHz), or --write a system file whose \
         platform.cpu_hz is then used"
    )]
    NeedsCpuHz(String),
    #[error("'{0}' is not a number of cycles")]
    NotCycles(String),
    #[error("'{0}' is not a cycle count (a finite number >= 0)")]
    BadCycles(String),
    #[error("'{0}' has no unit; write e.g. {0}us, or give the unit of bare numbers with --unit")]
    NoUnit(String),
    #[error("'{0}' is negative; a measured duration is zero or more")]
    Negative(String),
    #[error(transparent)]
    Unit(#[from] latscope_core::UnitError),
}

/// The largest duration a sample may have: `i64::MAX` picoseconds (about 106 days), the
/// range of every duration in latscope.
pub(crate) const MAX_DURATION_NS: f64 = i64::MAX as f64 / 1000.0;

/// Parses a measured duration into nanoseconds: a number with a unit (`5.9us`, `1e-6 s`,
/// `69.1 cycles`), or a bare number in `default_unit` (which may be `cycles`). Cycle
/// counts need the CPU clock `cpu_hz`; a measured cycle count may be fractional (a mean).
/// Unlike configuration values, a measurement may carry more digits than a picosecond
/// (`0.30000000000000004us` from a float printer): it is then read as a float. Negative,
/// non-finite and out-of-range values are errors.
pub fn parse_sample_duration(
    text: &str,
    default_unit: Option<&str>,
    cpu_hz: Option<u64>,
) -> Result<f64, SampleDurationError> {
    use latscope_core::time::parse_duration;
    use latscope_core::UnitError;
    let t = text.trim();
    let bare = t.parse::<f64>().is_ok();
    let cycles_unit = |u: &str| matches!(u.trim(), "cycles" | "cycle" | "cyc");
    let (num, unit) = split_number(t);
    if cycles_unit(unit) || (bare && default_unit.is_some_and(cycles_unit)) {
        let Some(hz) = cpu_hz else {
            return Err(SampleDurationError::NeedsCpuHz(t.to_string()));
        };
        let c: f64 = num
            .trim()
            .parse()
            .map_err(|_| SampleDurationError::NotCycles(t.to_string()))?;
        if !c.is_finite() || c < 0.0 {
            return Err(SampleDurationError::BadCycles(t.to_string()));
        }
        let ns = c * 1e9 / hz as f64;
        if ns > MAX_DURATION_NS {
            return Err(UnitError::OutOfRange(t.to_string()).into());
        }
        return Ok(ns);
    }
    let with_unit = match parse_duration(t) {
        Err(UnitError::MissingUnit(_)) => match default_unit {
            Some(u) => format!("{t}{u}"),
            None => return Err(SampleDurationError::NoUnit(t.to_string())),
        },
        _ => t.to_string(),
    };
    let ns = match parse_duration(&with_unit) {
        Ok(p) => p.as_ns_f64(),
        // More digits than a picosecond, or a mantissa beyond the exact parser's range:
        // read the number as a float (the range check below still applies).
        Err(e @ UnitError::TooPrecise(_)) => float_duration_ns(&with_unit).ok_or(e)?,
        Err(UnitError::Malformed(_)) => {
            float_duration_ns(&with_unit).ok_or_else(|| UnitError::Malformed(t.into()))?
        }
        Err(UnitError::OutOfRange(_)) => return Err(UnitError::OutOfRange(t.into()).into()),
        Err(e) => return Err(e.into()),
    };
    if !ns.is_finite() || ns.abs() > MAX_DURATION_NS {
        return Err(UnitError::OutOfRange(t.to_string()).into());
    }
    if ns < 0.0 {
        return Err(SampleDurationError::Negative(t.to_string()));
    }
    Ok(ns)
}
