//! The instances of one measurement, kept small. Pulses and periods keep nothing at all:
//! each value is the difference of two edges of the channel, read in place (a pulse's
//! start and end, a period's two starts), so they cost only the channel's 8 bytes per
//! edge. Latencies and windows keep one `i64` value and its place each.
//!
//! Every statistic stays exact: moments from exact integer sums (the variance from one
//! rounding of an exact integer ratio), extremes with their first place, and nearest-rank
//! percentiles, mode and histogram from a [`Dist`]: a count per value on the value grid
//! (the sample period) when the values span few grid steps — no sort, 4 bytes per step —
//! and otherwise the values sorted.

use latscope_core::stats::{rank_index, Location, Summary};
use latscope_core::time::Picos;

/// Where the values come from.
enum Vals<'a> {
    /// Stored with their places (latencies, windows).
    Own { vals: Vec<i64>, at: Vec<i64> },
    /// Instance i is `edges[b + span] − edges[b]` at `edges[b]`, `b = first + step × i`
    /// (pulses: step 2, span 1; periods: span = step).
    Edges {
        edges: &'a [Picos],
        first: usize,
        step: usize,
        span: usize,
        n: usize,
    },
}

pub(crate) struct Instances<'a> {
    vals: Vals<'a>,
    /// Places never decrease in push order (always so for values read from edges).
    monotone: bool,
    /// `Own` values were sorted in place (push order is gone).
    sorted: bool,
}

/// The distribution of the values, ascending: what percentiles, mode and histogram read.
pub(crate) enum Dist {
    /// `counts[k]` values equal `min + k × grid`.
    Counts {
        min: i64,
        grid: i64,
        counts: Vec<u32>,
    },
    /// Every value, sorted.
    Sorted(Vec<i64>),
    Empty,
}

impl Dist {
    pub fn is_empty(&self) -> bool {
        match self {
            Dist::Counts { counts, .. } => counts.iter().all(|&c| c == 0),
            Dist::Sorted(v) => v.is_empty(),
            Dist::Empty => true,
        }
    }
    /// Calls `f(value, count)` for every distinct value, ascending.
    pub fn for_each_run(&self, mut f: impl FnMut(i64, u64)) {
        match self {
            Dist::Counts { min, grid, counts } => {
                for (k, &c) in counts.iter().enumerate() {
                    if c > 0 {
                        f(min + k as i64 * grid, c as u64);
                    }
                }
            }
            Dist::Sorted(v) => {
                let mut i = 0;
                while i < v.len() {
                    let x = v[i];
                    let mut j = i + 1;
                    while j < v.len() && v[j] == x {
                        j += 1;
                    }
                    f(x, (j - i) as u64);
                    i = j;
                }
            }
            Dist::Empty => {}
        }
    }
    /// The values at 0-based ranks `ranks` (ascending).
    fn at_ranks<const N: usize>(&self, ranks: [u64; N]) -> [i64; N] {
        let mut out = [0i64; N];
        match self {
            Dist::Sorted(v) => {
                for (o, r) in out.iter_mut().zip(ranks) {
                    *o = v.get(r as usize).copied().unwrap_or(0);
                }
            }
            _ => {
                let mut seen = 0u64;
                let mut k = 0;
                self.for_each_run(|x, c| {
                    seen += c;
                    while k < N && ranks[k] < seen {
                        out[k] = x;
                        k += 1;
                    }
                });
            }
        }
        out
    }
    /// The most frequent value after rounding down to `resolution`; ties go to the smaller
    /// value.
    pub fn mode(&self, resolution: i64) -> Option<i64> {
        let r = resolution.max(1);
        let mut best = (0u64, 0i64);
        let mut cur = (0u64, i64::MIN);
        let mut any = false;
        self.for_each_run(|x, c| {
            any = true;
            let b = x.div_euclid(r) * r;
            if b == cur.1 {
                cur.0 += c;
            } else {
                cur = (c, b);
            }
            if cur.0 > best.0 {
                best = cur;
            }
        });
        any.then_some(best.1)
    }
}

