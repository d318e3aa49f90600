//! What an importer may allocate, and readers that enforce it.
//!
//! Every importer sizes its memory from what the input can justify, never from what a
//! header claims: text lines are capped ([`LineCap`]), a zip entry may not inflate past
//! its declared size ([`Declared`]), channel counts are capped before anything is
//! allocated per channel ([`MAX_CHANNELS`]), and the kept edges of the measured channels
//! are counted against [`Options::max_edges`](super::Options::max_edges).

use std::io::Read;

/// Longest text line (CSV rows and header, cycle-log lines, VCD tokens, sigrok metadata
/// lines): 1 MiB. A longer one is not a capture (or is a bomb).
pub const MAX_LINE: usize = 1 << 20;

/// Most digital channels one file may declare (VCD bits, CSV columns): 65,536.
pub const MAX_CHANNELS: usize = 1 << 16;

/// Default budget of kept edges over all decoded channels of one file: 100 million (800 MB
/// as 8-byte times; an edge list then grows to at most 1 GiB of capacity, so a hostile
/// input stays well under 2 GB). `--max-edges` raises it for a machine with the memory.
pub const DEFAULT_MAX_EDGES: u64 = 100_000_000;

/// Most analog samples kept in memory from one file (all channels): 128 Mi (512 MiB).
pub const MAX_ANALOG_SAMPLES: u64 = 1 << 27;

/// Largest sigrok `metadata` / `version` entry: 1 MiB.
pub const MAX_META: u64 = 1 << 20;

/// A reader that fails with a clear message when a line runs past [`MAX_LINE`] bytes
/// without a newline (e.g. `/dev/zero` read as CSV), instead of letting a line buffer
/// grow forever. Wrap it in a `BufReader`.
pub struct LineCap<R> {
    inner: R,
    run: usize,
    line: u64,
}

impl<R: Read> LineCap<R> {
    pub fn new(inner: R) -> Self {
        LineCap {
            inner,
            run: 0,
            line: 1,
        }
    }
}

impl<R: Read> Read for LineCap<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        let got = &out[..n];
        match got.iter().rposition(|&b| b == b'\n') {
            Some(p) => {
                self.line += got.iter().filter(|&&b| b == b'\n').count() as u64;
                self.run = n - p - 1;
            }
            None => self.run += n,
        }
        if self.run > MAX_LINE {
            return Err(std::io::Error::other(format!(
                "line {}: longer than {} bytes without a line break (not a text capture, or \
                 a damaged one)",
                self.line, MAX_LINE
            )));
        }
        Ok(n)
    }
}

/// A zip entry's inflated stream, refused once it passes the size the archive declares
/// for it (the `zip` crate does not check that) or the cap the caller derives from the
/// capture.
pub struct Declared<R> {
    inner: R,
    /// Bytes read so far.
    pub got: u64,
    limit: u64,
    what: &'static str,
}

impl<R: Read> Declared<R> {
    /// `limit`: the most bytes allowed; `what` says where it comes from, for the error.
    pub fn new(inner: R, limit: u64, what: &'static str) -> Self {
        Declared {
            inner,
            got: 0,
            limit,
            what,
        }
    }
}

impl<R: Read> Read for Declared<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        // read at most one byte past the limit, to tell "exactly at" from "past"
        let room = (self.limit - self.got.min(self.limit)).saturating_add(1);
        let want = out.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut out[..want])?;
        self.got += n as u64;
        if self.got > self.limit {
            return Err(std::io::Error::other(format!(
                "inflates past {} bytes ({}): a damaged or hostile archive",
                self.limit, self.what
            )));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    #[test]
    fn line_cap_refuses_a_line_without_end_but_passes_long_files() {
        let mut s = String::new();
        BufReader::new(LineCap::new(std::io::repeat(b'0').take(3 << 20)))
            .read_to_string(&mut s)
            .map(|_| ())
            .expect_err("3 MiB without a newline");
        let many = "0,1\n".repeat(1 << 20);
        let mut v = Vec::new();
        LineCap::new(many.as_bytes()).read_to_end(&mut v).unwrap();
        assert_eq!(v.len(), many.len());
    }

    #[test]
    fn declared_refuses_one_byte_more() {
        let mut v = Vec::new();
        Declared::new(&[0u8; 10][..], 10, "declared size")
            .read_to_end(&mut v)
            .unwrap();
        assert_eq!(v.len(), 10);
        let e = Declared::new(&[0u8; 11][..], 10, "declared size")
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("past 10 bytes"), "{e}");
    }
}
