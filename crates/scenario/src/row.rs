//! One line of a "published vs latscope" table.
//!
//! Honesty rules (issue 23, "Roles a reviewer accepts"):
//! * every row has a role: `input` (taken from the document), `derived` (arithmetic the
//!   document itself did on its figures, or a restatement of another row: `derived_from`
//!   names that row), `check` (agreement with a published figure that went into the
//!   model, directly, through a derived input, or through a model form chosen after
//!   seeing it), `prediction` (a number computed by latscope's own machinery from inputs
//!   that exclude the figure it is compared with and everything the document derived
//!   from that figure), `finding` (a yes/no the model gives by construction: shown,
//!   never counted) or `not compared` (a figure latscope cannot compare here: other
//!   hardware, no figure, no code; `explanation` says why);
//! * every row lists in `uses` the published figures its value depends on (empty for an
//!   input), and names the published figure it is compared with in `figure_id`; a
//!   prediction's `uses` never holds its own figure nor a figure derived from it;
//! * a prediction's tolerance comes from the document's own resolution (sample period,
//!   cursor reading, rounding of its figures) and `tolerance_reason` says how;
//! * only predictions are counted, and only they decide the exit status
//!   ([`Verdict`], the one verdict every output shows).

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
    /// A yes/no of the document that latscope's model gives by construction (the opposite
    /// was not possible with the model as set up): shown with whether it agrees, never
    /// counted.
    Finding,
    /// A figure latscope cannot compare here (other hardware, no number in the document,
    /// code the document does not list): `explanation` says why.
    #[serde(rename = "not compared")]
    #[schemars(rename = "not compared")]
    NotCompared,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Derived => "derived",
            Role::Check => "check",
            Role::Prediction => "prediction",
            Role::Finding => "finding",
            Role::NotCompared => "not compared",
        }
    }
}

/// What a row shows in every output (terminal, JSON, Markdown, HTML): [`Row::verdict_of`]
/// is the one function that decides it, and the JSON carries its word (`verdict`) so the
/// report draws the same.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Verdict {
    /// A prediction within its tolerance.
    #[serde(rename = "within")]
    Within,
    /// A prediction outside its tolerance, without an explanation: fails the run.
    #[serde(rename = "outside")]
    Outside,
    /// A prediction outside its tolerance whose cause is known (`explanation`): still a
    /// miss, but the run exits 0 unless `--strict`.
    #[serde(rename = "outside (explained)")]
    OutsideExplained,
    /// A finding that agrees with the document (never counted).
    #[serde(rename = "finding agrees")]
    FindingAgrees,
    /// A finding that disagrees with the document (never counted).
    #[serde(rename = "finding differs")]
    FindingDiffers,
    /// A row that is not compared here.
    #[default]
    #[serde(rename = "not compared")]
    NotCompared,
    /// Shown rows: input, derived, check.
    #[serde(rename = "input")]
    Input,
    #[serde(rename = "derived")]
    Derived,
    #[serde(rename = "check")]
    Check,
}

