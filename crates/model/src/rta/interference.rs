//! Higher-priority tasks' shares of a response time, held as indices into one shared
//! list of names. A set of n tasks has O(n^2) shares, so a result keeps only each task's
//! largest ones by default (the rest summed, `Breakdown::interference_others_ns`):
//! memory stays linear in the number of tasks ([`InterferenceDetail`]).

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

    /// Adds shares in priority order with the same outcome as [`Self::push`] for each
    /// (the same shares kept, the same additions to `others_ns` in the same order), but
    /// the kept shares are held in a buffer sorted by the order in which they go out (the
    /// smallest first, of equal ones the latest pushed, as [`Self::find_min`] picks it)
    /// while selecting, and put back in push order once, at the end. The breakdown pushes
    /// every higher-priority task of every task, and shares tend to grow down the
    /// priority order (a longer period rounds up by a larger WCET), so most pushes
    /// replace the smallest kept share: in the sorted buffer that is one step of its
    /// start, and the new share moves down only past the kept shares larger than it
    /// (a min-heap sifted every new share from its root; the breakdown was the largest
    /// part of the analysis on the 100-task bench sets, docs/benchmarks.md, session 13).
    pub(super) fn extend_ordered(&mut self, shares: impl Iterator<Item = (usize, f64)>) {
        if !self.items.is_empty() || self.keep == 0 || self.keep > RING {
            for (task, ns) in shares {
                self.push(task, ns);
            }
            return;
        }
        let keep = self.keep;
        // The kept shares are `buf[start..start + len]`, the next to go out first; the
        // window slides up one slot per share replaced and moves back to the front when
        // it reaches the end (once per `BUF - keep` replacements).
        let mut buf = [Slot::default(); BUF];
        let (mut start, mut len) = (0usize, 0usize);
        let mut seq: u32 = 0;
        for (task, ns) in shares {
            if len == keep {
                let min = buf[start].ns;
                if ns <= min {
                    self.others_ns += ns;
                    seq = seq.wrapping_add(1);
                    continue;
                }
                self.others_ns += min;
                start += 1;
                len -= 1;
                if start + keep > BUF {
                    buf.copy_within(start..start + len, 0);
                    start = 0;
                }
            }
            // After the kept shares smaller than it, before the equal and larger ones
            // (it is the latest pushed, so the first of its equals to go out).
            let mut at = start + len;
            while at > start && buf[at - 1].ns >= ns {
                buf[at] = buf[at - 1];
                at -= 1;
            }
            buf[at] = Slot {
                ns,
                task: task as u32,
                seq,
            };
            len += 1;
            seq = seq.wrapping_add(1);
        }
        // Back in push order.
        let kept = &mut buf[start..start + len];
        kept.sort_unstable_by_key(|s| s.seq);
        self.items.extend(kept.iter().map(|s| Share {
            task: s.task,
            ns: s.ns,
        }));
        if self.items.len() == keep {
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

/// The largest `keep` [`Interference::extend_ordered`] selects for in its buffer of
/// `BUF` slots; a larger one takes one [`Interference::push`] per share.
const RING: usize = 32;
const BUF: usize = 128;

/// A kept share while selecting, with its push sequence number (for the final order).
#[derive(Clone, Copy, Default)]
struct Slot {
    ns: f64,
    task: u32,
    seq: u32,
}

#[cfg(test)]
mod tests {
    use super::{Interference, InterferenceDetail};
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    /// The batch selection keeps the same shares in the same order, sums the same left-out
    /// shares in the same order and leaves the same state as one `push` per share, with
    /// many ties (shares drawn from a few values) and without.
    #[test]
    fn extend_ordered_equals_push() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let names: Arc<[Arc<str>]> = (0..400).map(|i| Arc::from(format!("t{i}"))).collect();
        for round in 0..2_000 {
            // Up to 400 shares: the selection buffer moves back to its front.
            let n = rng.gen_range(0..400);
            let few = round % 2 == 0;
            let shares: Vec<(usize, f64)> = (0..n)
                .map(|t| {
                    let ps: i64 = if few {
                        rng.gen_range(0..6) * 1_000
                    } else {
                        rng.gen_range(0..10_000_000)
                    };
                    (t, ps as f64 / 1000.0)
                })
                .collect();
            let detail = match rng.gen_range(0..4) {
                0 => InterferenceDetail::Full,
                1 => InterferenceDetail::Top(rng.gen_range(0..40)),
                _ => InterferenceDetail::Top(rng.gen_range(0..12)),
            };
            let mut one = Interference::new(names.clone(), detail, n);
            for &(t, ns) in &shares {
                one.push(t, ns);
            }
            let mut batch = Interference::new(names.clone(), detail, n);
            batch.extend_ordered(shares.iter().copied());
            assert_eq!(one.items, batch.items, "round {round}");
            assert_eq!(one.others_ns.to_bits(), batch.others_ns.to_bits());
            assert_eq!(one.min_ns.to_bits(), batch.min_ns.to_bits());
            assert_eq!(one.min_at, batch.min_at);
            assert_eq!(one, batch);
        }
    }
}
