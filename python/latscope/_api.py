"""The public functions and result objects (the compiled part is ``_latscope``)."""

import copy
import html
import json
import os

from . import _latscope as _ext
from . import results
from ._latscope import Capture
from .errors import FileError, InputError, LatscopeError

# --------------------------------------------------------------------------- inputs


def _paths(p):
    """One path or a list of paths, as strings."""
    if isinstance(p, (str, bytes, os.PathLike)):
        return [os.fsdecode(p)]
    try:
        return [os.fsdecode(x) for x in p]
    except TypeError:
        raise TypeError(
            f"expected a path or a list of paths, got {type(p).__name__}"
        ) from None


def _freq(x):
    """A frequency: a number of Hz or a string with a unit ('24MHz')."""
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"a frequency is a number of Hz or a string like '24MHz', got {x!r}")
    if isinstance(x, float) and not x.is_integer():
        raise InputError(f"a frequency in Hz must be a whole number, got {x!r}")
    return f"{int(x)}Hz"


def _dur(x):
    """A duration: a string with a unit ('10ms') or a number of seconds."""
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"a duration is a string like '10ms' or a number of seconds, got {x!r}")
    return f"{x!r}s"


def _list(x):
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def _system(system):
    """(kind, text, name) of a system description given as a path, TOML text or a dict."""
    if isinstance(system, dict):
        return ("json", json.dumps(system), "<dict>")
    if isinstance(system, os.PathLike):
        p = os.fspath(system)
        return ("path", p, p)
    if isinstance(system, str):
        looks_like_text = "\n" in system or "[" in system or "=" in system
        if looks_like_text and not os.path.exists(system):
            return ("toml", system, "<string>")
        return ("path", system, system)
    raise TypeError(
        "system: give a file path, TOML text or a dict, not " + type(system).__name__
    )


def system_toml(system):
    """The system description (path, TOML text or dict) checked and written out as TOML
    in the documented format; raises LatscopeError naming the problem when invalid."""
    return _ext.check_system(*_system(system))


# --------------------------------------------------------------------------- results


def _flat(d, prefix=""):
    """Scalars of a nested dict, nested keys joined with '.'; lists are left out."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[prefix + k] = v
    return out


def _pandas():
    try:
        import pandas
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install pandas") from None
    return pandas


class Result:
    """A latscope result. ``to_dict()`` is the command line's ``--json`` output,
    ``doc`` the same document as typed classes (latscope.results, generated from the
    Rust types), ``save(path)`` writes the same file, ``to_pandas()`` the natural table.
    The JSON text is parsed once, when the result is made."""

    kind = None
    # The generated reader of this kind's document (latscope.results.<kind>.read).
    _read = None

    def __init__(self, json_text, _parsed=None):
        self._json = json_text
        self._data = json.loads(json_text) if _parsed is None else _parsed
        self._doc = None

    def to_json(self):
        """The JSON text, exactly as the command line writes it (without the final newline)."""
        return self._json

    def to_dict(self):
        """The result as a dict (a fresh copy each call)."""
        return copy.deepcopy(self._data)

    @property
    def doc(self):
        """The document as the typed classes of latscope.results (read on first use)."""
        if self._doc is None:
            self._doc = type(self)._read(self._data)
        return self._doc

    def __getitem__(self, key):
        return copy.deepcopy(self._data[key])

    def save(self, path):
        """Writes the JSON file the command line's ``--json PATH`` would write."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self._json + "\n")

    def to_pandas(self):  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def source(self):
        return self.doc.source

    def _repr_html_(self):
        return report(self)._repr_html_()

    def __repr__(self):
        return f"<latscope.{type(self).__name__} {self.kind}>"


def _rows(items):
    """One flat row (see _flat) per document object, in the JSON's key order."""
    return [_flat(i.as_json()) for i in items]


