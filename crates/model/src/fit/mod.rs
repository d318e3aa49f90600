//! Calibration: fitting an overhead model to measurements.
//!
//! For every model two fits are reported:
//! * least squares (with R² and residual statistics), which follows the bulk of the
//!   samples and lies below about half of them;
//! * the *safe* model, which lies on or above every sample and, among such models,
//!   minimises the largest excess over the per-x envelope (the largest y measured at each
//!   distinct x), with the excess at each x reported ([`line`], [`piecewise`]). Analysis
//!   should use the safe model.
//!
//! Models by target: the tick is piecewise (`tick_base`, `tick_first_release`,
//! `tick_per_release`, `tick_last_release`; [`piecewise`]) when the samples determine it,
//! else a straight line; the generic switch and the list-scan insertion are straight
//! lines; the port-optimised switch is a constant.
//!
//! Rooms: [`line`] (straight-line fits and the envelope), [`piecewise`] (the tick
//! model), [`values`] (counts and durations as written), [`csv`] and [`trace`] (the two
//! input formats), [`update`] (writing fitted costs into a system and its file).

pub mod csv;
pub mod line;
pub mod piecewise;
pub mod trace;
pub mod update;
pub mod values;

pub use self::csv::{csv_text, samples_from_csv, CsvError, XColumn};
pub use line::{envelope, EnvelopePoint, Line};
pub use piecewise::{TickFits, TickModel};
pub use trace::{parse_trace_spec, sample_from_trace_json, samples_from_traces, TraceInputError};
pub use update::{apply, update_toml_text, ApplyError, EditError, Fitted, Target};
pub use values::{parse_count, parse_sample_duration, CountError, SampleDurationError, MAX_COUNT};

use crate::overheads::tick::levels_scanned;
use serde::Serialize;

/// One sample as read (row is 1-based in the input, for messages).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Sample {
    pub x: f64,
    pub y_ns: f64,
    pub row: usize,
}

/// Levels scanned from a (from-priority, to-priority) pair, for [`Target::Switch`].
pub fn switch_levels(from: u32, to: u32) -> f64 {
    levels_scanned(from, to) as f64
}

/// The safe (or least-squares) model at one distinct x against the envelope there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ExcessAt {
    pub x: f64,
    pub samples: usize,
    /// The largest y measured at this x.
    pub max_ns: f64,
    pub safe_ns: f64,
    /// `safe_ns - max_ns` (never negative).
    pub excess_ns: f64,
    pub least_squares_ns: f64,
}

/// Residual statistics of a least-squares model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Residuals {
    pub r2: f64,
    pub max_residual_ns: f64,
    pub min_residual_ns: f64,
    pub rms_residual_ns: f64,
}

/// The piecewise tick fit, when the samples determine it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct PiecewiseReport {
    pub least_squares: TickModel,
    pub safe: TickModel,
    #[serde(flatten)]
    pub residuals: Residuals,
    /// The safe model's largest excess over the envelope.
    pub max_excess_ns: f64,
}

latscope_core::words!(fn fit_model_word = ["line", "piecewise", "constant"]);
latscope_core::words!(fn fit_kind_word = ["fit"]);

/// The `fit --json` document: the fit with what was fitted (docs/fit.schema.json is
/// generated from it).
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct FitDocument {
    #[serde(deserialize_with = "fit_kind_word")]
    #[schemars(extend("const" = "fit"))]
    pub kind: latscope_core::words::Word,
    pub schema_version: u32,
    /// The samples' file(s).
    pub source: String,
    /// `tick`, `switch`, `insert` or `switch-optimised`.
    pub target: String,
    #[serde(flatten)]
    pub result: FitResult,
}

impl FitDocument {
    pub fn new(result: FitResult, source: String, target: Target) -> FitDocument {
        FitDocument {
            kind: "fit",
            schema_version: 1,
            source,
            target: target.name().to_string(),
            result,
        }
    }

    /// Reads a `fit --json` result back.
    pub fn from_json(text: &str) -> Result<FitDocument, serde_json::Error> {
        serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
    }
}

