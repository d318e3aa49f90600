//! One line of a "published vs latscope" table.
//!
//! Honesty rules:
//! * every row has a role: `input` (taken from the document), `derived` (arithmetic the
//!   document itself did on its figures), `check` (agreement with a published figure that
//!   was used, directly or through a derived input, to build the model) or `prediction`
//!   (computed by analysis or simulation from inputs that do not depend on the figure it
//!   is compared with);
//! * every row lists in `uses` the published figures its value depends on (empty for an
//!   input), and names the published figure it is compared with in `figure_id`; a
//!   prediction's own figure is never among its `uses`;
//! * only predictions are counted as reproduced, and only they decide the exit status.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Taken from the document (or calibrated on it): shown, never counted as reproduced.
    Input,
    /// Arithmetic the document itself did on its own figures (a sum, a ratio, a unit
    /// conversion), redone by latscope: shown, never counted as reproduced.
    Derived,
    /// Agreement with a published figure that went into the model (directly or through a
    /// derived input): shows the model is built consistently, proves nothing.
    Check,
    /// Computed from inputs that do not depend on the published figure it is compared
    /// with: the only rows counted as reproduced.
    Prediction,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Derived => "derived",
            Role::Check => "check",
            Role::Prediction => "prediction",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    /// What is compared, in words.
    pub figure: String,
    /// The document's figure.
    #[serde(
        serialize_with = "latscope_core::jsonnum::nan_as_null",
        deserialize_with = "latscope_core::jsonnum::null_as_nan"
    )]
    #[schemars(with = "Option<f64>")]
    pub published: f64,
    /// latscope's figure (null when it cannot be computed here: `explanation` says why).
    #[serde(
        serialize_with = "latscope_core::jsonnum::nan_as_null",
        deserialize_with = "latscope_core::jsonnum::null_as_nan"
    )]
    #[schemars(with = "Option<f64>")]
    pub latscope: f64,
    pub unit: String,
    pub role: Role,
    /// Allowed relative deviation for a prediction (0.15 = ±15 %); present (null for
    /// other roles) on every row. Where the tolerance was stated in the row's unit it is
    /// converted: `tolerance_abs / |published|`.
    pub tolerance: Option<f64>,
    /// Allowed absolute deviation, in `unit`, where a relative one makes no sense.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance_abs: Option<f64>,
    /// For predictions: whether latscope's figure is within the tolerance (null for other
    /// roles, and for a prediction that could not be computed here).
    pub within: Option<bool>,
    /// Relative deviation (latscope − published) / published, when published ≠ 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<f64>,
    /// Where the published figure stands: document (by author and title) and place.
    pub source: String,
    /// How latscope got its figure.
    pub method: String,
    /// Name of the published figure this row is compared with (see the scenario's
    /// figure list, `figures` in the JSON).
    pub figure_id: String,
    /// Names of the published figures latscope's value depends on (empty for inputs).
    pub uses: Vec<String>,
    /// Why a prediction misses its tolerance, or why it cannot be computed here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

/// A figure a document publishes, with a name rows refer to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Figure {
    /// Short unique name within its document, e.g. "Table 4, 5 iterations".
    pub id: Cow<'static, str>,
    pub value: f64,
    pub unit: Cow<'static, str>,
    /// Where in the document, and its words where they matter.
    pub place: Cow<'static, str>,
}

impl Figure {
    /// A published figure: its name, value, unit and place in the document (the
    /// constructor every scenario's figure table uses).
    pub const fn new(
        id: &'static str,
        value: f64,
        unit: &'static str,
        place: &'static str,
    ) -> Figure {
        Figure {
            id: Cow::Borrowed(id),
            value,
            unit: Cow::Borrowed(unit),
            place: Cow::Borrowed(place),
        }
    }
}

/// Rows of one document: looks figures up by name, so a row's published value, unit
/// and source always agree with the document's figure list.
pub(crate) struct Figures {
    pub doc: &'static crate::documents::Document,
    pub list: &'static [Figure],
}

