//! Importers: one module per format, and detection from content.
//!
//! [`open`] reads a file in the format named by [`Options::format`] or, when that is
//! `None`, the format [`detect`] recognises from the first bytes.

pub(crate) mod builder;
pub mod csv;
pub mod cyclelog;
mod files;
pub mod native;
pub mod saleae_bin;
pub mod saleae_csv;
pub mod scope_csv;
pub mod sigrok;
pub(crate) mod text;
pub mod vcd;

pub use files::{detect_file, load_files, Loaded};

use crate::error::{Error, Place, Result};
use latscope_core::capture::Capture;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// A frequency as people write it, exactly: `1 MHz`, `12.5 MHz`, `200 kHz`, `500 Hz`.
pub fn format_hz(hz: u64) -> String {
    for (unit, name) in [
        (1_000_000_000u64, "GHz"),
        (1_000_000, "MHz"),
        (1_000, "kHz"),
    ] {
        if hz >= unit {
            let (whole, frac) = (hz / unit, hz % unit);
            if frac == 0 {
                return format!("{whole} {name}");
            }
            let digits = unit.ilog10() as usize;
            let f = format!("{frac:0digits$}");
            return format!("{whole}.{} {name}", f.trim_end_matches('0'));
        }
    }
    format!("{hz} Hz")
}

/// `--samplerate` against the rate a file states: the same rate (or none given) is fine, a
/// different one is an error rather than a silent rescaling of every time in the capture.
pub(crate) fn check_stated_rate(file: &str, stated: Option<u64>, given: Option<u64>) -> Result<()> {
    match (stated, given) {
        (Some(s), Some(g)) if s != g => Err(Error::usage(format!(
            "{file} states samplerate {}; --samplerate {} contradicts it (drop --samplerate)",
            format_hz(s),
            format_hz(g)
        ))),
        _ => Ok(()),
    }
}

/// Every input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// sigrok / PulseView session (.sr, zip).
    Sigrok,
    /// Saleae Logic 2 digital CSV export.
    SaleaeCsv,
    /// Saleae Logic 2 binary export (v0 or v1, digital or analog).
    SaleaeBin,
    /// Value change dump.
    Vcd,
    /// Generic CSV: a time column and 0/1 channel columns (also sigrok-cli's CSV).
    Csv,
    /// Oscilloscope CSV: time (or index) and voltage columns.
    ScopeCsv,
    /// Cycle-counter log: `cycles label` lines.
    CycleLog,
    /// latscope's own format (.lscap).
    Native,
}

impl Format {
    pub const ALL: [(&'static str, Format); 8] = [
        ("sigrok", Format::Sigrok),
        ("saleae-csv", Format::SaleaeCsv),
        ("saleae-bin", Format::SaleaeBin),
        ("vcd", Format::Vcd),
        ("csv", Format::Csv),
        ("scope-csv", Format::ScopeCsv),
        ("cyclelog", Format::CycleLog),
        ("native", Format::Native),
    ];
    pub fn parse(s: &str) -> Option<Format> {
        let l = s.to_ascii_lowercase();
        let l = match l.as_str() {
            "sr" => "sigrok",
            "lscap" => "native",
            "scope" => "scope-csv",
            "cycles" | "dwt" => "cyclelog",
            "saleae" => "saleae-csv",
            x => x,
        };
        Format::ALL.iter().find(|(n, _)| *n == l).map(|&(_, f)| f)
    }
    pub fn name(self) -> &'static str {
        Format::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

/// Import settings that some formats need.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Sample rate for files that lack one (sigrok without `samplerate`, CSV sample
    /// indices), or to round float times to the sample grid (Saleae).
    pub samplerate_hz: Option<u64>,
    /// CPU clock of a cycle-counter log.
    pub cpu_hz: Option<u64>,
    /// Oscilloscope CSV: threshold in volts (default: midpoint of the 5th and 95th
    /// percentile levels).
    pub threshold: Option<f64>,
    /// Oscilloscope CSV: hysteresis in volts, total width around the threshold
    /// (default: 10 % of the 5–95 % level span).
    pub hysteresis: Option<f64>,
    /// Only these channels (names or `#index`) need edges: large sigrok captures then
    /// decode just those (the others stay listed, without edges). None = all.
    pub only_channels: Option<Vec<String>>,
}

/// Recognises a format from the first bytes of a file (up to a few KB).
pub fn detect(head: &[u8]) -> Option<Format> {
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Some(Format::Sigrok);
    }
    if head.starts_with(b"<SALEAE>") {
        return Some(Format::SaleaeBin);
    }
    if native::sniff(head) {
        return Some(Format::Native);
    }
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('$') {
        return Some(Format::Vcd);
    }
    let lines: Vec<&str> = trimmed
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .take(40)
        .collect();
    let first = lines.first()?;
    if first.starts_with(';') && text.contains("libsigrok") {
        return Some(Format::Csv);
    }
    if scope_csv::sniff(&lines) {
        return Some(Format::ScopeCsv);
    }
    if saleae_csv::sniff(&lines) {
        // Saleae's analog CSV export has the same header style, with voltages
        return Some(if csv::looks_analog(&lines) {
            Format::ScopeCsv
        } else {
            Format::SaleaeCsv
        });
    }
    if cyclelog::sniff(&lines) {
        return Some(Format::CycleLog);
    }
    if first.contains(',') || first.contains(';') || first.contains('\t') {
        // 0/1 columns: logic; other numbers: voltages.
        if csv::looks_digital(&lines) {
            return Some(Format::Csv);
        }
        return Some(Format::ScopeCsv);
    }
    None
}

