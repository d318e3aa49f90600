//! Small text helpers shared by the CSV-like importers.

use std::io::Read;

/// Parses a decimal number with optional sign, fraction and exponent exactly, scaled by
/// 10^`scale_exp` and rounded half away from zero to an integer: `parse_scaled("1.5e-6",
/// 12)` is 1_500_000 (seconds to picoseconds). None when malformed or out of range.
pub fn parse_scaled(s: &str, scale_exp: i32) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(p) => (&s[..p], s[p + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (ip, fp) = match mant.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mant, ""),
    };
    if ip.is_empty() && fp.is_empty() {
        return None;
    }
    if !ip.bytes().all(|b| b.is_ascii_digit()) || !fp.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // digits as an integer with `fp.len()` fraction digits
    let digits = format!("{ip}{fp}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 36 {
        return None;
    }
    let mut v: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let e = exp.checked_add(scale_exp)?.checked_sub(fp.len() as i32)?;
    if e >= 0 {
        if e > 30 {
            return if v == 0 { Some(0) } else { None };
        }
        v = v.checked_mul(10i128.pow(e as u32))?;
    } else {
        let d = -e;
        if d > 38 {
            v = 0;
        } else {
            let p = 10i128.pow(d as u32);
            v = (v + p / 2) / p;
        }
    }
    let v = if neg { -v } else { v };
    if v > i64::MAX as i128 || v < i64::MIN as i128 {
        return None;
    }
    Some(v as i64)
}

/// The fields of one CSV line, read with [`csv_reader`] like the rows of every CSV
/// importer: RFC 4180 quoting (`"a,b",1` is two fields, `""` a quote inside one), spaces
/// before an opening quote allowed, each field trimmed and unquoted (see [`unquote`]).
pub(crate) fn line_fields(line: &str, sep: char) -> Vec<String> {
    let sep = if sep.is_ascii() {
        sep as u32 as u8
    } else {
        b','
    };
    let line = line.trim().as_bytes();
    let mut rdr = csv_reader(line, sep, spaced_after_sep(line, sep));
    let mut rec = csv::ByteRecord::new();
    match rdr.read_byte_record(&mut rec) {
        Ok(true) => rec
            .iter()
            .map(|f| String::from_utf8_lossy(unquote(f)).into_owned())
            .collect(),
        _ => vec![String::new()],
    }
}

/// A trimmed field without surrounding quotes the csv reader left in place (it takes a
/// quote as quoting only right after the separator: ` "CLK" ` keeps them).
pub(crate) fn unquote(v: &[u8]) -> &[u8] {
    let v = v.trim_ascii();
    match v {
        [b'"', inner @ .., b'"'] => inner.trim_ascii(),
        _ => v,
    }
}

/// Drops the spaces and tabs at the start of each field (outside quotes), so
/// `a, "b,c"` reads as `a,"b,c"`: the csv crate takes a quote as quoting only right after
/// the separator, the hand-written splitter before it did not care. Leading spaces are
/// trimmed from every field anyway. Only used when the header has a space after a
/// separator.
pub(crate) struct SpaceBeforeQuote<R> {
    inner: R,
    sep: u8,
    on: bool,
    at_start: bool,
    quoted: bool,
}

impl<R: Read> SpaceBeforeQuote<R> {
    pub(crate) fn new(inner: R, sep: u8, on: bool) -> Self {
        SpaceBeforeQuote {
            inner,
            sep,
            on,
            at_start: true,
            quoted: false,
        }
    }
}

impl<R: Read> Read for SpaceBeforeQuote<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.inner.read(out)?;
            if !self.on || n == 0 {
                return Ok(n);
            }
            let mut w = 0usize;
            for i in 0..n {
                let c = out[i];
                if self.at_start && (c == b' ' || c == b'\t') {
                    continue;
                }
                if c == b'"' {
                    self.quoted = !self.quoted;
                }
                self.at_start = !self.quoted && (c == self.sep || c == b'\n');
                out[w] = c;
                w += 1;
            }
            if w > 0 {
                return Ok(w);
            }
        }
    }
}

/// The `csv` crate reader every CSV importer uses: `sep` as delimiter, no header row,
/// rows of any length, no comment character (comment lines are the importer's to skip,
/// so line numbers stay true), `\n` as the only line end (a `\r` before it is trimmed with
/// the field, and every record then ends exactly at a line break, so the reader's line
/// count names the record's line for CRLF files too), a 64 KiB buffer; with `spaced`, spaces before a field are
/// dropped first (see [`SpaceBeforeQuote`]).
pub(crate) fn csv_reader<R: Read>(
    input: R,
    sep: u8,
    spaced: bool,
) -> csv::Reader<SpaceBeforeQuote<R>> {
    csv::ReaderBuilder::new()
        .delimiter(sep)
        .has_headers(false)
        .flexible(true)
        .comment(None)
        .terminator(csv::Terminator::Any(b'\n'))
        .buffer_capacity(1 << 16)
        .from_reader(SpaceBeforeQuote::new(input, sep, spaced))
}

/// True when a header line has a space or tab right after a separator (`a, "b,c"`): the
/// reader then drops spaces before fields ([`SpaceBeforeQuote`]).
pub(crate) fn spaced_after_sep(line: &[u8], sep: u8) -> bool {
    line.windows(2)
        .any(|w| w[0] == sep && (w[1] == b' ' || w[1] == b'\t'))
}

