//! Generic logic CSV: a time column and one 0/1 column per channel, one row per sample
//! or one row per change. Also reads sigrok-cli's CSV output (`;` comment header),
//! and is the core of the Saleae CSV reader.
//!
//! * the time column is the first whose header says time/sample/index (`Time [s]`,
//!   `time_ns`, `microseconds`, `Sample`, …); its unit comes from the header (seconds
//!   when none is named); `sample`/`index` columns need a sample rate;
//! * values are `0`/`1` (also `low`/`high`, `false`/`true`, `L`/`H`); `X` or an empty
//!   field means "no data" and keeps the previous level;
//! * times may be ISO-8601 timestamps: they are taken relative to the first row;
//! * with a known sample rate, times are rounded to the sample grid;
//! * sigrok-cli CSV: its time column is one sample late ((index+1)/samplerate, seen in
//!   libsigrok 0.5.2), so when the sample rate is known from the `; Samplerate:` comment,
//!   times are the row index / samplerate instead; channel names come from the
//!   `; Channels (n/m): …` comment when the header only says `logic`.

use super::builder::Builder;
use super::text::{
    csv_reader, header_unit_exp, line_fields, parse_iso8601_ps, parse_scaled, sniff_sep,
    spaced_after_sep, unquote,
};
use crate::error::{Error, Place, Result};
use latscope_core::capture::Capture;
use latscope_core::time::{Picos, PS_PER_S};
use std::io::{BufRead, Read};

/// True when the data rows (after any header) hold only 0/1/X in every column but
/// the first.
pub fn looks_digital(lines: &[&str]) -> bool {
    let data: Vec<&&str> = lines
        .iter()
        .filter(|l| !l.starts_with(';') && !l.starts_with('#'))
        .skip(1)
        .collect();
    if data.is_empty() {
        return false;
    }
    let sep = sniff_sep(data[0]);
    data.iter().all(|l| {
        let f = line_fields(l, sep);
        f.len() >= 2 && f[1..].iter().all(|v| level(v).is_some())
    })
}

/// True when every data field is a number and some are not 0/1 (voltages).
pub fn looks_analog(lines: &[&str]) -> bool {
    let data: Vec<&&str> = lines
        .iter()
        .filter(|l| !l.starts_with(';') && !l.starts_with('#'))
        .skip(1)
        .collect();
    let Some(first) = data.first() else {
        return false;
    };
    let sep = sniff_sep(first);
    let mut non_level = false;
    let all_numeric = data.iter().all(|l| {
        let f = line_fields(l, sep);
        f.len() >= 2
            && f[1..].iter().all(|v| {
                if level(v).is_none() {
                    non_level = true;
                }
                v.parse::<f64>().is_ok()
            })
    });
    all_numeric && non_level
}

/// A logic level: Some(Some(b)) for 0/1, Some(None) for no data, None if not a level.
fn level(v: &str) -> Option<Option<bool>> {
    match v {
        "0" | "0.0" => Some(Some(false)),
        "1" | "1.0" => Some(Some(true)),
        "" | "X" | "x" | "-" => Some(None),
        _ => match v.to_ascii_lowercase().as_str() {
            "low" | "false" | "l" => Some(Some(false)),
            "high" | "true" | "h" => Some(Some(true)),
            _ => None,
        },
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum TimeCol {
    /// time values scaled by 10^exp to picoseconds
    Time(i32),
    /// sample numbers
    Index,
    /// no time column: the row number is the sample index
    Row,
}

/// Settings for the shared CSV core.
pub(crate) struct CsvSettings {
    pub samplerate: Option<u64>,
    /// default unit exponent when the header names none (12 = seconds)
    pub default_exp: i32,
    pub warnings: super::Warnings,
    /// Most edges kept (see [`super::Options::max_edges`]).
    pub max_edges: Option<u64>,
    /// Keep edges only for these channels (names or `#N`); None: all.
    pub only: Option<Vec<String>>,
    /// Stop after the header: the capture lists the channels, without data.
    pub names_only: bool,
}

/// Reads a generic logic CSV.
pub fn read<R: BufRead>(r: R, file: &str, samplerate: Option<u64>) -> Result<Capture> {
    read_core(
        r,
        file,
        CsvSettings {
            samplerate,
            default_exp: 12,
            warnings: Default::default(),
            max_edges: None,
            only: None,
            names_only: false,
        },
    )
}

/// [`read`] with every import option (sample rate, warnings, the channels to decode:
/// with `opts.only_channels` the others stay listed, without edges).
pub fn read_opts<R: BufRead>(r: R, file: &str, opts: &super::Options) -> Result<Capture> {
    read_core(
        r,
        file,
        CsvSettings {
            samplerate: opts.samplerate_hz,
            default_exp: 12,
            warnings: opts.warnings.clone(),
            max_edges: opts.max_edges,
            only: opts.only_channels.clone(),
            names_only: false,
        },
    )
}

/// The channel names of a generic logic CSV (or a Saleae CSV export), from its header.
pub fn channel_names<R: BufRead>(r: R, file: &str, samplerate: Option<u64>) -> Result<Vec<String>> {
    let c = read_core(
        r,
        file,
        CsvSettings {
            samplerate,
            default_exp: 12,
            warnings: Default::default(),
            max_edges: None,
            only: None,
            names_only: true,
        },
    )?;
    Ok(c.channels.into_iter().map(|c| c.name).collect())
}

/// A logic level from a raw field: as [`level`], on bytes (no UTF-8 check in the hot loop).
#[inline]
fn level_bytes(v: &[u8]) -> Option<Option<bool>> {
    match v {
        b"0" | b"0.0" => Some(Some(false)),
        b"1" | b"1.0" => Some(Some(true)),
        b"" | b"X" | b"x" | b"-" => Some(None),
        _ => std::str::from_utf8(unquote(v)).ok().and_then(level),
    }
}

/// A field as trimmed text, or an error naming the line and column.
fn field_str<'a>(file: &str, ln: u64, col: usize, v: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(unquote(v)).map_err(|_| {
        Error::format(
            file,
            Place::Line(ln),
            format!("column {}: not UTF-8 text", col + 1),
        )
    })
}

