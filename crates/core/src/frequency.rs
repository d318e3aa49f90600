//! A rate in hertz as the command line and the Python binding take it (`24MHz`,
//! `84_000_000`): one type with one parser, so `--samplerate`/`--cpu-hz` and the Python
//! keywords `samplerate`/`cpu_hz` accept and refuse the same text in the same words.

use crate::time::{parse_frequency_hz, UnitError};

/// A sample rate or clock in whole hertz, more than zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hz(pub u64);

impl std::str::FromStr for Hz {
    type Err = UnitError;
    /// A number with an optional unit (Hz, kHz, MHz, GHz; a bare number is hertz, `m` is
    /// MHz as sigrok writes it); zero is refused, as no capture or clock runs at 0 Hz.
    fn from_str(text: &str) -> Result<Hz, UnitError> {
        match parse_frequency_hz(text)? {
            0 => Err(UnitError::NotPositive),
            hz => Ok(Hz(hz)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rates_and_refuses_zero() {
        assert_eq!("24MHz".parse::<Hz>(), Ok(Hz(24_000_000)));
        assert_eq!("84_000_000".parse::<Hz>(), Ok(Hz(84_000_000)));
        assert_eq!("0 Hz".parse::<Hz>(), Err(UnitError::NotPositive));
        assert!(matches!(
            "3 parsecs".parse::<Hz>(),
            Err(UnitError::UnknownUnit { .. })
        ));
        assert!(matches!("-1MHz".parse::<Hz>(), Err(UnitError::Negative(_))));
    }
}
