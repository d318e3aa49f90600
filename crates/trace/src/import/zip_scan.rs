//! The zip structure read by hand where the `zip` crate hides it or cannot see it yet.
//!
//! * [`duplicate_names`]: the crate keys entries by name, so of two central-directory
//!   entries with one name it silently keeps the last: which data a name means then
//!   depends on the reader. The directory is walked here to refuse such an archive.
//! * [`StreamCheck`]: a session read from a stream is spooled to a temporary file before
//!   the crate can look at it (its directory is at the end). The bytes are checked as
//!   they pass, record by record (local headers, entry data of the declared length, the
//!   directory, its end record), so a stream that stops being a zip is refused where it
//!   stops, after copying what a file of that shape would have, not after gigabytes.

use super::limits::MAX_META;
use crate::error::{Error, Place, Result};
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const LOCATOR64: u32 = 0x0706_4b50;

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// Refuses an archive whose central directory names one entry twice (the error names the
/// entry). Archives this walk cannot place (zip64 directories, data before the archive)
/// are left to the `zip` crate, which reads or refuses them itself. Leaves `r` anywhere.
pub(crate) fn duplicate_names<R: Read + Seek>(r: &mut R, file: &str) -> Result<()> {
    let io = |e| Error::io(file, e);
    let len = r.seek(SeekFrom::End(0)).map_err(io)?;
    // the end record (22 bytes) and a comment of at most 65,535 bytes
    let tail_len = len.min(22 + 0xFFFF);
    r.seek(SeekFrom::Start(len - tail_len)).map_err(io)?;
    let mut tail = vec![0u8; tail_len as usize];
    r.read_exact(&mut tail).map_err(io)?;
    let Some(e) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i) == END)
    else {
        return Ok(()); // not a zip: the crate says so
    };
    let (count, size, offset) = (
        u16_at(&tail, e + 10),
        u32_at(&tail, e + 12),
        u32_at(&tail, e + 16),
    );
    let end_at = len - tail_len + e as u64;
    if count == 0xFFFF || size == u32::MAX || offset == u32::MAX {
        return Ok(()); // zip64
    }
    if u64::from(offset) + u64::from(size) != end_at {
        return Ok(()); // data before the archive, or a damaged directory
    }
    r.seek(SeekFrom::Start(u64::from(offset))).map_err(io)?;
    let mut dir = std::io::BufReader::new(r.take(u64::from(size)));
    let mut names = HashSet::with_capacity(usize::from(count));
    let mut fixed = [0u8; 46];
    for _ in 0..count {
        if dir.read_exact(&mut fixed).is_err() || u32_at(&fixed, 0) != CENTRAL {
            return Ok(()); // damaged: the crate refuses it
        }
        let (n, m, k) = (
            usize::from(u16_at(&fixed, 28)),
            u16_at(&fixed, 30),
            u16_at(&fixed, 32),
        );
        let mut name = vec![0u8; n];
        if dir.read_exact(&mut name).is_err() {
            return Ok(());
        }
        let skip = u64::from(m) + u64::from(k);
        if std::io::copy(&mut (&mut dir).take(skip), &mut std::io::sink()).map_err(io)? != skip {
            return Ok(());
        }
        if !names.insert(name.clone()) {
            return Err(Error::format(
                file,
                Place::Entry(String::from_utf8_lossy(&name).into_owned(), None),
                "present twice in the archive's directory: refused (which data the name \
                 means would depend on the reader; a damaged or hostile archive)",
            ));
        }
    }
    Ok(())
}

#[derive(Clone, Copy, Debug)]
enum State {
    /// Reading one record, which began at this stream offset.
    Record(u64),
    /// Bytes of entry data still to pass.
    Data(u64),
    /// An entry whose sizes follow its data (a data descriptor): the rest passes unchecked
    /// (and is still bounded by the caller's spool limit).
    Unchecked,
    /// After the end record and its comment: nothing may follow.
    Done,
}

