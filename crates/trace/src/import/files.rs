//! Opening capture files as the user names them: the format detected from each file's
//! content (unless given), several files merged into one capture, the warnings the user
//! should see. Shared by the CLI's `trace`/`convert` and the Python binding, so both read
//! files the same way.

use super::{format_hz, open_merged, Format, Merged, Options};
use crate::error::Error;
use std::path::{Path, PathBuf};

/// What [`load_files`] read.
#[derive(Debug)]
pub struct Loaded {
    pub merged: Merged,
    /// The format name(s), `+`-joined when the files differ (e.g. `saleae-bin`).
    pub format: String,
    /// Things the user should be told (a `--samplerate` that had no effect, importer
    /// warnings), oldest first. Also when the import failed: see [`load_files`].
    pub warnings: Vec<String>,
}

/// Opens every file (format from `opts.format` or detected per file; `-` is standard
/// input) and merges them (one Saleae binary file per channel). On failure the
/// warnings collected so far are returned with the error.
pub fn load_files(
    files: &[PathBuf],
    opts: &Options,
) -> std::result::Result<Loaded, (Error, Vec<String>)> {
    let paths: Vec<(&Path, Option<Format>)> =
        files.iter().map(|f| (f.as_path(), opts.format)).collect();
    if paths.is_empty() {
        return Err((Error::usage("no input file"), Vec::new()));
    }
    if paths.iter().filter(|(p, _)| p.as_os_str() == "-").count() > 1 {
        return Err((
            Error::usage("standard input ('-') can be read only once"),
            Vec::new(),
        ));
    }
    let res = open_merged(&paths, opts);
    let mut warnings = opts.warnings.take();
    let merged: Merged = match res {
        Ok(m) => m,
        Err(e) => return Err((e, warnings)),
    };
    let inputs: Vec<(&Path, Format)> = paths
        .iter()
        .zip(&merged.formats)
        .map(|((p, _), f)| (*p, *f))
        .collect();
    let mut fmts: Vec<&str> = merged.formats.iter().map(|f| f.name()).collect();
    fmts.dedup();
    // A rate the file states and --samplerate contradicts is overridden (with a warning);
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
    let format = fmts.join("+");
    Ok(Loaded {
        merged,
        format,
        warnings,
    })
}
