//! Events the trace lost, and where: the ring buffer of a CPU overruns when its reader
//! falls behind (or, without overwrite, drops new events). `trace_pipe` then prints a
//! marker line `CPU:N [LOST M EVENTS]` (or `CPU:N [LOST EVENTS]` when the count is not
//! known) before the next event it gives of that CPU, and the per-CPU counters in
//! `per_cpu/cpuN/stats` (`overrun`, `commit overrun`, `dropped events`) count them.
//! A spike whose event window lies across a loss may be missing what held the CPU, so
//! it must say so.

use serde::{Deserialize, Serialize};

/// A `trace_pipe` lost-events marker: (cpu, number of events when printed).
pub fn parse_marker(line: &str) -> Option<(u32, Option<u64>)> {
    let rest = line.trim().strip_prefix("CPU:")?;
    let (cpu, rest) = rest.split_once(' ')?;
    let cpu: u32 = cpu.parse().ok()?;
    let inner = rest.trim().strip_prefix("[LOST ")?.strip_suffix(']')?;
    if inner == "EVENTS" {
        return Some((cpu, None));
    }
    let n: u64 = inner.strip_suffix(" EVENTS")?.parse().ok()?;
    Some((cpu, Some(n)))
}

/// The loss counters of one CPU's ring buffer (`per_cpu/cpuN/stats`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct RingStats {
    /// Events overwritten before they were read.
    pub overrun: u64,
    /// Events lost to nested writes that wrapped the buffer.
    pub commit_overrun: u64,
    /// Events refused because the buffer was full (overwrite off).
    pub dropped_events: u64,
}

impl RingStats {
    pub fn lost(&self) -> u64 {
        self.overrun
            .saturating_add(self.commit_overrun)
            .saturating_add(self.dropped_events)
    }
}

/// Parses a `per_cpu/cpuN/stats` file (`key: value` lines; unknown keys are ignored).
/// None when none of the loss counters is there.
pub fn parse_ring_stats(text: &str) -> Option<RingStats> {
    let mut s = RingStats::default();
    let mut seen = false;
    for l in text.lines() {
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let Ok(v) = v.trim().parse::<u64>() else {
            continue;
        };
        match k.trim() {
            "overrun" => s.overrun = v,
            "commit overrun" => s.commit_overrun = v,
            "dropped events" => s.dropped_events = v,
            _ => continue,
        }
        seen = true;
    }
    seen.then_some(s)
}

/// The ring buffer counters of `cpu` in a trace instance (`per_cpu/cpuN/stats`), or
/// None when the file cannot be read or parsed.
pub fn read_ring_stats(instance: &std::path::Path, cpu: u32) -> Option<RingStats> {
    let p = instance
        .join("per_cpu")
        .join(format!("cpu{cpu}"))
        .join("stats");
    std::fs::read_to_string(p)
        .ok()
        .and_then(|t| parse_ring_stats(&t))
}

/// Reads everything a non-blocking `trace_pipe` holds now into `feed`, in chunks of
/// `buf`; true when anything was read. Stops at end of file or EAGAIN.
pub fn drain_pipe(pipe: &mut std::fs::File, buf: &mut [u8], mut feed: impl FnMut(&str)) -> bool {
    use std::io::Read as _;
    let mut got = false;
    loop {
        match pipe.read(buf) {
            Ok(0) | Err(_) => return got, // end, or EAGAIN: nothing more for now
            Ok(n) => {
                got = true;
                feed(&String::from_utf8_lossy(&buf[..n]));
            }
        }
    }
}

/// A stretch of one CPU's trace where events are missing: after the event at `from`
/// and before the one at `to` (ns, trace clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    pub from: i64,
    pub to: i64,
    /// Events lost there, when the marker said.
    pub count: Option<u64>,
}

/// The gaps of every CPU, as markers and events arrive in stream order.
#[derive(Clone, Debug, Default)]
pub struct Gaps {
    last_ts: Vec<i64>,
    gaps: Vec<Vec<Gap>>,
    /// Per CPU: markers seen and the events they counted.
    pub markers: Vec<u64>,
    pub marked_events: Vec<u64>,
}

impl Gaps {
    pub fn new(ncpu: usize) -> Gaps {
        Gaps {
            last_ts: vec![i64::MIN; ncpu],
            gaps: vec![Vec::new(); ncpu],
            markers: vec![0; ncpu],
            marked_events: vec![0; ncpu],
        }
    }

    /// A marker for `cpu`: the gap runs from its last event to its next one.
    pub fn marker(&mut self, cpu: u32, count: Option<u64>) {
        let c = cpu as usize;
        if c >= self.gaps.len() {
            return;
        }
        self.markers[c] += 1;
        self.marked_events[c] = self.marked_events[c].saturating_add(count.unwrap_or(0));
        self.gaps[c].push(Gap {
            from: self.last_ts[c],
            to: i64::MAX,
            count,
        });
    }

