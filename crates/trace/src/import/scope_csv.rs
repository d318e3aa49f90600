//! Oscilloscope CSV: time (or sample index) and one or more voltage columns, converted
//! to digital channels with a threshold and hysteresis; crossing times are
//! interpolated linearly between the samples around the threshold.
//!
//! Header styles recognised (any preamble lines are skipped):
//! * generic / Keysight / Siglent / R&S: `Time,CH1,…`, `x-axis,1` + `second,Volt`,
//!   `in s,C1 in V`, `Second,Volt`;
//! * Rigol: `X,CH1,Start,Increment,` then `Sequence,Volt,<start>,<increment>,`, then
//!   rows of `index,volts`: time = start + index × increment;
//! * Tektronix: every row `label,value,unit,time,volts` (the preamble sits in the first
//!   three columns);
//! * LeCroy: preamble lines, then `Time,Ampl`.
//!
//! The preamble and the first rows are read ahead (until [`STABLE_ROWS`] rows in a row
//! have the same numeric columns; bounded by [`MAX_HEAD_LINES`] and [`MAX_HEAD_BYTES`]);
//! the column layout is taken from the last line read ahead, and data rows are the lines
//! from the first one whose time and voltage columns parse as numbers. The rows are read
//! with the `csv` crate (RFC 4180 quoting, one reused record); errors name the line and
//! the column. The threshold is given or the
//! midpoint of the 5th and 95th percentile levels; the hysteresis band is given or
//! 10 % of that span. The voltages are also kept as analog channels when uniformly
//! spaced.

use super::text::{
    csv_reader, header_unit_exp, line_fields, parse_scaled, sniff_sep, spaced_after_sep, unquote,
};
use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::Picos;
use std::io::{BufRead, Read};

/// True for headers of the common scope vendors.
pub fn sniff(lines: &[&str]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let l = first.to_ascii_lowercase();
    l.starts_with("record length")
        || l.starts_with("x,ch")
        || l.starts_with("x-axis")
        || l.starts_with("lecroy")
        || l.starts_with("in s,")
        || l.starts_with("second,volt")
        || lines
            .iter()
            .any(|x| x.to_ascii_lowercase().starts_with("sequence,volt"))
}

fn num(s: &str) -> Option<f64> {
    let v: f64 = s.trim().parse().ok()?;
    v.is_finite().then_some(v)
}

/// [`num`] on a raw field (trimmed, outer quotes dropped).
fn num_bytes(v: &[u8]) -> Option<f64> {
    std::str::from_utf8(unquote(v)).ok().and_then(num)
}

/// Most rows of an oscilloscope CSV (kept whole, as thresholds come from its levels).
pub const MAX_ROWS: usize = 10_000_000;

/// Most lines read ahead to find the column layout (vendor preamble and the first data
/// rows): the layout is settled once [`STABLE_ROWS`] rows in a row have the same numeric
/// columns, or at this many lines.
pub const MAX_HEAD_LINES: usize = 4096;

/// Most bytes read ahead for the layout (see [`MAX_HEAD_LINES`]): 4 MiB.
pub const MAX_HEAD_BYTES: usize = 4 << 20;

/// Consecutive rows with the same numeric columns that settle the layout.
pub const STABLE_ROWS: usize = 32;

/// One non-blank line of the read-ahead: its line number, its byte offset in the
/// read-ahead and its fields.
struct HeadLine {
    ln: u64,
    off: usize,
    fields: Vec<String>,
}

/// Indices of the fields that parse as finite numbers.
fn numeric_cols(f: &[String]) -> Vec<usize> {
    (0..f.len()).filter(|&i| num(&f[i]).is_some()).collect()
}