class TraceResult(Result):
    """Result of :func:`trace`: one row per measurement in ``to_pandas()``;
    ``passed`` is False when a limit failed; ``series`` (when asked for) every
    measured value against time."""

    kind = "trace"
    _read = staticmethod(results.trace.read)

    def __init__(self, json_text, passed, series_csv=None, _parsed=None):
        super().__init__(json_text, _parsed)
        self.passed = passed
        self._series_csv = series_csv

    def to_pandas(self):
        """One row per measurement: name, kind, unit, count, statistics, where the best
        and worst case happened (histograms and worst instances are in ``to_dict()``)."""
        return _pandas().DataFrame(_rows(self.doc.measurements))

    @property
    def series(self):
        """Every measured value against time (measurement, kind, at_ns, value, unit) as a
        DataFrame, when trace(..., series=True) was called; else None."""
        if self._series_csv is None:
            return None
        import io

        return _pandas().read_csv(io.StringIO(self._series_csv))

    @property
    def source(self):
        return self.doc.capture.source


class AnalysisResult(Result):
    """Result of :func:`analyze`: ``to_pandas()`` has one row per task (WCRT, slack,
    schedulable, breakdown) in the selected tick mode."""

    kind = "analyze"
    _read = staticmethod(results.analyze.read)

    def to_pandas(self):
        return _pandas().DataFrame(_rows(self.doc.tasks))

    @property
    def schedulable(self):
        return self.doc.schedulable


class SimulationResult(Result):
    """Result of :func:`simulate`: ``to_pandas()`` has one row per task (jobs, response
    times, misses); ``capture`` the virtual logic-analyzer capture (capture=True);
    ``ticks`` the duration of every tick (series=True)."""

    kind = "simulate"
    _read = staticmethod(results.simulate.read)

    def __init__(self, json_text, note=None, capture=None, series=None, _parsed=None):
        super().__init__(json_text, _parsed)
        self.note = note
        self.capture = capture
        self._series = series

    def to_pandas(self):
        return _pandas().DataFrame(_rows(self.doc.tasks))

    @property
    def tick_series(self):
        """(time_ps, duration_ps, released) numpy arrays, one element per tick, or None."""
        return self._series

    @property
    def ticks(self):
        """The tick series as a DataFrame (time_ps, duration_ps, released), or None."""
        if self._series is None:
            return None
        t, d, r = self._series
        return _pandas().DataFrame({"time_ps": t, "duration_ps": d, "released": r})


class MeasureResult(Result):
    """Result of :func:`measure`: ``to_pandas()`` has one row per CPU plus an 'all' row
    (per phase for compare_load, per sleep length for sweep)."""

    kind = "measure"
    _read = staticmethod(results.measure.read)

    @property
    def interrupted(self):
        return self.doc.interrupted

    @property
    def source(self):
        # A measurement reads no file: its source is the kind.
        return self.kind

    def to_pandas(self):
        d = self.doc

        def rows(phase, total, cpus):
            out = []
            for c in cpus:
                # phase, the CPU's figures, then its number as text (the column's place
                # and type since the first release)
                flat = _flat(c.as_json())
                flat.pop("cpu", None)
                r = {"phase": phase}
                r.update(flat)
                r.update(cpu=str(c.cpu))
                out.append(r)
            r = {"phase": phase, "cpu": "all"}
            r.update(_flat(total.as_json()))
            out.append(r)
            return out

        table = []
        if d.compare is not None:
            c = d.compare
            table += rows("idle", c.idle.total, c.idle.cpus)
            table += rows("loaded " + c.load, c.loaded.total, c.loaded.cpus)
        elif d.sweep:
            for p in d.sweep:
                table += rows(f"interval {p.interval_ns} ns", p.total, p.cpus)
        else:
            table += rows("run", d.total, d.cpus)
        return _pandas().DataFrame(table)


class FitResult(Result):
    """Result of :func:`fit`: the least-squares and the safe model; ``to_pandas()`` has
    the safe model against the largest sample at each x; ``apply(system)`` writes the
    model into a system description."""

    kind = "fit"
    _read = staticmethod(results.fit.read)

    def __init__(self, json_text, target, samples, _parsed=None):
        super().__init__(json_text, _parsed)
        self.target = target
        self._samples = samples

    def to_pandas(self):
        return _pandas().DataFrame(_rows(self.doc.excess))

    def apply(self, system, line="upper"):
        """The system description (path, TOML text or dict) as TOML text with the fitted
        model (``'upper'``: the safe one, on or above every sample, for analysis;
        ``'lsq'``: least squares) in [kernel.costs], as ``latscope fit --write``; a
        TOML input keeps its comments and order."""
        if line not in ("upper", "lsq"):
            raise InputError("line: use 'upper' or 'lsq'")
        if self._samples is None:
            raise InputError(
                "this fit result was loaded from a file and carries no samples; call "
                "latscope.fit() again to apply it"
            )
        return _ext.apply_fit(*_system(system), self.target, line, **self._samples)