/// Exact division by a constant that is known to divide: multiplication by the inverse of
/// its odd part modulo 2⁶⁴ after shifting out its power of two (Granlund & Montgomery),
/// with the test that tells whether it did divide.
#[derive(Clone, Copy)]
struct ExactDiv {
    shift: u32,
    low: u64,
    inv: u64,
    lim: u64,
}

impl ExactDiv {
    fn new(d: u64) -> ExactDiv {
        let d = d.max(1);
        let shift = d.trailing_zeros();
        let odd = d >> shift;
        // Newton's iteration doubles the correct low bits of the inverse each step
        let mut inv = odd;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inv)));
        }
        ExactDiv {
            shift,
            low: (1u64 << shift) - 1,
            inv,
            lim: u64::MAX / odd,
        }
    }
    /// `(x / d, whether d divides x)`.
    #[inline(always)]
    fn div(&self, x: u64) -> (u64, bool) {
        let q = (x >> self.shift).wrapping_mul(self.inv);
        (q, x & self.low == 0 && q <= self.lim)
    }
}

/// Puts `c` into `best` (the k largest values, largest first, earliest first among equal
/// ones) if it belongs there; true when `best` is full.
#[cold]
#[inline(never)]
fn offer(best: &mut Vec<(i64, Picos)>, k: usize, c: (i64, Picos)) -> bool {
    let key = |x: &(i64, Picos)| (std::cmp::Reverse(x.0), x.1);
    if best.len() == k && key(&c) >= key(&best[k - 1]) {
        return true;
    }
    let pos = best.partition_point(|b| key(b) <= key(&c));
    best.insert(pos, c);
    best.truncate(k);
    best.len() == k
}

/// Most count buckets of a [`Dist::Counts`]: 16 Mi (64 MiB), and never more than
/// max(64 Ki, the number of values) — at most 4 bytes per value.
const MAX_BUCKETS: u64 = 1 << 24;

