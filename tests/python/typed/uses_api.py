"""A small program using latscope's public API, checked by ``mypy --strict``
(test_typing.py): the stubs (_api.pyi, _latscope.pyi) and py.typed must give every call
a type, and the exception classes must be usable in ``except`` clauses."""

import sys
from pathlib import Path
from typing import List, Optional

import latscope


def wcrts(system: Path) -> List[float]:
    r: latscope.AnalysisResult = latscope.analyze(system, tick_mode="pessimistic")
    # The typed document: each field has the type of the Rust field it comes from.
    tasks: List[latscope.results.analyze.TaskResult] = r.doc.tasks
    return [t.wcrt_ns for t in tasks if t.wcrt_ns is not None]


def pulse_max(capture: str) -> Optional[float]:
    cap: latscope.Capture = latscope.read_capture(capture)
    first: str = cap.channels[0]
    t = latscope.trace(cap, pulse=first, window="1ms", labels={"board": "x"})
    ok: bool = t.passed
    edges = cap.edges(first)
    n: int = int(edges.size) + cap.edge_count(first)
    if not ok or n < 0:
        return None
    m = t.doc.measurements[0]
    limits_ok: bool = all(o.pass_ for o in t.doc.limits)
    return m.max_ns if limits_ok else None


def reload(saved: str) -> str:
    try:
        r = latscope.load(saved)
    except latscope.FileError as e:
        return f"cannot read ({e.errno}): {e}"
    except latscope.InputError as e:
        return f"not a result: {e}"
    except latscope.LatscopeError as e:
        return str(e)
    kind: Optional[str] = r.kind
    if isinstance(r, latscope.MeasureResult):
        cpus: int = len(r.doc.cpus)
        return f"{kind}: {cpus} CPUs"
    return kind or "?"


def main(argv: List[str]) -> int:
    sim = latscope.simulate(argv[1], duration="1s", seed=3)
    print(sim.note, sim.tick_series is None)
    print(wcrts(Path(argv[1])), pulse_max(argv[2]), reload(argv[3]))
    f = latscope.fit("tick", x=[1.0, 2.0, 3.0], y_ns=[100.0, 150.0, 200.0])
    slope: float = f.doc.upper_bound.slope_ns
    print(slope, sim.doc.duration_ns)
    toml_text: str = f.apply(argv[1])
    rep = latscope.report(sim, title="t")
    rep.save("/dev/null")
    print(len(toml_text), latscope.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
