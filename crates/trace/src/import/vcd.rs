//! Streaming VCD reader (IEEE 1364 value change dump), written here because names with
//! spaces (as sigrok writes them) trip the common tokenizers.
//!
//! Handles scalar wires and vectors (one channel per bit, `name[i]`), `$dumpvars`,
//! several changes on one line with the `#time`, multi-character and shared
//! identifiers, names with spaces, any `$timescale` (also split over tokens or lines),
//! `x`/`z` (read as 0), `real` variables (kept as analog channels when uniformly
//! sampled), and a trailing bare `#time` (the capture end).

use super::analog_input::{AnalogInput, Problem, Times};
use super::builder::Builder;
use crate::error::{Error, Place, Result};
use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::Picos;
use std::collections::HashMap;
use std::io::{BufRead, Read};

/// Whitespace tokenizer over a byte stream that tracks line numbers.
pub(crate) struct Tokens<R: Read> {
    r: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    pub line: u64,
    eof: bool,
    tok: Vec<u8>,
    pub tok_line: u64,
    /// The last token was the first on its line.
    pub tok_first: bool,
    /// A line break was passed since the last token.
    newline: bool,
}

impl<R: Read> Tokens<R> {
    pub fn new(r: R) -> Self {
        Tokens {
            r,
            buf: vec![0; 1 << 16],
            pos: 0,
            len: 0,
            line: 1,
            eof: false,
            tok: Vec::with_capacity(64),
            tok_line: 1,
            tok_first: true,
            newline: true,
        }
    }
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        loop {
            match self.r.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.pos = 0;
                    self.len = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
    /// Skips the rest of the current line (after a token).
    pub fn skip_line(&mut self) -> std::io::Result<()> {
        loop {
            if self.pos >= self.len && !self.fill()? {
                return Ok(());
            }
            let b = self.buf[self.pos];
            self.pos += 1;
            if b == b'\n' {
                self.line += 1;
                self.newline = true;
                return Ok(());
            }
        }
    }
    /// Gives a token's buffer back for reuse.
    pub fn recycle(&mut self, t: Vec<u8>) {
        self.tok = t;
    }
    /// Next token (moved out; hand it back with `recycle`), or None at end of input.
    pub fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        // skip whitespace
        loop {
            if self.pos >= self.len && !self.fill()? {
                return Ok(None);
            }
            let b = self.buf[self.pos];
            if b.is_ascii_whitespace() {
                if b == b'\n' {
                    self.line += 1;
                    self.newline = true;
                }
                self.pos += 1;
            } else {
                break;
            }
        }
        self.tok.clear();
        self.tok_line = self.line;
        self.tok_first = std::mem::replace(&mut self.newline, false);
        loop {
            if self.pos >= self.len && !self.fill()? {
                break;
            }
            let start = self.pos;
            while self.pos < self.len && !self.buf[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            self.tok.extend_from_slice(&self.buf[start..self.pos]);
            if self.tok.len() > super::limits::MAX_LINE {
                return Err(std::io::Error::other(format!(
                    "line {}: a token longer than {} bytes (not a VCD file, or a damaged one)",
                    self.tok_line,
                    super::limits::MAX_LINE
                )));
            }
            if self.pos < self.len {
                break;
            }
        }
        Ok(Some(std::mem::take(&mut self.tok)))
    }
}

enum Var {
    /// Digital channel indices, bit 0 first.
    Bits(Vec<usize>),
    /// Index into the reals list.
    Real(usize),
}

/// Femtoseconds per unit from a `$timescale` text such as "1ns", "10 us", "100fs".
fn parse_timescale(s: &str) -> Option<u128> {
    let s = s.trim();
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    let unit = s[digits.len()..].trim();
    let n: u128 = if digits.is_empty() {
        1
    } else {
        digits.parse().ok()?
    };
    let fs: u128 = match unit {
        "s" => 1_000_000_000_000_000,
        "ms" => 1_000_000_000_000,
        "us" | "µs" => 1_000_000_000,
        "ns" => 1_000_000,
        "ps" => 1_000,
        "fs" => 1,
        _ => return None,
    };
    Some(n * fs)
}

/// Reads a VCD stream. `file` names the input in errors.
pub fn read<R: BufRead>(r: R, file: &str) -> Result<Capture> {
    read_opts(r, file, &super::Options::default())
}

/// [`read`] with the import options: the edge budget, and where to leave the warning
/// about skipped lines (sigrok-cli writes analog values as text lines such as
/// `A0: -10.0000 V DC` between the value changes; such lines are skipped and counted).
///
/// With `opts.only_channels`, edges are kept only for the channels named (names or `#N`;
/// `real` variables by name), so memory grows with the measured channels alone; the
/// others stay listed, without edges.
pub fn read_opts<R: BufRead>(r: R, file: &str, opts: &super::Options) -> Result<Capture> {
    read_impl(r, file, opts, false)
}

/// The channel names of a VCD stream, in capture order, from its header alone.
pub fn channel_names<R: BufRead>(r: R, file: &str) -> Result<Vec<String>> {
    let c = read_impl(r, file, &super::Options::default(), true)?;
    Ok(c.channels.into_iter().map(|c| c.name).collect())
}

fn read_impl<R: BufRead>(
    r: R,
    file: &str,
    opts: &super::Options,
    names_only: bool,
) -> Result<Capture> {
    let mut tk = Tokens::new(r);
    let d = read_header(&mut tk, file, opts)?;
    if names_only {
        return Ok(Capture {
            source: file.to_string(),
            samplerate_hz: d.rate,
            start: Picos(0),
            end: Picos(0),
            channels: d.b.finish(),
            analog: Vec::new(),
        });
    }
    let rate = d.rate;
    let mut v = Values::new(d, file, opts)?;
    let skipped = v.read(&mut tk)?;
    if let Some((count, first)) = skipped {
        opts.warnings.push(format!(
            "{file}: skipped {count} line(s) that are not VCD, the first at line \
             {first} (sigrok-cli writes analog values as such text lines)"
        ));
    }
    let (start, end) = (v.b.start, Picos(v.now.max(v.b.start.0)));
    let mut analog = even_reals(&v.real_names, v.reals);
    let kept = v.b.kept;
    let mut channels = v.b.finish();
    // measured real variables: as when read whole, only an evenly spaced one is an analog
    // channel (listed, without its values), and a name already taken is not added again
    let mut measured: u64 = 0;
    for (name, m) in v.real_names.iter().zip(v.measuring) {
        let Some(m) = m else { continue };
        let Some((first, iv)) = m.spacing() else {
            continue;
        };
        analog.push(AnalogChannel {
            name: name.clone(),
            start: Picos(first),
            interval: Picos(iv),
            values: Vec::new(),
        });
        if channels.iter().any(|c| &c.name == name) {
            continue;
        }
        let left = v.budget.saturating_sub(kept + measured);
        let mut ch: DigitalChannel = m
            .input
            .finish(left)
            .map_err(|p| Error::format(file, Place::File, p.message(name)))?;
        ch.edges.retain(|e| *e >= start && *e <= end);
        measured += ch.edges.len() as u64;
        channels.push(ch);
    }
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: rate,
        start,
        end,
        channels,
        analog,
    };
    cap.validate()?;
    Ok(cap)
}

