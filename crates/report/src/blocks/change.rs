//! A comparison of two runs read like criterion's: per statistic A, B, the change in
//! percent, its confidence interval when the runs carry the spread to compute one, and a
//! verdict (improved, regressed, no change), then the settings and environment items that
//! differ. Filled from a `latscope compare --json` document (or the same comparison
//! computed here for two measure results, so the figures are the command's), or from
//! single figures of two noise or trace results.

use super::{Block, Builder, Cell, Table};
use crate::data::Tone;
use crate::units::{dur, int};
use latscope_results::compare::{CompareResult, CompareRow, Differs};

/// What a statistic's change says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Word {
    Improved,
    Regressed,
    NoChange,
}

impl Word {
    fn text(self) -> &'static str {
        match self {
            Word::Improved => "improved",
            Word::Regressed => "regressed",
            Word::NoChange => "no change",
        }
    }
    fn tone(self) -> Tone {
        match self {
            Word::Improved => Tone::Good,
            Word::Regressed => Tone::Bad,
            Word::NoChange => Tone::Neutral,
        }
    }
}

/// How far a change must go, without an interval, to count as one (the compare gate's
/// threshold: percent of A, or an absolute amount in the statistic's unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Band {
    Percent(f64),
    Absolute(f64),
}

/// One statistic of A and B. Larger is worse (latency, noise, overruns).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Change {
    pub metric: String,
    pub a: f64,
    pub b: f64,
    /// A count (overruns), not a duration; `unit` for other quantities ("%").
    pub count: bool,
    pub unit: Option<String>,
    /// B − A, and in percent of A (None when A is 0).
    pub diff: f64,
    pub change_pct: Option<f64>,
    /// The change's confidence interval: percent of A when `interval_pct`, else in the
    /// statistic's unit.
    pub interval: Option<(f64, f64)>,
    pub interval_pct: bool,
    /// `Some(worse)` when the statistic is part of a gate's verdict.
    pub gate: Option<bool>,
}

impl Change {
    /// Two single figures (no interval, not gated).
    pub fn single(metric: &str, a: f64, b: f64) -> Change {
        Change {
            metric: metric.to_string(),
            a,
            b,
            count: false,
            unit: None,
            diff: b - a,
            change_pct: (a != 0.0).then(|| (b - a) * 100.0 / a),
            interval: None,
            interval_pct: true,
            gate: None,
        }
    }

    /// A row of a compare document: its own figures, nothing recomputed.
    pub fn of_row(r: &CompareRow, interval_pct: bool) -> Change {
        Change {
            metric: r.metric.clone(),
            a: r.a,
            b: r.b,
            count: r.metric == "overruns",
            unit: None,
            diff: r.diff,
            change_pct: r.change_pct,
            interval: r.lower.zip(r.upper),
            interval_pct,
            gate: r.gated.then_some(r.worse),
        }
    }

    /// Regressed or improved when the interval lies wholly above or below zero; without
    /// one, when the change goes beyond `band`; else no change.
    pub fn word(&self, band: Band) -> Word {
        if let Some((lo, hi)) = self.interval {
            return if lo > 0.0 {
                Word::Regressed
            } else if hi < 0.0 {
                Word::Improved
            } else {
                Word::NoChange
            };
        }
        let beyond = match (band, self.change_pct) {
            (Band::Percent(p), Some(c)) => c.abs() > p,
            (Band::Percent(_), None) => self.diff != 0.0,
            (Band::Absolute(n), _) => self.diff.abs() > n,
        };
        match (beyond, self.diff > 0.0) {
            (false, _) => Word::NoChange,
            (true, true) => Word::Regressed,
            (true, false) => Word::Improved,
        }
    }

    fn value(&self, v: f64) -> String {
        match (&self.unit, self.count) {
            (Some(u), _) => format!("{} {u}", crate::units::num(v, 4)),
            (None, true) => int(v),
            (None, false) => dur(v),
        }
    }

    fn signed(&self, v: f64) -> String {
        let sign = if v > 0.0 { "+" } else { "" };
        format!("{sign}{}", self.value(v))
    }
}

/// A change in percent as the table writes it (`+18.00 %`).
pub(super) fn pct(v: f64) -> String {
    format!("{v:+.2} %")
}