impl Figures {
    pub fn get(&self, id: &str) -> Option<&'static Figure> {
        self.list.iter().find(|f| f.id == id)
    }

    fn base(&self, words: &str, id: &str, latscope: f64, role: Role, uses: &[&str]) -> Row {
        // An unknown name gives a NaN published value: the scenario tests reject it.
        let (published, unit, place) = match self.get(id) {
            Some(f) => (f.value, &*f.unit, &*f.place),
            None => (f64::NAN, "", "unknown figure"),
        };
        Row {
            figure: words.into(),
            published,
            latscope,
            unit: unit.into(),
            role,
            tolerance: None,
            tolerance_abs: None,
            within: None,
            deviation: (published != 0.0 && published.is_finite() && latscope.is_finite())
                .then(|| (latscope - published) / published),
            source: format!("{}, {place}", self.doc.cite()),
            method: String::new(),
            figure_id: id.into(),
            uses: uses.iter().map(|s| s.to_string()).collect(),
            explanation: None,
        }
    }

    /// A figure taken from the document; `latscope` is what latscope's model holds for it.
    pub fn input(&self, words: &str, id: &str, latscope: f64) -> Row {
        self.base(words, id, latscope, Role::Input, &[])
    }
    pub fn derived(&self, words: &str, id: &str, latscope: f64, uses: &[&str]) -> Row {
        self.base(words, id, latscope, Role::Derived, uses)
    }
    pub fn check(&self, words: &str, id: &str, latscope: f64, uses: &[&str]) -> Row {
        self.base(words, id, latscope, Role::Check, uses)
    }
    /// A prediction checked against a relative tolerance.
    pub fn prediction(&self, words: &str, id: &str, latscope: f64, tol: f64, uses: &[&str]) -> Row {
        let mut r = self.base(words, id, latscope, Role::Prediction, uses);
        r.tolerance = Some(tol);
        r.within = Some(
            latscope.is_finite()
                && (latscope - r.published).abs() <= tol * r.published.abs() + 1e-12,
        );
        r
    }
    /// A prediction checked against an absolute tolerance in the figure's unit.
    pub fn prediction_abs(
        &self,
        words: &str,
        id: &str,
        latscope: f64,
        tol_abs: f64,
        uses: &[&str],
    ) -> Row {
        let mut r = self.base(words, id, latscope, Role::Prediction, uses);
        r.tolerance_abs = Some(tol_abs);
        r.tolerance = (r.published != 0.0).then(|| tol_abs / r.published.abs());
        r.within = Some(latscope.is_finite() && (latscope - r.published).abs() <= tol_abs + 1e-12);
        r
    }
    /// A yes/no finding of the document (published 1 = yes), predicted exactly.
    pub fn finding(&self, words: &str, id: &str, yes: bool, uses: &[&str]) -> Row {
        self.prediction_abs(words, id, if yes { 1.0 } else { 0.0 }, 0.0, uses)
    }
    /// A prediction latscope cannot make here; `why` is the diagnosis.
    pub fn not_reproduced(&self, words: &str, id: &str, uses: &[&str], why: &str) -> Row {
        let mut r = self.base(words, id, f64::NAN, Role::Prediction, uses);
        r.explanation = Some(why.into());
        r
    }
}

impl Row {
    pub fn method(mut self, s: &str) -> Row {
        self.method = s.into();
        self
    }
    /// Why this prediction misses its tolerance (kept beside the verdict, which stays
    /// "outside": an explained miss is still a miss).
    pub fn explain(mut self, s: &str) -> Row {
        self.explanation = Some(s.into());
        self
    }
    /// A prediction outside its tolerance.
    pub fn is_miss(&self) -> bool {
        self.role == Role::Prediction && self.within == Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGS: &[Figure] = &[
        Figure::new("a", 32.0, "us", "test case 9"),
        Figure::new("b", 10.0, "us", "here"),
        Figure::new("yes", 1.0, "yes=1", "there"),
    ];
    fn f() -> Figures {
        Figures {
            doc: &crate::documents::KERNELPERF,
            list: FIGS,
        }
    }

    #[test]
    fn tolerance_is_applied() {
        let f = f();
        assert_eq!(f.prediction("x", "a", 34.8, 0.15, &[]).within, Some(true));
        assert_eq!(f.prediction("x", "a", 37.0, 0.15, &[]).within, Some(false));
        assert!(f.prediction("x", "a", 37.0, 0.15, &[]).is_miss());
        assert_eq!(
            f.prediction("x", "a", f64::NAN, 0.15, &[]).within,
            Some(false)
        );
        assert_eq!(
            f.prediction_abs("x", "b", 13.0, 5.0, &[]).within,
            Some(true)
        );
        assert_eq!(
            f.prediction_abs("x", "b", 16.0, 5.0, &[]).within,
            Some(false)
        );
        assert_eq!(
            f.prediction_abs("x", "b", 16.0, 5.0, &[]).tolerance,
            Some(0.5)
        );
        assert_eq!(f.finding("x", "yes", true, &[]).within, Some(true));
        assert_eq!(f.finding("x", "yes", false, &[]).within, Some(false));
        let i = f.input("c", "b", 10.0);
        assert_eq!((i.role, i.within, i.uses.len()), (Role::Input, None, 0));
        let n = f.not_reproduced("n", "a", &["b"], "no cpufreq");
        assert_eq!((n.within, n.latscope.is_nan()), (None, true));
        assert!(f.input("c", "zz", 1.0).published.is_nan());
        assert!(f.input("c", "a", 1.0).source.starts_with("KernelPerf"));
        let j = serde_json::to_value(f.prediction("x", "a", 11.0, 0.2, &["b"])).unwrap();
        for k in [
            "figure",
            "published",
            "latscope",
            "unit",
            "role",
            "tolerance",
            "within",
            "uses",
            "figure_id",
        ] {
            assert!(j.get(k).is_some(), "missing {k}");
        }
        assert_eq!(j["role"], "prediction");
        assert_eq!(j["uses"][0], "b");
    }
}
