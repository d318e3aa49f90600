//! VCD writer: one value change per line, `#time` on a line of its own, so strict readers
//! (GTKWave's vcd2fst, simulators' VCD readers) accept it.
//!
//! * times are written relative to the capture start, in the coarsest power-of-ten
//!   timescale (1 s … 1 ps) that represents every edge exactly;
//! * the capture start (which may be negative: pre-trigger data) is kept in a
//!   `$comment latscope start_ps=N $end` line that latscope's importer reads back;
//! * names have whitespace, control characters and a word-initial `$` replaced by `_` (a VCD
//!   reference may not contain spaces, and `$end`, `$var`, … would be read as keywords), then
//!   are made unique by a `_2`, `_3`, … suffix, so that latscope reads back every channel it
//!   writes;
//! * analog channels become `real` variables, one change per sample;
//! * a final bare `#time` marks the capture end.

use latscope_core::capture::Capture;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use super::vcd_out::{BitLine, DecTime, Out};

/// VCD identifier for variable `i`: printable ASCII 33..=126, base 94.
pub fn ident(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((33 + (i % 94) as u8) as char);
        i /= 94;
        if i == 0 {
            break;
        }
        i -= 1;
    }
    s
}

/// A name usable as a VCD reference: whitespace and control characters become `_`, and so
/// does a `$` that starts a word (a reference such as `$end`, or `a $var` split at the space,
/// would be read as a keyword, by latscope's importer as by other readers; `a$b` is kept);
/// empty becomes `ch<i>`. See [`references`] for uniqueness.
pub fn sanitize(name: &str, i: usize) -> String {
    let mut s = String::with_capacity(name.len());
    let mut word_start = true;
    for c in name.chars() {
        let blank = c.is_whitespace() || c.is_control();
        s.push(if blank || (c == '$' && word_start) {
            '_'
        } else {
            c
        });
        word_start = blank;
    }
    if s.is_empty() {
        format!("ch{i}")
    } else {
        s
    }
}

/// The references of every variable, in order (digital channels, then analog ones):
/// [`sanitize`]d, then made unique, since sanitising can merge names (`$end` and `_end`):
/// a name already taken gets `_2`, `_3`, … appended. Deterministic: it depends only on
/// the names and their order, and names that need no change keep their spelling when first.
pub fn references<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, n) in names.into_iter().enumerate() {
        let base = sanitize(n, i);
        let mut r = base.clone();
        let mut k = 2;
        while taken.contains(&r) {
            r = format!("{base}_{k}");
            k += 1;
        }
        taken.insert(r.clone());
        out.push(r);
    }
    out
}

/// Division by a power of ten known to be exact (every time written is a multiple of the
/// timescale, see [`timescale`]): a shift by the power of two and a multiplication by the
/// inverse of the odd part modulo 2^64, instead of a 64-bit division per edge, which was a
/// large share of the time spent writing a dense capture.
#[derive(Clone, Copy)]
struct ExactDiv {
    shift: u32,
    odd: u64,
    inv: u64,
}

impl ExactDiv {
    fn new(unit: u64) -> Self {
        let shift = unit.trailing_zeros();
        let odd = unit >> shift;
        // Newton's iteration for the inverse modulo 2^64: each step doubles the correct low
        // bits, and `odd` is its own inverse modulo 8 (3 bits), so 5 steps give 96 > 64.
        let mut inv = odd;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inv)));
        }
        ExactDiv { shift, odd, inv }
    }

    /// `d / unit` for a multiple `d` of the unit (negative ones too).
    #[inline]
    fn div(self, d: i64) -> i64 {
        ((d >> self.shift) as u64).wrapping_mul(self.inv) as i64
    }

    /// Whether the unit divides `d`.
    #[inline]
    fn divides(self, d: u64) -> bool {
        d.trailing_zeros() >= self.shift
            && (d >> self.shift).wrapping_mul(self.inv) <= u64::MAX / self.odd
    }
}

const SCALES: [(i64, &str); 13] = [
    (1_000_000_000_000, "1s"),
    (100_000_000_000, "100ms"),
    (10_000_000_000, "10ms"),
    (1_000_000_000, "1ms"),
    (100_000_000, "100us"),
    (10_000_000, "10us"),
    (1_000_000, "1us"),
    (100_000, "100ns"),
    (10_000, "10ns"),
    (1_000, "1ns"),
    (100, "100ps"),
    (10, "10ps"),
    (1, "1ps"),
];

