//! `latscope compare A.json B.json`: two measure results side by side, and a verdict
//! on whether B is worse than A beyond a threshold (for CI gates).

use crate::gate;
use crate::output::{Report, Stats};
use crate::MeasureError;
use latscope_core::time::parse_duration_ns;

/// How much worse B may be before it counts as a regression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// Relative to A, in percent.
    Percent(f64),
    /// Absolute, in ns (counts for `overruns` use the same number as a count).
    Nanos(i64),
}

/// Parses `10%` or a duration such as `5us`.
pub fn parse_threshold(text: &str) -> Result<Threshold, MeasureError> {
    let t = text.trim();
    if let Some(p) = t.strip_suffix('%') {
        let v: f64 = p.trim().parse().map_err(|_| {
            MeasureError::Input(format!("--threshold '{text}': '{p}' is not a number"))
        })?;
        if !(v.is_finite() && v >= 0.0) {
            return Err(MeasureError::Input(format!(
                "--threshold '{text}' must be zero or more"
            )));
        }
        return Ok(Threshold::Percent(v));
    }
    let ns = parse_duration_ns(t)
        .map_err(|e| {
            MeasureError::Input(format!(
                "--threshold '{text}': {e} (or give a percentage such as 10%)"
            ))
        })?
        .0;
    if ns < 0 {
        return Err(MeasureError::Input(format!(
            "--threshold '{text}' must be zero or more"
        )));
    }
    Ok(Threshold::Nanos(ns))
}

/// A figure that can be compared; all are "higher is worse".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Min,
    Mean,
    P50,
    P90,
    P99,
    P999,
    P9999,
    Max,
    Stdev,
    Overruns,
}

pub const ALL_METRICS: [Metric; 10] = [
    Metric::Min,
    Metric::Mean,
    Metric::P50,
    Metric::P90,
    Metric::P99,
    Metric::P999,
    Metric::P9999,
    Metric::Max,
    Metric::Stdev,
    Metric::Overruns,
];

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Min => "min",
            Metric::Mean => "mean",
            Metric::P50 => "p50",
            Metric::P90 => "p90",
            Metric::P99 => "p99",
            Metric::P999 => "p99.9",
            Metric::P9999 => "p99.99",
            Metric::Max => "max",
            Metric::Stdev => "stdev",
            Metric::Overruns => "overruns",
        }
    }
    pub fn parse(text: &str) -> Result<Metric, MeasureError> {
        let t = text.trim().to_ascii_lowercase();
        let t = t.trim_end_matches("_ns");
        Ok(match t {
            "min" => Metric::Min,
            "mean" | "avg" => Metric::Mean,
            "p50" | "median" => Metric::P50,
            "p90" => Metric::P90,
            "p99" => Metric::P99,
            "p99.9" | "p999" => Metric::P999,
            "p99.99" | "p9999" => Metric::P9999,
            "max" => Metric::Max,
            "stdev" => Metric::Stdev,
            "overruns" => Metric::Overruns,
            _ => {
                return Err(MeasureError::Input(format!(
                    "unknown metric '{text}' (use min, mean, p50, p90, p99, p99.9, p99.99, max, stdev, overruns)"
                )))
            }
        })
    }
    pub fn parse_list(text: &str) -> Result<Vec<Metric>, MeasureError> {
        text.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(Metric::parse)
            .collect()
    }
    pub fn is_count(self) -> bool {
        self == Metric::Overruns
    }
    pub fn of(self, s: &Stats) -> f64 {
        match self {
            Metric::Min => s.min_ns as f64,
            Metric::Mean => s.mean_ns,
            Metric::P50 => s.p50_ns as f64,
            Metric::P90 => s.p90_ns as f64,
            Metric::P99 => s.p99_ns as f64,
            Metric::P999 => s.p999_ns as f64,
            Metric::P9999 => s.p9999_ns as f64,
            Metric::Max => s.max_ns as f64,
            Metric::Stdev => s.stdev_ns,
            Metric::Overruns => s.overruns as f64,
        }
    }
}

/// Default metrics that decide the verdict: typical and tail latency; the single maximum
/// only joins when both runs hold enough rounds and samples for it to mean something
/// (one hypervisor hiccup should not fail a pipeline).
pub const DEFAULT_GATE: [Metric; 3] = [Metric::P50, Metric::P99, Metric::Overruns];

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub metric: Metric,
    /// A's figure: the merged total, or the median of its rounds when both runs have
    /// rounds.
    pub a: f64,
    pub b: f64,
    /// Part of the verdict.
    pub gated: bool,
    /// B exceeds A by more than the threshold (with the requested confidence when the
    /// rounds decide).
    pub worse: bool,
    /// From the rounds: B − A with its confidence bounds (percent of A, or ns / counts
    /// for an absolute threshold).
    pub estimate: Option<gate::Estimate>,
}

