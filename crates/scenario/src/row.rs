//! One line of a "published vs latscope" table.
//!
//! Honesty rule: a figure that latscope was *given* (a calibrated cost, a component the
//! document states) is an `input`; only figures latscope *computed* from other inputs
//! are `prediction`s, and only those count as reproduced.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Taken from the document (or calibrated on it): shown, never counted as reproduced.
    Input,
    /// Computed by latscope from the inputs: compared against the published figure.
    Prediction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What is compared, in words.
    pub figure: String,
    /// The document's figure.
    pub published: f64,
    /// latscope's figure.
    pub latscope: f64,
    pub unit: String,
    pub role: Role,
    /// Allowed relative deviation for a prediction (0.15 = ±15 %); present (null for
    /// inputs) on every row. Where the tolerance was stated in the row's unit it is
    /// converted: `tolerance_abs / |published|`.
    pub tolerance: Option<f64>,
    /// Allowed absolute deviation, in `unit`, where a relative one makes no sense
    /// (a published figure of zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance_abs: Option<f64>,
    /// For predictions: whether latscope's figure is within the tolerance (null for inputs).
    pub within: Option<bool>,
    /// Relative deviation (latscope − published) / published, when published ≠ 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<f64>,
    /// Where the published figure stands in the source document.
    pub source: String,
    /// How latscope got its figure.
    pub method: String,
}

impl Row {
    fn base(figure: &str, published: f64, latscope: f64, unit: &str, role: Role) -> Row {
        Row {
            figure: figure.into(),
            published,
            latscope,
            unit: unit.into(),
            role,
            tolerance: None,
            tolerance_abs: None,
            within: None,
            deviation: (published != 0.0).then(|| (latscope - published) / published),
            source: String::new(),
            method: String::new(),
        }
    }
    pub fn input(figure: &str, published: f64, latscope: f64, unit: &str) -> Row {
        Row::base(figure, published, latscope, unit, Role::Input)
    }
    /// A prediction checked against a relative tolerance.
    pub fn prediction(figure: &str, published: f64, latscope: f64, unit: &str, tol: f64) -> Row {
        let mut r = Row::base(figure, published, latscope, unit, Role::Prediction);
        r.tolerance = Some(tol);
        r.within = Some(
            latscope.is_finite() && (latscope - published).abs() <= tol * published.abs() + 1e-12,
        );
        r
    }
    /// A prediction checked against an absolute tolerance in `unit`. The published figure
    /// must not be zero, so that the relative `tolerance` is defined too.
    pub fn prediction_abs(
        figure: &str,
        published: f64,
        latscope: f64,
        unit: &str,
        tol_abs: f64,
    ) -> Row {
        let mut r = Row::base(figure, published, latscope, unit, Role::Prediction);
        r.tolerance_abs = Some(tol_abs);
        debug_assert!(
            published != 0.0,
            "{figure}: a prediction of zero has no relative tolerance"
        );
        r.tolerance = (published != 0.0).then(|| tol_abs / published.abs());
        r.within = Some(latscope.is_finite() && (latscope - published).abs() <= tol_abs + 1e-12);
        r
    }
    pub fn source(mut self, s: &str) -> Row {
        self.source = s.into();
        self
    }
    pub fn method(mut self, s: &str) -> Row {
        self.method = s.into();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_applied() {
        assert_eq!(
            Row::prediction("x", 32.0, 34.8, "us", 0.15).within,
            Some(true)
        );
        assert_eq!(
            Row::prediction("x", 32.0, 37.0, "us", 0.15).within,
            Some(false)
        );
        assert_eq!(
            Row::prediction("x", 32.0, f64::NAN, "us", 0.15).within,
            Some(false)
        );
        assert_eq!(
            Row::prediction_abs("x", 10.0, 13.0, "us", 5.0).within,
            Some(true)
        );
        assert_eq!(
            Row::prediction_abs("x", 10.0, 16.0, "us", 5.0).within,
            Some(false)
        );
        assert_eq!(
            Row::prediction_abs("x", 10.0, 16.0, "us", 5.0).tolerance,
            Some(0.5)
        );
        assert_eq!(
            Row::prediction_abs("x", 1.0, 1.0, "yes=1", 0.0).tolerance,
            Some(0.0)
        );
        let i = Row::input("c", 1.3, 1.3, "us");
        assert_eq!((i.role, i.within), (Role::Input, None));
        let j = serde_json::to_value(Row::prediction("x", 10.0, 11.0, "us", 0.2)).unwrap();
        for k in [
            "figure",
            "published",
            "latscope",
            "unit",
            "role",
            "tolerance",
            "within",
        ] {
            assert!(j.get(k).is_some(), "missing {k}");
        }
        assert_eq!(j["role"], "prediction");
    }
}
