//! The VCD writer's output: value-change lines assembled in a fixed block by constant-size
//! copies, and `#time` lines kept as decimal text that is advanced by the time step.
//!
//! Writing a dense capture is one `#time` line and one change line per edge, tens of
//! millions of them. Formatting each time from its integer (a division per digit) and
//! appending short slices of unknown length (a `memmove` call each) was most of the time
//! `convert` spent. Here a change line is a 16-byte copy of a line prepared once per
//! variable, and a time line a 32-byte copy of the current time's text, which a step of
//! a few units changes in its last digit or two.

use std::io::{self, Write};

/// Where the block is handed to the writer.
const BLOCK: usize = 1 << 18;
/// Room past `BLOCK` for the longest constant-size copy.
const SLACK: usize = 64;

/// The body's output block.
pub(super) struct Out<W: Write> {
    w: W,
    buf: Box<[u8]>,
    pos: usize,
}

impl<W: Write> Out<W> {
    pub(super) fn new(w: W) -> Self {
        Out {
            w,
            buf: vec![0u8; BLOCK + SLACK].into_boxed_slice(),
            pos: 0,
        }
    }

    /// Hands the block to the writer once it is full.
    #[inline]
    pub(super) fn spill(&mut self) -> io::Result<()> {
        if self.pos >= BLOCK {
            self.w.write_all(&self.buf[..self.pos])?;
            self.pos = 0;
        }
        Ok(())
    }

    /// Any bytes (headers, analog values): copied in pieces that fit the block.
    pub(super) fn raw(&mut self, mut b: &[u8]) -> io::Result<()> {
        while !b.is_empty() {
            let n = b.len().min(BLOCK + SLACK - self.pos);
            self.buf[self.pos..self.pos + n].copy_from_slice(&b[..n]);
            self.pos += n;
            b = &b[n..];
            if self.pos == BLOCK + SLACK {
                self.w.write_all(&self.buf[..self.pos])?;
                self.pos = 0;
            }
        }
        self.spill()
    }

    /// A one-bit change of a variable: its prepared line with the level in front.
    #[inline]
    pub(super) fn bit(&mut self, line: &BitLine, level: bool) {
        let dst = &mut self.buf[self.pos..self.pos + BitLine::WIDTH];
        dst.copy_from_slice(&line.bytes);
        dst[0] = if level { b'1' } else { b'0' };
        self.pos += line.len;
    }

    /// `#t` on a line of its own.
    #[inline(always)]
    pub(super) fn time(&mut self, t: &mut DecTime, v: i64) {
        let dst = &mut self.buf[self.pos..self.pos + DecTime::COPY];
        match t.write(v, dst) {
            Some(n) => self.pos += n,
            None => {
                // A negative time (an edge before the capture start) is written as it is.
                let mut b = itoa::Buffer::new();
                let s = b.format(v).as_bytes();
                self.buf[self.pos] = b'#';
                self.buf[self.pos + 1..self.pos + 1 + s.len()].copy_from_slice(s);
                self.buf[self.pos + 1 + s.len()] = b'\n';
                self.pos += s.len() + 2;
            }
        }
    }

    pub(super) fn finish(mut self) -> io::Result<()> {
        self.w.write_all(&self.buf[..self.pos])?;
        self.w.flush()
    }
}

/// A variable's change line, `?id\n`, padded to a constant width for the copy.
pub(super) struct BitLine {
    bytes: [u8; Self::WIDTH],
    len: usize,
}

impl BitLine {
    const WIDTH: usize = 16;

    /// `None` for an identifier too long for the width (more than 14 characters: over
    /// 94^14 variables, never met; the caller writes such a line the slow way).
    pub(super) fn new(id: &[u8]) -> Option<Self> {
        let len = id.len() + 2;
        if len > Self::WIDTH {
            return None;
        }
        let mut bytes = [0u8; Self::WIDTH];
        bytes[1..=id.len()].copy_from_slice(id);
        bytes[id.len() + 1] = b'\n';
        Some(BitLine { bytes, len })
    }
}

/// The last `#time` line written, `#digits\n`, held in four 64-bit words (byte `j` of the
/// line is byte `j % 8` of word `j / 8`, little-endian). Times only grow along the merge,
/// so the next one is this one plus a step, added digit by digit from the right (a step
/// below 10,000 changes few digits); a larger step, or one that adds a digit, rewrites
/// the number.
///
/// Words, not bytes: a digit is changed by loading, masking and storing its whole word,
/// so the line's copy into the output (whole words too) is served from those stores.
/// Copying 16-byte pieces just after single-byte stores into them waits for the stores to
/// reach the cache, and that wait was most of a time line's cost.
pub(super) struct DecTime {
    words: [u64; 4],
    /// Length of the line, `#` and newline included.
    len: usize,
    value: i64,
}

impl DecTime {
    /// Bytes copied per time line (at least the longest line: 19 digits and 2).
    const COPY: usize = 32;
    /// Steps below this are added digit by digit.
    const SMALL_STEP: u64 = 10_000;

    pub(super) fn new() -> Self {
        let mut d = DecTime {
            words: [0; 4],
            len: 0,
            value: 0,
        };
        d.set(0);
        d
    }