impl<'a> Instances<'a> {
    /// Instances whose place is pushed with each value.
    pub fn new() -> Instances<'static> {
        Instances {
            vals: Vals::Own {
                vals: Vec::new(),
                at: Vec::new(),
            },
            monotone: true,
            sorted: false,
        }
    }
    /// `n` instances read from the edges: instance i is `edges[b + span] − edges[b]` at
    /// `edges[b]`, `b = first + step × i` (the caller checks the last one is inside).
    pub fn on_edges(
        edges: &'a [Picos],
        first: usize,
        step: usize,
        span: usize,
        n: usize,
    ) -> Instances<'a> {
        let n = if n == 0 || first + step * (n - 1) + span < edges.len() {
            n
        } else {
            0
        };
        Instances {
            vals: Vals::Edges {
                edges,
                first,
                step,
                span,
                n,
            },
            monotone: true,
            sorted: false,
        }
    }
    /// Adds a value at `t` (instances made by [`Instances::new`] only).
    #[inline]
    pub fn push(&mut self, v: i64, t: Picos) {
        if let Vals::Own { vals, at } = &mut self.vals {
            self.monotone &= at.last().is_none_or(|&l| l <= t.0);
            vals.push(v);
            at.push(t.0);
        }
    }
    pub fn len(&self) -> usize {
        match &self.vals {
            Vals::Own { vals, .. } => vals.len(),
            Vals::Edges { n, .. } => *n,
        }
    }
    /// Place of instance `i` (push order; only before sorting).
    #[inline]
    pub fn at(&self, i: usize) -> Picos {
        match &self.vals {
            Vals::Own { at, .. } => Picos(at[i]),
            Vals::Edges {
                edges, first, step, ..
            } => edges[first + step * i],
        }
    }
    /// Calls `f(i, value)` for every instance in push order (nothing after sorting).
    /// Specialised per layout so the edge reads are plain strided loads.
    #[inline(always)]
    fn for_each(&self, mut f: impl FnMut(usize, i64)) {
        if self.sorted {
            return;
        }
        match &self.vals {
            Vals::Own { vals, .. } => {
                for (i, &v) in vals.iter().enumerate() {
                    f(i, v);
                }
            }
            &Vals::Edges {
                edges,
                first,
                step,
                span,
                n,
            } => {
                if n == 0 {
                    return;
                }
                let e = &edges[first..first + step * (n - 1) + span + 1];
                match (step, span) {
                    (2, 1) => {
                        for (i, p) in e.chunks_exact(2).enumerate() {
                            f(i, p[1].0 - p[0].0);
                        }
                    }
                    (1, 1) => {
                        for (i, p) in e.windows(2).enumerate() {
                            f(i, p[1].0 - p[0].0);
                        }
                    }
                    (2, 2) => {
                        for (i, (a, b)) in e
                            .iter()
                            .step_by(2)
                            .zip(e[2..].iter().step_by(2))
                            .enumerate()
                        {
                            f(i, b.0 - a.0);
                        }
                    }
                    _ => {
                        for i in 0..n {
                            let b = step * i;
                            f(i, e[b + span].0 - e[b].0);
                        }
                    }
                }
            }
        }
    }
    /// Calls `f(i0, values)` for consecutive blocks of the values in push order (`i0`: the
    /// index of the block's first value; nothing after sorting). The values read from edges
    /// are differenced into a small buffer first, so the per-value work of `f` is a plain
    /// loop over a slice that the compiler keeps in registers.
    #[inline(always)]
    fn for_each_block(&self, mut f: impl FnMut(usize, &[i64])) {
        const B: usize = 1024;
        if self.sorted {
            return;
        }
        match &self.vals {
            Vals::Own { vals, .. } => {
                for (k, c) in vals.chunks(B).enumerate() {
                    f(k * B, c);
                }
            }
            &Vals::Edges {
                edges,
                first,
                step,
                span,
                n,
            } => {
                let mut buf = [0i64; B];
                let mut i0 = 0;
                while i0 < n {
                    let m = (n - i0).min(B);
                    let e = &edges[first + step * i0..first + step * (i0 + m - 1) + span + 1];
                    match (step, span) {
                        (2, 1) => {
                            for (o, p) in buf[..m].iter_mut().zip(e.chunks_exact(2)) {
                                *o = p[1].0 - p[0].0;
                            }
                        }
                        (1, 1) => {
                            for (o, p) in buf[..m].iter_mut().zip(e.windows(2)) {
                                *o = p[1].0 - p[0].0;
                            }
                        }
                        _ => {
                            for (j, o) in buf[..m].iter_mut().enumerate() {
                                let b = step * j;
                                *o = e[b + span].0 - e[b].0;
                            }
                        }
                    }
                    f(i0, &buf[..m]);
                    i0 += m;
                }
            }
        }
    }
    /// Values with their places, in push order (empty after sorting).
    pub fn pairs(&self) -> Vec<(i64, Picos)> {
        let mut out = Vec::with_capacity(if self.sorted { 0 } else { self.len() });
        self.for_each(|i, v| out.push((v, self.at(i))));
        out
    }
    /// The k largest values with their places, largest first, the earliest first among
    /// equal values (push order needed: call before [`summary`](Self::summary)).
    #[cfg(test)]
    pub fn worst(&self, k: usize) -> Vec<(i64, Picos)> {
        let mut best: Vec<(i64, Picos)> = Vec::with_capacity(k + 1);
        if k == 0 {
            return best;
        }
        // below the k-th value nothing can enter, nor at it when places only grow: one
        // compare per value
        let mut floor = i64::MIN;
        let ties_enter = !self.monotone;
        self.for_each(|i, v| {
            if v < floor || (v == floor && !ties_enter) {
                return;
            }
            if offer(&mut best, k, (v, self.at(i))) {
                floor = best[k - 1].0;
            }
        });
        best
    }
    /// Exact moments, extremes (first occurrence), nearest-rank percentiles, the
    /// distribution (for mode and histogram) and the `k` largest values with their places
    /// (largest first, earliest first among equal values), in one pass over the values; the
    /// distribution is counted in that pass when the values stay within 32 Ki grid steps of
    /// the first one, else in a second. `loc` maps a time to a location; `grid` is the step
    /// the values are likely multiples of (the sample period; 1 when unknown). Own values
    /// may be sorted in place: call it after everything that needs push order.
    pub fn summary_worst(
        &mut self,
        loc: impl Fn(Picos) -> Location,
        grid: i64,
        k: usize,
    ) -> (Summary, Dist, Vec<(i64, Picos)>) {
        let n = self.len() as u64;
        if n == 0 || self.sorted {
            return (Summary::default(), Dist::Empty, Vec::new());
        }
        // pass 1: extremes, the worst k, and counts per grid step around the first value
        let v0 = self.first_value();
        let mut pass = Pass::new(v0, grid, k, n, !self.monotone);
        self.for_each_block(|i0, vals| pass.block(self, i0, vals));
        let Pass {
            min,
            max,
            imin,
            imax,
            best,
            base,
            g,
            ..
        } = pass;
        // the counts, when every value fell on the grid inside the window
        let counts = pass.counts.merged().filter(|_| base <= min);
        // exact sums of the values and of their squares relative to the first value (so
        // they stay small for values that cluster); the third: the squares overflowed
        let (s1, s2, s2_over) = match &counts {
            Some(c) => sums_of_counts(c, base, g, v0),
            None => self.sums(v0),
        };
        let mean = v0 as f64 + (s1 as f64) / n as f64;
        let var = self.variance(n, s1, s2, s2_over, mean);
        let (min_at, max_at) = (loc(self.at(imin)), loc(self.at(imax)));
        // the values were outside the window, or off the grid: count (or sort) again
        let dist = match counts {
            Some(counts) => Dist::Counts {
                min: base,
                grid: g,
                counts,
            },
            None => self.dist(min, max, grid, n),
        };
        let [p50, p90, p99, p999, p9999] =
            dist.at_ranks([50.0, 90.0, 99.0, 99.9, 99.99].map(|p| rank_index(p, n)));
        let sm = Summary {
            count: n,
            min,
            max,
            mean,
            stdev: var.max(0.0).sqrt(),
            p50,
            p90,
            p99,
            p999,
            p9999,
            min_at,
            max_at,
        };
        (sm, dist, best)
    }
    /// The first value in push order (there is one).
    fn first_value(&self) -> i64 {
        match &self.vals {
            Vals::Own { vals, .. } => vals[0],
            Vals::Edges {
                edges, first, span, ..
            } => edges[first + span].0 - edges[*first].0,
        }
    }
    /// The sample variance of the `n` values from the exact sums `s1`, `s2` of their
    /// differences to the first value: n·Σd² − (Σd)² in integers when it fits, else a
    /// second pass in floating point around `mean`.
    fn variance(&self, n: u64, s1: i128, s2: u128, s2_over: bool, mean: f64) -> f64 {
        if n < 2 {
            return 0.0;
        }
        let exact = (!s2_over)
            .then(|| {
                let a = s2.checked_mul(n as u128)?;
                let b = s1.unsigned_abs().checked_mul(s1.unsigned_abs())?;
                a.checked_sub(b)
            })
            .flatten();
        match exact {
            Some(num) => num as f64 / (n as f64 * (n - 1) as f64),
            None => {
                let mut m2 = 0.0f64;
                self.for_each(|_, v| {
                    let d = v as f64 - mean;
                    m2 += d * d;
                });
                m2 / (n - 1) as f64
            }
        }
    }
    /// Exact sums of `v − v0` and of its squares, and whether the squares overflowed.
    fn sums(&self, v0: i64) -> (i128, u128, bool) {
        let (mut s1, mut s2, mut over) = (0i128, 0u128, false);
        self.for_each(|_, v| {
            let d = v as i128 - v0 as i128;
            s1 += d;
            let a = d.unsigned_abs() as u64 as u128;
            let (sum, o) = s2.overflowing_add(a * a);
            s2 = sum;
            over |= o;
        });
        (s1, s2, over)
    }
    /// Counts per grid step when the values span few steps (pass 2); else sorted values.
    fn dist(&mut self, min: i64, max: i64, grid: i64, n: u64) -> Dist {
        let span = (max as i128 - min as i128) as u128;
        let cap = n.clamp(1 << 16, MAX_BUCKETS) as u128;
        let grid = if span < cap { 1 } else { grid.max(1) as u64 };
        if n <= u32::MAX as u64 && span / (grid as u128) < cap {
            let buckets = (span / grid as u128 + 1) as usize;
            let mut counts = vec![0u32; buckets];
            let div = ExactDiv::new(grid);
            let mut ok = true;
            self.for_each(|_, v| {
                let (q, fits) = div.div(v.wrapping_sub(min) as u64);
                ok &= fits;
                counts[(q as usize).min(buckets - 1)] += 1;
            });
            if ok {
                return Dist::Counts {
                    min,
                    grid: grid as i64,
                    counts,
                };
            }
        }
        let mut v = match &mut self.vals {
            Vals::Own { vals, .. } => std::mem::take(vals),
            Vals::Edges { .. } => {
                let mut v = Vec::with_capacity(n as usize);
                self.for_each(|_, x| v.push(x));
                v
            }
        };
        if matches!(self.vals, Vals::Own { .. }) {
            self.sorted = true;
        }
        v.sort_unstable();
        Dist::Sorted(v)
    }
}

