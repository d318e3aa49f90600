//! The one verdict of a result: pass, fail or information, one sentence, and the worst
//! case with where it happened and its one-line cause.
//!
//! Every output that states a verdict (the terminal summary, the report's first screen
//! in HTML and Markdown, the overview of a combined report) takes it from here, so they
//! cannot disagree: issue 26 found a failed trace headlined "5 measurements" and a
//! scenario marked ❌ in one place and ✅ in another, because each output worked its
//! verdict out on its own.

use crate::document::Document;
use crate::{analyze, compare, fit, measure, noise, simulate, tasks, trace};
use latscope_core::time;
// A duration as every output prints it (the terminal and the report agree).
use latscope_core::time::human::ns as format_ns_f64;
use serde::{Deserialize, Serialize};

/// Whether the result answers its question with yes, no, or only figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every limit or deadline holds.
    Pass,
    /// A limit is exceeded, a deadline missed, a prediction outside its tolerance.
    Fail,
    /// Nothing to pass or fail against (no limit was set): the figures speak.
    Info,
}

impl Status {
    /// The word the outputs print before the line.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Info => "INFO",
        }
    }
}

/// The worst case a result holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Worst {
    /// The worst value (ns).
    pub value_ns: f64,
    /// When it happened, in ns from the input's own origin (the capture's or the
    /// recording's start as its result counts them); absent for a bound (analysis).
    pub at_ns: Option<f64>,
    /// Where: the measurement, task or CPU.
    #[serde(rename = "where")]
    pub where_: String,
    /// The one-line cause, when the result names one.
    pub cause: Option<String>,
}

impl Worst {
    /// "worst 81.2 µs in IRQ at 12.3 ms: pulse width of IRQ high" (the second line of
    /// the first screen).
    pub fn line(&self) -> String {
        let mut s = format!("worst {} in {}", format_ns_f64(self.value_ns), self.where_);
        if let Some(at) = self.at_ns {
            s += &format!(" at {}", format_ns_f64(at));
        }
        if let Some(c) = &self.cause {
            s += &format!(": {c}");
        }
        time::micro(&s)
    }
}

/// The verdict of one result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub status: Status,
    /// One sentence, without the status word.
    pub line: String,
    pub worst: Option<Worst>,
}

impl Verdict {
    /// "FAIL: 1 of 2 limits exceeded: IRQ.max<5us (actual 81.15 µs)".
    pub fn headline(&self) -> String {
        time::micro(&format!("{}: {}", self.status.word(), self.line))
    }

    /// The verdict of a result of any kind [`Document`] reads.
    pub fn of(doc: &Document) -> Verdict {
        match doc {
            Document::Measure(m) => Verdict::measure(m),
            Document::Trace(t) => Verdict::trace(t),
            Document::Tasks(t) => Verdict::tasks(t),
            Document::Analyze(a) => Verdict::analyze(a),
            Document::Simulate(s) => Verdict::simulate(s),
            Document::Fit(f) => Verdict::fit(f),
            Document::Noise(n) => Verdict::noise(n),
            Document::Compare(c) => Verdict::compare(c),
        }
    }

    /// `measure`: no limit is set, so the verdict is information: the tail and what
    /// dominates it (the bottom line), the worst sample and where.
    pub fn measure(m: &measure::MeasureResult) -> Verdict {
        let t = &m.total;
        let worst = (t.count > 0).then(|| Worst {
            value_ns: t.max_ns as f64,
            at_ns: Some(t.max_at_ns as f64),
            where_: format!("cpu{}", t.max_cpu),
            cause: m
                .bottom_line
                .as_ref()
                .and_then(|b| b.causes.first())
                .map(|c| c.what.clone()),
        });
        let line = match &m.bottom_line {
            Some(b) => b.summary.clone(),
            None if t.count == 0 => "no samples".to_string(),
            None => format!(
                "{} samples, p99 {}, max {}, {} overrun(s)",
                t.count,
                format_ns_f64(t.p99_ns as f64),
                format_ns_f64(t.max_ns as f64),
                t.overruns
            ),
        };
        Verdict {
            status: Status::Info,
            line,
            worst,
        }
    }

