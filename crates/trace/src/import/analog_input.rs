//! An analog channel measured while it is read, in memory that grows with its edges only.
//!
//! Importers feed the samples of each analog channel a measurement names (a sigrok
//! `analog-1-N-k` stream, a Saleae analog binary, an oscilloscope CSV column) to an
//! [`AnalogInput`] instead of keeping them. With `--threshold` and `--hysteresis` both
//! given, each sample goes straight through the [`Digitizer`](super::threshold::Digitizer).
//! Otherwise the default levels need percentiles of every sample first, so the samples
//! are written to an anonymous temporary file (in `$TMPDIR`, deleted on close: 4 bytes a
//! sample, 12 when the times are not uniform) while their high key bits are counted, and
//! are read back twice: once to pin the exact 5th and 95th percentiles, once to digitize.
//! The edges are the same as a digitization of the whole trace held in memory.

use super::threshold::{choose, p5_p95, Digitizer, OverBudget, LEVEL_PERCENTILES};
use latscope_core::capture::DigitalChannel;
use latscope_core::stats::radix::F32Ranks;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

/// Most bytes one analog channel may spool to its temporary file: 2 GiB (512 Mi samples of
/// a uniformly sampled channel, 178 Mi with explicit times). A larger trace is measured
/// with `--threshold` and `--hysteresis` given (no spool at all).
pub const MAX_SPOOL_BYTES: u64 = 2 << 30;

/// Most samples of a uniformly sampled channel in [`MAX_SPOOL_BYTES`] (importers check
/// what an entry declares against it before reading).
pub const MAX_SPOOLED_SAMPLES: u64 = MAX_SPOOL_BYTES / 4;

/// How the sample times are known.
#[derive(Clone, Copy, Debug)]
pub enum Times {
    /// Sample `i` is at `start + i × interval`: only the values are spooled.
    Uniform { start: i64, interval: i64 },
    /// Each sample comes with its time.
    Explicit,
}

/// Why an analog channel could not be measured.
#[derive(Debug)]
pub enum Problem {
    /// More edges than the import's budget.
    OverBudget(u64),
    /// More samples than [`MAX_SPOOL_BYTES`] hold.
    TooManySamples,
    /// The temporary file failed.
    Io(std::io::Error),
}

impl Problem {
    /// The message for an error (the caller adds the file and the place).
    pub fn message(&self, channel: &str) -> String {
        match self {
            Problem::OverBudget(n) => format!(
                "analog channel '{channel}': more than {n} edges: more than one import may keep \
                 (--max-edges raises the limit)"
            ),
            Problem::TooManySamples => format!(
                "analog channel '{channel}': more than {MAX_SPOOL_BYTES} bytes of samples to spool for \
                 the default threshold (give --threshold and --hysteresis to measure it without \
                 spooling)"
            ),
            Problem::Io(e) => {
                format!("analog channel '{channel}': temporary file for the default threshold: {e}")
            }
        }
    }
}

impl From<std::io::Error> for Problem {
    fn from(e: std::io::Error) -> Problem {
        Problem::Io(e)
    }
}

enum State {
    Direct(Digitizer),
    Spool { w: BufWriter<File>, ranks: F32Ranks },
}

/// One analog channel being thresholded as it is read.
pub struct AnalogInput {
    name: String,
    threshold: Option<f64>,
    hysteresis: Option<f64>,
    max_edges: u64,
    times: Times,
    n: u64,
    state: State,
    /// [`MAX_SPOOL_BYTES`] (lowered in tests).
    spool_cap: u64,
}

