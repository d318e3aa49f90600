//! Bounds check of a `perf.data` file's layout before `linux-perf-data` reads it.
//!
//! The crate trusts the lengths a file declares: it allocates a feature section's
//! declared size, and an event description's declared string length, before reading
//! them. A corrupt or hostile header could then ask for gigabytes, or overflow an
//! offset sum. This module walks only the declared lengths (header sections, the
//! feature-section table, the `EVENT_DESC` section the importer relies on) and checks
//! each against the file's real size, so the crate only ever sees a file whose
//! declared lengths fit; errors name the byte offset of the field that is wrong.
//!
//! The layout is the one perf's `tools/perf/util/header.c` writes (`perf_file_header`:
//! magic, header size, attr size, three `perf_file_section`s, 256 feature bits; the
//! feature sections follow the data section, one `perf_file_section` per set bit).

use crate::error::{Error, Place, Result};
use std::io::{Read, Seek, SeekFrom};

/// Size of the `perf_file_header` this reader knows (older files are not PERFILE2).
pub const HEADER_SIZE: u64 = 104;

/// Feature bit of the event descriptions (names, attributes, ids).
const FEAT_EVENT_DESC: u32 = 12;

/// Largest `perf_event_attr` this reader accepts (the kernel's is ~136 bytes today).
const MAX_ATTR_SIZE: u64 = 4096;

/// `PERF_RECORD_HEADER_TRACING_DATA`: in pipe mode, the tracepoint formats follow this
/// record outside its declared size.
pub const RECORD_TRACING_DATA: u32 = 66;
/// `PERF_RECORD_AUXTRACE`: its payload (a `u64` size at the start of the body) follows
/// the record outside its declared size.
const RECORD_AUXTRACE: u32 = 71;

/// What the header says about the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub big_endian: bool,
    pub data_offset: u64,
    pub data_size: u64,
}

/// Pipe-mode data (`perf record -o -`): the 16-byte `perf_pipe_file_header` whose size
/// field says 16, instead of the full file header.
pub fn is_pipe(head: &[u8]) -> bool {
    if head.len() < 16 {
        return false;
    }
    let size: [u8; 8] = head[8..16].try_into().unwrap_or([0; 8]);
    match &head[..8] {
        b"PERFILE2" => u64::from_le_bytes(size) == 16,
        b"2ELIFREP" => u64::from_be_bytes(size) == 16,
        _ => false,
    }
}

struct Cur<'a> {
    b: &'a [u8],
    big: bool,
    /// File offset of `b[0]`, for messages.
    base: u64,
    pos: usize,
}

impl Cur<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.b.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        let a: [u8; 4] = self.take(4)?.try_into().ok()?;
        Some(if self.big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        })
    }
    fn u64(&mut self) -> Option<u64> {
        let a: [u8; 8] = self.take(8)?.try_into().ok()?;
        Some(if self.big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        })
    }
    fn at(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }
}

fn read_at<R: Read + Seek>(r: &mut R, name: &str, off: u64, len: usize) -> Result<Vec<u8>> {
    r.seek(SeekFrom::Start(off))
        .map_err(|e| Error::io(name, e))?;
    let mut b = vec![0u8; len];
    r.read_exact(&mut b).map_err(|e| Error::io(name, e))?;
    Ok(b)
}

/// A declared section `(offset, size)` read at `field` must lie inside the file.
fn section_fits(name: &str, what: &str, field: u64, off: u64, size: u64, len: u64) -> Result<()> {
    match off.checked_add(size) {
        Some(end) if end <= len => Ok(()),
        _ => Err(Error::format(
            name,
            Place::Byte(field),
            format!(
                "the {what} ({size} bytes at offset {off}) runs past the end of the file \
                 ({len} bytes): the file is truncated or corrupt"
            ),
        )),
    }
}