/// The separator of a CSV header: `,`, `;` or tab, whichever occurs most outside quotes.
pub fn sniff_sep(line: &str) -> char {
    let (mut c, mut s, mut t) = (0usize, 0usize, 0usize);
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => c += 1,
            ';' if !quoted => s += 1,
            '\t' if !quoted => t += 1,
            _ => {}
        }
    }
    if t > c && t >= s {
        '\t'
    } else if s > c {
        ';'
    } else {
        ','
    }
}

/// Picoseconds per unit named in a column header such as `Time [s]`, `time_ns`,
/// `Time (us)`, `microseconds`; None when no unit is named.
pub fn header_unit_exp(h: &str) -> Option<i32> {
    let l = h.to_ascii_lowercase();
    let tail = |u: &str| {
        l.ends_with(&format!("[{u}]"))
            || l.ends_with(&format!("({u})"))
            || l.ends_with(&format!("_{u}"))
            || l.ends_with(&format!(" {u}"))
            || l.ends_with(&format!("/{u}"))
    };
    for (u, e) in [
        ("milliseconds", 9),
        ("microseconds", 6),
        ("nanoseconds", 3),
        ("picoseconds", 0),
        ("seconds", 12),
    ] {
        if l.contains(u) {
            return Some(e);
        }
    }
    for (u, e) in [
        ("s", 12),
        ("sec", 12),
        ("ms", 9),
        ("us", 6),
        ("µs", 6),
        ("ns", 3),
        ("ps", 0),
    ] {
        if tail(u) {
            return Some(e);
        }
    }
    None
}

/// Parses an ISO-8601 timestamp (`2024-03-01T12:00:00.123456789Z`, offsets allowed)
/// into picoseconds since the Unix epoch (i128: that does not fit 64 bits).
pub fn parse_iso8601_ps(s: &str) -> Option<i128> {
    let s = s.trim();
    let (date, rest) = s.split_once(['T', ' '])?;
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: i64 = dp.next()?.parse().ok()?;
    let d: i64 = dp.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // split off a zone: Z, +hh:mm, -hh:mm
    let (time, off_s) = if let Some(t) = rest.strip_suffix('Z') {
        (t, 0i64)
    } else if let Some(p) = rest.rfind(['+', '-']) {
        let z = &rest[p + 1..];
        let (hh, mm) = z
            .split_once(':')
            .unwrap_or((z.get(..2)?, z.get(2..).unwrap_or("0")));
        let o = hh.parse::<i64>().ok()? * 3600 + mm.parse::<i64>().unwrap_or(0) * 60;
        (&rest[..p], if &rest[p..p + 1] == "-" { -o } else { o })
    } else {
        (rest, 0)
    };
    let mut tp = time.splitn(3, ':');
    let hh: i64 = tp.next()?.parse().ok()?;
    let mm: i64 = tp.next()?.parse().ok()?;
    let sec_ps = parse_scaled(tp.next()?, 12)?;
    // days from civil (Howard Hinnant's algorithm)
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hh * 3600 + mm * 60 - off_s;
    Some(secs as i128 * 1_000_000_000_000 + sec_ps as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled() {
        assert_eq!(parse_scaled("1.5e-6", 12), Some(1_500_000));
        assert_eq!(parse_scaled("-0.000250", 12), Some(-250_000_000));
        assert_eq!(
            parse_scaled("0.1234567890123456", 12),
            Some(123_456_789_012)
        );
        assert_eq!(parse_scaled("2", 3), Some(2000));
        assert_eq!(parse_scaled("1e400", 0), None);
        assert_eq!(parse_scaled("x", 0), None);
        assert_eq!(parse_scaled(".", 0), None);
        assert_eq!(parse_scaled("", 0), None);
    }

    #[test]
    fn iso() {
        let a = parse_iso8601_ps("2024-03-01T12:00:00.5Z").unwrap();
        let b = parse_iso8601_ps("2024-03-01T13:00:01+01:00").unwrap();
        assert_eq!(b - a, 500_000_000_000);
        assert_eq!(
            parse_iso8601_ps("1970-01-01T00:00:01Z"),
            Some(1_000_000_000_000)
        );
        assert!(parse_iso8601_ps("2024-13-01T00:00:00Z").is_none());
    }

    #[test]
    fn quoted_separators_stay_in_their_field() {
        let f = line_fields("\"Time [s]\",\"Clock, main\",\"a;b\", 1 ", ',');
        assert_eq!(f, ["Time [s]", "Clock, main", "a;b", "1"]);
        assert_eq!(sniff_sep("\"a,b,c\";x;y"), ';');
        assert_eq!(line_fields("0.5;1;0", ';'), ["0.5", "1", "0"]);
        assert_eq!(
            line_fields("a, \"b,c\",\"d\"\"e\"", ','),
            ["a", "b,c", "d\"e"]
        );
        assert_eq!(line_fields("", ','), [""]);
    }

    #[test]
    fn units() {
        assert_eq!(header_unit_exp("Time [s]"), Some(12));
        assert_eq!(header_unit_exp("time_ns"), Some(3));
        assert_eq!(header_unit_exp("microseconds"), Some(6));
        assert_eq!(header_unit_exp("Time"), None);
    }
}
