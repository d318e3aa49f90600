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

    /// Drops the smallest kept share for `share` (a larger one), keeping the order.
    #[inline(never)]
    fn replace_min(&mut self, share: Share) {
        self.others_ns += self.min_ns;
        self.items.remove(self.min_at);
        self.items.push(share);
        self.find_min();
    }

    /// The last smallest kept share (ties: the lowest priority goes out first), once
    /// `keep` are kept.
    fn find_min(&mut self) {
        if let Some((at, s)) = self
            .items
            .iter()
            .enumerate()
            .rev()
            .min_by(|a, b| a.1.ns.total_cmp(&b.1.ns))
        {
            self.min_at = at;
            self.min_ns = s.ns;
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
