"""The shared result summary (latscope_core::summary::ResultSummary): every summary the
CLI writes — trace measurements, simulate response/tick/switch figures, measure per-CPU
statistics — validates against docs/summary.schema.json, which is generated from the
type (a Rust test checks the file is current)."""

import json
import sys

import pytest

import latscope
from conftest import FIXTURES, ROOT, SCENARIOS, cli_json

jsonschema = pytest.importorskip("jsonschema")
SCHEMA = json.loads((ROOT / "docs" / "summary.schema.json").read_text())
SR = str(FIXTURES / "demo8.sr")


def _check(summary):
    jsonschema.validate(summary, SCHEMA)


def test_trace_measurements_validate():
    d = cli_json("trace", SR, "--pulse", "D0", "--latency", "D0:rise->D1:rise",
                 "--period", "D1:rise", "--busy", "D2,window=100us", "--count", "D3:rise,per=D0",
                 "--from", "4.9999ms")
    assert len(d["measurements"]) == 5
    for m in d["measurements"]:
        _check(m)
    # an empty range writes nulls, which the schema allows
    assert any(m["max_ns"] is None for m in d["measurements"])


@pytest.mark.parametrize("path", sorted(str(p) for p in SCENARIOS.glob("*/system.toml")))
def test_simulate_summaries_validate(path):
    d = cli_json("simulate", path, "--duration", "1s", "-q")
    for t in d["tasks"]:
        _check(t["response"])
    _check(d["tick"])
    _check(d["switches"])
    for q in d["interrupts"]:
        _check(q["response"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_measure_summaries_validate():
    d = cli_json("measure", "--loops", "50", "--interval", "200us", "--cpus", "0",
                 "--allow-fallback", "--no-mlock")
    _check(d["total"])
    for c in d["cpus"]:
        _check(c)


def test_the_schema_rejects_a_wrong_summary():
    m = latscope.trace(SR, pulse="D0").to_dict()["measurements"][0]
    m["max_ns"] = "60us"
    with pytest.raises(jsonschema.ValidationError):
        _check(m)
    with pytest.raises(jsonschema.ValidationError):
        _check({"count": -1})
    with pytest.raises(jsonschema.ValidationError):
        _check({"count": 1, "histogram": [{"low_ns": 0, "high_ns": 1}]})


def _kind_schema(kind):
    return json.loads((ROOT / "docs" / f"{kind}.schema.json").read_text())


@pytest.mark.parametrize("path", sorted(str(p) for p in SCENARIOS.glob("*/system.toml"))[:3])
def test_whole_results_validate_against_their_generated_schemas(path):
    """to_dict() of every API is a whole result of its kind (docs/<kind>.schema.json,
    generated from the Rust result types)."""
    for r in (latscope.analyze(path), latscope.simulate(path, duration="1s")):
        d = r.to_dict()
        jsonschema.validate(d, _kind_schema(d["kind"]))
    d = latscope.trace(SR, pulse="D0", period="D1:rise").to_dict()
    jsonschema.validate(d, _kind_schema("trace"))
    d = latscope.fit("tick", x=[0, 1, 2, 3], y_ns=[5000, 6100, 7000, 8200]).to_dict()
    jsonschema.validate(d, _kind_schema("fit"))
    d["kind"] = "trace"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(d, _kind_schema("fit"))
