//! `latscope.read_capture` and the `Capture` object: channel names, sample rate, time
//! range, and each channel's edge times as a numpy int64 array lent without a copy.

use crate::errors::{ctx, err};
use crate::interrupt::interruptible;
use latscope_core::frequency::Hz;
use latscope_trace::import::{self, Format, Options};
use numpy::ndarray::ArrayView1;
use numpy::PyArray1;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// A capture read from a file (or made by `simulate(..., capture=True)`): digital
/// channels as an initial level plus toggle times in picoseconds.
#[pyclass(frozen, module = "latscope")]
pub struct Capture {
    pub inner: Arc<latscope_core::capture::Capture>,
    /// Format name(s) of the file(s), as in `latscope trace` output.
    pub format: String,
}

impl Capture {
    pub fn new(inner: latscope_core::capture::Capture, format: String) -> Capture {
        Capture {
            inner: Arc::new(inner),
            format,
        }
    }

    fn index(&self, name: &str) -> PyResult<usize> {
        self.inner.channel_index(name).map_err(err)
    }
}

#[pymethods]
impl Capture {
    /// Channel names, in capture order (`'#N'` also names channel N).
    #[getter]
    fn channels(&self) -> Vec<String> {
        self.inner.channels.iter().map(|c| c.name.clone()).collect()
    }

    /// Sample rate of the instrument in Hz, or None when the file does not say.
    #[getter]
    fn samplerate(&self) -> Option<u64> {
        self.inner.samplerate_hz
    }

    /// Capture start in picoseconds (negative for pre-trigger data).
    #[getter]
    fn start_ps(&self) -> i64 {
        self.inner.start.0
    }

    /// Capture end in picoseconds.
    #[getter]
    fn end_ps(&self) -> i64 {
        self.inner.end.0
    }

    /// Where the capture came from (file name(s) or "simulation").
    #[getter]
    fn source(&self) -> String {
        self.inner.source.clone()
    }

    /// Format name(s) the file(s) were read as.
    #[getter]
    fn format(&self) -> String {
        self.format.clone()
    }

    /// Edge (toggle) times of a channel in picoseconds from the capture's time origin:
    /// a read-only numpy int64 array that shares the capture's memory (no copy).
    fn edges<'py>(slf: &Bound<'py, Self>, name: &str) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let me = slf.get();
        let i = me.index(name)?;
        let edges = &me.inner.channels[i].edges;
        // SAFETY: Picos is #[repr(transparent)] over i64, so the slice has the layout of
        // [i64]. The array's base is this Capture object, which keeps the Arc (and so the
        // edges, never mutated after creation) alive as long as the array exists; the array
        // is made read-only below.
        let ints: &[i64] =
            unsafe { std::slice::from_raw_parts(edges.as_ptr().cast::<i64>(), edges.len()) };
        let arr =
            unsafe { PyArray1::borrow_from_array(&ArrayView1::from(ints), slf.clone().into_any()) };
        arr.getattr("flags")?.setattr("writeable", false)?;
        Ok(arr)
    }

    /// Level of a channel at the capture start: 0 or 1.
    fn initial(&self, name: &str) -> PyResult<u8> {
        let i = self.index(name)?;
        Ok(self.inner.channels[i].initial as u8)
    }

    /// Number of edges of a channel.
    fn edge_count(&self, name: &str) -> PyResult<usize> {
        let i = self.index(name)?;
        Ok(self.inner.channels[i].edges.len())
    }

    fn __repr__(&self) -> String {
        format!(
            "<latscope.Capture {} ({}): {} channel(s), {} .. {} ps, samplerate {}>",
            self.inner.source,
            self.format,
            self.inner.channels.len(),
            self.inner.start.0,
            self.inner.end.0,
            self.inner
                .samplerate_hz
                .map(|r| format!("{r} Hz"))
                .unwrap_or_else(|| "unknown".into())
        )
    }
}

/// Input options shared by `read_capture` and `trace`; the keyword names are the CLI's
/// flags without the dashes.
pub struct InputOptions {
    pub format: Option<String>,
    pub samplerate: Option<String>,
    pub cpu_hz: Option<String>,
    pub threshold: Option<f64>,
    pub hysteresis: Option<f64>,
}

impl InputOptions {
    pub fn options(&self) -> PyResult<Options> {
        // The library's value types parse the keywords, as clap parses the CLI's flags.
        let format = self
            .format
            .as_deref()
            .map(|f| {
                f.parse::<Format>()
                    .map_err(|e| ctx(format!("format '{f}'"), e))
            })
            .transpose()?;
        let freq = |s: &Option<String>, what: &str| -> PyResult<Option<u64>> {
            s.as_deref()
                .map(|v| {
                    v.parse::<Hz>()
                        .map(|h| h.0)
                        .map_err(|e| ctx(format!("{what} '{v}'"), e))
                })
                .transpose()
        };
        Ok(Options {
            format,
            samplerate_hz: freq(&self.samplerate, "samplerate")?,
            cpu_hz: freq(&self.cpu_hz, "cpu_hz")?,
            threshold: self.threshold,
            hysteresis: self.hysteresis,
            only_channels: None,
            max_edges: None,
            warnings: Default::default(),
            // The default wait for a FIFO's writer (the CLI's LATSCOPE_FIFO_WAIT is not read here).
            fifo_wait: None,
        })
    }
}

/// Reads and merges capture files off the GIL; warnings go to Python's `warnings`.
pub fn load(
    py: Python<'_>,
    files: Vec<PathBuf>,
    opts: Options,
) -> PyResult<(latscope_core::capture::Capture, String, Vec<bool>)> {
    let warn = |warnings: &[String]| -> PyResult<()> {
        for w in warnings {
            let cat = py.get_type::<pyo3::exceptions::PyUserWarning>();
            let text = std::ffi::CString::new(w.as_str()).unwrap_or_default();
            PyErr::warn(py, &cat, &text, 1)?;
        }
        Ok(())
    };
    let loaded = match interruptible(py, None, move |_| import::load_files(&files, &opts))? {
        Ok(l) => l,
        Err((e, warnings)) => {
            warn(&warnings)?;
            return Err(match &e {
                latscope_trace::error::Error::Io { err: io, file } => {
                    crate::errors::file_err_msg(&e, file, io)
                }
                _ => err(e),
            });
        }
    };
    warn(&loaded.warnings)?;
    Ok((loaded.merged.capture, loaded.format, loaded.merged.decoded))
}

/// read_capture(paths, format=None, samplerate=None, cpu_hz=None, threshold=None,
/// hysteresis=None): the files merged into one Capture.
#[pyfunction]
#[pyo3(signature = (paths, format=None, samplerate=None, cpu_hz=None, threshold=None, hysteresis=None))]
pub fn read_capture(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    format: Option<String>,
    samplerate: Option<String>,
    cpu_hz: Option<String>,
    threshold: Option<f64>,
    hysteresis: Option<f64>,
) -> PyResult<Capture> {
    let opts = InputOptions {
        format,
        samplerate,
        cpu_hz,
        threshold,
        hysteresis,
    }
    .options()?;
    let (cap, format, _) = load(py, paths, opts)?;
    Ok(Capture::new(cap, format))
}
