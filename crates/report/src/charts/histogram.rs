//! Histograms: bars at their buckets' true values, log count axis.

use super::*;

/// Bars at the buckets' true edges: `(left, right, count)` in plot coordinates. Touching
/// buckets narrower than `1/n` of the axis are merged into one bar spanning exactly their
/// union (from the first non-empty one's low edge to the last one's high edge), so a bar
/// always covers the values it counts and nothing else; a histogram of thousands of HDR
/// buckets stays light without moving any bar off its values.
pub(crate) fn true_bars(b: &[Bucket], x: &Axis, n: usize) -> Vec<(f64, f64, f64)> {
    let min_w = (x.hi - x.lo) / n.max(1) as f64;
    let edge = |v: f64, other: f64| {
        if x.log && v <= 0.0 {
            x.at(other.max(1e-3) / 2.0)
        } else {
            x.at(v)
        }
    };
    let mut sorted: Vec<&Bucket> = b
        .iter()
        .filter(|k| k.high > k.low || k.count > 0.0)
        .collect();
    sorted.sort_by(|a, b| a.low.total_cmp(&b.low));
    let mut out: Vec<(f64, f64, f64)> = Vec::new();
    // (group start in plot coordinates, first non-empty low, last non-empty high, count)
    let mut group: Option<(f64, f64, f64, f64, f64)> = None; // (start, end, lo, hi, count)
    let flush = |g: Option<(f64, f64, f64, f64, f64)>, out: &mut Vec<(f64, f64, f64)>| {
        if let Some((_, _, lo, hi, c)) = g {
            if c > 0.0 {
                out.push((x.clamp(lo), x.clamp(hi.max(lo)), c));
            }
        }
    };
    for k in sorted {
        let (l, h) = (edge(k.low, k.high), edge(k.high, k.high));
        let touching = group.is_some_and(|g| (l - g.1).abs() <= 1e-9 * (1.0 + l.abs()));
        let narrow = group.is_some_and(|g| g.1 - g.0 < min_w);
        if !(touching && narrow) {
            flush(group.take(), &mut out);
        }
        let g = group.get_or_insert((l, h, f64::NAN, f64::NAN, 0.0));
        g.1 = h;
        if k.count > 0.0 {
            if g.2.is_nan() {
                g.2 = l;
            }
            g.3 = h;
            g.4 += k.count;
        }
    }
    flush(group, &mut out);
    out
}

/// Bars over the values of quantised buckets: `(left, right, count)` in plot coordinates.
/// A bucket holding the values `a … z` (one sample apart) spans `[a − r/2, z + r/2]`, so a
/// single value is a bar centred on it (drawn 90 % wide, to stay apart from its neighbour)
/// and a reader reads real values at both edges. A bar narrower than a sliver of the axis is
/// widened around its centre, but never past half-way to its neighbours.
fn value_bars(vals: &[(f64, f64, f64)], r: f64, x: &Axis, n: usize) -> Vec<(f64, f64, f64)> {
    let raw: Vec<(f64, f64)> = vals
        .iter()
        .map(|&(a, z, _)| {
            let la = a - r / 2.0;
            let la = if la > 0.0 { la } else { a.max(r) / 2.0 };
            (x.at(la), x.at(z + r / 2.0))
        })
        .collect();
    let sliver = (x.hi - x.lo) / n as f64 * 0.6;
    let mut out = Vec::with_capacity(vals.len());
    for (i, (&(a, z, count), &(l, h))) in vals.iter().zip(&raw).enumerate() {
        let c = (l + h) / 2.0;
        let mut half = (h - l) / 2.0;
        if a == z {
            half *= 0.9;
        }
        half = half.max(sliver / 2.0);
        let mut left = c - half;
        let mut right = c + half;
        if i > 0 {
            left = left.max((raw[i - 1].1 + l) / 2.0);
        }
        if let Some(next) = raw.get(i + 1) {
            right = right.min((h + next.0) / 2.0);
        }
        out.push((x.clamp(left), x.clamp(right), count));
    }
    out
}

