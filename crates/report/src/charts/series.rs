//! A value against time, reduced to the minimum and maximum of every pixel column.

use super::*;

/// The minimum and the maximum point of each of `cols` equal time columns of
/// `[t_lo, t_hi]`, over every point (points outside are dropped), in column order and, within
/// a column, in time order. Nothing else is ever dropped: each column keeps its extremes, so
/// a single peak among millions of points is drawn at its true height.
pub fn envelope(points: &[Point], t_lo: f64, t_hi: f64, cols: usize) -> Vec<Point> {
    if cols == 0 || t_hi.partial_cmp(&t_lo) != Some(std::cmp::Ordering::Greater) {
        let mut v: Vec<Point> = points.to_vec();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        return v;
    }
    let w = (t_hi - t_lo) / cols as f64;
    let mut lo: Vec<Option<Point>> = vec![None; cols];
    let mut hi: Vec<Option<Point>> = vec![None; cols];
    for &p in points {
        if !(p.0 >= t_lo && p.0 <= t_hi) {
            continue;
        }
        let c = (((p.0 - t_lo) / w) as usize).min(cols - 1);
        // The first of equal extremes (the earliest instance) is kept.
        if lo[c].is_none_or(|q| p.1 < q.1 || (p.1 == q.1 && p.0 < q.0)) {
            lo[c] = Some(p);
        }
        if hi[c].is_none_or(|q| p.1 > q.1 || (p.1 == q.1 && p.0 < q.0)) {
            hi[c] = Some(p);
        }
    }
    let mut out = Vec::with_capacity(2 * cols);
    for (a, b) in lo.into_iter().zip(hi) {
        if let (Some(a), Some(b)) = (a, b) {
            if a == b {
                out.push(a);
            } else if a.0 <= b.0 {
                out.push(a);
                out.push(b);
            } else {
                out.push(b);
                out.push(a);
            }
        }
    }
    out
}

/// The median of each of `cols` time columns that holds points: `(t_mid, median)`.
pub fn column_medians(points: &[Point], t_lo: f64, t_hi: f64, cols: usize) -> Vec<Point> {
    if cols == 0 || t_hi.partial_cmp(&t_lo) != Some(std::cmp::Ordering::Greater) {
        return Vec::new();
    }
    let w = (t_hi - t_lo) / cols as f64;
    let mut bins: Vec<Vec<f64>> = vec![Vec::new(); cols];
    for &p in points {
        if p.0 >= t_lo && p.0 <= t_hi {
            bins[(((p.0 - t_lo) / w) as usize).min(cols - 1)].push(p.1);
        }
    }
    bins.into_iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .map(|(i, mut b)| {
            b.sort_by(f64::total_cmp);
            (t_lo + (i as f64 + 0.5) * w, b[b.len() / 2])
        })
        .collect()
}

/// Keeps at most about `2 * n` points: the minimum and maximum of each of `n` time slices
/// of the data's own range (see [`envelope`]).
pub fn thin(points: &[Point], n: usize) -> Vec<Point> {
    if points.len() <= 2 * n || n == 0 {
        return points.to_vec();
    }
    let t0 = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let t1 = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    envelope(points, t0, t1, n)
}

/// What the values of a series are.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueUnit {
    /// Durations in ns.
    Time,
    /// Numbers in this unit ("%", "" for a plain count).
    Other(String),
}

/// One line of a time-series chart.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub points: Vec<Point>,
}

/// Options of a time-series chart.
#[derive(Debug, Clone)]
pub struct SeriesOpts {
    /// What the values are ("wake-up latency").
    pub word: String,
    pub unit: ValueUnit,
    /// The instance to circle; default: the first of the largest values.
    pub highlight: Option<Point>,
    /// Instants to mark along the top (overruns), with their legend word.
    pub marks: Vec<f64>,
    pub mark_word: String,
    /// Id of the table whose rows name instants of this series (crosshair link).
    pub link: Option<String>,
    /// The time axis' title, naming where time 0 is ("time from capture start").
    pub origin: String,
}

impl SeriesOpts {
    pub fn new(word: &str, unit: ValueUnit) -> SeriesOpts {
        SeriesOpts {
            word: word.to_string(),
            unit,
            highlight: None,
            marks: Vec::new(),
            mark_word: String::new(),
            link: None,
            origin: "time since start".into(),
        }
    }
}

/// Points embedded for the page script: all of them when few, else the envelope of
/// 3,000 columns (min and max of each).
const EMBED_POINTS: usize = 6000;

fn value_text(unit: &ValueUnit, v: f64) -> String {
    match unit {
        ValueUnit::Time => units::dur(v),
        ValueUnit::Other(u) if u.is_empty() => units::num(v, 4),
        ValueUnit::Other(u) => format!("{} {u}", units::num(v, 4)),
    }
}

