//! Every file a command writes goes through a temporary file in the target's directory
//! and a rename ([`latscope_core::outfile`]), so a run that fails half-way, or is killed,
//! leaves an earlier result exactly as it was.

use anyhow::Context;
use latscope_core::outfile::{write_atomically, OutputFile};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes `bytes` to `path`; `option` names the flag in errors.
pub fn write(path: &Path, option: &str, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    Ok(write_atomically(path, option, bytes.as_ref())?)
}

/// Streams an output to `path` through `fill`; the file appears under its name only
/// when `fill` succeeded and everything reached the disk.
pub fn stream<F>(path: &Path, option: &str, fill: F) -> anyhow::Result<()>
where
    F: FnOnce(&mut BufWriter<OutputFile>) -> anyhow::Result<()>,
{
    let mut w = BufWriter::with_capacity(1 << 16, OutputFile::create(path, option)?);
    fill(&mut w).with_context(|| format!("{option}: cannot write {}", path.display()))?;
    w.flush()
        .with_context(|| format!("{option}: cannot write {}", path.display()))?;
    let file = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{option}: cannot write {}: {}", path.display(), e.error()))?;
    Ok(file.commit()?)
}
