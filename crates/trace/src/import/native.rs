//! Reader for latscope's native capture format; the layout is documented in
//! [`crate::export::native`].

use crate::error::{Error, Place, Result};
use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::Picos;

struct Cur<'a> {
    b: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Cur<'a> {
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::format(self.file, Place::Byte(self.pos as u64), msg)
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.b.len() - self.pos < n {
            return Err(self.err(format!(
                "truncated: {what} needs {n} bytes, {} left",
                self.b.len() - self.pos
            )));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u64(&mut self, what: &str) -> Result<u64> {
        let s = self.take(8, what)?;
        Ok(u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
    }
    fn i64(&mut self, what: &str) -> Result<i64> {
        Ok(self.u64(what)? as i64)
    }
    fn u32(&mut self, what: &str) -> Result<u32> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes(s.try_into().unwrap_or([0; 4])))
    }
    fn str(&mut self, what: &str) -> Result<String> {
        let n = self.u32(what)? as usize;
        let at = self.pos;
        let s = self.take(n, what)?;
        String::from_utf8(s.to_vec()).map_err(|_| {
            Error::format(
                self.file,
                Place::Byte(at as u64),
                format!("{what} is not UTF-8"),
            )
        })
    }
}

/// True when `head` starts with the native magic.
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(crate::export::native::MAGIC)
}

/// Most bytes of a native capture: 1 GiB (a larger one holds more edges than an import
/// may keep, [`super::limits::DEFAULT_MAX_EDGES`]).
pub const MAX_BYTES: u64 = 1 << 30;

/// Reads a native capture from a stream: the identifier is checked before anything else
/// is read, and at most [`MAX_BYTES`] are read.
pub fn read_stream<R: std::io::Read>(r: R, file: &str) -> Result<Capture> {
    use std::io::Read;
    let magic = crate::export::native::MAGIC;
    let mut r = r.take(MAX_BYTES + 1);
    let mut v = vec![0u8; magic.len()];
    let mut n = 0;
    while n < v.len() {
        match r.read(&mut v[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(file, e)),
        }
    }
    v.truncate(n);
    if !sniff(&v) {
        return Err(Error::format(
            file,
            Place::Byte(0),
            "not a latscope native capture (no identifier)",
        ));
    }
    r.read_to_end(&mut v).map_err(|e| Error::io(file, e))?;
    if v.len() as u64 > MAX_BYTES {
        return Err(Error::format(
            file,
            Place::Byte(MAX_BYTES),
            "larger than 1 GiB: more edges than one import may keep",
        ));
    }
    read(&v, file)
}

/// Parses a native capture held in memory; `file` names it in errors.
pub fn read(bytes: &[u8], file: &str) -> Result<Capture> {
    let mut c = Cur {
        b: bytes,
        pos: 0,
        file,
    };
    let h = header(&mut c)?;
    let mut channels = Vec::with_capacity(h.digital.min(4096));
    let mut kept: u64 = 0;
    for i in 0..h.digital {
        channels.push(digital_channel(&mut c, i, &h, &mut kept)?);
    }
    let mut analog = Vec::with_capacity(h.analog.min(4096));
    for i in 0..h.analog {
        analog.push(analog_channel(&mut c, i)?);
    }
    if c.pos != bytes.len() {
        return Err(c.err(format!(
            "{} stray bytes after the last channel",
            bytes.len() - c.pos
        )));
    }
    Ok(Capture {
        source: h.source,
        samplerate_hz: if h.rate == 0 { None } else { Some(h.rate) },
        start: Picos(h.start),
        end: Picos(h.end),
        channels,
        analog,
    })
}

/// The fields before the channels.
struct Header {
    rate: u64,
    /// Capture start and end, ps.
    start: i64,
    end: i64,
    /// The unit of the edge deltas, ps (positive).
    tick: u64,
    digital: usize,
    analog: usize,
    source: String,
}

