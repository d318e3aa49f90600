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


# Each refusal through the Python keywords and through the CLI's flags: the measure
# library's PlanSpec checks both, so the messages must be identical.
REFUSALS = [
    (dict(pm_qos_us=-1), ["--pm-qos", "-1"]),
    (dict(pm_qos_us=2**31), ["--pm-qos", str(2**31)]),
    (dict(interval="500ns"), ["--interval", "500ns"]),
    (dict(interval="2h"), ["--interval", "2h"]),
    (dict(duration="1ms", interval="1ms"), ["--duration", "1ms", "--interval", "1ms"]),
    (dict(sysroot="/nonexistent-latscope-root", loops=1), ["--sysroot", "/nonexistent-latscope-root", "--loops", "1"]),
    (dict(policy="other", priority=5), ["--policy", "other", "--priority", "5"]),
    (dict(priority=100), ["--priority", "100"]),
    (dict(mode="busy"), ["--mode", "busy"]),
    (dict(overrun="drop"), ["--overrun", "drop"]),
    (dict(cpus="3-1"), ["--cpus", "3-1"]),
    (dict(load="gpu:1"), ["--load", "gpu:1"]),
    (dict(sweep="1ms..10us"), ["--sweep", "1ms..10us"]),
    (dict(sweep="10us..1ms", compare_load="cpu:1"), ["--sweep", "10us..1ms", "--compare-load", "cpu:1"]),
    (dict(sweep="10us..1ms", sweep_points=0), ["--sweep", "10us..1ms", "--sweep-points", "0"]),
    (dict(rounds=0), ["--rounds", "0"]),
    (dict(rounds=5, loops=4), ["--rounds", "5", "--loops", "4"]),
    (dict(trace_above="-5us"), ["--trace-above=-5us"]),
    (dict(histogram_us=0), ["--histogram-us", "0"]),
    (dict(samples="raw.bin", samples_format="parquet"), ["--samples", "raw.bin", "--samples-format", "parquet"]),
    (dict(labels={"host": "x"}), ["--label", "host=x"]),
]


@pytest.mark.parametrize("kw,flags", REFUSALS, ids=[" ".join(f) for _, f in REFUSALS])
def test_refusals_are_the_clis(kw, flags):
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.measure(**kw)
    assert str(ei.value) == cli_error("measure", *flags)


# A keyword's text goes through the same typed value (FromStr) as the CLI's flag: a bad
# one is an InputError, a ValueError, naming the flag and the value before anything runs.
BAD_KEYWORDS = [
    (dict(cpus="1-x"), "--cpus '1-x': "),
    (dict(sweep="10us"), "--sweep '10us': "),
    (dict(interval="5 parsecs"), "--interval '5 parsecs': "),
    (dict(load=["cpu:1", "gpu:1"]), "--load 'gpu:1': "),
    (dict(samples="raw.bin", samples_format="parquet"), "--samples-format 'parquet': "),
]


@pytest.mark.parametrize("kw,start", BAD_KEYWORDS, ids=[s for _, s in BAD_KEYWORDS])
def test_a_bad_keyword_is_a_value_error_naming_its_flag(kw, start):
    with pytest.raises(ValueError) as ei:
        latscope.measure(**kw)
    assert isinstance(ei.value, latscope.InputError)
    assert str(ei.value).startswith(start), str(ei.value)
    flags = []
    for k, v in kw.items():
        for one in v if isinstance(v, list) else [v]:
            flags += ["--" + k.replace("_", "-"), one]
    assert str(ei.value) == cli_error("measure", *flags)


def test_new_keywords_reach_the_plan():
    d = latscope.measure(rounds=2, **ARGS).to_dict()
    ref = cli_json("measure", "--rounds", "2", *CLI_ARGS)
    assert len(d["rounds"]) == len(ref["rounds"]) == 2
    assert sum(r["count"] for r in d["rounds"]) == d["total"]["count"] == 200


def test_hdr_field_decodes_with_the_hdrhistogram_library():
    """The documented `hdr` key is what HdrHistogram's own Python library decodes
    (docs/measure.md): same count, min, max and percentiles as the result's summary."""
    hdrh = pytest.importorskip("hdrh.histogram")
    total = latscope.measure(**ARGS).to_dict()["total"]
    h = hdrh.HdrHistogram.decode(total["hdr"])
    # Out-of-range samples are kept at the edges, so every sample is in the histogram.
    assert h.get_total_count() == total["count"]
    # hdrh reports a bucket's equivalent values; latscope's summary holds exact min/max,
    # and the buckets are at most 0.1 % wide (3 significant digits).
    for got, want in [
        (h.get_min_value(), total["min_ns"]),
        (h.get_max_value(), total["max_ns"]),
        (h.get_value_at_percentile(50), total["p50_ns"]),
        (h.get_value_at_percentile(99), total["p99_ns"]),
    ]:
        assert abs(got - want) <= max(1, 0.002 * want), (got, want)