/// Reads the rows with the `csv` crate (RFC 4180 quoting: `"Clock, main"` is one field,
/// `""` a quote inside it), one reused [`csv::ByteRecord`] for all rows. The comment and
/// blank lines before the header are read line by line first (sigrok-cli's `;` header
/// carries the sample rate and channel names); the header line is then chained back in
/// front of the rest of the stream, so a pipe loses nothing.
pub(crate) fn read_core<R: BufRead>(mut r: R, file: &str, s: CsvSettings) -> Result<Capture> {
    let budget = s.max_edges.unwrap_or(super::limits::DEFAULT_MAX_EDGES);
    let pre = read_preamble(&mut r, file, &s)?;
    let head_ln = pre.head_ln;
    let sep = sniff_sep(&pre.head);
    // sniff_sep answers `,`, `;` or tab: one byte each
    let sepb = sep as u32 as u8;
    // `a, "b,c"`: the csv crate takes a quote as quoting only right after the separator
    let spaced_quote = spaced_after_sep(pre.head.as_bytes(), sepb);
    // a line break after the end, so every record ends with one (line numbers below)
    let mut rdr = csv_reader(
        std::io::Cursor::new(pre.head.clone().into_bytes())
            .chain(r)
            .chain(&b"\n"[..]),
        sepb,
        spaced_quote,
    );
    let mut rec = ::csv::ByteRecord::new();
    let csv_err = |e: ::csv::Error| {
        let at = e
            .position()
            .map(|p| head_ln - 1 + p.line())
            .unwrap_or(head_ln);
        match e.into_kind() {
            ::csv::ErrorKind::Io(io) => Error::io(file, io),
            k => Error::format(file, Place::Line(at), format!("{k:?}")),
        }
    };
    if !rdr.read_byte_record(&mut rec).map_err(csv_err)? {
        return Err(Error::format(file, Place::File, "no header or data rows"));
    }
    let fields: Vec<String> = rec
        .iter()
        .map(|f| String::from_utf8_lossy(unquote(f)).into_owned())
        .collect();
    let numeric = fields.iter().all(|f| parse_scaled(f, 0).is_some());
    let cols = columns(file, &fields, sep, numeric, &pre, &s)?;
    let mut bld = Builder::new(cols.names.clone(), Picos(0));
    if s.names_only {
        return Ok(Capture {
            source: file.to_string(),
            samplerate_hz: pre.rate,
            start: Picos(0),
            end: Picos(0),
            channels: bld.finish(),
            analog: vec![],
        });
    }
    bld.select(s.only.as_deref());
    let mut rows = RowTimes::new(file, &cols, pre.rate);
    // a numeric first line is a data row: it is in `rec` already
    let mut pending = numeric;
    loop {
        if !pending && !rdr.read_byte_record(&mut rec).map_err(csv_err)? {
            break;
        }
        pending = false;
        // the line the record ends on: the reader stands at the start of the next one
        // (a record's own position is where the previous one ended, before any blank
        // lines)
        let ln = (head_ln + rdr.position().line()).saturating_sub(2);
        if skipped_row(&rec, sepb) {
            continue;
        }
        if bld.kept > budget {
            return Err(Error::format(
                file,
                Place::Line(ln),
                format!(
                    "more than {budget} edges in all: more than one import may keep \
                     (--max-edges raises the limit)"
                ),
            ));
        }
        if rec.len() < cols.need {
            return Err(Error::format(
                file,
                Place::Line(ln),
                format!("{} fields, expected {}", rec.len(), cols.need),
            ));
        }
        let t = rows.time(&rec, ln)?;
        if rows.first_t.is_none() {
            rows.first_t = Some(t);
            bld.start = Picos(t);
        } else if t < rows.last_t {
            return Err(Error::format(
                file,
                Place::Line(ln),
                format!(
                    "time goes backwards: {} after {}",
                    latscope_core::time::format_ps(t as i128),
                    latscope_core::time::format_ps(rows.last_t as i128)
                ),
            ));
        }
        rows.last_t = t;
        set_levels(&mut bld, &rec, &cols, Picos(t)).map_err(|e| e.at(file, ln))?;
        rows.row += 1;
    }
    if rows.first_t.is_none() {
        return Err(Error::format(
            file,
            Place::File,
            "a header but no data rows",
        ));
    }
    let start = bld.start;
    let mut end = Picos(rows.last_t);
    if cols.tcol == TimeCol::Row {
        // sample-per-row: the last sample lasts one period
        end = Picos(sample_ps(rows.row, pre.rate.unwrap_or(1)));
    }
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: pre.rate,
        start,
        end,
        channels: bld.finish(),
        analog: vec![],
    };
    cap.validate()?;
    Ok(cap)
}

