//! Long calls without the GIL, interruptible by Ctrl-C.
//!
//! The work runs on its own thread; the calling thread releases the GIL and every 50 ms
//! takes it back briefly to let Python run its signal handlers. When one raises (SIGINT
//! gives KeyboardInterrupt), the work's stop flag is set and the exception is returned.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// How long the work may take to notice its stop flag before the call returns anyway
/// (work that never looks at it, like a file import, is then left to finish on its own
/// thread and its result dropped).
pub struct Join(pub Duration);

/// Runs `work(stop)` on a new thread and waits for it without holding the GIL. `join`:
/// after an interrupt, wait this long for the work to end (it should return soon after
/// `stop` is set); `None` returns at once.
pub fn interruptible<T, F>(py: Python<'_>, join: Option<Join>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(Arc<AtomicBool>) -> T + Send + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("latscope".into())
        .spawn(move || {
            let _ = tx.send(work(flag));
        })
        .map_err(|e| crate::errors::other(format!("cannot start a thread: {e}")))?;
    py.detach(move || loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(v) => return Ok(v),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(crate::errors::err(
                    "internal error: the worker thread ended without a result",
                ))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    stop.store(true, Ordering::SeqCst);
                    if let Some(Join(d)) = &join {
                        let _ = rx.recv_timeout(*d);
                    }
                    return Err(e);
                }
            }
        }
    })
}