impl Verdict {
    /// The word every output prints (the JSON's `verdict`).
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Within => "within",
            Verdict::Outside => "outside",
            Verdict::OutsideExplained => "outside (explained)",
            Verdict::FindingAgrees => "finding agrees",
            Verdict::FindingDiffers => "finding differs",
            Verdict::NotCompared => "not compared",
            Verdict::Input => "input",
            Verdict::Derived => "derived",
            Verdict::Check => "check",
        }
    }
    /// A prediction's verdict (counted in `predictions`).
    pub fn is_compared(self) -> bool {
        matches!(
            self,
            Verdict::Within | Verdict::Outside | Verdict::OutsideExplained
        )
    }
    pub fn is_miss(self) -> bool {
        matches!(self, Verdict::Outside | Verdict::OutsideExplained)
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
    /// For predictions: how the tolerance follows from the document's resolution (null for
    /// other roles).
    #[serde(default)]
    pub tolerance_reason: Option<String>,
    /// For predictions: whether latscope's figure is within the tolerance; for findings,
    /// whether the model agrees with the document (null for other roles).
    pub within: Option<bool>,
    /// The row's verdict word (see [`Verdict`]): what the terminal, the Markdown and the
    /// HTML report show.
    #[serde(default)]
    pub verdict: Verdict,
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
    /// For a derived row that restates another row (a ratio of it, the same function
    /// called again): that row's `figure` words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<String>,
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
    /// The published figures the document computed this one from (its own arithmetic:
    /// 58 / 8,000 = 0.725 %). A prediction of any of those may not use this one.
    #[serde(default, skip_deserializing, skip_serializing_if = "<[_]>::is_empty")]
    pub from: &'static [&'static str],
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
            from: &[],
        }
    }
    /// The figure is the document's arithmetic on `from`.
    pub const fn from(mut self, from: &'static [&'static str]) -> Figure {
        self.from = from;
        self
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
            tolerance_reason: None,
            within: None,
            verdict: Verdict::NotCompared,
            deviation: (published != 0.0 && published.is_finite() && latscope.is_finite())
                .then(|| (latscope - published) / published),
            source: format!("{}, {place}", self.doc.cite()),
            method: String::new(),
            figure_id: id.into(),
            uses: uses.iter().map(|s| s.to_string()).collect(),
            derived_from: None,
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
    /// A yes/no of the document (published 1 = yes) that the model gives by construction:
    /// shown with whether it agrees, never counted.
    pub fn finding(&self, words: &str, id: &str, yes: bool, uses: &[&str]) -> Row {
        let mut r = self.base(words, id, if yes { 1.0 } else { 0.0 }, Role::Finding, uses);
        r.within = Some((r.published != 0.0) == yes);
        r
    }
    /// A number of the document that the model gives by construction (a count that
    /// follows from the model's form): a finding, shown with whether it agrees.
    pub fn by_construction(&self, words: &str, id: &str, latscope: f64, uses: &[&str]) -> Row {
        let mut r = self.base(words, id, latscope, Role::Finding, uses);
        r.within = Some(latscope == r.published);
        r
    }
    /// A figure latscope cannot compare here; `why` is the diagnosis. `latscope` may
    /// still be set (a live figure shown beside another machine's).
    pub fn not_compared(&self, words: &str, id: &str, uses: &[&str], why: &str) -> Row {
        let mut r = self.base(words, id, f64::NAN, Role::NotCompared, uses);
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
    /// How the prediction's tolerance follows from the document's resolution.
    pub fn tolerance_because(mut self, s: &str) -> Row {
        self.tolerance_reason = Some(s.into());
        self
    }
    /// This row restates another row (`words`: that row's figure words).
    pub fn restates(mut self, words: &str) -> Row {
        self.derived_from = Some(words.into());
        self
    }
    /// A prediction outside its tolerance.
    pub fn is_miss(&self) -> bool {
        self.verdict_of().is_miss()
    }
    /// The row's verdict: the one function behind every output's verdict column, the
    /// banners and the exit status.
    pub fn verdict_of(&self) -> Verdict {
        match (self.role, self.within) {
            (Role::Prediction, Some(true)) => Verdict::Within,
            (Role::Prediction, Some(false)) if self.explanation.is_some() => {
                Verdict::OutsideExplained
            }
            (Role::Prediction, Some(false)) => Verdict::Outside,
            (Role::Prediction, None) | (Role::NotCompared, _) => Verdict::NotCompared,
            (Role::Finding, Some(true)) => Verdict::FindingAgrees,
            (Role::Finding, _) => Verdict::FindingDiffers,
            (Role::Input, _) => Verdict::Input,
            (Role::Derived, _) => Verdict::Derived,
            (Role::Check, _) => Verdict::Check,
        }
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
        assert_eq!(
            f.prediction_abs("x", "a", 34.8, 4.8, &[]).within,
            Some(true)
        );
        assert_eq!(
            f.prediction_abs("x", "a", 37.0, 4.8, &[]).within,
            Some(false)
        );
        assert!(f.prediction_abs("x", "a", 37.0, 4.8, &[]).is_miss());
        assert_eq!(
            f.prediction_abs("x", "a", f64::NAN, 4.8, &[]).within,
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
        assert_eq!(
            f.finding("x", "yes", false, &[]).verdict_of(),
            Verdict::FindingDiffers
        );
        assert!(!f.finding("x", "yes", false, &[]).is_miss());
        let miss = f.prediction_abs("x", "a", 37.0, 4.8, &[]);
        assert_eq!(miss.verdict_of(), Verdict::Outside);
        assert_eq!(
            miss.explain("known").verdict_of(),
            Verdict::OutsideExplained
        );
        let i = f.input("c", "b", 10.0);
        assert_eq!((i.role, i.within, i.uses.len()), (Role::Input, None, 0));
        let n = f.not_compared("n", "a", &["b"], "no cpufreq");
        assert_eq!((n.within, n.latscope.is_nan()), (None, true));
        assert_eq!(n.verdict_of(), Verdict::NotCompared);
        assert_eq!(
            serde_json::to_value(&n).unwrap()["role"],
            serde_json::json!("not compared")
        );
        assert!(f.input("c", "zz", 1.0).published.is_nan());
        assert!(f.input("c", "a", 1.0).source.starts_with("KernelPerf"));
        let j = serde_json::to_value(f.prediction_abs("x", "a", 11.0, 2.0, &["b"])).unwrap();
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
            "tolerance_reason",
            "verdict",
        ] {
            assert!(j.get(k).is_some(), "missing {k}");
        }
        assert_eq!(j["role"], "prediction");
        assert_eq!(j["uses"][0], "b");
    }
}