/// Checks every length the header, the feature table and `EVENT_DESC` declare against
/// the file size `len`. Leaves the reader's position anywhere.
pub fn check<R: Read + Seek>(r: &mut R, name: &str, len: u64) -> Result<Layout> {
    if len < HEADER_SIZE {
        return Err(Error::format(
            name,
            Place::Byte(len),
            format!("the file ends inside the {HEADER_SIZE}-byte perf.data header"),
        ));
    }
    let head = read_at(r, name, 0, HEADER_SIZE as usize)?;
    let big = match &head[..8] {
        b"PERFILE2" => false,
        b"2ELIFREP" => true,
        _ => {
            return Err(Error::format(
                name,
                Place::Byte(0),
                "not a perf.data file (no PERFILE2 magic)",
            ))
        }
    };
    let mut c = Cur {
        b: &head,
        big,
        base: 0,
        pos: 8,
    };
    let bad = |at: u64, msg: String| Error::format(name, Place::Byte(at), msg);
    let short = || bad(HEADER_SIZE, "the header is cut short".into());
    let header_size = c.u64().ok_or_else(short)?;
    if !(HEADER_SIZE..=len).contains(&header_size) {
        return Err(bad(
            8,
            format!("header size {header_size} is not between {HEADER_SIZE} and the file size"),
        ));
    }
    let attr_size = c.u64().ok_or_else(short)?;
    if attr_size == 0 || attr_size > MAX_ATTR_SIZE {
        return Err(bad(
            16,
            format!("attribute size {attr_size} is not plausible"),
        ));
    }
    let mut sections = [(0u64, 0u64); 3];
    for (i, what) in ["attribute section", "data section", "event-type section"]
        .iter()
        .enumerate()
    {
        let field = c.at();
        let off = c.u64().ok_or_else(short)?;
        let size = c.u64().ok_or_else(short)?;
        section_fits(name, what, field, off, size, len)?;
        sections[i] = (off, size);
    }
    let (data_offset, data_size) = sections[1];
    let mut features = [0u64; 4];
    for f in &mut features {
        *f = c.u64().ok_or_else(short)?;
    }
    let count = features.iter().map(|f| f.count_ones() as u64).sum::<u64>();
    // The feature table follows the data section: one (offset, size) per set bit.
    let table = data_offset.saturating_add(data_size);
    let table_len = count * 16;
    section_fits(name, "feature-section table", 40, table, table_len, len)?;
    let tb = read_at(r, name, table, table_len as usize)?;
    let mut t = Cur {
        b: &tb,
        big,
        base: table,
        pos: 0,
    };
    let mut event_desc = None;
    for bit in 0..256u32 {
        if features[(bit / 64) as usize] & (1u64 << (bit % 64)) == 0 {
            continue;
        }
        let field = t.at();
        let off = t.u64().ok_or_else(short)?;
        let size = t.u64().ok_or_else(short)?;
        section_fits(
            name,
            &format!("feature section {bit}"),
            field,
            off,
            size,
            len,
        )?;
        if bit == FEAT_EVENT_DESC {
            event_desc = Some((off, size));
        }
    }
    let Some((off, size)) = event_desc else {
        return Err(bad(
            40,
            "the file has no event descriptions (EVENT_DESC): not written by Linux perf".into(),
        ));
    };
    check_event_desc(r, name, big, off, size)?;
    Ok(Layout {
        big_endian: big,
        data_offset,
        data_size,
    })
}

/// `EVENT_DESC`: `u32 nr, u32 attr_size`, then per event the attribute, `u32 nr_ids`, a
/// `perf_header_string` (`u32 len` + bytes) and `nr_ids` u64 ids. Every declared count
/// and length must fit in the section.
fn check_event_desc<R: Read + Seek>(
    r: &mut R,
    name: &str,
    big: bool,
    off: u64,
    size: u64,
) -> Result<()> {
    let b = read_at(r, name, off, size as usize)?;
    let mut c = Cur {
        b: &b,
        big,
        base: off,
        pos: 0,
    };
    let bad = |at: u64, msg: &str| {
        Error::format(
            name,
            Place::Byte(at),
            format!("event description: {msg} (the section is {size} bytes at offset {off})"),
        )
    };
    let nr = c.u32().ok_or_else(|| bad(c.at(), "cut short"))?;
    let attr_size = c.u32().ok_or_else(|| bad(off + 4, "cut short"))? as usize;
    if nr == 0 {
        return Err(bad(off, "no events are described"));
    }
    if attr_size < 8 || attr_size as u64 > MAX_ATTR_SIZE {
        return Err(bad(off + 4, "implausible attribute size"));
    }
    for _ in 0..nr {
        let at = c.at();
        let attr = c
            .take(attr_size)
            .ok_or_else(|| bad(at, "an attribute runs past the section"))?;
        // perf_event_attr: u32 type, u32 size; its own size may not exceed the slot.
        let own: [u8; 4] = attr[4..8].try_into().unwrap_or([0; 4]);
        let own = if big {
            u32::from_be_bytes(own)
        } else {
            u32::from_le_bytes(own)
        };
        if own as usize > attr_size {
            return Err(bad(at + 4, "an attribute is larger than its slot"));
        }
        let at = c.at();
        let nr_ids = c.u32().ok_or_else(|| bad(at, "cut short"))? as usize;
        let at = c.at();
        let slen = c.u32().ok_or_else(|| bad(at, "cut short"))? as usize;
        c.take(slen)
            .ok_or_else(|| bad(at, "an event name runs past the section"))?;
        let at = c.at();
        nr_ids
            .checked_mul(8)
            .and_then(|n| c.take(n))
            .ok_or_else(|| bad(at, "an id list runs past the section"))?;
    }
    Ok(())
}