/// Why a stream stopped being a zip session, at a record that began at a known offset.
#[derive(Clone, Debug, thiserror::Error)]
enum ZipProblem {
    #[error(
        "not a zip record (signature {:02x} {:02x} {:02x} {:02x}): the stream \
         stops being a zip archive here",
        .0[0], .0[1], .0[2], .0[3]
    )]
    NotARecord([u8; 4]),
    #[error("zip64 end record of {0} bytes: implausibly large")]
    HugeEnd64(u64),
    #[error("a zip entry without a name")]
    NoName,
    #[error(
        "entry '{name}': compression method {method} (a session stores or \
         deflates its entries)"
    )]
    Method { name: String, method: u16 },
    #[error("entry '{0}': zip64 sizes announced but no zip64 extra field")]
    NoZip64Sizes(String),
    #[error("entry '{name}': implausibly large ({size} bytes, at most 1 MiB)")]
    HugeMeta { name: String, size: u64 },
    #[error("data after the end of the zip archive (its end-of-directory record)")]
    AfterEnd,
}

/// A reader that passes a zip stream through unchanged while checking its records; see
/// the module documentation. A problem is an I/O error for the copy, and
/// [`StreamCheck::problem`] says where it is and what.
pub(crate) struct StreamCheck<R> {
    inner: R,
    pos: u64,
    state: State,
    rec: Vec<u8>,
    problem: Option<(u64, ZipProblem)>,
}

impl<R: Read> StreamCheck<R> {
    pub(crate) fn new(inner: R) -> Self {
        StreamCheck {
            inner,
            pos: 0,
            state: State::Record(0),
            rec: Vec::new(),
            problem: None,
        }
    }

    /// The problem that stopped the stream: a format error at its byte offset.
    pub(crate) fn problem(&self, file: &str) -> Option<Error> {
        self.problem
            .as_ref()
            .map(|(at, p)| Error::format(file, Place::Byte(*at), p.to_string()))
    }

    /// Bytes of the current record needed so far: its signature, then its fixed part, then
    /// all of it. `Err` for a signature that begins no record.
    fn wanted(&self) -> std::result::Result<usize, ZipProblem> {
        let r = &self.rec;
        if r.len() < 4 {
            return Ok(4);
        }
        let sig = u32_at(r, 0);
        let fixed = match sig {
            LOCAL => 30,
            CENTRAL => 46,
            END => 22,
            END64 => 12,
            LOCATOR64 => 20,
            _ => return Err(ZipProblem::NotARecord([r[0], r[1], r[2], r[3]])),
        };
        if r.len() < fixed {
            return Ok(fixed);
        }
        Ok(match sig {
            LOCAL => 30 + usize::from(u16_at(r, 26)) + usize::from(u16_at(r, 28)),
            CENTRAL => {
                46 + usize::from(u16_at(r, 28))
                    + usize::from(u16_at(r, 30))
                    + usize::from(u16_at(r, 32))
            }
            END => 22 + usize::from(u16_at(r, 20)),
            END64 => {
                let rest = u64_at(r, 4);
                if rest > 1 << 20 {
                    return Err(ZipProblem::HugeEnd64(rest));
                }
                12 + rest as usize
            }
            _ => 20,
        })
    }

    /// The state after a whole record.
    fn after(&self) -> std::result::Result<State, ZipProblem> {
        let r = &self.rec;
        match u32_at(r, 0) {
            LOCAL => {
                let (flags, method) = (u16_at(r, 6), u16_at(r, 8));
                let (n, m) = (usize::from(u16_at(r, 26)), usize::from(u16_at(r, 28)));
                let name = String::from_utf8_lossy(&r[30..30 + n]).into_owned();
                if n == 0 {
                    return Err(ZipProblem::NoName);
                }
                if method != 0 && method != 8 {
                    return Err(ZipProblem::Method { name, method });
                }
                if flags & 8 != 0 {
                    return Ok(State::Unchecked);
                }
                let (mut csize, mut usize_) = (u64::from(u32_at(r, 18)), u64::from(u32_at(r, 22)));
                if csize == u64::from(u32::MAX) || usize_ == u64::from(u32::MAX) {
                    // zip64: the sizes are in extra field 0x0001, each only if its 32-bit
                    // field is all ones (uncompressed first)
                    let extra = &r[30 + n..30 + n + m];
                    let mut i = 0;
                    let mut found = false;
                    while i + 4 <= extra.len() {
                        let (id, len) = (u16_at(extra, i), usize::from(u16_at(extra, i + 2)));
                        let body = &extra[(i + 4).min(extra.len())..(i + 4 + len).min(extra.len())];
                        if id == 1 {
                            let mut k = 0;
                            if usize_ == u64::from(u32::MAX) && k + 8 <= body.len() {
                                usize_ = u64_at(body, k);
                                k += 8;
                            }
                            if csize == u64::from(u32::MAX) && k + 8 <= body.len() {
                                csize = u64_at(body, k);
                            }
                            found = true;
                        }
                        i += 4 + len;
                    }
                    if !found {
                        return Err(ZipProblem::NoZip64Sizes(name));
                    }
                }
                if (name == "version" || name == "metadata") && usize_ > MAX_META {
                    return Err(ZipProblem::HugeMeta { name, size: usize_ });
                }
                Ok(if csize == 0 {
                    State::Record(self.pos)
                } else {
                    State::Data(csize)
                })
            }
            END => Ok(State::Done),
            _ => Ok(State::Record(self.pos)),
        }
    }

