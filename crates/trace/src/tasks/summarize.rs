//! A set of durations as the shared summary of every result
//! ([`latscope_core::summary::ResultSummary`]), through the one statistics module
//! ([`latscope_core::stats::Samples`]: exact nearest-rank percentiles), with an
//! equal-width histogram as trace measurements write it.

use latscope_core::stats::{Location, Samples};
use latscope_core::summary::{val, HistogramBin, ResultSummary};

const PS_NS: f64 = 1000.0;

/// Summarises values in picoseconds, each located at a time in ps from the recording
/// start (`Location::at`); `resolution_ps` is one recorder clock tick (the mode's bin and
/// the histogram's smallest bin width), `bins` the most histogram bins.
pub fn summarize(s: &mut Samples, resolution_ps: i64, bins: usize) -> ResultSummary {
    let sm = s.summary();
    if sm.count == 0 {
        return ResultSummary {
            count: 0,
            min_ns: val(f64::NAN),
            max_ns: val(f64::NAN),
            min_at_ns: val(f64::NAN),
            max_at_ns: val(f64::NAN),
            mean_ns: val(f64::NAN),
            stdev_ns: val(f64::NAN),
            mode_ns: val(f64::NAN),
            p50_ns: val(f64::NAN),
            p90_ns: val(f64::NAN),
            p99_ns: val(f64::NAN),
            p999_ns: val(f64::NAN),
            p9999_ns: val(f64::NAN),
            histogram: Some(Vec::new()),
        };
    }
    let ns = |v: i64| val(v as f64 / PS_NS);
    let res = resolution_ps.max(1);
    let mode = s.mode(res).unwrap_or(sm.min);
    ResultSummary {
        count: sm.count,
        min_ns: ns(sm.min),
        max_ns: ns(sm.max),
        min_at_ns: ns(sm.min_at.at),
        max_at_ns: ns(sm.max_at.at),
        mean_ns: val(sm.mean / PS_NS),
        stdev_ns: val(sm.stdev / PS_NS),
        mode_ns: ns(mode),
        p50_ns: ns(sm.p50),
        p90_ns: ns(sm.p90),
        p99_ns: ns(sm.p99),
        p999_ns: ns(sm.p999),
        p9999_ns: ns(sm.p9999),
        histogram: Some(histogram(s.values(), sm.min, sm.max, res, bins)),
    }
}

/// Equal-width bins `[low, high)` from the minimum (rounded down to the resolution) to the
/// maximum, each a whole number of resolutions wide; empty bins are left out.
fn histogram(
    values: &[(i64, Location)],
    min: i64,
    max: i64,
    res: i64,
    bins: usize,
) -> Vec<HistogramBin> {
    let lo = min.div_euclid(res).saturating_mul(res);
    let span = (max.saturating_sub(lo) / res).saturating_add(1).max(1) as u64;
    let per_bin = span.div_ceil(bins.max(1) as u64).max(1) as i64;
    let w = per_bin.saturating_mul(res).max(1);
    let n = (max.saturating_sub(lo) / w).saturating_add(1).max(1) as usize;
    let mut counts = vec![0u64; n.min(bins.max(1) + 1)];
    let last = counts.len() - 1;
    for &(v, _) in values {
        let k = (v.saturating_sub(lo) / w).max(0) as usize;
        counts[k.min(last)] += 1;
    }
    counts
        .into_iter()
        .enumerate()
        .filter(|&(_, c)| c > 0)
        .map(|(k, c)| {
            let low = lo.saturating_add((k as i64).saturating_mul(w));
            HistogramBin {
                low_ns: low as f64 / PS_NS,
                high_ns: low.saturating_add(w) as f64 / PS_NS,
                count: c,
            }
        })
        .collect()
}