/// Latency histogram(s) with a log count axis. Several sets are overlaid as outlines.
pub fn histogram(sets: &[(String, Vec<Bucket>)], word: &str) -> Result<Option<Chart>, ReportError> {
    let sets: Vec<(String, Vec<Bucket>, Option<f64>)> = sets
        .iter()
        .map(|(n, b)| (n.clone(), b.clone(), None))
        .collect();
    histogram_res(&sets, word)
}

/// Like [`histogram`], with each set's value resolution (`resolution_ns`, one sample period).
///
/// Sample-quantised data on the sample grid (see [`data::quantised`]) are drawn as bars over
/// the values each bucket holds, half a resolution either side: a bucket of one value is a bar
/// centred on it, so that a reader reads the real value (a 3 µs pulse is a bar on 3 µs, not on
/// the bucket centre 3.5 µs). With more buckets than bins they are re-binned by the centre of
/// their values; HDR buckets (no resolution, or edges off the grid) by their centre as before.
pub fn histogram_res(
    sets: &[(String, Vec<Bucket>, Option<f64>)],
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    // Per set: the values each bucket can hold and the resolution, for data on a sample grid.
    type Quantised = Option<(Vec<(f64, f64, f64)>, f64)>;
    let quant: Vec<Quantised> = sets
        .iter()
        .map(|(_, b, r)| Some((data::quantised(b, *r)?, (*r)?)))
        .collect();
    // Value extents of what is drawn: quantised values span half a resolution either side.
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for ((_, b, _), q) in sets.iter().zip(&quant) {
        match q {
            Some((vals, r)) => spans.extend(vals.iter().map(|&(a, z, _)| {
                let lo = a - r / 2.0;
                (if lo > 0.0 { lo } else { a.max(*r) / 2.0 }, z + r / 2.0)
            })),
            None => spans.extend(nonempty(b).map(|k| {
                (
                    if k.low > 0.0 {
                        k.low
                    } else {
                        k.high.max(1.0) / 2.0
                    },
                    k.high,
                )
            })),
        }
    }
    if spans.is_empty() {
        return Ok(None);
    }
    let lo = spans.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
    let hi = spans.iter().map(|s| s.1).fold(0.0, f64::max);
    let x = Axis::time_auto(lo, hi.max(lo * 1.01), word, 30.0);
    let n = if x.log { 72 } else { 60 };
    let binned: Vec<Vec<(f64, f64, f64)>> = sets
        .iter()
        .zip(&quant)
        .map(|((_, b, _), q)| match q {
            Some((vals, r)) if vals.len() <= n => value_bars(vals, *r, &x, n),
            Some((vals, r)) => {
                // Each value span, half a sample either side, grouped at its true edges.
                let pts: Vec<Bucket> = vals
                    .iter()
                    .map(|&(low, high, count)| Bucket {
                        low: low - r / 2.0,
                        high: high + r / 2.0,
                        count,
                    })
                    .collect();
                true_bars(&pts, &x, n)
            }
            None => true_bars(b, &x, n),
        })
        .collect();
    let ymax = binned.iter().flatten().map(|b| b.2).fold(1.0, f64::max);
    let y = Axis::count_log(ymax);
    let base = y.lo;
    let many = sets.len() > 1;
    let svg = draw(
        Frame {
            name: "histogram",
            w: 760,
            h: 320,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, bins) in binned.iter().enumerate() {
                let c = color(i);
                let fill = if many { c.mix(0.18) } else { c.mix(0.85) };
                chart
                    .draw_series(bins.iter().map(|&(a, b, n)| {
                        Rectangle::new([(a, base), (b, y.at(n))], fill.filled())
                    }))?;
                if many {
                    // Step outline so that overlapping sets stay distinguishable.
                    let mut pts: Vec<(f64, f64)> = Vec::new();
                    let mut last_end = f64::NAN;
                    for &(a, b, n) in bins {
                        let top = y.at(n);
                        if (a - last_end).abs() > 1e-9 {
                            // A gap: close the previous run and start a new one at the base.
                            if !pts.is_empty() {
                                pts.push((last_end, base));
                                chart.draw_series(std::iter::once(PathElement::new(
                                    std::mem::take(&mut pts),
                                    c.stroke_width(2),
                                )))?;
                            }
                            pts.push((a, base));
                        }
                        pts.push((a, top));
                        pts.push((b, top));
                        last_end = b;
                    }
                    if !pts.is_empty() {
                        pts.push((last_end, base));
                        chart.draw_series(std::iter::once(PathElement::new(
                            pts,
                            c.stroke_width(2),
                        )))?;
                    }
                }
            }
            Ok(())
        },
    )?;
    let js: Vec<serde_json::Value> = binned
        .iter()
        .enumerate()
        .map(|(i, bins)| {
            serde_json::json!({
                "name": sets[i].0,
                "color": css(color(i)),
                "bars": bins.iter().map(|&(a, b, n)| [x.value(a), x.value(b), n]).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(Some(Chart {
        svg,
        legend: legend(sets.iter().map(|s| s.0.as_str())),
        data: Some(serde_json::json!({"type": "histogram", "sets": js}).to_string()),
    }))
}

/// A histogram of signed deviations in ns (jitter around a nominal period) on a linear axis
/// that spans exactly the data (`lo`, `hi`: the exact extremes, when known); bars at their
/// buckets' true edges, count on a log axis.
pub fn jitter_histogram(
    name: &str,
    b: &[Bucket],
    lo: Option<f64>,
    hi: Option<f64>,
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    let mut bs: Vec<Bucket> = nonempty(b).copied().collect();
    if bs.is_empty() {
        return Ok(None);
    }
    bs.sort_by(|a, b| a.low.total_cmp(&b.low));
    // The first and last buckets reach no further than the exact extremes.
    if let (Some(l), Some(first)) = (lo, bs.first_mut()) {
        if l >= first.low && l < first.high {
            first.low = l;
        }
    }
    if let (Some(h), Some(last)) = (hi, bs.last_mut()) {
        if h >= last.low && h <= last.high {
            last.high = h;
        }
    }
    let a = bs.first().map(|k| k.low).unwrap_or(0.0);
    let z = bs.last().map(|k| k.high).unwrap_or(0.0);
    // Zero (the nominal) always in view; a little room either side.
    let (a, z) = (a.min(0.0), z.max(0.0));
    let pad = ((z - a) * 0.05).max(1.0);
    let x = Axis::time_linear(a - pad, z + pad, word);
    let bars = true_bars(&bs, &x, 120);
    let ymax = bars.iter().map(|b| b.2).fold(1.0, f64::max);
    let y = Axis::count_log(ymax);
    let base = y.lo;
    let svg = draw(
        Frame {
            name: "jitter",
            w: 760,
            h: 300,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            let c = color(0);
            let sliver = (x.hi - x.lo) * 0.002;
            chart.draw_series(bars.iter().map(|&(l, r, n)| {
                let (l, r) = if r - l < sliver {
                    ((l + r) / 2.0 - sliver / 2.0, (l + r) / 2.0 + sliver / 2.0)
                } else {
                    (l, r)
                };
                Rectangle::new([(l, base), (r, y.at(n))], c.mix(0.85).filled())
            }))?;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x.at(0.0), y.lo), (x.at(0.0), y.hi)],
                ALERT.stroke_width(1),
            )))?;
            Ok(())
        },
    )?;
    let js = serde_json::json!({
        "type": "histogram",
        "sets": [{
            "name": name,
            "color": css(color(0)),
            "bars": bars.iter().map(|&(a, b, n)| [x.value(a), x.value(b), n]).collect::<Vec<_>>(),
        }],
    });
    Ok(Some(Chart {
        svg,
        legend: vec![
            (name.to_string(), css(color(0))),
            ("nominal (0)".into(), css(ALERT)),
        ],
        data: Some(js.to_string()),
    }))
}
