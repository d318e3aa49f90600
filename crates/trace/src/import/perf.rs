//! Linux `perf.data` (`perf sched record`, `perf record -e 'sched:*' -e 'irq:*'`) → the one event-trace model.
//!
//! Placeholder while the importer is being written: detection finds nothing and reading
//! refuses with a clear message.

use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::events::EventTrace;
use std::io::{Read, Seek};

/// True when the first bytes are this format's.
pub fn sniff(_head: &[u8]) -> bool {
    false
}

/// Reads a whole recording.
pub fn read<R: Read + Seek>(_r: R, name: &str, _opts: &Options) -> Result<EventTrace> {
    Err(Error::format(
        name,
        Place::File,
        "this recording format is not readable yet",
    ))
}
