//! Every file a command writes goes through a temporary file in the target's directory
//! and a rename ([`latscope_core::outfile`]), so a run that fails half-way, or is killed,
//! leaves an earlier result exactly as it was. The path `-` is standard output, for every
//! output of every command (docs/cli.md).

use anyhow::Context;
use latscope_core::outfile::{write_atomically, OutputFile};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Whether `path` names standard output (or standard input, where a file is read).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Writes `bytes` to `path` (`-`: standard output); `option` names the flag in errors.
pub fn write(path: &Path, option: &str, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    if is_stdio(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes.as_ref())
            .and_then(|()| out.flush())
            .with_context(|| format!("{option} -: cannot write to standard output"))?;
        return Ok(());
    }
    Ok(write_atomically(path, option, bytes.as_ref())?)
}

/// Where [`stream`] writes: the temporary file that becomes `path`, or standard output.
pub enum Sink {
    File(BufWriter<OutputFile>),
    Stdout(BufWriter<std::io::Stdout>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(w) => w.write(buf),
            Sink::Stdout(w) => w.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::File(w) => w.write_all(buf),
            Sink::Stdout(w) => w.write_all(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(w) => w.flush(),
            Sink::Stdout(w) => w.flush(),
        }
    }
}

/// Streams an output to `path` (`-`: standard output) through `fill`; a file appears
/// under its name only when `fill` succeeded and everything reached the disk.
pub fn stream<F>(path: &Path, option: &str, fill: F) -> anyhow::Result<()>
where
    F: FnOnce(&mut Sink) -> anyhow::Result<()>,
{
    let shown = if is_stdio(path) {
        "standard output".to_string()
    } else {
        path.display().to_string()
    };
    let mut sink = if is_stdio(path) {
        Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout()))
    } else {
        Sink::File(BufWriter::with_capacity(
            1 << 16,
            OutputFile::create(path, option)?,
        ))
    };
    fill(&mut sink).with_context(|| format!("{option}: cannot write {shown}"))?;
    sink.flush()
        .with_context(|| format!("{option}: cannot write {shown}"))?;
    match sink {
        Sink::Stdout(_) => Ok(()),
        Sink::File(w) => {
            let file = w
                .into_inner()
                .map_err(|e| anyhow::anyhow!("{option}: cannot write {shown}: {}", e.error()))?;
            Ok(file.commit()?)
        }
    }
}