    fn scan(&mut self, mut s: &[u8]) -> std::result::Result<(), (u64, ZipProblem)> {
        while !s.is_empty() {
            match self.state {
                State::Unchecked => {
                    self.pos += s.len() as u64;
                    return Ok(());
                }
                State::Done => return Err((self.pos, ZipProblem::AfterEnd)),
                State::Data(left) => {
                    let t = left.min(s.len() as u64);
                    s = &s[t as usize..];
                    self.pos += t;
                    self.state = if t == left {
                        State::Record(self.pos)
                    } else {
                        State::Data(left - t)
                    };
                }
                State::Record(start) => {
                    let want = self.wanted().map_err(|m| (start, m))?;
                    let t = (want - self.rec.len()).min(s.len());
                    self.rec.extend_from_slice(&s[..t]);
                    s = &s[t..];
                    self.pos += t as u64;
                    // whole once the length it implies is reached and implies no more
                    if self.rec.len() == want && self.wanted().map_err(|m| (start, m))? == want {
                        self.state = self.after().map_err(|m| (start, m))?;
                        self.rec.clear();
                    }
                }
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for StreamCheck<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if let Some((_, m)) = &self.problem {
            return Err(std::io::Error::other(m.to_string()));
        }
        let n = self.inner.read(out)?;
        if let Err((at, m)) = self.scan(&out[..n]) {
            self.problem = Some((at, m.clone()));
            return Err(std::io::Error::other(m));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(entries: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write;
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (n, d) in entries {
            z.start_file(*n, o).unwrap();
            z.write_all(d).unwrap();
        }
        z.finish().unwrap();
        buf.into_inner()
    }

    fn check(bytes: &[u8], piece: usize) -> std::result::Result<(), (u64, String)> {
        let mut c = StreamCheck::new(bytes);
        let mut out = Vec::new();
        let mut buf = vec![0u8; piece];
        loop {
            match c.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(k) => out.extend_from_slice(&buf[..k]),
                Err(_) => {
                    return Err(c
                        .problem
                        .clone()
                        .map(|(at, p)| (at, p.to_string()))
                        .unwrap())
                }
            }
        }
    }

    #[test]
    fn a_whole_archive_passes_in_any_pieces_and_garbage_after_it_is_named() {
        let z = session(&[("version", b"2"), ("logic-1", &[1, 2, 3, 4, 5, 6, 7])]);
        for piece in [1, 3, 7, 64, 1 << 16] {
            check(&z, piece).unwrap();
        }
        let mut bad = z.clone();
        bad.extend_from_slice(&[0; 100]);
        assert_eq!(check(&bad, 5).unwrap_err().0, z.len() as u64);
        // the directory replaced by zeros: refused where it began
        let dir = (0..z.len() - 4)
            .find(|&i| u32_at(&z, i) == CENTRAL)
            .unwrap();
        let mut cut = z[..dir].to_vec();
        cut.extend_from_slice(&[0; 1000]);
        let (at, m) = check(&cut, 13).unwrap_err();
        assert_eq!(at, dir as u64);
        assert!(m.contains("not a zip record"), "{m}");
    }

    #[test]
    fn duplicate_central_names_are_found() {
        let mut z = session(&[("logic-1", b"ab"), ("logic-X", b"cd")]);
        assert!(duplicate_names(&mut std::io::Cursor::new(&z), "f.sr").is_ok());
        for i in 0..z.len() - 7 {
            if &z[i..i + 7] == b"logic-X" {
                z[i + 6] = b'1';
            }
        }
        let e = duplicate_names(&mut std::io::Cursor::new(&z), "f.sr").unwrap_err();
        assert!(e.to_string().contains("'logic-1'"), "{e}");
    }
}