/// A comparison of A against B, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Changes {
    pub a: String,
    pub b: String,
    pub rows: Vec<Change>,
    pub band: Band,
    /// Confidence of the intervals, in (0, 1), when there are intervals.
    pub confidence: Option<f64>,
    /// The gate's verdict and the line that says it, when a gate decided.
    pub verdict: Option<(Tone, String)>,
    pub notes: Vec<String>,
    pub settings: Vec<Differs>,
    pub environment: Vec<Differs>,
}

impl Changes {
    /// The comparison a `latscope compare --json` document holds.
    pub fn of_document(d: &CompareResult) -> Changes {
        let interval_pct = d.threshold_ns.is_none();
        let rows: Vec<Change> = d
            .rows
            .iter()
            .map(|r| Change::of_row(r, interval_pct))
            .collect();
        let band = match (d.threshold_pct, d.threshold_ns) {
            (_, Some(n)) => Band::Absolute(n as f64),
            (Some(p), None) => Band::Percent(p),
            (None, None) => Band::Percent(10.0),
        };
        let threshold = match band {
            Band::Percent(p) => format!("{p} %"),
            Band::Absolute(n) => dur(n),
        };
        let gated: Vec<&str> = rows
            .iter()
            .filter(|r| r.gate.is_some())
            .map(|r| r.metric.as_str())
            .collect();
        let worse: Vec<String> = rows
            .iter()
            .filter(|r| r.gate == Some(true))
            .map(|r| {
                format!(
                    "{} {}",
                    r.metric,
                    r.change_pct.map_or_else(|| r.signed(r.diff), pct)
                )
            })
            .collect();
        let verdict = if d.verdict == "worse" {
            (
                Tone::Bad,
                format!(
                    "worse: B is slower than A beyond the {threshold} threshold ({})",
                    worse.join(", ")
                ),
            )
        } else {
            (
                Tone::Good,
                format!(
                    "not worse: no gated statistic ({}) of B exceeds A by more than {threshold}",
                    gated.join(", ")
                ),
            )
        };
        let mut notes = vec![match (d.method.as_str(), d.rounds) {
            ("rounds", Some([na, nb])) => format!(
                "Figures are the medians of {na} rounds (A) and {nb} rounds (B); the change and its {:.0} % interval come from the spread between rounds (Hodges–Lehmann shift, rank test).",
                d.confidence * 100.0
            ),
            _ => "Single figures (a run has fewer than 3 rounds): no confidence interval; a change beyond the threshold is called one, run-to-run spread unknown (measure --rounds 10 gives intervals).".to_string(),
        }];
        notes.extend(d.max_note.clone());
        Changes {
            a: d.a.clone(),
            b: d.b.clone(),
            rows,
            band,
            confidence: (d.method == "rounds").then_some(d.confidence),
            verdict: Some(verdict),
            notes,
            settings: d.settings_differ.clone(),
            environment: d.environment_differs.clone(),
        }
    }

    /// Single figures of two results, with a band of ±`pct` % for "no change".
    pub fn single(a: &str, b: &str, rows: Vec<Change>, pct: f64) -> Changes {
        Changes {
            a: a.to_string(),
            b: b.to_string(),
            rows,
            band: Band::Percent(pct),
            confidence: None,
            verdict: None,
            notes: vec![format!(
                "Single figures: these results carry no spread between rounds, so there is no confidence interval; a change within ±{pct} % is called no change."
            )],
            settings: Vec::new(),
            environment: Vec::new(),
        }
    }

