//! Schedulability ratio against total utilisation, one line per configuration (the
//! standard figure of a design-space sweep).

use super::*;

/// One configuration's curve: (total utilisation, fraction of sets schedulable), both as
/// fractions (0.8, 0.25); drawn in percent.
pub struct RatioCurve {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The chart, or `None` without points.
pub fn schedulability(curves: &[RatioCurve]) -> Result<Option<Chart>, ReportError> {
    let xs = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.0 * 100.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() {
        return Ok(None);
    }
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 5.0, hi + 5.0)
    };
    let x = Axis::plain(lo, hi, "total utilisation", "%");
    let y = Axis::plain(0.0, 100.0, "schedulable sets", "%");
    let svg = draw(
        Frame {
            name: "schedulability",
            w: 760,
            h: 340,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, c) in curves.iter().enumerate() {
                let col = color(i);
                let p: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .map(|&(u, r)| (x.at(u * 100.0), y.at(r * 100.0)))
                    .collect();
                chart.draw_series(LineSeries::new(p.clone(), col.stroke_width(2)))?;
                chart.draw_series(p.iter().map(|&q| Circle::new(q, 3, col.filled())))?;
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: legend(curves.iter().map(|c| c.name.as_str())),
        data: None,
    }))
}
