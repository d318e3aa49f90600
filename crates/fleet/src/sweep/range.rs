//! The utilisation range of a sweep: `FROM..TO:STEP`, both ends included.

use super::SweepError;

/// Utilisations from `from` to `to` (inclusive) in steps of `step`.
#[derive(Debug, Clone, PartialEq)]
pub struct UtilRange {
    pub from: f64,
    pub to: f64,
    pub step: f64,
}

/// More points than this is a typo, not a sweep.
pub const MAX_POINTS: usize = 100_000;

impl UtilRange {
    /// Parses `0.5..1.0:0.05` (also `0.7` for one point); the error names the flag (`--util`) for callers outside clap.
    pub fn parse(text: &str) -> Result<UtilRange, SweepError> {
        text.parse().map_err(|e| match e {
            SweepError::Invalid(m) => SweepError::Invalid(format!("--util {text:?}: {m}")),
            e => e,
        })
    }

    fn count_unchecked(&self) -> usize {
        let n = ((self.to - self.from) / self.step + 1e-9).floor();
        if n.is_finite() && n < (MAX_POINTS as f64) * 2.0 {
            n as usize + 1
        } else {
            usize::MAX
        }
    }

    /// The utilisations, rounded to 9 decimals so `0.1 + 2 x 0.1` is `0.3`.
    pub fn points(&self) -> Vec<f64> {
        (0..self.count_unchecked())
            .map(|i| ((self.from + i as f64 * self.step) * 1e9).round() / 1e9)
            .collect()
    }
}

/// The value of `--util` (clap's `value_parser` and Python read it through this).
impl std::str::FromStr for UtilRange {
    type Err = SweepError;
    fn from_str(text: &str) -> Result<UtilRange, SweepError> {
        let bad = |why: &str| {
            SweepError::Invalid(format!(
                "{why} (expected FROM..TO:STEP, e.g. 0.5..1.0:0.05, or one utilisation)"
            ))
        };
        let num = |s: &str, what: &str| -> Result<f64, SweepError> {
            let v: f64 = s
                .trim()
                .parse()
                .map_err(|_| bad(&format!("the {what} {:?} is not a number", s.trim())))?;
            if !v.is_finite() {
                return Err(bad(&format!("the {what} must be finite")));
            }
            Ok(v)
        };
        let r = match text.split_once("..") {
            None => {
                let u = num(text, "utilisation")?;
                UtilRange {
                    from: u,
                    to: u,
                    step: 1.0,
                }
            }
            Some((from, rest)) => {
                let (to, step) = rest
                    .split_once(':')
                    .ok_or_else(|| bad("no :STEP after the range"))?;
                UtilRange {
                    from: num(from, "start")?,
                    to: num(to, "end")?,
                    step: num(step, "step")?,
                }
            }
        };
        if r.from <= 0.0 {
            return Err(bad("utilisations must be greater than 0"));
        }
        if r.to < r.from {
            return Err(bad("the end is below the start"));
        }
        if r.step <= 0.0 {
            return Err(bad("the step must be greater than 0"));
        }
        let n = r.count_unchecked();
        if n > MAX_POINTS {
            return Err(bad(&format!(
                "{n} points; at most {MAX_POINTS} (use a larger step)"
            )));
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_inclusive_and_rounded() {
        let r = UtilRange::parse("0.1..0.5:0.1").unwrap();
        assert_eq!(r.points(), vec![0.1, 0.2, 0.3, 0.4, 0.5]);
        assert_eq!(UtilRange::parse("0.7").unwrap().points(), vec![0.7]);
        assert_eq!(UtilRange::parse("0.5..0.95:0.1").unwrap().points().len(), 5);
    }

    #[test]
    fn bad_ranges_say_why() {
        for (t, why) in [
            ("0.5..0.1:0.1", "below the start"),
            ("0.1..0.5", "no :STEP"),
            ("0.1..0.5:0", "step must be"),
            ("x..1:0.1", "\"x\" is not a number"),
            ("0..1:0.1", "greater than 0"),
            ("0.1..1:1e-9", "at most"),
            ("0.1..inf:0.1", "finite"),
        ] {
            let e = UtilRange::parse(t).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("--util"), "{t}: {e}");
        }
    }
}
