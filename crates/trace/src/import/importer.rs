//! The one shape every capture importer has for the dispatcher: recognise a file from
//! its first bytes, and read it with the import options.
//!
//! Each format's module keeps its own entry points (with the arguments its format needs);
//! the implementations here adapt them, so [`super::detect`] and
//! [`super::read_stream`] call one interface instead of eleven signatures. Event-trace
//! formats (perf, TraceRecorder, SystemView) read into an event trace first and sit
//! behind [`super::events`].

use super::{csv, cyclelog, native, saleae_bin, saleae_csv, scope_csv, sigrok, vcd};
use super::{limits, Options};
use crate::error::{Error, Result};
use latscope_core::capture::Capture;
use std::io::{BufReader, Read};

/// A capture format's reader.
pub(crate) trait Importer {
    /// True when a file's first bytes (up to 8 KB) look like this format. Text formats
    /// overlap (a scope CSV is also a CSV): [`super::detect`] asks them in its order.
    fn sniff(head: &[u8]) -> bool;
    /// Reads a whole capture from a reader that need not seek. `name` is the file name
    /// for errors; `stem` names the single channel of per-channel formats.
    fn read<R: Read>(r: R, name: &str, stem: &str, opts: &Options) -> Result<Capture>;
}

/// The non-empty, trimmed lines (at most 40) of a text file's first bytes, as the text
/// formats' sniffers look at them.
pub(crate) fn head_lines(text: &str) -> Vec<&str> {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .take(40)
        .collect()
}

/// `sniff` of a text format through its line sniffer.
fn sniff_lines(head: &[u8], f: impl Fn(&[&str]) -> bool) -> bool {
    let text = String::from_utf8_lossy(head);
    let lines = head_lines(&text);
    !lines.is_empty() && f(&lines)
}

/// A text reader whose lines are capped (see [`limits::LineCap`]).
fn text<R: Read>(r: R) -> BufReader<limits::LineCap<R>> {
    BufReader::with_capacity(1 << 16, limits::LineCap::new(r))
}

/// sigrok / PulseView session (.sr), a zip.
pub(crate) struct Sigrok;
impl Importer for Sigrok {
    fn sniff(head: &[u8]) -> bool {
        head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
    }
    fn read<R: Read>(_: R, name: &str, _: &str, _: &Options) -> Result<Capture> {
        // the directory is at the end: see `read_format` and `open_stream`
        Err(Error::usage(format!(
            "{name}: a sigrok session cannot be read from a stream without spooling"
        )))
    }
}

/// Saleae Logic 1.x binary export (one channel a file).
pub(crate) struct SaleaeBin;
impl Importer for SaleaeBin {
    fn sniff(head: &[u8]) -> bool {
        head.starts_with(b"<SALEAE>")
    }
    fn read<R: Read>(r: R, name: &str, stem: &str, opts: &Options) -> Result<Capture> {
        saleae_bin::read_opts(BufReader::with_capacity(1 << 16, r), name, stem, opts)
    }
}

/// latscope's own format (.lscap).
pub(crate) struct Native;
impl Importer for Native {
    fn sniff(head: &[u8]) -> bool {
        native::sniff(head)
    }
    fn read<R: Read>(r: R, name: &str, _: &str, _: &Options) -> Result<Capture> {
        native::read_stream(r, name)
    }
}

/// Value change dump.
pub(crate) struct Vcd;
impl Importer for Vcd {
    fn sniff(head: &[u8]) -> bool {
        let text = String::from_utf8_lossy(head);
        text.trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('$')
    }
    fn read<R: Read>(r: R, name: &str, _: &str, opts: &Options) -> Result<Capture> {
        vcd::read_opts(BufReader::with_capacity(1 << 16, r), name, opts)
    }
}

/// Oscilloscope CSV (time or index, voltages).
pub(crate) struct ScopeCsv;
impl Importer for ScopeCsv {
    fn sniff(head: &[u8]) -> bool {
        sniff_lines(head, scope_csv::sniff)
    }
    fn read<R: Read>(r: R, name: &str, _: &str, opts: &Options) -> Result<Capture> {
        scope_csv::read(text(r), name, opts)
    }
}

/// Saleae Logic digital CSV export.
pub(crate) struct SaleaeCsv;
impl Importer for SaleaeCsv {
    fn sniff(head: &[u8]) -> bool {
        sniff_lines(head, saleae_csv::sniff)
    }
    fn read<R: Read>(r: R, name: &str, _: &str, opts: &Options) -> Result<Capture> {
        saleae_csv::read_opts(text(r), name, opts)
    }
}

/// Cycle-counter log.
pub(crate) struct CycleLog;
impl Importer for CycleLog {
    fn sniff(head: &[u8]) -> bool {
        sniff_lines(head, cyclelog::sniff)
    }
    fn read<R: Read>(r: R, name: &str, _: &str, opts: &Options) -> Result<Capture> {
        cyclelog::read(text(r), name, opts.cpu_hz)
    }
}

/// Generic CSV of 0/1 columns (also sigrok-cli's CSV).
pub(crate) struct Csv;
impl Importer for Csv {
    /// sigrok-cli's commented header, or delimited 0/1 columns.
    fn sniff(head: &[u8]) -> bool {
        let text = String::from_utf8_lossy(head);
        let lines = head_lines(&text);
        let Some(first) = lines.first() else {
            return false;
        };
        (first.starts_with(';') && text.contains("libsigrok"))
            || ((first.contains(',') || first.contains(';') || first.contains('\t'))
                && csv::looks_digital(&lines))
    }
    fn read<R: Read>(r: R, name: &str, _: &str, opts: &Options) -> Result<Capture> {
        csv::read_opts(text(r), name, opts)
    }
}

/// Reads sigrok sessions from a seekable reader (the one format whose `read` needs it).
pub(crate) fn read_sigrok<R: Read + std::io::Seek>(
    r: R,
    name: &str,
    opts: &Options,
) -> Result<Capture> {
    sigrok::read_opts(BufReader::with_capacity(1 << 16, r), name, opts)
}