    /// `trace`: pass or fail against the `--limit`s; information without one. The worst
    /// case is the failed limit's measurement (else the measurement with the largest
    /// duration), at its `max_at_ns`.
    pub fn trace(t: &trace::TraceResult) -> Verdict {
        let failed: Vec<&trace::LimitOutcome> = t.limits.iter().filter(|l| !l.pass).collect();
        // a chain (`--chain`) counts by its end-to-end figure, as its limits read it
        let chains: Vec<trace::Measurement> = t.chains.iter().map(|c| c.as_measurement()).collect();
        let named = |limit: &str| {
            let name = limit
                .split(['<', '>'])
                .next()
                .and_then(|l| l.trim().rsplit_once('.'))
                .map(|(n, _)| n.trim().to_string());
            name.and_then(|n| t.measurements.iter().chain(&chains).find(|m| m.name == n))
        };
        let durations = || {
            t.measurements
                .iter()
                .chain(&chains)
                .filter(|m| m.unit == "ns" && m.count > 0 && m.max_ns.is_finite())
                .max_by(|a, b| a.max_ns.total_cmp(&b.max_ns))
        };
        let m = failed
            .first()
            .and_then(|l| named(&l.limit))
            .filter(|m| m.count > 0)
            .or_else(durations);
        let worst = m.map(|m| Worst {
            value_ns: m.max_ns,
            at_ns: Some(m.max_at_ns),
            where_: m.name.clone(),
            cause: Some(format!("{} of {}", m.kind, m.definition)),
        });
        let n = t.limits.len();
        let plural = |k: usize| if k == 1 { "limit" } else { "limits" };
        let (status, line) = if n == 0 {
            (
                Status::Info,
                format!(
                    "{} measurement(s){}, no limit set (--limit NAME.STAT<VALUE gates them)",
                    t.measurements.len(),
                    match t.chains.len() {
                        0 => String::new(),
                        k => format!(" and {k} chain(s)"),
                    }
                ),
            )
        } else if let Some(l) = failed.first() {
            (
                Status::Fail,
                format!(
                    "{} of {n} {} exceeded: {} ({})",
                    failed.len(),
                    plural(n),
                    l.limit,
                    l.actual_text()
                ),
            )
        } else {
            (Status::Pass, format!("all {n} {} hold", plural(n)))
        };
        Verdict {
            status,
            line,
            worst,
        }
    }

