# Types of the public API (the implementation is _api.py). A result's to_dict() is the
# command line's --json document (its keys and their meaning are in docs/*.schema.json);
# its doc is the same document as the typed classes of latscope.results, generated from
# those schemas by scripts/gen-python-results.py.
import os
from typing import Any, ClassVar, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._latscope import Capture
from .results import (
    AnalyzeDocument,
    Doc,
    FitDocument,
    MeasureDocument,
    SimulateDocument,
    TraceDocument,
)
from .errors import FileError as FileError
from .errors import InputError as InputError
from .errors import LatscopeError as LatscopeError

_Path = Union[str, "os.PathLike[str]"]
_Paths = Union[_Path, Sequence[_Path]]
_System = Union[_Path, Mapping[str, Any]]
_Duration = Union[str, int, float]
_Frequency = Union[str, int, float]
_Strings = Union[str, Sequence[str], None]
_Labels = Optional[Mapping[str, object]]

def system_toml(system: _System) -> str: ...

class Result:
    kind: ClassVar[Optional[str]]
    def __init__(self, json_text: str) -> None: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    @property
    def doc(self) -> Doc: ...
    def __getitem__(self, key: str) -> Any: ...
    def save(self, path: _Path) -> None: ...
    def to_pandas(self) -> Any: ...
    @property
    def source(self) -> str: ...

class TraceResult(Result):
    passed: bool
    def __init__(self, json_text: str, passed: bool, series_csv: Optional[str] = ...) -> None: ...
    @property
    def doc(self) -> TraceDocument: ...
    @property
    def series(self) -> Any: ...

class AnalysisResult(Result):
    @property
    def doc(self) -> AnalyzeDocument: ...
    @property
    def schedulable(self) -> bool: ...

class SimulationResult(Result):
    note: Optional[str]
    capture: Optional[Capture]
    @property
    def doc(self) -> SimulateDocument: ...
    def __init__(
        self,
        json_text: str,
        note: Optional[str] = ...,
        capture: Optional[Capture] = ...,
        series: Optional[Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[Any]]] = ...,
    ) -> None: ...
    @property
    def tick_series(
        self,
    ) -> Optional[Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[Any]]]: ...
    @property
    def ticks(self) -> Any: ...

class MeasureResult(Result):
    @property
    def doc(self) -> MeasureDocument: ...
    @property
    def interrupted(self) -> bool: ...

class FitResult(Result):
    target: Optional[str]
    def __init__(self, json_text: str, target: Optional[str], samples: Optional[Dict[str, Any]]) -> None: ...
    @property
    def doc(self) -> FitDocument: ...
    def apply(self, system: _System, line: str = ...) -> str: ...

def load(path: _Path) -> Result: ...
def read_capture(
    path: _Paths,
    format: Optional[str] = ...,
    samplerate: Optional[_Frequency] = ...,
    cpu_hz: Optional[_Frequency] = ...,
    threshold: Optional[float] = ...,
    hysteresis: Optional[float] = ...,
) -> Capture: ...
def trace(
    source: Union[Capture, _Paths],
    pulse: _Strings = ...,
    latency: _Strings = ...,
    period: _Strings = ...,
    busy: _Strings = ...,
    count: _Strings = ...,
    *,
    nominal: Optional[_Duration] = ...,
    window: Optional[_Duration] = ...,
    per: Optional[str] = ...,
    from_: Optional[_Duration] = ...,
    to: Optional[_Duration] = ...,
    spec: Optional[_Path] = ...,
    limit: _Strings = ...,
    worst: int = ...,
    bins: int = ...,
    series: bool = ...,
    format: Optional[str] = ...,
    samplerate: Optional[_Frequency] = ...,
    cpu_hz: Optional[_Frequency] = ...,
    threshold: Optional[float] = ...,
    hysteresis: Optional[float] = ...,
    labels: _Labels = ...,
) -> TraceResult: ...
def analyze(
    system: _System,
    tick_mode: Optional[str] = ...,
    overheads: bool = ...,
    *,
    release_delay: bool = ...,
    stop_at_deadline: bool = ...,
    labels: _Labels = ...,
    periodic_interrupts: bool = ...,
) -> AnalysisResult: ...
def simulate(
    system: _System,
    duration: Optional[_Duration] = ...,
    seed: int = ...,
    *,
    max_duration: _Duration = ...,
    exec: str = ...,
    irq_arrivals: str = ...,
    sleep_state: Optional[str] = ...,
    tickless: bool = ...,
    min_idle_ticks: int = ...,
    capture: bool = ...,
    series: bool = ...,
    labels: _Labels = ...,
) -> SimulationResult: ...
def measure(
    duration: Optional[_Duration] = ...,
    interval: _Duration = ...,
    *,
    cpus: Optional[str] = ...,
    policy: str = ...,
    priority: Optional[int] = ...,
    allow_fallback: bool = ...,
    mode: str = ...,
    loops: Optional[int] = ...,
    overrun: str = ...,
    pm_qos_us: Optional[Union[int, str]] = ...,
    load: _Strings = ...,
    compare_load: Optional[str] = ...,
    sweep: Optional[str] = ...,
    sweep_points: int = ...,
    histogram_us: int = ...,
    samples: Optional[_Path] = ...,
    lock_memory: bool = ...,
    sysroot: Optional[_Path] = ...,
    labels: _Labels = ...,
    rounds: Optional[int] = ...,
    trace_above: Optional[_Duration] = ...,
    probe_idle: bool = ...,
    samples_format: Optional[str] = ...,
) -> MeasureResult: ...
def fit(
    target: str,
    x: Optional[Iterable[float]] = ...,
    y_ns: Optional[Iterable[float]] = ...,
    *,
    traces: Optional[Iterable[Tuple[int, Union[TraceResult, _Path]]]] = ...,
    measurement: Optional[str] = ...,
    stat: str = ...,
    residuals: bool = ...,
) -> FitResult: ...

class Report:
    def __init__(self, inputs: List[Tuple[str, str]], title: Optional[str] = ...) -> None: ...
    def markdown(self) -> str: ...
    def save(self, path: _Path) -> None: ...

def report(*results: Union[Result, Mapping[str, Any]], title: Optional[str] = ...) -> Report: ...
