//! The reading context: which file, its text, and how to turn a span, table and key into
//! a [`Diagnostic`]; typed readers for durations and frequencies.

use super::error::{Diagnostic, SystemError};
use super::raw::{RawDur, RawFreq, SDur};
use latscope_core::time::{parse_duration_cycles, parse_frequency_hz, Picos, UnitError};
use std::collections::HashMap;
use std::ops::Range;
use toml::Spanned;

pub(super) struct Ctx<'a> {
    pub file: &'a str,
    pub text: &'a str,
    /// Whether spans are byte offsets into `text` (false for JSON, whose values carry
    /// empty spans).
    pub lines: bool,
}

impl Ctx<'_> {
    pub(super) fn err(
        &self,
        span: Option<Range<usize>>,
        table: &str,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> SystemError {
        let (line, column) = match (&span, self.lines) {
            (Some(s), true) => {
                let (l, c) = line_col(self.text, s.start);
                (Some(l), Some(c))
            }
            _ => (None, None),
        };
        SystemError::Invalid(Box::new(Diagnostic {
            file: self.file.to_string(),
            line,
            column,
            table: if table.is_empty() {
                None
            } else {
                Some(table.to_string())
            },
            key: key.map(str::to_string),
            message: message.into(),
        }))
    }

    /// A duration value; `min` is the smallest allowed value (`Some(0)`: non-negative,
    /// `Some(1)`: positive).
    pub(super) fn dur(
        &self,
        v: &SDur,
        table: &str,
        key: &str,
        cpu_hz: Option<u64>,
        positive: bool,
    ) -> Result<Picos, SystemError> {
        let span = Some(v.span());
        let p = match v.get_ref() {
            RawDur::Text(s) => parse_duration_cycles(s, cpu_hz).map_err(|e| {
                let hint = match e {
                    UnitError::MissingUnit(_) | UnitError::UnknownUnit { .. } => "",
                    _ => " (units: ps, ns, us, ms, s, cycles)",
                };
                self.err(span.clone(), table, Some(key), format!("{e}{hint}"))
            })?,
            RawDur::Int(n) => {
                return Err(self.err(
                    span,
                    table,
                    Some(key),
                    format!(
                        "{n} has no unit; write a string such as \"{n}us\", \"{n}ms\" or \"{n} cycles\""
                    ),
                ))
            }
            RawDur::Float(x) => {
                return Err(self.err(
                    span,
                    table,
                    Some(key),
                    format!("{x} has no unit; write a string such as \"{x}us\" or \"{x}ms\""),
                ))
            }
        };
        if p.0 < 0 {
            return Err(self.err(
                span,
                table,
                Some(key),
                "a duration here must not be negative",
            ));
        }
        if positive && p.0 == 0 {
            return Err(self.err(span, table, Some(key), "must be greater than zero"));
        }
        Ok(p)
    }

    pub(super) fn opt_dur(
        &self,
        v: &Option<SDur>,
        table: &str,
        key: &str,
        cpu_hz: Option<u64>,
    ) -> Result<Picos, SystemError> {
        match v {
            Some(v) => self.dur(v, table, key, cpu_hz, false),
            None => Ok(Picos::ZERO),
        }
    }

    pub(super) fn freq(
        &self,
        v: &Spanned<RawFreq>,
        table: &str,
        key: &str,
    ) -> Result<u64, SystemError> {
        let span = Some(v.span());
        let hz = match v.get_ref() {
            RawFreq::Int(n) if *n > 0 => *n as u64,
            RawFreq::Int(n) => {
                return Err(self.err(
                    span,
                    table,
                    Some(key),
                    format!("{n} Hz: must be greater than zero"),
                ))
            }
            RawFreq::Text(s) => parse_frequency_hz(s)
                .map_err(|e| self.err(span.clone(), table, Some(key), e.to_string()))?,
        };
        if hz == 0 {
            return Err(self.err(span, table, Some(key), "must be greater than zero"));
        }
        Ok(hz)
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, col)
}

/// The table a byte offset lies in, from the headers written before it, e.g.
/// `task[2] "B"` or `kernel.costs`.
pub(super) fn table_at(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    // Include the whole line the offset is on: a span starting at a `[[task]]` header
    // belongs to that new table.
    let end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
    let mut current = String::new();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut index: Option<usize> = None;
    for line in text[..end].lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("[[") {
            if let Some(end) = rest.find("]]") {
                let name = rest[..end].trim().to_string();
                let c = counts.entry(name.clone()).or_insert(0);
                index = Some(*c);
                *c += 1;
                current = name;
            }
        } else if let Some(rest) = t.strip_prefix('[') {
            if let Some(end) = rest.find(']') {
                current = rest[..end].trim().to_string();
                index = None;
            }
        }
    }
    match index {
        Some(i) => {
            let name = entry_name(text, &current, i);
            match name {
                Some(n) => format!("{current}[{i}] \"{n}\""),
                None => format!("{current}[{i}]"),
            }
        }
        None => current,
    }
}

/// The `name` key of the i-th entry of an array of tables, read leniently.
fn entry_name(text: &str, array: &str, i: usize) -> Option<String> {
    let v: toml::Table = toml::from_str(text).ok()?;
    let mut cur: &toml::Value = v.get(array.split('.').next()?)?;
    for part in array.split('.').skip(1) {
        cur = cur.get(part)?;
    }
    cur.as_array()?
        .get(i)?
        .get("name")?
        .as_str()
        .map(str::to_string)
}

pub(super) fn task_label(i: usize, name: &str) -> String {
    format!("task[{i}] \"{name}\"")
}
