//! Deviation of each prediction from its published figure.

use super::*;

/// One row of a published-vs-latscope comparison.
#[derive(Debug, Clone)]
pub struct Deviation {
    pub label: String,
    /// (latscope − published) / published.
    pub deviation: f64,
    pub tolerance: Option<f64>,
    pub within: Option<bool>,
}

/// Deviation of each prediction from its published figure, with its tolerance band.
pub fn deviations(rows: &[Deviation]) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&Deviation> = rows.iter().filter(|r| r.deviation.is_finite()).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let lim = rows
        .iter()
        .map(|r| r.deviation.abs().max(r.tolerance.unwrap_or(0.0)))
        .fold(0.05, f64::max)
        * 100.0
        * 1.15;
    let (_, _, probe) = nice_ticks(-lim, lim, 6);
    let step = step_of(&probe);
    let mut x = Axis::linear(-lim, lim, "latscope against published (%)", move |v| {
        format!("{}{} %", if v > 0.0 { "+" } else { "" }, fixed(v, step))
    });
    x.kind = AxisKind::Plain("%".into());
    let n = rows.len();
    let labels = short_labels(rows.iter().map(|r| r.label.as_str()), 40);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let y = category_axis(&labels);
    let h = (70 + 30 * n as u32).clamp(130, 900);
    let svg = draw(
        Frame {
            name: "deviation",
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 300),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            for (ri, r) in rows.iter().enumerate() {
                let yc = (n - 1 - ri) as f64 + 0.5;
                if let Some(t) = r.tolerance {
                    let t = t * 100.0;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(-t, yc - 0.32), (t, yc + 0.32)],
                        OK.mix(0.14).filled(),
                    )))?;
                }
                let ok = r
                    .within
                    .unwrap_or_else(|| r.tolerance.map(|t| r.deviation.abs() <= t).unwrap_or(true));
                let c = if ok { OK } else { ALERT };
                let d = (r.deviation * 100.0).clamp(x.lo, x.hi);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(0.0, yc), (d, yc)],
                    c.stroke_width(2),
                )))?;
                chart.draw_series(std::iter::once(Circle::new((d, yc), 5, c.filled())))?;
            }
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 0.0), (0.0, n as f64)],
                INK.stroke_width(1),
            )))?;
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: vec![
            ("within tolerance".into(), css(OK)),
            ("outside tolerance".into(), css(ALERT)),
        ],
        data: None,
    }))
}
