//! Higher-priority tasks' shares of a response time, held as indices into one shared
//! list of names. A set of n tasks has O(n^2) shares, so a result keeps only each task's
//! largest ones by default (the rest summed, `Breakdown::interference_others_ns`):
//! memory stays linear in the number of tasks ([`InterferenceDetail`]).

use super::ticks::{ns, ns_wide};
use serde::Serialize;
use std::sync::Arc;

/// How many higher-priority tasks a breakdown names ([`super::AnalysisOptions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterferenceDetail {
    /// The largest `n` shares (ties: the higher priority), the others summed.
    Top(usize),
    /// Every share: n^2 / 2 of them for n tasks.
    Full,
}

impl InterferenceDetail {
    /// The default: enough to see what dominates a response time.
    pub const DEFAULT_TOP: usize = 8;

    fn keep(self) -> usize {
        match self {
            InterferenceDetail::Top(n) => n,
            InterferenceDetail::Full => usize::MAX,
        }
    }
}

/// Why a text is not an [`InterferenceDetail`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is neither a number of tasks nor `full`")]
pub struct InterferenceDetailError(pub String);

/// `N` (the largest N shares) or `full` (case-insensitive): `analyze --interference`
/// and Python read it through this one parser.
impl std::str::FromStr for InterferenceDetail {
    type Err = InterferenceDetailError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("full") {
            return Ok(InterferenceDetail::Full);
        }
        s.parse::<usize>()
            .map(InterferenceDetail::Top)
            .map_err(|_| InterferenceDetailError(s.to_string()))
    }
}

impl Default for InterferenceDetail {
    fn default() -> Self {
        InterferenceDetail::Top(Self::DEFAULT_TOP)
    }
}

/// Higher- or equal-priority tasks' execution in a WCRT, one [`Share`] per task kept, in
/// descending priority order (ties in file order, like `tasks`). Serialised as
/// `[{"name": .., "ns": ..}, ..]`; the names are shared by every result of an analysis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interference {
    /// The task names (`None` only in an empty default).
    pub(super) names: Option<Arc<[Arc<str>]>>,
    pub(super) items: Vec<Share>,
    /// How many shares to keep, and the sum of those left out.
    pub(super) keep: usize,
    pub(super) others_ns: f64,
    /// With `keep` shares kept: the smallest one's value and position.
    pub(super) min_ns: f64,
    pub(super) min_at: usize,
}

/// One task's part of a WCRT.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    /// Index of the task in the system description's task list.
    pub task: u32,
    pub ns: f64,
}

/// A [`Share`] with its task's name.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NamedNs<'a> {
    pub name: &'a str,
    pub ns: f64,
}

impl Interference {
    pub(super) fn new(names: Arc<[Arc<str>]>, detail: InterferenceDetail, tasks: usize) -> Self {
        let keep = detail.keep();
        Interference {
            names: Some(names),
            items: Vec::with_capacity(tasks.min(keep)),
            keep,
            others_ns: 0.0,
            min_ns: 0.0,
            min_at: 0,
        }
    }

    /// Adds a share (in priority order). Past `keep` shares the smallest one goes to
    /// `others_ns` (the earliest of equal ones stays); the kept ones keep their order.
    #[inline]
    pub(super) fn push(&mut self, task: usize, ns: f64) {
        let share = Share {
            task: task as u32,
            ns,
        };
        if self.items.len() < self.keep {
            self.items.push(share);
            if self.items.len() == self.keep {
                self.find_min();
            }
        } else if self.keep == 0 || ns <= self.min_ns {
            self.others_ns += ns;
        } else {
            self.replace_min(share);
        }
    }

    /// Drops the smallest kept share for `share` (a larger one), keeping the order: the
    /// shares after it move down one place and `share` goes last. A plain loop over the
    /// at most `keep` shares: `Vec::remove` calls `memmove`, which costs more than the
    /// few moves themselves (a tenth of the analysis time on the 100-task bench sets).
    #[inline]
    fn replace_min(&mut self, share: Share) {
        self.others_ns += self.min_ns;
        let items = &mut self.items[self.min_at..];
        for k in 1..items.len() {
            items[k - 1] = items[k];
        }
        if let Some(last) = items.last_mut() {
            *last = share;
        }
        self.find_min();
    }