/// The real variables read whole whose values are evenly spaced (at least two): those
/// are analog channels; the others are dropped.
fn even_reals(names: &[String], reals: Vec<Vec<(i64, f32)>>) -> Vec<AnalogChannel> {
    let mut analog = Vec::new();
    for (name, pts) in names.iter().cloned().zip(reals) {
        if pts.len() >= 2 {
            let iv = pts[1].0 - pts[0].0;
            if iv > 0 && pts.windows(2).all(|w| w[1].0 - w[0].0 == iv) {
                analog.push(AnalogChannel {
                    name,
                    start: Picos(pts[0].0),
                    interval: Picos(iv),
                    values: pts.iter().map(|p| p.1).collect(),
                });
            }
        }
    }
    analog
}

/// What the header declared.
struct Declared {
    /// Femtoseconds per time unit (1 ps if no `$timescale`).
    unit_fs: u128,
    /// latscope's own `start_ps` comment: where the recording's time 0 is.
    offset_ps: i128,
    rate: Option<u64>,
    vars: Vec<Var>,
    /// The variables each identifier names (aliases share every value).
    ids: HashMap<Vec<u8>, Vec<usize>>,
    b: Builder,
    real_names: Vec<String>,
}

/// The header's declarations while they are read: scopes open, names taken, and the
/// width and line of each identifier's first declaration.
struct HeaderReader<'a> {
    file: &'a str,
    opts: &'a super::Options,
    d: Declared,
    scope: Vec<String>,
    names: HashMap<String, ()>,
    widths: HashMap<Vec<u8>, (usize, u64)>,
}