/// Counts per grid step in the first pass: half the window below the first value, half
/// above.
const HALF: i64 = 1 << 15;
/// Steps counted per set.
const W: usize = 2 * HALF as usize;
/// Sets of counts: four, for values at places 0, 1, 2, 3 modulo 4, added up after the
/// pass: a run of equal values then increments four counters in turn instead of one (each
/// increment waits for the one before it to reach memory).
const SETS: usize = 4;
/// The sets lie 64 bytes more than W counts apart: at exactly W (256 KiB) one value's
/// four counters would share their address modulo 4 KiB, and the processor would make
/// each increment wait for the store before it as if they were one counter.
const STRIDE: usize = W + 16;
/// The last step of a set (values beyond it are clamped there and spoil the counts).
const LAST: usize = W - 1;

/// The first pass of [`Instances::summary_worst`]: extremes, the worst k, and counts per
/// grid step around the first value. The hot loop keeps no sums: when every value was
/// counted on the grid (the usual case) the exact sums come from the counts, else from a
/// second pass.
struct Pass {
    min: i64,
    max: i64,
    imin: usize,
    imax: usize,
    /// The k largest so far, largest first.
    best: Vec<(i64, Picos)>,
    /// Below this value nothing can enter `best`.
    floor: i64,
    k: usize,
    /// Whether a value equal to the floor may still enter (places not in order).
    ties_enter: bool,
    /// The grid step (at least 1) and the value counted in step 0.
    g: i64,
    base: i64,
    div: ExactDiv,
    counts: GridCounts,
}

