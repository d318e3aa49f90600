//! Typed forms of the inputs that are not latscope results: the CSV time series and the
//! timelines that [`crate::Input::parse`] (and the command line) turn into JSON, and the
//! sweep counts the command line aggregates from a sweep's rows. The sections read them
//! through these types, as they read results through `latscope_results` (issue 24 item 1:
//! no section reads a document by string key).
//!
//! A document that does not have the expected shape reads as empty (its section is then
//! skipped); within a timeline a track that does not read is left out on its own.

use crate::data::Point;
use serde::Deserialize;
use serde_json::Value;

/// A CSV time series as [`crate::Input::parse`] makes it:
/// `{"time_column", "series": [{"name", "unit", "points": [[t, v]]}]}`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SeriesDoc {
    #[serde(default)]
    pub series: Vec<Series>,
}

/// One column of a CSV time series.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Series {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub unit: String,
    /// `[time ns, value]`; a cell the CSV left empty is `null`.
    #[serde(default)]
    points: Vec<(Option<f64>, Option<f64>)>,
}

impl SeriesDoc {
    /// The series document `d` holds (empty when it is not one).
    pub fn of(d: &Value) -> SeriesDoc {
        SeriesDoc::deserialize(d).unwrap_or_default()
    }

    /// The points of the series called `name`, when the document has one.
    pub fn named(&self, name: &str) -> Option<Vec<Point>> {
        self.series
            .iter()
            .find(|s| s.name == name)
            .map(Series::points)
    }
}

impl Series {
    /// The points with a finite time and value, in the file's order.
    pub fn points(&self) -> Vec<Point> {
        self.points
            .iter()
            .filter_map(|&(t, v)| Some((t?, v?)))
            .filter(|(t, v)| t.is_finite() && v.is_finite())
            .collect()
    }
}

/// A timeline: `{"tracks": [{"name", "intervals"}], "start_ns", "end_ns"}`, the intervals
/// as `[[start, end], …]` or flat `[start, end, start, …]` (what the command line writes
/// for a capture).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Timeline {
    #[serde(default)]
    tracks: Vec<Value>,
    #[serde(default)]
    pub start_ns: Option<f64>,
    #[serde(default)]
    pub end_ns: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
struct Track {
    name: String,
    #[serde(default)]
    intervals: Intervals,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Intervals {
    Flat(Vec<f64>),
    Pairs(Vec<(f64, f64)>),
}

impl Default for Intervals {
    fn default() -> Self {
        Intervals::Flat(Vec::new())
    }
}

impl Timeline {
    /// The timeline `d` holds (empty when it is not one).
    pub fn of(d: &Value) -> Timeline {
        Timeline::deserialize(d).unwrap_or_default()
    }

    /// How many tracks the document lists (a track that does not read included).
    pub fn len(&self) -> usize {
        self.tracks.len()
    }

    /// Whether the timeline has no track.
    pub fn is_empty(&self) -> bool {
        self.tracks.is_empty()
    }

    /// `[(name, [(start_ns, end_ns)])]`, the tracks that read, in the document's order.
    pub fn tracks(&self) -> Vec<(String, Vec<(f64, f64)>)> {
        self.tracks
            .iter()
            .filter_map(|t| Track::deserialize(t).ok())
            .map(|t| {
                let iv = match t.intervals {
                    Intervals::Flat(v) => v.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
                    Intervals::Pairs(v) => v,
                };
                (t.name, iv)
            })
            .collect()
    }
}

/// A sweep's counts as the command line aggregates them:
/// `{"kind": "sweep", "curves": [{"config", "points": [{"utilisation", "sets",
/// "schedulable"}]}]}`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SweepDoc {
    #[serde(default)]
    pub curves: Vec<SweepCurve>,
}

/// One configuration of a sweep.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SweepCurve {
    #[serde(default)]
    pub config: String,
    #[serde(default)]
    pub points: Vec<SweepCount>,
}

/// The task sets generated at one utilisation, and how many of them are schedulable.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct SweepCount {
    pub utilisation: f64,
    pub sets: f64,
    pub schedulable: f64,
}

impl SweepDoc {
    /// The sweep document `d` holds (empty when it is not one).
    pub fn of(d: &Value) -> SweepDoc {
        SweepDoc::deserialize(d).unwrap_or_default()
    }
}

/// The members of a JSON object that tell what it is: its `kind`, `schema_version` and
/// whether it has a `tracks` array (a timeline already in the report's form).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Head {
    #[serde(default)]
    pub kind: Option<Value>,
    #[serde(default)]
    pub schema_version: Option<Value>,
    #[serde(default)]
    pub tracks: Option<Value>,
}

impl Head {
    /// The head of `d` (all absent when `d` is not an object).
    pub fn of(d: &Value) -> Head {
        if d.is_object() {
            Head::deserialize(d).unwrap_or_default()
        } else {
            Head::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timelines_read_flat_and_paired_intervals_and_skip_a_bad_track() {
        let t = Timeline::of(&json!({"tracks": [
            {"name": "a", "intervals": [1, 2, 3, 4]},
            {"name": "b", "intervals": [[5, 6]]},
            {"intervals": [[7, 8]]}
        ], "start_ns": 0}));
        assert_eq!(t.len(), 3);
        assert_eq!(
            t.tracks(),
            vec![
                ("a".to_string(), vec![(1.0, 2.0), (3.0, 4.0)]),
                ("b".to_string(), vec![(5.0, 6.0)])
            ]
        );
        assert_eq!(t.start_ns, Some(0.0));
    }

    #[test]
    fn series_keep_finite_points_only() {
        let d = SeriesDoc::of(&json!({"series": [
            {"name": "x", "unit": "ns", "points": [[1, 2], [3, null]]}
        ]}));
        assert_eq!(d.named("x"), Some(vec![(1.0, 2.0)]));
        assert_eq!(d.named("y"), None);
        assert!(SeriesDoc::of(&json!("no")).series.is_empty());
    }
}
