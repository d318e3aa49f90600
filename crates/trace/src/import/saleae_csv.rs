//! Saleae Logic 2 digital CSV export: `Time [s],<channel names…>`, one row per change,
//! times in (possibly negative, pre-trigger) float seconds or ISO-8601 timestamps,
//! `X` where a channel has no data. Headers are parsed leniently (quotes, spaces, any
//! time unit in brackets). With `--samplerate` the float times are rounded to the
//! sample grid. The reading itself is shared with the generic CSV reader.

use super::csv::{read_core, CsvSettings};
use crate::error::Result;
use latscope_core::capture::Capture;
use std::io::BufRead;

/// True when the first line looks like a Saleae export header.
pub fn sniff(lines: &[&str]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let h = first.trim_start_matches('"').to_ascii_lowercase();
    h.starts_with("time [s]") || h.starts_with("time[s]") || h.starts_with("time [")
}

/// Reads a Saleae Logic 2 digital CSV export.
pub fn read<R: BufRead>(r: R, file: &str, samplerate: Option<u64>) -> Result<Capture> {
    read_core(
        r,
        file,
        CsvSettings {
            samplerate,
            default_exp: 12,
            warnings: Default::default(),
            max_edges: None,
            only: None,
            names_only: false,
        },
    )
}

/// [`read`] with every import option (sample rate, warnings).
pub fn read_opts<R: BufRead>(r: R, file: &str, opts: &super::Options) -> Result<Capture> {
    read_core(
        r,
        file,
        CsvSettings {
            samplerate: opts.samplerate_hz,
            default_exp: 12,
            warnings: opts.warnings.clone(),
            max_edges: opts.max_edges,
            only: opts.only_channels.clone(),
            names_only: false,
        },
    )
}