/// Everything `latscope fit` reports. The straight-line keys are always present (for the
/// port-optimised switch the "lines" are flat: the mean and the maximum).
#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct FitResult {
    pub samples: usize,
    /// `line`, `piecewise` (tick) or `constant` (port-optimised switch): the model whose
    /// safe fit `--write` stores.
    #[serde(deserialize_with = "fit_model_word")]
    pub model: latscope_core::words::Word,
    pub least_squares: Line,
    /// Coefficient of determination of the least-squares line (1 when every y is equal
    /// and the line fits exactly).
    pub r2: f64,
    /// The safe straight line: above every sample, slope at least 0 (a cost), smallest
    /// largest excess over the per-x envelope.
    pub upper_bound: Line,
    /// Largest sample above the least-squares line (the worst under-estimate).
    pub max_residual_ns: f64,
    pub min_residual_ns: f64,
    pub rms_residual_ns: f64,
    /// Mean distance of the safe line above the samples.
    pub upper_mean_gap_ns: f64,
    /// The safe line's largest excess over the envelope.
    pub upper_max_excess_ns: f64,
    /// The sample with the largest y (the first row where it occurs).
    pub worst_sample: Sample,
    /// The piecewise tick fit (target tick, when determined).
    pub piecewise: Option<PiecewiseReport>,
    /// The written (safe) model against the envelope at each distinct x.
    pub excess: Vec<ExcessAt>,
    /// Least-squares residual of each sample of the written model, in input order; only
    /// when asked for (`--residuals`), else null.
    pub residuals_ns: Option<Vec<f64>>,
    /// The samples fitted, `[x, y_ns]` in input order, so that a report can draw the
    /// lines over them: all of them up to [`POINTS_CAP`], else every k-th one (evenly
    /// spread, the first included) plus the worst sample. Absent in results written
    /// before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<[f64; 2]>>,
}

/// The most samples a fit result carries in `points` (a report draws them; more would
/// only make the file large).
pub const POINTS_CAP: usize = 10_000;

/// The samples as `points`: all of them up to `cap`, else every k-th one (k the smallest
/// step that keeps at most `cap - 1`) and the worst sample, in input order.
pub fn points_of(samples: &[Sample], worst: &Sample, cap: usize) -> Vec<[f64; 2]> {
    let cap = cap.max(2);
    if samples.len() <= cap {
        return samples.iter().map(|s| [s.x, s.y_ns]).collect();
    }
    let k = samples.len().div_ceil(cap - 1);
    let mut out: Vec<[f64; 2]> = Vec::with_capacity(cap);
    let mut worst_in = false;
    for (i, s) in samples.iter().enumerate() {
        let is_worst = s.row == worst.row && s.x == worst.x && s.y_ns == worst.y_ns;
        if i % k == 0 || (is_worst && !worst_in) {
            worst_in |= is_worst;
            out.push([s.x, s.y_ns]);
        }
    }
    out
}

