//! Several input files merged into one capture (one Saleae binary file per channel, or
//! several sessions of one instrument), with selective decoding of the channels asked for.

use super::builder::selected;
use super::{
    detect_path, display_name, format_hz, is_stream, open_named, sigrok, stem_of, stream_input,
    Format, Options, Spooled, StreamInput,
};
use crate::error::{Error, Result};
use latscope_core::capture::Capture;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

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
    /// Per channel of `capture`: whether its edges were decoded (false for the channels
    /// that `only_channels` left out, in formats that decode selectively: sigrok, VCD,
    /// CSV, Saleae CSV and binary, oscilloscope CSV).
    pub decoded: Vec<bool>,
    /// The format of each input file, in order.
    pub formats: Vec<Format>,
}

/// One input of [`open_merged`], ready to read: a regular file (maybe a spooled stream)
/// or a stream already read.
struct Prepared {
    path: std::path::PathBuf,
    name: String,
    stem: String,
    format: Format,
    loaded: Option<Capture>,
    _spool: Option<Spooled>,
}

fn prepare(path: &Path, format: Option<Format>, opts: &Options) -> Result<Prepared> {
    let name = display_name(path);
    let stem = stem_of(path);
    if !is_stream(path) {
        let format = match format {
            Some(f) => f,
            None => detect_path(path)?,
        };
        return Ok(Prepared {
            path: path.to_path_buf(),
            name,
            stem,
            format,
            loaded: None,
            _spool: None,
        });
    }
    let o = Options {
        format,
        ..opts.clone()
    };
    Ok(match stream_input(path, &o)? {
        StreamInput::Loaded(c, f) => Prepared {
            path: path.to_path_buf(),
            name,
            stem,
            format: f,
            loaded: Some(c),
            _spool: None,
        },
        StreamInput::Spooled(sp, f) => Prepared {
            path: sp.file.path().to_path_buf(),
            name,
            stem,
            format: f,
            loaded: None,
            _spool: Some(sp),
        },
    })
}

/// Opens several files (each in the given format, or the detected one when None) and
/// merges them with [`merge`]. A path may be `-` (standard input), a pipe or a FIFO: see
/// [`open_stream`].
///
/// `opts.only_channels` names channels of the MERGED capture: a `#N` counts over all
/// files (as [`Capture::channel_index`] does on the result), so it is mapped to its file
/// and that file's own index before any selective decoding; a name selects that channel
/// in every file that has one. A requested channel is therefore always decoded,
/// whatever else is requested.
pub fn open_merged(files: &[(&Path, Option<Format>)], opts: &Options) -> Result<Merged> {
    let all = Options {
        only_channels: None,
        ..opts.clone()
    };
    let read = |p: &Prepared, only: Option<Vec<String>>| -> Result<Capture> {
        let o = Options {
            format: Some(p.format),
            only_channels: only,
            ..all.clone()
        };
        open_named(&p.path, &p.name, &p.stem, &o).map(|(c, _)| c)
    };
    if let [(path, format)] = files {
        // One file: its own indices are the merged ones, so the importer selects itself
        // (also from a stream, read once).
        let mut p = prepare(path, *format, opts)?;
        let capture = match p.loaded.take() {
            Some(c) => c,
            None => read(&p, opts.only_channels.clone())?,
        };
        let decoded = if selective(p.format) {
            let names: Vec<&str> = capture.channels.iter().map(|c| c.name.as_str()).collect();
            selected(opts.only_channels.as_deref(), &names)
        } else {
            vec![true; capture.channels.len()]
        };
        return Ok(Merged {
            capture,
            decoded,
            formats: vec![p.format],
        });
    }
    let mut inputs = Vec::with_capacity(files.len());
    for (p, f) in files {
        inputs.push(prepare(p, *f, &all)?);
    }
    let formats: Vec<Format> = inputs.iter().map(|p| p.format).collect();
    let Some(only) = &opts.only_channels else {
        let mut caps = Vec::new();
        for p in &mut inputs {
            let c = match p.loaded.take() {
                Some(c) => c,
                None => read(p, None)?,
            };
            caps.push((p.name.clone(), c));
        }
        let capture = merge(caps)?.ok_or_else(|| Error::usage("no input file"))?;
        let decoded = vec![true; capture.channels.len()];
        return Ok(Merged {
            capture,
            decoded,
            formats,
        });
    };
    // Pass 1: channel names of every file (sigrok: from the metadata alone; VCD and CSV:
    // from the header; other formats, which have no selective decoding, are read whole
    // once).
    let mut names: Vec<Vec<String>> = Vec::new();
    let mut done: Vec<Option<Capture>> = Vec::new();
    for p in &mut inputs {
        if names_first(p.format) && p.loaded.is_none() {
            let r = BufReader::with_capacity(
                1 << 16,
                File::open(&p.path).map_err(|e| Error::io(&p.name, e))?,
            );
            names.push(match p.format {
                Format::Sigrok => sigrok::channel_names(r, &p.name)?,
                Format::Vcd => super::vcd::channel_names(r, &p.name)?,
                Format::SaleaeBin => super::saleae_bin::channel_names(r, &p.name, &p.stem)?,
                _ => super::csv::channel_names(
                    BufReader::new(super::limits::LineCap::new(r)),
                    &p.name,
                    opts.samplerate_hz,
                )?,
            });
            done.push(None);
        } else {
            let c = match p.loaded.take() {
                Some(c) => c,
                None => read(p, None)?,
            };
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
    for (k, (p, c)) in inputs.iter().zip(done).enumerate() {
        let c = match c {
            Some(c) => {
                decoded.extend(std::iter::repeat_n(true, c.channels.len()));
                c
            }
            None => {
                // digital channels by this file's index; other names (analog channels,
                // measured through a threshold) by name
                let mut sel: Vec<String> = wanted[k].iter().map(|j| format!("#{j}")).collect();
                sel.extend(
                    only.iter()
                        .filter(|o| !o.starts_with('#') && !names[k].contains(o))
                        .cloned(),
                );
                let c = read(p, Some(sel))?;
                // channels past the named ones are analog channels asked for by name,
                // thresholded while read
                decoded.extend(
                    (0..c.channels.len()).map(|j| wanted[k].contains(&j) || j >= names[k].len()),
                );
                c
            }
        };
        caps.push((p.name.clone(), c));
    }
    let capture = merge(caps)?.ok_or_else(|| Error::usage("no input file"))?;
    Ok(Merged {
        capture,
        decoded,
        formats,
    })
}

/// Formats whose importers decode only the channels asked for (and threshold only the
/// analog channels asked for, never keeping their samples).
fn selective(f: Format) -> bool {
    names_first(f) || f == Format::ScopeCsv
}

/// Selective formats whose channel names can be read without decoding (several files
/// are named first, so that `#N` over the merged capture maps to a file).
fn names_first(f: Format) -> bool {
    matches!(
        f,
        Format::Sigrok | Format::Vcd | Format::Csv | Format::SaleaeCsv | Format::SaleaeBin
    )
}
