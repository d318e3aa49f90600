//! Shared edge-list builder: feeds (channel, time, level) observations in time order and
//! keeps only the toggles.

use latscope_core::capture::DigitalChannel;
use latscope_core::time::Picos;

pub(crate) struct Builder {
    pub chans: Vec<DigitalChannel>,
    level: Vec<bool>,
    seen: Vec<bool>,
    /// Channels whose edges are kept (the others keep only their initial level).
    keep: Vec<bool>,
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
            keep: vec![true; n],
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
        self.keep.push(true);
        self.chans.len() - 1
    }
    /// Keeps edges only for the channels `only` names (see [`selected`]); None keeps all.
    /// Call once every channel is added, before the first [`Builder::set`].
    pub fn select(&mut self, only: Option<&[String]>) {
        let names: Vec<&str> = self.chans.iter().map(|c| c.name.as_str()).collect();
        self.keep = selected(only, &names);
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
        if lv != self.level[i] && self.keep[i] {
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

/// Which channels a selection names: `only` holds channel names (every channel of that
/// name) or `#N` (the channel at index N); None selects all.
pub(crate) fn selected(only: Option<&[String]>, names: &[&str]) -> Vec<bool> {
    let Some(only) = only else {
        return vec![true; names.len()];
    };
    let mut keep = vec![false; names.len()];
    for o in only {
        if let Some(ix) = o.strip_prefix('#').and_then(|x| x.parse::<usize>().ok()) {
            if let Some(k) = keep.get_mut(ix) {
                *k = true;
            }
        }
        for (k, n) in keep.iter_mut().zip(names) {
            if n == o {
                *k = true;
            }
        }
    }
    keep
}
