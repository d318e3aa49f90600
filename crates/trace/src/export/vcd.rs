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
use std::io::{self, Write};

use super::vcd_body::{Body, SCAN_VARS};
use super::vcd_out::Out;

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
pub(super) struct ExactDiv {
    shift: u32,
    inv: u64,
    /// `u64::MAX / odd`: a quotient above it is not an exact one.
    lim: u64,
}

impl ExactDiv {
    pub(super) fn new(unit: u64) -> Self {
        let shift = unit.trailing_zeros();
        let odd = unit >> shift;
        // Newton's iteration for the inverse modulo 2^64: each step doubles the correct low
        // bits, and `odd` is its own inverse modulo 8 (3 bits), so 5 steps give 96 > 64.
        let mut inv = odd;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inv)));
        }
        ExactDiv {
            shift,
            inv,
            lim: u64::MAX / odd,
        }
    }

    /// `d / unit` for a multiple `d` of the unit (negative ones too).
    #[inline]
    pub(super) fn div(self, d: i64) -> i64 {
        ((d >> self.shift) as u64).wrapping_mul(self.inv) as i64
    }

    /// Whether the unit divides `d`.
    #[inline]
    fn divides(self, d: u64) -> bool {
        // `&`, not `&&`: both parts are cheap, and a loop over edges stays branch-free.
        (d.trailing_zeros() >= self.shift) & ((d >> self.shift).wrapping_mul(self.inv) <= self.lim)
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
    // The coarsest scale from `k` on that divides `d` (every scale divides 0).
    let lower = |mut k: usize, d: u64| {
        while k < last && !divs[k].divides(d) {
            k += 1;
        }
        k
    };
    let s = cap.start.0;
    let end = (cap.end.0 - s).unsigned_abs();
    let mut any = end != 0;
    let mut k = lower(0, end);
    'all: {
        if k == last {
            break 'all;
        }
        for c in &cap.channels {
            let mut rest = &c.edges[..];
            // Edges the current scale divides change nothing: a tight search for the
            // first it does not, then the scale is lowered for that one.
            loop {
                let d = divs[k];
                let Some(at) = rest
                    .iter()
                    .position(|e| !d.divides((e.0 - s).unsigned_abs()))
                else {
                    break;
                };
                k = lower(k, (rest[at].0 - s).unsigned_abs());
                if k == last {
                    break 'all;
                }
                rest = &rest[at + 1..];
            }
            // (With the scale still at 1 s, this tells whole seconds from zeros.)
            any = any || c.edges.iter().any(|e| e.0 != s);
        }
        for a in &cap.analog {
            for d in [(a.start.0 - s).unsigned_abs(), a.interval.0.unsigned_abs()] {
                any |= d != 0;
                k = lower(k, d);
                if k == last {
                    break 'all;
                }
            }
        }
    }
    // (A scale that moved met a value that is not zero.)
    if !any && k == 0 {
        return (1_000, "1ns");
    }
    SCALES[k]
}

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
    let mut body = Body::new(cap, &ids, ExactDiv::new(unit as u64), o);
    for (i, c) in cap.channels.iter().enumerate() {
        body.bit(i, c.initial)?;
    }
    body.o.raw(b"$end\n")?;
    if nd + cap.analog.len() <= SCAN_VARS {
        body.merge_by_scan()?;
    } else {
        body.merge_by_heap()?;
    }
    body.finish(cap.end.0)
}

#[cfg(test)]
mod tests {
    use super::super::vcd_body::WINDOW;
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
        for case in 0..800 {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let step = 10i64.pow((rng >> 60) as u32 % 13) * [1, 2, 3, 5, 7][case % 5];
            let start = -((rng >> 40) as i64 % 1000) * step;
            let edges: Vec<Picos> = (1..=(case as i64 % 7))
                .map(|k| Picos(start + k * step * (1 + (rng >> (k * 3)) as i64 % 9)))
                .collect();
            // (An end at the start, with edges after it, is no valid capture, but the
            // writer still gives the scale of the edges: whole seconds are not zeros.)
            let end = if case % 4 == 3 {
                Picos(start)
            } else {
                Picos(edges.last().map_or(start, |e| e.0) + step * (case as i64 % 3))
            };
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
        for case in 0..240 {
            let start = -(next(50) as i64) * 1_000;
            let mut channels = Vec::new();
            // Few variables (merged by a scan, with windows where they change together)
            // and more than SCAN_VARS (by a heap).
            let nch = if case % 4 == 3 {
                SCAN_VARS + case % 5
            } else if case % 8 == 5 {
                SCAN_VARS
            } else {
                1 + case % 5
            };
            // A bus: every channel may change at the times of one grid.
            let bus = case % 3 == 2;
            let grid: Vec<i64> = {
                let mut t = start;
                (0..2_000)
                    .map(|_| {
                        t += 1_000 * (1 + next(3) as i64);
                        t
                    })
                    .collect()
            };
            for c in 0..nch {
                let mut t = start;
                let mut edges = Vec::new();
                if bus {
                    edges.extend(grid.iter().filter(|_| next(3) != 0).map(|&t| Picos(t)));
                }
                // dense, sparse and silent channels; shared times between channels; now
                // and then a gap of more than a window (`WINDOW` units of 1 ns here)
                let n = if bus {
                    0
                } else {
                    [0, 3, 200, 1000][next(4) as usize]
                };
                for _ in 0..n {
                    t += 1_000 * (1 + next([1, 4, 50][c % 3]) as i64);
                    if next(100) == 0 {
                        t += 1_000 * (WINDOW as i64 + next(3) as i64 - 1);
                    }
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
