//! The section of a `latscope sweep` file: the schedulability ratio against utilisation,
//! one curve per configuration, and the counts it is computed from.
//!
//! Input document (made by the command line from the sweep's CSV or Parquet rows):
//! `{"kind": "sweep", "curves": [{"config": …, "points": [{"utilisation": 0.8,
//! "sets": 100, "schedulable": 37}, …]}, …]}`. The ratio is `schedulable / sets`.

use super::{Builder, Cell, Table};
use crate::artifacts::SweepDoc;
use crate::charts::{self, RatioCurve};
use crate::ReportError;
use serde_json::Value;

/// One configuration's points: (utilisation, sets, schedulable sets).
pub type Counts = Vec<(f64, f64, f64)>;

/// (configuration, points) in the document's order.
pub fn curves(d: &Value) -> Vec<(String, Counts)> {
    SweepDoc::of(d)
        .curves
        .into_iter()
        .map(|c| {
            let pts = c
                .points
                .iter()
                .map(|p| (p.utilisation, p.sets, p.schedulable))
                .filter(|p| p.1 > 0.0)
                .collect();
            (c.config, pts)
        })
        .collect()
}

pub(super) fn sweep(b: &mut Builder, d: &Value, _level: u8) -> Result<(), ReportError> {
    let cs = curves(d);
    let total: f64 = cs.iter().flat_map(|c| c.1.iter().map(|p| p.1)).sum();
    b.facts(vec![
        ("configurations".into(), cs.len().to_string()),
        ("rows".into(), format!("{total}")),
    ]);
    let ratio: Vec<RatioCurve> = cs
        .iter()
        .map(|(name, pts)| RatioCurve {
            name: name.clone(),
            points: pts.iter().map(|&(u, n, s)| (u, s / n)).collect(),
        })
        .collect();
    b.figure(
        "Schedulability ratio",
        "Share of the generated sets that every task of which meets its deadline, against \
         the sets' total utilisation; one line per configuration.",
        || charts::schedulability(&ratio),
    )?;
    let mut headers = vec!["utilisation".to_string()];
    headers.extend(cs.iter().map(|c| c.0.clone()));
    let mut utils: Vec<f64> = cs.iter().flat_map(|c| c.1.iter().map(|p| p.0)).collect();
    utils.sort_by(f64::total_cmp);
    utils.dedup();
    let rows = utils
        .iter()
        .map(|&u| {
            let mut row = vec![Cell::n(format!("{:.1} %", u * 100.0))];
            for (_, pts) in &cs {
                row.push(match pts.iter().find(|p| p.0 == u) {
                    Some(&(_, n, s)) => Cell::n(format!("{:.1} % ({s}/{n})", 100.0 * s / n)),
                    None => Cell::t("–"),
                });
            }
            row
        })
        .collect();
    b.table(Table { headers, rows });
    Ok(())
}