/// What the comment lines before the header say, and the header line itself.
struct Preamble {
    /// sigrok-cli wrote the file (a `libsigrok` comment).
    sigrok: bool,
    /// sigrok-cli's `; Channels…: a, b` names.
    sr_names: Vec<String>,
    /// The sample rate given, else the one the file states.
    rate: Option<u64>,
    /// The first row (header or data), with a line break.
    head: String,
    head_ln: u64,
}

/// Reads the blank and comment lines up to the first row (header or data), line by
/// line: sigrok-cli's `;` comments carry the sample rate and channel names.
fn read_preamble<R: BufRead>(r: &mut R, file: &str, s: &CsvSettings) -> Result<Preamble> {
    let mut pre = Preamble {
        sigrok: false,
        sr_names: Vec::new(),
        rate: s.samplerate,
        head: String::new(),
        head_ln: 0,
    };
    let mut raw = Vec::new();
    loop {
        raw.clear();
        let n = r
            .read_until(b'\n', &mut raw)
            .map_err(|e| Error::io(file, e))?;
        if n == 0 {
            return Err(Error::format(file, Place::File, "no header or data rows"));
        }
        pre.head_ln += 1;
        let line = std::str::from_utf8(&raw)
            .map_err(|_| Error::format(file, Place::Line(pre.head_ln), "not UTF-8 text"))?;
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with(';') || line.starts_with('#') {
            pre.comment(line, file, s)?;
            continue;
        }
        pre.head = format!("{line}\n");
        return Ok(pre);
    }
}

impl Preamble {
    /// One comment line: sigrok-cli's marker, sample rate and channel names.
    fn comment(&mut self, line: &str, file: &str, s: &CsvSettings) -> Result<()> {
        if line.contains("libsigrok") {
            self.sigrok = true;
        }
        if let Some(v) = line.strip_prefix("; Samplerate:") {
            let stated = latscope_core::time::parse_frequency_hz(v.trim())
                .ok()
                .filter(|&r| r > 0);
            super::check_stated_rate(file, stated, s.samplerate, &s.warnings)?;
            if s.samplerate.is_none() {
                self.rate = stated;
            }
        }
        if let Some(rest) = line.strip_prefix("; Channels") {
            if let Some((_, names)) = rest.split_once(':') {
                self.sr_names = names.split(',').map(|n| n.trim().to_string()).collect();
            }
        }
        Ok(())
    }
}

/// The columns: where the time is and in what form, and the channels' columns and names.
struct Columns {
    tcol: TimeCol,
    /// The time column's index (when there is one).
    tix: usize,
    chan_cols: Vec<usize>,
    names: Vec<String>,
    /// Fields a row needs.
    need: usize,
}

