//! Raw samples: a lock-free single-producer ring per measuring thread, drained by one
//! writer thread into a compact binary file or CSV. The measuring threads never block
//! on it: a full ring drops the sample and counts the drop.
//!
//! Binary layout (little-endian): a 16-byte header `LATSCOPESMP1` + u32 record size (24),
//! then records of `u32 cpu, u16 phase, u16 missed, i64 intended_ns, i64 latency_ns`.

use crate::engine::{RawSample, SampleProducer};
use crate::outfile::OutputFile;
use crate::settings::SampleFormat;
use crate::MeasureError;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

pub const MAGIC: &[u8; 12] = b"LATSCOPESMP1";
pub const RECORD_BYTES: usize = 24;
/// Ring capacity per CPU: 65,536 samples, over a minute of 1 ms periods of slack.
pub const RING_CAPACITY: usize = 1 << 16;

/// One ring per CPU; the producers go to the measuring threads.
pub fn rings(n: usize) -> (Vec<Option<SampleProducer>>, Vec<rtrb::Consumer<RawSample>>) {
    let mut p = Vec::with_capacity(n);
    let mut c = Vec::with_capacity(n);
    for _ in 0..n {
        let (prod, cons) = rtrb::RingBuffer::new(RING_CAPACITY);
        p.push(Some(prod));
        c.push(cons);
    }
    (p, c)
}

/// What the writer thread returns: samples written and the (uncommitted) file.
type WriterResult = Result<(u64, Option<OutputFile>), std::io::Error>;

/// The writer thread.
pub struct SampleWriter {
    done: Arc<AtomicBool>,
    handle: Option<JoinHandle<WriterResult>>,
    path: PathBuf,
}

fn encode(s: &RawSample, out: &mut [u8; RECORD_BYTES]) {
    out[0..4].copy_from_slice(&s.cpu.to_le_bytes());
    out[4..6].copy_from_slice(&s.phase.to_le_bytes());
    out[6..8].copy_from_slice(&s.missed.to_le_bytes());
    out[8..16].copy_from_slice(&s.intended_ns.to_le_bytes());
    out[16..24].copy_from_slice(&s.latency_ns.to_le_bytes());
}

/// Where the writer thread puts samples: the binary layout above, or CSV through the
/// `csv` crate (`phase,cpu,intended_ns,latency_ns,missed`).
enum Sink {
    Binary(BufWriter<OutputFile>),
    Csv(Box<csv::Writer<OutputFile>>),
}

impl Sink {
    fn open(f: OutputFile, fmt: SampleFormat) -> std::io::Result<Sink> {
        Ok(match fmt {
            SampleFormat::Binary => {
                let mut w = BufWriter::with_capacity(1 << 20, f);
                w.write_all(MAGIC)?;
                w.write_all(&(RECORD_BYTES as u32).to_le_bytes())?;
                Sink::Binary(w)
            }
            SampleFormat::Csv => {
                let mut w = csv::WriterBuilder::new()
                    .buffer_capacity(1 << 20)
                    .from_writer(f);
                w.write_record(["phase", "cpu", "intended_ns", "latency_ns", "missed"])?;
                Sink::Csv(Box::new(w))
            }
        })
    }

    fn write(&mut self, s: &RawSample) -> std::io::Result<()> {
        match self {
            Sink::Binary(w) => {
                let mut b = [0u8; RECORD_BYTES];
                encode(s, &mut b);
                w.write_all(&b)
            }
            Sink::Csv(w) => {
                Ok(w.serialize((s.phase, s.cpu, s.intended_ns, s.latency_ns, s.missed))?)
            }
        }
    }

    fn into_file(self) -> std::io::Result<OutputFile> {
        match self {
            Sink::Binary(w) => w.into_inner().map_err(|e| e.into_error()),
            Sink::Csv(w) => (*w)
                .into_inner()
                .map_err(|e| std::io::Error::new(e.error().kind(), e.error().to_string())),
        }
    }
}

impl SampleWriter {
    /// Creates the (temporary) file now, so an unwritable path fails before any
    /// measuring thread starts, and starts draining `consumers`. Nothing appears under
    /// `path` until the caller commits what `finish` returns.
    pub fn start(
        path: &Path,
        fmt: SampleFormat,
        consumers: Vec<rtrb::Consumer<RawSample>>,
    ) -> Result<SampleWriter, MeasureError> {
        Self::start_with(Some((path, fmt)), consumers, None)
    }

