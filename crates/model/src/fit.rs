//! Calibration: fitting an overhead model's line `y = a + b x` to measurements.
//!
//! Two fits are reported for every sample set:
//! * ordinary least squares (slope, intercept, R², residuals);
//! * a *safe upper bound*: the line that lies on or above every sample and, among such
//!   lines, has the smallest mean gap to the samples. Minimising `sum(a + b x_i - y_i)`
//!   subject to `a + b x_i >= y_i` is a linear programme whose optimum is the edge (or
//!   vertex) of the upper convex hull of the samples above the mean `x`; that is how it
//!   is computed here. Analysis should use the upper bound: a least-squares line lies
//!   below about half of the measurements.
//!
//! The x values are counts (tasks released at a tick, priority levels scanned, queue
//! positions); y values are durations in nanoseconds.

use crate::overheads::tick::levels_scanned;
use crate::system::{KernelCosts, System};
use latscope_core::summary::ResultSummary;
use latscope_core::Picos;
use serde::Serialize;

/// A straight line `y = intercept + slope * x` (y in nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Line {
    pub intercept_ns: f64,
    pub slope_ns: f64,
}

impl Line {
    pub fn at(&self, x: f64) -> f64 {
        self.intercept_ns + self.slope_ns * x
    }
}

/// One sample as read (row is 1-based in the input, for messages).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sample {
    pub x: f64,
    pub y_ns: f64,
    pub row: usize,
}