/// The columns from the header fields (or, for a numeric first row, time then D0, D1, …).
fn columns(
    file: &str,
    fields: &[String],
    sep: char,
    numeric: bool,
    pre: &Preamble,
    s: &CsvSettings,
) -> Result<Columns> {
    let ln = pre.head_ln;
    let ferr = |msg: String| Error::format(file, Place::Line(ln), msg);
    let names: Vec<String> = if numeric {
        (0..fields.len())
            .map(|i| {
                if i == 0 {
                    "time".to_string()
                } else {
                    format!("D{}", i - 1)
                }
            })
            .collect()
    } else {
        fields.to_vec()
    };
    let found = if numeric {
        Some((0, TimeCol::Time(s.default_exp)))
    } else {
        time_column(&names, s.default_exp)
    };
    let (tix, mut tcol) = match found {
        Some((i, t)) => (i, t),
        None if pre.sigrok || names.iter().all(|n| n == "logic") => (0, TimeCol::Row),
        None => {
            let line = fields.join(&sep.to_string());
            return Err(ferr(format!("no time column in the header '{line}' (expected a column named like 'Time [s]', 'time_ns' or 'sample')")));
        }
    };
    if pre.sigrok && pre.rate.is_some() {
        // sigrok-cli's time column is one sample late: use the row index.
        tcol = TimeCol::Row;
    }
    let has_time = found.is_some();
    let chan_cols: Vec<usize> = (0..names.len())
        .filter(|&i| !(has_time && i == tix))
        .collect();
    if chan_cols.is_empty() {
        return Err(ferr("the header names no channel columns".into()));
    }
    if chan_cols.len() > super::limits::MAX_CHANNELS {
        return Err(ferr(format!(
            "{} channel columns: more than {} are refused",
            chan_cols.len(),
            super::limits::MAX_CHANNELS
        )));
    }
    let mut chnames: Vec<String> = chan_cols.iter().map(|&i| names[i].clone()).collect();
    if pre.sr_names.len() == chnames.len() && chnames.iter().all(|n| n == "logic" || n.is_empty()) {
        chnames = pre.sr_names.clone();
    }
    for (k, n) in chnames.iter_mut().enumerate() {
        if n.is_empty() {
            *n = format!("D{k}");
        }
    }
    if matches!(tcol, TimeCol::Index | TimeCol::Row) && pre.rate.is_none() {
        return Err(ferr(
            "times are sample numbers but the sample rate is unknown; give --samplerate".into(),
        ));
    }
    Ok(Columns {
        need: chnames.len() + usize::from(tcol != TimeCol::Row),
        tcol,
        tix,
        chan_cols,
        names: chnames,
    })
}

/// The first column named like a time (`Time [s]`, `time_ns`, a unit) or a sample
/// number (`sample`, `index`, `#`).
fn time_column(names: &[String], default_exp: i32) -> Option<(usize, TimeCol)> {
    for (i, h) in names.iter().enumerate() {
        let l = h.to_ascii_lowercase();
        if l.contains("sample") || l == "index" || l == "#" {
            return Some((i, TimeCol::Index));
        }
        if l.contains("time") || header_unit_exp(h).is_some() && !l.contains("logic") {
            return Some((i, TimeCol::Time(header_unit_exp(h).unwrap_or(default_exp))));
        }
    }
    None
}

/// A line of spaces, or a comment line (`; …`, `# …`; with `;` separating, `; text` is
/// a comment when the text follows a space).
fn skipped_row(rec: &::csv::ByteRecord, sepb: u8) -> bool {
    let f0 = rec.get(0).unwrap_or(b"").trim_ascii();
    if rec.len() == 1 && f0.is_empty() {
        return true;
    }
    f0.first().is_some_and(|&c| c == b'#' || c == b';')
        || (sepb == b';' && f0.is_empty() && rec.len() > 1 && rec[1].starts_with(b" "))
}

/// A field that is not a logic level: its column, the channel's name and the text.
#[derive(Debug, thiserror::Error)]
#[error("column {column} ('{name}'): '{text}' is not a logic level (0/1/X)")]
struct NotALevel {
    column: usize,
    name: String,
    text: String,
}

impl NotALevel {
    /// The import error, placed at line `ln` of `file`.
    fn at(&self, file: &str, ln: u64) -> Error {
        Error::format(file, Place::Line(ln), self.to_string())
    }
}

