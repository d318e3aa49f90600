//! A timeline excerpt: one row per channel, busy intervals as bars.

use super::*;

/// A timeline excerpt: one row per track, busy intervals as bars, the instant of interest
/// marked with a vertical line; time counted "since start".
pub fn timeline(
    tracks: &[(String, Vec<(f64, f64)>)],
    window: (f64, f64),
    marker: Option<(f64, String)>,
) -> Result<Option<Chart>, ReportError> {
    timeline_at(tracks, window, marker, "time since start")
}

/// [`timeline`] whose `origin` titles the time axis with where time 0 is (the
/// capture's start, the simulation's start), the origin every other figure of the input
/// counts from.
pub fn timeline_at(
    tracks: &[(String, Vec<(f64, f64)>)],
    window: (f64, f64),
    marker: Option<(f64, String)>,
    origin: &str,
) -> Result<Option<Chart>, ReportError> {
    if tracks.is_empty() || window.1 <= window.0 {
        return Ok(None);
    }
    // The axis rounds the window out to whole ticks; show what happens in all of it.
    let x = Axis::time_linear(window.0, window.1, origin);
    let (w0, w1) = (x.value(x.lo), x.value(x.hi));
    type Visible<'a> = (usize, &'a String, Vec<(f64, f64)>);
    let visible: Vec<Visible> = tracks
        .iter()
        .enumerate()
        .map(|(i, (n, iv))| {
            (
                i,
                n,
                iv.iter()
                    .filter(|(a, b)| *b >= w0 && *a <= w1)
                    .map(|&(a, b)| (a.max(w0), b.min(w1)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    if visible.iter().all(|v| v.2.is_empty()) {
        return Ok(None);
    }
    let n = visible.len();
    let labels = short_labels(visible.iter().map(|v| v.1.as_str()), 24);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let mut y = category_axis(&labels);
    y.hi = n as f64 + 0.7;
    let h = (80 + 26 * n as u32).clamp(130, 700);
    let svg = draw(
        Frame {
            name: "timeline",
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 190),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            if let Some((t, label)) = &marker {
                let mx = x.at(*t);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(mx, 0.0), (mx, n as f64 + 0.7)],
                    ALERT.stroke_width(2),
                )))?;
                chart.draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (mx + (x.hi - x.lo) * 0.006, n as f64 + 0.62),
                    text_style(11.5, &ALERT, HPos::Left, VPos::Top),
                )))?;
            }
            for (ri, (ci, _, iv)) in visible.iter().enumerate() {
                let yc = (n - 1 - ri) as f64;
                let c = component_color(&tracks[*ci].0, *ci);
                chart.draw_series(iv.iter().map(|&(a, b)| {
                    let (a, b) = (x.at(a), x.at(b));
                    // At least a hairline for very short intervals.
                    let b = b.max(a + (x.hi - x.lo) * 0.004);
                    Rectangle::new([(a, yc + 0.22), (b, yc + 0.78)], c.filled())
                }))?;
            }
            Ok(())
        },
    )?;
    // For the page script: the intervals of a wider stretch (16 windows around this one, at
    // most 4,000 per track), so that zooming out and panning show real data.
    let span = w1 - w0;
    let (c0, c1) = (w0 - 8.0 * span, w1 + 8.0 * span);
    let js_tracks: Vec<serde_json::Value> = visible
        .iter()
        .map(|(ci, name, _)| {
            let iv: Vec<[f64; 2]> = tracks[*ci]
                .1
                .iter()
                .filter(|(a, b)| *b >= c0 && *a <= c1)
                .take(4000)
                .map(|&(a, b)| [a, b])
                .collect();
            serde_json::json!({
                "name": name,
                "color": css(component_color(&tracks[*ci].0, *ci)),
                "intervals": iv,
            })
        })
        .collect();
    let data = serde_json::json!({
        "type": "timeline",
        "tracks": js_tracks,
        "marker": marker.as_ref().map(|m| m.0),
        "window": [w0, w1],
    });
    Ok(Some(Chart {
        svg,
        legend: Vec::new(),
        data: Some(data.to_string()),
    }))
}
