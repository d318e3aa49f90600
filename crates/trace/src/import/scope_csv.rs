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
    let (mut raw, mut lines) = read_ahead(&mut r, file)?;
    let lay = layout(file, &raw, &mut lines)?;
    let head = preamble(&lines, &lay);
    let Some(fd) = head.first_data else {
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
        lay.sep,
        lay.spaced,
    );
    let mut rec = ::csv::ByteRecord::new();
    let csv_err = |e: ::csv::Error| {
        let at = e.position().map_or(base, |p| base - 1 + p.line());
        match e.into_kind() {
            ::csv::ErrorKind::Io(io) => Error::io(file, io),
            k => Error::format(file, Place::Line(at), format!("{k:?}")),
        }
    };
    let mut rows = Rows::new(file, opts, &lay, head)?;
    while rdr.read_byte_record(&mut rec).map_err(csv_err)? {
        // the line the record ends on: the reader stands at the start of the next one
        let ln = (base + rdr.position().line()).saturating_sub(2);
        rows.row(&rec, ln)?;
    }
    rows.finish(opts)
}

/// Reads ahead the preamble and the first rows: raw bytes of every line (the BOM
/// dropped), and the non-blank ones, until [`STABLE_ROWS`] rows in a row have the same
/// numeric columns or a limit is reached.
fn read_ahead<R: BufRead>(r: &mut R, file: &str) -> Result<(Vec<u8>, Vec<HeadLine>)> {
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
        let text = std::str::from_utf8(body)
            .map_err(|_| Error::format(file, Place::Line(ln), "not UTF-8 text"))?;
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
    Ok((raw, lines))
}

/// The column layout: the separator and whether fields are padded after it, the time
/// column and the voltage columns.
struct Layout {
    sep: u8,
    spaced: bool,
    /// Every numeric column (time first).
    cols: Vec<usize>,
    tcol: usize,
    vcols: Vec<usize>,
    maxcol: usize,
}

/// The layout of the last line read ahead; the head lines are split again with its
/// separator.
fn layout(file: &str, raw: &[u8], lines: &mut [HeadLine]) -> Result<Layout> {
    let ferr = |ln: u64, msg: String| Error::format(file, Place::Line(ln), msg);
    let Some(last) = lines.last() else {
        return Err(Error::format(file, Place::File, "the file is empty"));
    };
    let last_text = std::str::from_utf8(&raw[last.off..])
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    let sep = sniff_sep(last_text) as u32 as u8;
    let spaced = spaced_after_sep(last_text.as_bytes(), sep);
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
    Ok(Layout {
        sep,
        spaced,
        tcol: cols[0],
        vcols: cols[1..].to_vec(),
        maxcol: *cols.last().unwrap_or(&0),
        cols,
    })
}

/// What the vendor preamble says: Rigol's start/increment, the time unit's power of
/// ten, the channel names, and which head line is the first data row.
struct Preamble {
    rigol: Option<(f64, f64)>,
    exp: i32,
    names: Vec<String>,
    first_data: Option<usize>,
}

/// Reads the preamble lines before the first data row.
fn preamble(lines: &[HeadLine], lay: &Layout) -> Preamble {
    let mut p = Preamble {
        rigol: None,
        exp: 12,
        names: (0..lay.vcols.len())
            .map(|k| format!("CH{}", k + 1))
            .collect(),
        first_data: None,
    };
    for (idx, h) in lines.iter().enumerate() {
        let f = &h.fields;
        let is_data = f.len() > lay.maxcol && lay.cols.iter().all(|&c| num(&f[c]).is_some());
        if is_data {
            p.first_data = Some(idx);
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
                    p.rigol = Some((s, i));
                }
            }
        }
        let tcol = lay.tcol;
        if f.len() > tcol && lay.vcols.iter().all(|&c| c < f.len()) && !f[tcol].is_empty() {
            if let Some(e) = header_unit_exp(&f[tcol]) {
                p.exp = e;
            }
            if let Some(names) = column_names(f, lay, &lower[tcol]) {
                p.names = names;
            }
        }
    }
    p
}

