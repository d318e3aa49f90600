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

/// The sample count of one set's buckets, or `None` when they are empty.
fn total_of(b: &[Bucket]) -> Option<f64> {
    let total: f64 = nonempty(b).map(|k| k.count).sum();
    (total > 0.0 && total.is_finite()).then_some(total)
}

/// Where the maximum's stretch starts at least, below the axis end: the stretch of the
/// last sample must stay visible even when the count fills the axis.
const MAX_STRETCH: f64 = 0.3;

/// The axis end (plot coordinate of the maximum) for sets whose largest count is `total`:
/// the last sample before the maximum sits at `log10(total)` nines, so the axis runs at
/// least [`MAX_STRETCH`] beyond it, to a whole decade.
pub(crate) fn axis_end(total: f64) -> f64 {
    (total.max(1.0).log10() + MAX_STRETCH)
        .ceil()
        .clamp(2.0, 9.0)
}

/// The curve of one set, on an axis that ends at `end` (see [`axis_end`]). Between two
/// breakpoints (bucket boundaries of the cumulative count and exact percentiles) the latency
/// is drawn at the largest value its bucket can hold (for sample-quantised data the last
/// sample below the upper edge, else the upper edge: an upper bound), but never above an
/// exact percentile further right nor below one further left, and within the exact min and
/// max. So every vertical step at an exact percentile runs through its dot: the curve passes
/// through the exact figures.
///
/// The last sample, the maximum, has its own stretch from its rank `(n − 1) / n` (at
/// `log10 n` nines) to the axis end, drawn at the exact maximum when the summary gives it.
/// Without that stretch the maximum would start where the axis stops and be drawn with no
/// width: the curve, and the value axis, would end at the sample before it.
pub(crate) fn curve(b: &[Bucket], stats: Option<&Stats>, end: f64) -> Option<Curve> {
    let total = total_of(b)?;
    // The stretch of ranks below the maximum; beyond `cap` nines it is squeezed (more samples
    // than the axis shows decades for) so that the maximum keeps its own stretch.
    let cap = total.log10().max(1.0).min(end - MAX_STRETCH);
    let max_v = stats.and_then(|s| s.max()).filter(|v| v.is_finite());
    let min_v = stats.and_then(|s| s.min()).filter(|v| v.is_finite());
    let vals: Vec<(f64, f64, f64)> = match data::quantised(b, stats.and_then(|s| s.resolution)) {
        Some(q) => q,
        None => nonempty(b)
            .map(|k| (k.low.max(k.high / 2.0), k.high, k.count))
            .collect(),
    };
    // Plot coordinate of a fraction: the maximum (p = 1) at the axis end.
    let at = |p: f64| if p >= 1.0 { end } else { nines(p, cap) };
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
    // The rank of the last sample: where the maximum's own stretch starts.
    let last = (total - 1.0).max(0.0) / total;
    let mut cuts: Vec<f64> = ends.iter().map(|e| e.0).collect();
    cuts.extend(exact.iter().map(|e| e.0));
    cuts.push(0.0);
    cuts.push(last);
    cuts.push(1.0);
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
            if z >= 1.0 {
                // The last sample is the maximum.
                v = m;
            }
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
        let (xa, xz) = (at(a), at(z));
        if xz > xa {
            steps.push((xa, xz, v.max(1e-3)));
        }
    }
    let mut dots: Vec<(f64, f64)> = exact.iter().map(|&(p, v)| (nines(p, cap), v)).collect();
    if let Some(m) = max_v {
        dots.push((end, m));
    }
    Some(Curve { steps, dots })
}

/// Latency against percentile (HdrHistogram-style log tail axis), from histogram buckets;
/// exact percentiles from the summary, when given, are marked with dots and the curve runs
/// through them (see [`curve`]).
pub fn cdf(
    sets: &[(String, Vec<Bucket>, Option<Stats>)],
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    let mut lines: Vec<Option<Curve>> = Vec::new();
    let end = axis_end(
        sets.iter()
            .filter_map(|s| total_of(&s.1))
            .fold(1.0, f64::max),
    );
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (_, b, stats) in sets {
        match curve(b, stats.as_ref(), end) {
            Some(c) => {
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
    let x = Axis::percentile_to_max(end);
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
