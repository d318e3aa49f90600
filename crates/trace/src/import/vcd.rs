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
    let budget = opts.edge_budget();
    let mut skipped: u64 = 0;
    let mut first_skipped: u64 = 0;
    let mut analog_kept: u64 = 0;
    let mut tk = Tokens::new(r);
    let io = |e| Error::io(file, e);
    let ferr = |line: u64, msg: String| Error::format(file, Place::Line(line), msg);
    let mut unit_fs: u128 = 1_000; // 1 ps if no $timescale
    let mut offset_ps: i128 = 0;
    let mut rate: Option<u64> = None;
    let mut vars: Vec<Var> = Vec::new();
    let mut ids: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    let mut b = Builder::new(Vec::new(), Picos(0));
    let mut real_names: Vec<String> = Vec::new();
    let mut reals: Vec<Vec<(i64, f32)>> = Vec::new();
    let mut scope: Vec<String> = Vec::new();
    let mut names: HashMap<String, ()> = HashMap::new();
    // the width and line of each identifier's first declaration
    let mut widths: HashMap<Vec<u8>, (usize, u64)> = HashMap::new();

    // ---- header
    let mut defs_done = false;
    while let Some(tv) = tk.next().map_err(io)? {
        let line = tk.tok_line;
        let t = tv.as_slice();
        match t {
            b"$enddefinitions" => {
                expect_end(&mut tk, file)?;
                defs_done = true;
                break;
            }
            b"$timescale" => {
                let body = collect_until_end(&mut tk, file, line, "$timescale")?;
                let text = body.join("");
                unit_fs = parse_timescale(&text).ok_or_else(|| {
                    ferr(line, format!("unreadable $timescale '{}'", body.join(" ")))
                })?;
            }
            b"$comment" => {
                let body = collect_until_end(&mut tk, file, line, "$comment")?;
                if body.first().map(|s| s.as_str()) == Some("latscope") {
                    for kv in &body[1..] {
                        if let Some(v) = kv.strip_prefix("start_ps=") {
                            offset_ps = v
                                .parse::<i64>()
                                .map_err(|_| ferr(line, format!("bad latscope start_ps '{v}'")))?
                                as i128;
                        } else if let Some(v) = kv.strip_prefix("samplerate_hz=") {
                            rate = v.parse::<u64>().ok().filter(|&r| r > 0);
                        }
                    }
                }
            }
            b"$scope" => {
                let body = collect_until_end(&mut tk, file, line, "$scope")?;
                scope.push(body.get(1).cloned().unwrap_or_default());
            }
            b"$upscope" => {
                collect_until_end(&mut tk, file, line, "$upscope")?;
                scope.pop();
            }
            b"$var" => {
                let body = collect_until_end(&mut tk, file, line, "$var")?;
                if body.len() < 4 {
                    return Err(ferr(
                        line,
                        format!(
                            "$var needs type, size, identifier and name: '{}'",
                            body.join(" ")
                        ),
                    ));
                }
                let kind = body[0].as_str();
                let size: usize = body[1]
                    .parse()
                    .map_err(|_| ferr(line, format!("$var size '{}' is not a number", body[1])))?;
                if size == 0 || size > 4096 {
                    return Err(ferr(line, format!("$var size {size} is out of range")));
                }
                let bits_now = b.chans.len() + if kind_is_real(&body[0]) { 0 } else { size };
                if bits_now > super::limits::MAX_CHANNELS
                    || vars.len() >= super::limits::MAX_CHANNELS
                {
                    return Err(ferr(
                        line,
                        format!(
                            "more than {} channels (bits of all $var declarations): refused",
                            super::limits::MAX_CHANNELS
                        ),
                    ));
                }
                let id = body[2].as_bytes().to_vec();
                // one identifier may name several variables (aliases), which then share
                // every value; of two widths, a value fits only one of them exactly (a
                // scalar sets bit 0 of a vector, a vector's bit 0 sets a scalar)
                match widths.get(&id) {
                    Some(&(w, l)) if w != size => {
                        let bits = |n: usize| {
                            if n == 1 {
                                "1 bit".to_string()
                            } else {
                                format!("{n} bits")
                            }
                        };
                        opts.warnings.push(format!(
                            "{file}: line {line}: identifier '{}' declared with {} here and {} \
                             on line {l}: its values are shared, fitted to each width",
                            body[2],
                            bits(size),
                            bits(w)
                        ));
                    }
                    Some(_) => {}
                    None => {
                        widths.insert(id.clone(), (size, line));
                    }
                }
                let mut refs: Vec<&str> = body[3..].iter().map(|s| s.as_str()).collect();
                // A trailing "[msb:lsb]" or "[i]" token is the bit range.
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
                if names.contains_key(&name) && !scope.is_empty() {
                    name = format!("{}.{}", scope.join("."), name);
                }
                names.insert(name.clone(), ());
                let vi = vars.len();
                if kind == "real" || kind == "realtime" {
                    real_names.push(name);
                    reals.push(Vec::new());
                    vars.push(Var::Real(reals.len() - 1));
                } else if size == 1 {
                    let chname = match range {
                        Some((m, l)) if m == l => format!("{name}[{m}]"),
                        _ => name,
                    };
                    vars.push(Var::Bits(vec![b.add(chname)]));
                } else {
                    let (msb, lsb) = range.unwrap_or((size as i64 - 1, 0));
                    let mut bits = Vec::with_capacity(size);
                    for k in 0..size as i64 {
                        let idx = if msb >= lsb { lsb + k } else { lsb - k };
                        bits.push(b.add(format!("{name}[{idx}]")));
                    }
                    vars.push(Var::Bits(bits));
                }
                ids.entry(id).or_default().push(vi);
            }
            t if t.starts_with(b"$") => {
                let name = String::from_utf8_lossy(t).into_owned();
                collect_until_end(&mut tk, file, line, &name)?;
            }
            t => {
                return Err(ferr(
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
    if vars.is_empty() {
        return Err(Error::format(
            file,
            Place::File,
            "no $var declarations: the capture has no channels",
        ));
    }
    if names_only {
        return Ok(Capture {
            source: file.to_string(),
            samplerate_hz: rate,
            start: Picos(0),
            end: Picos(0),
            channels: b.finish(),
            analog: Vec::new(),
        });
    }
    let only = opts.only_channels.as_deref();
    b.select(only);
    // real variables are kept only when named (measured through a threshold): read whole,
    // their values are kept; measured, they are thresholded while read
    let keep_real: Vec<bool> = real_names
        .iter()
        .map(|n| only.is_none_or(|o| o.contains(n)))
        .collect();
    let mut measuring: Vec<Option<RealInput>> = Vec::with_capacity(real_names.len());
    for (n, &k) in real_names.iter().zip(&keep_real) {
        measuring.push(if k && only.is_some() {
            Some(
                RealInput::new(n, opts, budget)
                    .map_err(|p| Error::format(file, Place::File, p.message(n)))?,
            )
        } else {
            None
        });
    }
    let to_ps = |t: u64| -> i128 { offset_ps + (t as u128 * unit_fs / 1000) as i128 };
    let mut cur_raw: Option<u64> = None;
    let mut first_raw: Option<u64> = None;
    let mut now: i64 = offset_ps.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    b.start = Picos(now);
    let mut pending_vec: Option<(Vec<u8>, u64)> = None;
    while let Some(tv) = tk.next().map_err(io)? {
        let line = tk.tok_line;
        let t = tv.as_slice();
        if let Some((val, vline)) = pending_vec.take() {
            let list = ids.get(t).ok_or_else(|| {
                ferr(
                    vline,
                    format!("unknown identifier '{}'", String::from_utf8_lossy(t)),
                )
            })?;
            for &vi in list {
                match &vars[vi] {
                    Var::Bits(bits) => {
                        if val.first() == Some(&b'b') || val.first() == Some(&b'B') {
                            let v = &val[1..];
                            for (k, &ch) in bits.iter().enumerate() {
                                let bit = if k < v.len() {
                                    v[v.len() - 1 - k]
                                } else {
                                    b'0'
                                };
                                b.set(ch, Picos(now), bit == b'1');
                            }
                        } else {
                            // a real value on a bit vector: take it as an integer
                            let x = parse_real(&val[1..]).ok_or_else(|| {
                                ferr(
                                    vline,
                                    format!("bad value '{}'", String::from_utf8_lossy(&val)),
                                )
                            })?;
                            let xi = x as i64;
                            for (k, &ch) in bits.iter().enumerate() {
                                b.set(ch, Picos(now), k < 64 && (xi >> k) & 1 == 1);
                            }
                        }
                    }
                    Var::Real(ri) => {
                        let x = if val[0] == b'r' || val[0] == b'R' {
                            parse_real(&val[1..])
                        } else {
                            parse_bits(&val[1..]).map(|v| v as f64)
                        }
                        .ok_or_else(|| {
                            ferr(
                                vline,
                                format!("bad value '{}'", String::from_utf8_lossy(&val)),
                            )
                        })?;
                        if !keep_real[*ri] {
                            continue;
                        }
                        if let Some(m) = &mut measuring[*ri] {
                            m.push(now, x as f32)
                                .map_err(|p| ferr(vline, p.message(&real_names[*ri])))?;
                            continue;
                        }
                        analog_kept += 1;
                        if analog_kept > super::limits::MAX_ANALOG_SAMPLES {
                            return Err(ferr(
                                vline,
                                format!(
                                    "more than {} real values: more than one import may keep",
                                    super::limits::MAX_ANALOG_SAMPLES
                                ),
                            ));
                        }
                        reals[*ri].push((now, x as f32));
                    }
                }
            }
            tk.recycle(tv);
            continue;
        }
        match t[0] {
            b'#' => {
                let raw: u64 = std::str::from_utf8(&t[1..])
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| {
                        ferr(
                            line,
                            format!("bad timestamp '{}'", String::from_utf8_lossy(t)),
                        )
                    })?;
                if let Some(c) = cur_raw {
                    if raw < c {
                        return Err(ferr(
                            line,
                            format!("time goes backwards: #{raw} after #{c}"),
                        ));
                    }
                }
                if first_raw.is_none() {
                    first_raw = Some(raw);
                    if offset_ps == 0 {
                        b.start = Picos(to_ps(raw).clamp(0, i64::MAX as i128) as i64);
                    }
                }
                cur_raw = Some(raw);
                if b.kept > budget {
                    return Err(ferr(
                        line,
                        format!(
                            "more than {budget} edges in all: more than one import may keep \
                             (--max-edges raises the limit)"
                        ),
                    ));
                }
                let ps = to_ps(raw);
                if ps > i64::MAX as i128 {
                    return Err(ferr(
                        line,
                        format!("timestamp #{raw} overflows 64-bit picoseconds"),
                    ));
                }
                now = ps as i64;
            }
            b'0' | b'1' | b'x' | b'X' | b'z' | b'Z' => {
                let lv = t[0] == b'1';
                let id = &t[1..];
                let list = ids.get(id).ok_or_else(|| {
                    ferr(
                        line,
                        format!("unknown identifier '{}'", String::from_utf8_lossy(id)),
                    )
                })?;
                for &vi in list {
                    match &vars[vi] {
                        Var::Bits(bits) => {
                            // a scalar value on a vector sets bit 0, clears others
                            for (k, &ch) in bits.iter().enumerate() {
                                b.set(ch, Picos(now), k == 0 && lv);
                            }
                        }
                        Var::Real(ri) if keep_real[*ri] => match &mut measuring[*ri] {
                            Some(m) => m
                                .push(now, lv as u8 as f32)
                                .map_err(|p| ferr(line, p.message(&real_names[*ri])))?,
                            None => reals[*ri].push((now, lv as u8 as f32)),
                        },
                        Var::Real(_) => {}
                    }
                }
            }
            b'b' | b'B' | b'r' | b'R' => {
                pending_vec = Some((t.to_vec(), line));
            }
            b'$' => match t {
                b"$dumpvars" | b"$dumpall" | b"$dumpon" | b"$dumpoff" | b"$end" => {}
                _ => {
                    let name = String::from_utf8_lossy(t).into_owned();
                    collect_until_end(&mut tk, file, line, &name)?;
                }
            },
            _ if tk.tok_first => {
                // not a VCD line (sigrok-cli's analog text): skip it, warn once at the end
                if skipped == 0 {
                    first_skipped = line;
                }
                skipped += 1;
                tk.skip_line().map_err(io)?;
            }
            _ => {
                return Err(ferr(
                    line,
                    format!("unexpected token '{}'", String::from_utf8_lossy(t)),
                ))
            }
        }
    }
    if skipped > 0 {
        opts.warnings.push(format!(
            "{file}: skipped {skipped} line(s) that are not VCD, the first at line \
             {first_skipped} (sigrok-cli writes analog values as such text lines)"
        ));
    }
    if let Some((_, vline)) = pending_vec {
        return Err(ferr(
            vline,
            "value without an identifier at the end of the file".into(),
        ));
    }
    let start = b.start;
    let end = Picos(now.max(start.0));
    let mut analog = Vec::new();
    for (name, pts) in real_names.iter().cloned().zip(reals) {
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
    let kept = b.kept;
    let mut channels = b.finish();
    // measured real variables: as when read whole, only an evenly spaced one is an analog
    // channel (listed, without its values), and a name already taken is not added again
    let mut measured: u64 = 0;
    for (name, m) in real_names.iter().zip(measuring) {
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
        let left = budget.saturating_sub(kept + measured);
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
