//! Reading back the fixed words results write (`"kind": "trace"`, `"unit": "ns"`, a
//! model's name): the in-memory types hold `&'static str`, so a word read from JSON is
//! matched against the words the writer can produce, and anything else is an error that
//! names the words expected.

use serde::de::{Deserializer, Error};
use serde::Deserialize;

/// A fixed word in a result (`&'static str`). Declare such fields with this alias: serde
/// then does not treat them as borrowed from the input, so the result type stays
/// `DeserializeOwned` (readable from a file or a `serde_json::Value`).
pub type Word = &'static str;

/// Reads a string that must be one of `known`, returning the static copy.
pub fn one_of<'de, D: Deserializer<'de>>(
    d: D,
    known: &'static [&'static str],
) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    known.iter().copied().find(|k| *k == s).ok_or_else(|| {
        D::Error::custom(format!(
            "\"{s}\" is not one of {}",
            known
                .iter()
                .map(|k| format!("\"{k}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Defines `fn $name(d) -> Result<&'static str, _>` accepting the given words, for
/// `#[serde(deserialize_with = "...")]` on a `&'static str` field.
#[macro_export]
macro_rules! words {
    ($vis:vis fn $name:ident = [$($w:expr),+ $(,)?]) => {
        $vis fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> ::core::result::Result<&'static str, D::Error> {
            $crate::words::one_of(d, &[$($w),+])
        }
    };
}

#[cfg(test)]
mod tests {
    crate::words!(fn unit = ["ns", "count"]);

    #[derive(serde::Deserialize)]
    struct T {
        #[serde(deserialize_with = "unit")]
        u: super::Word,
    }

    #[test]
    fn known_words_only() {
        let t: T = serde_json::from_value(serde_json::json!({"u": "count"})).unwrap();
        assert_eq!(t.u, "count");
        let e = serde_json::from_str::<T>(r#"{"u":"s"}"#).err().unwrap();
        assert!(
            e.to_string().contains(r#""s" is not one of "ns", "count""#),
            "{e}"
        );
    }
}
