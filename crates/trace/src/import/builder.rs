//! Shared edge-list builder: feeds (channel, time, level) observations in time order and
//! keeps only the toggles.

use latscope_core::capture::DigitalChannel;
use latscope_core::time::Picos;

pub(crate) struct Builder {
    pub chans: Vec<DigitalChannel>,
    level: Vec<bool>,
    seen: Vec<bool>,
    pub start: Picos,
    /// Edges kept so far (importers check it against their edge budget).
    pub kept: u64,
}

impl Builder {
    pub fn new(names: Vec<String>, start: Picos) -> Builder {
        let n = names.len();
        Builder {
            chans: names
                .into_iter()
                .map(|name| DigitalChannel {
                    name,
                    initial: false,
                    edges: Vec::new(),
                })
                .collect(),
            level: vec![false; n],
            seen: vec![false; n],
            start,
            kept: 0,
        }
    }
    pub fn add(&mut self, name: String) -> usize {
        self.chans.push(DigitalChannel {
            name,
            initial: false,
            edges: Vec::new(),
        });
        self.level.push(false);
        self.seen.push(false);
        self.chans.len() - 1
    }
    /// Channel `i` is at `lv` from time `t` on (times must be non-decreasing per
    /// channel; the caller checks that). The first observation sets the initial level
    /// (a channel with no data before is taken to have been at its first known level);
    /// two toggles at the same instant cancel.
    #[inline]
    pub fn set(&mut self, i: usize, t: Picos, lv: bool) {
        if !self.seen[i] {
            self.seen[i] = true;
            self.chans[i].initial = lv;
            self.level[i] = lv;
            return;
        }
        if lv != self.level[i] {
            let e = &mut self.chans[i].edges;
            if e.last() == Some(&t) {
                e.pop();
                self.kept = self.kept.saturating_sub(1);
            } else {
                e.push(t);
                self.kept += 1;
            }
            self.level[i] = lv;
        }
    }
    pub fn finish(self) -> Vec<DigitalChannel> {
        self.chans
    }
}