/// Picoseconds per VCD time unit and its `$timescale` text: the coarsest power of ten that
/// divides every time to write (relative to the start), 1 ns when all are zero. (The same
/// answer as the largest power of ten dividing their greatest common divisor, without a
/// Euclid loop per edge.)
fn timescale(cap: &Capture) -> (i64, &'static str) {
    let divs = SCALES.map(|(ps, _)| ExactDiv::new(ps as u64));
    let last = SCALES.len() - 1;
    let mut k = 0; // the coarsest scale that divides every value seen so far
    let mut any = false;
    let mut see = |d: u64| {
        if d != 0 {
            any = true;
            while k < last && !divs[k].divides(d) {
                k += 1;
            }
        }
        k == last
    };
    let s = cap.start.0;
    'all: {
        if see((cap.end.0 - s).unsigned_abs()) {
            break 'all;
        }
        for c in &cap.channels {
            for e in &c.edges {
                if see((e.0 - s).unsigned_abs()) {
                    break 'all;
                }
            }
        }
        for a in &cap.analog {
            if see((a.start.0 - s).unsigned_abs()) || see(a.interval.0.unsigned_abs()) {
                break 'all;
            }
        }
    }
    if !any {
        return (1_000, "1ns");
    }
    SCALES[k]
}

/// Above this many variables the merge keeps a heap; up to it, a scan of every variable's
/// next change per time step is cheaper (several variables change at most steps of a
/// logic analyser's capture, and a heap pays a sift per change).
const SCAN_VARS: usize = 16;

/// Writes `cap` as VCD.
pub fn write<W: Write>(cap: &Capture, mut w: W) -> io::Result<()> {
    let (unit, ts) = timescale(cap);
    let mut b = Vec::new();
    writeln!(b, "$version latscope {} $end", env!("CARGO_PKG_VERSION"))?;
    // No `$` in the comment: a `$end` in the source name would close it early.
    let src: String = cap.source.replace('$', "_");
    writeln!(b, "$comment source: {src} $end")?;
    writeln!(b, "$comment latscope start_ps={} $end", cap.start.0)?;
    if let Some(r) = cap.samplerate_hz {
        writeln!(b, "$comment latscope samplerate_hz={r} $end")?;
    }
    writeln!(b, "$timescale {ts} $end")?;
    writeln!(b, "$scope module capture $end")?;
    w.write_all(&b)?;
    let nd = cap.channels.len();
    let refs = references(
        cap.channels
            .iter()
            .map(|c| c.name.as_str())
            .chain(cap.analog.iter().map(|a| a.name.as_str())),
    );
    let ids: Vec<String> = (0..nd + cap.analog.len()).map(ident).collect();
    let mut o = Out::new(w);
    for (i, r) in refs.iter().enumerate().take(nd) {
        o.raw(format!("$var wire 1 {} {r} $end\n", ids[i]).as_bytes())?;
    }
    for (j, r) in refs.iter().enumerate().skip(nd) {
        o.raw(format!("$var real 64 {} {r} $end\n", ids[j]).as_bytes())?;
    }
    o.raw(b"$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n")?;
    let mut body = Body {
        cap,
        nd,
        ids: &ids,
        lines: ids[..nd]
            .iter()
            .map(|i| BitLine::new(i.as_bytes()))
            .collect(),
        div: ExactDiv::new(unit as u64),
        o,
        time: DecTime::new(),
        last: None,
        scratch: Vec::new(),
    };
    for (i, c) in cap.channels.iter().enumerate() {
        body.bit(i, c.initial)?;
    }
    body.o.raw(b"$end\n")?;
    if nd + cap.analog.len() <= SCAN_VARS {
        body.merge_by_scan()?;
    } else {
        body.merge_by_heap()?;
    }
    let end = body.rel(cap.end.0);
    if body.last != Some(end) {
        body.o.time(&mut body.time, end);
    }
    body.o.finish()
}

/// The value changes after `$dumpvars`: every variable's changes merged in order of
/// (time, variable index, position).
struct Body<'a, W: Write> {
    cap: &'a Capture,
    /// Digital channels; variables `nd..` are the analog ones.
    nd: usize,
    ids: &'a [String],
    lines: Vec<Option<BitLine>>,
    div: ExactDiv,
    o: Out<W>,
    time: DecTime,
    /// The last time written (in units).
    last: Option<i64>,
    scratch: Vec<u8>,
}