/// Reads the header up to `$enddefinitions`.
fn read_header<R: Read>(tk: &mut Tokens<R>, file: &str, opts: &super::Options) -> Result<Declared> {
    let mut h = HeaderReader {
        file,
        opts,
        d: Declared {
            unit_fs: 1_000,
            offset_ps: 0,
            rate: None,
            vars: Vec::new(),
            ids: HashMap::new(),
            b: Builder::new(Vec::new(), Picos(0)),
            real_names: Vec::new(),
        },
        scope: Vec::new(),
        names: HashMap::new(),
        widths: HashMap::new(),
    };
    let mut defs_done = false;
    while let Some(tv) = tk.next().map_err(|e| Error::io(file, e))? {
        let line = tk.tok_line;
        match tv.as_slice() {
            b"$enddefinitions" => {
                expect_end(tk, file)?;
                defs_done = true;
                break;
            }
            b"$timescale" => {
                let body = collect_until_end(tk, file, line, "$timescale")?;
                h.d.unit_fs = parse_timescale(&body.join("")).ok_or_else(|| {
                    h.err(line, format!("unreadable $timescale '{}'", body.join(" ")))
                })?;
            }
            b"$comment" => {
                let body = collect_until_end(tk, file, line, "$comment")?;
                h.comment(&body, line)?;
            }
            b"$scope" => {
                let body = collect_until_end(tk, file, line, "$scope")?;
                h.scope.push(body.get(1).cloned().unwrap_or_default());
            }
            b"$upscope" => {
                collect_until_end(tk, file, line, "$upscope")?;
                h.scope.pop();
            }
            b"$var" => {
                let body = collect_until_end(tk, file, line, "$var")?;
                h.var(&body, line)?;
            }
            t if t.starts_with(b"$") => {
                let name = String::from_utf8_lossy(t).into_owned();
                collect_until_end(tk, file, line, &name)?;
            }
            t => {
                return Err(h.err(
                    line,
                    format!(
                        "unexpected '{}' in the VCD header (is this a VCD file?)",
                        String::from_utf8_lossy(t)
                    ),
                ))
            }
        }
    }
    if !defs_done {
        return Err(Error::format(
            file,
            Place::Line(tk.line),
            "no $enddefinitions: not a VCD file, or truncated header",
        ));
    }
    if h.d.vars.is_empty() {
        return Err(Error::format(
            file,
            Place::File,
            "no $var declarations: the capture has no channels",
        ));
    }
    Ok(h.d)
}

