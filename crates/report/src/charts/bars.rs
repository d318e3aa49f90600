//! Horizontal stacked bars (response-time breakdown, CPU split).

use super::*;

/// One horizontal stacked bar: a label, a value per component, an optional marker
/// (a deadline, drawn as a dark tick) and a note printed after the bar.
#[derive(Debug, Clone)]
pub struct BarRow {
    pub label: String,
    pub values: Vec<f64>,
    pub marker: Option<f64>,
    pub note: String,
}

/// What the bar values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarScale {
    /// Nanoseconds.
    Time,
    /// Fractions of 1, shown as percent from 0 to 100 %.
    Fraction,
}

/// Horizontal stacked bars (response-time breakdown, utilisation split).
pub fn stacked_bars(
    name: &'static str,
    rows: &[BarRow],
    components: &[String],
    scale: BarScale,
    word: &str,
) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&BarRow> = rows
        .iter()
        .filter(|r| r.values.iter().any(|v| *v > 0.0))
        .collect();
    if rows.is_empty() || components.is_empty() {
        return Ok(None);
    }
    let total = |r: &BarRow| r.values.iter().filter(|v| **v > 0.0).sum::<f64>();
    let rmax = rows.iter().map(|r| total(r)).fold(0.0, f64::max);
    let dmax = rows
        .iter()
        .map(|r| r.marker.unwrap_or(0.0))
        .fold(0.0, f64::max);
    // Deadlines far beyond every bar would squash the bars: cut the axis and name them instead.
    let vmax = if dmax > 1.6 * rmax {
        rmax * 1.25
    } else {
        rmax.max(dmax)
    };
    let x = match scale {
        BarScale::Time => Axis::time_linear(0.0, vmax * 1.08, word),
        BarScale::Fraction => {
            let hi = if vmax <= 1.0 + 1e-9 { 1.0 } else { vmax };
            let mut a = Axis::linear(0.0, hi * 100.0, &format!("{word} (%)"), |v| {
                format!("{} %", units::num(v, 3))
            });
            a.scale = 0.01;
            a.kind = AxisKind::Plain("%".into());
            a
        }
    };
    let n = rows.len();
    let labels = short_labels(rows.iter().map(|r| r.label.as_str()), 24);
    let y = category_axis(&labels);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let h = (60 + 34 * n as u32).clamp(120, 900);
    let svg = draw(
        Frame {
            name,
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 180),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            for (ri, r) in rows.iter().enumerate() {
                // Row 0 at the top.
                let yc = (n - 1 - ri) as f64;
                let (y0, y1) = (yc + 0.2, yc + 0.8);
                let mut acc = 0.0;
                for (ci, v) in r.values.iter().enumerate() {
                    if *v <= 0.0 {
                        continue;
                    }
                    let a = x.at(acc);
                    acc += v;
                    let b = x.at(acc);
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(a, y0), (b, y1)],
                        component_color(&components[ci], ci).filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(a, y0), (b, y1)],
                        WHITE.stroke_width(1),
                    )))?;
                }
                let mut note = r.note.clone();
                if let Some(m) = r.marker {
                    let mx = x.at(m);
                    if mx <= x.hi {
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(mx, yc + 0.08), (mx, yc + 0.92)],
                            INK.stroke_width(2),
                        )))?;
                    } else if scale == BarScale::Time {
                        note = format!("{note} · deadline {} ▸", units::dur(m));
                    }
                }
                if !note.is_empty() {
                    // Write past the deadline tick when it sits just after the bar.
                    let mut end = x.clamp(x.at(acc));
                    if let Some(m) = r.marker.map(|m| x.at(m)) {
                        if m <= x.hi && m >= end && m - end < (x.hi - x.lo) * 0.1 {
                            end = m;
                        }
                    }
                    chart.draw_series(std::iter::once(Text::new(
                        note,
                        (end + (x.hi - x.lo) * 0.008, yc + 0.5),
                        text_style(11.0, &MUTED, HPos::Left, VPos::Center),
                    )))?;
                }
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: components
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), css(component_color(c, i))))
            .collect(),
        data: None,
    }))
}
