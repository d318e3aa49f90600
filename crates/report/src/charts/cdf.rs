//! Latency against percentile (HdrHistogram-style), through the exact percentiles.

use super::*;

/// One set's curve: horizontal steps `(x_from, x_to, value_ns)` in percentile coordinates,
/// and the exact percentile dots `(x, value_ns)`.
pub(crate) struct Curve {
    pub steps: Vec<(f64, f64, f64)>,
    pub dots: Vec<(f64, f64)>,
}

/// `-log10(1 - p)`, capped at `cap`.
fn nines(p: f64, cap: f64) -> f64 {
    if p >= 1.0 {
        cap
    } else {
        (-(1.0 - p).log10()).min(cap)
    }
}

/// The curve of one set. Between two breakpoints (bucket boundaries of the cumulative count
/// and exact percentiles) the latency is drawn at the largest value its bucket can hold (for
/// sample-quantised data the last sample below the upper edge, else the upper edge: an upper
/// bound), but never above an exact percentile further right nor below one further left, and
/// within the exact min and max. So every vertical step at an exact percentile runs through
/// its dot: the curve passes through the exact figures.
pub(crate) fn curve(b: &[Bucket], stats: Option<&Stats>) -> Option<(Curve, f64)> {
    let total: f64 = nonempty(b).map(|k| k.count).sum();
    if total <= 0.0 {
        return None;
    }
    let cap = total.log10().max(1.0);
    let max_v = stats.and_then(|s| s.max).filter(|v| v.is_finite());
    let min_v = stats.and_then(|s| s.min).filter(|v| v.is_finite());
    let vals: Vec<(f64, f64, f64)> = match data::quantised(b, stats.and_then(|s| s.resolution)) {
        Some(q) => q,
        None => nonempty(b)
            .map(|k| (k.low.max(k.high / 2.0), k.high, k.count))
            .collect(),
    };
    // Exact percentiles inside the drawn range, as (p, value).
    let exact: Vec<(f64, f64)> = stats
        .map(|s| {
            s.percentile_points()
                .into_iter()
                .map(|(p, v, _)| (p, v))
                .filter(|(p, _)| nines(*p, f64::INFINITY) <= cap + 1e-9)
                .collect()
        })
        .unwrap_or_default();
    // Bucket ends on the cumulative scale: (p_end, bucket value).
    let mut ends: Vec<(f64, f64)> = Vec::with_capacity(vals.len());
    let mut cum = 0.0;
    for &(_, v, count) in &vals {
        cum += count;
        ends.push(((cum / total).min(1.0), v));
    }
    let mut cuts: Vec<f64> = ends.iter().map(|e| e.0).collect();
    cuts.extend(exact.iter().map(|e| e.0));
    cuts.push(0.0);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-15);
    let mut steps = Vec::new();
    for w in cuts.windows(2) {
        let (a, z) = (w[0], w[1]);
        if z <= a {
            continue;
        }
        let mid = (a + z) / 2.0;
        // The bucket holding this stretch of the cumulative count.
        let i = ends.partition_point(|e| e.0 < mid).min(ends.len() - 1);
        let mut v = ends[i].1;
        if let Some(up) = exact
            .iter()
            .filter(|e| e.0 >= z - 1e-15)
            .map(|e| e.1)
            .reduce(f64::min)
        {
            v = v.min(up);
        }
        if let Some(m) = max_v {
            v = v.min(m);
        }
        if let Some(down) = exact
            .iter()
            .filter(|e| e.0 <= a + 1e-15)
            .map(|e| e.1)
            .reduce(f64::max)
        {
            v = v.max(down);
        }
        if let Some(m) = min_v {
            v = v.max(m);
        }
        let (xa, xz) = (nines(a, cap), nines(z, cap));
        if xz > xa {
            steps.push((xa, xz, v.max(1e-3)));
        }
    }
    let dots = exact.iter().map(|&(p, v)| (nines(p, cap), v)).collect();
    Some((Curve { steps, dots }, cap))
}

/// Latency against percentile (HdrHistogram-style log tail axis), from histogram buckets;
/// exact percentiles from the summary, when given, are marked with dots and the curve runs
/// through them (see [`curve`]).
pub fn cdf(
    sets: &[(String, Vec<Bucket>, Option<Stats>)],
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    let mut lines: Vec<Option<Curve>> = Vec::new();
    let mut max_nines: f64 = 2.0;
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (_, b, stats) in sets {
        match curve(b, stats.as_ref()) {
            Some((c, cap)) => {
                max_nines = max_nines.max(cap);
                for v in c
                    .steps
                    .iter()
                    .map(|s| s.2)
                    .chain(c.dots.iter().map(|d| d.1))
                {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                lines.push(Some(c));
            }
            None => lines.push(None),
        }
    }
    if lines.iter().all(Option::is_none) {
        return Ok(None);
    }
    let x = Axis::percentile(max_nines);
    let y = Axis::time_auto(lo.max(1e-3), hi.max(lo * 1.01), word, 30.0);
    let mut js = Vec::new();
    let svg = draw(
        Frame {
            name: "cdf",
            w: 760,
            h: 320,
            x: &x,
            y: &y,
            y_area: 72,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, l) in lines.iter().enumerate() {
                let Some(l) = l else { continue };
                let c = color(i);
                // Step curve: horizontal at each stretch's value, vertical between them.
                let mut step = Vec::with_capacity(2 * l.steps.len());
                for &(a, z, v) in &l.steps {
                    step.push((a, y.at(v)));
                    step.push((z, y.at(v)));
                }
                chart.draw_series(LineSeries::new(step, c.stroke_width(2)))?;
                chart.draw_series(
                    l.dots
                        .iter()
                        .map(|&(a, v)| Circle::new((a, y.at(v)), 4, c.filled())),
                )?;
                js.push(serde_json::json!({
                    "name": sets[i].0,
                    "color": css(c),
                    "points": l.dots.iter().map(|&(a, v)| [a, v]).collect::<Vec<_>>(),
                    "steps": l.steps.iter().map(|&(a, z, v)| [a, z, v]).collect::<Vec<_>>(),
                }));
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: legend(sets.iter().map(|s| s.0.as_str())),
        data: Some(serde_json::json!({"type": "cdf", "sets": js}).to_string()),
    }))
}
