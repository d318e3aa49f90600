//! Opening capture files as the user names them: the format detected from each file's
//! content (unless given), several files merged into one capture. Shared by the CLI's
//! `trace`/`convert` and the Python binding, so both read files the same way.

use super::{detect, format_hz, open_merged, Format, Merged, Options};
use crate::error::{Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The format of a file, recognised from its first 8 KiB.
pub fn detect_file(p: &Path) -> Result<Format> {
    let name = p.display().to_string();
    let mut f = std::fs::File::open(p).map_err(|e| Error::io(&name, e))?;
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
    if n == 0 {
        return Err(Error::usage(format!("{name}: the file is empty")));
    }
    detect(&head).ok_or_else(|| {
        Error::usage(format!(
            "{name}: unrecognised capture format; name it with --format (sigrok, saleae-csv, saleae-bin, vcd, csv, scope-csv, cyclelog, native)"
        ))
    })
}

/// What [`load_files`] read.
#[derive(Debug)]
pub struct Loaded {
    pub merged: Merged,
    /// The format name(s), `+`-joined when the files differ (e.g. `saleae-bin`).
    pub format: String,
    /// Things the user should be told (a `--samplerate` that had no effect).
    pub warnings: Vec<String>,
}

/// Opens every file (format from `opts.format` or detected per file) and merges them
/// (one Saleae binary file per channel).
pub fn load_files(files: &[PathBuf], opts: &Options) -> Result<Loaded> {
    let mut inputs = Vec::new();
    let mut fmts = Vec::new();
    for f in files {
        let fmt = match opts.format {
            Some(x) => x,
            None => detect_file(f)?,
        };
        inputs.push((f.as_path(), fmt));
        fmts.push(fmt.name());
    }
    fmts.dedup();
    if inputs.is_empty() {
        return Err(Error::usage("no input file"));
    }
    let merged = open_merged(&inputs, opts)?;
    let mut warnings = Vec::new();
    // A rate the file states and --samplerate contradicts is an error in the importer;
    // formats whose times are absolute (VCD, native, cycle logs, analog data) ignore it.
    if let Some(g) = opts.samplerate_hz {
        if merged.capture.samplerate_hz != Some(g) {
            // name the files whose times are absolute (a merge may mix them with
            // sampled ones, whose rate then becomes unknown)
            let absolute: Vec<_> = inputs
                .iter()
                .filter(|(_, f)| matches!(f, Format::Vcd | Format::Native | Format::CycleLog))
                .copied()
                .collect();
            let ignoring = if absolute.is_empty() {
                &inputs
            } else {
                &absolute
            };
            warnings.push(format!(
                "--samplerate {} has no effect on {} ({}): its times are not sample numbers; ignored",
                format_hz(g),
                ignoring
                    .iter()
                    .map(|(f, _)| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                ignoring
                    .iter()
                    .map(|(_, x)| x.name())
                    .collect::<Vec<_>>()
                    .join("+")
            ));
        }
    }
    Ok(Loaded {
        merged,
        format: fmts.join("+"),
        warnings,
    })
}