impl HeaderReader<'_> {
    fn err(&self, line: u64, msg: String) -> Error {
        Error::format(self.file, Place::Line(line), msg)
    }

    /// latscope's own comment (`latscope start_ps=… samplerate_hz=…`); others are skipped.
    fn comment(&mut self, body: &[String], line: u64) -> Result<()> {
        if body.first().map(|s| s.as_str()) != Some("latscope") {
            return Ok(());
        }
        for kv in &body[1..] {
            if let Some(v) = kv.strip_prefix("start_ps=") {
                self.d.offset_ps = v
                    .parse::<i64>()
                    .map_err(|_| self.err(line, format!("bad latscope start_ps '{v}'")))?
                    as i128;
            } else if let Some(v) = kv.strip_prefix("samplerate_hz=") {
                self.d.rate = v.parse::<u64>().ok().filter(|&r| r > 0);
            }
        }
        Ok(())
    }

    /// One `$var`: its channels (one per bit, or a real variable) under its name.
    fn var(&mut self, body: &[String], line: u64) -> Result<()> {
        if body.len() < 4 {
            return Err(self.err(
                line,
                format!(
                    "$var needs type, size, identifier and name: '{}'",
                    body.join(" ")
                ),
            ));
        }
        let kind = body[0].as_str();
        let size = self.var_size(body, line)?;
        let id = body[2].as_bytes().to_vec();
        self.note_width(&id, &body[2], size, line);
        let (name, range) = self.var_name(&body[3..], size);
        let vi = self.d.vars.len();
        let d = &mut self.d;
        if kind == "real" || kind == "realtime" {
            d.real_names.push(name);
            d.vars.push(Var::Real(d.real_names.len() - 1));
        } else if size == 1 {
            let chname = match range {
                Some((m, l)) if m == l => format!("{name}[{m}]"),
                _ => name,
            };
            d.vars.push(Var::Bits(vec![d.b.add(chname)]));
        } else {
            let (msb, lsb) = range.unwrap_or((size as i64 - 1, 0));
            let mut bits = Vec::with_capacity(size);
            for k in 0..size as i64 {
                let idx = if msb >= lsb { lsb + k } else { lsb - k };
                bits.push(d.b.add(format!("{name}[{idx}]")));
            }
            d.vars.push(Var::Bits(bits));
        }
        d.ids.entry(id).or_default().push(vi);
        Ok(())
    }

    /// The `$var`'s width, refused when it is out of range or would take the channels
    /// past the limit.
    fn var_size(&self, body: &[String], line: u64) -> Result<usize> {
        let size: usize = body[1]
            .parse()
            .map_err(|_| self.err(line, format!("$var size '{}' is not a number", body[1])))?;
        if size == 0 || size > 4096 {
            return Err(self.err(line, format!("$var size {size} is out of range")));
        }
        let bits_now = self.d.b.chans.len() + if kind_is_real(&body[0]) { 0 } else { size };
        if bits_now > super::limits::MAX_CHANNELS
            || self.d.vars.len() >= super::limits::MAX_CHANNELS
        {
            return Err(self.err(
                line,
                format!(
                    "more than {} channels (bits of all $var declarations): refused",
                    super::limits::MAX_CHANNELS
                ),
            ));
        }
        Ok(size)
    }

    /// One identifier may name several variables (aliases), which then share every
    /// value; of two widths, a value fits only one of them exactly (a scalar sets bit 0
    /// of a vector, a vector's bit 0 sets a scalar), which the warning says.
    fn note_width(&mut self, id: &[u8], shown: &str, size: usize, line: u64) {
        match self.widths.get(id) {
            Some(&(w, l)) if w != size => {
                let bits = |n: usize| {
                    if n == 1 {
                        "1 bit".to_string()
                    } else {
                        format!("{n} bits")
                    }
                };
                self.opts.warnings.push(format!(
                    "{}: line {line}: identifier '{shown}' declared with {} here and {} \
                     on line {l}: its values are shared, fitted to each width",
                    self.file,
                    bits(size),
                    bits(w)
                ));
            }
            Some(_) => {}
            None => {
                self.widths.insert(id.to_vec(), (size, line));
            }
        }
    }

    /// The variable's name and bit range (a trailing "[msb:lsb]" or "[i]" token, or a
    /// vector name ending in one); a name already taken gets its scope path in front.
    fn var_name(&mut self, refs: &[String], size: usize) -> (String, Option<(i64, i64)>) {
        let mut refs: Vec<&str> = refs.iter().map(|s| s.as_str()).collect();
        let mut range: Option<(i64, i64)> = None;
        if refs.len() > 1 {
            if let Some(r) = refs.last().and_then(|s| parse_range(s)) {
                range = Some(r);
                refs.pop();
            }
        }
        let mut name = refs.join(" ");
        if range.is_none() && size > 1 {
            if let Some(p) = name.rfind('[') {
                if let Some(r) = parse_range(&name[p..]) {
                    range = Some(r);
                    name.truncate(p);
                }
            }
        }
        if self.names.contains_key(&name) && !self.scope.is_empty() {
            name = format!("{}.{}", self.scope.join("."), name);
        }
        self.names.insert(name.clone(), ());
        (name, range)
    }
}