    /// The verdict line, notes, the table of changes and the tables of what differs.
    pub fn show(&self, b: &mut Builder) {
        if let Some((tone, line)) = &self.verdict {
            b.out.push(Block::Verdict(*tone, line.clone()));
        }
        let (mut reg, mut imp) = (Vec::new(), Vec::new());
        for r in &self.rows {
            match r.word(self.band) {
                Word::Regressed => reg.push(r.metric.as_str()),
                Word::Improved => imp.push(r.metric.as_str()),
                Word::NoChange => {}
            }
        }
        let list = |v: &[&str]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        b.out.push(Block::Verdict(
            if reg.is_empty() {
                Tone::Good
            } else {
                Tone::Warn
            },
            format!(
                "B against A: regressed {}; improved {}",
                list(&reg),
                list(&imp)
            ),
        ));
        b.facts(vec![
            ("A".into(), self.a.clone()),
            ("B".into(), self.b.clone()),
        ]);
        for n in &self.notes {
            b.note(n);
        }
        let interval = match self.confidence {
            Some(c) => format!("{:.0} % interval", c * 100.0),
            None => "interval".to_string(),
        };
        let gated = self.rows.iter().any(|r| r.gate.is_some());
        let mut headers: Vec<String> = vec![
            "statistic".into(),
            "A".into(),
            "B".into(),
            "change".into(),
            interval,
            "verdict".into(),
        ];
        if gated {
            headers.push("gate".into());
        }
        let rows = self
            .rows
            .iter()
            .map(|r| {
                let w = r.word(self.band);
                let mut row = vec![
                    Cell::t(&r.metric).bold(),
                    Cell::n(r.value(r.a)),
                    Cell::n(r.value(r.b)),
                    Cell::n(r.change_pct.map_or_else(|| r.signed(r.diff), pct)),
                    Cell::n(match r.interval {
                        Some((lo, hi)) if r.interval_pct => format!("[{}, {}]", pct(lo), pct(hi)),
                        Some((lo, hi)) => format!("[{}, {}]", r.signed(lo), r.signed(hi)),
                        None => "–".into(),
                    }),
                    Cell::badge(w.text(), w.tone()),
                ];
                if gated {
                    row.push(match r.gate {
                        Some(true) => Cell::badge("worse", Tone::Bad),
                        Some(false) => Cell::badge("ok", Tone::Good),
                        None => Cell::n("–"),
                    });
                }
                row
            })
            .collect();
        b.table(Table { headers, rows });
        for (what, list) in [
            ("Settings that differ", &self.settings),
            ("Environment items that differ", &self.environment),
        ] {
            if list.is_empty() {
                b.note(format!("{what}: none."));
                continue;
            }
            b.note(format!("{what}:"));
            b.table(Table {
                headers: vec!["item".into(), "A".into(), "B".into()],
                rows: list
                    .iter()
                    .map(|d| {
                        vec![
                            Cell::t(&d.name).bold(),
                            Cell::t(d.a.as_deref().unwrap_or("(absent)")),
                            Cell::t(d.b.as_deref().unwrap_or("(absent)")),
                        ]
                    })
                    .collect(),
            });
        }
    }
}

/// What differs between two lists of (name, value): `[name, A, B]`, A's order first.
pub(super) fn differing(a: &[(String, String)], b: &[(String, String)]) -> Vec<Differs> {
    let mut names: Vec<&str> = a.iter().map(|x| x.0.as_str()).collect();
    for (n, _) in b {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    let find = |l: &[(String, String)], n: &str| l.iter().find(|x| x.0 == n).map(|x| x.1.clone());
    names
        .into_iter()
        .filter_map(|n| {
            let (x, y) = (find(a, n), find(b, n));
            (x != y).then(|| Differs {
                name: n.to_string(),
                a: x,
                b: y,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_follows_the_interval_else_the_band() {
        let mut c = Change::single("p99", 100.0, 120.0);
        assert_eq!(c.word(Band::Percent(10.0)), Word::Regressed);
        assert_eq!(c.word(Band::Percent(25.0)), Word::NoChange);
        c.interval = Some((-3.0, 40.0));
        assert_eq!(c.word(Band::Percent(10.0)), Word::NoChange);
        c.interval = Some((-30.0, -4.0));
        assert_eq!(c.word(Band::Percent(10.0)), Word::Improved);
        let d = Change::single("max", 100.0, 80.0);
        assert_eq!(d.word(Band::Absolute(10.0)), Word::Improved);
        assert_eq!(d.word(Band::Absolute(30.0)), Word::NoChange);
    }

    #[test]
    fn differing_lists_what_differs_and_what_is_absent() {
        let l = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let d = differing(
            &l(&[("policy", "fifo 90"), ("window", "1 s")]),
            &l(&[("policy", "fifo 90"), ("window", "2 s"), ("cpus", "1")]),
        );
        let names: Vec<&str> = d.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["window", "cpus"]);
        assert_eq!(d[1].a, None);
    }
}