impl AnalogInput {
    /// `threshold` / `hysteresis` in volts (None: from the trace's levels); at most
    /// `max_edges` edges.
    pub fn new(
        name: &str,
        threshold: Option<f64>,
        hysteresis: Option<f64>,
        times: Times,
        max_edges: u64,
    ) -> Result<AnalogInput, Problem> {
        let state = match (threshold, hysteresis) {
            (Some(_), Some(_)) => {
                let (th, h) = choose(None, threshold, hysteresis);
                State::Direct(Digitizer::new(th, h, max_edges))
            }
            _ => State::Spool {
                w: BufWriter::with_capacity(1 << 20, tempfile::tempfile()?),
                ranks: F32Ranks::new(),
            },
        };
        Ok(AnalogInput {
            name: name.to_string(),
            threshold,
            hysteresis,
            max_edges,
            times,
            n: 0,
            state,
            spool_cap: MAX_SPOOL_BYTES,
        })
    }

    /// The channel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True when the samples go to a temporary file (the threshold or the band is not
    /// given).
    pub fn spools(&self) -> bool {
        matches!(self.state, State::Spool { .. })
    }

    /// Samples fed so far.
    pub fn samples(&self) -> u64 {
        self.n
    }

    /// Feeds the next sample (`t` is ignored for [`Times::Uniform`]).
    #[inline]
    pub fn push(&mut self, t: i64, v: f32) -> Result<(), Problem> {
        let i = self.n;
        self.n += 1;
        match &mut self.state {
            State::Direct(d) => d
                .push(self.times.at(i, t), v)
                .map_err(|OverBudget| Problem::OverBudget(self.max_edges)),
            State::Spool { w, ranks } => {
                if self.n.saturating_mul(self.times.record_bytes()) > self.spool_cap {
                    return Err(Problem::TooManySamples);
                }
                ranks.add(v);
                if let Times::Explicit = self.times {
                    w.write_all(&t.to_le_bytes())?;
                }
                w.write_all(&v.to_le_bytes())?;
                Ok(())
            }
        }
    }

    /// The digitized channel (reading the spool back twice when there is one), with at
    /// most `max_edges` edges (the import's budget left after the channels before it).
    pub fn finish(self, max_edges: u64) -> Result<DigitalChannel, Problem> {
        let AnalogInput {
            name,
            threshold,
            hysteresis,
            times,
            n,
            state,
            max_edges: own,
            ..
        } = self;
        let max_edges = max_edges.min(own);
        match state {
            State::Direct(d) if d.edges() as u64 > max_edges => Err(Problem::OverBudget(max_edges)),
            State::Direct(d) => Ok(d.finish(&name)),
            State::Spool { w, ranks } => {
                let mut f = w.into_inner().map_err(|e| Problem::Io(e.into_error()))?;
                let mut refine = ranks.refine(&LEVEL_PERCENTILES);
                replay(&mut f, times, n, |_, v| {
                    refine.add(v);
                    Ok(())
                })?;
                let (th, h) = choose(p5_p95(&refine), threshold, hysteresis);
                let mut d = Digitizer::new(th, h, max_edges);
                replay(&mut f, times, n, |t, v| {
                    d.push(t, v)
                        .map_err(|OverBudget| Problem::OverBudget(max_edges))
                })?;
                Ok(d.finish(&name))
            }
        }
    }
}

impl Times {
    /// Bytes a spooled sample takes.
    fn record_bytes(self) -> u64 {
        match self {
            Times::Uniform { .. } => 4,
            Times::Explicit => 12,
        }
    }
    #[inline]
    fn at(self, i: u64, t: i64) -> i64 {
        match self {
            Times::Uniform { start, interval } => {
                start.saturating_add((i as i64).saturating_mul(interval))
            }
            Times::Explicit => t,
        }
    }
}