    /// `trace --tasks`: information (a recording has no deadline): the task with the
    /// largest response time.
    pub fn tasks(t: &tasks::TaskTimingResult) -> Verdict {
        let max = |s: &latscope_core::summary::ResultSummary| s.max_ns.flatten();
        let worst = t
            .tasks
            .iter()
            .filter_map(|k| Some((k, max(&k.response)?)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(k, v)| Worst {
                value_ns: v,
                at_ns: k.response.max_at_ns.flatten(),
                where_: format!("task {}", k.name),
                cause: Some("longest release-to-block response".to_string()),
            });
        let suspect: u64 = t.tasks.iter().map(|k| k.suspect).sum();
        let mut line = format!(
            "{} task(s), {} handler(s) over {}",
            t.tasks.len(),
            t.isrs.len(),
            format_ns_f64(t.recording.length_ns)
        );
        if suspect > 0 {
            line += &format!("; {suspect} job(s) touch lost events");
        }
        Verdict {
            status: Status::Info,
            line,
            worst,
        }
    }

    /// `analyze`: schedulable or not; the worst case is the critical task (least slack,
    /// an unbounded one first) with its worst-case response as the value.
    pub fn analyze(a: &analyze::AnalyzeResult) -> Verdict {
        Verdict::analysis(&a.analysis)
    }

    /// [`Verdict::analyze`] of the analysis alone (what `analyze` prints before the
    /// document exists).
    pub fn analysis(r: &analyze::AnalysisResult) -> Verdict {
        let slack = |t: &&latscope_model::rta::TaskResult| t.slack_ns.unwrap_or(f64::NEG_INFINITY);
        let critical = r.tasks.iter().min_by(|x, y| slack(x).total_cmp(&slack(y)));
        let worst = critical.map(|t| Worst {
            value_ns: t.wcrt_ns.or(t.wcrt_above_ns).unwrap_or(f64::INFINITY),
            at_ns: None,
            where_: format!("task {}", t.name),
            cause: Some(match (t.slack_ns, &t.unbounded_reason) {
                (Some(s), _) if s >= 0.0 => format!(
                    "critical task: least slack, {} before its {} deadline",
                    format_ns_f64(s),
                    format_ns_f64(t.deadline_ns)
                ),
                (Some(s), _) => format!(
                    "critical task: {} past its {} deadline",
                    format_ns_f64(-s),
                    format_ns_f64(t.deadline_ns)
                ),
                (None, Some(why)) => format!("critical task: response unbounded ({why})"),
                (None, None) => "critical task: response unbounded".to_string(),
            }),
        });
        let missing: Vec<&str> = r
            .tasks
            .iter()
            .filter(|t| !t.schedulable)
            .map(|t| &*t.name)
            .collect();
        let n = r.tasks.len();
        let (status, line) = if missing.is_empty() && r.schedulable {
            (
                Status::Pass,
                format!(
                    "all {n} task(s) schedulable ({} model, {} tick)",
                    r.model, r.tick_mode
                ),
            )
        } else {
            (
                Status::Fail,
                format!(
                    "{} of {n} task(s) can miss their deadline: {}",
                    missing.len(),
                    missing.join(", ")
                ),
            )
        };
        Verdict {
            status,
            line,
            worst,
        }
    }

    /// `simulate`: deadline misses; the worst case is the task whose largest response
    /// comes closest to (or goes furthest past) its deadline.
    pub fn simulate(s: &simulate::SimulateResult) -> Verdict {
        let ratio = |t: &simulate::TaskReport| {
            t.max_response_ns
                .map(|r| r / t.deadline_ns.max(f64::MIN_POSITIVE))
                .unwrap_or(0.0)
        };
        let worst = s
            .tasks
            .iter()
            .filter(|t| t.max_response_ns.is_some())
            .max_by(|a, b| {
                (a.deadline_misses > 0, ratio(a))
                    .partial_cmp(&(b.deadline_misses > 0, ratio(b)))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .map(|t| Worst {
                value_ns: t.max_response_ns.unwrap_or(0.0),
                at_ns: t.first_miss_ns,
                where_: format!("task {}", t.name),
                cause: Some(if t.deadline_misses > 0 {
                    format!(
                        "{} deadline miss(es) against a {} deadline",
                        t.deadline_misses,
                        format_ns_f64(t.deadline_ns)
                    )
                } else {
                    format!(
                        "largest response, {:.0} % of its {} deadline",
                        ratio(t) * 100.0,
                        format_ns_f64(t.deadline_ns)
                    )
                }),
            });
        let misses: u64 = s.tasks.iter().map(|t| t.deadline_misses).sum();
        let missed: Vec<&str> = s
            .tasks
            .iter()
            .filter(|t| t.deadline_misses > 0)
            .map(|t| t.name.as_str())
            .collect();
        let (status, line) = if misses == 0 {
            (
                Status::Pass,
                format!(
                    "no deadline miss in {} simulated ({} task(s))",
                    format_ns_f64(s.duration_ns),
                    s.tasks.len()
                ),
            )
        } else {
            (
                Status::Fail,
                format!(
                    "{misses} deadline miss(es) in {} simulated: {}",
                    format_ns_f64(s.duration_ns),
                    missed.join(", ")
                ),
            )
        };
        Verdict {
            status,
            line,
            worst,
        }
    }

    /// `fit`: information: the safe line (what `--write` stores) and how far the worst
    /// sample lies above the least-squares line.
    pub fn fit(f: &fit::FitResult) -> Verdict {
        let r = &f.result;
        let safe = match r.safe_model() {
            latscope_model::fit::Fitted::Line(l) => format!(
                "{} + {} per unit",
                format_ns_f64(l.intercept_ns),
                format_ns_f64(l.slope_ns)
            ),
            latscope_model::fit::Fitted::Constant(c) => format_ns_f64(c),
            latscope_model::fit::Fitted::Tick(_) => "piecewise (tick)".to_string(),
        };
        let line = format!(
            "{} fit of {} sample(s): safe {} (above every sample), least squares r² {:.3}",
            f.target, r.samples, safe, r.r2
        );
        let w = &r.worst_sample;
        Verdict {
            status: Status::Info,
            line,
            worst: Some(Worst {
                value_ns: w.y_ns,
                at_ns: None,
                where_: format!("row {} (x = {})", w.row, w.x),
                cause: Some(format!(
                    "{} above the least-squares line at most",
                    format_ns_f64(r.max_residual_ns)
                )),
            }),
        }
    }

    /// `noise`: information: the noisiest CPU and its largest single gap.
    pub fn noise(n: &noise::NoiseResult) -> Verdict {
        let noisiest = n
            .cpus
            .iter()
            .max_by(|a, b| a.noise_pct.total_cmp(&b.noise_pct));
        let line = match noisiest {
            None => "no CPUs measured".to_string(),
            Some(c) => format!("{:.3} % noise at most (cpu{})", c.noise_pct, c.cpu),
        };
        let worst = n
            .cpus
            .iter()
            .max_by_key(|c| c.max_single_ns)
            .map(|c| Worst {
                value_ns: c.max_single_ns as f64,
                at_ns: Some(c.max_single_at_ns as f64),
                where_: format!("cpu{}", c.cpu),
                cause: c.max_single_source.clone(),
            });
        Verdict {
            status: Status::Info,
            line,
            worst,
        }
    }

    /// `compare`: the gate's verdict. B worse than A beyond the threshold in a gated
    /// statistic fails (as `latscope compare` exits 1), else passes; the line names the
    /// threshold, the confidence when rounds decided, and the statistics that are worse
    /// (with their change and the interval's near end) or that were gated.
    pub fn compare(c: &compare::CompareResult) -> Verdict {
        let pct = c.threshold_pct.is_some();
        let thr = match (c.threshold_pct, c.threshold_ns) {
            (Some(p), _) => format!("{p} %"),
            (None, Some(n)) => format_ns_f64(n as f64),
            (None, None) => "the threshold".to_string(),
        };
        let how = if c.method == "rounds" {
            format!(" with {:.0} % confidence", c.confidence * 100.0)
        } else {
            String::new()
        };
        // A change in the threshold's unit: percent of A, or a duration.
        let change = |v: f64| {
            if pct {
                format!("{v:+.1} %")
            } else {
                let s = format_ns_f64(v.abs());
                if v < 0.0 {
                    format!("-{s}")
                } else {
                    format!("+{s}")
                }
            }
        };
        let worse = c.verdict == "worse";
        let (status, line) = if worse {
            let rows: Vec<String> = c
                .rows
                .iter()
                .filter(|r| r.worse)
                .map(|r| {
                    let shift = if pct { r.change_pct } else { Some(r.diff) };
                    match (shift, r.lower) {
                        (Some(x), Some(lo)) => {
                            format!("{} ({}, at least {})", r.metric, change(x), change(lo))
                        }
                        (Some(x), None) => format!("{} ({})", r.metric, change(x)),
                        _ => r.metric.clone(),
                    }
                })
                .collect();
            (
                Status::Fail,
                format!("B is worse than A beyond {thr}{how} in {}", rows.join(", ")),
            )
        } else {
            let gated: Vec<&str> = c
                .rows
                .iter()
                .filter(|r| r.gated)
                .map(|r| r.metric.as_str())
                .collect();
            (
                Status::Pass,
                format!(
                    "B is not worse than A beyond {thr}{how} ({})",
                    gated.join(", ")
                ),
            )
        };
        Verdict {
            status,
            line,
            worst: None,
        }
    }

    /// A scenario's verdict, as every output states it: the tally of its rows' verdicts
    /// ([`latscope_scenario::Row::verdict_of`]).
    pub fn of_scenario(o: &latscope_scenario::Outcome) -> Verdict {
        let t = &o.summary;
        Verdict::scenario(ScenarioTally {
            predictions: t.predictions,
            within: t.within,
            outside: t.outside,
            explained: t.explained,
        })
    }

    /// `scenario`: the predictions' tally as the scenario crate counts it with its one
    /// row verdict (`Row::verdict_of`): a miss without explanation fails (as the exit
    /// status does), misses that are all explained are information.
    pub fn scenario(t: ScenarioTally) -> Verdict {
        let unexplained = t.outside.saturating_sub(t.explained);
        let (status, line) = if t.predictions == 0 {
            (
                Status::Info,
                "no genuine prediction (the document offers nothing to predict independently)"
                    .to_string(),
            )
        } else if t.outside == 0 {
            (
                Status::Pass,
                format!(
                    "{} of {} predictions within tolerance",
                    t.within, t.predictions
                ),
            )
        } else if unexplained == 0 {
            (
                Status::Info,
                format!(
                    "{} of {} predictions within tolerance, the {} miss(es) explained",
                    t.within, t.predictions, t.outside
                ),
            )
        } else {
            (
                Status::Fail,
                format!(
                    "{} of {} predictions within tolerance, {unexplained} miss(es) unexplained",
                    t.within, t.predictions
                ),
            )
        };
        Verdict {
            status,
            line,
            worst: None,
        }
    }
}

/// The counts a scenario's verdict follows from (its `summary` in the JSON, counted by
/// the scenario crate from each row's verdict).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioTally {
    pub predictions: usize,
    pub within: usize,
    pub outside: usize,
    pub explained: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_fails_only_on_an_unexplained_miss() {
        let t = |p, w, o, e| {
            Verdict::scenario(ScenarioTally {
                predictions: p,
                within: w,
                outside: o,
                explained: e,
            })
            .status
        };
        assert_eq!(t(0, 0, 0, 0), Status::Info);
        assert_eq!(t(3, 3, 0, 0), Status::Pass);
        assert_eq!(t(3, 2, 1, 1), Status::Info);
        assert_eq!(t(3, 1, 2, 1), Status::Fail);
    }
}
