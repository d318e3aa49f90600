//! Tracepoint formats from a `perf.data` file's `TRACING_DATA` section, and reading
//! fields out of a sample's raw tracepoint payload with them.
//!
//! A tracepoint's payload layout differs between kernel versions (`sched_switch`'s
//! `prev_state` went from `long` to `unsigned int` and back, `sched_waking` gained
//! `target_cpu`), so no offset is assumed: perf stores each recorded event's `format`
//! text (as in `/sys/kernel/tracing/events/SYSTEM/EVENT/format`) in the file, and the
//! fields are looked up there by name. `linux-perf-data` hands the section over as raw
//! bytes; this module walks it as perf's `util/trace-event-read.c` reads it:
//!
//! ```text
//! "\x17\x08\x44tracing"  version "0.6\0"  u8 big_endian  u8 long_size  u32 page_size
//! "header_page\0" u64 size + text     "header_event\0" u64 size + text
//! u32 n; n × (u64 size + ftrace format text)
//! u32 systems; per system: name "\0", u32 n; n × (u64 size + event format text)
//! (kallsyms, printk formats and saved cmdlines follow; not needed here)
//! ```

/// One field of a tracepoint's payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
    /// `__data_loc`: the field holds `u32` (length << 16 | offset) of a variable part.
    pub data_loc: bool,
}

/// One tracepoint's format: system, name, the id perf's `perf_event_attr.config`
/// names it by, and its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventFormat {
    pub system: String,
    pub name: String,
    pub id: u64,
    pub fields: Vec<Field>,
}

impl EventFormat {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Most event formats one section may hold (a kernel has a few thousand tracepoints).
const MAX_FORMATS: u32 = 100_000;

/// What is wrong in a `TRACING_DATA` section, and where (offset inside the section).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TracingDataError {
    #[error("tracing data: {declared} bytes declared at section offset {at} run past its end ({len} bytes)")]
    PastEnd {
        declared: usize,
        at: usize,
        len: usize,
    },
    #[error("tracing data: unterminated string at section offset {at}")]
    Unterminated { at: usize },
    #[error("tracing data: size {0} too large")]
    TooLarge(u64),
    #[error("tracing data: no \\x17\\x08\\x44tracing magic")]
    NoMagic,
    #[error("tracing data: expected {expected:?} at section offset {at}")]
    Expected { expected: String, at: usize },
}

type Result<T> = std::result::Result<T, TracingDataError>;

struct Walk<'a> {
    b: &'a [u8],
    pos: usize,
    big: bool,
}

impl<'a> Walk<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or(TracingDataError::PastEnd {
                declared: n,
                at: self.pos,
                len: self.b.len(),
            })?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    /// The next `N` bytes as an array (`take` gives exactly `N` or an error).
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u32(&mut self) -> Result<u32> {
        let a = self.array::<4>()?;
        Ok(if self.big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        })
    }
    fn u64(&mut self) -> Result<u64> {
        let a = self.array::<8>()?;
        Ok(if self.big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        })
    }
    fn cstr(&mut self) -> Result<&'a [u8]> {
        let rest = &self.b[self.pos.min(self.b.len())..];
        let n = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or(TracingDataError::Unterminated { at: self.pos })?;
        let s = self.take(n)?;
        self.pos += 1;
        Ok(s)
    }
    fn sized(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()?;
        let n = usize::try_from(n).map_err(|_| TracingDataError::TooLarge(n))?;
        self.take(n)
    }
}

/// Every event format in a `TRACING_DATA` section; errors say what is wrong and where
/// (offset inside the section).
pub fn parse_tracing_data(b: &[u8]) -> Result<Vec<EventFormat>> {
    let mut w = Walk {
        b,
        pos: 0,
        big: false,
    };
    if w.take(10)? != b"\x17\x08\x44tracing" {
        return Err(TracingDataError::NoMagic);
    }
    w.cstr()?; // version
    w.big = w.take(1)?[0] != 0;
    w.take(1)?; // long size
    w.u32()?; // page size
    for expected in [&b"header_page"[..], b"header_event"] {
        let at = w.pos;
        if w.cstr()? != expected {
            return Err(TracingDataError::Expected {
                expected: String::from_utf8_lossy(expected).into_owned(),
                at,
            });
        }
        w.sized()?;
    }
    let n = w.u32()?;
    for _ in 0..n.min(MAX_FORMATS) {
        w.sized()?; // ftrace's own events
    }
    let systems = w.u32()?;
    let mut out = Vec::new();
    for _ in 0..systems.min(MAX_FORMATS) {
        let system = String::from_utf8_lossy(w.cstr()?).into_owned();
        let n = w.u32()?;
        for _ in 0..n.min(MAX_FORMATS) {
            let text = w.sized()?;
            if let Some(mut f) = parse_format(&String::from_utf8_lossy(text)) {
                f.system = system.clone();
                out.push(f);
            }
        }
    }
    Ok(out)
}

/// Parses one `format` text (`name:`, `ID:`, `format:` and its `field:` lines). None when
/// the name or id is missing.
pub fn parse_format(text: &str) -> Option<EventFormat> {
    let mut name = None;
    let mut id = None;
    let mut fields = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(v) = l.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("ID:") {
            id = v.trim().parse::<u64>().ok();
        } else if l.starts_with("field:") {
            if let Some(f) = parse_field(l) {
                fields.push(f);
            }
        }
    }
    Some(EventFormat {
        system: String::new(),
        name: name?,
        id: id?,
        fields,
    })
}