/// The first pass's counts per grid step, in [`SETS`] sets; `ok` while every value so far
/// fell on the grid inside the window (and the total fits a `u32`).
struct GridCounts {
    spec: Vec<u32>,
    ok: bool,
}

impl GridCounts {
    /// The sets added up into one: counts per step from the pass's base, or none when a
    /// value fell off the grid or outside the window.
    fn merged(self) -> Option<Vec<u32>> {
        let GridCounts { mut spec, ok } = self;
        if !ok {
            return None;
        }
        let (first_set, others) = spec.split_at_mut(STRIDE);
        for set in others.chunks_exact(STRIDE) {
            for (a, b) in first_set[..W].iter_mut().zip(&set[..W]) {
                // at most n ≤ u32::MAX in all when `ok`
                *a = a.saturating_add(*b);
            }
        }
        spec.truncate(W);
        Some(spec)
    }
}

impl Pass {
    fn new(v0: i64, grid: i64, k: usize, n: u64, ties_enter: bool) -> Pass {
        let g = grid.max(1);
        let base = (v0 as i128 - (HALF as i128) * g as i128)
            .clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        Pass {
            min: i64::MAX,
            max: i64::MIN,
            imin: 0,
            imax: 0,
            best: Vec::with_capacity(k + 1),
            floor: if k == 0 { i64::MAX } else { i64::MIN },
            k,
            ties_enter,
            g,
            base,
            div: ExactDiv::new(g as u64),
            counts: GridCounts {
                spec: vec![0u32; SETS * STRIDE],
                ok: n <= u32::MAX as u64,
            },
        }
    }