/// Magic, version, sample rate, span, tick, channel counts and source, each checked.
fn header(c: &mut Cur) -> Result<Header> {
    let magic = c.take(6, "magic")?;
    if magic != crate::export::native::MAGIC {
        return Err(Error::format(
            c.file,
            Place::Byte(0),
            "not a latscope capture (magic \"LSCAP\\0\" missing)",
        ));
    }
    let v = c.take(2, "version")?;
    let version = u16::from_le_bytes([v[0], v[1]]);
    if version != crate::export::native::VERSION {
        return Err(c.err(format!(
            "unsupported version {version} (this latscope reads 1)"
        )));
    }
    let rate = c.u64("samplerate")?;
    let start = c.i64("start")?;
    let end = c.i64("end")?;
    if end < start {
        return Err(c.err(format!("end {end} ps is before start {start} ps")));
    }
    let tick = c.u64("tick")?;
    if tick == 0 || tick > i64::MAX as u64 {
        return Err(c.err(format!("tick {tick} ps is invalid")));
    }
    let digital = c.u32("digital channel count")? as usize;
    let analog = c.u32("analog channel count")? as usize;
    let source = c.str("source")?;
    Ok(Header {
        rate,
        start,
        end,
        tick,
        digital,
        analog,
        source,
    })
}

/// Digital channel `i`: name, initial level and edges; `kept` counts the edges of every
/// channel so far, against the import limit (checked before the edges are decoded).
fn digital_channel(c: &mut Cur, i: usize, h: &Header, kept: &mut u64) -> Result<DigitalChannel> {
    let name = c.str(&format!("name of digital channel {i}"))?;
    let init = c.take(1, "initial level")?[0];
    if init > 1 {
        return Err(c.err(format!(
            "channel '{name}': initial level {init} is not 0 or 1"
        )));
    }
    let n = c.u64("edge count")?;
    let nbytes = c.u64("edge byte count")?;
    if nbytes > (c.b.len() - c.pos) as u64 || n > nbytes {
        return Err(c.err(format!(
            "channel '{name}': {n} edges in {nbytes} bytes do not fit the file"
        )));
    }
    *kept += n;
    if *kept > super::limits::DEFAULT_MAX_EDGES {
        return Err(c.err(format!(
            "channel '{name}': more than {} edges in all (more than one import may keep)",
            super::limits::DEFAULT_MAX_EDGES
        )));
    }
    let data_at = c.pos;
    let data = c.take(nbytes as usize, "edge data")?;
    let edges = decode_edges(c.file, &name, data, data_at, n, h)?;
    Ok(DigitalChannel {
        name,
        initial: init == 1,
        edges,
    })
}

/// The `n` edges of channel `name` from `data` (found at byte `data_at`): LEB128 deltas in
/// ticks from the capture start, each after the one before, none after the end, no byte
/// left over.
fn decode_edges(
    file: &str,
    name: &str,
    data: &[u8],
    data_at: usize,
    n: u64,
    h: &Header,
) -> Result<Vec<Picos>> {
    let at = |p: usize, msg: String| Error::format(file, Place::Byte((data_at + p) as u64), msg);
    let mut edges = Vec::with_capacity(n as usize);
    let mut t = h.start as i128;
    let mut p = 0usize;
    for k in 0..n {
        let mut v: u64 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = data.get(p) else {
                return Err(at(
                    p,
                    format!("channel '{name}': edge data ends inside edge {k}"),
                ));
            };
            p += 1;
            if shift >= 64 {
                return Err(at(p, format!("channel '{name}': edge {k} delta overflows")));
            }
            v |= ((b & 0x7f) as u64) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        if k > 0 && v == 0 {
            return Err(at(
                p,
                format!("channel '{name}': edge {k} is not after the previous one"),
            ));
        }
        t += v as i128 * h.tick as i128;
        if t > h.end as i128 {
            return Err(at(
                p,
                format!("channel '{name}': edge {k} lies after the capture end"),
            ));
        }
        edges.push(Picos(t as i64));
    }
    if p != data.len() {
        return Err(at(
            p,
            format!(
                "channel '{name}': {} stray bytes after the edges",
                data.len() - p
            ),
        ));
    }
    Ok(edges)
}

/// Analog channel `i`: name, first sample time, interval and f32 samples.
fn analog_channel(c: &mut Cur, i: usize) -> Result<AnalogChannel> {
    let name = c.str(&format!("name of analog channel {i}"))?;
    let a_start = c.i64("analog start")?;
    let interval = c.i64("analog interval")?;
    let n = c.u64("analog sample count")?;
    if n.saturating_mul(4) > (c.b.len() - c.pos) as u64 {
        return Err(c.err(format!(
            "analog channel '{name}': {n} samples do not fit the file"
        )));
    }
    let data = c.take(n as usize * 4, "analog samples")?;
    let values = data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok(AnalogChannel {
        name,
        start: Picos(a_start),
        interval: Picos(interval),
        values,
    })
}