impl FitResult {
    /// The safe model of the fit's kind (what `--write` stores).
    pub fn safe_model(&self) -> Fitted {
        match (self.model, &self.piecewise) {
            ("piecewise", Some(p)) => Fitted::Tick(p.safe),
            ("constant", _) => Fitted::Constant(self.upper_bound.intercept_ns),
            _ => Fitted::Line(self.upper_bound),
        }
    }
    /// The least-squares model of the fit's kind.
    pub fn least_squares_model(&self) -> Fitted {
        match (self.model, &self.piecewise) {
            ("piecewise", Some(p)) => Fitted::Tick(p.least_squares),
            ("constant", _) => Fitted::Constant(self.least_squares.intercept_ns),
            _ => Fitted::Line(self.least_squares),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FitError {
    #[error("no samples to fit")]
    Empty,
    #[error("line {0}: x or y is not a finite number")]
    NotFinite(usize),
    #[error(
        "every sample ({n}) has x = {x}: a line needs samples at two or more distinct x values \
         (e.g. a tick with 0 and with several tasks released)"
    )]
    OneX { x: f64, n: usize },
    #[error("the values are too large to fit a line to in floating point (result not finite)")]
    Overflow,
}

/// Fits straight lines (compatibility entry: [`fit_target`] with a line target and the
/// residuals).
pub fn fit(samples: &[Sample]) -> Result<FitResult, FitError> {
    fit_target(samples, Target::Insert, true)
}

fn residual_stats(samples: &[Sample], model: impl Fn(f64) -> f64) -> (Residuals, Vec<f64>) {
    let n = samples.len() as f64;
    let my = samples.iter().map(|s| s.y_ns).sum::<f64>() / n;
    let syy: f64 = samples.iter().map(|s| (s.y_ns - my).powi(2)).sum();
    let res: Vec<f64> = samples.iter().map(|s| s.y_ns - model(s.x)).collect();
    let ss: f64 = res.iter().map(|r| r * r).sum();
    (
        Residuals {
            r2: if syy > 0.0 { 1.0 - ss / syy } else { 1.0 },
            max_residual_ns: res.iter().cloned().fold(f64::MIN, f64::max),
            min_residual_ns: res.iter().cloned().fold(f64::MAX, f64::min),
            rms_residual_ns: (ss / n).sqrt(),
        },
        res,
    )
}

/// Fits the target's model (see the module documentation). The straight line needs at
/// least two distinct x values (with one the slope is undetermined, and 0 would be a
/// guess); the port-optimised switch (a constant) needs only samples.
pub fn fit_target(
    samples: &[Sample],
    target: Target,
    keep_residuals: bool,
) -> Result<FitResult, FitError> {
    if samples.is_empty() {
        return Err(FitError::Empty);
    }
    if let Some(s) = samples
        .iter()
        .find(|s| !s.x.is_finite() || !s.y_ns.is_finite())
    {
        return Err(FitError::NotFinite(s.row));
    }
    // The first row with the largest y.
    let worst = samples
        .iter()
        .fold(samples[0], |w, s| if s.y_ns > w.y_ns { *s } else { w });
    let n = samples.len() as f64;
    let env = envelope(samples);
    let constant = target.is_constant();
    let (ls, upper) = if constant {
        let mean = samples.iter().map(|s| s.y_ns).sum::<f64>() / n;
        (flat(mean), flat(worst.y_ns))
    } else {
        lines(samples, &env)?
    };
    let (line_res, line_residuals) = residual_stats(samples, |x| ls.at(x));
    let piecewise = if target == Target::Tick {
        piecewise_report(samples, &env)
    } else {
        None
    };
    let model = match (&piecewise, constant) {
        (Some(_), _) => "piecewise",
        (None, true) => "constant",
        _ => "line",
    };
    let excess = excess_table(&env, piecewise.as_ref(), upper, ls);
    let residuals_ns = keep_residuals.then(|| match &piecewise {
        Some(p) => samples
            .iter()
            .map(|s| s.y_ns - p.least_squares.at(s.x))
            .collect(),
        None => line_residuals,
    });
    let r = FitResult {
        samples: samples.len(),
        model,
        least_squares: ls,
        r2: line_res.r2,
        upper_bound: upper,
        max_residual_ns: line_res.max_residual_ns,
        min_residual_ns: line_res.min_residual_ns,
        rms_residual_ns: line_res.rms_residual_ns,
        upper_mean_gap_ns: samples.iter().map(|s| upper.at(s.x) - s.y_ns).sum::<f64>() / n,
        upper_max_excess_ns: env
            .iter()
            .map(|e| upper.at(e.x) - e.max_ns)
            .fold(0.0, f64::max),
        worst_sample: worst,
        piecewise,
        excess,
        residuals_ns,
        points: Some(points_of(samples, &worst, POINTS_CAP)),
    };
    if all_finite(&r) {
        Ok(r)
    } else {
        Err(FitError::Overflow)
    }
}

/// A line of slope 0 at `v`.
fn flat(v: f64) -> Line {
    Line {
        intercept_ns: v,
        slope_ns: 0.0,
    }
}

/// The least-squares line and the safe line above the envelope; two distinct x values
/// needed.
fn lines(samples: &[Sample], env: &[EnvelopePoint]) -> Result<(Line, Line), FitError> {
    if env.len() < 2 {
        return Err(FitError::OneX {
            x: samples[0].x,
            n: samples.len(),
        });
    }
    let pts: Vec<(f64, f64)> = env.iter().map(|e| (e.x, e.max_ns)).collect();
    Ok((
        line::least_squares(samples).ok_or(FitError::Overflow)?,
        // Every fitted slope is a cost per level, release or position: never negative.
        // Samples whose envelope falls with x (a switch series mixing blocking calls
        // whose tails before the switch differ) get the flat line above them, still
        // safe, rather than a negative cost `--write` must refuse.
        line::safe_line(&pts, &[], 0.0).ok_or(FitError::Overflow)?,
    ))
}

/// The tick's piecewise model, where the samples support one, with its residuals and
/// its largest excess over the envelope.
fn piecewise_report(samples: &[Sample], env: &[EnvelopePoint]) -> Option<PiecewiseReport> {
    piecewise::fit_tick(samples, env).map(|f| {
        let (residuals, _) = residual_stats(samples, |x| f.least_squares.at(x));
        PiecewiseReport {
            least_squares: f.least_squares,
            safe: f.safe,
            residuals,
            max_excess_ns: env
                .iter()
                .map(|e| f.safe.at(e.x) - e.max_ns)
                .fold(0.0, f64::max),
        }
    })
}

/// Per envelope point: the safe and least-squares model's values there (the piecewise
/// model's where there is one, else the lines') and the safe model's excess.
fn excess_table(
    env: &[EnvelopePoint],
    piecewise: Option<&PiecewiseReport>,
    upper: Line,
    ls: Line,
) -> Vec<ExcessAt> {
    type Model = Box<dyn Fn(f64) -> f64>;
    let (safe_at, ls_at): (Model, Model) = match piecewise {
        Some(p) => {
            let (s, l) = (p.safe, p.least_squares);
            (Box::new(move |x| s.at(x)), Box::new(move |x| l.at(x)))
        }
        None => (Box::new(move |x| upper.at(x)), Box::new(move |x| ls.at(x))),
    };
    env.iter()
        .map(|e| ExcessAt {
            x: e.x,
            samples: e.samples,
            max_ns: e.max_ns,
            safe_ns: safe_at(e.x),
            excess_ns: (safe_at(e.x) - e.max_ns).max(0.0),
            least_squares_ns: ls_at(e.x),
        })
        .collect()
}

/// Whether every figure a user reads (the lines, their residuals, the piecewise models)
/// is finite: huge inputs can overflow to infinity or NaN in floating point.
fn all_finite(r: &FitResult) -> bool {
    let mut figures = vec![
        r.least_squares.intercept_ns,
        r.least_squares.slope_ns,
        r.r2,
        r.upper_bound.intercept_ns,
        r.upper_bound.slope_ns,
        r.max_residual_ns,
        r.min_residual_ns,
        r.rms_residual_ns,
        r.upper_mean_gap_ns,
        r.upper_max_excess_ns,
    ];
    if let Some(p) = &r.piecewise {
        for m in [p.safe, p.least_squares] {
            figures.extend([m.base_ns, m.first_ns, m.per_ns, m.last_ns]);
        }
    }
    figures.iter().all(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(pts: &[(f64, f64)]) -> Vec<Sample> {
        pts.iter()
            .enumerate()
            .map(|(i, &(x, y))| Sample {
                x,
                y_ns: y,
                row: i + 1,
            })
            .collect()
    }

    #[test]
    fn exact_line() {
        let r = fit(&s(&[(0.0, 1500.0), (1.0, 7407.0), (10.0, 60570.0)])).unwrap();
        assert!((r.least_squares.slope_ns - 5907.0).abs() < 1e-6);
        assert!((r.least_squares.intercept_ns - 1500.0).abs() < 1e-6);
        assert!((r.r2 - 1.0).abs() < 1e-12);
        assert!((r.upper_bound.slope_ns - 5907.0).abs() < 1e-6);
        assert_eq!(r.worst_sample.row, 3);
    }

    #[test]
    fn points_are_the_samples_up_to_the_cap_and_keep_the_worst() {
        let few = s(&[(0.0, 5.0), (1.0, 9.0), (2.0, 7.0)]);
        let r = fit(&few).unwrap();
        assert_eq!(
            r.points.as_deref(),
            Some(&[[0.0, 5.0], [1.0, 9.0], [2.0, 7.0]][..])
        );
        // 25,001 samples, the worst at an index no stride of the thinning reaches.
        let many: Vec<(f64, f64)> = (0..25_001)
            .map(|i| {
                (
                    f64::from(i % 7),
                    if i == 12_347 { 1e6 } else { f64::from(i % 13) },
                )
            })
            .collect();
        let many = s(&many);
        let r = fit(&many).unwrap();
        let p = r.points.unwrap();
        assert!(p.len() <= POINTS_CAP, "{}", p.len());
        assert!(p.len() > POINTS_CAP / 2, "{}", p.len());
        assert_eq!(p[0], [many[0].x, many[0].y_ns]);
        assert!(
            p.contains(&[many[12_347].x, 1e6]),
            "the worst sample is kept"
        );
        // Every point is a sample, in input order.
        let mut at = 0;
        for q in &p {
            at += many[at..].iter().position(|m| [m.x, m.y_ns] == *q).unwrap() + 1;
        }
    }

    #[test]
    fn worst_names_the_first_row() {
        let r = fit(&s(&[(0.0, 5.0), (1.0, 9.0), (2.0, 9.0), (2.0, 3.0)])).unwrap();
        assert_eq!(r.worst_sample.row, 2);
    }

    #[test]
    fn seed001_table4_upper_bound_lies_above_every_sample() {
        // Table 4: worst context switch against loop iterations.
        let pts = [
            (1.0, 1500.0),
            (2.0, 2875.0),
            (3.0, 3255.0),
            (4.0, 3875.0),
            (5.0, 4375.0),
        ];
        let r = fit(&s(&pts)).unwrap();
        for (x, y) in pts {
            assert!(r.upper_bound.at(x) >= y - 1e-9, "{x}");
        }
        // Least squares: Sxy = 6750, Sxx = 10: slope 675 ns per level; R² = 675 * 6750 /
        // 4832020 = 0.9429.
        assert!((r.least_squares.slope_ns - 675.0).abs() < 1e-6);
        assert!((r.r2 - 0.942928).abs() < 1e-6, "{}", r.r2);
        assert!(r.max_residual_ns > 0.0);
        // The safe line has the smallest largest excess of all safe lines: compare with
        // a brute-force search over slopes.
        let brute = (0..=300_000)
            .map(|k| {
                let p = k as f64 * 0.01;
                let a = pts.iter().map(|&(x, y)| y - p * x).fold(f64::MIN, f64::max);
                pts.iter()
                    .map(|&(x, y)| a + p * x - y)
                    .fold(f64::MIN, f64::max)
            })
            .fold(f64::MAX, f64::min);
        assert!(
            r.upper_max_excess_ns <= brute + 1e-6,
            "{} vs {brute}",
            r.upper_max_excess_ns
        );
        assert!(
            r.upper_max_excess_ns >= brute - 0.1,
            "{} vs {brute}",
            r.upper_max_excess_ns
        );
        // The excess at each x is reported and is where the line is.
        assert_eq!(r.excess.len(), 5);
        for e in &r.excess {
            assert!((e.safe_ns - r.upper_bound.at(e.x)).abs() < 1e-9);
            assert!((e.excess_ns - (e.safe_ns - e.max_ns)).abs() < 1e-9 && e.excess_ns >= 0.0);
        }
    }

    #[test]
    fn a_falling_envelope_gets_the_flat_safe_line_never_a_negative_cost() {
        // Switch durations whose worst case falls with the levels scanned (a recording
        // mixing blocking calls whose work before the switch differs): the least-squares
        // slope is negative, the safe line is flat at the largest sample, above every one,
        // and `--write` can store it.
        let pts = [
            (1.0, 3369.0),
            (2.0, 3488.0),
            (4.0, 3547.0),
            (5.0, 3357.0),
            (5.0, 3250.0),
        ];
        let r = fit(&s(&pts)).unwrap();
        assert!(r.upper_bound.slope_ns >= 0.0, "{:?}", r.upper_bound);
        for (x, y) in pts {
            assert!(r.upper_bound.at(x) >= y - 1e-9, "{x}");
        }
        assert!(
            (r.upper_bound.at(1.0) - 3547.0).abs() < 1e-9,
            "{:?}",
            r.upper_bound
        );
        let falling = s(&[(1.0, 10.0), (2.0, 8.0), (3.0, 6.0)]);
        let r = fit(&falling).unwrap();
        assert!(r.least_squares.slope_ns < 0.0);
        assert_eq!(
            (r.upper_bound.slope_ns, r.upper_bound.intercept_ns),
            (0.0, 10.0)
        );
    }

    #[test]
    fn single_x_and_errors() {
        // One distinct x leaves the slope undetermined: an error, not a guessed 0.
        assert_eq!(
            fit(&s(&[(3.0, 10.0), (3.0, 14.0)])).unwrap_err(),
            FitError::OneX { x: 3.0, n: 2 }
        );
        assert!(matches!(
            fit(&s(&[(3.0, 10.0)])).unwrap_err(),
            FitError::OneX { n: 1, .. }
        ));
        // Two distinct x among repeated ones is enough.
        let r = fit(&s(&[(3.0, 10.0), (3.0, 14.0), (4.0, 20.0)])).unwrap();
        assert_eq!(r.upper_bound.at(3.0), 14.0);
        assert_eq!(r.upper_bound.at(4.0), 20.0);
        assert_eq!(fit(&[]).unwrap_err(), FitError::Empty);
        assert_eq!(
            fit(&s(&[(f64::NAN, 1.0)])).unwrap_err(),
            FitError::NotFinite(1)
        );
    }
}