    /// One block of values (`vals`, the first at index `i0` of `inst`): two passes over it
    /// (1024 values, in L1): the extremes and the worst, then the counts. Each pass has few
    /// enough locals to keep them all in registers; one pass doing both spilled the running
    /// minimum to the stack, a store and a load on every value's critical path.
    #[inline(always)]
    fn block(&mut self, inst: &Instances, i0: usize, vals: &[i64]) {
        if self.run(i0, vals) {
            return;
        }
        let (mut lo, mut hi, mut ilo, mut ihi) = (self.min, self.max, self.imin, self.imax);
        let mut fl = self.floor;
        let (k, ties_enter) = (self.k, self.ties_enter);
        for (j, &v) in vals.iter().enumerate() {
            if v < lo {
                lo = v;
                ilo = i0 + j;
            }
            if v > hi {
                hi = v;
                ihi = i0 + j;
            }
            if (v > fl || (v == fl && ties_enter && k > 0))
                && offer(&mut self.best, k, (v, inst.at(i0 + j)))
            {
                fl = self.best[k - 1].0;
            }
        }
        (self.min, self.max, self.imin, self.imax, self.floor) = (lo, hi, ilo, ihi, fl);
        self.count(vals);
    }

    /// A block whose values are all equal, handled as one value counted `vals.len()`
    /// times, when none of them can enter the worst (a constant period or pulse width, as
    /// a clock or tick sampled at a multiple of its rate gives): the same extremes with
    /// the same first places, the same counts. False (nothing done) otherwise; the check
    /// is a compare per value that the compiler vectorises.
    #[inline(always)]
    fn run(&mut self, i0: usize, vals: &[i64]) -> bool {
        let Some(&x) = vals.first() else {
            return true;
        };
        // the general loop offers x whenever this holds, and may then move the floor
        if x > self.floor || (x == self.floor && self.ties_enter && self.k > 0) {
            return false;
        }
        if vals.iter().fold(0i64, |d, &v| d | (v ^ x)) != 0 {
            return false;
        }
        if x < self.min {
            (self.min, self.imin) = (x, i0);
        }
        if x > self.max {
            (self.max, self.imax) = (x, i0);
        }
        let (q, fits) = self.div.div(x.wrapping_sub(self.base) as u64);
        let q = q as usize;
        self.counts.ok &= fits & (q <= LAST);
        // the sets are added up at the end, so one takes the whole run; at most n ≤
        // u32::MAX in all while the counts are kept (`ok`), never read otherwise
        if let Some(c) = self.counts.spec.get_mut(q.min(LAST)) {
            *c = c.wrapping_add(vals.len() as u32);
        }
        true
    }

    /// Counts the block's values per grid step, the four sets in turn.
    #[inline(always)]
    fn count(&mut self, vals: &[i64]) {
        let (dv, b) = (self.div, self.base);
        let mut ok = self.counts.ok;
        let mut sets = self.counts.spec.chunks_exact_mut(STRIDE);
        let (Some(s0), Some(s1), Some(s2), Some(s3)) =
            (sets.next(), sets.next(), sets.next(), sets.next())
        else {
            return; // four sets were allocated
        };
        let count = move |v: i64, set: &mut [u32], ok: &mut bool| {
            let (q, fits) = dv.div(v.wrapping_sub(b) as u64);
            let q = q as usize;
            *ok &= fits & (q <= LAST);
            set[q.min(LAST)] += 1;
        };
        let quads = vals.chunks_exact(SETS);
        let tail = quads.remainder();
        for c in quads {
            count(c[0], s0, &mut ok);
            count(c[1], s1, &mut ok);
            count(c[2], s2, &mut ok);
            count(c[3], s3, &mut ok);
        }
        for &v in tail {
            count(v, s0, &mut ok);
        }
        self.counts.ok = ok;
    }
}

