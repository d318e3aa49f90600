//! Merging results from their JSON form, for `measure --append`: rounds measured by
//! separate invocations (interleaved with another configuration's rounds, so that slow
//! drifts of the machine hit both alike) are gathered into one result.
//!
//! Counts, extremes, overruns and histograms add up exactly; mean and standard deviation
//! are pooled; percentiles are read from the merged histogram by nearest rank (the upper
//! edge of the bucket holding the rank, as `measure` itself reports them).

use crate::compare::conflicting_settings;
use crate::output::{CpuStats, HistBucket, Report, Stats};
use crate::MeasureError;
use latscope_core::stats::rank_index;

fn pct(hist: &[HistBucket], n: u64, max: i64, p: f64) -> i64 {
    if n == 0 {
        return 0;
    }
    let want = rank_index(p, n) + 1;
    let mut seen = 0;
    for b in hist {
        seen += b.count;
        if seen >= want {
            return b.high_ns.min(max);
        }
    }
    max
}

/// Two summaries as one.
pub fn merge_stats(a: &Stats, b: &Stats) -> Stats {
    if a.count == 0 {
        return b.clone();
    }
    if b.count == 0 {
        return a.clone();
    }
    let n = a.count + b.count;
    let (na, nb) = (a.count as f64, b.count as f64);
    let mean = (a.mean_ns * na + b.mean_ns * nb) / n as f64;
    // Pooled second moments about the merged mean.
    let m2 = |s: &Stats, k: f64| (s.stdev_ns * s.stdev_ns + (s.mean_ns - mean).powi(2)) * k;
    let stdev = ((m2(a, na) + m2(b, nb)) / n as f64).max(0.0).sqrt();
    let mut hist: Vec<HistBucket> = a.histogram.clone();
    for x in &b.histogram {
        match hist
            .iter_mut()
            .find(|h| h.low_ns == x.low_ns && h.high_ns == x.high_ns)
        {
            Some(h) => h.count += x.count,
            None => hist.push(*x),
        }
    }
    hist.sort_by_key(|h| (h.low_ns, h.high_ns));
    let (max_ns, max_at_ns, max_cpu) = if b.max_ns > a.max_ns {
        (b.max_ns, b.max_at_ns, b.max_cpu)
    } else {
        (a.max_ns, a.max_at_ns, a.max_cpu)
    };
    let p = |q| pct(&hist, n, max_ns, q);
    Stats {
        count: n,
        min_ns: a.min_ns.min(b.min_ns),
        mean_ns: mean,
        stdev_ns: stdev,
        p50_ns: p(50.0),
        p90_ns: p(90.0),
        p99_ns: p(99.0),
        p999_ns: p(99.9),
        p9999_ns: p(99.99),
        max_ns,
        max_at_ns,
        max_cpu,
        overruns: a.overruns + b.overruns,
        longest_overrun_run: a.longest_overrun_run.max(b.longest_overrun_run),
        histogram_overflow: a.histogram_overflow + b.histogram_overflow,
        histogram_underflow: a.histogram_underflow + b.histogram_underflow,
        histogram_highest_ns: a.histogram_highest_ns.max(b.histogram_highest_ns),
        histogram: hist,
        hdr: None,
        irq_latency_ns: None,
        thread_latency_ns: None,
    }
}

