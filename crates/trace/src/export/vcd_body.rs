//! The VCD writer's body: the value changes after `$dumpvars`, every variable's changes
//! merged in order of (time, variable index, position), one line each.
//!
//! * one variable alone in front (a dense channel, or a quiet stretch of the others) is
//!   written on up to the next change of any other;
//! * a few variables changing together (a bus, a counter, a demo pattern) are written a
//!   window of time units at a time, marked by time and variable, then read out in order;
//! * many variables (more than [`SCAN_VARS`]) are merged through a heap.

use latscope_core::capture::Capture;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use super::vcd::ExactDiv;
use super::vcd_out::{BitLine, DecTime, Out};

/// Above this many variables the merge keeps a heap; up to it, a scan of every variable's
/// next change per time step is cheaper (several variables change at most steps of a
/// logic analyser's capture, and a heap pays a sift per change).
pub(super) const SCAN_VARS: usize = 16;
// (A window marks each of them with one bit of a u16.)
const _: () = assert!(SCAN_VARS <= 16);

/// Time units one window of [`Body::window`] covers.
pub(super) const WINDOW: usize = 4096;

/// Ties taken one step at a time after a window with fewer than two changes per time.
const STEPS_AFTER_THIN_WINDOW: u32 = 64;

/// The marks of one window: per time unit, the variables changing then (one bit each, at
/// most [`SCAN_VARS`] of them), and which units have any. Both are left cleared.
struct Marks {
    vars: Vec<u16>,
    occupied: Vec<u64>,
}

impl Marks {
    fn new() -> Self {
        Marks {
            vars: vec![0; WINDOW],
            occupied: vec![0; WINDOW / 64],
        }
    }

    #[inline]
    fn mark(&mut self, i: usize, bit: u16) {
        if let (Some(v), Some(o)) = (self.vars.get_mut(i), self.occupied.get_mut(i / 64)) {
            *v |= bit;
            *o |= 1 << (i % 64);
        }
    }
}

/// Whether every variable's change times strictly increase (a [`Capture::validate`]
/// invariant; analog samples need a positive interval), so that [`Body::window`] may
/// merge them.
fn in_order(cap: &Capture) -> bool {
    cap.channels
        .iter()
        .all(|c| c.edges.is_sorted_by(|a, b| a < b))
        && cap
            .analog
            .iter()
            .all(|a| a.interval.0 > 0 || a.values.len() < 2)
}

/// The value changes after `$dumpvars`: every variable's changes merged in order of
/// (time, variable index, position).
pub(super) struct Body<'a, W: Write> {
    cap: &'a Capture,
    /// Digital channels; variables `nd..` are the analog ones.
    nd: usize,
    ids: &'a [String],
    lines: Vec<Option<BitLine>>,
    div: ExactDiv,
    pub(super) o: Out<W>,
    time: DecTime,
    /// The last time written (in units).
    last: Option<i64>,
    scratch: Vec<u8>,
}

impl<'a, W: Write> Body<'a, W> {
    /// The body of `cap`, whose variables have the identifiers `ids` (digital channels
    /// first), in time units of `div`, written to `o` after the header.
    pub(super) fn new(cap: &'a Capture, ids: &'a [String], div: ExactDiv, o: Out<W>) -> Self {
        let nd = cap.channels.len();
        Body {
            cap,
            nd,
            ids,
            lines: ids[..nd]
                .iter()
                .map(|i| BitLine::new(i.as_bytes()))
                .collect(),
            div,
            o,
            time: DecTime::new(),
            last: None,
            scratch: Vec::new(),
        }
    }

    /// The final bare `#time` at the capture end `end` (ps), then the output flushed.
    pub(super) fn finish(mut self, end: i64) -> io::Result<()> {
        let end = self.rel(end);
        if self.last != Some(end) {
            self.o.time(&mut self.time, end);
        }
        self.o.finish()
    }

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
    pub(super) fn bit(&mut self, v: usize, level: bool) -> io::Result<()> {
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
        self.time_line(self.rel(t));
        self.value(v, k)
    }

    /// The line of change `k` of variable `v` (after its time line). A digital channel's
    /// prepared line is written here, inline: through calls, it was most of the cost of a
    /// change in a capture whose channels change together.
    #[inline(always)]
    fn value(&mut self, v: usize, k: usize) -> io::Result<()> {
        if let (Some(Some(line)), Some(c)) = (self.lines.get(v), self.cap.channels.get(v)) {
            self.o.bit(line, c.level_after(k));
            return self.o.spill();
        }
        self.value_slow(v, k)
    }

    /// [`Self::value`] for a digital identifier too long to prepare, or an analog value.
    fn value_slow(&mut self, v: usize, k: usize) -> io::Result<()> {
        if v < self.nd {
            self.bit(v, self.cap.channels[v].level_after(k))
        } else {
            let a = &self.cap.analog[v - self.nd];
            self.scratch.clear();
            writeln!(self.scratch, "r{} {}", a.values[k], self.ids[v])?;
            self.o.raw(&self.scratch)
        }
    }

