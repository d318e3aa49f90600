"""The typed result documents (latscope.results): generated from docs/*.schema.json by
scripts/gen-python-results.py and current with them; every field of a result's ``doc``
holds what the CLI's JSON holds under that key; a result's JSON is parsed once; a saved
file whose fields do not fit their types is refused, naming the field."""

import dataclasses
import importlib.util
import json
import subprocess
import sys

import pytest

import latscope
from latscope import results
from latscope.results._decode import JSON_KEY
from conftest import FIXTURES, ROOT, SCENARIOS, cli_json

SR = str(FIXTURES / "demo8.sr")
TICK = str(SCENARIOS / "freertos-tick" / "system.toml")
GEN = ROOT / "scripts" / "gen-python-results.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_python_results", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_classes_are_current():
    p = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_schema_change_makes_them_stale():
    gen = _generator()
    schema = json.loads((ROOT / "docs" / "fit.schema.json").read_text())
    schema["properties"]["new_figure_ns"] = {"type": "number"}
    text = gen.Gen("fit", schema).module()
    assert text != (ROOT / "python" / "latscope" / "results" / "fit.py").read_text()
    assert "    new_figure_ns: Optional[float] = None" in text


def _same(value, data, where):
    """Every field of a typed value equals the JSON value under the field's key."""
    if isinstance(value, results.Doc):
        assert isinstance(data, dict), where
        for f in dataclasses.fields(value):
            key = f.metadata.get(JSON_KEY, f.name)
            _same(getattr(value, f.name), data.get(key), f"{where}.{key}")
    elif isinstance(value, list):
        assert isinstance(data, list) and len(value) == len(data), where
        for i, (v, d) in enumerate(zip(value, data)):
            _same(v, d, f"{where}[{i}]")
    elif isinstance(value, dict):
        assert isinstance(data, dict) and value.keys() == data.keys(), where
        for k in value:
            _same(value[k], data[k], f"{where}.{k}")
    else:
        assert type(value) is type(data) and value == data, (where, value, data)


def _results():
    return [
        (latscope.trace(SR, pulse="D0", period="D1:rise", limit="D0.max<1ms"),
         cli_json("trace", SR, "--pulse", "D0", "--period", "D1:rise", "--limit", "D0.max<1ms")),
        (latscope.analyze(TICK), cli_json("analyze", TICK)),
        (latscope.simulate(TICK, duration="1s"), cli_json("simulate", TICK, "--duration", "1s", "-q")),
        (latscope.fit("tick", x=[1, 2, 3], y_ns=[100, 150, 210]), None),
    ]


def test_each_field_is_the_json_value():
    for r, cli in _results():
        doc = r.doc
        assert isinstance(doc, results.Doc)
        assert doc.kind == r.kind
        _same(doc, r.to_dict(), r.kind)
        if cli is not None:
            # The CLI's JSON, parsed by json here: the same values, key by key.
            _same(doc, cli, r.kind)


def test_typed_fields_by_name():
    t = latscope.trace(SR, pulse="D0", limit="D0.max<1ms")
    d = cli_json("trace", SR, "--pulse", "D0", "--limit", "D0.max<1ms")
    m = t.doc.measurements[0]
    assert (m.name, m.max_ns, m.count) == (
        d["measurements"][0]["name"], d["measurements"][0]["max_ns"], d["measurements"][0]["count"])
    assert t.doc.pass_ is d["pass"] and t.doc.limits[0].pass_ is d["limits"][0]["pass"]
    assert t.doc.capture.source == t.source == d["capture"]["source"]
    a = latscope.analyze(TICK).doc
    assert [x.wcrt_ns for x in a.tasks] == [x["wcrt_ns"] for x in cli_json("analyze", TICK)["tasks"]]


def test_the_json_is_parsed_once(monkeypatch):
    r = latscope.trace(SR, pulse="D0")
    a = latscope.analyze(TICK)

    def refuse(*a, **k):
        raise AssertionError("parsed again")

    monkeypatch.setattr(latscope._api.json, "loads", refuse)
    for res in (r, a):
        assert res.doc.kind == res.kind
        assert res.to_dict()["kind"] == res.kind
        assert res["kind"] == res.kind
        assert res.source
        assert len(res.to_pandas()) > 0
    assert r.passed and a.schedulable in (True, False)


def test_to_dict_is_a_fresh_copy():
    r = latscope.analyze(TICK)
    d = r.to_dict()
    d["tasks"].clear()
    assert r.to_dict()["tasks"] and r.doc.tasks


def test_load_refuses_a_field_of_the_wrong_type(tmp_path):
    d = cli_json("trace", SR, "--pulse", "D0")
    d["measurements"][0]["max_ns"] = "eleven"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(latscope.InputError, match=r"bad.json: measurements\[0\]\.max_ns: expected float, got str"):
        latscope.load(bad)
    del d["measurements"]
    bad.write_text(json.dumps(d))
    with pytest.raises(latscope.InputError, match="measurements: missing"):
        latscope.load(bad)


def test_read_kind():
    assert results.read_kind({"kind": "fit"}) == "fit"
    with pytest.raises(latscope.InputError, match="kind: missing"):
        results.read_kind({})
    with pytest.raises(latscope.InputError, match="kind: expected str, got int"):
        results.read_kind({"kind": 3})