/// Everything `latscope fit` reports.
#[derive(Debug, Clone, Serialize)]
pub struct FitResult {
    pub samples: usize,
    pub least_squares: Line,
    /// Coefficient of determination of the least-squares line (1 when every y is equal
    /// and the line fits exactly).
    pub r2: f64,
    pub upper_bound: Line,
    /// Largest sample above the least-squares line (the worst under-estimate).
    pub max_residual_ns: f64,
    pub min_residual_ns: f64,
    pub rms_residual_ns: f64,
    /// Mean distance of the upper-bound line above the samples (its pessimism).
    pub upper_mean_gap_ns: f64,
    /// The sample with the largest y.
    pub worst_sample: Sample,
    /// Least-squares residual of each sample, in input order.
    pub residuals_ns: Vec<f64>,
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

/// Fits both lines. The samples need at least two distinct x values: with a single x the
/// slope is undetermined, and writing 0 for it would be a guess, not a measurement.
pub fn fit(samples: &[Sample]) -> Result<FitResult, FitError> {
    if samples.is_empty() {
        return Err(FitError::Empty);
    }
    if let Some(s) = samples
        .iter()
        .find(|s| !s.x.is_finite() || !s.y_ns.is_finite())
    {
        return Err(FitError::NotFinite(s.row));
    }
    let x0 = samples[0].x;
    if samples.iter().all(|s| s.x == x0) {
        return Err(FitError::OneX {
            x: x0,
            n: samples.len(),
        });
    }
    let n = samples.len() as f64;
    let mx = samples.iter().map(|s| s.x).sum::<f64>() / n;
    let my = samples.iter().map(|s| s.y_ns).sum::<f64>() / n;
    let sxx: f64 = samples.iter().map(|s| (s.x - mx).powi(2)).sum();
    let sxy: f64 = samples.iter().map(|s| (s.x - mx) * (s.y_ns - my)).sum();
    let syy: f64 = samples.iter().map(|s| (s.y_ns - my).powi(2)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let ls = Line {
        intercept_ns: my - slope * mx,
        slope_ns: slope,
    };
    let residuals: Vec<f64> = samples.iter().map(|s| s.y_ns - ls.at(s.x)).collect();
    let ss_res: f64 = residuals.iter().map(|r| r * r).sum();
    let r2 = if syy > 0.0 { 1.0 - ss_res / syy } else { 1.0 };
    let upper = upper_line(samples, mx);
    let worst = *samples
        .iter()
        .max_by(|a, b| a.y_ns.total_cmp(&b.y_ns))
        .ok_or(FitError::Empty)?;
    let r = FitResult {
        samples: samples.len(),
        least_squares: ls,
        r2,
        upper_bound: upper,
        max_residual_ns: residuals.iter().cloned().fold(f64::MIN, f64::max),
        min_residual_ns: residuals.iter().cloned().fold(f64::MAX, f64::min),
        rms_residual_ns: (ss_res / n).sqrt(),
        upper_mean_gap_ns: samples.iter().map(|s| upper.at(s.x) - s.y_ns).sum::<f64>() / n,
        worst_sample: worst,
        residuals_ns: residuals,
    };
    let figures = [
        r.least_squares.intercept_ns,
        r.least_squares.slope_ns,
        r.r2,
        r.upper_bound.intercept_ns,
        r.upper_bound.slope_ns,
        r.max_residual_ns,
        r.min_residual_ns,
        r.rms_residual_ns,
        r.upper_mean_gap_ns,
    ];
    if figures.iter().any(|v| !v.is_finite()) {
        return Err(FitError::Overflow);
    }
    Ok(r)
}

/// The largest count accepted as x: 2^53, the largest integer up to which every integer
/// is exact in an `f64` (the fit computes in `f64`).
pub const MAX_COUNT: u64 = 1 << 53;

/// Why a text is not a count (x value).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CountError {
    #[error("'{0}' is not a whole count (expected an integer >= 0)")]
    NotANumber(String),
    #[error("{0} is not a whole count (expected an integer >= 0)")]
    Fractional(String),
    #[error("{0} is negative; a count is an integer >= 0")]
    Negative(String),
    #[error("{0} is a count written with an exponent; write it as digits (an integer >= 0)")]
    Exponent(String),
    #[error("{text} is too large for a count (at most {max})")]
    TooLarge { text: String, max: u64 },
}

/// Parses a count (tasks released, levels scanned, queue position, priority): digits,
/// optionally followed by a decimal point and zeros only (`3`, `3.0`: spreadsheets and
/// numeric libraries write whole floats that way), at most `max`. Negative, fractional,
/// exponent-notation, non-finite and empty values are errors.
pub fn parse_count(text: &str, max: u64) -> Result<u64, CountError> {
    let t = text.trim();
    let (int, frac) = match t.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (t, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(int) && frac.unwrap_or("").bytes().all(|b| b == b'0') {
        let too_large = || CountError::TooLarge {
            text: t.to_string(),
            max,
        };
        let v: u64 = int.parse().map_err(|_| too_large())?;
        return if v > max { Err(too_large()) } else { Ok(v) };
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v < 0.0 => Err(CountError::Negative(t.to_string())),
        Ok(v) if v.is_finite() && v.fract() != 0.0 => Err(CountError::Fractional(t.to_string())),
        Ok(v) if v.is_finite() && t.contains(['e', 'E']) => {
            Err(CountError::Exponent(t.to_string()))
        }
        _ => Err(CountError::NotANumber(t.to_string())),
    }
}

/// `text` (a number and a unit) in nanoseconds, the number read as an `f64`.
fn float_duration_ns(text: &str) -> Option<f64> {
    let cut = text
        .rfind(|c: char| c.is_ascii_digit() || c == '.')
        .map_or(0, |i| i + 1);
    let (num, unit) = text.split_at(cut);
    let per_unit = latscope_core::time::parse_duration(&format!("1{}", unit.trim()))
        .ok()?
        .as_ns_f64();
    let v: f64 = num.trim().parse().ok()?;
    Some(v * per_unit)
}

/// The largest duration a sample may have: `i64::MAX` picoseconds (about 106 days), the
/// range of every duration in latscope.
const MAX_DURATION_NS: f64 = i64::MAX as f64 / 1000.0;

/// Parses a measured duration into nanoseconds: a number with a unit (`5.9us`, `1e-6 s`),
/// or a bare number in `default_unit`. Unlike configuration values, a measurement may
/// carry more digits than a picosecond (`0.30000000000000004us` from a float printer):
/// it is then read as a float. Negative, non-finite and out-of-range values are errors.
pub fn parse_sample_duration(text: &str, default_unit: Option<&str>) -> Result<f64, String> {
    use latscope_core::time::parse_duration;
    use latscope_core::UnitError;
    let t = text.trim();
    let with_unit = match parse_duration(t) {
        Err(UnitError::MissingUnit(_)) => match default_unit {
            Some(u) => format!("{t}{u}"),
            None => {
                return Err(format!(
                "'{t}' has no unit; write e.g. {t}us, or give the unit of bare numbers with --unit"
            ))
            }
        },
        _ => t.to_string(),
    };
    let ns = match parse_duration(&with_unit) {
        Ok(p) => p.as_ns_f64(),
        // More digits than a picosecond, or a mantissa beyond the exact parser's range:
        // read the number as a float (the range check below still applies).
        Err(e @ UnitError::TooPrecise(_)) => {
            float_duration_ns(&with_unit).ok_or_else(|| e.to_string())?
        }
        Err(UnitError::Malformed(_)) => float_duration_ns(&with_unit)
            .ok_or_else(|| UnitError::Malformed(t.into()).to_string())?,
        Err(UnitError::OutOfRange(_)) => return Err(UnitError::OutOfRange(t.into()).to_string()),
        Err(e) => return Err(e.to_string()),
    };
    if !ns.is_finite() || ns.abs() > MAX_DURATION_NS {
        return Err(UnitError::OutOfRange(t.to_string()).to_string());
    }
    if ns < 0.0 {
        return Err(format!(
            "'{t}' is negative; a measured duration is zero or more"
        ));
    }
    Ok(ns)
}

/// The upper-hull line above `mean_x` (see the module documentation).
fn upper_line(samples: &[Sample], mean_x: f64) -> Line {
    // Highest y per distinct x, sorted by x.
    let mut pts: Vec<(f64, f64)> = samples.iter().map(|s| (s.x, s.y_ns)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    pts.dedup_by(|b, a| a.0 == b.0);
    if pts.len() == 1 {
        return Line {
            intercept_ns: pts[0].1,
            slope_ns: 0.0,
        };
    }
    // Upper hull (monotone chain, left to right, clockwise turns only).
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for p in pts {
        while hull.len() >= 2 {
            let (o, a) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let cross = (a.0 - o.0) * (p.1 - o.1) - (a.1 - o.1) * (p.0 - o.0);
            if cross >= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    // The hull edge spanning mean_x (the first edge whose right end is at or past it).
    let mut k = 0;
    while k + 2 < hull.len() && hull[k + 1].0 < mean_x {
        k += 1;
    }
    let (p, q) = (hull[k], hull[k + 1]);
    let slope = (q.1 - p.1) / (q.0 - p.0);
    let mut line = Line {
        intercept_ns: p.1 - slope * p.0,
        slope_ns: slope,
    };
    // Guard against rounding: lift the line onto every sample.
    let lift = samples
        .iter()
        .map(|s| s.y_ns - line.at(s.x))
        .fold(0.0f64, f64::max);
    line.intercept_ns += lift;
    line
}

/// Which model parameters a fit sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// x = tasks released at the tick, y = tick duration: `tick_base`, `tick_per_release`.
    Tick,
    /// x = levels scanned, y = context-switch duration: `switch_base` (the value at one
    /// level), `switch_per_level`.
    Switch,
    /// x = queue position, y = insertion time: `insert_base`, `insert_per_position`.
    Insert,
}

/// Levels scanned from a (from-priority, to-priority) pair, for [`Target::Switch`].
pub fn switch_levels(from: u32, to: u32) -> f64 {
    levels_scanned(from, to) as f64
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ApplyError {
    #[error(
        "the system's kernel model is \"{have}\", but {what} parameters belong to model \"{want}\""
    )]
    WrongModel {
        have: &'static str,
        want: &'static str,
        what: &'static str,
    },
    #[error(
        "the fitted {0} is negative ({1:.3} ns); a cost cannot be negative (check the samples)"
    )]
    Negative(&'static str, f64),
    #[error(
        "the fitted {0} ({1:e} ns) is beyond the largest duration latscope represents \
         (about 106 days; check the samples)"
    )]
    TooLarge(&'static str, f64),
}

fn ps(ns: f64, what: &'static str) -> Result<Picos, ApplyError> {
    if ns.is_nan() {
        return Err(ApplyError::TooLarge(what, ns));
    }
    if ns < -1e-9 {
        return Err(ApplyError::Negative(what, ns));
    }
    let v = (ns.max(0.0) * 1000.0).ceil();
    // i64::MAX as f64 rounds up to 2^63, which does not fit: compare with `<`.
    if v < i64::MAX as f64 {
        Ok(Picos(v as i64))
    } else {
        Err(ApplyError::TooLarge(what, ns))
    }
}

/// Writes a fitted line into the system's cost table (rounded up to the picosecond, so
/// an upper bound stays an upper bound).
pub fn apply(sys: &mut System, target: Target, line: &Line) -> Result<(), ApplyError> {
    let have = sys.kernel.model().name();
    match (target, &mut sys.kernel.costs) {
        (Target::Tick, KernelCosts::Tick(c)) => {
            c.tick_base = ps(line.intercept_ns, "tick_base")?;
            c.tick_per_release = ps(line.slope_ns, "tick_per_release")?;
        }
        (Target::Switch, KernelCosts::Tick(c)) => {
            c.switch_base = ps(line.at(1.0), "switch_base")?;
            c.switch_per_level = ps(line.slope_ns, "switch_per_level")?;
        }
        (Target::Insert, KernelCosts::Listscan(c)) => {
            c.insert_base = ps(line.intercept_ns, "insert_base")?;
            c.insert_per_position = ps(line.slope_ns, "insert_per_position")?;
        }
        (Target::Tick, _) | (Target::Switch, _) => {
            return Err(ApplyError::WrongModel {
                have,
                want: "tick",
                what: if target == Target::Tick {
                    "tick"
                } else {
                    "switch"
                },
            })
        }
        (Target::Insert, _) => {
            return Err(ApplyError::WrongModel {
                have,
                want: "listscan",
                what: "insertion",
            })
        }
    }
    Ok(())
}

/// Why the fitted values could not be written into a TOML file's text.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EditError {
    #[error("not valid TOML: {0}")]
    Parse(String),
    #[error("`{0}` is not a table")]
    NotATable(&'static str),
    #[error("the edited file does not read back as intended ({0}); use --out FILE.json to write the system as JSON instead")]
    Verify(String),
}

/// The `[kernel.costs]` keys [`apply`] sets for a target, with their current values.
fn fitted_keys(sys: &System, target: Target) -> Vec<(&'static str, Picos)> {
    match (target, &sys.kernel.costs) {
        (Target::Tick, KernelCosts::Tick(c)) => vec![
            ("tick_base", c.tick_base),
            ("tick_per_release", c.tick_per_release),
        ],
        (Target::Switch, KernelCosts::Tick(c)) => vec![
            ("switch_base", c.switch_base),
            ("switch_per_level", c.switch_per_level),
        ],
        (Target::Insert, KernelCosts::Listscan(c)) => vec![
            ("insert_base", c.insert_base),
            ("insert_per_position", c.insert_per_position),
        ],
        _ => Vec::new(),
    }
}

/// Drops the space after the last value of an inline table before a key is appended
/// (`{ a = 1 }` + b gives `{ a = 1, b = 2 }`, not `{ a = 1 , b = 2 }`).
fn untrail_last(t: &mut dyn toml_edit::TableLike) {
    if let Some(v) = t.iter_mut().last().and_then(|(_, i)| i.as_value_mut()) {
        v.decor_mut().set_suffix("");
    }
}

/// Writes the fitted keys of `sys` (after [`apply`]) into the TOML text the system was
/// read from, changing nothing else: comments, the order of tables and keys, number
/// formats and the other keys stay as the user wrote them (audit D11). A key that is
/// present keeps its surrounding whitespace and trailing comment; a missing one is
/// appended to `[kernel.costs]` (inline or not).
pub fn update_toml_text(text: &str, sys: &System, target: Target) -> Result<String, EditError> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| EditError::Parse(e.to_string()))?;
    let root = doc.as_table_mut();
    if !root.contains_key("kernel") {
        root.insert("kernel", toml_edit::table());
    }
    let kernel_item = root
        .get_mut("kernel")
        .ok_or(EditError::NotATable("kernel"))?;
    // A missing cost table is created in the kernel table's style: `[kernel.costs]`
    // under a `[kernel]` table, `costs = { .. }` inside an inline `kernel = { .. }`
    // (a table item inside an inline table would be dropped when written).
    let inline = kernel_item.is_inline_table();
    let kernel = kernel_item
        .as_table_like_mut()
        .ok_or(EditError::NotATable("kernel"))?;
    if !kernel.contains_key("costs") {
        if inline {
            untrail_last(kernel);
        }
        let item = if inline {
            toml_edit::Item::Value(toml_edit::Value::InlineTable(toml_edit::InlineTable::new()))
        } else {
            toml_edit::table()
        };
        kernel.insert("costs", item);
    }
    let costs_item = kernel
        .get_mut("costs")
        .ok_or(EditError::NotATable("kernel.costs"))?;
    let costs_inline = costs_item.is_inline_table();
    let costs = costs_item
        .as_table_like_mut()
        .ok_or(EditError::NotATable("kernel.costs"))?;
    for (key, v) in fitted_keys(sys, target) {
        let mut new = toml_edit::Value::from(crate::system::format_exact(v));
        match costs.get_mut(key).and_then(|i| i.as_value_mut()) {
            Some(old) => {
                *new.decor_mut() = old.decor().clone();
                *old = new;
            }
            None => {
                if costs_inline {
                    untrail_last(costs);
                }
                costs.insert(key, toml_edit::Item::Value(new));
            }
        }
    }
    // A default that follows a fitted key (`switch_optimised` defaults to `switch_base`)
    // keeps the value it had: it is written out when it was missing, so that the fit
    // changes only the fitted costs (and the TOML edit means what a JSON --out says).
    if let (Target::Switch, KernelCosts::Tick(c)) = (target, &sys.kernel.costs) {
        if !costs.contains_key("switch_optimised") && c.switch_optimised != c.switch_base {
            if costs_inline {
                untrail_last(costs);
            }
            let v = toml_edit::Value::from(crate::system::format_exact(c.switch_optimised));
            costs.insert("switch_optimised", toml_edit::Item::Value(v));
        }
    }
    let out = doc.to_string();
    // The edited text must read back with exactly the fitted costs: anything else
    // (a layout this edit does not handle) is an error, never a silently unchanged file.
    let back = System::from_toml_str(&out, "the updated file")
        .map_err(|e| EditError::Verify(e.to_string()))?;
    if back.kernel.costs != sys.kernel.costs {
        return Err(EditError::Verify(
            "the fitted values did not land in [kernel.costs]".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Audit D11: only the fitted keys change; comments, order and formats stay.
    #[test]
    fn update_toml_text_keeps_the_rest() {
        let text = "# provenance: seed 001\n[platform]\ncpu_hz = 84_000_000 # M4\n\n\
                    [kernel]\ntick_hz = 1000\n[kernel.costs]\n# measured\n\
                    tick_base = \"1us\"   # old\nswitch_base = \"1.5us\"\n\
                    switch_per_level = \"0.72us\"\n\n\
                    [[task]]\nname = \"a\"\nperiod = \"1ms\"\nwcet = \"1us\"\npriority = 1\n";
        let mut sys = System::from_toml_str(text, "x.toml").unwrap();
        let line = Line {
            intercept_ns: 1500.0,
            slope_ns: 5907.0,
        };
        apply(&mut sys, Target::Tick, &line).unwrap();
        let out = update_toml_text(text, &sys, Target::Tick).unwrap();
        let want = text
            .replace(
                "tick_base = \"1us\"   # old",
                "tick_base = \"1.5us\"   # old",
            )
            .replace(
                "switch_per_level = \"0.72us\"\n",
                "switch_per_level = \"0.72us\"\ntick_per_release = \"5.907us\"\n",
            );
        assert_eq!(out, want);
        let back = System::from_toml_str(&out, "x.toml").unwrap();
        assert_eq!(back.kernel.costs, sys.kernel.costs);
        // Inline cost tables are edited in place too.
        let inline = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                      costs = { tick_base = \"1us\", tick_per_release = \"2us\" }\n\
                      [[task]]\nname = \"a\"\nperiod = \"1ms\"\nwcet = \"1us\"\npriority = 1\n";
        let mut sys = System::from_toml_str(inline, "y.toml").unwrap();
        apply(&mut sys, Target::Tick, &line).unwrap();
        let out = update_toml_text(inline, &sys, Target::Tick).unwrap();
        assert_eq!(
            out,
            inline.replace(
                "{ tick_base = \"1us\", tick_per_release = \"2us\" }",
                "{ tick_base = \"1.5us\", tick_per_release = \"5.907us\" }"
            )
        );
    }

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
        // The hull edge over mean x = 3 runs from (2, 2875) to (5, 4375): 500 ns/level.
        assert!((r.upper_bound.slope_ns - 500.0).abs() < 1e-6);
        assert!((r.upper_bound.at(2.0) - 2875.0).abs() < 1e-6);
        assert!(r.max_residual_ns > 0.0);
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

// ---------------------------------------------------------------------------------------
// CSV input
// ---------------------------------------------------------------------------------------

/// How the x value of a row is obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XColumn {
    /// A count column (released count, queue position, levels scanned).
    Count(String),
    /// Levels scanned from a from-priority and a to-priority column
    /// ([`levels_scanned`]).
    Priorities { from: String, to: String },
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsvError {
    #[error("{file}: the CSV is empty (a header row naming the columns is needed)")]
    Empty { file: String },
    #[error("{file}: no data rows after the header (line {header_line})")]
    NoRows { file: String, header_line: usize },
    #[error(
        "{file} is a `latscope trace` JSON result, not a CSV: give each such result as \
         --trace X=FILE with the x it was measured at (one sample per file)"
    )]
    TraceJson { file: String },
    #[error("{file} is JSON, not a CSV with a header row (`latscope trace --json` results go to --trace X=FILE)")]
    Json { file: String },
    #[error("{file}: {message}")]
    Encoding { file: String, message: String },
    #[error("--unit {unit}: not a unit of time (use ps, ns, us, ms, s)")]
    BadUnit { unit: String },
    #[error("{file}: no column `{want}` (columns: {have})")]
    NoColumn {
        file: String,
        want: String,
        have: String,
    },
    #[error("{file}:{line}: column `{column}`: {message}")]
    Cell {
        file: String,
        line: usize,
        column: String,
        message: String,
    },
}

fn split_row(line: &str, sep: char) -> Vec<String> {
    line.split(sep)
        .map(|c| c.trim().trim_matches('"').trim().to_string())
        .collect()
}

fn find_col(header: &[String], want: &str, file: &str) -> Result<usize, CsvError> {
    if let Some(i) = want.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()) {
        if i < header.len() {
            return Ok(i);
        }
    }
    header
        .iter()
        .position(|h| h.eq_ignore_ascii_case(want))
        .ok_or_else(|| CsvError::NoColumn {
            file: file.to_string(),
            want: want.to_string(),
            have: header.join(", "),
        })
}

/// The text of a CSV file's bytes: UTF-8 (with or without a byte-order mark). UTF-16
/// (Excel's "Unicode Text") and other encodings are errors saying where and what to do.
pub fn csv_text(bytes: Vec<u8>, file: &str) -> Result<String, CsvError> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(CsvError::Encoding {
            file: file.to_string(),
            message: "the file is UTF-16 text; save it as CSV in UTF-8".into(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let col = at
            - bytes[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        CsvError::Encoding {
            file: file.to_string(),
            message: format!(
                "line {line}, byte {col}: 0x{:02x} is not UTF-8; save the file as UTF-8",
                bytes[at]
            ),
        }
    })
}

/// Reads samples from CSV text with a header row. Separators `,`, `;` or tab (detected
/// from the header); a UTF-8 byte-order mark and CRLF line ends are accepted. x cells are
/// counts ([`parse_count`]): whole numbers >= 0 (`3` or `3.0`). y cells are durations
/// ([`parse_sample_duration`]) with a unit (`5.9us`), or bare numbers in `default_unit`
/// (e.g. `"ns"`; `None`: a unit is required). Empty lines and lines starting with `#`
/// are skipped. Errors name the file, the line (1-based) and the column.
pub fn samples_from_csv(
    text: &str,
    file: &str,
    x: &XColumn,
    y: &str,
    default_unit: Option<&str>,
) -> Result<Vec<Sample>, CsvError> {
    if let Some(u) = default_unit {
        let ok = !u.trim().is_empty()
            && latscope_core::time::parse_duration(&format!("1{}", u.trim())).is_ok();
        if !ok {
            return Err(CsvError::BadUnit {
                unit: u.to_string(),
            });
        }
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = text.trim_start();
    if start.starts_with('{') || start.starts_with('[') {
        let is_trace = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .is_some_and(|v| v.get("kind").and_then(|k| k.as_str()) == Some("trace"));
        return Err(if is_trace {
            CsvError::TraceJson {
                file: file.to_string(),
            }
        } else {
            CsvError::Json {
                file: file.to_string(),
            }
        });
    }
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (head_ln, head) = lines.next().ok_or_else(|| CsvError::Empty {
        file: file.to_string(),
    })?;
    let sep = [',', ';', '\t']
        .into_iter()
        .max_by_key(|c| head.matches(*c).count())
        .unwrap_or(',');
    let header = split_row(head, sep);
    let yc = find_col(&header, y, file)?;
    let xc: (usize, Option<usize>) = match x {
        XColumn::Count(c) => (find_col(&header, c, file)?, None),
        XColumn::Priorities { from, to } => (
            find_col(&header, from, file)?,
            Some(find_col(&header, to, file)?),
        ),
    };
    let mut out = Vec::new();
    for (ln, line) in lines {
        let cells = split_row(line, sep);
        let bad = |i: usize, m: String| CsvError::Cell {
            file: file.to_string(),
            line: ln + 1,
            column: header[i].clone(),
            message: m,
        };
        let cell = |i: usize| -> Result<&str, CsvError> {
            cells
                .get(i)
                .map(String::as_str)
                .filter(|c| !c.is_empty())
                .ok_or_else(|| bad(i, "missing value".into()))
        };
        let count = |i: usize, max: u64| -> Result<u64, CsvError> {
            parse_count(cell(i)?, max).map_err(|e| bad(i, e.to_string()))
        };
        let xv = match xc {
            (i, None) => count(i, MAX_COUNT)? as f64,
            (f, Some(t)) => {
                let max = u64::from(u32::MAX);
                let (a, b) = (count(f, max)?, count(t, max)?);
                // Both are at most u32::MAX (checked above).
                switch_levels(a as u32, b as u32)
            }
        };
        let yv = parse_sample_duration(cell(yc)?, default_unit).map_err(|m| bad(yc, m))?;
        out.push(Sample {
            x: xv,
            y_ns: yv,
            row: ln + 1,
        });
    }
    if out.is_empty() {
        return Err(CsvError::NoRows {
            file: file.to_string(),
            header_line: head_ln + 1,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod csv_tests {
    use super::*;

    #[test]
    fn reads_counts_and_priorities() {
        let text = "released,tick\n0,1.5us\n10, 60.75us\n# comment\n\n1,7407ns\n";
        let s = samples_from_csv(
            text,
            "t.csv",
            &XColumn::Count("released".into()),
            "tick",
            None,
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].y_ns, 60750.0);
        assert_eq!(s[2].row, 6);
        let text = "from;to;us\n6;0;4.375\n0;6;1.5\n";
        let s = samples_from_csv(
            text,
            "s.csv",
            &XColumn::Priorities {
                from: "from".into(),
                to: "to".into(),
            },
            "us",
            Some("us"),
        )
        .unwrap();
        assert_eq!((s[0].x, s[0].y_ns), (6.0, 4375.0));
        assert_eq!(s[1].x, 1.0);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = samples_from_csv(
            "a,b\n1,2\n",
            "t.csv",
            &XColumn::Count("a".into()),
            "b",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("t.csv:2: column `b`") && e.contains("no unit"),
            "{e}"
        );
        let e = samples_from_csv(
            "a,b\n1,2us\n",
            "t.csv",
            &XColumn::Count("x".into()),
            "b",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no column `x`"), "{e}");
    }
}

// ---------------------------------------------------------------------------------------
// `latscope trace` JSON input
// ---------------------------------------------------------------------------------------

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TraceInputError {
    #[error("--trace {spec}: expected X=FILE, e.g. 10=run10.json")]
    Spec { spec: String },
    #[error("--trace {spec}: x {error}")]
    SpecCount { spec: String, error: CountError },
    #[error("{file}: not a latscope trace JSON result: {message}")]
    Format { file: String, message: String },
    #[error("{file}: no measurement \"{want}\" (measurements: {have})")]
    NoMeasurement {
        file: String,
        want: String,
        have: String,
    },
    #[error(
        "{file}: `{key}`: measurement \"{name}\" has no statistic `{field}` (statistics: {have})"
    )]
    NoStat {
        file: String,
        key: String,
        name: String,
        field: String,
        have: String,
    },
    #[error(
        "{file}: `{key}` is null: measurement \"{name}\" has no instance in the capture \
         (count 0), so there is nothing to fit"
    )]
    NoInstances {
        file: String,
        key: String,
        name: String,
    },
    #[error(
        "{file}: `{key}`: measurement \"{name}\" is in unit \"{unit}\", not a duration \
         (fit needs a pulse, latency or period measurement)"
    )]
    NotDuration {
        file: String,
        key: String,
        name: String,
        unit: String,
    },
    #[error("{file}: `{key}`: {message}")]
    BadValue {
        file: String,
        key: String,
        message: String,
    },
}

/// Parses a `--trace X=FILE` argument: X is a count ([`parse_count`]).
pub fn parse_trace_spec(spec: &str) -> Result<(u64, String), TraceInputError> {
    let (x, file) = spec
        .split_once('=')
        .filter(|(_, f)| !f.trim().is_empty())
        .ok_or_else(|| TraceInputError::Spec {
            spec: spec.to_string(),
        })?;
    let x = parse_count(x, MAX_COUNT).map_err(|error| TraceInputError::SpecCount {
        spec: spec.to_string(),
        error,
    })?;
    Ok((x, file.to_string()))
}

/// One sample from a `latscope trace --json` result: `x` as given (e.g. the number of
/// tasks released in that capture), `y` the statistic `stat` (`max`, `p99`, `mean`, ...:
/// the field `<stat>_ns`) of the measurement called `measurement`. Errors name the file
/// and the JSON key (`measurements[2].max_ns`).
pub fn sample_from_trace_json(
    text: &str,
    file: &str,
    measurement: &str,
    stat: &str,
    x: u64,
    row: usize,
) -> Result<Sample, TraceInputError> {
    let fmt = |m: String| TraceInputError::Format {
        file: file.to_string(),
        message: m,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| fmt(e.to_string()))?;
    match v.get("kind").and_then(|k| k.as_str()) {
        Some("trace") => {}
        Some(k) => return Err(fmt(format!("its \"kind\" is \"{k}\", not \"trace\""))),
        None => return Err(fmt("no \"kind\": \"trace\"".into())),
    }
    // The measurements are read as the typed summary every result shares
    // (latscope_core::summary), one at a time so that an error names its index.
    let ms = v
        .get("measurements")
        .and_then(|m| m.as_array())
        .ok_or_else(|| fmt("no \"measurements\" array".into()))?;
    fn name_of(m: &serde_json::Value) -> Option<&str> {
        m.get("name").and_then(|n| n.as_str())
    }
    let (i, m) = ms
        .iter()
        .enumerate()
        .find(|(_, m)| name_of(m) == Some(measurement))
        .ok_or_else(|| TraceInputError::NoMeasurement {
            file: file.to_string(),
            want: measurement.to_string(),
            have: ms.iter().filter_map(name_of).collect::<Vec<_>>().join(", "),
        })?;
    // Older results have no `unit`: their statistics are nanoseconds.
    if let Some(unit) = m.get("unit").and_then(|u| u.as_str()) {
        if unit != "ns" {
            return Err(TraceInputError::NotDuration {
                file: file.to_string(),
                key: format!("measurements[{i}].unit"),
                name: measurement.to_string(),
                unit: unit.to_string(),
            });
        }
    }
    let field = format!("{stat}_ns");
    let key = format!("measurements[{i}].{field}");
    let summary = ResultSummary::from_json(m).map_err(|e| TraceInputError::BadValue {
        file: file.to_string(),
        key: if e.key.is_empty() {
            format!("measurements[{i}]")
        } else {
            format!("measurements[{i}].{}", e.key)
        },
        message: e.message,
    })?;
    let y = match summary.stat(stat) {
        Some(Some(y)) => y,
        Some(None) => {
            return Err(TraceInputError::NoInstances {
                file: file.to_string(),
                key,
                name: measurement.to_string(),
            })
        }
        None => {
            return Err(TraceInputError::NoStat {
                file: file.to_string(),
                key,
                name: measurement.to_string(),
                field,
                have: summary.present().join(", "),
            });
        }
    };
    if !y.is_finite() || !(0.0..=MAX_DURATION_NS).contains(&y) {
        return Err(TraceInputError::BadValue {
            file: file.to_string(),
            key,
            message: format!("{y} ns is not a duration (expected 0 to {MAX_DURATION_NS:.0} ns)"),
        });
    }
    Ok(Sample {
        x: x as f64,
        y_ns: y,
        row,
    })
}

#[cfg(test)]
mod trace_tests {
    use super::*;

    #[test]
    fn reads_a_statistic() {
        let t = r#"{"kind":"trace","measurements":[{"name":"SysTick","max_ns":60750.0,"p99_ns":60000.0}]}"#;
        let s = sample_from_trace_json(t, "a.json", "SysTick", "max", 10, 1).unwrap();
        assert_eq!((s.x, s.y_ns), (10.0, 60750.0));
        let e = sample_from_trace_json(t, "a.json", "Tick", "max", 1, 1).unwrap_err();
        assert!(e.to_string().contains("SysTick"), "{e}");
        let e = sample_from_trace_json(t, "a.json", "SysTick", "p999", 1, 1).unwrap_err();
        assert!(e.to_string().contains("p999_ns"), "{e}");
        assert!(sample_from_trace_json("{}", "b.json", "x", "max", 1, 1).is_err());
    }
}
