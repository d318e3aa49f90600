//! The virtual logic-analyzer channels: which one is high, and the edges recorded when capturing.

use super::*;

impl Sim {
    #[inline]
    pub(super) fn toggle(&mut self, c: usize) {
        let now = self.now;
        if let Some(e) = &mut self.edges {
            let v = &mut e[c];
            if v.last() == Some(&now) {
                v.pop();
            } else {
                v.push(now);
            }
        }
    }

    #[inline]
    pub(super) fn set_channel(&mut self, c: usize) {
        if c != self.cur_ch {
            let old = self.cur_ch;
            self.toggle(old);
            self.toggle(c);
            self.cur_ch = c;
        }
    }

    /// Brings the high channel up to date with what runs now. Only the capture reads
    /// the channels, so without one this is a single test: choosing the channel ran at
    /// every frame and job step.
    #[inline]
    pub(super) fn sync_channel(&mut self) {
        if self.edges.is_some() {
            let c = self.context_channel();
            self.set_channel(c);
        }
    }

    pub(super) fn task_level_channel(&self) -> usize {
        let n = self.n;
        if self.sleeping {
            return n + 1;
        }
        if self.tick_mode {
            if self.cur != self.idle && self.has_job[self.cur] && !self.cur_blocked {
                self.cur
            } else {
                n
            }
        } else {
            self.ls_cur.unwrap_or(n)
        }
    }

    pub(super) fn frame_channel(&self, k: FrameKind) -> usize {
        let n = self.n;
        match k {
            FrameKind::Tick | FrameKind::Sched => n + 2,
            FrameKind::PendSv | FrameKind::ThreadSwitch(_) => n + 3,
            FrameKind::Wake => n + 4,
            FrameKind::Irq(q) => n + 5 + q as usize,
        }
    }

    /// Channel high while resource `r` is held (`wait`: while a task waits for it).
    pub(super) fn res_channel(&self, r: usize, wait: bool) -> usize {
        let nres = self.cfg.resources.len();
        self.n + 5 + self.cfg.interrupts.len() + r + if wait { nres } else { 0 }
    }

    /// Brings resource `r`'s two channels up to date.
    pub(super) fn sync_res(&mut self, r: usize) {
        let held = self.owner[r].is_some() || self.isr_holds[r] > 0;
        let wait = !self.waiters[r].is_empty();
        let (h0, w0) = self.res_ch[r];
        if held != h0 {
            let c = self.res_channel(r, false);
            self.toggle(c);
        }
        if wait != w0 {
            let c = self.res_channel(r, true);
            self.toggle(c);
        }
        self.res_ch[r] = (held, wait);
    }

    pub(super) fn context_channel(&self) -> usize {
        match self.frames.last() {
            Some(f) => self.frame_channel(f.kind),
            None => self.task_level_channel(),
        }
    }

    /// The virtual logic-analyzer capture (empty channels unless `SimOptions::capture`).
    pub fn capture(&self) -> Capture {
        let n = self.n;
        let mut names: Vec<String> = self.cfg.tasks.iter().map(|t| t.name.clone()).collect();
        names.push("idle".into());
        names.push("sleep".into());
        names.push(if self.tick_mode { "tick" } else { "scheduler" }.into());
        names.push("switch".into());
        names.push("wake".into());
        for q in &self.cfg.interrupts {
            names.push(q.name.clone());
        }
        for r in &self.cfg.resources {
            names.push(format!("held_{}", r.name));
        }
        for r in &self.cfg.resources {
            names.push(format!("wait_{}", r.name));
        }
        // Channel names must be unique: suffix later duplicates.
        let mut seen = std::collections::HashSet::new();
        for nm in names.iter_mut() {
            if !seen.insert(nm.clone()) {
                let mut k = 2;
                while seen.contains(&format!("{nm}#{k}")) {
                    k += 1;
                }
                *nm = format!("{nm}#{k}");
                seen.insert(nm.clone());
            }
        }
        let _ = n;
        let channels = names
            .into_iter()
            .enumerate()
            .map(|(c, name)| DigitalChannel {
                name,
                initial: false,
                edges: self
                    .edges
                    .as_ref()
                    .map(|e| e[c].iter().map(|&t| Picos(t)).collect())
                    .unwrap_or_default(),
            })
            .collect();
        Capture {
            source: if self.opts.source.is_empty() {
                "simulation".into()
            } else {
                format!("simulation of {}", self.opts.source)
            },
            samplerate_hz: None,
            start: Picos(0),
            end: Picos(self.now),
            channels,
            analog: Vec::new(),
        }
    }
}