impl<W: Write> Body<'_, W> {
    /// A time relative to the start, in units.
    #[inline]
    fn rel(&self, t: i64) -> i64 {
        self.div.div(t - self.cap.start.0)
    }

    /// Time of change `k` of variable `v`, if it has one.
    #[inline]
    fn at(&self, v: usize, k: usize) -> Option<i64> {
        if v < self.nd {
            self.cap.channels[v].edges.get(k).map(|e| e.0)
        } else {
            let a = &self.cap.analog[v - self.nd];
            (k < a.values.len()).then(|| a.start.0 + a.interval.0 * k as i64)
        }
    }

    /// A one-bit line (the slow way for an identifier too long to prepare).
    #[inline]
    fn bit(&mut self, v: usize, level: bool) -> io::Result<()> {
        match &self.lines[v] {
            Some(l) => self.o.bit(l, level),
            None => {
                self.scratch.clear();
                self.scratch.push(if level { b'1' } else { b'0' });
                self.scratch.extend_from_slice(self.ids[v].as_bytes());
                self.scratch.push(b'\n');
                self.o.raw(&self.scratch)?;
            }
        }
        self.o.spill()
    }

    /// Writes change `k` of variable `v` (at picosecond time `t`), with a time line first
    /// if the time is new. The change at the start needs none: `#0` opened the dump.
    #[inline]
    fn change(&mut self, t: i64, v: usize, k: usize) -> io::Result<()> {
        let rt = self.rel(t);
        if self.last != Some(rt) {
            if rt != 0 || self.last.is_some() {
                self.o.time(&mut self.time, rt);
            }
            self.last = Some(rt);
        }
        if v < self.nd {
            self.bit(v, self.cap.channels[v].level_after(k))
        } else {
            let a = &self.cap.analog[v - self.nd];
            self.scratch.clear();
            writeln!(self.scratch, "r{} {}", a.values[k], self.ids[v])?;
            self.o.raw(&self.scratch)
        }
    }

    /// Few variables: each time step, the earliest next change of all, then every
    /// variable's changes at that time in variable order; a variable alone in front is
    /// written on up to the next change of any other.
    fn merge_by_scan(&mut self) -> io::Result<()> {
        let nv = self.ids.len();
        let mut pos = vec![0usize; nv];
        let mut next: Vec<i64> = (0..nv).map(|v| self.at(v, 0).unwrap_or(i64::MAX)).collect();
        let mut left: usize = self
            .cap
            .channels
            .iter()
            .map(|c| c.edges.len())
            .sum::<usize>()
            + self
                .cap
                .analog
                .iter()
                .map(|a| a.values.len())
                .sum::<usize>();
        while left > 0 {
            // The earliest next change, its variable, and the earliest of the others.
            let (mut t, mut a, mut t2) = (i64::MAX, 0, i64::MAX);
            for (v, &x) in next.iter().enumerate() {
                if x < t {
                    (t2, t, a) = (t, x, v);
                } else if x < t2 {
                    t2 = x;
                }
            }
            if t < t2 {
                // One variable alone in front (a dense channel, or a quiet stretch of the
                // others): its changes before the others' next one are written on.
                let from = pos[a];
                pos[a] = self.run_alone(a, from, t2)?;
                left -= pos[a] - from;
                next[a] = self.at(a, pos[a]).unwrap_or(i64::MAX);
                continue;
            }
            for v in 0..nv {
                if next[v] != t {
                    continue;
                }
                // An exhausted variable also reads i64::MAX: `at` tells them apart.
                while let Some(tv) = self.at(v, pos[v]) {
                    if tv != t {
                        break;
                    }
                    self.change(t, v, pos[v])?;
                    pos[v] += 1;
                    left -= 1;
                }
                next[v] = self.at(v, pos[v]).unwrap_or(i64::MAX);
            }
        }
        Ok(())
    }

    /// Writes variable `v`'s changes from position `k` on while their time is below
    /// `until`; returns the position reached. A digital channel with a prepared line (the
    /// bulk of a dense capture) takes a loop of its own over its edges.
    fn run_alone(&mut self, v: usize, mut k: usize, until: i64) -> io::Result<usize> {
        let line = match self.lines.get(v) {
            Some(Some(l)) => l,
            _ => {
                while let Some(t) = self.at(v, k).filter(|&t| t < until) {
                    self.change(t, v, k)?;
                    k += 1;
                }
                return Ok(k);
            }
        };
        let c = &self.cap.channels[v];
        let (start, div) = (self.cap.start.0, self.div);
        let (o, time, last) = (&mut self.o, &mut self.time, &mut self.last);
        for e in c.edges.get(k..).unwrap_or_default() {
            if e.0 >= until {
                break;
            }
            let rt = div.div(e.0 - start);
            if *last != Some(rt) {
                if rt != 0 || last.is_some() {
                    o.time(time, rt);
                }
                *last = Some(rt);
            }
            o.bit(line, c.level_after(k));
            o.spill()?;
            k += 1;
        }
        Ok(k)
    }

    /// Many variables: a heap of each variable's next change. A variable whose next change
    /// still comes before every other one's is written on without going through the heap
    /// (a dense channel, or a quiet stretch of the others).
    fn merge_by_heap(&mut self) -> io::Result<()> {
        let mut heap: BinaryHeap<Reverse<(i64, usize, usize)>> = BinaryHeap::new();
        for v in 0..self.ids.len() {
            if let Some(t) = self.at(v, 0) {
                heap.push(Reverse((t, v, 0)));
            }
        }
        while let Some(Reverse(mut cur)) = heap.pop() {
            loop {
                let (t, v, k) = cur;
                self.change(t, v, k)?;
                let next = self.at(v, k + 1).map(|tn| (tn, v, k + 1));
                match next {
                    Some(n) if heap.peek().is_none_or(|Reverse(top)| n < *top) => cur = n,
                    Some(n) => {
                        heap.push(Reverse(n));
                        break;
                    }
                    None => break,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::capture::DigitalChannel;
    use latscope_core::time::Picos;

    use latscope_core::arith::gcd;

    #[test]
    fn exact_division_and_divisibility_agree_with_the_operators() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for (ps, _) in SCALES {
            let d = ExactDiv::new(ps as u64);
            for i in 0..2000u64 {
                rng = rng
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let x = (rng >> 20) as i64 - (1 << 43);
                let m = x / ps * ps; // a multiple, either sign
                assert_eq!(d.div(m), m / ps, "{m} / {ps}");
                let u = (rng >> (i % 40)) | 1;
                for v in [
                    u,
                    u.wrapping_mul(10),
                    u.wrapping_mul(1000),
                    u.wrapping_mul(ps as u64),
                    i,
                ] {
                    assert_eq!(d.divides(v), v % ps as u64 == 0, "{v} % {ps}");
                }
            }
        }
    }

    #[test]
    fn timescale_is_the_largest_power_of_ten_dividing_the_gcd() {
        let mut rng = 7u64;
        for case in 0..400 {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let step = 10i64.pow((rng >> 60) as u32 % 13) * [1, 2, 3, 5, 7][case % 5];
            let start = -((rng >> 40) as i64 % 1000) * step;
            let edges: Vec<Picos> = (1..=(case as i64 % 7))
                .map(|k| Picos(start + k * step * (1 + (rng >> (k * 3)) as i64 % 9)))
                .collect();
            let end = Picos(edges.last().map_or(start, |e| e.0) + step * (case as i64 % 3));
            let cap = Capture {
                source: "t".into(),
                samplerate_hz: None,
                start: Picos(start),
                end,
                channels: vec![DigitalChannel {
                    name: "a".into(),
                    initial: false,
                    edges: edges.clone(),
                }],
                analog: vec![],
            };
            let g = edges
                .iter()
                .chain([&end])
                .fold(0, |g, e| gcd(g, (e.0 - start).unsigned_abs()));
            let want = if g == 0 {
                (1_000, "1ns")
            } else {
                SCALES
                    .into_iter()
                    .find(|(ps, _)| g % *ps as u64 == 0)
                    .unwrap()
            };
            assert_eq!(timescale(&cap), want, "gcd {g}");
        }
    }

    /// The value changes after `$dumpvars … $end`, written the plain way: every change of
    /// every variable in one list sorted by (time, variable, position).
    fn body_by_sorting(cap: &Capture, unit: i64) -> String {
        let nd = cap.channels.len();
        let mut all = Vec::new();
        for (v, c) in cap.channels.iter().enumerate() {
            for (k, e) in c.edges.iter().enumerate() {
                all.push((e.0, v, k));
            }
        }
        for (j, a) in cap.analog.iter().enumerate() {
            for k in 0..a.values.len() {
                all.push((a.start.0 + a.interval.0 * k as i64, nd + j, k));
            }
        }
        all.sort();
        let mut s = String::new();
        let mut last = None;
        for (t, v, k) in all {
            let rt = (t - cap.start.0) / unit;
            if last != Some(rt) {
                if rt != 0 || last.is_some() {
                    s += &format!("#{rt}\n");
                }
                last = Some(rt);
            }
            if v < nd {
                let l = cap.channels[v].level_after(k);
                s += &format!("{}{}\n", if l { '1' } else { '0' }, ident(v));
            } else {
                s += &format!("r{} {}\n", cap.analog[v - nd].values[k], ident(v));
            }
        }
        let end = (cap.end.0 - cap.start.0) / unit;
        if last != Some(end) {
            s += &format!("#{end}\n");
        }
        s
    }

    #[test]
    fn merged_changes_are_those_of_a_plain_sort() {
        let mut rng = 11u64;
        let mut next = |m: u64| {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (rng >> 33) % m
        };
        for case in 0..80 {
            let start = -(next(50) as i64) * 1_000;
            let mut channels = Vec::new();
            // Few variables (merged by a scan) and more than SCAN_VARS (by a heap).
            let nch = if case % 4 == 3 {
                SCAN_VARS + case % 5
            } else {
                1 + case % 5
            };
            for c in 0..nch {
                let mut t = start;
                let mut edges = Vec::new();
                // dense, sparse and silent channels; shared times between channels
                let n = [0, 3, 200, 1000][next(4) as usize];
                for _ in 0..n {
                    t += 1_000 * (1 + next([1, 4, 50][c % 3]) as i64);
                    edges.push(Picos(t));
                }
                channels.push(DigitalChannel {
                    name: format!("d{c}"),
                    initial: next(2) == 1,
                    edges,
                });
            }
            let analog = (0..case % 3)
                .map(|j| latscope_core::capture::AnalogChannel {
                    name: format!("a{j}"),
                    start: Picos(start + 2_000 * j as i64),
                    interval: Picos(3_000),
                    values: (0..next(300)).map(|k| k as f32 * 0.25 - 3.0).collect(),
                })
                .collect();
            let last = channels
                .iter()
                .filter_map(|c| c.edges.last())
                .map(|e| e.0)
                .max()
                .unwrap_or(start);
            let cap = Capture {
                source: "t".into(),
                samplerate_hz: Some(1_000_000_000),
                start: Picos(start),
                end: Picos(last.max(start + 1_000_000) + 1_000),
                channels,
                analog,
            };
            let mut out = Vec::new();
            write(&cap, &mut out).unwrap();
            let s = String::from_utf8(out).unwrap();
            let body = s.split("$dumpvars\n").nth(1).unwrap();
            let body = &body[body.find("$end\n").unwrap() + 5..];
            let (unit, _) = timescale(&cap);
            assert_eq!(body, body_by_sorting(&cap, unit), "case {case}");
        }
    }

    #[test]
    fn idents_unique() {
        let mut s = std::collections::HashSet::new();
        for i in 0..20000 {
            assert!(s.insert(ident(i)), "{i}");
        }
        assert_eq!(ident(0), "!");
        assert_eq!(ident(93), "~");
        assert_eq!(ident(94), "!!");
    }

    #[test]
    fn one_change_per_line() {
        let cap = Capture {
            source: "t".into(),
            samplerate_hz: Some(1_000_000),
            start: Picos(0),
            end: Picos::from_us(10),
            channels: vec![
                DigitalChannel {
                    name: "a b".into(),
                    initial: false,
                    edges: vec![Picos::from_us(1), Picos::from_us(3)],
                },
                DigitalChannel {
                    name: "c".into(),
                    initial: true,
                    edges: vec![Picos::from_us(1)],
                },
            ],
            analog: vec![],
        };
        let mut out = Vec::new();
        write(&cap, &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("$timescale 1us $end"), "{s}");
        assert!(s.contains("$var wire 1 ! a_b $end"));
        assert!(s.contains("#1\n1!\n0\"\n#3\n0!\n#10\n"), "{s}");
    }
}