/// The voltage columns' names from a header line, unless it holds units ("Volt", "V")
/// or is a Tektronix "Record Length" line.
fn column_names(f: &[String], lay: &Layout, lower_time: &str) -> Option<Vec<String>> {
    let cand: Vec<&str> = lay.vcols.iter().map(|&c| f[c].as_str()).collect();
    let looks_units = cand.iter().all(|c| {
        let c = c.to_ascii_lowercase();
        c == "volt" || c == "v" || c == "(v)" || c.is_empty()
    });
    if looks_units || lower_time.starts_with("record") {
        return None;
    }
    Some(
        cand.iter()
            .enumerate()
            .map(|(k, c)| {
                let c = c.strip_suffix(" in V").unwrap_or(c);
                if c.is_empty() {
                    format!("CH{}", k + 1)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// The data rows as they are read: kept whole (times and voltages), or, with
/// `only_channels`, each measured column thresholded as it is read so memory grows with
/// its edges (the other columns are listed without edges).
struct Rows<'a> {
    file: &'a str,
    tcol: usize,
    vcols: Vec<usize>,
    maxcol: usize,
    rigol: Option<(f64, f64)>,
    exp: i32,
    names: Vec<String>,
    /// Which columns are measured (`only_channels`); `None` reads the file whole.
    measure: Option<Vec<bool>>,
    inputs: Vec<Option<AnalogInput>>,
    max_rows: usize,
    times: Vec<i64>,
    volts: Vec<Vec<f32>>,
    row: Vec<f32>,
    rows: u64,
    first_t: Option<i64>,
    last_t: i64,
    first_iv: Option<i64>,
    uniform: bool,
}

impl<'a> Rows<'a> {
    fn new(file: &'a str, opts: &Options, lay: &Layout, head: Preamble) -> Result<Rows<'a>> {
        let names = head.names;
        let measure: Option<Vec<bool>> = opts.only_channels.as_deref().map(|only| {
            let n: Vec<&str> = names.iter().map(String::as_str).collect();
            super::builder::selected(Some(only), &n)
        });
        let mut inputs: Vec<Option<AnalogInput>> = Vec::new();
        if let Some(sel) = &measure {
            // one edge budget for the file: each column may use all of it while it is
            // read, and the columns are finished against what the ones before left
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
        let n = lay.vcols.len();
        Ok(Rows {
            file,
            tcol: lay.tcol,
            vcols: lay.vcols.clone(),
            maxcol: lay.maxcol,
            rigol: head.rigol,
            exp: head.exp,
            names,
            measure,
            inputs,
            max_rows: MAX_ROWS.min(
                (super::limits::MAX_ANALOG_SAMPLES / n.max(1) as u64)
                    .try_into()
                    .unwrap_or(usize::MAX),
            ),
            times: Vec::new(),
            volts: vec![Vec::new(); n],
            row: vec![0.0; n],
            rows: 0,
            first_t: None,
            last_t: 0,
            first_iv: None,
            uniform: true,
        })
    }

    fn err(&self, ln: u64, msg: String) -> Error {
        Error::format(self.file, Place::Line(ln), msg)
    }

    /// One record ending on line `ln`.
    fn row(&mut self, rec: &::csv::ByteRecord, ln: u64) -> Result<()> {
        if rec.len() == 1 && rec[0].trim_ascii().is_empty() {
            return Ok(()); // a line of spaces
        }
        if rec.len() <= self.maxcol {
            return Err(self.err(
                ln,
                format!(
                    "column {}: missing ({} fields, the data rows have {})",
                    rec.len() + 1,
                    rec.len(),
                    self.maxcol + 1
                ),
            ));
        }
        if self.measure.is_none() && self.times.len() >= self.max_rows {
            return Err(self.err(
                ln,
                format!(
                    "more than {} rows: an oscilloscope CSV converted or exported whole \
                     is kept in memory ({} voltage columns), and this one is larger than one \
                     import may hold (measure it with --pulse/--latency/... instead, which \
                     keeps only edges, or export fewer points)",
                    self.max_rows,
                    self.vcols.len()
                ),
            ));
        }
        let t = self.time(rec, ln)?;
        self.rows += 1;
        for (k, &c) in self.vcols.iter().enumerate() {
            let x = num_bytes(&rec[c]).ok_or_else(|| {
                Error::format(
                    self.file,
                    Place::Line(ln),
                    format!(
                        "column {} ('{}'): bad voltage '{}'",
                        c + 1,
                        self.names[k],
                        String::from_utf8_lossy(unquote(&rec[c]))
                    ),
                )
            })?;
            self.row[k] = x as f32;
        }
        if self.measure.is_some() {
            for (k, a) in self.inputs.iter_mut().enumerate() {
                if let Some(a) = a {
                    a.push(t, self.row[k]).map_err(|p| {
                        Error::format(self.file, Place::Line(ln), p.message(&self.names[k]))
                    })?;
                }
            }
        } else {
            self.times.push(t);
            for (k, &x) in self.row.iter().enumerate() {
                self.volts[k].push(x);
            }
        }
        Ok(())
    }

    /// The row's time (ps), checked to be in range and increasing; notes whether the
    /// rows stay evenly spaced (within 0.1 % of the first interval: the sample rate is
    /// then known).
    fn time(&mut self, rec: &::csv::ByteRecord, ln: u64) -> Result<i64> {
        let tcol = self.tcol;
        let v = std::str::from_utf8(unquote(&rec[tcol]))
            .map_err(|_| self.err(ln, format!("column {}: not UTF-8 text", tcol + 1)))?;
        let t = match self.rigol {
            Some((s, inc)) => {
                let i = num(v).ok_or_else(|| {
                    self.err(ln, format!("column {}: bad sample index '{v}'", tcol + 1))
                })?;
                let secs = s + i * inc;
                (secs * 1e12).round() as i64
            }
            None => parse_scaled(v, self.exp)
                .ok_or_else(|| self.err(ln, format!("column {}: bad time '{v}'", tcol + 1)))?,
        };
        if t.unsigned_abs() > 1 << 62 {
            return Err(self.err(
                ln,
                format!(
                    "column {}: time '{v}' out of range (beyond ±53 days)",
                    tcol + 1
                ),
            ));
        }
        if self.first_t.is_some() && t <= self.last_t {
            return Err(self.err(
                ln,
                format!("column {}: time '{v}' does not increase", tcol + 1),
            ));
        }
        if let Some(f) = self.first_t {
            let d = t - self.last_t;
            match self.first_iv {
                None => self.first_iv = Some(t - f),
                Some(iv) => self.uniform &= (d - iv).abs() <= iv / 1000 + 1,
            }
        } else {
            self.first_t = Some(t);
        }
        self.last_t = t;
        Ok(t)
    }

    /// The capture: measured columns finished against the edge budget, or every column
    /// digitized (and kept as an analog channel when evenly spaced).
    fn finish(self, opts: &Options) -> Result<Capture> {
        let file = self.file;
        let Some(start) = self.first_t else {
            return Err(Error::format(file, Place::File, "no data rows"));
        };
        let end = self.last_t;
        let uniform = self.rows >= 2 && self.uniform;
        let interval = if self.rows >= 2 {
            (end - start) / (self.rows as i64 - 1)
        } else {
            0
        };
        let spacing = (uniform && interval > 0).then_some((start, interval));
        let (channels, analog) = if self.measure.is_some() {
            measured_channels(file, opts, self.inputs, &self.names, spacing)?
        } else {
            kept_channels(opts, &self.times, self.volts, &self.names, spacing)
        };
        let rate = spacing.map(|(_, iv)| (1e12 / iv as f64).round() as u64);
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
}

/// The measured columns' channels, finished one after the other against what the ones
/// before left of the edge budget; the others without edges. With evenly spaced rows
/// (`spacing`: start, interval), every column is listed as an analog channel without
/// its samples.
fn measured_channels(
    file: &str,
    opts: &Options,
    inputs: Vec<Option<AnalogInput>>,
    names: &[String],
    spacing: Option<(i64, i64)>,
) -> Result<(Vec<DigitalChannel>, Vec<AnalogChannel>)> {
    let mut channels = Vec::new();
    let mut analog = Vec::new();
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
        if let Some((start, interval)) = spacing {
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
    Ok((channels, analog))
}

/// Every column digitized from its kept voltages, and kept as an analog channel when
/// the rows are evenly spaced.
fn kept_channels(
    opts: &Options,
    times: &[i64],
    volts: Vec<Vec<f32>>,
    names: &[String],
    spacing: Option<(i64, i64)>,
) -> (Vec<DigitalChannel>, Vec<AnalogChannel>) {
    let mut channels = Vec::new();
    let mut analog = Vec::new();
    for (k, v) in volts.into_iter().enumerate() {
        channels.push(digitize(
            &names[k],
            times,
            &v,
            opts.threshold,
            opts.hysteresis,
        ));
        if let Some((start, interval)) = spacing {
            analog.push(AnalogChannel {
                name: names[k].clone(),
                start: Picos(start),
                interval: Picos(interval),
                values: v,
            });
        }
    }
    (channels, analog)
}