/// Reads the `n` spooled samples back from the start, in order.
fn replay(
    f: &mut File,
    times: Times,
    n: u64,
    mut each: impl FnMut(i64, f32) -> Result<(), Problem>,
) -> Result<(), Problem> {
    f.seek(SeekFrom::Start(0))?;
    let mut r = BufReader::with_capacity(1 << 20, &mut *f);
    let rec = times.record_bytes() as usize;
    let mut buf = vec![0u8; rec * 8192];
    let mut i = 0u64;
    while i < n {
        let k = ((n - i) as usize).min(8192);
        r.read_exact(&mut buf[..k * rec])?;
        for c in buf[..k * rec].chunks_exact(rec) {
            let (t, v) = match times {
                Times::Explicit => (
                    i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
                    f32::from_le_bytes([c[8], c[9], c[10], c[11]]),
                ),
                Times::Uniform { .. } => {
                    (times.at(i, 0), f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                }
            };
            each(t, v)?;
            i += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::threshold::{digitize, digitize_uniform, levels};

    /// A noisy square wave with slow edges, deterministic.
    fn trace(n: usize) -> Vec<f32> {
        let mut x: u32 = 12345;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let noise = (x % 1000) as f32 * 4e-4 - 0.2;
                let phase = i % 200;
                let base = match phase {
                    0..=4 => phase as f32 * 0.66,
                    5..=99 => 3.3,
                    100..=104 => 3.3 - (phase - 100) as f32 * 0.66,
                    _ => 0.0,
                };
                base + noise
            })
            .collect()
    }

    #[test]
    fn spooled_default_levels_give_the_in_memory_edges() {
        let v = trace(20_000);
        let (th, h) = levels(&v, None, None);
        let want = digitize_uniform("A0", 5, 1000, &v, th, h);
        assert!(want.edges.len() > 150, "{}", want.edges.len());
        let mut a = AnalogInput::new(
            "A0",
            None,
            None,
            Times::Uniform {
                start: 5,
                interval: 1000,
            },
            u64::MAX,
        )
        .unwrap();
        for &x in &v {
            a.push(0, x).unwrap();
        }
        assert_eq!(a.finish(u64::MAX).unwrap(), want);
    }

    #[test]
    fn explicit_times_and_a_given_threshold() {
        let v = trace(5_000);
        // uneven times
        let t: Vec<i64> = (0..v.len() as i64)
            .map(|i| i * 1000 + (i % 7) * 13)
            .collect();
        for (th, h) in [
            (Some(1.0), None),
            (Some(1.0), Some(0.2)),
            (None, Some(0.05)),
        ] {
            let want = digitize("c", &t, &v, th, h);
            let mut a = AnalogInput::new("c", th, h, Times::Explicit, u64::MAX).unwrap();
            for (&ti, &x) in t.iter().zip(&v) {
                a.push(ti, x).unwrap();
            }
            assert_eq!(a.finish(u64::MAX).unwrap(), want, "{th:?} {h:?}");
        }
    }

    #[test]
    fn the_edge_budget_holds_with_and_without_spool() {
        let v = trace(10_000);
        for given in [None, Some(0.1)] {
            let mut a = AnalogInput::new("a", given, given, Times::Explicit, 10).unwrap();
            let mut res = Ok(());
            for (i, &x) in v.iter().enumerate() {
                res = a.push(i as i64, x);
                if res.is_err() {
                    break;
                }
            }
            let res = res.and_then(|_| a.finish(u64::MAX).map(|_| ()));
            assert!(matches!(res, Err(Problem::OverBudget(10))), "{given:?}");
        }
    }

    #[test]
    fn the_spool_is_capped_in_bytes() {
        // 12 bytes a sample with explicit times, 4 when uniform: a 40-byte cap holds 3
        // and 10 of them
        for (times, fits) in [
            (Times::Explicit, 3u64),
            (
                Times::Uniform {
                    start: 0,
                    interval: 1,
                },
                10,
            ),
        ] {
            let mut a = AnalogInput::new("a", None, None, times, u64::MAX).unwrap();
            a.spool_cap = 40;
            for i in 0..fits {
                a.push(i as i64, 0.5).unwrap();
            }
            assert!(matches!(a.push(99, 0.5), Err(Problem::TooManySamples)));
        }
        // given levels spool nothing, so nothing caps them
        let mut a = AnalogInput::new("a", Some(1.0), Some(0.1), Times::Explicit, u64::MAX).unwrap();
        a.spool_cap = 40;
        for i in 0..100 {
            a.push(i, 0.5).unwrap();
        }
    }
}
