//! The section of a `latscope fit` result, read from its typed document: what the
//! system file receives (the safe model) and how well it follows the samples, then the
//! fitted lines over the samples and the residuals.

use super::{Builder, Cell, Table};
use crate::charts::{self, FitLine};
use crate::data::Tone;
use crate::units::{dur, int, num as fnum};
use crate::ReportError;
use latscope_results::fit::FitResult;
use latscope_results::Labelled;

/// What x counts for each target.
fn x_word(target: &str) -> &'static str {
    match target {
        "tick" => "tasks released by the tick",
        "switch" => "priority levels scanned",
        "insert" => "ready-list position",
        _ => "x",
    }
}

/// The one-line answer: the model written and its worst distance to the samples.
pub(super) fn headline(d: &FitResult) -> (String, Tone) {
    let r = &d.result;
    let fitted = match (r.model, &r.piecewise) {
        ("piecewise", Some(p)) => format!(
            "safe piecewise tick: base {}, first {}, per task {}, last {}",
            dur(p.safe.base_ns),
            dur(p.safe.first_ns),
            dur(p.safe.per_ns),
            dur(p.safe.last_ns)
        ),
        ("constant", _) => format!("safe constant {}", dur(r.upper_bound.intercept_ns)),
        _ => format!(
            "safe line {} + {} per {}",
            dur(r.upper_bound.intercept_ns),
            dur(r.upper_bound.slope_ns),
            x_word(&d.target)
        ),
    };
    (
        format!(
            "{fitted}; least squares R² {} over {} samples",
            fnum(r.r2, 4),
            int(r.samples as f64)
        ),
        Tone::Neutral,
    )
}

pub(super) fn fit(b: &mut Builder, d: &Labelled<FitResult>, level: u8) -> Result<(), ReportError> {
    let r = &d.result.result;
    // The first screen holds the verdict (Verdict::fit); this line adds the model's
    // parts (a piecewise tick's four figures) that the verdict abbreviates.
    let (line, _) = headline(d);
    b.note(line);
    b.facts(vec![
        ("source".into(), d.source.clone()),
        ("target".into(), d.target.clone()),
        ("model".into(), r.model.to_string()),
        ("samples".into(), int(r.samples as f64)),
        (
            "worst sample".into(),
            format!(
                "{} at x = {} (row {})",
                dur(r.worst_sample.y_ns),
                fnum(r.worst_sample.x, 4),
                r.worst_sample.row
            ),
        ),
    ]);
    b.table(Table {
        headers: ["line", "intercept", "slope", "fit"]
            .map(String::from)
            .to_vec(),
        rows: vec![
            vec![
                Cell::t("least squares").bold(),
                Cell::n(dur(r.least_squares.intercept_ns)),
                Cell::n(dur(r.least_squares.slope_ns)),
                Cell::n(format!(
                    "R² {}, residuals {} … {}, rms {}",
                    fnum(r.r2, 4),
                    dur(r.min_residual_ns),
                    dur(r.max_residual_ns),
                    dur(r.rms_residual_ns)
                )),
            ],
            vec![
                Cell::t("safe (above every sample)").bold(),
                Cell::n(dur(r.upper_bound.intercept_ns)),
                Cell::n(dur(r.upper_bound.slope_ns)),
                Cell::n(format!(
                    "mean gap {}, largest excess over the envelope {}",
                    dur(r.upper_mean_gap_ns),
                    dur(r.upper_max_excess_ns)
                )),
            ],
        ],
    });
    let Some(points) = r.points.as_deref() else {
        b.note(
            "This fit result carries no samples (written before `points` existed): run \
             latscope fit again to draw the lines over them.",
        );
        return Ok(());
    };
    if points.len() < r.samples {
        b.note(format!(
            "The charts show {} of the {} samples (every k-th one and the worst).",
            int(points.len() as f64),
            int(r.samples as f64)
        ));
    }
    let word = x_word(&d.target);
    let mut lines = vec![
        (
            "least squares".to_string(),
            FitLine::Straight {
                intercept_ns: r.least_squares.intercept_ns,
                slope_ns: r.least_squares.slope_ns,
            },
        ),
        (
            "safe line".to_string(),
            FitLine::Straight {
                intercept_ns: r.upper_bound.intercept_ns,
                slope_ns: r.upper_bound.slope_ns,
            },
        ),
    ];
    let piecewise = r.piecewise.as_ref().filter(|_| r.model == "piecewise");
    let safe_tick = piecewise.map(|p| p.safe);
    let safe_at = move |x: f64| safe_tick.map_or(f64::NAN, |m| m.at(x));
    if safe_tick.is_some() {
        lines.push((
            "safe piecewise tick (written)".to_string(),
            FitLine::Steps(&safe_at),
        ));
    }
    b.heading(level + 1, "Fitted lines", None);
    b.figure(
        "Fitted lines over the samples",
        "Each sample (dot), the least-squares line and the safe line (above every sample) across the whole axis; the model the system file receives is the safe one.",
        || charts::fit_lines(points, &lines, word),
    )?;
    // Residuals against the least-squares model of the fit's kind.
    let ls_tick = piecewise.map(|p| p.least_squares);
    let ls = |x: f64| match ls_tick {
        Some(m) => m.at(x),
        None => r.least_squares.intercept_ns + r.least_squares.slope_ns * x,
    };
    let res: Vec<[f64; 2]> = points.iter().map(|p| [p[0], p[1] - ls(p[0])]).collect();
    b.figure(
        "Residuals",
        "Each sample minus the least-squares model at its x: above zero, the model under-estimates.",
        || charts::residuals(&res, word),
    )
}
