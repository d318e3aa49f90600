//! Kernel overhead models: one short, pure function per formula, each documented with
//! its source. The analysis (`rta`) and the simulator call these same functions, so a
//! figure charged by one is the figure spent by the other. Equations and sources are
//! collected in `docs/models.md`.

pub mod irqpath;
pub mod listscan;
pub mod tick;
pub mod tickless;

use latscope_core::Picos;

/// `base + k * per`, saturating (a cost never wraps around).
pub(crate) fn affine(base: Picos, per: Picos, k: u64) -> Picos {
    let v = (base.0 as i128) + (per.0 as i128) * (k as i128);
    Picos(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}