/// The value changes being read: the declarations, the channels being built, the real
/// variables (kept whole or measured through a threshold) and the current time.
struct Values<'a> {
    file: &'a str,
    unit_fs: u128,
    offset_ps: i128,
    vars: Vec<Var>,
    ids: HashMap<Vec<u8>, Vec<usize>>,
    b: Builder,
    real_names: Vec<String>,
    /// Values of the real variables read whole.
    reals: Vec<Vec<(i64, f32)>>,
    /// Real variables are kept only when named (measured through a threshold): read
    /// whole, their values are kept; measured, they are thresholded while read.
    keep_real: Vec<bool>,
    measuring: Vec<Option<RealInput>>,
    analog_kept: u64,
    budget: u64,
    now: i64,
    cur_raw: Option<u64>,
    first_raw: Option<u64>,
}

impl<'a> Values<'a> {
    fn new(d: Declared, file: &'a str, opts: &super::Options) -> Result<Values<'a>> {
        let budget = opts.edge_budget();
        let only = opts.only_channels.as_deref();
        let mut b = d.b;
        b.select(only);
        let keep_real: Vec<bool> = d
            .real_names
            .iter()
            .map(|n| only.is_none_or(|o| o.contains(n)))
            .collect();
        let mut measuring: Vec<Option<RealInput>> = Vec::with_capacity(d.real_names.len());
        for (n, &k) in d.real_names.iter().zip(&keep_real) {
            measuring.push(if k && only.is_some() {
                Some(
                    RealInput::new(n, opts, budget)
                        .map_err(|p| Error::format(file, Place::File, p.message(n)))?,
                )
            } else {
                None
            });
        }
        let now = d.offset_ps.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        b.start = Picos(now);
        Ok(Values {
            file,
            unit_fs: d.unit_fs,
            offset_ps: d.offset_ps,
            vars: d.vars,
            ids: d.ids,
            b,
            reals: d.real_names.iter().map(|_| Vec::new()).collect(),
            real_names: d.real_names,
            keep_real,
            measuring,
            analog_kept: 0,
            budget,
            now,
            cur_raw: None,
            first_raw: None,
        })
    }

    fn err(&self, line: u64, msg: String) -> Error {
        Error::format(self.file, Place::Line(line), msg)
    }

    /// Reads the value changes to the end; returns how many lines were skipped as not
    /// VCD (sigrok-cli's analog text) and the first of them.
    fn read<R: Read>(&mut self, tk: &mut Tokens<R>) -> Result<Option<(u64, u64)>> {
        let file = self.file;
        let mut skipped: Option<(u64, u64)> = None;
        let mut pending_vec: Option<(Vec<u8>, u64)> = None;
        while let Some(tv) = tk.next().map_err(|e| Error::io(file, e))? {
            let line = tk.tok_line;
            if let Some((val, vline)) = pending_vec.take() {
                self.vector(&val, vline, &tv)?;
                tk.recycle(tv);
                continue;
            }
            let t = tv.as_slice();
            match t[0] {
                b'#' => self.timestamp(t, line)?,
                b'0' | b'1' | b'x' | b'X' | b'z' | b'Z' => self.scalar(t, line)?,
                b'b' | b'B' | b'r' | b'R' => pending_vec = Some((t.to_vec(), line)),
                b'$' => match t {
                    b"$dumpvars" | b"$dumpall" | b"$dumpon" | b"$dumpoff" | b"$end" => {}
                    _ => {
                        let name = String::from_utf8_lossy(t).into_owned();
                        collect_until_end(tk, file, line, &name)?;
                    }
                },
                _ if tk.tok_first => {
                    // not a VCD line (sigrok-cli's analog text): skip it, warn once at the end
                    let s = skipped.get_or_insert((0, line));
                    s.0 += 1;
                    tk.skip_line().map_err(|e| Error::io(file, e))?;
                }
                _ => {
                    return Err(self.err(
                        line,
                        format!("unexpected token '{}'", String::from_utf8_lossy(t)),
                    ))
                }
            }
        }
        if let Some((_, vline)) = pending_vec {
            return Err(self.err(
                vline,
                "value without an identifier at the end of the file".into(),
            ));
        }
        Ok(skipped)
    }

    /// Picoseconds of a raw time stamp.
    fn to_ps(&self, t: u64) -> i128 {
        self.offset_ps + (t as u128 * self.unit_fs / 1000) as i128
    }

    /// `#time`: checked to go forwards and fit, and against the edge budget.
    fn timestamp(&mut self, t: &[u8], line: u64) -> Result<()> {
        let raw: u64 = std::str::from_utf8(&t[1..])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| {
                self.err(
                    line,
                    format!("bad timestamp '{}'", String::from_utf8_lossy(t)),
                )
            })?;
        if let Some(c) = self.cur_raw {
            if raw < c {
                return Err(self.err(line, format!("time goes backwards: #{raw} after #{c}")));
            }
        }
        if self.first_raw.is_none() {
            self.first_raw = Some(raw);
            if self.offset_ps == 0 {
                self.b.start = Picos(self.to_ps(raw).clamp(0, i64::MAX as i128) as i64);
            }
        }
        self.cur_raw = Some(raw);
        if self.b.kept > self.budget {
            return Err(self.err(
                line,
                format!(
                    "more than {} edges in all: more than one import may keep \
                     (--max-edges raises the limit)",
                    self.budget
                ),
            ));
        }
        let ps = self.to_ps(raw);
        if ps > i64::MAX as i128 {
            return Err(self.err(
                line,
                format!("timestamp #{raw} overflows 64-bit picoseconds"),
            ));
        }
        self.now = ps as i64;
        Ok(())
    }