impl Row {
    /// B − A in ns (or counts), by the same estimator as [`Row::change_pct`]: from the
    /// rounds' shift estimate when there is one (a relative estimate applied to A's
    /// median), else the difference of the two figures. Two estimators side by side
    /// printed "+1760 ns" beside "−0.7 %".
    pub fn diff(&self) -> f64 {
        match &self.estimate {
            Some(e) if e.change.is_finite() && e.relative => self.a * e.change / 100.0,
            Some(e) if e.change.is_finite() => e.change,
            _ => self.b - self.a,
        }
    }
    /// B − A in percent of A, by the same estimator as [`Row::diff`]; None when A is 0.
    pub fn change_pct(&self) -> Option<f64> {
        match &self.estimate {
            Some(e) if e.change.is_finite() && e.relative => Some(e.change),
            _ => (self.a != 0.0).then(|| self.diff() * 100.0 / self.a),
        }
    }
}

/// One environment item that differs between the two runs.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvDiff {
    pub name: String,
    pub a: Option<(String, String)>,
    pub b: Option<(String, String)>,
}

/// How the verdict was reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    /// Rank test over the per-round figures of both runs.
    Rounds { a: usize, b: usize },
    /// Single figures (at least one run has fewer than [`MIN_ROUNDS`] rounds): the
    /// verdict ignores run-to-run spread and may cry wolf.
    Single,
}

/// What decides, and with which confidence.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub threshold: Threshold,
    /// Metrics of the verdict; None: [`DEFAULT_GATE`], plus `max` when both runs hold
    /// enough rounds and samples (see [`max_is_meaningful`]).
    pub gate: Option<Vec<Metric>>,
    /// Confidence of the rounds verdict, in (0, 1).
    pub confidence: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: Threshold::Percent(10.0),
            gate: None,
            confidence: 0.95,
        }
    }
}

/// Fewest rounds per run for the verdict from rounds.
pub const MIN_ROUNDS: usize = 3;
/// The maximum joins the default gate only when both runs have at least this many
/// rounds …
pub const MAX_GATE_MIN_ROUNDS: usize = 5;
/// … each with at least this many samples: then each round's maximum is the top of a
/// thousand wake-ups, and the spread of those maxima says whether B's is really higher.
pub const MAX_GATE_MIN_SAMPLES_PER_ROUND: u64 = 1000;

/// Why the maximum of run A or B (`name`) says too little to be gated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaxNotMeaningful {
    #[error("{0} has no rounds (measure --rounds N)")]
    NoRounds(&'static str),
    #[error("{name} has {rounds} rounds, fewer than {MAX_GATE_MIN_ROUNDS}")]
    FewRounds { name: &'static str, rounds: usize },
    #[error(
        "a round of {name} holds {least} samples, fewer than {MAX_GATE_MIN_SAMPLES_PER_ROUND}"
    )]
    FewSamples { name: &'static str, least: u64 },
}

/// Whether the maximum means something in both runs (see the two constants above);
/// Err says why not.
pub fn max_is_meaningful(a: &Report, b: &Report) -> Result<(), MaxNotMeaningful> {
    for (name, r) in [("A", a), ("B", b)] {
        let Some(rounds) = &r.rounds else {
            return Err(MaxNotMeaningful::NoRounds(name));
        };
        if rounds.len() < MAX_GATE_MIN_ROUNDS {
            return Err(MaxNotMeaningful::FewRounds {
                name,
                rounds: rounds.len(),
            });
        }
        let least = rounds.iter().map(|s| s.count).min().unwrap_or(0);
        if least < MAX_GATE_MIN_SAMPLES_PER_ROUND {
            return Err(MaxNotMeaningful::FewSamples { name, least });
        }
    }
    Ok(())
}

/// Settings that make two runs measure different things. Returns (setting, A, B) for each
/// that differs: policy, priority, interval, timer mode, CPUs.
pub fn conflicting_settings(a: &Report, b: &Report) -> Vec<(String, String, String)> {
    let (sa, sb) = (&a.settings, &b.settings);
    let mut out = Vec::new();
    let mut add = |k: &str, x: String, y: String| {
        if x != y {
            out.push((k.to_string(), x, y));
        }
    };
    add("policy", sa.policy.clone(), sb.policy.clone());
    add("priority", sa.priority.to_string(), sb.priority.to_string());
    add(
        "interval",
        latscope_core::Nanos(sa.interval_ns).to_string(),
        latscope_core::Nanos(sb.interval_ns).to_string(),
    );
    add("mode", sa.timer_mode.clone(), sb.timer_mode.clone());
    add(
        "cpus",
        crate::settings::format_cpu_list(&sa.cpus),
        crate::settings::format_cpu_list(&sb.cpus),
    );
    out
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub method: Method,
    /// Why `max` is or is not in the default gate (None when --metrics was given).
    pub max_note: Option<String>,
    pub confidence: f64,
    pub rows: Vec<Row>,
    /// Per CPU present in both: (cpu, rows).
    pub per_cpu: Vec<(u32, Vec<Row>)>,
    pub settings_diffs: Vec<(String, String, String)>,
    pub env_diffs: Vec<EnvDiff>,
    pub worse: bool,
}