/// `field:TYPE NAME[N];<TAB>offset:O;<TAB>size:S;<TAB>signed:0|1;`
fn parse_field(l: &str) -> Option<Field> {
    let mut decl = None;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for part in l.split(';') {
        let part = part.trim();
        if let Some(v) = part.strip_prefix("field:") {
            decl = Some(v.trim());
        } else if let Some(v) = part.strip_prefix("offset:") {
            offset = v.trim().parse::<usize>().ok();
        } else if let Some(v) = part.strip_prefix("size:") {
            size = v.trim().parse::<usize>().ok();
        } else if let Some(v) = part.strip_prefix("signed:") {
            signed = v.trim() == "1";
        }
    }
    let decl = decl?;
    let last = decl.split_whitespace().last()?;
    let name = last.split('[').next()?.to_string();
    Some(Field {
        name,
        offset: offset?,
        size: size?,
        signed,
        data_loc: decl.starts_with("__data_loc"),
    })
}

impl Field {
    fn bytes<'a>(&self, raw: &'a [u8]) -> Option<&'a [u8]> {
        raw.get(self.offset..self.offset.checked_add(self.size)?)
    }

    /// The field as an integer (1, 2, 4 or 8 bytes, sign-extended when signed).
    pub fn int(&self, raw: &[u8], big: bool) -> Option<i64> {
        let b = self.bytes(raw)?;
        let mut v: u64 = 0;
        if big {
            for &x in b {
                v = (v << 8) | u64::from(x);
            }
        } else {
            for &x in b.iter().rev() {
                v = (v << 8) | u64::from(x);
            }
        }
        Some(match (self.size, self.signed) {
            (1, true) => i64::from(v as u8 as i8),
            (2, true) => i64::from(v as u16 as i16),
            (4, true) => i64::from(v as u32 as i32),
            (1 | 2 | 4 | 8, _) => v as i64,
            _ => return None,
        })
    }

    /// The field's text bytes: a fixed `char[N]` up to its first NUL, or a `__data_loc`
    /// string.
    pub fn text_bytes<'a>(&self, raw: &'a [u8], big: bool) -> Option<&'a [u8]> {
        let b = if self.data_loc {
            let loc = self.int(raw, big)? as u64;
            let (off, len) = ((loc & 0xffff) as usize, ((loc >> 16) & 0xffff) as usize);
            raw.get(off..off.checked_add(len)?)?
        } else {
            self.bytes(raw)?
        };
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Some(&b[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracing_data_errors_say_what_and_where() {
        assert_eq!(
            parse_tracing_data(b"\x17\x08").unwrap_err(),
            TracingDataError::PastEnd {
                declared: 10,
                at: 0,
                len: 2
            }
        );
        assert_eq!(
            parse_tracing_data(b"\x17\x08\x44tracing")
                .unwrap_err()
                .to_string(),
            "tracing data: unterminated string at section offset 10"
        );
        assert_eq!(
            parse_tracing_data(b"\x17\x08\x45tracing0\0")
                .unwrap_err()
                .to_string(),
            "tracing data: no \\x17\\x08\\x44tracing magic"
        );
        let mut b = b"\x17\x08\x44tracing0\0\0\x08\0\x10\0\0header_pagX\0".to_vec();
        b.extend_from_slice(&[0; 8]);
        assert_eq!(
            parse_tracing_data(&b).unwrap_err().to_string(),
            "tracing data: expected \"header_page\" at section offset 18"
        );
    }

    const SWITCH: &str = "name: sched_switch\nID: 316\nformat:\n\
        \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
        \tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
        \tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\
        \tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n\
        \nprint fmt: \"prev_comm=%s\", REC->prev_comm\n";

    #[test]
    fn fields_by_name() {
        let f = parse_format(SWITCH).unwrap();
        assert_eq!((f.name.as_str(), f.id), ("sched_switch", 316));
        let pid = f.field("prev_pid").unwrap();
        assert_eq!((pid.offset, pid.size, pid.signed), (24, 4, true));
        let comm = f.field("prev_comm").unwrap();
        assert_eq!((comm.offset, comm.size, comm.data_loc), (8, 16, false));
        assert!(f.field("name").unwrap().data_loc);
        let mut raw = vec![0u8; 40];
        raw[8..11].copy_from_slice(b"abc");
        raw[24..28].copy_from_slice(&(-7i32).to_le_bytes());
        raw[28..32].copy_from_slice(&((3u32 << 16) | 36).to_le_bytes());
        raw[36..39].copy_from_slice(b"xyz");
        assert_eq!(pid.int(&raw, false), Some(-7));
        assert_eq!(comm.text_bytes(&raw, false), Some(&b"abc"[..]));
        assert_eq!(
            f.field("name").unwrap().text_bytes(&raw, false),
            Some(&b"xyz"[..])
        );
        // A field past the payload reads as nothing, never a panic.
        assert_eq!(pid.int(&raw[..20], false), None);
    }
}