    /// The variables an identifier names.
    fn vars_of(&self, id: &[u8], line: u64) -> Result<&[usize]> {
        self.ids.get(id).map(|l| l.as_slice()).ok_or_else(|| {
            self.err(
                line,
                format!("unknown identifier '{}'", String::from_utf8_lossy(id)),
            )
        })
    }

    /// A scalar value change (`0!`, `1!`, `x!`, `z!`).
    fn scalar(&mut self, t: &[u8], line: u64) -> Result<()> {
        let lv = t[0] == b'1';
        let id = &t[1..];
        self.vars_of(id, line)?;
        let (now, list) = (Picos(self.now), &self.ids[id]);
        for &vi in list {
            match &self.vars[vi] {
                Var::Bits(bits) => {
                    // a scalar value on a vector sets bit 0, clears others
                    for (k, &ch) in bits.iter().enumerate() {
                        self.b.set(ch, now, k == 0 && lv);
                    }
                }
                Var::Real(ri) if self.keep_real[*ri] => match &mut self.measuring[*ri] {
                    Some(m) => m.push(now.0, lv as u8 as f32).map_err(|p| {
                        Error::format(
                            self.file,
                            Place::Line(line),
                            p.message(&self.real_names[*ri]),
                        )
                    })?,
                    None => self.reals[*ri].push((now.0, lv as u8 as f32)),
                },
                Var::Real(_) => {}
            }
        }
        Ok(())
    }

