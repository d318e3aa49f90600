//! Opening a named stream (a FIFO, a character device) without hanging.
//!
//! Opening a FIFO for reading blocks until something opens it for writing, and nothing
//! could interrupt that wait: a FIFO nobody writes to hung the import forever. It is
//! opened non-blocking instead, then waited on with a timeout; once a writer is there the
//! descriptor is made blocking again, so reading it is ordinary.

use crate::error::{Error, Place, Result};
use std::fs::File;
use std::path::Path;
use std::time::Duration;

/// How long a FIFO may stay without a writer (or without data from one) before the
/// import gives up: long enough for a producer started just after latscope.
pub const FIFO_WAIT: Duration = Duration::from_secs(10);

/// Opens `path` for reading; a FIFO must get a writer and data (or its end) within `wait`.
pub(crate) fn open_stream_path(path: &Path, name: &str, wait: Duration) -> Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let is_fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
        if is_fifo {
            let f = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)
                .map_err(|e| Error::io(name, e))?;
            wait_readable(&f, name, wait)?;
            return Ok(f);
        }
    }
    File::open(path).map_err(|e| Error::io(name, e))
}

#[cfg(unix)]
fn wait_readable(f: &File, name: &str, wait: Duration) -> Result<()> {
    use std::os::unix::io::AsRawFd;
    let fd = f.as_raw_fd();
    let deadline = std::time::Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let ms = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call; fd is owned by `f`.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Error::io(name, e));
        }
        if r > 0 {
            break; // data, or a writer that came and closed (POLLHUP): reads now answer
        }
        if left.is_zero() || ms == 0 {
            return Err(Error::format(
                name,
                Place::File,
                format!(
                    "a FIFO with no writer: nothing wrote to it (or opened it for writing) \
                     within {} s",
                    wait.as_secs_f64()
                ),
            ));
        }
    }
    // blocking again, so the readers see ordinary reads (not EAGAIN when the writer is slow)
    // SAFETY: fcntl on a valid descriptor owned by `f`.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(Error::io(name, std::io::Error::last_os_error()));
    }
    Ok(())
}