    /// Drains `consumers` into the file `out` (if any) and forwards every sample to
    /// `forward` (the tracer), if any.
    pub fn start_with(
        out: Option<(&Path, SampleFormat)>,
        mut consumers: Vec<rtrb::Consumer<RawSample>>,
        forward: Option<std::sync::mpsc::Sender<RawSample>>,
    ) -> Result<SampleWriter, MeasureError> {
        let (file, fmt) = match out {
            Some((path, fmt)) => (Some(OutputFile::create(path, "--samples")?), fmt),
            None => (None, SampleFormat::Binary),
        };
        let path = out.map(|(p, _)| p.to_path_buf()).unwrap_or_default();
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let handle = std::thread::Builder::new()
            .name("latscope-samples".into())
            .spawn(move || -> WriterResult {
                let mut w = match file {
                    Some(f) => Some(Sink::open(f, fmt)?),
                    None => None,
                };
                let mut written = 0u64;
                loop {
                    // Read the flag before draining so nothing pushed before it is lost.
                    let finishing = d.load(Ordering::Acquire);
                    let mut got = 0usize;
                    for c in consumers.iter_mut() {
                        while let Ok(s) = c.pop() {
                            if let Some(w) = w.as_mut() {
                                w.write(&s)?;
                                written += 1;
                            }
                            if let Some(f) = &forward {
                                let _ = f.send(s);
                            }
                            got += 1;
                        }
                    }
                    if finishing {
                        break;
                    }
                    if got == 0 {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                let file = match w {
                    Some(w) => Some(w.into_file()?),
                    None => None,
                };
                Ok((written, file))
            })
            .map_err(|e| MeasureError::Setup(format!("cannot start the sample writer: {e}")))?;
        Ok(SampleWriter {
            done,
            handle: Some(handle),
            path,
        })
    }

    /// Drains what is left and returns the number of samples written with the file,
    /// still under its temporary name: `commit` it to keep it.
    pub fn finish(mut self) -> Result<(u64, Option<OutputFile>), MeasureError> {
        self.done.store(true, Ordering::Release);
        let out = self
            .handle
            .take()
            .ok_or_else(|| MeasureError::Setup("the sample writer was already finished".into()))?
            .join()
            .map_err(|_| MeasureError::Setup("the sample writer panicked".into()))?;
        out.map_err(|e| MeasureError::Output {
            path: self.path.display().to_string(),
            msg: e.to_string(),
        })
    }
}

impl Drop for SampleWriter {
    /// A writer abandoned on an error path stops, and its temporary file is removed.
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Reads a binary sample file back (for tests and tools).
pub fn read_binary(bytes: &[u8]) -> Result<Vec<RawSample>, MeasureError> {
    let bad = |m: &str| MeasureError::Parse {
        what: "sample file".into(),
        line: 0,
        msg: m.into(),
    };
    if bytes.len() < 16 || &bytes[0..12] != MAGIC {
        return Err(bad("missing LATSCOPESMP1 header"));
    }
    let rs = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    if rs != RECORD_BYTES {
        return Err(bad(&format!("record size {rs}, expected {RECORD_BYTES}")));
    }
    let body = &bytes[16..];
    if !body.chunks_exact(RECORD_BYTES).remainder().is_empty() {
        return Err(bad("truncated record at the end"));
    }
    let le64 = |b: &[u8]| {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        i64::from_le_bytes(a)
    };
    Ok(body
        .chunks_exact(RECORD_BYTES)
        .map(|r| RawSample {
            cpu: u32::from_le_bytes([r[0], r[1], r[2], r[3]]),
            phase: u16::from_le_bytes([r[4], r[5]]),
            missed: u16::from_le_bytes([r[6], r[7]]),
            intended_ns: le64(&r[8..16]),
            latency_ns: le64(&r[16..24]),
            abs_ns: 0,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_round_trip_through_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.bin");
        let (mut prods, cons) = rings(2);
        let w = SampleWriter::start(&path, SampleFormat::Binary, cons).unwrap();
        let mut expect = Vec::new();
        for i in 0..1000i64 {
            let s = RawSample {
                cpu: (i % 2) as u32,
                phase: 3,
                missed: (i % 7 == 0) as u16,
                intended_ns: i * 1000,
                latency_ns: -5 + i,
                abs_ns: 0,
            };
            prods[(i % 2) as usize].as_mut().unwrap().push(s).unwrap();
            expect.push(s);
        }
        let (n, f) = w.finish().unwrap();
        assert_eq!(n, 1000);
        assert!(!path.exists(), "nothing under the name before the commit");
        f.unwrap().commit().unwrap();
        let mut got = read_binary(&std::fs::read(&path).unwrap()).unwrap();
        got.sort_by_key(|s| s.intended_ns);
        assert_eq!(got, expect);
        assert!(read_binary(b"nonsense").is_err());
    }

    #[test]
    fn csv_has_header_and_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        let (mut prods, cons) = rings(1);
        let w = SampleWriter::start(&path, SampleFormat::Csv, cons).unwrap();
        let p = prods[0].as_mut().unwrap();
        p.push(RawSample {
            cpu: 1,
            phase: 0,
            missed: 0,
            intended_ns: 1_000_000,
            latency_ns: 42_000,
            abs_ns: 0,
        })
        .unwrap();
        let (n, f) = w.finish().unwrap();
        assert_eq!(n, 1);
        f.unwrap().commit().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "phase,cpu,intended_ns,latency_ns,missed\n0,1,1000000,42000,0\n"
        );
    }

    #[test]
    fn unwritable_path_fails_at_start() {
        let (_p, cons) = rings(1);
        let e = SampleWriter::start(
            Path::new("/nonexistent-dir/x/y.bin"),
            SampleFormat::Binary,
            cons,
        );
        assert!(e.is_err());
    }
}