    /// A vector or real value (`b0101 !`, `r1.5 !`) for the identifier `id`.
    fn vector(&mut self, val: &[u8], vline: u64, id: &[u8]) -> Result<()> {
        self.vars_of(id, vline)?;
        let list = &self.ids[id];
        for &vi in list {
            match &self.vars[vi] {
                Var::Bits(bits) => {
                    set_vector(&mut self.b, bits, Picos(self.now), val).ok_or_else(|| {
                        Error::format(
                            self.file,
                            Place::Line(vline),
                            format!("bad value '{}'", String::from_utf8_lossy(val)),
                        )
                    })?
                }
                &Var::Real(ri) => {
                    let x = if val[0] == b'r' || val[0] == b'R' {
                        parse_real(&val[1..])
                    } else {
                        parse_bits(&val[1..]).map(|v| v as f64)
                    }
                    .ok_or_else(|| {
                        Error::format(
                            self.file,
                            Place::Line(vline),
                            format!("bad value '{}'", String::from_utf8_lossy(val)),
                        )
                    })?;
                    if !self.keep_real[ri] {
                        continue;
                    }
                    if let Some(m) = &mut self.measuring[ri] {
                        m.push(self.now, x as f32).map_err(|p| {
                            Error::format(
                                self.file,
                                Place::Line(vline),
                                p.message(&self.real_names[ri]),
                            )
                        })?;
                        continue;
                    }
                    self.analog_kept += 1;
                    if self.analog_kept > super::limits::MAX_ANALOG_SAMPLES {
                        return Err(Error::format(
                            self.file,
                            Place::Line(vline),
                            format!(
                                "more than {} real values: more than one import may keep",
                                super::limits::MAX_ANALOG_SAMPLES
                            ),
                        ));
                    }
                    self.reals[ri].push((self.now, x as f32));
                }
            }
        }
        Ok(())
    }
}

/// A vector value on a bit vector: `b…` bits, bit 0 last (missing high bits are 0), or
/// a real value taken as an integer. `None` when the real value does not parse.
fn set_vector(b: &mut Builder, bits: &[usize], now: Picos, val: &[u8]) -> Option<()> {
    if val.first() == Some(&b'b') || val.first() == Some(&b'B') {
        let v = &val[1..];
        for (k, &ch) in bits.iter().enumerate() {
            let bit = if k < v.len() {
                v[v.len() - 1 - k]
            } else {
                b'0'
            };
            b.set(ch, now, bit == b'1');
        }
    } else {
        let xi = parse_real(&val[1..])? as i64;
        for (k, &ch) in bits.iter().enumerate() {
            b.set(ch, now, k < 64 && (xi >> k) & 1 == 1);
        }
    }
    Some(())
}

fn kind_is_real(k: &str) -> bool {
    k == "real" || k == "realtime"
}

fn parse_range(s: &str) -> Option<(i64, i64)> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    match inner.split_once(':') {
        Some((a, b)) => Some((a.trim().parse().ok()?, b.trim().parse().ok()?)),
        None => {
            let v = inner.trim().parse().ok()?;
            Some((v, v))
        }
    }
}

fn parse_real(s: &[u8]) -> Option<f64> {
    std::str::from_utf8(s).ok()?.parse().ok()
}

fn parse_bits(s: &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for &c in s.iter().rev().take(64).collect::<Vec<_>>().iter().rev() {
        v = (v << 1) | (*c == b'1') as u64;
    }
    Some(v)
}

fn collect_until_end<R: Read>(
    tk: &mut Tokens<R>,
    file: &str,
    line: u64,
    what: &str,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    loop {
        match tk.next().map_err(|e| Error::io(file, e))? {
            None => {
                return Err(Error::format(
                    file,
                    Place::Line(line),
                    format!("{what} is not closed by $end before the end of the file"),
                ))
            }
            Some(t) if t == b"$end" => return Ok(out),
            Some(t) => {
                if out.len() > 10_000 {
                    return Err(Error::format(
                        file,
                        Place::Line(line),
                        format!("{what} runs on for more than 10000 tokens without $end"),
                    ));
                }
                out.push(String::from_utf8_lossy(&t).into_owned())
            }
        }
    }
}

fn expect_end<R: Read>(tk: &mut Tokens<R>, file: &str) -> Result<()> {
    let line = tk.tok_line;
    collect_until_end(tk, file, line, "$enddefinitions").map(|_| ())
}

/// A real variable measured through a threshold while read (see
/// [`super::analog_input`]), with what decides whether it is an analog channel at all: a
/// read of the whole file keeps a real variable as one only when its values are evenly
/// spaced in time.
struct RealInput {
    input: AnalogInput,
    first: Option<i64>,
    prev: i64,
    interval: Option<i64>,
    even: bool,
}