/// Reads an oscilloscope CSV. The preamble and the first rows are read ahead (at most
/// [`MAX_HEAD_LINES`] lines, [`MAX_HEAD_BYTES`] bytes) to find the separator and the time
/// and voltage columns; every row is then read with the `csv` crate (RFC 4180 quoting,
/// one reused record), the read-ahead chained back in front of the stream, so a pipe
/// gives the figures of the file.
pub fn read<R: BufRead>(mut r: R, file: &str, opts: &Options) -> Result<Capture> {
    let ferr = |ln: u64, msg: String| Error::format(file, Place::Line(ln), msg);
    // read-ahead: raw bytes of every line (the BOM dropped), and the non-blank ones
    let mut raw: Vec<u8> = Vec::new();
    let mut lines: Vec<HeadLine> = Vec::new();
    let mut ln: u64 = 0;
    let mut run = 0usize;
    let mut run_cols: Vec<usize> = Vec::new();
    let mut line = Vec::new();
    loop {
        if lines.len() >= MAX_HEAD_LINES || raw.len() >= MAX_HEAD_BYTES {
            break;
        }
        line.clear();
        let n = r
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(file, e))?;
        if n == 0 {
            break;
        }
        ln += 1;
        let mut body: &[u8] = &line;
        if ln == 1 {
            body = body.strip_prefix("\u{feff}".as_bytes()).unwrap_or(body);
        }
        let text = std::str::from_utf8(body).map_err(|_| ferr(ln, "not UTF-8 text".into()))?;
        let off = raw.len();
        raw.extend_from_slice(body);
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        let fields = line_fields(t, sniff_sep(t));
        let cols = numeric_cols(&fields);
        if cols.len() >= 2 && cols == run_cols {
            run += 1;
        } else {
            run = 1;
            run_cols = cols;
        }
        lines.push(HeadLine { ln, off, fields });
        if run >= STABLE_ROWS && run_cols.len() >= 2 {
            break;
        }
    }
    let Some(last) = lines.last() else {
        return Err(Error::format(file, Place::File, "the file is empty"));
    };
    // the layout: separator and numeric columns of the last line read ahead
    let last_text = std::str::from_utf8(&raw[last.off..])
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    let sep = sniff_sep(last_text) as u32 as u8;
    let spaced = spaced_after_sep(last_text.as_bytes(), sep);
    // the head lines again, split with the layout's separator
    for h in lines.iter_mut() {
        let end = raw[h.off..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(raw.len(), |p| h.off + p);
        h.fields = line_fields(&String::from_utf8_lossy(&raw[h.off..end]), sep as char);
    }
    let last = lines.last().map_or(0, |l| l.ln);
    let cols = numeric_cols(&lines[lines.len() - 1].fields);
    if cols.len() < 2 {
        return Err(ferr(
            last,
            "no time and voltage columns found (the row has fewer than two numbers)".into(),
        ));
    }
    if cols.len() - 1 > super::limits::MAX_CHANNELS {
        return Err(ferr(
            last,
            format!(
                "{} voltage columns: more than {} are refused",
                cols.len() - 1,
                super::limits::MAX_CHANNELS
            ),
        ));
    }
    let tcol = cols[0];
    let vcols = &cols[1..];
    let maxcol = *cols.last().unwrap_or(&0);
    // Rigol start/increment and header names
    let mut rigol: Option<(f64, f64)> = None;
    let mut names: Vec<String> = vcols
        .iter()
        .enumerate()
        .map(|(k, _)| format!("CH{}", k + 1))
        .collect();
    let mut exp = 12;
    let mut first_data = None;
    for (idx, h) in lines.iter().enumerate() {
        let f = &h.fields;
        let is_data = f.len() > maxcol && cols.iter().all(|&c| num(&f[c]).is_some());
        if is_data {
            first_data = Some(idx);
            break;
        }
        let lower: Vec<String> = f.iter().map(|x| x.to_ascii_lowercase()).collect();
        if let (Some(si), Some(ii)) = (
            lower.iter().position(|x| x == "start"),
            lower.iter().position(|x| x == "increment"),
        ) {
            // next line carries the values
            if let Some(g) = lines.get(idx + 1).map(|l| &l.fields) {
                if let (Some(s), Some(i)) = (
                    g.get(si).and_then(|x| num(x)),
                    g.get(ii).and_then(|x| num(x)),
                ) {
                    rigol = Some((s, i));
                }
            }
        }
        if f.len() > tcol && vcols.iter().all(|&c| c < f.len()) && !f[tcol].is_empty() {
            if let Some(e) = header_unit_exp(&f[tcol]) {
                exp = e;
            }
            let cand: Vec<&str> = vcols.iter().map(|&c| f[c].as_str()).collect();
            let looks_units = cand.iter().all(|c| {
                let c = c.to_ascii_lowercase();
                c == "volt" || c == "v" || c == "(v)" || c.is_empty()
            });
            if !looks_units && !lower[tcol].starts_with("record") {
                names = cand
                    .iter()
                    .enumerate()
                    .map(|(k, c)| {
                        let c = c.strip_suffix(" in V").unwrap_or(c);
                        if c.is_empty() {
                            format!("CH{}", k + 1)
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
            }
        }
    }
    let Some(fd) = first_data else {
        return Err(Error::format(file, Place::File, "no data rows"));
    };
    // the rows, from the first data row on: the read-ahead chained back in front of the
    // rest of the stream, and a line break after the end so every record ends with one
    let base = lines[fd].ln;
    let off = lines[fd].off;
    drop(lines);
    raw.drain(..off);
    let mut rdr = csv_reader(
        std::io::Cursor::new(raw).chain(r).chain(&b"\n"[..]),
        sep,
        spaced,
    );
    let mut rec = ::csv::ByteRecord::new();
    let csv_err = |e: ::csv::Error| {
        let at = e.position().map_or(base, |p| base - 1 + p.line());
        match e.into_kind() {
            ::csv::ErrorKind::Io(io) => Error::io(file, io),
            k => ferr(at, format!("{k:?}")),
        }
    };
    let max_rows = MAX_ROWS.min(
        (super::limits::MAX_ANALOG_SAMPLES / vcols.len().max(1) as u64)
            .try_into()
            .unwrap_or(usize::MAX),
    );
    let mut times: Vec<i64> = Vec::new();
    let mut volts: Vec<Vec<f32>> = vec![Vec::new(); vcols.len()];
    while rdr.read_byte_record(&mut rec).map_err(csv_err)? {
        // the line the record ends on: the reader stands at the start of the next one
        let ln = (base + rdr.position().line()).saturating_sub(2);
        if rec.len() == 1 && rec[0].trim_ascii().is_empty() {
            continue; // a line of spaces
        }
        if rec.len() <= maxcol {
            return Err(ferr(
                ln,
                format!(
                    "column {}: missing ({} fields, the data rows have {})",
                    rec.len() + 1,
                    rec.len(),
                    maxcol + 1
                ),
            ));
        }
        if times.len() >= max_rows {
            return Err(ferr(
                ln,
                format!(
                    "more than {max_rows} rows: an oscilloscope CSV is kept whole ({} voltage \
                     columns), and this one is larger than one import may hold (export fewer \
                     points)",
                    vcols.len()
                ),
            ));
        }
        let field = |c: usize| -> Result<&str> {
            std::str::from_utf8(unquote(&rec[c]))
                .map_err(|_| ferr(ln, format!("column {}: not UTF-8 text", c + 1)))
        };
        let v = field(tcol)?;
        let t = match rigol {
            Some((s, inc)) => {
                let i = num(v).ok_or_else(|| {
                    ferr(ln, format!("column {}: bad sample index '{v}'", tcol + 1))
                })?;
                let secs = s + i * inc;
                (secs * 1e12).round() as i64
            }
            None => parse_scaled(v, exp)
                .ok_or_else(|| ferr(ln, format!("column {}: bad time '{v}'", tcol + 1)))?,
        };
        if t.unsigned_abs() > 1 << 62 {
            return Err(ferr(
                ln,
                format!(
                    "column {}: time '{v}' out of range (beyond ±53 days)",
                    tcol + 1
                ),
            ));
        }
        if let Some(&p) = times.last() {
            if t <= p {
                return Err(ferr(
                    ln,
                    format!("column {}: time '{v}' does not increase", tcol + 1),
                ));
            }
        }
        times.push(t);
        for (k, &c) in vcols.iter().enumerate() {
            let x = num_bytes(&rec[c]).ok_or_else(|| {
                ferr(
                    ln,
                    format!(
                        "column {} ('{}'): bad voltage '{}'",
                        c + 1,
                        names[k],
                        String::from_utf8_lossy(unquote(&rec[c]))
                    ),
                )
            })?;
            volts[k].push(x as f32);
        }
    }
    if times.is_empty() {
        return Err(Error::format(file, Place::File, "no data rows"));
    }
    let start = times[0];
    let end = *times.last().unwrap_or(&start);
    let uniform = times.len() >= 2 && {
        let iv = times[1] - times[0];
        times
            .windows(2)
            .all(|w| (w[1] - w[0] - iv).abs() <= iv / 1000 + 1)
    };
    let interval = if times.len() >= 2 {
        (end - start) / (times.len() as i64 - 1)
    } else {
        0
    };
    let mut channels = Vec::new();
    let mut analog = Vec::new();
    for (k, v) in volts.into_iter().enumerate() {
        channels.push(digitize(
            &names[k],
            &times,
            &v,
            opts.threshold,
            opts.hysteresis,
        ));
        if uniform && interval > 0 {
            analog.push(AnalogChannel {
                name: names[k].clone(),
                start: Picos(start),
                interval: Picos(interval),
                values: v,
            });
        }
    }
    let rate = if uniform && interval > 0 {
        Some((1e12 / interval as f64).round() as u64)
    } else {
        None
    };
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: rate,
        start: Picos(start),
        end: Picos(end),
        channels,
        analog,
    };
    cap.validate()?;
    Ok(cap)
}

/// Threshold and hysteresis (total band width) for a voltage trace.
pub fn levels(v: &[f32], threshold: Option<f64>, hysteresis: Option<f64>) -> (f64, f64) {
    let mut s: Vec<f32> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(|a, b| a.total_cmp(b));
    let pick = |p: f64| -> f64 {
        if s.is_empty() {
            0.0
        } else {
            s[latscope_core::stats::rank_index(p, s.len() as u64) as usize] as f64
        }
    };
    let (lo, hi) = (pick(5.0), pick(95.0));
    let th = threshold.unwrap_or((lo + hi) / 2.0);
    let h = hysteresis.unwrap_or((hi - lo) * 0.1).max(0.0);
    (th, h)
}

/// Converts a sampled voltage to edges: high above th + h/2, low below th − h/2; each
/// edge time is interpolated where the trace last crossed `th` itself.
pub fn digitize(
    name: &str,
    t: &[i64],
    v: &[f32],
    threshold: Option<f64>,
    hysteresis: Option<f64>,
) -> DigitalChannel {
    let (th, h) = levels(v, threshold, hysteresis);
    digitize_at(name, |i| t[i], v, th, h)
}

/// [`digitize`] for a trace sampled at `start + i × interval` (no time array), with the
/// threshold and hysteresis already chosen (see [`levels`]).
pub fn digitize_uniform(
    name: &str,
    start: i64,
    interval: i64,
    v: &[f32],
    th: f64,
    h: f64,
) -> DigitalChannel {
    digitize_at(
        name,
        |i| start.saturating_add((i as i64).saturating_mul(interval)),
        v,
        th,
        h,
    )
}

fn digitize_at(name: &str, t: impl Fn(usize) -> i64, v: &[f32], th: f64, h: f64) -> DigitalChannel {
    let (hi, lo) = (th + h / 2.0, th - h / 2.0);
    let mut ch = DigitalChannel {
        name: name.to_string(),
        initial: v.first().map(|&x| x as f64 >= th).unwrap_or(false),
        edges: Vec::new(),
    };
    let mut level = ch.initial;
    // index of the last sample on the other side of th
    let mut last_other = 0usize;
    for i in 1..v.len() {
        let x = v[i] as f64;
        let prev = v[i - 1] as f64;
        if level {
            if prev >= th && x < th {
                last_other = i - 1;
            }
            if x < lo {
                let j = last_other.min(i - 1);
                let te =
                    cross(&t, v, j, th).max(ch.edges.last().map(|e| e.0 + 1).unwrap_or(i64::MIN));
                ch.edges.push(Picos(te.min(t(i))));
                level = false;
                last_other = i;
            }
        } else {
            if prev < th && x >= th {
                last_other = i - 1;
            }
            if x > hi {
                let j = last_other.min(i - 1);
                let te =
                    cross(&t, v, j, th).max(ch.edges.last().map(|e| e.0 + 1).unwrap_or(i64::MIN));
                ch.edges.push(Picos(te.min(t(i))));
                level = true;
                last_other = i;
            }
        }
    }
    ch
}

/// Time at which the segment j..j+1 crosses th (clamped to the segment).
fn cross(t: &impl Fn(usize) -> i64, v: &[f32], j: usize, th: f64) -> i64 {
    let (a, b) = (v[j] as f64, v[j + 1] as f64);
    let (tj, tk) = (t(j), t(j + 1));
    if (b - a).abs() < f64::EPSILON {
        return tk;
    }
    let f = ((th - a) / (b - a)).clamp(0.0, 1.0);
    tj + ((tk - tj) as f64 * f).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolated_crossings_with_hysteresis() {
        // 0 V low, 3.3 V high, 1 µs sampling; a slow rise over samples 10..12 and a noisy top
        let t: Vec<i64> = (0..40).map(|i| i * 1_000_000).collect();
        let mut v = vec![0.0f32; 40];
        v[10] = 1.0;
        v[11] = 2.3;
        for x in v.iter_mut().take(30).skip(12) {
            *x = 3.3;
        }
        v[20] = 1.7; // dip inside the hysteresis band: no edge
        let c = digitize("x", &t, &v, Some(1.65), Some(0.5));
        // rise crosses 1.65 V between samples 10 (1.0) and 11 (2.3): 10.5 µs
        assert_eq!(c.edges[0], Picos(10_500_000));
        // fall between 29 (3.3) and 30 (0): 29.5 µs
        assert_eq!(c.edges, vec![Picos(10_500_000), Picos(29_500_000)]);
        assert!(!c.initial);
    }
}
