//! Higher-priority tasks' shares of a response time, held as indices into one shared
//! list of names (a set of n tasks has O(n^2) shares; the names are stored once).

use serde::Serialize;
use std::sync::Arc;

/// Higher- or equal-priority tasks' execution in a WCRT, one [`Share`] per task, in
/// descending priority order (ties in file order, like `tasks`). Serialised as
/// `[{"name": .., "ns": ..}, ..]`; the names are shared by every result of an analysis
/// (a task set of n tasks has O(n^2) shares).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interference {
    /// The task names (`None` only in an empty default).
    pub(super) names: Option<Arc<[Arc<str>]>>,
    pub(super) items: Vec<Share>,
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
    pub(super) fn new(names: Arc<[Arc<str>]>, capacity: usize) -> Self {
        Interference {
            names: Some(names),
            items: Vec::with_capacity(capacity),
        }
    }
    pub(super) fn push(&mut self, task: usize, ns: f64) {
        self.items.push(Share {
            task: task as u32,
            ns,
        });
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