    #[inline(always)]
    fn byte(&self, i: usize) -> u8 {
        (self.words[i >> 3] >> ((i & 7) * 8)) as u8
    }

    #[inline(always)]
    fn put(&mut self, i: usize, b: u8) {
        let sh = (i & 7) * 8;
        let w = &mut self.words[i >> 3];
        *w = (*w & !(0xff << sh)) | ((b as u64) << sh);
    }

    /// Writes the line of `v` to `dst` (`COPY` bytes, the line first) and returns its
    /// length; `None` (nothing written) for a negative `v`.
    #[inline(always)]
    fn write(&mut self, v: i64, dst: &mut [u8]) -> Option<usize> {
        if v < 0 {
            return None;
        }
        match v.checked_sub(self.value) {
            Some(step) if (0..Self::SMALL_STEP as i64).contains(&step) => {
                if !self.add(step as u64) {
                    self.set(v as u64);
                }
            }
            _ => self.set(v as u64),
        }
        self.value = v;
        for (j, w) in self.words.iter().enumerate() {
            dst[j * 8..j * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
        Some(self.len)
    }

    /// Adds `step` to the digits, carrying to the left; false when the number would grow a
    /// digit (the caller rewrites it whole).
    #[inline(always)]
    fn add(&mut self, mut c: u64) -> bool {
        let mut i = self.len - 2;
        while c != 0 {
            if i == 0 {
                return false;
            }
            let mut d = (self.byte(i) - b'0') as u64 + c % 10;
            c /= 10;
            if d >= 10 {
                d -= 10;
                c += 1;
            }
            self.put(i, b'0' + d as u8);
            i -= 1;
        }
        true
    }

    /// Writes `v` whole.
    fn set(&mut self, v: u64) {
        let mut b = itoa::Buffer::new();
        let s = b.format(v).as_bytes();
        let mut line = [0u8; Self::COPY];
        line[0] = b'#';
        line[1..=s.len()].copy_from_slice(s);
        line[s.len() + 1] = b'\n';
        self.len = s.len() + 2;
        for (j, w) in self.words.iter_mut().enumerate() {
            let mut b8 = [0u8; 8];
            b8.copy_from_slice(&line[j * 8..j * 8 + 8]);
            *w = u64::from_le_bytes(b8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(t: &DecTime) -> Vec<u8> {
        (0..t.len).map(|i| t.byte(i)).collect()
    }

    /// `t.write(v, ..)`'s line, checked against the text it keeps.
    fn advance(t: &mut DecTime, v: i64) -> Option<Vec<u8>> {
        let mut dst = [0u8; DecTime::COPY];
        let n = t.write(v, &mut dst)?;
        assert_eq!(&dst[..n], line(t));
        Some(dst[..n].to_vec())
    }

    #[test]
    fn advancing_text_equals_formatting_the_number() {
        let mut t = DecTime::new();
        assert_eq!(line(&t), b"#0\n");
        let mut v = 0i64;
        let mut rng = 7u64;
        for i in 0..200_000u64 {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // small steps (carries through runs of 9s), zero steps and large jumps
            let step = match i % 7 {
                0 => (rng >> 40) as i64,
                1 => 0,
                2 => 9_999,
                _ => ((rng >> 33) % 12) as i64,
            };
            v = v.saturating_add(step);
            let got = advance(&mut t, v).unwrap();
            assert_eq!(got, format!("#{v}\n").as_bytes(), "step {i}");
        }
        let got = advance(&mut t, i64::MAX).unwrap();
        assert_eq!(got, format!("#{}\n", i64::MAX).as_bytes());
        assert!(advance(&mut t, -1).is_none());
        // Going back (never done by the merge) rewrites the number.
        assert_eq!(advance(&mut t, 99).unwrap(), b"#99\n");
        // Growing a digit by a small step: 999 + 3.
        assert_eq!(advance(&mut t, 999).unwrap(), b"#999\n");
        assert_eq!(advance(&mut t, 1002).unwrap(), b"#1002\n");
    }

    #[test]
    fn lines_in_the_block_are_those_of_format() {
        let mut out = Vec::new();
        let mut want = String::new();
        {
            let mut o = Out::new(&mut out);
            let mut t = DecTime::new();
            let ids = ["!", "~~", "abcdefghijklmn"];
            let lines: Vec<BitLine> = ids
                .iter()
                .map(|i| BitLine::new(i.as_bytes()).unwrap())
                .collect();
            assert!(BitLine::new(b"abcdefghijklmno").is_none());
            // enough lines to spill the block several times
            for k in 0..200_000i64 {
                let v = k * 3 - 5;
                o.time(&mut t, v);
                want += &format!("#{v}\n");
                let j = (k % 3) as usize;
                o.bit(&lines[j], k % 2 == 0);
                want += &format!("{}{}\n", if k % 2 == 0 { 1 } else { 0 }, ids[j]);
                o.spill().unwrap();
                if k % 50_000 == 0 {
                    let long = "x".repeat(BLOCK + 3 * SLACK);
                    o.raw(long.as_bytes()).unwrap();
                    want += &long;
                }
            }
            o.finish().unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}
