//! latscope's own compact capture format (`.lscap`), read back by
//! [`crate::import::native::read`]. Layout (all integers little-endian):
//!
//! ```text
//! magic        8 bytes  "LSCAP\0" + u16 version (= 1)
//! samplerate   u64      Hz, 0 = unknown
//! start        i64      ps
//! end          i64      ps
//! tick         u64      ps; every edge's offset from `start` is a multiple of it
//! n_digital    u32
//! n_analog     u32
//! source       str      (u32 byte length + UTF-8)
//! n_digital ×  { name str, initial u8 (0|1), n_edges u64, n_bytes u64,
//!                n_bytes of unsigned LEB128 deltas in ticks: the first from `start`,
//!                each next one from the previous edge (so ≥ 1) }
//! n_analog ×   { name str, start i64 ps, interval i64 ps, n u64, n × f32 }
//! ```
//! A 1 kHz tick sampled at 1 MHz costs 2 bytes per edge.

use latscope_core::arith::gcd;
use latscope_core::capture::Capture;
use std::io::{self, Write};

pub const MAGIC: &[u8; 6] = b"LSCAP\0";
pub const VERSION: u16 = 1;

pub(crate) fn leb128(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_str<W: Write>(w: &mut W, s: &str) -> io::Result<()> {
    w.write_all(&(s.len() as u32).to_le_bytes())?;
    w.write_all(s.as_bytes())
}

/// Writes `cap` in the native format. The capture should satisfy `Capture::validate`
/// (edges strictly increasing and inside [start, end]); otherwise an
/// `InvalidInput` error is returned.
pub fn write<W: Write>(cap: &Capture, w: W) -> io::Result<()> {
    cap.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut w = io::BufWriter::with_capacity(1 << 16, w);
    let mut tick = 0u64;
    for c in &cap.channels {
        for e in &c.edges {
            tick = gcd(tick, (e.0 - cap.start.0) as u64);
            if tick == 1 {
                break;
            }
        }
    }
    let tick = tick.max(1);
    w.write_all(MAGIC)?;
    w.write_all(&VERSION.to_le_bytes())?;
    w.write_all(&cap.samplerate_hz.unwrap_or(0).to_le_bytes())?;
    w.write_all(&cap.start.0.to_le_bytes())?;
    w.write_all(&cap.end.0.to_le_bytes())?;
    w.write_all(&tick.to_le_bytes())?;
    w.write_all(&(cap.channels.len() as u32).to_le_bytes())?;
    w.write_all(&(cap.analog.len() as u32).to_le_bytes())?;
    put_str(&mut w, &cap.source)?;
    let mut buf = Vec::new();
    for c in &cap.channels {
        put_str(&mut w, &c.name)?;
        w.write_all(&[c.initial as u8])?;
        buf.clear();
        let mut prev = cap.start.0;
        for e in &c.edges {
            leb128(((e.0 - prev) as u64) / tick, &mut buf);
            prev = e.0;
        }
        w.write_all(&(c.edges.len() as u64).to_le_bytes())?;
        w.write_all(&(buf.len() as u64).to_le_bytes())?;
        w.write_all(&buf)?;
    }
    for a in &cap.analog {
        put_str(&mut w, &a.name)?;
        w.write_all(&a.start.0.to_le_bytes())?;
        w.write_all(&a.interval.0.to_le_bytes())?;
        w.write_all(&(a.values.len() as u64).to_le_bytes())?;
        for v in &a.values {
            w.write_all(&v.to_le_bytes())?;
        }
    }
    w.flush()
}
