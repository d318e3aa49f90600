"""latscope from Python: captures, timing figures, response-time analysis with kernel
overheads, simulation, Linux wake-up latency and reports.

Every call runs the same Rust code as the ``latscope`` command line; each result's
``to_dict()`` is exactly the command's ``--json`` output, ``doc`` the same document as
typed classes (:mod:`latscope.results`, generated from the Rust result types), and
``save(path)`` writes the same bytes. See docs/python.md.
"""

from ._latscope import Capture, __version__
from .errors import FileError, InputError, LatscopeError
from . import results
from ._api import (
    AnalysisResult,
    FitResult,
    MeasureResult,
    Report,
    Result,
    SimulationResult,
    TraceResult,
    analyze,
    fit,
    load,
    measure,
    read_capture,
    report,
    simulate,
    system_toml,
    trace,
)

__all__ = [
    "AnalysisResult",
    "Capture",
    "FileError",
    "FitResult",
    "InputError",
    "LatscopeError",
    "MeasureResult",
    "Report",
    "Result",
    "SimulationResult",
    "TraceResult",
    "__version__",
    "analyze",
    "fit",
    "load",
    "measure",
    "read_capture",
    "report",
    "results",
    "simulate",
    "system_toml",
    "trace",
]
