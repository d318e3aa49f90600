//! Why a private tracefs instance could not be set up. Shared by `--trace-above`
//! (`ftrace::live`) and `noise` tracing: both write the same control files, and a typed
//! error lets callers tell "this kernel cannot trace" from "a write failed" without
//! reading the message.

use std::path::{Path, PathBuf};

/// Every way setting up kernel tracing fails; each message names the file involved.
#[derive(Debug, thiserror::Error)]
pub enum TracefsError {
    #[error("not root: kernel tracepoints need root (tracefs)")]
    NotRoot,
    #[error("tracefs is not mounted and mounting it at /sys/kernel/tracing failed: {0}")]
    Mount(std::io::Error),
    #[error("tracepoint {0} is missing in this kernel")]
    MissingTracepoint(String),
    #[error("unknown trace event group '{0}'")]
    UnknownGroup(String),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot create trace instance {}: {source}", path.display())]
    Instance {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open trace_pipe: {0}")]
    Pipe(std::io::Error),
    #[error("cannot start the trace reader: {0}")]
    Reader(std::io::Error),
}

/// Writes `v` to the tracefs control file `p`.
pub fn write(p: &Path, v: &str) -> Result<(), TracefsError> {
    std::fs::write(p, v).map_err(|source| TracefsError::Write {
        path: p.to_path_buf(),
        source,
    })
}

/// Creates the tracefs instance directory `p`.
pub fn create_instance(p: &Path) -> Result<(), TracefsError> {
    std::fs::create_dir(p).map_err(|source| TracefsError::Instance {
        path: p.to_path_buf(),
        source,
    })
}
