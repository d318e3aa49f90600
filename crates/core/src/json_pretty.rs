//! The pretty JSON of every `--json` result: the layout of `serde_json`'s
//! `PrettyFormatter` (two spaces a level, `": "` between key and value, empty arrays and
//! objects as `[]` and `{}`), written with one call per line break. `PrettyFormatter`
//! writes a line's indentation one level at a time, and a result of many short lines
//! (a 100-task analysis: 20,000 lines) spent more in those small writes than in the rest
//! of its serialisation.

use serde_json::ser::Formatter;
use std::io::{self, Write};

/// A comma, a line break and the indentation of [`DEEP`] levels; a break is a slice.
const LINE: &[u8] = b",\n                                                                ";

/// The deepest level [`LINE`] indents in one slice; deeper ones add the rest a level at
/// a time.
const DEEP: usize = (LINE.len() - 2) / 2;

/// [`serde_json::ser::PrettyFormatter`]'s output, byte for byte.
#[derive(Default)]
pub struct Pretty {
    level: usize,
    has_value: bool,
}

impl Pretty {
    /// A line break (after a comma unless `first`) and the current indentation.
    fn new_line<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        let from = usize::from(first);
        let deep = self.level.min(DEEP);
        w.write_all(&LINE[from..2 + 2 * deep])?;
        for _ in deep..self.level {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// An array or object begins: one level deeper, nothing in it yet.
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// It ends: on a line of its own unless it was empty (`[]`, `{}`).
    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.new_line(w, true)?;
        }
        w.write_all(bracket)
    }
}

impl Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.new_line(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.new_line(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Pretty, DEEP};
    use serde::Serialize;
    use serde_json::json;

    fn ours(v: &impl Serialize) -> String {
        let mut out = Vec::new();
        v.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out,
            Pretty::default(),
        ))
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The same bytes as `serde_json::to_string_pretty`: nested and empty arrays and
    /// objects, strings that need escapes, numbers of every kind, null, and nesting past
    /// the levels indented in one slice.
    #[test]
    fn same_bytes_as_serde_json_pretty() {
        let mut deep = json!({"bottom": [1, {}, []]});
        for k in 0..DEEP + 5 {
            deep = if k % 2 == 0 {
                json!({ format!("level{k}"): deep, "n": k })
            } else {
                json!([deep, k, []])
            };
        }
        let values = [
            json!({}),
            json!([]),
            json!(null),
            json!("a \"quoted\"\n\ttext \u{1} é"),
            json!({"a": [], "b": {}, "c": [[]], "d": [{}], "e": [1, 2.5, -3, 1e300, null, true]}),
            json!([{"name": "t1", "ns": 0.1, "inner": {"x": [1, [2, [3]]]}}, {"name": "t2"}]),
            deep,
        ];
        for v in &values {
            assert_eq!(ours(v), serde_json::to_string_pretty(v).unwrap(), "{v}");
        }
    }
}
