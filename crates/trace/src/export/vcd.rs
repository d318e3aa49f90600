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

use latscope_core::arith::gcd;
use latscope_core::capture::Capture;
use latscope_core::time::Picos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

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

/// Picoseconds per VCD time unit and its `$timescale` text.
fn timescale(cap: &Capture) -> (i64, &'static str) {
    let mut g: u64 = (cap.end.0 - cap.start.0).unsigned_abs();
    'outer: for c in &cap.channels {
        for e in &c.edges {
            g = gcd(g, (e.0 - cap.start.0).unsigned_abs());
            if g == 1 {
                break 'outer;
            }
        }
    }
    for a in &cap.analog {
        g = gcd(g, (a.start.0 - cap.start.0).unsigned_abs());
        g = gcd(g, a.interval.0.unsigned_abs());
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
    if g == 0 {
        return (1_000, "1ns");
    }
    for (ps, txt) in SCALES {
        if g.checked_rem(ps as u64) == Some(0) {
            return (ps, txt);
        }
    }
    (1, "1ps")
}

/// Writes `cap` as VCD.
pub fn write<W: Write>(cap: &Capture, w: W) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 16, w);
    let (unit, ts) = timescale(cap);
    writeln!(w, "$version latscope {} $end", env!("CARGO_PKG_VERSION"))?;
    // No `$` in the comment: a `$end` in the source name would close it early.
    let src: String = cap.source.replace('$', "_");
    writeln!(w, "$comment source: {src} $end")?;
    writeln!(w, "$comment latscope start_ps={} $end", cap.start.0)?;
    if let Some(r) = cap.samplerate_hz {
        writeln!(w, "$comment latscope samplerate_hz={r} $end")?;
    }
    writeln!(w, "$timescale {ts} $end")?;
    writeln!(w, "$scope module capture $end")?;
    let nd = cap.channels.len();
    let refs = references(
        cap.channels
            .iter()
            .map(|c| c.name.as_str())
            .chain(cap.analog.iter().map(|a| a.name.as_str())),
    );
    for (i, r) in refs.iter().enumerate().take(nd) {
        writeln!(w, "$var wire 1 {} {r} $end", ident(i))?;
    }
    for (j, r) in refs.iter().enumerate().skip(nd) {
        writeln!(w, "$var real 64 {} {r} $end", ident(j))?;
    }
    writeln!(w, "$upscope $end")?;
    writeln!(w, "$enddefinitions $end")?;
    writeln!(w, "#0")?;
    writeln!(w, "$dumpvars")?;
    for (i, c) in cap.channels.iter().enumerate() {
        writeln!(w, "{}{}", if c.initial { '1' } else { '0' }, ident(i))?;
    }
    writeln!(w, "$end")?;
    let rel = |t: Picos| (t.0 - cap.start.0) / unit;

    // k-way merge of every channel's change times: (time, var index, position).
    let mut heap: BinaryHeap<Reverse<(i64, usize, usize)>> = BinaryHeap::new();
    for (i, c) in cap.channels.iter().enumerate() {
        if let Some(&e) = c.edges.first() {
            heap.push(Reverse((e.0, i, 0)));
        }
    }
    let atime = |j: usize, k: usize| -> i64 {
        let a = &cap.analog[j];
        a.start.0 + a.interval.0 * k as i64
    };
    for (j, a) in cap.analog.iter().enumerate() {
        if !a.values.is_empty() {
            heap.push(Reverse((atime(j, 0), nd + j, 0)));
        }
    }
    let mut last: Option<i64> = None;
    let ids: Vec<String> = (0..nd + cap.analog.len()).map(ident).collect();
    while let Some(Reverse((t, v, k))) = heap.pop() {
        let rt = rel(Picos(t));
        if last != Some(rt) {
            if rt != 0 || last.is_some() {
                writeln!(w, "#{rt}")?;
            }
            last = Some(rt);
        }
        if v < nd {
            let c = &cap.channels[v];
            let level = c.level_after(k);
            writeln!(w, "{}{}", if level { '1' } else { '0' }, ids[v])?;
            if let Some(&e) = c.edges.get(k + 1) {
                heap.push(Reverse((e.0, v, k + 1)));
            }
        } else {
            let j = v - nd;
            let a = &cap.analog[j];
            writeln!(w, "r{} {}", a.values[k], ids[v])?;
            if k + 1 < a.values.len() {
                heap.push(Reverse((atime(j, k + 1), v, k + 1)));
            }
        }
    }
    let end = rel(cap.end);
    if last != Some(end) {
        writeln!(w, "#{end}")?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::capture::DigitalChannel;

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