fn exceeds(a: f64, b: f64, t: Threshold) -> bool {
    if b <= a {
        return false;
    }
    match t {
        Threshold::Percent(p) => b > a * (1.0 + p / 100.0),
        Threshold::Nanos(n) => b - a > n as f64,
    }
}

fn rows(a: &Stats, b: &Stats, t: Threshold, gate: &[Metric]) -> Vec<Row> {
    ALL_METRICS
        .iter()
        .map(|&m| {
            let (va, vb) = (m.of(a), m.of(b));
            let gated = gate.contains(&m);
            Row {
                metric: m,
                a: va,
                b: vb,
                gated,
                worse: gated && exceeds(va, vb, t),
                estimate: None,
            }
        })
        .collect()
}

fn round_rows(a: &[Stats], b: &[Stats], o: &Options, gate: &[Metric]) -> Vec<Row> {
    ALL_METRICS
        .iter()
        .map(|&m| {
            let va: Vec<f64> = a.iter().map(|s| m.of(s)).collect();
            let vb: Vec<f64> = b.iter().map(|s| m.of(s)).collect();
            let (scale, limit) = match o.threshold {
                Threshold::Percent(p) => (gate::Scale::Relative { floor: 1.0 }, p),
                Threshold::Nanos(n) => (gate::Scale::Absolute, n as f64),
            };
            let estimate = gate::rank_shift(&va, &vb, scale, o.confidence);
            let gated = gate.contains(&m);
            Row {
                metric: m,
                a: gate::median(&va),
                b: gate::median(&vb),
                gated,
                worse: gated && estimate.as_ref().is_some_and(|e| e.lower > limit),
                estimate,
            }
        })
        .collect()
}

/// Compares B against A: from the spread between rounds when both runs have at least
/// [`MIN_ROUNDS`] rounds, else from the merged totals. Per-CPU rows are shown only.
/// Call [`conflicting_settings`] first: runs that measured different things should not
/// be compared.
pub fn compare(a: &Report, b: &Report, o: &Options) -> Comparison {
    let t = o.threshold;
    let (gate, max_note) = gated_metrics(a, b, o);
    let gate = &gate[..];
    let (method, total) = match (&a.rounds, &b.rounds) {
        (Some(ra), Some(rb)) if ra.len() >= MIN_ROUNDS && rb.len() >= MIN_ROUNDS => (
            Method::Rounds {
                a: ra.len(),
                b: rb.len(),
            },
            round_rows(ra, rb, o, gate),
        ),
        _ => (Method::Single, rows(&a.total, &b.total, t, gate)),
    };
    let per_cpu = a
        .cpus
        .iter()
        .filter_map(|ca| {
            let cb = b.cpus.iter().find(|cb| cb.cpu == ca.cpu)?;
            Some((ca.cpu, rows(&ca.stats, &cb.stats, t, &[])))
        })
        .collect();
    let worse = total.iter().any(|r| r.worse);
    Comparison {
        method,
        max_note,
        confidence: o.confidence,
        rows: total,
        per_cpu,
        settings_diffs: settings_diffs(a, b),
        env_diffs: env_diffs(a, b),
        worse,
    }
}

/// The metrics that can fail the comparison: the caller's, else the default ones plus
/// the maximum where both runs have enough rounds for it to be stable, with a note
/// saying which.
fn gated_metrics(a: &Report, b: &Report, o: &Options) -> (Vec<Metric>, Option<String>) {
    match &o.gate {
        Some(g) => (g.clone(), None),
        None => {
            let mut g = DEFAULT_GATE.to_vec();
            let note = match max_is_meaningful(a, b) {
                Ok(()) => {
                    g.push(Metric::Max);
                    format!("max is gated: both runs have at least {MAX_GATE_MIN_ROUNDS} rounds of at least {MAX_GATE_MIN_SAMPLES_PER_ROUND} samples")
                }
                Err(why) => format!("max is not gated: {why}"),
            };
            (g, Some(note))
        }
    }
}

