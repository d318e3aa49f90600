//! Wake-up latency against sleep length.

use super::*;

/// Latency against sleep length: min, p50, p99, max per interval, both axes log when wide.
pub fn sweep(points: &[SweepPoint]) -> Result<Option<Chart>, ReportError> {
    let rows: Vec<&SweepPoint> = points.iter().filter(|p| p.interval_ns > 0.0).collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let stats = ["min", "p50", "p99", "max"];
    let lines: Vec<(&str, Vec<(f64, f64)>)> = stats
        .iter()
        .map(|n| {
            (
                *n,
                rows.iter()
                    .filter_map(|p| p.stats.stat(n).map(|v| (p.interval_ns, v)))
                    .filter(|(_, v)| *v > 0.0)
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    let ilo = rows.first().map(|p| p.interval_ns).unwrap_or(1.0);
    let ihi = rows.last().map(|p| p.interval_ns).unwrap_or(1.0);
    let vals = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1));
    let (vlo, vhi) = vals.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let x = if ihi / ilo > 5.0 {
        Axis::time_log(ilo, ihi, "sleep length")
    } else {
        Axis::time_linear(0.0, ihi * 1.05, "sleep length")
    };
    let y = Axis::time_auto(vlo, vhi.max(vlo * 1.01), "wake-up latency", 20.0);
    let svg = draw(
        Frame {
            name: "sweep",
            w: 760,
            h: 320,
            x: &x,
            y: &y,
            y_area: 72,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            for (i, (_, pts)) in lines.iter().enumerate() {
                let c = color(i);
                let p: Vec<(f64, f64)> = pts.iter().map(|&(a, b)| (x.at(a), y.at(b))).collect();
                chart.draw_series(LineSeries::new(p.clone(), c.stroke_width(2)))?;
                chart.draw_series(p.iter().map(|&q| Circle::new(q, 3, c.filled())))?;
            }
            Ok(())
        },
    )?;
    Ok(Some(Chart {
        svg,
        legend: legend(lines.iter().map(|l| l.0)),
        data: None,
    }))
}
