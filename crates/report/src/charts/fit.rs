//! A fit of kernel costs (`latscope fit`): the samples, the fitted lines over them and
//! the residuals, so that a reader sees how well the model the system file receives
//! follows what was measured.

use super::*;

/// A model drawn over the points: straight (`intercept + slope x`, drawn end to end of
/// the axis) or any function of x (drawn through the whole-number x of the axis, the
/// piecewise tick cost being defined on task counts).
pub enum FitLine<'a> {
    Straight { intercept_ns: f64, slope_ns: f64 },
    Steps(&'a dyn Fn(f64) -> f64),
}

/// The fitted lines over the points (`[x, y_ns]`); `lines` are (name, model, colour
/// index). `None` without points.
pub fn fit_lines(
    points: &[[f64; 2]],
    lines: &[(String, FitLine<'_>)],
    x_word: &str,
) -> Result<Option<Chart>, ReportError> {
    let pts: Vec<[f64; 2]> = points
        .iter()
        .copied()
        .filter(|p| p[0].is_finite() && p[1].is_finite())
        .collect();
    if pts.is_empty() {
        return Ok(None);
    }
    let (x0, x1) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p[0]), b.max(p[0]))
        });
    let (x0, x1) = if x1 > x0 {
        (x0, x1)
    } else {
        (x0 - 1.0, x1 + 1.0)
    };
    let x = Axis::plain(x0, x1, x_word, "");
    let at = |l: &FitLine<'_>, v: f64| match l {
        FitLine::Straight {
            intercept_ns,
            slope_ns,
        } => intercept_ns + slope_ns * v,
        FitLine::Steps(f) => f(v),
    };
    // The y range holds the points and the lines at both axis ends.
    let ys = pts.iter().map(|p| p[1]).chain(
        lines
            .iter()
            .flat_map(|(_, l)| [at(l, x.lo), at(l, x.hi)])
            .filter(|v| v.is_finite()),
    );
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let y = Axis::time_linear(y0.min(0.0), y1.max(y0 + 1.0) * 1.05, "cost");
    let svg = draw(
        Frame {
            name: "fit",
            w: 760,
            h: 380,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            chart.draw_series(
                pts.iter()
                    .map(|p| Circle::new((p[0], y.at(p[1])), 3, color(5).mix(0.5).filled())),
            )?;
            for (i, (_, l)) in lines.iter().enumerate() {
                let path: Vec<(f64, f64)> = match l {
                    FitLine::Straight { .. } => vec![x.lo, x.hi],
                    FitLine::Steps(_) => {
                        let (a, b) = (x.lo.ceil(), x.hi.floor());
                        let n = (b - a).clamp(0.0, 2000.0) as usize;
                        (0..=n).map(|k| a + k as f64).collect()
                    }
                }
                .into_iter()
                .map(|v| (v, y.at(at(l, v))))
                .collect();
                chart.draw_series(std::iter::once(PathElement::new(
                    path,
                    line_color(i).stroke_width(2),
                )))?;
            }
            Ok(())
        },
    )?;
    let mut legend = vec![("samples".to_string(), css(color(5)))];
    legend.extend(
        lines
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), css(line_color(i)))),
    );
    Ok(Some(Chart {
        svg,
        legend,
        data: None,
    }))
}

/// Line colours: the least-squares line blue, the safe line red, others after them.
fn line_color(i: usize) -> RGBColor {
    match i {
        0 => color(0),
        1 => ALERT,
        k => color(k + 1),
    }
}

/// Residuals (`[x, y_ns - model(x)]`) against x, with the zero line.
pub fn residuals(points: &[[f64; 2]], x_word: &str) -> Result<Option<Chart>, ReportError> {
    let pts: Vec<[f64; 2]> = points
        .iter()
        .copied()
        .filter(|p| p[0].is_finite() && p[1].is_finite())
        .collect();
    if pts.is_empty() {
        return Ok(None);
    }
    let (x0, x1, r0, r1) = pts.iter().fold(
        (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ),
        |(a, b, c, d), p| (a.min(p[0]), b.max(p[0]), c.min(p[1]), d.max(p[1])),
    );
    let (x0, x1) = if x1 > x0 {
        (x0, x1)
    } else {
        (x0 - 1.0, x1 + 1.0)
    };
    let lim = r0.abs().max(r1.abs()).max(1.0) * 1.1;
    let x = Axis::plain(x0, x1, x_word, "");
    let y = Axis::time_linear(-lim, lim, "residual, least squares");
    let svg = draw(
        Frame {
            name: "residuals",
            w: 760,
            h: 300,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x.lo, y.at(0.0)), (x.hi, y.at(0.0))],
                INK.stroke_width(1),
            )))?;
            chart.draw_series(
                pts.iter()
                    .map(|p| Circle::new((p[0], y.at(p[1])), 3, color(0).mix(0.6).filled())),
            )?;
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: vec![("sample minus least-squares model".into(), css(color(0)))],
        data: None,
    }))
}