/// `new` appended to `old`: the rounds of both (a run without rounds counts as one
/// round), totals and per-CPU figures merged, elapsed times added. Refused when the two
/// measured different things (policy, priority, interval, mode, CPUs).
pub fn append(old: &Report, new: &Report) -> Result<Report, MeasureError> {
    let conflicts = conflicting_settings(old, new);
    if !conflicts.is_empty() {
        let list: Vec<String> = conflicts
            .iter()
            .map(|(k, x, y)| format!("{k} ({x} before, {y} now)"))
            .collect();
        return Err(MeasureError::Input(format!(
            "--append: the earlier result measured something else: {}",
            list.join(", ")
        )));
    }
    if old.sweep.is_some() || old.compare.is_some() || new.sweep.is_some() || new.compare.is_some()
    {
        return Err(MeasureError::Input(
            "--append works on plain runs and rounds, not sweeps or --compare-load".into(),
        ));
    }
    let mut out = new.clone();
    let mut rounds = old
        .rounds
        .clone()
        .unwrap_or_else(|| vec![old.total.clone()]);
    rounds.extend(
        new.rounds
            .clone()
            .unwrap_or_else(|| vec![new.total.clone()]),
    );
    out.settings.rounds = Some(rounds.len());
    out.rounds = Some(rounds);
    // Exact, and keeps `hdr` (crate::combine).
    let both = |a: &Stats, b: &Stats, what: &str| {
        crate::combine::merge_stats(&[
            (a, format!("--append: earlier result, {what}")),
            (b, format!("--append: this run, {what}")),
        ])
    };
    out.total = both(&old.total, &new.total, "total")?;
    let mut cpus = Vec::with_capacity(new.cpus.len());
    for c in &new.cpus {
        cpus.push(match old.cpus.iter().find(|o| o.cpu == c.cpu) {
            Some(o) => CpuStats {
                cpu: c.cpu,
                stats: both(&o.stats, &c.stats, &format!("cpu {}", c.cpu))?,
                wakes: o.wakes + c.wakes,
                timer_slack_ns: c.timer_slack_ns,
                dropped_samples: o.dropped_samples + c.dropped_samples,
            },
            None => c.clone(),
        });
    }
    out.cpus = cpus;
    out.elapsed_ns = old.elapsed_ns + new.elapsed_ns;
    out.started_unix_s = old.started_unix_s;
    out.interrupted = old.interrupted || new.interrupted;
    out.samples = None;
    if let (Some(a), Some(b)) = (&old.spikes, &new.spikes) {
        let mut s = a.clone();
        s.extend(b.iter().cloned());
        out.spikes = Some(s);
    }
    out.bottom_line = Some(crate::bottom_line::of(&out));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(count: u64, mean: f64, sd: f64, hist: &[(i64, i64, u64)], max: i64) -> Stats {
        Stats {
            count,
            min_ns: hist.first().map(|h| h.0).unwrap_or(0),
            mean_ns: mean,
            stdev_ns: sd,
            p50_ns: 0,
            p90_ns: 0,
            p99_ns: 0,
            p999_ns: 0,
            p9999_ns: 0,
            max_ns: max,
            max_at_ns: 7,
            max_cpu: 1,
            overruns: 2,
            longest_overrun_run: 1,
            histogram: hist
                .iter()
                .map(|&(l, h, c)| HistBucket {
                    low_ns: l,
                    high_ns: h,
                    count: c,
                })
                .collect(),
            histogram_overflow: 0,
            histogram_underflow: 0,
            histogram_highest_ns: 10_000_000_000,
            hdr: None,
            irq_latency_ns: None,
            thread_latency_ns: None,
        }
    }

    #[test]
    fn merged_figures_are_those_of_all_samples() {
        // A: 10 samples of 10 (sd 0); B: 10 samples of 30 (sd 0).
        let a = st(10, 10.0, 0.0, &[(10, 10, 10)], 10);
        let b = st(10, 30.0, 0.0, &[(30, 30, 10)], 30);
        let m = merge_stats(&a, &b);
        assert_eq!(m.count, 20);
        assert_eq!(m.mean_ns, 20.0);
        assert!((m.stdev_ns - 10.0).abs() < 1e-9);
        assert_eq!(m.p50_ns, 10);
        assert_eq!(m.p90_ns, 30);
        assert_eq!(m.max_ns, 30);
        assert_eq!(m.min_ns, 10);
        assert_eq!(m.overruns, 4);
        assert_eq!(m.histogram.len(), 2);
        // Same bucket in both: counts add.
        let m2 = merge_stats(&a, &a);
        assert_eq!(m2.histogram.len(), 1);
        assert_eq!(m2.histogram[0].count, 20);
        assert_eq!(merge_stats(&a, &st(0, 0.0, 0.0, &[], 0)), a);
    }
}