/// Exact sums of `v − v0` and of its squares over values counted per grid step `g` from
/// `base`, and whether the squares overflowed.
fn sums_of_counts(counts: &[u32], base: i64, g: i64, v0: i64) -> (i128, u128, bool) {
    let (mut s1, mut s2, mut over) = (0i128, 0u128, false);
    for (q, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        // value base + q·g, less v0 = (q − HALF)·g, exact in i128
        let d = (base as i128 + q as i128 * g as i128) - v0 as i128;
        s1 += d * c as i128;
        let a = d.unsigned_abs();
        match a.checked_mul(a).and_then(|sq| sq.checked_mul(c as u128)) {
            Some(t) => {
                let (sum, o) = s2.overflowing_add(t);
                s2 = sum;
                over |= o;
            }
            None => over = true,
        }
    }
    (s1, s2, over)
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::stats::Samples;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// The same figures as core's `Samples` (a 24-byte pair per instance, Welford moments,
    /// percentiles by sorting): exactly, but the mean and deviation, which are computed
    /// more exactly here, to within 1e-12 relative. Over value sets that take every path:
    /// few distinct values (counted at 1 ps), values on a grid (counted per grid step) and
    /// values spread wide (sorted), negative values and a value set too wide for exact
    /// squares.
    #[test]
    fn matches_samples_on_every_path() {
        let mut x: u64 = 7;
        type Shape = (&'static str, Box<dyn Fn(u64) -> i64>, i64);
        // runs of 3,072 equal values (a constant period; three blocks of 1,024), now and
        // then a larger one in its last block: the shortcut for blocks of one value, with the run's value
        // rising past the worst (taken by the general loop) and falling to a new minimum
        // at a block's start (taken by the shortcut)
        let runs = |up: bool| -> Box<dyn Fn(u64) -> i64> {
            let i = std::cell::Cell::new(0u64);
            Box::new(move |r| {
                let k = i.get();
                i.set(k + 1);
                let step = ((k / 3072) % 4) as i64;
                if k % 3072 >= 2048 && r % 300 == 0 {
                    ((r >> 20) % 50) as i64 * 1000 + 10_000
                } else {
                    (if up { step } else { 3 - step }) * 1000 + 2000
                }
            })
        };
        let shapes: [Shape; 8] = [
            ("runs-up", runs(true), 1000),
            ("runs-down", runs(false), 1000),
            ("few", Box::new(|r| (r % 97) as i64 - 20), 1),
            (
                "grid",
                Box::new(|r| (r % 100_000) as i64 * 1000 + 5000),
                1000,
            ),
            (
                "off-grid",
                Box::new(|r| (r % 100_000) as i64 * 1000 + (r % 7) as i64),
                1000,
            ),
            ("wide", Box::new(|r| (r >> 20) as i64 - (1 << 42)), 1000),
            ("huge", Box::new(|r| (r as i64) >> 2), 1),
            // counted on a coarse grid, but the squares overflow 128 bits: the deviation
            // from the floating-point pass
            (
                "grid-huge",
                Box::new(|r| ((r % 15) as i64 - 7) << 59),
                1 << 59,
            ),
        ];
        for (name, f, grid) in shapes {
            let mut vals = Vec::new();
            for i in 0..200_000i64 {
                vals.push((f(xorshift(&mut x)), Picos(i * 10)));
            }
            // places out of push order too (equal values may then enter the worst)
            if name == "runs-down" {
                for v in vals.iter_mut().skip(100_000) {
                    v.1 = Picos(3_000_000 - v.1 .0);
                }
            }
            let loc = |t: Picos| Location { at: t.0, source: 0 };
            let mut s = Samples::new();
            let mut inst = Instances::new();
            for &(v, t) in &vals {
                s.push(v, loc(t));
                inst.push(v, t);
            }
            let mut want_worst: Vec<(i64, i64)> =
                s.values().iter().map(|(v, l)| (*v, l.at)).collect();
            want_worst.sort_by_key(|&(v, a)| (std::cmp::Reverse(v), a));
            want_worst.truncate(7);
            let got: Vec<(i64, i64)> = inst.worst(7).iter().map(|(v, t)| (*v, t.0)).collect();
            assert_eq!(got, want_worst, "{name}");
            let (got, dist, worst) = inst.summary_worst(loc, grid, 7);
            let worst: Vec<(i64, i64)> = worst.iter().map(|(v, t)| (*v, t.0)).collect();
            assert_eq!(worst, want_worst, "{name}");
            let want = s.summary();
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
            assert!(
                close(got.mean, want.mean),
                "{name}: {} {}",
                got.mean,
                want.mean
            );
            assert!(
                close(got.stdev, want.stdev),
                "{name}: {} {}",
                got.stdev,
                want.stdev
            );
            assert_eq!(
                Summary {
                    mean: 0.0,
                    stdev: 0.0,
                    ..got
                },
                Summary {
                    mean: 0.0,
                    stdev: 0.0,
                    ..want
                },
                "{name}"
            );
            let counted = matches!(dist, Dist::Counts { .. });
            assert_eq!(
                counted,
                matches!(name, "few" | "grid" | "grid-huge" | "runs-up" | "runs-down"),
                "{name}"
            );
            for r in [1, 3, 1000] {
                assert_eq!(dist.mode(r), s.mode(r), "{name}");
            }
            let mut runs = Vec::new();
            dist.for_each_run(|v, c| runs.push((v, c)));
            let mut sorted: Vec<i64> = vals.iter().map(|p| p.0).collect();
            sorted.sort_unstable();
            let mut want_runs: Vec<(i64, u64)> = Vec::new();
            for v in sorted {
                match want_runs.last_mut() {
                    Some((w, c)) if *w == v => *c += 1,
                    _ => want_runs.push((v, 1)),
                }
            }
            assert_eq!(runs, want_runs, "{name}");
        }
    }

    /// Values read from edges: the same as pushing the differences, for every layout.
    #[test]
    fn edge_layouts_read_the_right_differences() {
        let mut x: u64 = 99;
        let mut t = 0i64;
        // more than one block of values (1024) for every layout
        let edges: Vec<Picos> = (0..3001)
            .map(|_| {
                t += 1 + (xorshift(&mut x) % 50) as i64;
                Picos(t * 1000)
            })
            .collect();
        for (first, step, span) in [(0, 2, 1), (1, 2, 1), (0, 1, 1), (1, 2, 2), (0, 3, 2)] {
            let n = (edges.len() - 1 - first - span) / step + 1;
            let mut inst = Instances::on_edges(&edges, first, step, span, n);
            let mut own = Instances::new();
            for i in 0..n {
                let b = first + step * i;
                own.push(edges[b + span].0 - edges[b].0, edges[b]);
            }
            assert_eq!(inst.pairs(), own.pairs(), "{first} {step} {span}");
            assert_eq!(inst.worst(5), own.worst(5));
            let grid = 1000;
            let loc = |t: Picos| Location { at: t.0, source: 0 };
            let (a, _, wa) = inst.summary_worst(loc, grid, 5);
            let (b, _, wb) = own.summary_worst(loc, grid, 5);
            assert_eq!((a, wa), (b, wb));
        }
        // an n that does not fit is empty, never out of bounds
        assert_eq!(Instances::on_edges(&edges, 0, 2, 1, 1600).len(), 0);
    }

    /// Places that go back in push order: among equal values the earliest place still wins.
    #[test]
    fn worst_with_places_out_of_order() {
        let mut own = Instances::new();
        for (v, t) in [(5, 50), (9, 40), (9, 30), (5, 10), (9, 20), (1, 0)] {
            own.push(v, Picos(t));
        }
        assert_eq!(
            own.worst(3),
            vec![(9, Picos(20)), (9, Picos(30)), (9, Picos(40))]
        );
        assert_eq!(own.worst(4)[3], (5, Picos(10)));
    }

    #[test]
    fn exact_division() {
        for d in [1u64, 2, 3, 1000, 100_000, 41_666, 1 << 40, u64::MAX / 3] {
            let e = ExactDiv::new(d);
            for q in [0u64, 1, 2, 7, 1 << 20, u64::MAX / d]
                .into_iter()
                .filter(|&q| q <= u64::MAX / d)
            {
                assert_eq!(e.div(q * d), (q, true), "{d} {q}");
                if d > 1 && q < u64::MAX / d {
                    assert!(!e.div(q * d + 1).1, "{d} {q}");
                }
            }
        }
    }
}
