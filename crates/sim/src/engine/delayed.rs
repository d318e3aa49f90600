//! The delayed list: periodic jobs waiting for their wake tick, earliest first, ties in
//! the order they were delayed.
//!
//! For a small task set, a vector kept sorted with the earliest wake at its end (the
//! tick handler pops from the end) instead of a binary heap: a core holds at most one
//! delayed job per task, and a heap's pop (sift down and up, comparing (wake, sequence)
//! pairs) cost more than the short search and move of an insertion. Large sets keep the
//! heap.
//! The order is the heap's: by wake tick, then by the order of delaying (FIFO), so the
//! tick releases the same tasks in the same order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Up to this many tasks the sorted vector is used; above it the heap, whose insertion
/// does not move the whole list (10,000 tasks would move ~80 KB per release).
const SMALL: usize = 64;

/// Jobs waiting for a tick.
#[derive(Debug)]
pub(super) enum Delayed {
    /// (wake tick, task), the earliest wake last.
    Small(Vec<(i64, u32)>),
    /// Min-heap of (wake tick, sequence number, task).
    Large(BinaryHeap<Reverse<(i64, u64, u32)>>, u64),
}

impl Delayed {
    /// For a core of `n` tasks (at most one delayed job each).
    pub(super) fn with_capacity(n: usize) -> Self {
        if n <= SMALL {
            Delayed::Small(Vec::with_capacity(n))
        } else {
            Delayed::Large(BinaryHeap::with_capacity(n), 0)
        }
    }

    /// Delays task `i` until tick `wake`, after every job already delayed to that tick.
    #[inline]
    pub(super) fn push(&mut self, wake: i64, i: u32) {
        match self {
            Delayed::Small(v) => {
                // Entries with a later wake stay in front of it; earlier ones and those
                // delayed to the same tick before it stay behind it (they leave first).
                let at = v.partition_point(|e| e.0 > wake);
                v.insert(at, (wake, i));
            }
            Delayed::Large(h, seq) => {
                *seq += 1;
                h.push(Reverse((wake, *seq, i)));
            }
        }
    }

    /// The earliest wake tick, if any job is delayed.
    #[inline]
    pub(super) fn first_wake(&self) -> Option<i64> {
        match self {
            Delayed::Small(v) => v.last().map(|e| e.0),
            Delayed::Large(h, _) => h.peek().map(|Reverse((w, _, _))| *w),
        }
    }

    /// Takes the first job whose wake tick is at or before `tick`.
    #[inline]
    pub(super) fn pop_due(&mut self, tick: i64) -> Option<u32> {
        match self {
            Delayed::Small(v) => match v.last() {
                Some(&(w, i)) if w <= tick => {
                    v.pop();
                    Some(i)
                }
                _ => None,
            },
            Delayed::Large(h, _) => match h.peek() {
                Some(&Reverse((w, _, i))) if w <= tick => {
                    h.pop();
                    Some(i)
                }
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same order as the (wake, sequence) min-heap it replaced, on a pseudo-random mix of
    /// pushes and pops with many equal wakes.
    #[test]
    fn pops_in_the_heaps_order() {
        for n in [4, SMALL + 1] {
            same_order(Delayed::with_capacity(n));
        }
    }

    fn same_order(mut d: Delayed) {
        let mut h = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut tick = 0i64;
        for step in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if !x.is_multiple_of(3) {
                let wake = tick + (x >> 8) as i64 % 6;
                let task = step % 97;
                seq += 1;
                h.push(Reverse((wake, seq, task)));
                d.push(wake, task);
            } else {
                tick += 1;
            }
            assert_eq!(d.first_wake(), h.peek().map(|Reverse((w, _, _))| *w));
            loop {
                let want = match h.peek() {
                    Some(Reverse((w, _, i))) if *w <= tick => Some(*i),
                    _ => None,
                };
                if want.is_some() {
                    h.pop();
                }
                assert_eq!(d.pop_due(tick), want);
                if want.is_none() {
                    break;
                }
            }
        }
    }
}
