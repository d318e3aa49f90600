//! Saleae Logic 2 binary export, versions 0 and 1 (Saleae's published "Binary Export
//! Format" articles), one channel per file, little-endian, IEEE-754:
//!
//! ```text
//! common   "<SALEAE>"  i32 version  i32 type (0 digital, 1 analog)
//! v0 dig.  u32 initial_state  f64 begin_time  f64 end_time  u64 n  f64 t[n]
//! v0 ana.  f64 begin_time  u64 sample_rate  u64 downsample  u64 n  f32 volts[n]
//! v1 dig.  u64 chunks; per chunk: u32 initial_state  f64 sample_rate  f64 begin
//!          f64 end  u64 n  f64 t[n]
//! v1 ana.  u64 waveforms; per waveform: f64 begin_time  f64 trigger_time
//!          f64 sample_rate  u64 downsample  u64 n  f32 volts[n]
//! ```
//! Times are seconds from the trigger. They are rounded to the sample grid when the
//! rate is known (v1 chunks carry it; otherwise `--samplerate`). Gaps between v1
//! chunks keep the last level; a chunk whose initial state differs from the level at
//! its start toggles the channel at the chunk's begin time. The channel is named after
//! the file (e.g. `digital_0`); several files can be merged (`latscope trace a.bin
//! b.bin`).

use super::analog_input::{AnalogInput, Problem, Times, MAX_SPOOLED_SAMPLES};
use super::builder::Builder;
use super::csv::round_to_grid;
use crate::error::{Error, Place, Result};
use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::{Picos, PS_PER_S};
use std::io::Read;

struct Rd<'a, R: Read> {
    r: R,
    pos: u64,
    file: &'a str,
}

impl<R: Read> Rd<'_, R> {
    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        let mut got = 0;
        while got < N {
            match self.r.read(&mut b[got..]) {
                Ok(0) => {
                    return Err(Error::format(
                        self.file,
                        Place::Byte(self.pos + got as u64),
                        format!("truncated: the file ends inside {what}"),
                    ))
                }
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(self.file, e)),
            }
        }
        self.pos += N as u64;
        Ok(b)
    }
    fn u32(&mut self, w: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.bytes::<4>(w)?))
    }
    fn i32(&mut self, w: &str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.bytes::<4>(w)?))
    }
    fn u64(&mut self, w: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.bytes::<8>(w)?))
    }
    fn f64(&mut self, w: &str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.bytes::<8>(w)?))
    }
    /// A digital `initial_state`: 0 or 1. Anything else is not a level (a damaged file,
    /// or another layout read as this one), so it is refused rather than read as high.
    fn initial_state(&mut self) -> Result<bool> {
        let at = self.pos;
        match self.u32("initial_state")? {
            0 => Ok(false),
            1 => Ok(true),
            x => Err(Error::format(
                self.file,
                Place::Byte(at),
                format!("initial_state {x} is not a logic level (0 or 1)"),
            )),
        }
    }
    /// A v1 digital chunk's `sample_rate`: 0 means none recorded (times are then kept as
    /// written, or rounded to `--samplerate`); otherwise 1 Hz to 1 THz. NaN, a negative or
    /// infinite rate, or one finer than the 1-ps time resolution is refused: ignoring it
    /// would silently change how every time is rounded.
    fn digital_rate(&mut self) -> Result<Option<u64>> {
        let at = self.pos;
        let f = self.f64("sample_rate")?;
        if f == 0.0 {
            return Ok(None);
        }
        if !(1.0..=PS_PER_S as f64).contains(&f) {
            return Err(Error::format(
                self.file,
                Place::Byte(at),
                format!(
                    "sample_rate {f} Hz is not a sample rate (1 Hz to 1 THz, the 1-ps time \
                     resolution; 0 for none)"
                ),
            ));
        }
        Ok(Some(f.round() as u64))
    }
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::format(self.file, Place::Byte(self.pos), msg)
    }
    /// Seconds to picoseconds, rounded to the grid of `rate` when given.
    fn time(&self, s: f64, rate: Option<u64>, what: &str) -> Result<i64> {
        if !s.is_finite() || s.abs() > 9.2e6 {
            return Err(Error::format(
                self.file,
                Place::Byte(self.pos.saturating_sub(8)),
                format!("{what} {s} s is not a usable time"),
            ));
        }
        let ps = (s * PS_PER_S as f64).round() as i64;
        Ok(match rate {
            Some(r) => round_to_grid(ps, r),
            None => ps,
        })
    }
}