/// The row's channel levels into the builder.
fn set_levels(
    bld: &mut Builder,
    rec: &::csv::ByteRecord,
    cols: &Columns,
    t: Picos,
) -> std::result::Result<(), NotALevel> {
    for (ci, &col) in cols.chan_cols.iter().enumerate() {
        let v = rec.get(col).unwrap_or(b"").trim_ascii();
        match level_bytes(v) {
            Some(Some(lv)) => bld.set(ci, t, lv),
            Some(None) => {}
            None => {
                return Err(NotALevel {
                    column: col + 1,
                    name: cols.names[ci].clone(),
                    text: String::from_utf8_lossy(v).into_owned(),
                })
            }
        }
    }
    Ok(())
}

/// The rows' times: the row count (sample-per-row files), the first and last time, and
/// ISO-8601 timestamps taken relative to the first one.
struct RowTimes<'a> {
    file: &'a str,
    tcol: TimeCol,
    tix: usize,
    rate: Option<u64>,
    row: u64,
    first_t: Option<i64>,
    last_t: i64,
    iso: bool,
    iso0: i128,
}

impl<'a> RowTimes<'a> {
    fn new(file: &'a str, cols: &Columns, rate: Option<u64>) -> RowTimes<'a> {
        RowTimes {
            file,
            tcol: cols.tcol,
            tix: cols.tix,
            rate,
            row: 0,
            first_t: None,
            last_t: 0,
            iso: false,
            iso0: 0,
        }
    }

    fn err(&self, ln: u64, msg: String) -> Error {
        Error::format(self.file, Place::Line(ln), msg)
    }

    /// The time of the row ending on line `ln` (ps), on the sample grid when the rate is
    /// known.
    fn time(&mut self, rec: &::csv::ByteRecord, ln: u64) -> Result<i64> {
        let tix = self.tix;
        Ok(match self.tcol {
            TimeCol::Row => sample_ps(self.row, self.rate.unwrap_or(1)),
            TimeCol::Index => {
                let v = field_str(self.file, ln, tix, &rec[tix])?;
                let n: u64 = v.parse().map_err(|_| {
                    self.err(
                        ln,
                        format!(
                            "column {}: sample number '{v}' is not a whole number",
                            tix + 1
                        ),
                    )
                })?;
                sample_ps(n, self.rate.unwrap_or(1))
            }
            TimeCol::Time(exp) => {
                let v = field_str(self.file, ln, tix, &rec[tix])?;
                let ps = match parse_scaled(v, exp) {
                    Some(p) if !self.iso => p,
                    _ => self.timestamp(v, ln)?,
                };
                match self.rate {
                    Some(r) => round_to_grid(ps, r),
                    None => ps,
                }
            }
        })
    }

    /// An ISO-8601 time stamp, relative to the first row's; numbers and time stamps do
    /// not mix.
    fn timestamp(&mut self, v: &str, ln: u64) -> Result<i64> {
        let tix = self.tix;
        let p = parse_iso8601_ps(v).ok_or_else(|| {
            // a well-formed number that does not fit i64 picoseconds
            if v.parse::<f64>().is_ok_and(|x| !x.is_nan()) {
                self.err(
                    ln,
                    format!("column {}: time '{v}' is out of range (times must lie within ±106 days of 0, in picoseconds)", tix + 1),
                )
            } else {
                self.err(
                    ln,
                    format!("column {}: time '{v}' is neither a number nor an ISO-8601 timestamp", tix + 1),
                )
            }
        })?;
        if !self.iso {
            if self.first_t.is_some() {
                return Err(self.err(
                    ln,
                    format!(
                        "column {}: time '{v}': numbers and timestamps are mixed",
                        tix + 1
                    ),
                ));
            }
            self.iso = true;
            self.iso0 = p;
        }
        i64::try_from(p - self.iso0).map_err(|_| {
            self.err(
                ln,
                format!(
                    "column {}: time '{v}' is too far from the first row",
                    tix + 1
                ),
            )
        })
    }
}

/// Picoseconds of sample `n` at `rate`.
pub(crate) fn sample_ps(n: u64, rate: u64) -> i64 {
    (n as i128 * PS_PER_S as i128 / rate.max(1) as i128) as i64
}

/// Rounds a time to the nearest sample instant at `rate`.
pub(crate) fn round_to_grid(ps: i64, rate: u64) -> i64 {
    let p = PS_PER_S as i128;
    let r = rate.max(1) as i128;
    let x = ps as i128 * r;
    let idx = if x >= 0 {
        (x + p / 2) / p
    } else {
        -((-x + p / 2) / p)
    };
    (idx * p / r) as i64
}
