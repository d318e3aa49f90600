"""The result documents as typed Python classes, one module per kind (``trace``,
``analyze``, ``simulate``, ``measure``, ``fit``), generated from the JSON Schemas that
are generated from the Rust types (scripts/gen-python-results.py). A result object's
``doc`` is its document read into these classes, e.g. ``latscope.trace(...).doc
.measurements[0].max_ns``; ``to_dict()`` stays the plain JSON."""

from dataclasses import dataclass
from typing import Any

from . import analyze, fit, measure, simulate, trace
from ._decode import Doc, decode
from .analyze import AnalyzeDocument
from .fit import FitDocument
from .measure import MeasureDocument
from .simulate import SimulateDocument
from .trace import TraceDocument



@dataclass(frozen=True)
class Header(Doc):
    """What every result document starts with: its kind, which names the module (and
    the Rust type) the rest is read with."""

    kind: str


def read_kind(value: Any) -> str:
    """The ``kind`` of a parsed result document; InputError when it has none."""
    return decode(Header, value).kind


__all__ = [
    "AnalyzeDocument",
    "Doc",
    "Header",
    "FitDocument",
    "MeasureDocument",
    "SimulateDocument",
    "TraceDocument",
    "analyze",
    "fit",
    "measure",
    "read_kind",
    "simulate",
    "trace",
]
