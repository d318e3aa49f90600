"""measure() (Linux): the JSON has the CLI's structure and validates against the schema;
the values are live measurements, so they are compared by shape, not by number."""

import json
import sys

import pytest

import latscope
from conftest import ROOT, cli_error, cli_json

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

ARGS = dict(loops=200, interval="200us", cpus="0", allow_fallback=True, lock_memory=False)
CLI_ARGS = ["--loops", "200", "--interval", "200us", "--cpus", "0", "--allow-fallback", "--no-mlock"]


def _keys(d):
    if isinstance(d, dict):
        return {k: _keys(v) for k, v in d.items() if k not in ("histogram", "items")}
    return type(d).__name__ if not isinstance(d, list) else "list"


def test_same_structure_and_settings_as_cli():
    mine = latscope.measure(**ARGS).to_dict()
    ref = cli_json("measure", *CLI_ARGS)
    assert _keys(mine) == _keys(ref)
    assert mine["settings"] == ref["settings"]
    assert mine["total"]["count"] == ref["total"]["count"] == 200
    assert [i["name"] for i in mine["environment"]["items"]] == [
        i["name"] for i in ref["environment"]["items"]
    ]


def test_validates_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "measure.schema.json").read_text())
    jsonschema.validate(latscope.measure(**ARGS).to_dict(), schema)


def test_to_pandas_per_cpu_and_all():
    r = latscope.measure(**ARGS)
    df = r.to_pandas()
    d = r.to_dict()
    assert list(df["cpu"]) == ["0", "all"]
    assert list(df["count"]) == [d["cpus"][0]["count"], d["total"]["count"]]
    assert list(df["max_ns"]) == [d["cpus"][0]["max_ns"], d["total"]["max_ns"]]
    assert not r.interrupted


def test_errors_carry_the_cli_message():
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.measure(interval="-1ms")
    assert str(ei.value) == cli_error("measure", "--interval", "-1ms")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.measure(policy="deadline")
    assert str(ei.value) == cli_error("measure", "--policy", "deadline")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.measure(cpus="9999", loops=1)
    assert str(ei.value) == cli_error("measure", "--cpus", "9999", "--loops", "1")
