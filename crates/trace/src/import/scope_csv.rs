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
//! the column. The threshold is given or the midpoint of the 5th and 95th percentile
//! levels; the hysteresis band is given or 10 % of that span ([`super::threshold`]).
//!
//! Read whole (no `only_channels`: `convert`, `--perfetto`), every column is kept and
//! digitized, and the voltages are also kept as analog channels when uniformly spaced.
//! Measured (`only_channels` names columns), only those columns are digitized, each while
//! it is read ([`super::analog_input`]): nothing per row is held, and the other columns
//! are listed without edges.

use super::analog_input::{AnalogInput, Times};
use super::text::{
    csv_reader, header_unit_exp, line_fields, parse_scaled, sniff_sep, spaced_after_sep, unquote,
};
pub use super::threshold::{digitize, digitize_uniform, levels};
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
    // Measured columns only (`only_channels`): each is thresholded as it is read, so
    // memory grows with its edges; the other columns are listed without edges. Otherwise
    // every column is kept (as an analog channel too, when uniformly spaced).
    let measure: Option<Vec<bool>> = opts.only_channels.as_deref().map(|only| {
        let n: Vec<&str> = names.iter().map(String::as_str).collect();
        super::builder::selected(Some(only), &n)
    });
    let mut inputs: Vec<Option<AnalogInput>> = Vec::new();
    if let Some(sel) = &measure {
        // one edge budget for the file: each column may use all of it while it is read,
        // and the columns are finished against what the ones before left
        let budget = opts.edge_budget();
        for (k, &on) in sel.iter().enumerate() {
            inputs.push(if on {
                let a = AnalogInput::new(
                    &names[k],
                    opts.threshold,
                    opts.hysteresis,
                    Times::Explicit,
                    budget,
                )
                .map_err(|p| Error::format(file, Place::File, p.message(&names[k])))?;
                Some(a)
            } else {
                None
            });
        }
    }
    let max_rows = MAX_ROWS.min(
        (super::limits::MAX_ANALOG_SAMPLES / vcols.len().max(1) as u64)
            .try_into()
            .unwrap_or(usize::MAX),
    );
    let mut times: Vec<i64> = Vec::new();
    let mut volts: Vec<Vec<f32>> = vec![Vec::new(); vcols.len()];
    let mut row: Vec<f32> = vec![0.0; vcols.len()];
    let mut rows: u64 = 0;
    let (mut first_t, mut last_t, mut first_iv) = (None::<i64>, 0i64, None::<i64>);
    let mut uniform = true;
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
        if measure.is_none() && times.len() >= max_rows {
            return Err(ferr(
                ln,
                format!(
                    "more than {max_rows} rows: an oscilloscope CSV converted or exported whole \
                     is kept in memory ({} voltage columns), and this one is larger than one \
                     import may hold (measure it with --pulse/--latency/... instead, which \
                     keeps only edges, or export fewer points)",
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
        if first_t.is_some() && t <= last_t {
            return Err(ferr(
                ln,
                format!("column {}: time '{v}' does not increase", tcol + 1),
            ));
        }
        // evenly spaced (within 0.1 % of the first interval): the sample rate is known
        if let Some(f) = first_t {
            let d = t - last_t;
            match first_iv {
                None => first_iv = Some(t - f),
                Some(iv) => uniform &= (d - iv).abs() <= iv / 1000 + 1,
            }
        } else {
            first_t = Some(t);
        }
        last_t = t;
        rows += 1;
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
            row[k] = x as f32;
        }
        if measure.is_some() {
            for (k, a) in inputs.iter_mut().enumerate() {
                if let Some(a) = a {
                    a.push(t, row[k])
                        .map_err(|p| ferr(ln, p.message(&names[k])))?;
                }
            }
        } else {
            times.push(t);
            for (k, &x) in row.iter().enumerate() {
                volts[k].push(x);
            }
        }
    }
    let Some(start) = first_t else {
        return Err(Error::format(file, Place::File, "no data rows"));
    };
    let end = last_t;
    let uniform = rows >= 2 && uniform;
    let interval = if rows >= 2 {
        (end - start) / (rows as i64 - 1)
    } else {
        0
    };
    let mut channels = Vec::new();
    let mut analog = Vec::new();
    if measure.is_some() {
        let mut kept: u64 = 0;
        for (k, a) in inputs.into_iter().enumerate() {
            let ch = match a {
                Some(a) => a
                    .finish(opts.edge_budget().saturating_sub(kept))
                    .map_err(|p| Error::format(file, Place::File, p.message(&names[k])))?,
                None => DigitalChannel {
                    name: names[k].clone(),
                    initial: false,
                    edges: Vec::new(),
                },
            };
            kept += ch.edges.len() as u64;
            if uniform && interval > 0 {
                // listed, without its samples
                analog.push(AnalogChannel {
                    name: names[k].clone(),
                    start: Picos(start),
                    interval: Picos(interval),
                    values: Vec::new(),
                });
            }
            if kept > opts.edge_budget() {
                return Err(Error::format(
                    file,
                    Place::File,
                    format!(
                        "more than {} edges: more than one import may keep (--max-edges raises \
                         the limit)",
                        opts.edge_budget()
                    ),
                ));
            }
            channels.push(ch);
        }
    } else {
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