/// The run settings that differ: (key, A's value, B's value), as the user wrote them.
fn settings_diffs(a: &Report, b: &Report) -> Vec<(String, String, String)> {
    let sa = &a.settings;
    let sb = &b.settings;
    let mut settings_diffs = Vec::new();
    let mut sd = |k: &str, x: String, y: String| {
        if x != y {
            settings_diffs.push((k.to_string(), x, y));
        }
    };
    let cpus = |c: &[u32]| crate::settings::format_cpu_list(c);
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    sd("cpus", cpus(&sa.cpus), cpus(&sb.cpus));
    sd(
        "policy",
        format!("{} {}", sa.policy, sa.priority),
        format!("{} {}", sb.policy, sb.priority),
    );
    sd("timer_mode", sa.timer_mode.clone(), sb.timer_mode.clone());
    sd(
        "interval_ns",
        sa.interval_ns.to_string(),
        sb.interval_ns.to_string(),
    );
    sd(
        "duration_ns",
        opt(sa.duration_ns.map(|d| latscope_core::Nanos(d).to_string())),
        opt(sb.duration_ns.map(|d| latscope_core::Nanos(d).to_string())),
    );
    sd(
        "loops",
        opt(sa.loops.map(|l| l.to_string())),
        opt(sb.loops.map(|l| l.to_string())),
    );
    sd("load", sa.load.join(","), sb.load.join(","));
    sd(
        "pm_qos_us",
        opt(sa.pm_qos_us.map(|q| format!("{q} µs"))),
        opt(sb.pm_qos_us.map(|q| format!("{q} µs"))),
    );
    sd("kernel", a.kernel.clone(), b.kernel.clone());
    settings_diffs
}

/// The environment items that differ, A's names first then B's new ones.
fn env_diffs(a: &Report, b: &Report) -> Vec<EnvDiff> {
    let find = |r: &Report, n: &str| {
        r.environment
            .items
            .iter()
            .find(|i| i.name == n)
            .map(|i| (i.status.as_str().to_string(), i.value.clone()))
    };
    let mut names: Vec<String> = a.environment.items.iter().map(|i| i.name.clone()).collect();
    for i in &b.environment.items {
        if !names.contains(&i.name) {
            names.push(i.name.clone());
        }
    }
    let mut env_diffs = Vec::new();
    for n in names {
        // What happened during the run always differs in its numbers; only a change of
        // status is worth showing for those.
        let during = matches!(n.as_str(), "steal_time" | "interrupts" | "clock_read");
        let (x, y) = (find(a, &n), find(b, &n));
        let differs = match (&x, &y) {
            (Some(x), Some(y)) if during => x.0 != y.0,
            (x, y) => x != y,
        };
        if differs {
            env_diffs.push(EnvDiff {
                name: n,
                a: x,
                b: y,
            });
        }
    }
    env_diffs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_estimator_per_row() {
        let est = |change, relative| {
            Some(gate::Estimate {
                change,
                lower: change - 1.0,
                upper: change + 1.0,
                relative,
            })
        };
        // Medians 10,000 → 11,760 ns, but the rounds' shift estimate is −0.7 %.
        let mut r = Row {
            metric: Metric::P90,
            a: 10_000.0,
            b: 11_760.0,
            gated: true,
            worse: false,
            estimate: est(-0.7, true),
        };
        assert_eq!(r.change_pct(), Some(-0.7));
        assert!((r.diff() - -70.0).abs() < 1e-9, "{}", r.diff());
        // An absolute estimate: ns, and the percent follows from it.
        r.estimate = est(-50.0, false);
        assert_eq!(r.diff(), -50.0);
        assert_eq!(r.change_pct(), Some(-0.5));
        // No rounds: the two figures.
        r.estimate = None;
        assert_eq!(r.diff(), 1_760.0);
        assert_eq!(r.change_pct(), Some(17.6));
    }

    #[test]
    fn thresholds() {
        assert_eq!(parse_threshold("10%").unwrap(), Threshold::Percent(10.0));
        assert_eq!(parse_threshold(" 2.5 % ").unwrap(), Threshold::Percent(2.5));
        assert_eq!(parse_threshold("5us").unwrap(), Threshold::Nanos(5000));
        for bad in ["x%", "-1%", "10", "-5us", ""] {
            assert!(parse_threshold(bad).is_err(), "{bad}");
        }
        assert!(exceeds(100.0, 111.0, Threshold::Percent(10.0)));
        assert!(!exceeds(100.0, 110.0, Threshold::Percent(10.0)));
        assert!(!exceeds(100.0, 50.0, Threshold::Percent(0.0)));
        assert!(exceeds(0.0, 1.0, Threshold::Percent(10.0)));
        assert!(exceeds(1000.0, 6001.0, Threshold::Nanos(5000)));
        assert!(!exceeds(1000.0, 6000.0, Threshold::Nanos(5000)));
    }

    #[test]
    fn metrics() {
        assert_eq!(
            Metric::parse_list("p50,p99.9,max_ns,overruns").unwrap(),
            vec![Metric::P50, Metric::P999, Metric::Max, Metric::Overruns]
        );
        assert!(Metric::parse("p42").is_err());
    }
}