    /// An event of `cpu` at `ts`: closes an open gap.
    pub fn event(&mut self, cpu: u32, ts: i64) {
        let c = cpu as usize;
        if c >= self.gaps.len() {
            return;
        }
        self.last_ts[c] = ts;
        for g in self.gaps[c].iter_mut().rev() {
            if g.to != i64::MAX {
                break;
            }
            g.to = ts;
        }
    }

    /// The gaps of `cpu` that overlap `[from, to]`: (how many, events they counted).
    pub fn within(&self, cpu: u32, from: i64, to: i64) -> Option<(usize, u64)> {
        let gs = self.gaps.get(cpu as usize)?;
        let hit: Vec<&Gap> = gs.iter().filter(|g| g.from < to && g.to > from).collect();
        (!hit.is_empty()).then(|| {
            (
                hit.len(),
                hit.iter().map(|g| g.count.unwrap_or(0)).sum::<u64>(),
            )
        })
    }

    /// Forgets the gaps of `cpu` that end before `ts`.
    pub fn prune(&mut self, cpu: u32, ts: i64) {
        if let Some(gs) = self.gaps.get_mut(cpu as usize) {
            gs.retain(|g| g.to >= ts);
        }
    }
}

/// Per-run loss figures of one traced CPU (the `trace.cpus` entries of the JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuLoss {
    pub cpu: u32,
    /// `trace_pipe` lost-events markers seen, and the events they counted.
    pub markers: u64,
    pub marked_events: u64,
    /// The ring buffer's own counters at the end of the run (absent when unreadable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ring: Option<RingStats>,
    /// Events lost that no marker placed in time: every spike of this CPU may be
    /// incomplete when it is above 0.
    pub unplaced_events: u64,
}

impl CpuLoss {
    /// Builds the figures; `unplaced` = what the counters report beyond the markers.
    pub fn new(cpu: u32, markers: u64, marked_events: u64, ring: Option<RingStats>) -> CpuLoss {
        let unplaced = ring
            .map(|r| r.lost().saturating_sub(marked_events))
            .unwrap_or(0);
        CpuLoss {
            cpu,
            markers,
            marked_events,
            ring,
            unplaced_events: unplaced,
        }
    }

    /// Events lost on this CPU, by the larger of the two counts.
    pub fn lost(&self) -> u64 {
        self.ring
            .map(|r| r.lost())
            .unwrap_or(0)
            .max(self.marked_events)
    }

    /// Lost with no count and no place (a marker without a number): counted as "some".
    pub fn any(&self) -> bool {
        self.lost() > 0 || self.markers > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_stats() {
        assert_eq!(
            parse_marker("CPU:1 [LOST 5123 EVENTS]"),
            Some((1, Some(5123)))
        );
        assert_eq!(parse_marker("CPU:12 [LOST EVENTS]"), Some((12, None)));
        for junk in ["CPU:x [LOST 1 EVENTS]", "CPU:1 [LOST many EVENTS]", "cpu 1"] {
            assert_eq!(parse_marker(junk), None, "{junk}");
        }
        let text = "entries: 12\noverrun: 300\ncommit overrun: 2\nbytes: 5000\n\
                    oldest event ts:  4170.000001\nnow ts:  4171.5\ndropped events: 0\nread events: 99\n";
        let s = parse_ring_stats(text).unwrap();
        assert_eq!(
            s,
            RingStats {
                overrun: 300,
                commit_overrun: 2,
                dropped_events: 0
            }
        );
        assert_eq!(s.lost(), 302);
        assert_eq!(parse_ring_stats("entries: 1\n"), None);
    }

    #[test]
    fn a_gap_covers_only_the_stretch_between_its_neighbours() {
        let mut g = Gaps::new(2);
        g.event(1, 100);
        g.marker(1, Some(40));
        g.event(0, 150); // another CPU does not close it
        assert_eq!(g.within(1, 1_000, 2_000), Some((1, 40)), "still open");
        g.event(1, 200);
        assert_eq!(g.within(1, 150, 160), Some((1, 40)));
        assert_eq!(g.within(1, 0, 100), None, "ends at the event before it");
        assert_eq!(g.within(1, 200, 300), None, "starts at the event after it");
        assert_eq!(g.within(0, 0, 1_000), None);
        g.prune(1, 201);
        assert_eq!(g.within(1, 150, 160), None);
        let l = CpuLoss::new(
            1,
            1,
            40,
            Some(RingStats {
                overrun: 50,
                ..Default::default()
            }),
        );
        assert_eq!((l.unplaced_events, l.lost()), (10, 50));
    }
}
