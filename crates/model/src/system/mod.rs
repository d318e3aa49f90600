//! The system description shared by `latscope analyze` and `latscope simulate`.
//!
//! A system is a platform (CPU clock, interrupt entry latency, cache states), a kernel
//! (tick rate, scheduling options, overhead model and its costs, tickless sleep states),
//! tasks, interrupts and the longest interrupts-disabled sections. The file format is TOML
//! (JSON with the same structure is accepted); it is documented in `docs/system-format.md`
//! and `docs/system.schema.json`.
//!
//! Every time is stored as integer [`Picos`](latscope_core::time::Picos). Durations in the
//! file are strings with a unit (`"1.5us"`, `"5 ms"`, `"12 cycles"`); a bare number is
//! accepted only where the key names the unit (`cpu_hz`, `tick_hz`, `irq_entry_cycles`,
//! `safety_margin_ticks`).
//!
//! Errors name the file, the line and column (TOML only), the table (`task[3] "B"`) and
//! the key.
//!
//! Rooms: [`model`] (the validated types), `raw` (the file's structure as written),
//! `json` (reads JSON into that structure directly), `parse` (validation into the model),
//! `context` (spans to diagnostics, typed readers), `write` (TOML/JSON output), `error`
//! (diagnostics).

mod chains;
mod context;
pub mod cores;
mod error;
pub mod global;
mod json;
pub mod model;
mod parse;
mod raw;
mod resources;
pub mod tick_broadcast;
mod write;

pub use error::{Diagnostic, SystemError};
pub use model::*;
pub use tick_broadcast::{TickRelay, TickSource};
pub use write::format_exact;