/// Reads a capture from a file.
pub fn open(path: &Path, opts: &Options) -> Result<Capture> {
    let name = path.display().to_string();
    let mut f = File::open(path).map_err(|e| Error::io(&name, e))?;
    let format = match opts.format {
        Some(f) => f,
        None => {
            let mut head = vec![0u8; 8192];
            let mut n = 0;
            while n < head.len() {
                let k = f.read(&mut head[n..]).map_err(|e| Error::io(&name, e))?;
                if k == 0 {
                    break;
                }
                n += k;
            }
            head.truncate(n);
            f.seek(SeekFrom::Start(0))
                .map_err(|e| Error::io(&name, e))?;
            if n == 0 {
                return Err(Error::format(&name, Place::File, "the file is empty"));
            }
            detect(&head).ok_or_else(|| {
                Error::format(
                    &name,
                    Place::File,
                    "unrecognised capture format; name it with --format (sigrok, saleae-csv, \
                     saleae-bin, vcd, csv, scope-csv, cyclelog, native)",
                )
            })?
        }
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "ch".into());
    read_format(f, format, &name, &stem, opts)
}

/// Reads from any seekable reader in the given format. `name` is the file name for
/// errors; `stem` names the single channel of per-channel formats (Saleae binary).
pub fn read_format<R: Read + Seek>(
    r: R,
    format: Format,
    name: &str,
    stem: &str,
    opts: &Options,
) -> Result<Capture> {
    let cap = read_inner(r, format, name, stem, opts)?;
    // Every consumer subtracts edge times: keep them where differences cannot overflow.
    const LIMIT: i64 = 1 << 62;
    if cap.start.0 < -LIMIT || cap.end.0 > LIMIT || cap.end < cap.start {
        return Err(Error::format(
            name,
            Place::File,
            format!(
                "capture times out of range: start {} ps, end {} ps (at most ±{} ps, 53 days)",
                cap.start.0, cap.end.0, LIMIT
            ),
        ));
    }
    Ok(cap)
}

fn read_inner<R: Read + Seek>(
    r: R,
    format: Format,
    name: &str,
    stem: &str,
    opts: &Options,
) -> Result<Capture> {
    let br = BufReader::with_capacity(1 << 16, r);
    match format {
        Format::Sigrok => {
            sigrok::read_with(br, name, opts.samplerate_hz, opts.only_channels.as_deref())
        }
        Format::SaleaeCsv => saleae_csv::read(br, name, opts.samplerate_hz),
        Format::SaleaeBin => saleae_bin::read(br, name, stem, opts.samplerate_hz),
        Format::Vcd => vcd::read(br, name),
        Format::Csv => csv::read(br, name, opts.samplerate_hz),
        Format::ScopeCsv => scope_csv::read(br, name, opts),
        Format::CycleLog => cyclelog::read(br, name, opts.cpu_hz),
        Format::Native => {
            let mut v = Vec::new();
            let mut br = br;
            br.read_to_end(&mut v).map_err(|e| Error::io(name, e))?;
            native::read(&v, name)
        }
    }
}

/// Reads in-memory bytes (detecting the format unless `opts.format` is set).
pub fn read_bytes(bytes: &[u8], name: &str, opts: &Options) -> Result<Capture> {
    let format = match opts.format {
        Some(f) => f,
        None => detect(&bytes[..bytes.len().min(8192)])
            .ok_or_else(|| Error::format(name, Place::File, "unrecognised capture format"))?,
    };
    read_format(std::io::Cursor::new(bytes), format, name, "ch", opts)
}

