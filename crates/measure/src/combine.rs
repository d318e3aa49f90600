//! `latscope merge`: measure results of the same settings (from several runs, hosts or
//! boards) combined into one result, exactly.
//!
//! Counts, extremes, overruns and histograms add up exactly: each result's histogram is
//! rebuilt from its `hdr` key (HdrHistogram's standard encoding), or from its bucket list
//! in results written before `hdr` existed (the buckets are the HdrHistogram's own, so
//! that is exact too), and the percentiles are read from the merged histogram by the
//! same rule `measure` uses. Merging the two halves of a run therefore gives the figures
//! of the whole run; only mean and standard deviation are pooled in floating point.
//!
//! Results whose settings differ (policy, priority, interval, timer mode, CPUs, overrun
//! policy, load, PM QoS) measured different things and are refused, naming the first
//! setting that differs and the two results. Labels the inputs share are kept; the ones
//! that differ (e.g. `host` across a fleet) are listed in `merged.differing_labels`.

use crate::output::{CpuStats, HistBucket, Report, Stats};
use crate::MeasureError;
use latscope_core::labels::Labels;
use latscope_core::stats::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a merged result was made from (the `merged` key of its JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MergeInfo {
    /// The results merged, as named on the command line, in order.
    pub from: Vec<String>,
    /// Labels whose values differ between the results: every distinct value in order of
    /// first appearance (`""` where a result lacks the label).
    pub differing_labels: BTreeMap<String, Vec<String>>,
}

/// The settings that define what a run measured, with their values as text.
fn defining_settings(r: &Report) -> Vec<(&'static str, String)> {
    let s = &r.settings;
    let opt = |v: Option<i32>| v.map(|x| format!("{x} µs")).unwrap_or("none".into());
    vec![
        ("policy", s.policy.clone()),
        ("priority", s.priority.to_string()),
        ("interval", latscope_core::Nanos(s.interval_ns).to_string()),
        ("timer mode", s.timer_mode.clone()),
        ("cpus", crate::settings::format_cpu_list(&s.cpus)),
        ("overrun policy", s.overrun_policy.clone()),
        (
            "load",
            if s.load.is_empty() {
                "none".into()
            } else {
                s.load.join(",")
            },
        ),
        ("pm_qos", opt(s.pm_qos_us)),
    ]
}

/// The first setting in which `b` differs from `a`: (setting, a's value, b's value).
pub fn first_difference(a: &Report, b: &Report) -> Option<(&'static str, String, String)> {
    defining_settings(a)
        .into_iter()
        .zip(defining_settings(b))
        .find(|(x, y)| x.1 != y.1)
        .map(|(x, y)| (x.0, x.1, y.1))
}

/// The histogram of one summary: from `hdr` when present, else from the bucket list.
fn histogram_of(s: &Stats, what: &str) -> Result<Histogram, MeasureError> {
    let bad = |msg: String| MeasureError::Input(format!("{what}: {msg}"));
    if let Some(text) = &s.hdr {
        let h = crate::hdr::decode(text, s.histogram_overflow, s.histogram_underflow)
            .map_err(|e| bad(e.to_string()))?;
        if h.count() != s.count {
            return Err(bad(format!(
                "hdr holds {} samples but count is {}",
                h.count(),
                s.count
            )));
        }
        return Ok(h);
    }
    let mut h = Histogram::for_latency_ns();
    for b in &s.histogram {
        if b.low_ns < 0 || b.low_ns > h.highest() {
            return Err(bad(format!(
                "histogram bucket at {} ns is outside 0..{} ns",
                b.low_ns,
                h.highest()
            )));
        }
        h.record_n(b.low_ns, b.count);
    }
    if h.count() != s.count {
        return Err(bad(format!(
            "the histogram holds {} samples but count is {}",
            h.count(),
            s.count
        )));
    }
    // Out-of-range counts were recorded at the edges; carry their tallies over.
    let mut out = Histogram::for_latency_ns();
    out.add_hdr(h.hdr(), s.histogram_overflow, s.histogram_underflow)
        .map_err(|e| bad(e.to_string()))?;
    Ok(out)
}

/// Several summaries as one, exactly (see the module text). `what` names each part for
/// errors.
pub fn merge_stats(parts: &[(&Stats, String)]) -> Result<Stats, MeasureError> {
    let live: Vec<&(&Stats, String)> = parts.iter().filter(|(s, _)| s.count > 0).collect();
    let Some(first) = live.first() else {
        return parts
            .first()
            .map(|p| p.0.clone())
            .ok_or_else(|| MeasureError::Input("nothing to merge".into()));
    };
    let mut hist = Histogram::for_latency_ns();
    let mut n = 0u64;
    let mut sum = 0.0f64;
    let mut min = i64::MAX;
    let mut best = first.0;
    let (mut overruns, mut longest) = (0u64, 0u64);
    for (s, what) in &live {
        let h = histogram_of(s, what)?;
        hist.merge(&h)
            .map_err(|e| MeasureError::Input(format!("{what}: {e}")))?;
        n += s.count;
        sum += s.mean_ns * s.count as f64;
        min = min.min(s.min_ns);
        if s.max_ns > best.max_ns {
            best = s;
        }
        overruns += s.overruns;
        longest = longest.max(s.longest_overrun_run);
    }
    let mean = sum / n as f64;
    // Chan et al.: sums of squared deviations about each part's mean (sample stdev,
    // n - 1), plus the spread of the parts' means about the merged mean.
    let m2: f64 = live
        .iter()
        .map(|(s, _)| {
            let k = s.count as f64;
            s.stdev_ns * s.stdev_ns * (k - 1.0) + k * (s.mean_ns - mean).powi(2)
        })
        .sum();
    let stdev = if n < 2 {
        0.0
    } else {
        (m2 / (n - 1) as f64).max(0.0).sqrt()
    };
    let max = best.max_ns;
    let p = |q: f64| hist.percentile(q).clamp(min, max);
    let sub = |f: fn(&Stats) -> Option<&Stats>| -> Result<Option<Box<Stats>>, MeasureError> {
        let subs: Option<Vec<(&Stats, String)>> = live
            .iter()
            .map(|(s, w)| f(s).map(|x| (x, w.clone())))
            .collect();
        match subs {
            Some(v) if !v.is_empty() => Ok(Some(Box::new(merge_stats(&v)?))),
            _ => Ok(None),
        }
    };
    Ok(Stats {
        count: n,
        min_ns: min,
        mean_ns: mean,
        stdev_ns: stdev,
        p50_ns: p(50.0),
        p90_ns: p(90.0),
        p99_ns: p(99.0),
        p999_ns: p(99.9),
        p9999_ns: p(99.99),
        max_ns: max,
        max_at_ns: best.max_at_ns,
        max_cpu: best.max_cpu,
        overruns,
        longest_overrun_run: longest,
        histogram: hist
            .buckets()
            .into_iter()
            .map(|b| HistBucket {
                low_ns: b.low,
                high_ns: b.high,
                count: b.count,
            })
            .collect(),
        histogram_overflow: hist.overflow(),
        histogram_underflow: hist.underflow(),
        histogram_highest_ns: hist.highest(),
        hdr: Some(crate::hdr::encode(&hist)),
        irq_latency_ns: sub(|s| s.irq_latency_ns.as_deref())?,
        thread_latency_ns: sub(|s| s.thread_latency_ns.as_deref())?,
    })
}

/// Labels shared by all (kept) and those that differ (listed with their values).
fn split_labels(all: &[&Labels]) -> (Labels, BTreeMap<String, Vec<String>>) {
    let mut keys: Vec<&String> = all.iter().flat_map(|l| l.0.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut common = BTreeMap::new();
    let mut differing = BTreeMap::new();
    for k in keys {
        let mut values: Vec<String> = Vec::new();
        for l in all {
            let v = l.0.get(k).cloned().unwrap_or_default();
            if !values.contains(&v) {
                values.push(v);
            }
        }
        if values.len() == 1 {
            common.insert(k.clone(), values.remove(0));
        } else {
            differing.insert(k.clone(), values);
        }
    }
    (Labels(common), differing)
}

/// Merges `results` (name, report), in order. Refused when fewer than two are given,
/// when any is a sweep or `--compare-load` result, or when settings differ.
pub fn merge(results: &[(String, Report)]) -> Result<(Report, MergeInfo), MeasureError> {
    check_mergeable(results)?;
    let first = &results[0].1;
    let totals: Vec<(&Stats, String)> = results
        .iter()
        .map(|(n, r)| (&r.total, format!("{n}: total")))
        .collect();
    let total = merge_stats(&totals)?;
    let cpus = merge_cpus(results, &first.settings.cpus)?;
    let mut rounds = Vec::new();
    for (_, r) in results {
        match &r.rounds {
            Some(rs) => rounds.extend(rs.iter().cloned()),
            None => rounds.push(r.total.clone()),
        }
    }
    let labels: Vec<&Labels> = results.iter().map(|(_, r)| &r.labels).collect();
    let (common, differing) = split_labels(&labels);
    let kernels: Vec<&str> = results.iter().map(|(_, r)| r.kernel.as_str()).collect();
    let mut out = first.clone();
    out.tool = format!("latscope {}", env!("CARGO_PKG_VERSION"));
    out.started_unix_s = results
        .iter()
        .map(|(_, r)| r.started_unix_s)
        .fold(f64::INFINITY, f64::min);
    out.kernel = if kernels.iter().all(|k| *k == kernels[0]) {
        kernels[0].to_string()
    } else {
        String::new()
    };
    out.labels = common;
    out.interrupted = results.iter().any(|(_, r)| r.interrupted);
    out.elapsed_ns = results.iter().map(|(_, r)| r.elapsed_ns).sum();
    out.settings.duration_ns = results
        .iter()
        .map(|(_, r)| r.settings.duration_ns)
        .sum::<Option<i64>>();
    out.settings.loops = results
        .iter()
        .map(|(_, r)| r.settings.loops)
        .sum::<Option<u64>>();
    out.settings.rounds = Some(rounds.len());
    out.rounds = Some(rounds);
    // Diagnosis items that read the same in every result.
    out.environment.items.retain(|it| {
        results[1..]
            .iter()
            .all(|(_, r)| r.environment.items.contains(it))
    });
    out.total = total;
    out.cpus = cpus;
    // Spike times and raw-sample files belong to their own runs.
    out.spikes = None;
    out.samples = None;
    out.bottom_line = Some(crate::bottom_line::of(&out));
    let info = MergeInfo {
        from: results.iter().map(|(n, _)| n.clone()).collect(),
        differing_labels: differing,
    };
    Ok((out, info))
}

/// At least two plain runs (or runs of rounds) of the same settings: anything else
/// would merge samples that do not describe one thing.
fn check_mergeable(results: &[(String, Report)]) -> Result<(), MeasureError> {
    if results.len() < 2 {
        return Err(MeasureError::Input(
            "merge needs at least two results".into(),
        ));
    }
    for (name, r) in results {
        if r.sweep.is_some() || r.compare.is_some() {
            return Err(MeasureError::Input(format!(
                "{name}: a {} result; merge combines plain runs and rounds",
                if r.sweep.is_some() {
                    "--sweep"
                } else {
                    "--compare-load"
                }
            )));
        }
    }
    let (first_name, first) = &results[0];
    for (name, r) in &results[1..] {
        if let Some((k, x, y)) = first_difference(first, r) {
            return Err(MeasureError::Input(format!(
                "settings differ: {k} is {x} in {first_name} but {y} in {name}; \
                 merge combines runs of the same settings"
            )));
        }
    }
    Ok(())
}

/// Per CPU of the first run's list, the merged statistics of the runs that have it.
fn merge_cpus(
    results: &[(String, Report)],
    cpu_list: &[u32],
) -> Result<Vec<CpuStats>, MeasureError> {
    let mut cpus: Vec<CpuStats> = Vec::new();
    for &cpu in cpu_list {
        let parts: Vec<(&CpuStats, &String)> = results
            .iter()
            .filter_map(|(n, r)| r.cpus.iter().find(|c| c.cpu == cpu).map(|c| (c, n)))
            .collect();
        let Some((c0, _)) = parts.first() else {
            continue;
        };
        let stats: Vec<(&Stats, String)> = parts
            .iter()
            .map(|(c, n)| (&c.stats, format!("{n}: cpu {cpu}")))
            .collect();
        cpus.push(CpuStats {
            cpu,
            stats: merge_stats(&stats)?,
            wakes: parts.iter().map(|(c, _)| c.wakes).sum(),
            timer_slack_ns: c0.timer_slack_ns,
            dropped_samples: parts.iter().map(|(c, _)| c.dropped_samples).sum(),
        });
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::stats_of;
    use latscope_core::stats::{Accumulator, Location};

    fn acc(vals: &[i64]) -> Accumulator {
        let mut a = Accumulator::new(Histogram::for_latency_ns());
        for (i, &v) in vals.iter().enumerate() {
            a.add(
                v,
                Location {
                    at: i as i64,
                    source: 0,
                },
            );
        }
        a
    }

    /// A deterministic, skewed latency-like sequence with a long tail.
    fn values(n: usize) -> Vec<i64> {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = (x % 1_000_000) as f64 / 1e6;
                (2_000.0 + 50_000.0 * u.powi(8) + (x % 997) as f64) as i64
            })
            .collect()
    }

    #[test]
    fn two_halves_merge_to_the_whole() {
        let v = values(20_001);
        let (a, b) = v.split_at(7_777);
        let whole = stats_of(&acc(&v), 0, 0);
        let sa = stats_of(&acc(a), 0, 0);
        let sb = stats_of(&acc(b), 0, 0);
        let m = merge_stats(&[(&sa, "a".into()), (&sb, "b".into())]).unwrap();
        assert_eq!(m.count, whole.count);
        assert_eq!((m.min_ns, m.max_ns), (whole.min_ns, whole.max_ns));
        assert_eq!(
            (m.p50_ns, m.p90_ns, m.p99_ns, m.p999_ns, m.p9999_ns),
            (
                whole.p50_ns,
                whole.p90_ns,
                whole.p99_ns,
                whole.p999_ns,
                whole.p9999_ns
            )
        );
        assert_eq!(m.histogram, whole.histogram);
        assert_eq!(m.hdr, whole.hdr, "the merged encoding is the whole's");
        assert!((m.mean_ns - whole.mean_ns).abs() < 1e-6 * whole.mean_ns);
        assert!((m.stdev_ns - whole.stdev_ns).abs() < 1e-6 * whole.stdev_ns);
        // Without `hdr` (older results) the bucket lists give the same figures.
        let (mut oa, mut ob) = (sa.clone(), sb.clone());
        oa.hdr = None;
        ob.hdr = None;
        let m2 = merge_stats(&[(&oa, "a".into()), (&ob, "b".into())]).unwrap();
        assert_eq!(m2.histogram, whole.histogram);
        assert_eq!(m2.p99_ns, whole.p99_ns);
        assert_eq!(m2.hdr, whole.hdr);
    }

    #[test]
    fn a_count_that_disagrees_with_the_histogram_is_refused() {
        let mut s = stats_of(&acc(&values(100)), 0, 0);
        s.count += 1;
        let o = stats_of(&acc(&values(10)), 0, 0);
        let e = merge_stats(&[(&o, "a.json".into()), (&s, "b.json: cpu 0".into())])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("b.json: cpu 0") && e.contains("count is 101"),
            "{e}"
        );
        s.hdr = Some("garbage!".into());
        let e = merge_stats(&[(&o, "a".into()), (&s, "b".into())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("b: hdr: not base64"), "{e}");
    }

    #[test]
    fn labels_common_kept_differing_listed() {
        let l = |p: &[(&str, &str)]| {
            Labels(
                p.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        let a = l(&[("board", "rpi4"), ("host", "a"), ("rack", "1")]);
        let b = l(&[("board", "rpi4"), ("host", "b")]);
        let c = l(&[("board", "rpi4"), ("host", "a")]);
        let (common, diff) = split_labels(&[&a, &b, &c]);
        assert_eq!(common, l(&[("board", "rpi4")]));
        assert_eq!(diff["host"], ["a", "b"]);
        assert_eq!(diff["rack"], ["1", ""]);
    }
}
