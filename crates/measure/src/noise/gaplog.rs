//! `noise --gaps FILE`: every classified gap as CSV rows, one row per share of a gap
//! (a gap split between an interrupt and the hardware gives two rows), so a gap can be
//! checked against another recorder or looked up by time. Streamed to a temporary file
//! and renamed at the end: a failed run leaves an earlier file as it was.

use super::classify::{Gap, Part, Source};
use latscope_core::outfile::{OutputError, OutputFile};
use std::path::Path;

/// Rows written at most (about 60 bytes each); beyond, the file says so in its last row
/// and the result's notes say so too.
pub const MAX_ROWS: u64 = 20_000_000;

/// The header, in order: the CPU; the gap's start and end on CLOCK_MONOTONIC (ns, the
/// clock of the JSON's `started_mono_ns`); the share's source (`hw`, `nmi`, `irq`,
/// `softirq`, `thread`, `unaccounted`, `unclassified`); who (interrupt or thread name,
/// pid, interrupt number, x86 vector; empty when not known); the share's length and count.
pub const HEADER: [&str; 10] = [
    "cpu", "start_ns", "end_ns", "source", "name", "pid", "irq", "vector", "ns", "count",
];

/// The gaps file being written.
pub struct GapLog {
    w: csv::Writer<OutputFile>,
    rows: u64,
    /// The first write error; the file is then not committed.
    error: Option<String>,
}

impl GapLog {
    /// Opens the temporary file for `path` and writes the header.
    pub fn create(path: &Path) -> Result<GapLog, OutputError> {
        let f = OutputFile::create(path, "--gaps")?;
        let mut w = csv::Writer::from_writer(f);
        w.write_record(HEADER).map_err(|e| OutputError {
            path: path.display().to_string(),
            msg: format!("cannot write: {e}"),
        })?;
        Ok(GapLog {
            w,
            rows: 0,
            error: None,
        })
    }

    /// Adds one classified gap's shares.
    pub fn add(&mut self, gap: Gap, parts: &[Part]) {
        for p in parts {
            let opt = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
            self.row([
                gap.cpu.to_string(),
                gap.start.to_string(),
                gap.end.to_string(),
                p.source.as_str().to_string(),
                p.who.name.clone(),
                opt(p.who.pid.map(i64::from)),
                opt(p.who.irq.map(i64::from)),
                opt(p.who.vector.map(i64::from)),
                p.ns.to_string(),
                p.count.to_string(),
            ]);
        }
    }

    /// Adds a gap that could not be classified (events lost in its window).
    pub fn add_unclassified(&mut self, gap: Gap) {
        let part = Part {
            source: Source::Unclassified,
            who: Default::default(),
            ns: gap.len(),
            count: 1,
        };
        self.add(gap, &[part]);
    }

    fn row(&mut self, r: [String; 10]) {
        if self.error.is_some() || self.rows > MAX_ROWS {
            return;
        }
        self.rows += 1;
        let res = if self.rows > MAX_ROWS {
            let mut last: [String; 10] = Default::default();
            last[3] = format!("truncated after {MAX_ROWS} rows");
            self.w.write_record(&last)
        } else {
            self.w.write_record(&r)
        };
        if let Err(e) = res {
            self.error = Some(e.to_string());
        }
    }

    /// Commits the file. Returns the rows written and whether the cap was reached.
    pub fn finish(self) -> Result<(u64, bool), OutputError> {
        let path = self.w.get_ref().target().display().to_string();
        let cannot = |e: &dyn std::fmt::Display| OutputError {
            path: path.clone(),
            msg: format!("cannot write: {e}"),
        };
        if let Some(e) = self.error {
            return Err(cannot(&e));
        }
        let f = self.w.into_inner().map_err(|e| cannot(e.error()))?;
        f.commit()?;
        Ok((self.rows.min(MAX_ROWS), self.rows > MAX_ROWS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::classify::Who;

    #[test]
    fn rows_are_the_shares_and_an_unfinished_file_is_not_committed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.csv");
        let mut l = GapLog::create(&p).unwrap();
        let gap = Gap {
            cpu: 3,
            start: 1_000,
            end: 9_000,
        };
        let irq = Part {
            source: Source::Irq,
            who: Who {
                name: "eth0".into(),
                pid: None,
                irq: Some(24),
                vector: None,
            },
            ns: 5_000,
            count: 1,
        };
        let hw = Part {
            source: Source::Unaccounted,
            who: Who::default(),
            ns: 3_000,
            count: 1,
        };
        l.add(gap, &[irq, hw]);
        l.add_unclassified(Gap {
            cpu: 3,
            start: 20_000,
            end: 21_500,
        });
        assert!(!p.exists(), "written before the commit");
        assert_eq!(l.finish().unwrap(), (3, false));
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], HEADER.join(","));
        assert_eq!(lines[1], "3,1000,9000,irq,eth0,,24,,5000,1");
        assert_eq!(lines[2], "3,1000,9000,unaccounted,,,,,3000,1");
        assert_eq!(lines[3], "3,20000,21500,unclassified,,,,,1500,1");
        // Dropped without finishing: the earlier file stays.
        let mut l = GapLog::create(&p).unwrap();
        l.add_unclassified(gap);
        drop(l);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    }
}
