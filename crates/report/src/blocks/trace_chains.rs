//! The chains of a `latscope trace --chain` result: one small table, each chain's
//! end-to-end row followed by its hops.

use super::{Builder, Cell, Table};
use crate::units::{dur, int};
use latscope_results::summary::{nan, DurationSummary as ResultSummary};
use latscope_results::trace::ChainResult;

/// A statistic as a cell: `–` when there is none.
fn v(x: Option<Option<f64>>) -> Cell {
    let x = nan(x);
    Cell::n(if x.is_finite() { dur(x) } else { "–".into() })
}

fn row(name: Cell, s: &ResultSummary, unmatched: u64) -> Vec<Cell> {
    vec![
        name,
        Cell::n(int(s.count as f64)),
        Cell::n(int(unmatched as f64)),
        v(s.min_ns),
        v(s.mean_ns),
        v(s.p50_ns),
        v(s.p99_ns),
        v(s.max_ns).bold(),
        v(s.max_at_ns),
    ]
}

/// The chains' table (nothing without chains).
pub(super) fn chains(b: &mut Builder, chains: &[ChainResult], level: u8) {
    if chains.is_empty() {
        return;
    }
    b.heading(level + 1, "Chains", None);
    let mut rows = Vec::new();
    for c in chains {
        rows.push(row(Cell::t(&c.name).bold(), &c.total, c.unmatched));
        for l in &c.links {
            rows.push(row(
                Cell::t(format!("  {} → {}", l.from, l.to)),
                &l.summary,
                l.lost,
            ));
        }
    }
    b.table(Table {
        headers: [
            "chain / hop",
            "count",
            "unmatched",
            "min",
            "mean",
            "p50",
            "p99",
            "max",
            "max at",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
    b.note(
        "A chain instance starts at each first-step edge and takes, hop by hop, the next \
         step's first unused edge (FIFO); hops are over the complete instances, so they add \
         up to the chain's latency; \"max at\" is where the instance (hop) started.",
    );
}
