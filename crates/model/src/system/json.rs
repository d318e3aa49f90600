//! Reads a JSON system description straight into the file structure ([`RawFile`]).
//!
//! The raw structure keeps TOML byte spans ([`toml::Spanned`]); a JSON value has no
//! span in the TOML sense, so this deserializer over a parsed [`serde_json::Value`]
//! answers a request for a spanned value with an empty span and the value itself. Errors
//! carry the path to the offending value (`task[2] "B"`, key `wcet`).

use super::raw::RawFile;
use serde::de::value::{BorrowedStrDeserializer, U64Deserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// The struct name and fields through which `toml::Spanned` asks a deserializer for a
/// value with its span (the protocol of the `serde_spanned` crate). The JSON round-trip
/// tests fail if it changes.
const SPANNED: &str = "$__serde_spanned_private_Spanned";
const SPANNED_START: &str = "$__serde_spanned_private_start";
const SPANNED_END: &str = "$__serde_spanned_private_end";
const SPANNED_VALUE: &str = "$__serde_spanned_private_value";

/// A JSON problem located as far as JSON allows.
#[derive(Debug)]
pub(super) struct JsonError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub table: Option<String>,
    pub key: Option<String>,
    pub message: String,
}

/// Parses `text` as JSON and reads it into the file structure.
pub(super) fn read(text: &str) -> Result<RawFile, JsonError> {
    let v: Value = serde_json::from_str(text).map_err(|e| JsonError {
        line: Some(e.line()),
        column: Some(e.column()),
        table: None,
        key: None,
        message: format!("not valid JSON for a system description: {e}"),
    })?;
    RawFile::deserialize(Json { v: &v }).map_err(|e| {
        let (table, key) = e.place();
        JsonError {
            line: None,
            column: None,
            table,
            key,
            message: e.message,
        }
    })
}

/// One step of the path to a value.
#[derive(Debug)]
enum Seg {
    Key(String),
    /// Index into an array of tables, with the entry's `name` when it has one.
    Index(usize, Option<String>),
}

/// A deserialization error with the path to the value it concerns (outermost first).
#[derive(Debug)]
pub(super) struct DeError {
    path: Vec<Seg>,
    message: String,
}

impl DeError {
    /// The table (`kernel.costs`, `task[0] "A"`) and key, named as the TOML reader
    /// names them. An error raised while reading a value ends its path with that key;
    /// an error about a table itself (unknown or missing field) ends with the table.
    fn place(&self) -> (Option<String>, Option<String>) {
        let (key, table_path) = match self.path.last() {
            Some(Seg::Key(k)) => (Some(k.clone()), &self.path[..self.path.len() - 1]),
            _ => (None, &self.path[..]),
        };
        let mut table = String::new();
        for s in table_path {
            match s {
                Seg::Key(k) => {
                    if !table.is_empty() {
                        table.push('.');
                    }
                    table.push_str(k);
                }
                Seg::Index(i, Some(n)) => table.push_str(&format!("[{i}] \"{n}\"")),
                Seg::Index(i, None) => table.push_str(&format!("[{i}]")),
            }
        }
        ((!table.is_empty()).then_some(table), key)
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            path: Vec::new(),
            message: msg.to_string(),
        }
    }
}

fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Unexpected::Signed(i),
            (_, Some(u)) => Unexpected::Unsigned(u),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// A deserializer over one JSON value.
#[derive(Clone, Copy)]
struct Json<'de> {
    v: &'de Value,
}

impl<'de> Deserializer<'de> for Json<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => visitor.visit_seq(Seq { items: a, next: 0 }),
            Value::Object(m) => visitor.visit_map(Map {
                it: m.iter(),
                pending: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.v {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if name == SPANNED {
            visitor.visit_map(SpannedAccess { v: self.v, step: 0 })
        } else {
            self.deserialize_any(visitor)
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.v {
            Value::String(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map identifier
        ignored_any
    }
}

struct Seq<'de> {
    items: &'de [Value],
    next: usize,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(v) = self.items.get(self.next) else {
            return Ok(None);
        };
        let i = self.next;
        self.next += 1;
        seed.deserialize(Json { v }).map(Some).map_err(|mut e| {
            let name = v.get("name").and_then(Value::as_str).map(str::to_string);
            e.path.insert(0, Seg::Index(i, name));
            e
        })
    }
}

struct Map<'de> {
    it: serde_json::map::Iter<'de>,
    pending: Option<(&'de String, &'de Value)>,
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        match self.it.next() {
            Some((k, v)) => {
                self.pending = Some((k, v));
                seed.deserialize(BorrowedStrDeserializer::new(k)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, DeError> {
        let (k, v) = self
            .pending
            .take()
            .ok_or_else(|| <DeError as de::Error>::custom("a value was read before its key"))?;
        seed.deserialize(Json { v }).map_err(|mut e| {
            e.path.insert(0, Seg::Key(k.clone()));
            e
        })
    }
}

/// Presents a value as `{start: 0, end: 0, value: v}`, the form `toml::Spanned` reads.
struct SpannedAccess<'de> {
    v: &'de Value,
    step: u8,
}

impl<'de> MapAccess<'de> for SpannedAccess<'de> {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let key = match self.step {
            0 => SPANNED_START,
            1 => SPANNED_END,
            2 => SPANNED_VALUE,
            _ => return Ok(None),
        };
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, DeError> {
        self.step += 1;
        match self.step {
            1 | 2 => seed.deserialize(U64Deserializer::<DeError>::new(0)),
            _ => seed.deserialize(Json { v: self.v }),
        }
    }
}
