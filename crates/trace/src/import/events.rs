//! Event-trace recordings (RTOS trace recorders, Linux scheduler traces): detection and
//! dispatch to the one importer per format.
//!
//! Each importer turns its recording into the one event-trace model,
//! [`latscope_core::events::EventTrace`]; [`open`] reads one from a path (a stream is
//! spooled to a temporary file first, since every reader seeks), and the capture
//! importers reach the same readers through [`read`] and
//! [`EventTrace::to_capture`](latscope_core::events::EventTrace::to_capture).

use super::{
    display_name, is_stream, perf, read_head, stream_input, systemview, tracerecorder, Format,
    Options, StreamInput,
};
use crate::error::{Error, Place, Result};
use latscope_core::events::EventTrace;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Recognises an event-trace format from the first bytes of a file.
pub fn detect(head: &[u8]) -> Option<Format> {
    if perf::sniff(head) {
        Some(Format::Perf)
    } else if tracerecorder::sniff(head) {
        Some(Format::TraceRecorder)
    } else if systemview::sniff(head) {
        Some(Format::SystemView)
    } else {
        None
    }
}

/// Reads an event recording in the given format from a seekable reader, and checks the
/// model's rules on the result (an importer bug must not reach the measurements).
pub fn read<R: Read + Seek>(
    r: R,
    format: Format,
    name: &str,
    opts: &Options,
) -> Result<EventTrace> {
    let r = BufReader::with_capacity(1 << 16, r);
    let trace = match format {
        Format::Perf => perf::read(r, name, opts)?,
        Format::TraceRecorder => tracerecorder::read(r, name, opts)?,
        Format::SystemView => systemview::read(r, name, opts)?,
        f => {
            return Err(Error::format(
                name,
                Place::File,
                format!(
                    "a {} file is a capture, not an event recording (--tasks needs a perf, \
                     tracerecorder or systemview recording)",
                    f.name()
                ),
            ))
        }
    };
    trace
        .validate()
        .map_err(|e| Error::format(name, Place::File, e.to_string()))?;
    Ok(trace)
}

/// Opens an event recording: a file, or a stream (`-`, a pipe, a FIFO) spooled to a
/// temporary file. The format is `opts.format` or detected from the content.
pub fn open(path: &Path, opts: &Options) -> Result<EventTrace> {
    let name = display_name(path);
    if is_stream(path) {
        return match stream_input(path, opts)? {
            StreamInput::Spooled(sp, f) => {
                let file = sp.file.reopen().map_err(|e| Error::io(&name, e))?;
                read(file, f, &name, opts)
            }
            StreamInput::Loaded(_, f) => Err(Error::format(
                &name,
                Place::File,
                format!("a {} file is a capture, not an event recording", f.name()),
            )),
        };
    }
    let mut f = File::open(path).map_err(|e| Error::io(&name, e))?;
    let format = match opts.format {
        Some(fm) => fm,
        None => {
            let head = read_head(&mut f, &name)?;
            f.seek(SeekFrom::Start(0))
                .map_err(|e| Error::io(&name, e))?;
            if head.is_empty() {
                return Err(Error::format(&name, Place::File, "the file is empty"));
            }
            detect(&head).ok_or_else(|| {
                Error::format(
                    &name,
                    Place::File,
                    "not an event recording latscope knows (perf.data, Percepio \
                     TraceRecorder .psf, SEGGER SystemView .SVDat); name it with --format",
                )
            })?
        }
    };
    read(f, format, &name, opts)
}