    /// Few variables: the earliest next change of all; a variable alone in front is
    /// written on up to the next change of any other, and where several change close
    /// together, a window of [`WINDOW`] time units from that change is written at once
    /// ([`Self::window`]).
    pub(super) fn merge_by_scan(&mut self) -> io::Result<()> {
        let nv = self.ids.len();
        let mut pos = vec![0usize; nv];
        let mut next: Vec<i64> = (0..nv).map(|v| self.at(v, 0).unwrap_or(i64::MAX)).collect();
        // The windows' marks, made at the first tie (a capture with none, such as one
        // dense channel, does not pay for the check). Out of order times (never in a
        // valid capture) go through the plain way, which writes them as they come.
        let mut marks: Option<Option<Marks>> = None;
        // Ties to take one step at a time before the next window.
        let mut steps = 0u32;
        loop {
            // The earliest next change, its variable, and the earliest of the others.
            let (mut t, mut a, mut t2) = (i64::MAX, 0, i64::MAX);
            for (v, &x) in next.iter().enumerate() {
                if x < t {
                    (t2, t, a) = (t, x, v);
                } else if x < t2 {
                    t2 = x;
                }
            }
            // (An exhausted variable reads i64::MAX too; a change at that time is written.)
            if t == i64::MAX && (0..nv).all(|v| self.at(v, pos[v]).is_none()) {
                return Ok(());
            }
            if t < t2 {
                // One variable alone in front (a dense channel, or a quiet stretch of the
                // others): its changes before the others' next one are written on.
                pos[a] = self.run_alone(a, pos[a], t2)?;
                next[a] = self.at(a, pos[a]).unwrap_or(i64::MAX);
                continue;
            }
            let cap = self.cap;
            match marks.get_or_insert_with(|| in_order(cap).then(Marks::new)) {
                Some(m) if steps == 0 => {
                    let (times, changes) = self.window(t, &mut pos, m)?;
                    if changes < 2 * times {
                        // Mostly one change per time here: marking costs more than it
                        // saves, so the next ties go one step at a time for a while.
                        steps = STEPS_AFTER_THIN_WINDOW;
                    }
                    for v in 0..nv {
                        next[v] = self.at(v, pos[v]).unwrap_or(i64::MAX);
                    }
                }
                _ => {
                    steps = steps.saturating_sub(1);
                    self.time_line(self.rel(t));
                    for v in 0..nv {
                        if next[v] == t {
                            pos[v] = self.changes_at(t, v, pos[v])?;
                            // An exhausted variable also reads i64::MAX: `at` tells them apart.
                            next[v] = self.at(v, pos[v]).unwrap_or(i64::MAX);
                        }
                    }
                }
            }
        }
    }

    /// Writes variable `v`'s changes at time `t` from position `k` on (its time line
    /// written); returns the position after them.
    #[inline]
    fn changes_at(&mut self, t: i64, v: usize, mut k: usize) -> io::Result<usize> {
        while self.at(v, k) == Some(t) {
            self.value(v, k)?;
            k += 1;
        }
        Ok(k)
    }

    /// Writes every change in the [`WINDOW`] time units from `t` (the earliest pending
    /// change, in ps): each variable's changes there are marked by time, one bit per
    /// variable, then the marked times are written in order, each with its variables'
    /// changes in variable order. The same lines as one step per time, for a fraction of
    /// the work when several variables change at most times (a bus, a counter, the
    /// pattern of a logic analyser's demo). Needs every variable's times strictly
    /// increasing ([`in_order`]): then a variable changes at most once per time.
    ///
    /// Returns how many times and changes it wrote.
    fn window(&mut self, t: i64, pos: &mut [usize], m: &mut Marks) -> io::Result<(usize, usize)> {
        let base = self.rel(t);
        let (start, div) = (self.cap.start.0, self.div);
        let slot = |tv: i64| div.div(tv - start).wrapping_sub(base) as u64;
        for (v, &from) in pos.iter().enumerate() {
            let bit = 1u16 << v;
            if let Some(c) = self.cap.channels.get(v) {
                for e in c.edges.get(from..).unwrap_or_default() {
                    let i = slot(e.0);
                    if i >= WINDOW as u64 {
                        break;
                    }
                    m.mark(i as usize, bit);
                }
            } else if let Some(a) = self.cap.analog.get(v - self.nd) {
                for k in from..a.values.len() {
                    let i = slot(a.start.0 + a.interval.0 * k as i64);
                    if i >= WINDOW as u64 {
                        break;
                    }
                    m.mark(i as usize, bit);
                }
            }
        }
        let (mut times, mut changes) = (0, 0);
        for w in 0..m.occupied.len() {
            let mut word = std::mem::take(&mut m.occupied[w]);
            while word != 0 {
                let i = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                times += 1;
                let mut vars = std::mem::take(&mut m.vars[i]);
                self.time_line(base + i as i64);
                while vars != 0 {
                    let v = vars.trailing_zeros() as usize;
                    vars &= vars - 1;
                    let Some(k) = pos.get_mut(v) else {
                        continue;
                    };
                    self.value(v, *k)?;
                    *k += 1;
                    changes += 1;
                }
            }
        }
        Ok((times, changes))
    }

    /// The `#time` line of time `rt` (in units from the start), unless it is the last one
    /// written (or the start, which `#0` opened).
    #[inline]
    fn time_line(&mut self, rt: i64) {
        if self.last != Some(rt) {
            if rt != 0 || self.last.is_some() {
                self.o.time(&mut self.time, rt);
            }
            self.last = Some(rt);
        }
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
    pub(super) fn merge_by_heap(&mut self) -> io::Result<()> {
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
