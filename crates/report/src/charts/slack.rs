//! Slack per task against its deadline: each task's worst-case response time as a bar
//! and its deadline as a dark tick on the same time axis, so that the margin (or the
//! miss) is read off one line per task instead of computed from a table.

use super::*;

/// One tick accounting mode's response of a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// The worst-case response time, in ns.
    Bounded(f64),
    /// The analysis stopped past this bound (ns) without `--exact-unbounded`: the WCRT
    /// exceeds it.
    Past(f64),
    /// No bound at all (the fixed point diverges).
    Unbounded,
}

/// One task: its name, deadline and the response in each mode the result has.
#[derive(Debug, Clone)]
pub struct SlackRow {
    pub label: String,
    pub deadline_ns: f64,
    /// One response per mode, in the order of the chart's `modes`.
    pub responses: Vec<Response>,
}

/// The chart: one row per task, one bar per mode (in `modes` order, top to bottom within
/// the row), the deadline as a dark tick across the row. A bar past its deadline is red;
/// an unbounded response runs to the axis end and says "unbounded" (or "unbounded past
/// D" when the analysis stopped at D). `None` without rows.
pub fn slack(rows: &[SlackRow], modes: &[String]) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&SlackRow> = rows
        .iter()
        .filter(|r| r.deadline_ns.is_finite() && r.deadline_ns > 0.0)
        .collect();
    if rows.is_empty() || modes.is_empty() {
        return Ok(None);
    }
    let ends = rows.iter().flat_map(|r| {
        r.responses
            .iter()
            .filter_map(|x| match x {
                Response::Bounded(v) | Response::Past(v) => Some(*v),
                Response::Unbounded => None,
            })
            .chain([r.deadline_ns])
    });
    let (lo, hi) = ends
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return Ok(None);
    }
    // Deadlines often lie decades beyond the shortest response: a log axis then keeps
    // every bar and every tick visible; the bars start at the axis' left end.
    let x = Axis::time_auto(lo * 0.5, hi * 1.12, "worst-case response time", 30.0);
    let n = rows.len();
    let labels = short_labels(rows.iter().map(|r| r.label.as_str()), 24);
    let y = category_axis(&labels);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4);
    let m = modes.len() as f64;
    let h = (60 + (22 + 14 * modes.len() as u32) * n as u32).clamp(140, 1200);
    let svg = draw(
        Frame {
            name: "slack",
            w: 760,
            h,
            x: &x,
            y: &y,
            y_area: (longest as u32 * 7 + 16).clamp(40, 180),
            x_grid: true,
            y_grid: false,
        },
        |chart| {
            let span = x.hi - x.lo;
            for (ri, r) in rows.iter().enumerate() {
                // Row 0 at the top; mode 0 the upper bar of its row.
                let yc = (n - 1 - ri) as f64;
                let band = 0.7 / m;
                let dl = x.at(r.deadline_ns);
                for (mi, resp) in r.responses.iter().enumerate().take(modes.len()) {
                    let y1 = yc + 0.85 - band * mi as f64;
                    let y0 = y1 - band * 0.86;
                    let (end, late, note) = match resp {
                        Response::Bounded(v) => {
                            let s = r.deadline_ns - v;
                            let note = if s >= 0.0 {
                                format!("slack {}", units::dur(s))
                            } else {
                                format!("misses by {}", units::dur(-s))
                            };
                            (x.clamp(x.at(*v)), s < 0.0, note)
                        }
                        Response::Past(v) => (
                            x.clamp(x.at(*v)),
                            true,
                            format!("unbounded past {}", units::dur(*v)),
                        ),
                        Response::Unbounded => (x.hi, true, "unbounded".to_string()),
                    };
                    let col = if late { ALERT } else { color(mi) };
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x.lo, y0), (end, y1)],
                        col.filled(),
                    )))?;
                    if !matches!(resp, Response::Bounded(_)) {
                        // The open end: the response goes on past what is drawn.
                        let ym = (y0 + y1) / 2.0;
                        let tip = (end + span * 0.012).min(x.hi + span * 0.012);
                        chart.draw_series(std::iter::once(PathElement::new(
                            vec![(end, y1), (tip, ym), (end, y0)],
                            ALERT.stroke_width(2),
                        )))?;
                    }
                    // The note after the bar, or after the deadline tick when that is
                    // further right and close.
                    let mut at = end;
                    if dl >= end && dl - end < span * 0.12 {
                        at = dl;
                    }
                    chart.draw_series(std::iter::once(Text::new(
                        note,
                        (at + span * 0.02, (y0 + y1) / 2.0),
                        text_style(10.5, &MUTED, HPos::Left, VPos::Center),
                    )))?;
                }
                if dl <= x.hi {
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(dl, yc + 0.06), (dl, yc + 0.94)],
                        INK.stroke_width(3),
                    )))?;
                }
            }
            Ok(())
        },
    )?;
    let mut legend = legend(modes.iter().map(String::as_str));
    legend.push(("past the deadline".into(), css(ALERT)));
    legend.push(("deadline".into(), css(INK)));
    Ok(Some(Chart {
        svg,
        legend,
        data: None,
    }))
}