    /// The last smallest kept share (ties: the lowest priority goes out first), once
    /// `keep` are kept. The shares are finite and not negative (execution times), so
    /// `<=` orders them as `f64::total_cmp` would.
    #[inline]
    fn find_min(&mut self) {
        let mut at = 0;
        let mut min = f64::INFINITY;
        for (k, s) in self.items.iter().enumerate() {
            if s.ns <= min {
                min = s.ns;
                at = k;
            }
        }
        if !self.items.is_empty() {
            self.min_at = at;
            self.min_ns = min;
        }
    }

    /// Takes a task's shares from the lowest priority up (`shares` yields `(task, ps)`,
    /// at most `count` of them) and keeps the same shares as [`Self::push`] would in
    /// priority order: the `keep` largest by their value in ns, of equal ones the higher
    /// priority. The sum of the others is exact: their picoseconds added as integers and
    /// converted once (push adds the nanosecond values one by one, in the order they go
    /// out, so its sum may differ from this one in the last bits).
    ///
    /// Why from the lowest priority up: a share `ceil(w / T_j) C_j` tends to grow down
    /// the priority order (a longer period rounds up by a larger WCET), so taken in
    /// priority order most shares replaced the smallest kept one and moved past the
    /// others (the largest part of the analysis on the 100-task bench sets,
    /// docs/benchmarks.md, sessions 13–14). Taken the other way, the first `keep` are
    /// usually the largest and most of the rest cost one comparison and one addition.
    ///
    /// For a new `Interference` (the breakdown makes one per result).
    pub(super) fn select_from_lowest(
        &mut self,
        shares: impl Iterator<Item = (usize, i64)>,
        count: usize,
    ) {
        let mut others: i128 = 0;
        if self.keep >= count {
            // Every share kept: they only need to be put back in priority order.
            let start = self.items.len();
            self.items.extend(shares.map(|(task, ps)| Share {
                task: task as u32,
                ns: ns(ps),
            }));
            self.items[start..].reverse();
        } else if self.keep == 0 {
            others = shares.map(|(_, ps)| ps as i128).sum();
        } else if self.keep <= InterferenceDetail::DEFAULT_TOP {
            // (A buffer no larger than needed: it is zeroed on every call.)
            let mut buf = [Slot::default(); InterferenceDetail::DEFAULT_TOP];
            others = select(&mut buf[..self.keep], shares, &mut self.items);
        } else if self.keep <= STACK_KEEP {
            let mut buf = [Slot::default(); STACK_KEEP];
            others = select(&mut buf[..self.keep], shares, &mut self.items);
        } else {
            let mut buf = vec![Slot::default(); self.keep];
            others = select(&mut buf, shares, &mut self.items);
        }
        self.others_ns += ns_wide(others);
        if self.items.len() >= self.keep {
            self.find_min();
        }
    }

    /// The sum of the shares left out (0 when every share is kept).
    pub fn others_ns(&self) -> f64 {
        self.others_ns
    }

    /// Keeps the largest `keep` shares (as [`Self::push`] would have), adding the rest
    /// to `others_ns`.
    pub(super) fn limit(&mut self, detail: InterferenceDetail) {
        let all = std::mem::take(&mut self.items);
        self.keep = detail.keep();
        self.items.reserve(all.len().min(self.keep));
        for s in all {
            self.push(s.task as usize, s.ns);
        }
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Removes and returns the shares of the tasks `keep` selects (by file index).
    pub(super) fn take_where(&mut self, keep: impl Fn(usize) -> bool) -> Vec<Share> {
        let (taken, rest) = self.items.drain(..).partition(|s| keep(s.task as usize));
        self.items = rest;
        taken
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The shares with their tasks' names.
    pub fn iter(&self) -> InterferenceIter<'_> {
        self.into_iter()
    }
}

impl<'a> IntoIterator for &'a Interference {
    type Item = NamedNs<'a>;
    type IntoIter = InterferenceIter<'a>;
    fn into_iter(self) -> InterferenceIter<'a> {
        InterferenceIter {
            names: self.names.as_deref().unwrap_or(&[]),
            items: self.items.iter(),
        }
    }
}

