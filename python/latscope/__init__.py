"""latscope from Python: captures, timing figures, response-time analysis with kernel
overheads, simulation, Linux wake-up latency and reports.

Every call runs the same Rust code as the ``latscope`` command line; each result's
``to_dict()`` is exactly the command's ``--json`` output and ``save(path)`` writes the
same bytes. See docs/python.md.
"""

from ._latscope import Capture, LatscopeError, __version__
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
    "FitResult",
    "LatscopeError",
    "MeasureResult",
    "Report",
    "Result",
    "SimulationResult",
    "TraceResult",
    "__version__",
    "analyze",
    "fit",
    "measure",
    "read_capture",
    "report",
    "simulate",
    "system_toml",
    "trace",
]