/// Walks the record headers of the data section (`offset`, `size`; for pipe-mode data,
/// from byte 16 to the end of the file) and checks that every record, and every AUXTRACE
/// payload that follows its record, ends inside it: the crate allocates an AUXTRACE
/// payload's declared size before reading it. Returns the offset of a pipe-mode
/// tracing-data record when it meets one (its payload cannot be framed from here).
pub fn check_records<R: Read + Seek>(
    r: &mut R,
    name: &str,
    big: bool,
    offset: u64,
    size: u64,
) -> Result<Option<u64>> {
    r.seek(SeekFrom::Start(offset))
        .map_err(|e| Error::io(name, e))?;
    let end = offset.saturating_add(size);
    let mut rd = std::io::BufReader::with_capacity(1 << 16, r);
    let mut pos = offset;
    let mut head = [0u8; 8];
    while pos < end {
        if end - pos < 8 {
            return Err(Error::format(
                name,
                Place::Byte(pos),
                "a record header is cut short at the end of the data section",
            ));
        }
        rd.read_exact(&mut head).map_err(|e| Error::io(name, e))?;
        let (ty, rsize) = if big {
            (
                u32::from_be_bytes([head[0], head[1], head[2], head[3]]),
                u16::from_be_bytes([head[6], head[7]]),
            )
        } else {
            (
                u32::from_le_bytes([head[0], head[1], head[2], head[3]]),
                u16::from_le_bytes([head[6], head[7]]),
            )
        };
        let mut next = pos + u64::from(rsize);
        if rsize < 8 || next > end {
            return Err(Error::format(
                name,
                Place::Byte(pos),
                format!(
                    "a record of {rsize} bytes runs past the end of the data section at byte \
                     {end}: the file is truncated or corrupt"
                ),
            ));
        }
        if ty == RECORD_TRACING_DATA {
            return Ok(Some(pos));
        }
        let mut read = 8u64;
        if ty == RECORD_AUXTRACE {
            if rsize < 16 {
                return Err(Error::format(
                    name,
                    Place::Byte(pos),
                    "an AUXTRACE record is cut short",
                ));
            }
            let mut a = [0u8; 8];
            rd.read_exact(&mut a).map_err(|e| Error::io(name, e))?;
            read = 16;
            let aux = if big {
                u64::from_be_bytes(a)
            } else {
                u64::from_le_bytes(a)
            };
            next = match next.checked_add(aux) {
                Some(n) if n <= end => n,
                _ => {
                    return Err(Error::format(
                        name,
                        Place::Byte(pos + 8),
                        format!("an AUXTRACE payload of {aux} bytes runs past the data section"),
                    ))
                }
            };
        }
        // Skip to the next record.
        let skip = next - pos - read;
        let skipped = std::io::copy(&mut (&mut rd).take(skip), &mut std::io::sink())
            .map_err(|e| Error::io(name, e))?;
        if skipped != skip {
            return Err(Error::format(
                name,
                Place::Byte(pos),
                "the file ends inside a record",
            ));
        }
        pos = next;
    }
    Ok(None)
}
