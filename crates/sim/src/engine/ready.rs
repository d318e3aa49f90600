//! FreeRTOS-like ready lists (circular xLIST with an index and an end marker) and the selection of the highest ready level.

use super::*;

impl Sim {
    #[inline]
    pub(super) fn end_marker(&self, p: usize) -> u32 {
        (self.n + 1 + p) as u32
    }

    pub(super) fn ready_add(&mut self, x: usize) {
        let p = self.level[x] as usize;
        // vListInsertEnd: insert just before the list's index (visited last).
        let i = self.index[p] as usize;
        let before = self.pv[i] as usize;
        self.nx[before] = x as u32;
        self.pv[x] = before as u32;
        self.nx[x] = i as u32;
        self.pv[i] = x as u32;
        self.len[p] += 1;
        self.in_ready[x] = true;
        if p > self.top_ready {
            self.top_ready = p;
        }
        self.bitmap[p / 64] |= 1 << (p % 64);
    }

    pub(super) fn ready_remove(&mut self, x: usize) {
        if !self.in_ready[x] {
            return;
        }
        let p = self.level[x] as usize;
        if self.index[p] as usize == x {
            self.index[p] = self.pv[x];
        }
        let (a, b) = (self.pv[x] as usize, self.nx[x] as usize);
        self.nx[a] = b as u32;
        self.pv[b] = a as u32;
        self.len[p] -= 1;
        self.in_ready[x] = false;
        if self.len[p] == 0 {
            self.bitmap[p / 64] &= !(1 << (p % 64));
        }
    }

    /// listGET_OWNER_OF_NEXT_ENTRY: advance the index (skipping the end marker).
    pub(super) fn next_owner(&mut self, p: usize) -> usize {
        let e = self.end_marker(p);
        let mut i = self.nx[self.index[p] as usize];
        if i == e {
            i = self.nx[i as usize];
        }
        self.index[p] = i;
        i as usize
    }

    /// taskSELECT_HIGHEST_PRIORITY_TASK's level: (level, empty levels walked past).
    pub(super) fn select_level(&mut self) -> (usize, u32) {
        if self.sw_const.is_some() {
            // Port-optimised: highest set bit of the ready bitmap.
            for w in (0..self.bitmap.len()).rev() {
                if self.bitmap[w] != 0 {
                    let p = w * 64 + 63 - self.bitmap[w].leading_zeros() as usize;
                    self.top_ready = p;
                    return (p, 0);
                }
            }
            return (0, 0);
        }
        // FreeRTOS walks every priority number down from uxTopReadyPriority; the numbers
        // between two dense levels hold no task, so the walk passes them all.
        let top = self.top_ready;
        let mut p = top;
        while self.len[p] == 0 && p > 0 {
            p -= 1;
        }
        self.top_ready = p;
        (p, self.level_prio[top] - self.level_prio[p])
    }
}