/// Merges captures of the same instrument (e.g. one Saleae binary file per channel)
/// into one: channels appended, start/end the union. `caps` pairs each capture with its
/// file name. Captures that state different sample rates are refused (one resolution
/// cannot describe all channels; the error names both files and rates); when some state
/// a rate and others do not, the merged rate is unknown. None when `caps` is empty.
pub fn merge(caps: Vec<(String, Capture)>) -> Result<Option<Capture>> {
    let mut it = caps.into_iter();
    let Some((first_file, mut out)) = it.next() else {
        return Ok(None);
    };
    let rate_file = out.samplerate_hz.map(|_| first_file);
    for (file, c) in it {
        match (out.samplerate_hz, c.samplerate_hz, &rate_file) {
            (Some(a), Some(b), Some(fa)) if a != b => {
                return Err(Error::usage(format!(
                    "cannot merge captures with different sample rates: {fa} is sampled at {}, \
                     {file} at {} (one resolution cannot describe both; convert or measure them \
                     separately)",
                    format_hz(a),
                    format_hz(b)
                )));
            }
            (Some(_), Some(_), _) => {}
            _ => out.samplerate_hz = None,
        }
        out.start = out.start.min(c.start);
        out.end = out.end.max(c.end);
        out.source = format!("{} + {}", out.source, c.source);
        out.channels.extend(c.channels);
        out.analog.extend(c.analog);
    }
    Ok(Some(out))
}

/// The result of [`open_merged`].
#[derive(Debug)]
pub struct Merged {
    pub capture: Capture,
    /// Per channel of `capture`: whether its edges were decoded (false only for sigrok
    /// channels that `only_channels` left out).
    pub decoded: Vec<bool>,
}

/// Opens several files (each in the given format) and merges them with [`merge`].
///
/// `opts.only_channels` names channels of the MERGED capture: a `#N` counts over all
/// files (as [`Capture::channel_index`] does on the result), so it is mapped to its file
/// and that file's own index before any selective decoding; a name selects that channel
/// in every file that has one. A requested channel is therefore always decoded,
/// whatever else is requested.
pub fn open_merged(files: &[(&Path, Format)], opts: &Options) -> Result<Merged> {
    let all = Options {
        only_channels: None,
        ..opts.clone()
    };
    let Some(only) = &opts.only_channels else {
        let mut caps = Vec::new();
        for (p, f) in files {
            let o = Options {
                format: Some(*f),
                ..all.clone()
            };
            caps.push((p.display().to_string(), open(p, &o)?));
        }
        let capture = merge(caps)?.ok_or_else(|| Error::usage("no input file"))?;
        let decoded = vec![true; capture.channels.len()];
        return Ok(Merged { capture, decoded });
    };
    // Pass 1: channel names of every file (sigrok: from the metadata alone; other
    // formats are read whole once, as they have no selective decoding).
    let mut names: Vec<Vec<String>> = Vec::new();
    let mut done: Vec<Option<Capture>> = Vec::new();
    for (p, f) in files {
        if *f == Format::Sigrok {
            let name = p.display().to_string();
            let r = File::open(p).map_err(|e| Error::io(&name, e))?;
            names.push(sigrok::channel_names(BufReader::new(r), &name)?);
            done.push(None);
        } else {
            let o = Options {
                format: Some(*f),
                ..all.clone()
            };
            let c = open(p, &o)?;
            names.push(c.channels.iter().map(|c| c.name.clone()).collect());
            done.push(Some(c));
        }
    }
    let total: usize = names.iter().map(Vec::len).sum();
    // Pass 2: each requested channel as (file, that file's index).
    let mut wanted: Vec<Vec<usize>> = names.iter().map(|_| Vec::new()).collect();
    for o in only {
        match o.strip_prefix('#').and_then(|x| x.parse::<usize>().ok()) {
            Some(mut ix) if ix < total => {
                for (k, n) in names.iter().enumerate() {
                    if ix < n.len() {
                        wanted[k].push(ix);
                        break;
                    }
                    ix -= n.len();
                }
            }
            _ => {
                for (k, n) in names.iter().enumerate() {
                    wanted[k].extend(
                        n.iter()
                            .enumerate()
                            .filter(|(_, x)| *x == o)
                            .map(|(j, _)| j),
                    );
                }
            }
        }
    }
    let mut caps = Vec::new();
    let mut decoded = Vec::with_capacity(total);
    for (k, ((p, f), c)) in files.iter().zip(done).enumerate() {
        let c = match c {
            Some(c) => {
                decoded.extend(std::iter::repeat_n(true, c.channels.len()));
                c
            }
            None => {
                let o = Options {
                    format: Some(*f),
                    only_channels: Some(wanted[k].iter().map(|j| format!("#{j}")).collect()),
                    ..all.clone()
                };
                let c = open(p, &o)?;
                decoded.extend((0..c.channels.len()).map(|j| wanted[k].contains(&j)));
                c
            }
        };
        caps.push((p.display().to_string(), c));
    }
    let capture = merge(caps)?.ok_or_else(|| Error::usage("no input file"))?;
    Ok(Merged { capture, decoded })
}
