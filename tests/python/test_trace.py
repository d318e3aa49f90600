"""trace(): the same JSON as `latscope trace --json` on the same inputs."""

import io

import pandas as pd
import pytest

import latscope
from conftest import FIXTURES, cli_error, cli_json, run_cli

SR = str(FIXTURES / "demo8.sr")

CASES = [
    (dict(pulse="D0"), ["--pulse", "D0"]),
    (dict(pulse=["D0:low", "D3"]), ["--pulse", "D0:low", "--pulse", "D3"]),
    (dict(latency="D0:rise->D1:rise"), ["--latency", "D0:rise->D1:rise"]),
    (dict(period="D1:rise", nominal="4us"), ["--period", "D1:rise", "--nominal", "4us"]),
    (dict(busy="D2", window="100us"), ["--busy", "D2", "--window", "100us"]),
    (dict(count="D3:rise,per=D0"), ["--count", "D3:rise,per=D0"]),
    (dict(pulse="D1", from_="1ms", to="3ms", worst=2, bins=7), ["--pulse", "D1", "--from", "1ms", "--to", "3ms", "--worst", "2", "--bins", "7"]),
]


@pytest.mark.parametrize("kw,args", CASES)
def test_same_json_as_cli_from_a_path(kw, args):
    r = latscope.trace(SR, **kw)
    assert r.to_dict() == cli_json("trace", SR, *args)


@pytest.mark.parametrize("kw,args", CASES)
def test_same_measurements_from_a_capture_object(kw, args):
    cap = latscope.read_capture(SR)
    r = latscope.trace(cap, **kw).to_dict()
    ref = cli_json("trace", SR, *args)
    assert r["measurements"] == ref["measurements"]
    assert r["pass"] == ref["pass"]


def test_limits_and_pass():
    ok = latscope.trace(SR, pulse="D0", limit="D0.max<1ms")
    bad = latscope.trace(SR, pulse="D0", limit="D0.max<1ns")
    assert ok.passed and not bad.passed
    assert bad.to_dict() == cli_json("trace", SR, "--pulse", "D0", "--limit", "D0.max<1ns")
    assert run_cli("trace", SR, "--pulse", "D0", "--limit", "D0.max<1ns").returncode == 1


def test_to_pandas_one_row_per_measurement():
    r = latscope.trace(SR, pulse=["D0", "D1"], period="D2:rise")
    df = r.to_pandas()
    d = r.to_dict()["measurements"]
    assert list(df["name"]) == [m["name"] for m in d]
    assert list(df["max_ns"]) == [m["max_ns"] for m in d]
    assert list(df["count"]) == [m["count"] for m in d]


def test_series_matches_cli_csv(tmp_path):
    out = tmp_path / "s.csv"
    run_cli("trace", SR, "--pulse", "D0", "--series", out)
    r = latscope.trace(SR, pulse="D0", series=True)
    assert r.series.equals(pd.read_csv(out))
    assert latscope.trace(SR, pulse="D0").series is None


def test_save_writes_the_cli_file(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run_cli("trace", SR, "--pulse", "D0", "--json", a)
    latscope.trace(SR, pulse="D0").save(b)
    assert a.read_bytes() == b.read_bytes()


def test_errors_carry_the_cli_message():
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.trace(SR, pulse="NOPE")
    assert str(ei.value) == cli_error("trace", SR, "--pulse", "NOPE")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.trace(SR, latency="D0->")
    assert str(ei.value) == cli_error("trace", SR, "--latency", "D0->")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.trace(SR, pulse="D0", limit="D0.bogus<1")
    assert str(ei.value) == cli_error("trace", SR, "--pulse", "D0", "--limit", "D0.bogus<1")
    with pytest.raises(TypeError):
        latscope.trace(42, pulse="D0")


ANALOG = str(FIXTURES / "demo_analog.sr")


@pytest.mark.parametrize("levels", [dict(), dict(threshold=1.0, hysteresis=0.2)])
def test_analog_channel_measured_as_the_cli_does(levels):
    # from a path: thresholded while read; from a Capture object: thresholded from the
    # kept samples. Both give the CLI's figures.
    flags = [x for k, v in levels.items() for x in (f"--{k}", str(v))]
    ref = cli_json("trace", ANALOG, "--pulse", "A0", *flags)
    assert ref["measurements"][0]["count"] > 0
    r = latscope.trace(ANALOG, pulse="A0", **levels).to_dict()
    assert r == ref
    cap = latscope.read_capture(ANALOG)
    r2 = latscope.trace(cap, pulse="A0", **levels).to_dict()
    assert r2["measurements"] == ref["measurements"]


def test_a_bad_period_busy_or_count_is_a_value_error_naming_its_flag():
    # The same typed specs as the CLI's --period/--busy/--count (FromStr), refused before
    # the capture is read.
    for kw, says in [
        (dict(period="D1:sideways"), "--period 'D1:sideways'"),
        (dict(busy="D2:rise"), "--busy 'D2:rise'"),
        (dict(count="D3,windw=1ms"), "--count 'D3,windw=1ms'"),
    ]:
        with pytest.raises(ValueError) as ei:
            latscope.trace(SR, **kw)
        assert isinstance(ei.value, latscope.InputError)
        assert says in str(ei.value), str(ei.value)
