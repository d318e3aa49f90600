//! How results write and read their numbers: a statistic that has no value (an empty
//! set) is NaN in memory and `null` in JSON, and reads back as NaN; a statistic that is a
//! whole number of nanoseconds is written without a fraction (`1500`, not `1500.0`), so
//! measure's integer statistics and trace's fractional ones share one summary type and
//! keep the JSON they always had.

use serde::{Deserialize, Deserializer, Serializer};

/// Largest magnitude written as an integer (2^53: every whole f64 up to it is exact).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Writes `x`: `null` when not finite, an integer when whole, else a float.
pub fn write<S: Serializer>(x: f64, s: S) -> Result<S::Ok, S::Error> {
    if !x.is_finite() {
        s.serialize_none()
    } else if x.fract() == 0.0 && x.abs() < EXACT {
        s.serialize_i64(x as i64)
    } else {
        s.serialize_f64(x)
    }
}

/// `serialize_with` for an `f64` that may be NaN (written `null`).
pub fn nan_as_null<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(*x)
    } else {
        s.serialize_none()
    }
}

/// `deserialize_with` for an `f64` written by [`nan_as_null`] or [`write`]: `null` is NaN.
pub fn null_as_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// `serialize_with` for an `f64` written by [`write`].
pub fn whole<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    write(*x, s)
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct T {
        #[serde(
            serialize_with = "super::whole",
            deserialize_with = "super::null_as_nan"
        )]
        x: f64,
    }

    #[test]
    fn whole_numbers_nan_and_fractions() {
        let j = |x: f64| serde_json::to_string(&T { x }).unwrap();
        assert_eq!(j(1500.0), r#"{"x":1500}"#);
        assert_eq!(j(-3.0), r#"{"x":-3}"#);
        assert_eq!(j(2.5), r#"{"x":2.5}"#);
        assert_eq!(j(f64::NAN), r#"{"x":null}"#);
        assert_eq!(j(1e300), r#"{"x":1e+300}"#);
        let t: T = serde_json::from_str(r#"{"x":null}"#).unwrap();
        assert!(t.x.is_nan());
        let t: T = serde_json::from_str(r#"{"x":7}"#).unwrap();
        assert_eq!(t.x, 7.0);
    }
}