/// A value against time, with the worst case (largest value) marked and labelled.
/// `value_is_time`: values are durations (ns); otherwise plain numbers titled `value_word`.
pub fn time_series(
    points: &[Point],
    value_word: &str,
    value_is_time: bool,
    highlight: Option<Point>,
) -> Result<Option<Chart>, ReportError> {
    let mut o = SeriesOpts::new(
        value_word,
        if value_is_time {
            ValueUnit::Time
        } else {
            ValueUnit::Other(String::new())
        },
    );
    o.highlight = highlight;
    series_chart(
        &[Line {
            name: value_word.to_string(),
            points: points.to_vec(),
        }],
        &o,
    )
}

/// Several lines against time (one per CPU, say), each reduced to the min and max of every
/// pixel column over the whole series; the worst case circled and labelled; marks (overruns)
/// as red ticks along the top.
pub fn series_chart(lines: &[Line], o: &SeriesOpts) -> Result<Option<Chart>, ReportError> {
    let all = || lines.iter().flat_map(|l| l.points.iter().copied());
    if all().next().is_none() {
        return Ok(None);
    }
    let t0 = all().map(|p| p.0).fold(f64::INFINITY, f64::min).min(0.0);
    let t1 = all().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let worst = o.highlight.or_else(|| {
        all().fold(None, |best: Option<Point>, p| match best {
            Some(b) if b.1 > p.1 || (b.1 == p.1 && b.0 <= p.0) => Some(b),
            _ => Some(p),
        })
    });
    let vmax = all()
        .map(|p| p.1)
        .chain(worst.map(|w| w.1))
        .fold(f64::NEG_INFINITY, f64::max);
    let vmin = all().map(|p| p.1).fold(f64::INFINITY, f64::min).min(0.0);
    let x = Axis::time_linear(t0, t1.max(t0 + 1.0), &o.origin);
    let top = (vmax * 1.12).max(vmin + 1.0);
    let y = match &o.unit {
        ValueUnit::Time => Axis::time_linear(vmin, top, &o.word),
        ValueUnit::Other(u) => Axis::plain(vmin, top, &o.word, u),
    };
    let mut medians = false;
    let svg = draw(
        Frame {
            name: "series",
            w: 760,
            h: 280,
            x: &x,
            y: &y,
            y_area: 64,
            x_grid: true,
            y_grid: true,
        },
        |chart| {
            let (xp, _) = chart.plotting_area().get_pixel_range();
            let cols = (xp.end - xp.start).max(1) as usize;
            medians = draw_lines(chart, lines, &x, &y, cols)?;
            if !o.marks.is_empty() {
                draw_marks(chart, o, &x, &y, cols)?;
            }
            if let Some(w) = worst {
                draw_worst(chart, o, w, &x, &y)?;
            }
            Ok(())
        },
    )?;
    let data = page_data(lines, o, worst, t0, t1);
    Ok(Some(Chart {
        svg,
        legend: legend(lines, o, medians),
        data: Some(data.to_string()),
    }))
}

/// The plotting context of a chart drawn by [`draw`], and what drawing in it returns.
type Ctx<'b, 'c> = ChartContext<'b, SVGBackend<'c>, Cartesian2d<Scale, Scale>>;
type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// Each line as the envelope of `cols` pixel columns over the x axis' range, with dots when
/// it has few points. A single dense line (several points per column) is drawn as each
/// column's min–max range in a lighter tone with the column's median on top, so that a
/// baseline stays visible under frequent large values; true when such medians were drawn.
fn draw_lines(
    chart: &mut Ctx<'_, '_>,
    lines: &[Line],
    x: &Axis,
    y: &Axis,
    cols: usize,
) -> Result<bool, DrawingAreaErrorKind<std::io::Error>> {
    let (tl, th) = (x.value(x.lo), x.value(x.hi));
    let mut medians = false;
    for (i, l) in lines.iter().enumerate() {
        let c = color(i);
        let env = envelope(&l.points, tl, th, cols);
        let line: Vec<(f64, f64)> = env.iter().map(|&(t, v)| (x.at(t), y.at(v))).collect();
        let dense = l.points.len() > 2 * cols;
        let stroke = if dense && lines.len() == 1 {
            c.mix(0.45)
        } else {
            c.mix(1.0)
        };
        chart.draw_series(LineSeries::new(line.clone(), stroke.stroke_width(1)))?;
        if dense && lines.len() == 1 {
            let med: Vec<(f64, f64)> = column_medians(&l.points, tl, th, cols)
                .iter()
                .map(|&(t, v)| (x.at(t), y.at(v)))
                .collect();
            chart.draw_series(LineSeries::new(med, DEEP.stroke_width(1)))?;
            medians = true;
        }
        if l.points.len() <= 60 {
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
        }
    }
    Ok(medians)
}