fn rate_of(f: f64) -> Option<u64> {
    if (1.0..1e13).contains(&f) {
        Some(f.round() as u64)
    } else {
        None
    }
}

/// Reads one Saleae binary export file; `name` becomes the channel name.
pub fn read<R: Read>(r: R, file: &str, name: &str, samplerate: Option<u64>) -> Result<Capture> {
    let opts = super::Options {
        samplerate_hz: samplerate,
        ..Default::default()
    };
    read_opts(r, file, name, &opts)
}

/// [`read`] with every import option (sample rate, warnings, edge budget). With
/// `only_channels` set, an analog waveform named in it is thresholded while it is read
/// (see [`super::analog_input`]) and becomes a digital channel of that name; the other
/// waveforms are read past; no samples are kept.
pub fn read_opts<R: Read>(r: R, file: &str, name: &str, opts: &super::Options) -> Result<Capture> {
    let mut d = Rd { r, pos: 0, file };
    let magic = d.bytes::<8>("the identifier")?;
    if &magic != b"<SALEAE>" {
        return Err(Error::format(
            file,
            Place::Byte(0),
            "not a Saleae binary export (no \"<SALEAE>\" identifier)",
        ));
    }
    let version = d.i32("the version")?;
    let kind = d.i32("the type")?;
    let mut b = Builder::new(vec![name.to_string()], Picos(0));
    b.select(opts.only_channels.as_deref());
    let mut out = Waves {
        name,
        opts,
        budget: opts.max_edges.unwrap_or(super::limits::DEFAULT_MAX_EDGES),
        analog: Vec::new(),
        digitized: Vec::new(),
        measured: 0,
    };
    let span = match (version, kind) {
        (0, 0) => digital_v0(&mut d, &mut b, opts, out.budget)?,
        (1, 0) => digital_v1(&mut d, &mut b, opts, out.budget)?,
        (0, 1) => out.analog_v0(&mut d)?,
        (1, 1) => out.analog_v1(&mut d)?,
        (v, t) if v == 0 || v == 1 => {
            return Err(Error::format(
                file,
                Place::Byte(12),
                format!("unknown data type {t} (0 digital, 1 analog)"),
            ));
        }
        (v, _) => {
            return Err(Error::format(
                file,
                Place::Byte(8),
                format!("unsupported export version {v} (0 and 1 are supported)"),
            ));
        }
    };
    // nothing may follow
    let mut extra = [0u8; 1];
    if d.r.read(&mut extra).map_err(|e| Error::io(file, e))? != 0 {
        return Err(d.err("unexpected bytes after the declared data"));
    }
    // a waveform's edges inside the capture (waveforms may start before the first one)
    for ch in &mut out.digitized {
        ch.edges.retain(|e| e.0 >= span.start && e.0 <= span.end);
    }
    let channels = if kind == 0 { b.finish() } else { out.digitized };
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: span.rate,
        start: Picos(span.start),
        end: Picos(span.end),
        channels,
        analog: out.analog,
    };
    cap.validate()?;
    Ok(cap)
}

/// The capture's extent and sample rate, as the data section declared them.
struct Span {
    start: i64,
    end: i64,
    rate: Option<u64>,
}

fn over_budget(budget: u64) -> String {
    format!(
        "more than {budget} transitions: more than one import may keep \
         (--max-edges raises the limit)"
    )
}