# --------------------------------------------------------------------------- saved results

_CLASSES = {
    c.kind: c for c in (TraceResult, AnalysisResult, SimulationResult, MeasureResult, FitResult)
}


def _kind(data):
    """The ``kind`` of a parsed document, or None when it has none."""
    try:
        return results.read_kind(data)
    except InputError:
        return None


def _result_of(json_text, data):
    """The result object of a parsed document, its typed document read (so a file that
    does not fit its kind's types is refused here, naming the field); None for a kind
    the API does not return."""
    cls = _CLASSES.get(_kind(data))
    if cls is None:
        return None
    doc = cls._read(data)
    if cls is TraceResult:
        r = TraceResult(json_text, doc.pass_, _parsed=data)
    elif cls is FitResult:
        r = FitResult(json_text, doc.target, None, _parsed=data)
    else:
        r = cls(json_text, _parsed=data)
    r._doc = doc
    return r


def load(path):
    """A result saved by ``save(path)`` or by the command line's ``--json PATH``, as the
    result object the call would have returned (TraceResult, AnalysisResult,
    SimulationResult, MeasureResult or FitResult, by the file's ``kind``).
    ``to_json()`` gives the file's text back. What was not saved is not there: a trace
    result's ``series``, a simulation's ``capture`` and ``ticks``, a fit's samples.
    Raises FileError (an OSError) when the file cannot be read, InputError (a
    ValueError) when it is not a latscope result or does not fit its kind's types."""
    p = os.fspath(path)
    try:
        with open(p, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise FileError(f"{p}: {e.strerror or e}", e.errno, p) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{p}: byte {e.start}: not a latscope result (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"{p}: line {e.lineno}, column {e.colno}: not a latscope result ({e.msg})"
        ) from None
    kind = _kind(data)
    if kind is None:
        raise InputError(f'{p}: not a latscope result (no "kind")')
    json_text = text[:-1] if text.endswith("\n") else text
    try:
        result = _result_of(json_text, data)
    except InputError as e:
        raise InputError(f"{p}: {e}") from None
    if result is None:
        raise InputError(
            f"{p}: results of kind {kind!r} are not loaded (trace, analyze, "
            "simulate, measure and fit are)"
        )
    return result


# --------------------------------------------------------------------------- calls


def _labels(labels):
    """``labels={'board': 'rpi4'}`` as the CLI's ``--label board=rpi4``: a dict of
    strings, stored with host, kernel, cpu_model and latscope_version in the result's
    ``labels`` object."""
    if labels is None:
        return None
    if not isinstance(labels, dict):
        raise TypeError("labels: a dict of str to str, e.g. {'board': 'rpi4'}")
    return {str(k): str(v) for k, v in labels.items()}


def read_capture(path, format=None, samplerate=None, cpu_hz=None, threshold=None, hysteresis=None):
    """Reads a capture: sigrok .sr, Saleae CSV or binary export (a list of files is
    merged, one channel each), VCD, CSV, oscilloscope CSV, cycle-counter log or .lscap.
    The format is detected from the content unless given. ``samplerate``/``cpu_hz``: Hz
    or a string like '24MHz'; ``threshold``/``hysteresis``: volts (scope CSV)."""
    return _ext.read_capture(
        _paths(path),
        format=format,
        samplerate=_freq(samplerate),
        cpu_hz=_freq(cpu_hz),
        threshold=threshold,
        hysteresis=hysteresis,
    )


def trace(
    source,
    pulse=None,
    latency=None,
    period=None,
    busy=None,
    count=None,
    *,
    nominal=None,
    window=None,
    per=None,
    from_=None,
    to=None,
    spec=None,
    limit=None,
    worst=5,
    bins=50,
    series=False,
    format=None,
    samplerate=None,
    cpu_hz=None,
    threshold=None,
    hysteresis=None,
    labels=None,
):
    """Timing figures of a capture, as ``latscope trace``: ``source`` is a Capture or
    a path (or list of paths); each measurement keyword takes a string or a list of the
    CLI's strings, e.g. ``pulse='tick'``, ``latency='IRQ:rise->Task:rise'``,
    ``period='tick:rise'``, ``busy='Task,window=1ms'``, ``count='Task:rise,per=tick'``."""
    if not isinstance(source, Capture):
        source = _paths(source)
    j, passed, csv = _ext.trace(
        source,
        pulse=_list(pulse),
        latency=_list(latency),
        period=_list(period),
        busy=_list(busy),
        count=_list(count),
        nominal=_dur(nominal),
        window=_dur(window),
        per=per,
        from_=_dur(from_),
        to=_dur(to),
        spec=None if spec is None else os.fspath(spec),
        limit=_list(limit),
        worst=worst,
        bins=bins,
        series=series,
        format=format,
        samplerate=_freq(samplerate),
        cpu_hz=_freq(cpu_hz),
        threshold=threshold,
        hysteresis=hysteresis,
        labels=_labels(labels),
    )
    return TraceResult(j, passed, csv)


def analyze(
    system,
    tick_mode=None,
    overheads=True,
    *,
    release_delay=True,
    stop_at_deadline=False,
    labels=None,
    periodic_interrupts=False,
):
    """Fixed-priority response-time analysis with kernel overheads, as ``latscope
    analyze``. ``system``: a path, TOML text or a dict; ``tick_mode``: None (the
    file's), 'pessimistic' or 'partitioned'. ``periodic_interrupts=True`` declares the
    interrupts strictly periodic from their ``offset``, as ``--periodic-interrupts``:
    the offset-based bound then phases their handlers like tasks."""
    return AnalysisResult(
        _ext.analyze(
            *_system(system),
            tick_mode=tick_mode,
            overheads=overheads,
            release_delay=release_delay,
            stop_at_deadline=stop_at_deadline,
            labels=_labels(labels),
            periodic_interrupts=periodic_interrupts,
        )
    )


def simulate(
    system,
    duration="10s",
    seed=0,
    *,
    max_duration="600s",
    exec="auto",
    irq_arrivals="worst",
    sleep_state=None,
    tickless=True,
    min_idle_ticks=2,
    capture=False,
    series=False,
    labels=None,
):
    """Simulates the system, as ``latscope simulate``. ``duration=None`` runs one
    hyperperiod (at most ``max_duration``). ``capture=True`` keeps the virtual
    logic-analyzer capture (``result.capture``, a Capture for :func:`trace`);
    ``series=True`` the duration of every tick (``result.ticks``). Ctrl-C raises
    KeyboardInterrupt."""
    j, note, cap, ser = _ext.simulate(
        *_system(system),
        duration=_dur(duration),
        max_duration=_dur(max_duration),
        seed=seed,
        exec=exec,
        irq_arrivals=irq_arrivals,
        sleep_state=sleep_state,
        tickless=tickless,
        min_idle_ticks=min_idle_ticks,
        capture=capture,
        series=series,
        labels=_labels(labels),
    )
    return SimulationResult(j, note, cap, ser)


def measure(
    duration="10s",
    interval="1ms",
    *,
    cpus=None,
    policy="fifo",
    priority=None,
    allow_fallback=False,
    mode="absolute",
    loops=None,
    overrun="skip",
    pm_qos_us=None,
    load=None,
    compare_load=None,
    sweep=None,
    sweep_points=8,
    histogram_us=10000,
    samples=None,
    lock_memory=True,
    sysroot=None,
    labels=None,
    rounds=None,
    trace_above=None,
    probe_idle=False,
    samples_format=None,
):
    """Timer wake-up latency on this Linux host, as ``latscope measure`` (Linux only).
    ``cpus`` like '0,2-3' (default: all online); give ``loops`` instead of a duration
    to stop after that many wake-ups per CPU. The keywords are the CLI's flags, parsed
    and checked by the same code, so a refusal carries the CLI's message. Ctrl-C stops
    the measuring threads and raises KeyboardInterrupt."""
    if not hasattr(_ext, "measure"):
        raise LatscopeError("measure is only available on Linux")
    if loops is not None and duration == "10s":
        duration = None
    j, _interrupted = _ext.measure(
        duration=_dur(duration),
        interval=_dur(interval),
        cpus=None if cpus is None else str(cpus),
        policy=policy,
        priority=priority,
        allow_fallback=allow_fallback,
        mode=mode,
        loops=loops,
        overrun=overrun,
        pm_qos_us=pm_qos_us,
        load=_list(load),
        compare_load=compare_load,
        sweep=sweep,
        sweep_points=sweep_points,
        histogram_us=histogram_us,
        samples=None if samples is None else os.fspath(samples),
        lock_memory=lock_memory,
        sysroot=None if sysroot is None else os.fspath(sysroot),
        labels=_labels(labels),
        rounds=rounds,
        trace_above=None if trace_above is None else _dur(trace_above),
        probe_idle=probe_idle,
        samples_format=samples_format,
    )
    return MeasureResult(j)


def fit(target, x=None, y_ns=None, *, traces=None, measurement=None, stat="max", residuals=False):
    """Fits an overhead model, as ``latscope fit``: ``target`` 'tick' (x = tasks
    released, y = tick duration), 'switch' (x = levels scanned), 'insert' (x = queue
    position) or 'switch-optimised' (a constant). Samples as arrays ``x`` and ``y_ns``,
    or ``traces``: a list of (x, TraceResult or trace JSON path) with ``measurement``
    and ``stat``. ``residuals=True`` adds every sample's residual (``residuals_ns``)."""
    if traces is not None:
        items = []
        for xv, t in traces:
            if isinstance(t, TraceResult):
                items.append((int(xv), t.to_json(), f"<trace result {len(items) + 1}>"))
            else:
                p = os.fspath(t)
                with open(p, encoding="utf-8") as f:
                    items.append((int(xv), f.read(), p))
        samples = dict(traces=items, measurement=measurement, stat=stat)
    else:
        if x is None or y_ns is None:
            raise TypeError("fit: give x and y_ns, or traces")
        samples = dict(x=[float(v) for v in x], y_ns=[float(v) for v in y_ns])
    j = _ext.fit(target, residuals=residuals, **samples)
    return FitResult(j, target, samples)


# --------------------------------------------------------------------------- report


class Report:
    """The page ``latscope report`` writes: shown inline in Jupyter (``_repr_html_``),
    saved with ``save(path)`` (HTML, or Markdown when the name ends in .md)."""

    def __init__(self, inputs, title=None):
        self._inputs = inputs
        self._title = title
        self.html = _ext.render_report(inputs, title=title, format="html")

    def markdown(self):
        return _ext.render_report(self._inputs, title=self._title, format="md")

    def save(self, path):
        p = os.fspath(path)
        text = self.markdown() if p.endswith(".md") else self.html
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)

    def _repr_html_(self):
        # In an iframe, so the page's own styles and scripts stay inside it.
        return (
            '<iframe style="width:100%;height:640px;border:1px solid #ccc" srcdoc="'
            + html.escape(self.html, quote=True)
            + '"></iframe>'
        )

    def __repr__(self):
        return f"<latscope.Report of {len(self._inputs)} input(s)>"


def report(*results, title=None):
    """A report of results (objects returned by this package, dicts of results, or
    paths of result JSON / CSV series / Perfetto files), as ``latscope report``."""
    if not results:
        raise LatscopeError("no input files given")
    inputs = []
    for i, r in enumerate(results):
        if isinstance(r, Result):
            inputs.append((f"{r.kind} {i + 1}", r.to_json()))
        elif isinstance(r, dict):
            inputs.append((f"{_kind(r) or 'result'} {i + 1}", json.dumps(r)))
        else:
            p = os.fspath(r)
            with open(p, encoding="utf-8") as f:
                inputs.append((p, f.read()))
    return Report(inputs, title=title)
