//! Output files that never damage an earlier result: every output is written to a
//! temporary file in the target's own directory and renamed over the target only when it
//! is complete. A run that fails, or is killed, leaves the old file as it was.
//!
//! Targets that are not regular files (`/dev/null`, a terminal, a FIFO) cannot be
//! replaced by a rename: those are written in place.
//!
//! Every command that writes a result uses this (measure, trace, convert, analyze, fit,
//! simulate, generate, scenario, report), so a failed run never damages an earlier result.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// An output that could not be written; names the file and the option it came from.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[error("{path}: {msg}")]
pub struct OutputError {
    pub path: String,
    pub msg: String,
}

fn out_err(path: &Path, msg: impl std::fmt::Display) -> OutputError {
    OutputError {
        path: path.display().to_string(),
        msg: msg.to_string(),
    }
}

#[cfg(unix)]
fn is_device_or_fifo(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_char_device() || m.file_type().is_fifo()
}

#[cfg(not(unix))]
fn is_device_or_fifo(_m: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn is_char_device(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    m.file_type().is_char_device()
}

#[cfg(not(unix))]
fn is_char_device(_m: &std::fs::Metadata) -> bool {
    false
}

/// How a target is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A regular file or a new name: temporary file, then rename.
    Replace,
    /// An existing character device or FIFO: written in place.
    InPlace,
}

fn kind_of(path: &Path, option: &str) -> Result<Kind, OutputError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(out_err(
            path,
            format!("{option}: is a directory, not a file"),
        )),
        Ok(m) if is_device_or_fifo(&m) => Ok(Kind::InPlace),
        Ok(m) if m.is_file() => Ok(Kind::Replace),
        Ok(_) => Err(out_err(
            path,
            format!("{option}: neither a regular file nor a device"),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Kind::Replace),
        Err(e) => Err(out_err(path, format!("{option}: {e}"))),
    }
}

fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn temp_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    parent_of(path).join(format!(".{name}.latscope-{}-{n}.tmp", std::process::id()))
}

/// Checks, before anything is measured, that `path` can be written the way it will be
/// at the end: a temporary file can be created (and removed) in its directory, and an
/// existing device accepts a byte (`/dev/full` does not). Changes nothing.
pub fn probe_writable(path: &Path, option: &str) -> Result<(), OutputError> {
    match kind_of(path, option)? {
        Kind::Replace => {
            let dir = parent_of(path);
            if !dir.is_dir() {
                return Err(out_err(
                    path,
                    format!("{option}: directory {} does not exist", dir.display()),
                ));
            }
            let tmp = temp_name(path);
            let f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .map_err(|e| {
                    out_err(
                        path,
                        format!("{option}: cannot create a file in {}: {e}", dir.display()),
                    )
                })?;
            drop(f);
            let _ = std::fs::remove_file(&tmp);
            Ok(())
        }
        Kind::InPlace => {
            let m = std::fs::metadata(path).map_err(|e| out_err(path, e))?;
            let mut f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| out_err(path, format!("{option}: cannot open for writing: {e}")))?;
            // A character device is probed with one byte (a FIFO is not: its reader
            // would see it).
            if is_char_device(&m) {
                f.write_all(b"\n")
                    .and_then(|_| f.flush())
                    .map_err(|e| out_err(path, format!("{option}: cannot write: {e}")))?;
            }
            Ok(())
        }
    }
}

/// One output being written. `commit` makes it visible under its name; dropping it
/// without a commit removes the temporary file and leaves the target untouched.
#[derive(Debug)]
pub struct OutputFile {
    target: PathBuf,
    temp: Option<PathBuf>,
    file: File,
}

impl OutputFile {
    /// Opens the temporary file (or the device) for `target`; `option` names the
    /// command-line option in errors.
    pub fn create(target: &Path, option: &str) -> Result<OutputFile, OutputError> {
        let (temp, open_at) = match kind_of(target, option)? {
            Kind::Replace => {
                let t = temp_name(target);
                (Some(t.clone()), t)
            }
            Kind::InPlace => (None, target.to_path_buf()),
        };
        let file = OpenOptions::new()
            .write(true)
            .create_new(temp.is_some())
            .open(&open_at)
            .map_err(|e| out_err(target, format!("{option}: cannot write: {e}")))?;
        Ok(OutputFile {
            target: target.to_path_buf(),
            temp,
            file,
        })
    }

    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes to disk and renames the temporary file over the target.
    pub fn commit(mut self) -> Result<(), OutputError> {
        self.file.flush().map_err(|e| out_err(&self.target, e))?;
        if let Some(tmp) = self.temp.take() {
            if let Err(e) = self.file.sync_all() {
                let _ = std::fs::remove_file(&tmp);
                return Err(out_err(&self.target, format!("cannot write: {e}")));
            }
            if let Err(e) = std::fs::rename(&tmp, &self.target) {
                let _ = std::fs::remove_file(&tmp);
                return Err(out_err(&self.target, format!("cannot replace: {e}")));
            }
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.temp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes `bytes` to `target` through a temporary file and a rename.
pub fn write_atomically(target: &Path, option: &str, bytes: &[u8]) -> Result<(), OutputError> {
    let mut o = OutputFile::create(target, option)?;
    o.write_all(bytes)
        .map_err(|e| out_err(target, format!("{option}: cannot write: {e}")))?;
    o.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_replaces_and_drop_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("keep.json");
        std::fs::write(&p, "old").unwrap();
        {
            let mut o = OutputFile::create(&p, "--json").unwrap();
            o.write_all(b"half").unwrap();
            // Dropped without commit: a failed run.
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temp removed"
        );
        write_atomically(&p, "--json", b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn probes_refuse_what_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        probe_writable(&dir.path().join("new.json"), "--json").unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let e = probe_writable(dir.path(), "--json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("directory"), "{e}");
        let e = probe_writable(Path::new("/nonexistent-dir/x.json"), "--json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent-dir"), "{e}");
        // /proc files exist but no file can be created next to them.
        assert!(probe_writable(Path::new("/proc/version"), "--json").is_err());
        // A full device is refused up front; /dev/null is fine.
        if Path::new("/dev/full").exists() {
            let e = probe_writable(Path::new("/dev/full"), "--samples")
                .unwrap_err()
                .to_string();
            assert!(e.contains("--samples"), "{e}");
        }
        probe_writable(Path::new("/dev/null"), "--samples").unwrap();
    }
}