/// Version 0 digital: initial state, begin and end time, then the transition times.
fn digital_v0<R: Read>(
    d: &mut Rd<'_, R>,
    b: &mut Builder,
    opts: &super::Options,
    budget: u64,
) -> Result<Span> {
    let samplerate = opts.samplerate_hz;
    let init = d.initial_state()?;
    let begin = {
        let x = d.f64("begin_time")?;
        d.time(x, samplerate, "begin_time")?
    };
    let endt = {
        let x = d.f64("end_time")?;
        d.time(x, samplerate, "end_time")?
    };
    if endt < begin {
        return Err(d.err("end_time is before begin_time"));
    }
    let n = d.u64("num_transitions")?;
    b.start = Picos(begin);
    b.set(0, Picos(begin), init);
    let mut lv = init;
    let mut last = begin;
    for i in 0..n {
        let t = {
            let x = d.f64("a transition time")?;
            d.time(x, samplerate, "transition time")?
        };
        if t < last {
            return Err(d.err(format!(
                "transition {i} at {t} ps is before the previous one ({last} ps)"
            )));
        }
        if t > endt {
            return Err(d.err(format!("transition {i} lies after end_time")));
        }
        lv = !lv;
        b.set(0, Picos(t), lv);
        last = t;
        if b.kept > budget {
            return Err(d.err(over_budget(budget)));
        }
    }
    Ok(Span {
        start: begin,
        end: endt,
        rate: samplerate,
    })
}

/// Version 1 digital: chunks, each with its initial state, rate, times and transitions.
fn digital_v1<R: Read>(
    d: &mut Rd<'_, R>,
    b: &mut Builder,
    opts: &super::Options,
    budget: u64,
) -> Result<Span> {
    let samplerate = opts.samplerate_hz;
    let chunks = d.u64("chunk_count")?;
    let mut first = true;
    let (mut s0, mut e0) = (0i64, 0i64);
    let mut r0 = samplerate;
    let mut last = i64::MIN;
    for c in 0..chunks {
        let init = d.initial_state()?;
        let sr = d.digital_rate()?;
        if c == 0 {
            super::check_stated_rate(d.file, sr, samplerate, &opts.warnings)?;
        }
        let r = samplerate.or(sr);
        if r0.is_none() {
            r0 = r;
        }
        let begin = {
            let x = d.f64("begin_time")?;
            d.time(x, r, "begin_time")?
        };
        let endt = {
            let x = d.f64("end_time")?;
            d.time(x, r, "end_time")?
        };
        if endt < begin || begin < last {
            return Err(d.err(format!("chunk {c}: times out of order")));
        }
        if first {
            b.start = Picos(begin);
            s0 = begin;
            first = false;
        }
        b.set(0, Picos(begin), init);
        let mut lv = init;
        let n = d.u64("num_transitions")?;
        last = begin;
        for i in 0..n {
            let t = {
                let x = d.f64("a transition time")?;
                d.time(x, r, "transition time")?
            };
            if t < last || t > endt {
                return Err(d.err(format!(
                    "chunk {c}: transition {i} out of order or outside the chunk"
                )));
            }
            lv = !lv;
            b.set(0, Picos(t), lv);
            if b.kept > budget {
                return Err(d.err(over_budget(budget)));
            }
            last = t;
        }
        e0 = endt;
        last = endt;
    }
    Ok(Span {
        start: s0,
        end: e0,
        rate: r0,
    })
}

/// The analog waveforms read so far: kept whole, listed, or measured through a
/// threshold into `digitized`.
struct Waves<'a> {
    name: &'a str,
    opts: &'a super::Options,
    budget: u64,
    analog: Vec<AnalogChannel>,
    digitized: Vec<DigitalChannel>,
    /// Edges of the measured waveforms so far (against the budget).
    measured: u64,
}