impl RealInput {
    fn new(name: &str, opts: &super::Options, budget: u64) -> std::result::Result<Self, Problem> {
        Ok(RealInput {
            input: AnalogInput::new(
                name,
                opts.threshold,
                opts.hysteresis,
                Times::Explicit,
                budget,
            )?,
            first: None,
            prev: 0,
            interval: None,
            even: true,
        })
    }
    fn push(&mut self, t: i64, v: f32) -> std::result::Result<(), Problem> {
        if self.first.is_some() {
            let d = t - self.prev;
            match self.interval {
                None => self.interval = Some(d),
                Some(iv) => self.even &= d == iv,
            }
        } else {
            self.first = Some(t);
        }
        self.prev = t;
        self.input.push(t, v)
    }
    /// (start, interval) when the values were evenly spaced (at least two, interval > 0).
    fn spacing(&self) -> Option<(i64, i64)> {
        match (self.first, self.interval) {
            (Some(f), Some(iv)) if iv > 0 && self.even => Some((f, iv)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rd(s: &str) -> Result<Capture> {
        read(s.as_bytes(), "t.vcd")
    }

    #[test]
    fn sigrok_style_changes_on_time_line_and_spaces() {
        let v = "$timescale\n 1 us \n$end\n$scope module x $end\n$var wire 1 ! D 0 $end\n$var wire 1 \" clk $end\n$upscope $end\n$enddefinitions $end\n#0 1! 0\"\n#5 0! 1\"\n#7 0\"\n#10\n";
        let c = rd(v).unwrap();
        assert_eq!(c.channels[0].name, "D 0");
        assert!(c.channels[0].initial);
        assert_eq!(c.channels[0].edges, vec![Picos::from_us(5)]);
        assert_eq!(
            c.channels[1].edges,
            vec![Picos::from_us(5), Picos::from_us(7)]
        );
        assert_eq!(c.end, Picos::from_us(10));
    }

    /// Found by fuzzing: a channel may be named `#0`; selecting `#0` then decodes the
    /// channel at index 0 and the one of that name, both with the edges of a whole read.
    #[test]
    fn selection_by_index_and_a_channel_named_like_one() {
        let v = "$var wire 1 ! a $end $var wire 1 \" b $end $var wire 1 # #0 $end \
                 $enddefinitions $end #0 0! 0\" 0# #5 1! 1\" 1# #9 0! 0\" 0#\n";
        let whole = rd(v).unwrap();
        let opts = crate::import::Options {
            only_channels: Some(vec!["#0".into()]),
            ..Default::default()
        };
        let one = read_opts(v.as_bytes(), "t.vcd", &opts).unwrap();
        assert_eq!(one.channels[0], whole.channels[0]);
        assert_eq!(whole.channels[0].edges.len(), 2);
        assert!(one.channels[1].edges.is_empty());
        assert_eq!(one.channels[2], whole.channels[2]);
    }

    #[test]
    fn vectors_shared_ids_and_errors() {
        let v = "$timescale 10ns $end $var wire 2 # bus [1:0] $end $var wire 1 # alias $end $enddefinitions $end #0 $dumpvars b00 # $end #3 b10 # #4 b1 #\n";
        let c = rd(v).unwrap();
        let n: Vec<_> = c.channels.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(n, ["bus[0]", "bus[1]", "alias"]);
        assert_eq!(
            c.channels[1].edges,
            vec![Picos::from_ns(30), Picos::from_ns(40)]
        );
        assert_eq!(c.channels[0].edges, vec![Picos::from_ns(40)]);
        let e = rd("$var wire 1 ! a $end $enddefinitions $end #0 1?\n").unwrap_err();
        assert!(
            e.to_string().contains("line 1") && e.to_string().contains("unknown identifier"),
            "{e}"
        );
        let e = rd("$var wire 1 ! a $end $enddefinitions $end\n#5 1!\n#3 0!\n").unwrap_err();
        assert!(
            e.to_string().contains("line 3") && e.to_string().contains("backwards"),
            "{e}"
        );
    }
}
