//! Design-space sweeps: generated task sets (UUniFast; log-uniform, uniform or listed periods) at a range of
//! utilisations × configuration axes (any key of the system file), each analysed (and
//! optionally simulated for a bounded time).
//!
//! Determinism: the work items are the (utilisation, set) pairs in a fixed order
//! (utilisation outer, set inner); set `s` at utilisation index `u` is generated from the
//! seed [`set_seed`]`(seed, u, s)`, whatever thread or shard computes it, and is analysed
//! under every configuration (rows: configuration innermost). Results are emitted in item
//! order, so `--jobs` never changes the output and shard `K/N` is the K-th contiguous block
//! of the items ([`Shard::items`]).

mod axes;
mod range;
mod read;
mod rows;
mod run;
mod shard;
mod summary;

pub use axes::{configs, Axis, Config};
pub use range::UtilRange;
pub use read::{is_sweep_csv, read, ReadError};
pub use rows::{schema, table, SimFigures, SweepRow, COLUMNS};
pub use run::{run, run_item};
pub use shard::Shard;
pub use summary::{ratios, report_doc, RatioPoint};

use latscope_core::Picos;
use latscope_model::generate::{Method, PeriodDist};

/// Why a sweep cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("{0}")]
    Invalid(String),
    #[error("utilisation {utilisation} (index {util_index}), set {set} (seed {seed}): {what}")]
    Item {
        utilisation: f64,
        util_index: usize,
        set: usize,
        seed: u64,
        what: String,
    },
    #[error("{0}")]
    Output(String),
    #[error("interrupted")]
    Interrupted,
}

/// Everything that defines a sweep's rows (not how it is run).
#[derive(Debug, Clone)]
pub struct SweepSpec {
    pub configs: Vec<Config>,
    pub tasks: usize,
    pub utilisations: Vec<f64>,
    pub sets: usize,
    pub seed: u64,
    pub method: Method,
    pub max_task_utilisation: f64,
    pub period_min: Picos,
    pub period_max: Picos,
    pub granularity: Picos,
    /// How periods are drawn.
    pub periods: PeriodDist,
    /// Simulate each set under each configuration for this long.
    pub simulate: Option<Picos>,
}

impl SweepSpec {
    /// Work items: (utilisation index, set index) pairs.
    pub fn items(&self) -> usize {
        self.utilisations.len().saturating_mul(self.sets)
    }

    /// The item's (utilisation index, set index).
    pub fn item(&self, i: usize) -> (usize, usize) {
        (i / self.sets.max(1), i % self.sets.max(1))
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator seed of set `set` at utilisation index `util_index` (63 bits, so it fits
/// a signed 64-bit column): SplitMix64 over the sweep seed and both indices.
pub fn set_seed(seed: u64, util_index: usize, set: usize) -> u64 {
    let h = splitmix(seed);
    let h = splitmix(h ^ util_index as u64);
    splitmix(h.wrapping_add(0x5851_F42D_4C95_7F2D) ^ set as u64) & (u64::MAX >> 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_per_item_and_are_stable() {
        let mut seen = std::collections::HashSet::new();
        for u in 0..20 {
            for s in 0..50 {
                assert!(seen.insert(set_seed(1, u, s)));
            }
        }
        assert_eq!(set_seed(7, 3, 4), set_seed(7, 3, 4));
        assert_ne!(set_seed(7, 3, 4), set_seed(8, 3, 4));
        assert_ne!(set_seed(7, 3, 4), set_seed(7, 4, 3));
        assert!(set_seed(u64::MAX, 1, 1) <= i64::MAX as u64);
    }
}