/// The marks (overruns) as red ticks along the top, one per pixel column that holds one,
/// and their count: ticks merge where marks share a column, so the chart says how many it
/// marks (the result's overruns).
fn draw_marks(chart: &mut Ctx<'_, '_>, o: &SeriesOpts, x: &Axis, y: &Axis, cols: usize) -> Drawn {
    let (tl, th) = (x.value(x.lo), x.value(x.hi));
    let top_y = y.hi;
    let tick = (y.hi - y.lo) * 0.06;
    let marks = envelope(
        &o.marks.iter().map(|&t| (t, 1.0)).collect::<Vec<_>>(),
        tl,
        th,
        cols,
    );
    chart.draw_series(marks.iter().map(|&(t, _)| {
        PathElement::new(
            vec![(x.at(t), top_y), (x.at(t), top_y - tick)],
            ALERT.stroke_width(2),
        )
    }))?;
    chart.draw_series(std::iter::once(Text::new(
        format!("{} marked: {}", o.marks.len(), o.mark_word),
        (x.hi - (x.hi - x.lo) * 0.01, top_y - tick * 1.3),
        text_style(11.0, &ALERT, HPos::Right, VPos::Top),
    )))?;
    Ok(())
}

/// The worst case circled and labelled (the label to its left in the right part of the
/// chart, so it stays inside).
fn draw_worst(chart: &mut Ctx<'_, '_>, o: &SeriesOpts, worst: Point, x: &Axis, y: &Axis) -> Drawn {
    let (wt, wv) = worst;
    let p = (x.at(wt), y.at(wv));
    chart.draw_series(std::iter::once(Circle::new(p, 6, ALERT.stroke_width(2))))?;
    let label = format!("worst {} at {}", value_text(&o.unit, wv), units::dur(wt));
    let right_half = (p.0 - x.lo) > (x.hi - x.lo) * 0.6;
    let (h, dx) = if right_half {
        (HPos::Right, -(x.hi - x.lo) * 0.012)
    } else {
        (HPos::Left, (x.hi - x.lo) * 0.012)
    };
    chart.draw_series(std::iter::once(Text::new(
        label,
        (p.0 + dx, p.1),
        text_style(12.0, &ALERT, h, VPos::Bottom),
    )))?;
    Ok(())
}

/// The points the page script reads (each line exact when small, else its envelope of
/// `EMBED_POINTS / 2` columns over `[t0, t1]`), the worst case, the marks and the link.
fn page_data(
    lines: &[Line],
    o: &SeriesOpts,
    worst: Option<Point>,
    t0: f64,
    t1: f64,
) -> serde_json::Value {
    let sets: Vec<serde_json::Value> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let pts = if l.points.len() <= EMBED_POINTS {
                let mut v = l.points.clone();
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
                v
            } else {
                envelope(&l.points, t0, t1, EMBED_POINTS / 2)
            };
            serde_json::json!({
                "name": l.name,
                "color": css(color(i)),
                "exact": l.points.len() <= EMBED_POINTS,
                "column_ns": if l.points.len() <= EMBED_POINTS { 0.0 } else { (t1 - t0) / (EMBED_POINTS / 2) as f64 },
                "points": pts.iter().map(|&(t, v)| [t, v]).collect::<Vec<_>>(),
            })
        })
        .collect();
    let marks: Vec<f64> = o.marks.iter().take(EMBED_POINTS).copied().collect();
    let unit = match &o.unit {
        ValueUnit::Time => "ns".to_string(),
        ValueUnit::Other(u) => u.clone(),
    };
    serde_json::json!({
        "type": "series",
        "unit": unit,
        "sets": sets,
        "worst": worst.map(|w| [w.0, w.1]),
        "marks": marks,
        "link": o.link,
    })
}

/// The legend: each line (its range and median when drawn so), the marks, the worst case.
fn legend(lines: &[Line], o: &SeriesOpts, medians: bool) -> Vec<(String, String)> {
    let mut legend: Vec<(String, String)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.clone(), css(color(i))))
        .collect();
    if medians {
        legend[0].0 = format!("{}: minimum to maximum of each pixel column", legend[0].0);
        legend.push(("median of each pixel column".into(), css(DEEP)));
    }
    if !o.marks.is_empty() {
        legend.push((o.mark_word.clone(), css(ALERT)));
    }
    legend.push(("worst case".into(), css(ALERT)));
    legend
}