/// The shares of an [`Interference`] with their names.
pub struct InterferenceIter<'a> {
    names: &'a [Arc<str>],
    items: std::slice::Iter<'a, Share>,
}

impl<'a> Iterator for InterferenceIter<'a> {
    type Item = NamedNs<'a>;
    fn next(&mut self) -> Option<NamedNs<'a>> {
        let s = self.items.next()?;
        Some(NamedNs {
            name: self.names.get(s.task as usize).map_or("?", |n| n),
            ns: s.ns,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl ExactSizeIterator for InterferenceIter<'_> {}

impl std::ops::Index<usize> for Interference {
    type Output = Share;
    fn index(&self, k: usize) -> &Share {
        &self.items[k]
    }
}

impl Serialize for Interference {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// The largest `keep` [`Interference::select_from_lowest`] selects for in a buffer on the
/// stack; a larger one uses one on the heap.
const STACK_KEEP: usize = 32;

/// Integers of picoseconds up to this size (about 4.4 s) keep a strict order through
/// [`ns`]: there the spacing of f64 values is below 1e-6 ns, far finer than the 0.001 ns
/// between two integers of ps.
const EXACT_PS: u64 = 1 << 42;

/// A kept share while selecting.
#[derive(Clone, Copy, Default)]
struct Slot {
    ns: f64,
    ps: i64,
    task: u32,
    /// Arrival order (the lowest priority first).
    seq: u32,
}

/// The selection of [`Interference::select_from_lowest`] into `buf` (its length is how
/// many to keep, fewer than the shares): appends the kept shares to `items` in priority
/// order and returns the others' sum in ps.
///
/// `buf[..len]` holds the kept shares from the next to go out to the last: by value, and
/// of equal values the lowest priority (the earliest to arrive) first. A share arrives
/// with a higher priority than every kept one, so it beats the first when its value is
/// at least as large, and goes in after every kept share of a value not above its own.
///
/// Most shares lose to the first kept one. Those are told apart in picoseconds, in a
/// loop of their own (the sum in registers, no conversion to ns), while the first kept
/// one is within ±[`EXACT_PS`]: there a smaller integer has a strictly smaller value in
/// ns, so the outcome is the one the comparison in ns gives.
fn select(
    buf: &mut [Slot],
    mut shares: impl Iterator<Item = (usize, i64)>,
    items: &mut Vec<Share>,
) -> i128 {
    let keep = buf.len();
    let mut len = 0usize;
    let mut others: i128 = 0;
    let mut seq: u32 = 0;
    let slot = |task: usize, ps: i64, seq: u32| Slot {
        ns: ns(ps),
        ps,
        task: task as u32,
        seq,
    };
    // The first `keep` shares, in order.
    while len < keep {
        let Some((task, ps)) = shares.next() else {
            break;
        };
        let new = slot(task, ps, seq);
        seq = seq.wrapping_add(1);
        let mut at = len;
        while at > 0 && buf[at - 1].ns > new.ns {
            buf[at] = buf[at - 1];
            at -= 1;
        }
        buf[at] = new;
        len += 1;
    }
    if len == keep {
        loop {
            // Below `floor` (in ps) a share loses to the first kept one.
            let floor = if buf[0].ps.unsigned_abs() <= EXACT_PS {
                buf[0].ps
            } else {
                i64::MIN
            };
            let mut contender = None;
            for (task, ps) in shares.by_ref() {
                if ps < floor {
                    others += ps as i128;
                    seq = seq.wrapping_add(1);
                } else {
                    contender = Some((task, ps));
                    break;
                }
            }
            let Some((task, ps)) = contender else {
                break;
            };
            let new = slot(task, ps, seq);
            seq = seq.wrapping_add(1);
            if new.ns < buf[0].ns {
                others += ps as i128;
                continue;
            }
            others += buf[0].ps as i128;
            let mut at = 0;
            while at + 1 < keep && buf[at + 1].ns <= new.ns {
                buf[at] = buf[at + 1];
                at += 1;
            }
            buf[at] = new;
        }
    }
    let kept = &mut buf[..len];
    // Back in priority order: the last to arrive first.
    kept.sort_unstable_by_key(|s| std::cmp::Reverse(s.seq));
    items.extend(kept.iter().map(|s| Share {
        task: s.task,
        ns: s.ns,
    }));
    others
}

#[cfg(test)]
mod tests {
    use super::{ns, Interference, InterferenceDetail};
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    /// Taking the shares from the lowest priority up keeps the same shares in the same
    /// order and leaves the same state as one `push` per share in priority order, with
    /// many ties (shares drawn from a few values) and without, for every kind of detail;
    /// the others' sum is the exact sum of the shares not kept.
    #[test]
    fn select_from_lowest_keeps_what_push_keeps() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let names: Arc<[Arc<str>]> = (0..400).map(|i| Arc::from(format!("t{i}"))).collect();
        for round in 0..3_000 {
            let n = rng.gen_range(0..400);
            let few = round % 2 == 0;
            let shares: Vec<(usize, i64)> = (0..n)
                .map(|t| {
                    let ps: i64 = if few {
                        rng.gen_range(0..6) * 1_000
                    } else if round % 3 == 0 {
                        // Values that collapse to one f64 in ns: ties decided on the ns.
                        (1 << 60) + rng.gen_range(0..4_000)
                    } else if round % 5 == 0 {
                        // Around the integer shortcut's limit (`EXACT_PS`).
                        (1 << 42) + rng.gen_range(-3_000..3_000)
                    } else if round % 7 == 0 {
                        rng.gen_range(0..1 << 55)
                    } else {
                        rng.gen_range(0..10_000_000)
                    };
                    (t, ps)
                })
                .collect();
            let detail = match rng.gen_range(0..5) {
                0 => InterferenceDetail::Full,
                1 => InterferenceDetail::Top(rng.gen_range(0..40)),
                2 => InterferenceDetail::Top(rng.gen_range(30..80)),
                _ => InterferenceDetail::Top(rng.gen_range(0..12)),
            };
            let mut one = Interference::new(names.clone(), detail, n);
            for &(t, ps) in &shares {
                one.push(t, ns(ps));
            }
            let mut sel = Interference::new(names.clone(), detail, n);
            // The count is an upper bound on the shares (the breakdown passes its
            // number of entities).
            let count = n + rng.gen_range(0..3);
            sel.select_from_lowest(shares.iter().rev().copied(), count);
            assert_eq!(one.items, sel.items, "round {round}");
            assert_eq!(one.min_ns.to_bits(), sel.min_ns.to_bits(), "round {round}");
            assert_eq!(one.min_at, sel.min_at, "round {round}");
            let kept: std::collections::HashSet<u32> = one.items.iter().map(|s| s.task).collect();
            let rest: i128 = shares
                .iter()
                .filter(|(t, _)| !kept.contains(&(*t as u32)))
                .map(|&(_, ps)| ps as i128)
                .sum();
            let exact = ns(rest.min(i64::MAX as i128) as i64);
            assert_eq!(sel.others_ns.to_bits(), exact.to_bits(), "round {round}");
            if rest <= i64::MAX as i128 {
                // (Past i64 the exact sum saturates, as every breakdown total does.)
                let d = (one.others_ns - exact).abs();
                assert!(d <= 1e-9 * exact.max(1.0), "round {round}");
            }
        }
    }
}