impl Waves<'_> {
    /// Version 0 analog: one waveform.
    fn analog_v0<R: Read>(&mut self, d: &mut Rd<'_, R>) -> Result<Span> {
        let begin = d.f64("begin_time")?;
        let sr = d.u64("sample_rate")?;
        let ds = d.u64("downsample")?.max(1);
        let n = d.u64("num_samples")?;
        let eff = sr / ds;
        if eff == 0 {
            return Err(d.err("sample_rate / downsample is 0"));
        }
        let b0 = d.time(begin, None, "begin_time")?;
        let interval = interval_of(eff).map_err(|m| d.err(m.to_string()))?;
        let end_t = span_end(b0, interval, n).map_err(|m| d.err(m.to_string()))?;
        let sink = Sink::new(
            self.name,
            self.opts,
            b0,
            interval,
            self.budget.saturating_sub(self.measured),
        )
        .map_err(|p| d.err(p.message(self.name)))?;
        match sink.fill(d, n, b0, interval)? {
            Filled::Values(ch) | Filled::Listed(ch) => self.analog.push(ch),
            Filled::Edges(ch, listed) => {
                self.digitized.push(ch);
                self.analog.push(listed)
            }
        }
        Ok(Span {
            start: b0,
            end: end_t,
            rate: Some(eff),
        })
    }

    /// Version 1 analog: waveforms, each with its times, rate and samples.
    fn analog_v1<R: Read>(&mut self, d: &mut Rd<'_, R>) -> Result<Span> {
        let waves = d.u64("waveform_count")?;
        let mut s0 = None;
        let mut e0 = 0i64;
        let mut r0 = None;
        for w in 0..waves {
            let begin = d.f64("begin_time")?;
            let _trigger = d.f64("trigger_time")?;
            let sr = rate_of(d.f64("sample_rate")?)
                .ok_or_else(|| d.err(format!("waveform {w}: bad sample_rate")))?;
            let ds = d.u64("downsample")?.max(1);
            let n = d.u64("num_samples")?;
            let eff = (sr / ds).max(1);
            let b0 = d.time(begin, None, "begin_time")?;
            let interval = interval_of(eff).map_err(|m| d.err(format!("waveform {w}: {m}")))?;
            let end_t =
                span_end(b0, interval, n).map_err(|m| d.err(format!("waveform {w}: {m}")))?;
            s0.get_or_insert(b0);
            r0.get_or_insert(eff);
            e0 = e0.max(end_t);
            let nm = if waves > 1 {
                format!("{}.{w}", self.name)
            } else {
                self.name.to_string()
            };
            let sink = Sink::new(
                &nm,
                self.opts,
                b0,
                interval,
                self.budget.saturating_sub(self.measured),
            )
            .map_err(|p| d.err(p.message(&nm)))?;
            match sink.fill(d, n, b0, interval)? {
                Filled::Values(ch) | Filled::Listed(ch) => self.analog.push(ch),
                Filled::Edges(ch, listed) => {
                    self.measured += ch.edges.len() as u64;
                    self.digitized.push(ch);
                    self.analog.push(listed)
                }
            }
        }
        let start = s0.unwrap_or(0);
        Ok(Span {
            start,
            end: e0.max(start),
            rate: r0,
        })
    }
}

/// Why a waveform's sample times do not fit a capture.
#[derive(Debug, thiserror::Error)]
enum SampleSpan {
    #[error("effective sample rate {0} Hz is above 1 THz: sample times would not increase")]
    TooFast(u64),
    #[error("{0} samples at this rate span more than a capture may (53 days)")]
    TooLong(u64),
}

/// Picoseconds between analog samples at `eff` samples per second: at least 1 (a faster
/// rate would put two samples at one time).
fn interval_of(eff: u64) -> std::result::Result<i64, SampleSpan> {
    match PS_PER_S / eff.max(1) as i64 {
        0 => Err(SampleSpan::TooFast(eff)),
        i => Ok(i),
    }
}

/// The end of `n` samples from `begin`, within the ±2^62 ps a capture may span.
fn span_end(begin: i64, interval: i64, n: u64) -> std::result::Result<i64, SampleSpan> {
    i64::try_from(n)
        .ok()
        .and_then(|n| interval.checked_mul(n))
        .and_then(|d| begin.checked_add(d))
        .filter(|e| e.unsigned_abs() <= 1 << 62)
        .ok_or(SampleSpan::TooLong(n))
}

