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
    let mut sigrok = false;
    let mut sr_names: Vec<String> = Vec::new();
    let mut rate = s.samplerate;
    let ferr = |ln: u64, msg: String| Error::format(file, Place::Line(ln), msg);
    let budget = s.max_edges.unwrap_or(super::limits::DEFAULT_MAX_EDGES);
    // preamble: blank and comment lines up to the first row (header or data)
    let mut ln: u64 = 0;
    let mut raw = Vec::new();
    let head = loop {
        raw.clear();
        let n = r
            .read_until(b'\n', &mut raw)
            .map_err(|e| Error::io(file, e))?;
        if n == 0 {
            return Err(Error::format(file, Place::File, "no header or data rows"));
        }
        ln += 1;
        let line = std::str::from_utf8(&raw).map_err(|_| ferr(ln, "not UTF-8 text".into()))?;
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with(';') || line.starts_with('#') {
            if line.contains("libsigrok") {
                sigrok = true;
            }
            if let Some(v) = line.strip_prefix("; Samplerate:") {
                let stated = latscope_core::time::parse_frequency_hz(v.trim())
                    .ok()
                    .filter(|&r| r > 0);
                super::check_stated_rate(file, stated, s.samplerate, &s.warnings)?;
                if s.samplerate.is_none() {
                    rate = stated;
                }
            }
            if let Some(rest) = line.strip_prefix("; Channels") {
                if let Some((_, names)) = rest.split_once(':') {
                    sr_names = names.split(',').map(|n| n.trim().to_string()).collect();
                }
            }
            continue;
        }
        break format!("{line}\n");
    };
    let head_ln = ln;
    let sep = sniff_sep(&head);
    // sniff_sep answers `,`, `;` or tab: one byte each
    let sepb = sep as u32 as u8;
    // `a, "b,c"`: the csv crate takes a quote as quoting only right after the separator
    let spaced_quote = spaced_after_sep(head.as_bytes(), sepb);
    // a line break after the end, so every record ends with one (line numbers below)
    let mut rdr = csv_reader(
        std::io::Cursor::new(head.into_bytes())
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
            k => ferr(at, format!("{k:?}")),
        }
    };
    if !rdr.read_byte_record(&mut rec).map_err(csv_err)? {
        return Err(Error::format(file, Place::File, "no header or data rows"));
    }
    let fields: Vec<String> = rec
        .iter()
        .map(|f| String::from_utf8_lossy(unquote(f)).into_owned())
        .collect();
    let line = fields.join(&sep.to_string());
    let ln = head_ln;
    let numeric = fields.iter().all(|f| parse_scaled(f, 0).is_some());
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
        fields.clone()
    };
    // time column
    let mut tcol = TimeCol::Row;
    let mut tix = 0usize;
    let mut found = None;
    for (i, h) in names.iter().enumerate() {
        let l = h.to_ascii_lowercase();
        if l.contains("sample") || l == "index" || l == "#" {
            found = Some((i, TimeCol::Index));
            break;
        }
        if l.contains("time") || header_unit_exp(h).is_some() && !l.contains("logic") {
            found = Some((
                i,
                TimeCol::Time(header_unit_exp(h).unwrap_or(s.default_exp)),
            ));
            break;
        }
    }
    if numeric {
        found = Some((0, TimeCol::Time(s.default_exp)));
    }
    match found {
        Some((i, t)) => {
            tix = i;
            tcol = t;
        }
        None => {
            if !(sigrok || names.iter().all(|n| n == "logic")) {
                return Err(ferr(
                    ln,
                    format!("no time column in the header '{line}' (expected a column named like 'Time [s]', 'time_ns' or 'sample')"),
                ));
            }
        }
    }
    if sigrok && rate.is_some() {
        // sigrok-cli's time column is one sample late: use the row index.
        tcol = TimeCol::Row;
    }
    let has_time = found.is_some();
    let chan_cols: Vec<usize> = (0..names.len())
        .filter(|&i| !(has_time && i == tix))
        .collect();
    if chan_cols.is_empty() {
        return Err(ferr(ln, "the header names no channel columns".into()));
    }
    if chan_cols.len() > super::limits::MAX_CHANNELS {
        return Err(ferr(
            ln,
            format!(
                "{} channel columns: more than {} are refused",
                chan_cols.len(),
                super::limits::MAX_CHANNELS
            ),
        ));
    }
    let mut chnames: Vec<String> = chan_cols.iter().map(|&i| names[i].clone()).collect();
    if sr_names.len() == chnames.len() && chnames.iter().all(|n| n == "logic" || n.is_empty()) {
        chnames = sr_names.clone();
    }
    for (k, n) in chnames.iter_mut().enumerate() {
        if n.is_empty() {
            *n = format!("D{k}");
        }
    }
    if matches!(tcol, TimeCol::Index | TimeCol::Row) && rate.is_none() {
        return Err(ferr(
            ln,
            "times are sample numbers but the sample rate is unknown; give --samplerate".into(),
        ));
    }
    let mut bld = Builder::new(chnames.clone(), Picos(0));
    if s.names_only {
        return Ok(Capture {
            source: file.to_string(),
            samplerate_hz: rate,
            start: Picos(0),
            end: Picos(0),
            channels: bld.finish(),
            analog: vec![],
        });
    }
    bld.select(s.only.as_deref());
    let names = chnames;
    let need = names.len() + usize::from(tcol != TimeCol::Row);
    let mut row: u64 = 0;
    let mut first_t: Option<i64> = None;
    let mut iso = false;
    let mut iso0: i128 = 0;
    let mut last_t: i64 = 0;
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
        let f0 = rec.get(0).unwrap_or(b"").trim_ascii();
        if rec.len() == 1 && f0.is_empty() {
            continue; // a line of spaces
        }
        if f0.first().is_some_and(|&c| c == b'#' || c == b';')
            || (sepb == b';' && f0.is_empty() && rec.len() > 1 && rec[1].starts_with(b" "))
        // (with `;` separating, `; text` is a comment when the text follows a space)
        {
            continue; // a comment line (`; …`, `# …`)
        }
        if bld.kept > budget {
            return Err(ferr(
                ln,
                format!(
                    "more than {budget} edges in all: more than one import may keep \
                     (--max-edges raises the limit)"
                ),
            ));
        }
        if rec.len() < need {
            return Err(ferr(ln, format!("{} fields, expected {need}", rec.len())));
        }
        let t: i64 = match tcol {
            TimeCol::Row => sample_ps(row, rate.unwrap_or(1)),
            TimeCol::Index => {
                let v = field_str(file, ln, tix, &rec[tix])?;
                let n: u64 = v.parse().map_err(|_| {
                    ferr(
                        ln,
                        format!(
                            "column {}: sample number '{v}' is not a whole number",
                            tix + 1
                        ),
                    )
                })?;
                sample_ps(n, rate.unwrap_or(1))
            }
            TimeCol::Time(exp) => {
                let v = field_str(file, ln, tix, &rec[tix])?;
                let ps = match parse_scaled(v, exp) {
                    Some(p) if !iso => p,
                    _ => {
                        let p = parse_iso8601_ps(v).ok_or_else(|| {
                            // a well-formed number that does not fit i64 picoseconds
                            if v.parse::<f64>().is_ok_and(|x| !x.is_nan()) {
                                ferr(
                                    ln,
                                    format!("column {}: time '{v}' is out of range (times must lie within ±106 days of 0, in picoseconds)", tix + 1),
                                )
                            } else {
                                ferr(
                                    ln,
                                    format!("column {}: time '{v}' is neither a number nor an ISO-8601 timestamp", tix + 1),
                                )
                            }
                        })?;
                        if !iso {
                            if first_t.is_some() {
                                return Err(ferr(
                                    ln,
                                    format!(
                                        "column {}: time '{v}': numbers and timestamps are mixed",
                                        tix + 1
                                    ),
                                ));
                            }
                            iso = true;
                            iso0 = p;
                        }
                        i64::try_from(p - iso0).map_err(|_| {
                            ferr(
                                ln,
                                format!(
                                    "column {}: time '{v}' is too far from the first row",
                                    tix + 1
                                ),
                            )
                        })?
                    }
                };
                match rate {
                    Some(r) => round_to_grid(ps, r),
                    None => ps,
                }
            }
        };
        if first_t.is_none() {
            first_t = Some(t);
            bld.start = Picos(t);
        } else if t < last_t {
            return Err(ferr(
                ln,
                format!(
                    "time goes backwards: {} after {}",
                    latscope_core::time::format_ps(t as i128),
                    latscope_core::time::format_ps(last_t as i128)
                ),
            ));
        }
        last_t = t;
        for (ci, &col) in chan_cols.iter().enumerate() {
            let v = rec.get(col).unwrap_or(b"").trim_ascii();
            match level_bytes(v) {
                Some(Some(lv)) => bld.set(ci, Picos(t), lv),
                Some(None) => {}
                None => {
                    return Err(ferr(
                        ln,
                        format!(
                            "column {} ('{}'): '{}' is not a logic level (0/1/X)",
                            col + 1,
                            names[ci],
                            String::from_utf8_lossy(v)
                        ),
                    ))
                }
            }
        }
        row += 1;
    }
    if first_t.is_none() {
        return Err(Error::format(
            file,
            Place::File,
            "a header but no data rows",
        ));
    }
    let start = bld.start;
    let mut end = Picos(last_t);
    if tcol == TimeCol::Row {
        // sample-per-row: the last sample lasts one period
        end = Picos(sample_ps(row, rate.unwrap_or(1)));
    }
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: rate,
        start,
        end,
        channels: bld.finish(),
        analog: vec![],
    };
    cap.validate()?;
    Ok(cap)
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
