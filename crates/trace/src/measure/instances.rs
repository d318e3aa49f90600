//! The instances of one measurement, kept small: one `i64` value each, plus where it
//! happened only when that cannot be derived (a pulse's start is an edge of the channel,
//! a period's start is its first edge). A pulse measurement therefore costs 8 bytes per
//! pulse on top of the channel's 8 bytes per edge (12 bytes per measured edge), a period
//! 16 bytes per edge; every statistic stays exact (percentiles by sorting the values in
//! place once everything that needs their order has been read).

use latscope_core::stats::{rank_index, Location, Moments, Summary};
use latscope_core::time::Picos;

/// Where instance `i` happened.
pub(crate) enum At<'a> {
    /// Stored per instance (latencies, windows).
    Own(Vec<i64>),
    /// `edges[first + step × i]` (pulses: step 2; periods: step 1).
    Edges {
        edges: &'a [Picos],
        first: usize,
        step: usize,
    },
}

pub(crate) struct Instances<'a> {
    vals: Vec<i64>,
    at: At<'a>,
    sorted: bool,
}

impl<'a> Instances<'a> {
    /// Instances whose place is pushed with each value.
    pub fn new() -> Instances<'static> {
        Instances {
            vals: Vec::new(),
            at: At::Own(Vec::new()),
            sorted: false,
        }
    }
    /// Instances whose place is an edge: instance i at `edges[first + step × i]`.
    pub fn on_edges(edges: &'a [Picos], first: usize, step: usize, n: usize) -> Instances<'a> {
        Instances {
            vals: Vec::with_capacity(n),
            at: At::Edges { edges, first, step },
            sorted: false,
        }
    }
    /// Adds a value (at `t` when places are stored; ignored otherwise).
    #[inline]
    pub fn push(&mut self, v: i64, t: Picos) {
        self.vals.push(v);
        if let At::Own(a) = &mut self.at {
            a.push(t.0);
        }
    }
    pub fn len(&self) -> usize {
        self.vals.len()
    }
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }
    /// Place of instance `i` (push order; only before sorting).
    #[inline]
    pub fn at(&self, i: usize) -> Picos {
        match &self.at {
            At::Own(a) => Picos(a[i]),
            At::Edges { edges, first, step } => edges[first + step * i],
        }
    }
    /// Values with their places, in push order (None after sorting).
    pub fn iter(&self) -> Option<impl Iterator<Item = (i64, Picos)> + '_> {
        (!self.sorted).then(|| self.vals.iter().enumerate().map(|(i, &v)| (v, self.at(i))))
    }
    /// Sum of the values as f64, in push order.
    pub fn sum_f64(&self) -> f64 {
        self.vals.iter().map(|&v| v as f64).sum()
    }
    /// Exact moments, extremes (first occurrence) and, after sorting the values, exact
    /// nearest-rank percentiles. `loc` maps a time to a location. Sorts the values: call
    /// it after everything that needs push order.
    pub fn summary(&mut self, loc: impl Fn(Picos) -> Location) -> Summary {
        let mut m = Moments::default();
        if !self.sorted {
            for i in 0..self.vals.len() {
                m.add(self.vals[i], loc(self.at(i)));
            }
        }
        if m.count() == 0 {
            return Summary::default();
        }
        self.vals.sort_unstable();
        self.sorted = true;
        let n = self.vals.len() as u64;
        let at = |p: f64| self.vals[rank_index(p, n) as usize];
        Summary {
            count: n,
            min: m.min().unwrap_or(0),
            max: m.max().unwrap_or(0),
            mean: m.mean(),
            stdev: m.stdev(),
            p50: at(50.0),
            p90: at(90.0),
            p99: at(99.0),
            p999: at(99.9),
            p9999: at(99.99),
            min_at: m.min_at(),
            max_at: m.max_at(),
        }
    }
    /// The k largest values with their places, largest first, the earliest first among
    /// equal values (push order needed: call before [`summary`](Self::summary)).
    pub fn worst(&self, k: usize) -> Vec<(i64, Picos)> {
        let mut best: Vec<(i64, Picos)> = Vec::with_capacity(k + 1);
        if k == 0 || self.sorted {
            return best;
        }
        let key = |x: &(i64, Picos)| (std::cmp::Reverse(x.0), x.1);
        for i in 0..self.vals.len() {
            let c = (self.vals[i], self.at(i));
            if best.len() == k && key(&c) >= key(&best[k - 1]) {
                continue;
            }
            let pos = best.partition_point(|b| key(b) <= key(&c));
            best.insert(pos, c);
            best.truncate(k);
        }
        best
    }
    /// Sorted values (after [`summary`](Self::summary)).
    pub fn sorted_values(&self) -> &[i64] {
        if self.sorted {
            &self.vals
        } else {
            &[]
        }
    }
    /// The most frequent value after rounding down to `resolution`; ties go to the smaller
    /// value (after [`summary`](Self::summary)).
    pub fn mode(&self, resolution: i64) -> Option<i64> {
        let v = self.sorted_values();
        if v.is_empty() {
            return None;
        }
        let r = resolution.max(1);
        let mut best = (0u64, 0i64);
        let mut cur = (0u64, i64::MIN);
        for &x in v {
            let b = x.div_euclid(r) * r;
            if b == cur.1 {
                cur.0 += 1;
            } else {
                cur = (1, b);
            }
            if cur.0 > best.0 {
                best = cur;
            }
        }
        Some(best.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::stats::Samples;

    /// Same figures as core's `Samples` (which keeps a 24-byte pair per instance).
    #[test]
    fn matches_samples_exactly() {
        let mut x: u64 = 7;
        let mut vals = Vec::new();
        for i in 0..5000i64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(((x % 97) as i64 - 20, Picos(i * 10)));
        }
        let loc = |t: Picos| Location { at: t.0, source: 0 };
        let mut s = Samples::new();
        let mut inst = Instances::new();
        for &(v, t) in &vals {
            s.push(v, loc(t));
            inst.push(v, t);
        }
        let mut want_worst: Vec<(i64, i64)> = s.values().iter().map(|(v, l)| (*v, l.at)).collect();
        want_worst.sort_by_key(|&(v, a)| (std::cmp::Reverse(v), a));
        want_worst.truncate(7);
        let got: Vec<(i64, i64)> = inst.worst(7).iter().map(|(v, t)| (*v, t.0)).collect();
        assert_eq!(got, want_worst);
        assert_eq!(inst.summary(loc), s.summary());
        assert_eq!(inst.mode(3), s.mode(3));
        // derived places: pulses on edges
        let edges: Vec<Picos> = (0..10).map(|i| Picos(i * 100)).collect();
        let mut p = Instances::on_edges(&edges, 1, 2, 4);
        for k in 0..4 {
            p.push(50 + k, Picos(0));
        }
        assert_eq!(p.at(2), Picos(500));
        assert_eq!(p.worst(1), vec![(53, Picos(700))]);
    }
}