/// The digital channels of a Saleae binary file, from its header: a digital file has one,
/// named `stem`; an analog file has none (its waveforms are analog channels, measured by
/// name through a threshold).
pub fn channel_names<R: Read>(r: R, file: &str, stem: &str) -> Result<Vec<String>> {
    let mut d = Rd { r, pos: 0, file };
    if &d.bytes::<8>("the identifier")? != b"<SALEAE>" {
        return Err(Error::format(
            file,
            Place::Byte(0),
            "not a Saleae binary export (no \"<SALEAE>\" identifier)",
        ));
    }
    let _version = d.i32("the version")?;
    Ok(match d.i32("the type")? {
        0 => vec![stem.to_string()],
        _ => vec![],
    })
}

/// Where the samples of one analog waveform go.
enum Sink {
    /// Kept as an analog channel (no selection: a conversion, an export).
    Keep(String),
    /// Thresholded while read (named in `only_channels`).
    Measure(AnalogInput),
    /// Read past (a selection that does not name it).
    Skip(String),
}

/// What [`Sink::fill`] made of a waveform.
enum Filled {
    /// Its samples, kept.
    Values(AnalogChannel),
    /// Its edges, and the channel listed without samples.
    Edges(DigitalChannel, AnalogChannel),
    /// Listed without samples.
    Listed(AnalogChannel),
}

impl Sink {
    fn new(
        name: &str,
        opts: &super::Options,
        start: i64,
        interval: i64,
        edges_left: u64,
    ) -> std::result::Result<Sink, Problem> {
        let Some(only) = opts.only_channels.as_deref() else {
            return Ok(Sink::Keep(name.to_string()));
        };
        if !only.iter().any(|o| o == name) {
            return Ok(Sink::Skip(name.to_string()));
        }
        AnalogInput::new(
            name,
            opts.threshold,
            opts.hysteresis,
            Times::Uniform { start, interval },
            edges_left,
        )
        .map(Sink::Measure)
    }

    /// Reads the waveform's `n` float32 samples into the sink.
    fn fill<R: Read>(self, d: &mut Rd<'_, R>, n: u64, start: i64, interval: i64) -> Result<Filled> {
        let limit = match &self {
            Sink::Keep(_) => Some((
                super::limits::MAX_ANALOG_SAMPLES,
                "one import may keep whole (convert, --perfetto and --list keep every sample; \
                 a measurement such as --pulse without --perfetto keeps only edges)",
            )),
            Sink::Measure(a) if a.spools() => Some((
                MAX_SPOOLED_SAMPLES,
                "the default threshold may spool (give --threshold and --hysteresis to \
                 measure it without spooling)",
            )),
            _ => None,
        };
        if let Some((cap, why)) = limit {
            if n > cap {
                return Err(d.err(format!("{n} analog samples: more than the {cap} {why}")));
            }
        }
        let listed = |name: String| AnalogChannel {
            name,
            start: Picos(start),
            interval: Picos(interval),
            values: Vec::new(),
        };
        Ok(match self {
            Sink::Keep(name) => {
                let mut values = Vec::with_capacity(n.min(1 << 24) as usize);
                read_samples(d, n, &name, |v| {
                    values.push(v);
                    Ok(())
                })?;
                Filled::Values(AnalogChannel {
                    name,
                    start: Picos(start),
                    interval: Picos(interval),
                    values,
                })
            }
            Sink::Measure(mut a) => {
                let name = a.name().to_string();
                read_samples(d, n, &name, |v| a.push(0, v))?;
                // the budget it was made with
                let ch = a.finish(u64::MAX).map_err(|p| d.err(p.message(&name)))?;
                Filled::Edges(ch, listed(name))
            }
            Sink::Skip(name) => {
                read_samples(d, n, &name, |_| Ok(()))?;
                Filled::Listed(listed(name))
            }
        })
    }
}

