//! A `.sr` entry inflated in one call, into a buffer of its declared size.
//!
//! sigrok stores logic data in deflated zip entries of 4 MiB (`logic-1-1`, `logic-1-2`,
//! …). Streamed through zlib-rs, 1 MiB per read, a dense capture's entries (a pattern
//! repeating every few bytes, so matches that copy from a few bytes back) inflate at
//! about 0.6 GB/s; libdeflate, given the whole entry at once, inflates them at about
//! 6 GB/s (issue 29 item 4; the comparison is in docs/benchmarks.md, "Captures, session
//! 15"). libdeflate needs the output's size up front, which a zip entry declares.
//!
//! Only an entry this reader can take in full is taken: deflated, declaring at most
//! [`ONE_SHOT_MAX`] bytes, with a compressed size no larger than deflate can make of
//! that, inflating to exactly its declared size with the CRC-32 it declares. Anything
//! else, a corrupt entry included, is left to the streaming reader, which then reports
//! what it always reported, at the same place: this path changes no error.

use std::io::{Read, Seek};

/// Entries declaring more than this (64 MiB) are streamed: the one-call buffer holds the
/// whole entry.
const ONE_SHOT_MAX: u64 = 64 << 20;

/// The reusable buffers and decompressor of one reader.
pub(super) struct WholeEntry {
    inflater: libdeflater::Decompressor,
    raw: Vec<u8>,
    out: Vec<u8>,
}

impl WholeEntry {
    pub(super) fn new() -> WholeEntry {
        WholeEntry {
            inflater: libdeflater::Decompressor::new(),
            raw: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Entry `idx` inflated whole and checked, or `None` when it is not one this path
    /// takes or does not inflate cleanly (the caller then streams it).
    pub(super) fn inflate<R: Read + Seek>(
        &mut self,
        z: &mut zip::ZipArchive<R>,
        idx: usize,
    ) -> Option<&[u8]> {
        let mut e = z.by_index_raw(idx).ok()?;
        let declared = e.size();
        // deflate's worst case is the data stored: 5 bytes of framing per 64 KiB block
        let bound = declared.checked_add(declared / 8 + 4096)?;
        if e.compression() != zip::CompressionMethod::Deflated
            || e.encrypted()
            || declared > ONE_SHOT_MAX
            || e.compressed_size() > bound
        {
            return None;
        }
        let crc = e.crc32();
        let size = usize::try_from(declared).ok()?;
        self.raw.clear();
        e.read_to_end(&mut self.raw).ok()?;
        if self.out.len() < size {
            // zeroed by the allocator (fresh pages, not written), then made present at once
            self.out = vec![0u8; size];
            super::prefault::populate_buffer(&mut self.out);
        }
        let out = self.out.get_mut(..size)?;
        match self.inflater.deflate_decompress(&self.raw, out) {
            Ok(n) if n == size && crc32fast::hash(out) == crc => Some(out),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn archive(entries: &[(&str, &[u8], zip::CompressionMethod)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data, method) in entries {
            let o = zip::write::SimpleFileOptions::default().compression_method(*method);
            w.start_file(*name, o).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    /// What one call gives is what the zip crate's own reader gives, for short
    /// periods (the dense shape), runs and noise; stored entries are left to it.
    #[test]
    fn same_bytes_as_the_streaming_reader() {
        let dense: Vec<u8> = (0..3_000_000u32).map(|i| ((i / 3) % 2) as u8).collect();
        let runs: Vec<u8> = (0..1_000_000u32).map(|i| (i / 40_000) as u8).collect();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let d = zip::CompressionMethod::Deflated;
        let bytes = archive(&[
            ("a", &dense, d),
            ("b", &runs, d),
            ("c", &noise, d),
            ("d", &[], d),
            ("e", &runs, zip::CompressionMethod::Stored),
        ]);
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut w = WholeEntry::new();
        for (i, want) in [&dense, &runs, &noise, &Vec::new()].iter().enumerate() {
            let mut streamed = Vec::new();
            z.by_index(i).unwrap().read_to_end(&mut streamed).unwrap();
            assert_eq!(&streamed, *want);
            assert_eq!(w.inflate(&mut z, i), Some(&want[..]), "entry {i}");
        }
        assert_eq!(w.inflate(&mut z, 4), None, "a stored entry is streamed");
    }

    /// A flipped byte in the deflated data or a wrong CRC-32 is not taken here (the
    /// streaming reader reports it).
    #[test]
    fn corrupt_entries_are_left_to_the_streaming_reader() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i / 7 % 5) as u8).collect();
        let good = archive(&[("logic-1-1", &data, zip::CompressionMethod::Deflated)]);
        let mut w = WholeEntry::new();
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(good.clone())).unwrap();
        assert!(w.inflate(&mut z, 0).is_some());
        // the CRC-32, in the local and the central header
        let crc = crc32fast::hash(&data).to_le_bytes();
        let mut bad_crc = good.clone();
        let places: Vec<usize> = (0..bad_crc.len() - 3)
            .filter(|&i| bad_crc[i..i + 4] == crc)
            .collect();
        assert_eq!(places.len(), 2);
        for i in places {
            bad_crc[i] ^= 0xff;
        }
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(bad_crc)).unwrap();
        assert_eq!(w.inflate(&mut z, 0), None);
        // the deflated data starts after the 30-byte local header and the name
        let mut bad_data = good;
        let at = 30 + "logic-1-1".len() + 40;
        bad_data[at] ^= 0x5a;
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(bad_data)).unwrap();
        assert_eq!(w.inflate(&mut z, 0), None);
    }
}