/// Reads `n` float32 samples, handing each to `each` (whose error message is reported
/// at the sample's byte offset).
fn read_samples<R: Read>(
    d: &mut Rd<'_, R>,
    n: u64,
    channel: &str,
    mut each: impl FnMut(f32) -> std::result::Result<(), Problem>,
) -> Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    let mut left = n
        .checked_mul(4)
        .ok_or_else(|| d.err("sample count overflows"))?;
    let mut done: u64 = 0;
    while left > 0 {
        let want = (left as usize).min(buf.len());
        let mut got = 0;
        while got < want {
            match d.r.read(&mut buf[got..want]) {
                Ok(0) => {
                    return Err(d.err(format!(
                        "truncated: {} of {n} samples present",
                        done + got as u64 / 4
                    )))
                }
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(d.file, e)),
            }
        }
        for (j, c) in buf[..want].chunks_exact(4).enumerate() {
            each(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).map_err(|p| {
                Error::format(
                    d.file,
                    Place::Byte(d.pos + 4 * j as u64),
                    p.message(channel),
                )
            })?;
        }
        done += want as u64 / 4;
        d.pos += want as u64;
        left -= want as u64;
    }
    Ok(())
}

/// Writers used by tests and by the fixture generator: Saleae's documented layouts.
pub mod write {
    /// v0 digital file.
    pub fn digital_v0(initial: bool, begin: f64, end: f64, times: &[f64]) -> Vec<u8> {
        let mut v = b"<SALEAE>".to_vec();
        v.extend(0i32.to_le_bytes());
        v.extend(0i32.to_le_bytes());
        v.extend((initial as u32).to_le_bytes());
        v.extend(begin.to_le_bytes());
        v.extend(end.to_le_bytes());
        v.extend((times.len() as u64).to_le_bytes());
        for t in times {
            v.extend(t.to_le_bytes());
        }
        v
    }
    /// v1 digital file; each chunk is (initial, sample_rate, begin, end, times).
    pub fn digital_v1(chunks: &[(bool, f64, f64, f64, Vec<f64>)]) -> Vec<u8> {
        let mut v = b"<SALEAE>".to_vec();
        v.extend(1i32.to_le_bytes());
        v.extend(0i32.to_le_bytes());
        v.extend((chunks.len() as u64).to_le_bytes());
        for (init, sr, b, e, ts) in chunks {
            v.extend((*init as u32).to_le_bytes());
            v.extend(sr.to_le_bytes());
            v.extend(b.to_le_bytes());
            v.extend(e.to_le_bytes());
            v.extend((ts.len() as u64).to_le_bytes());
            for t in ts {
                v.extend(t.to_le_bytes());
            }
        }
        v
    }
    /// v0 analog file.
    pub fn analog_v0(begin: f64, sample_rate: u64, downsample: u64, volts: &[f32]) -> Vec<u8> {
        let mut v = b"<SALEAE>".to_vec();
        v.extend(0i32.to_le_bytes());
        v.extend(1i32.to_le_bytes());
        v.extend(begin.to_le_bytes());
        v.extend(sample_rate.to_le_bytes());
        v.extend(downsample.to_le_bytes());
        v.extend((volts.len() as u64).to_le_bytes());
        for x in volts {
            v.extend(x.to_le_bytes());
        }
        v
    }
    /// v1 analog file with one waveform.
    pub fn analog_v1(
        begin: f64,
        trigger: f64,
        sample_rate: f64,
        downsample: u64,
        volts: &[f32],
    ) -> Vec<u8> {
        let mut v = b"<SALEAE>".to_vec();
        v.extend(1i32.to_le_bytes());
        v.extend(1i32.to_le_bytes());
        v.extend(1u64.to_le_bytes());
        v.extend(begin.to_le_bytes());
        v.extend(trigger.to_le_bytes());
        v.extend(sample_rate.to_le_bytes());
        v.extend(downsample.to_le_bytes());
        v.extend((volts.len() as u64).to_le_bytes());
        for x in volts {
            v.extend(x.to_le_bytes());
        }
        v
    }
}
