"""simulate(): the same JSON as `latscope simulate --json`; capture and tick series equal
the CLI's --capture and --series files."""

import numpy as np
import pandas as pd
import pytest

import latscope
from conftest import SCENARIOS, cli_error, cli_json, run_cli

SYSTEMS = sorted(str(p) for p in SCENARIOS.glob("*/system.toml"))
TICK = str(SCENARIOS / "freertos-tick" / "system.toml")


@pytest.mark.parametrize("path", SYSTEMS)
def test_same_json_as_cli(path):
    r = latscope.simulate(path, duration="3s", seed=3)
    assert r.to_dict() == cli_json("simulate", path, "--duration", "3s", "--seed", "3", "-q")


def test_options_same_as_cli():
    r = latscope.simulate(TICK, duration="2s", seed=7, exec="uniform")
    assert r.to_dict() == cli_json(
        "simulate", TICK, "--duration", "2s", "--seed", "7", "--exec", "uniform", "-q"
    )
    # a different seed gives a different run (the comparison above can fail)
    assert r.to_dict() != latscope.simulate(TICK, duration="2s", seed=8, exec="uniform").to_dict()


def test_capture_and_series_equal_the_cli_files(tmp_path):
    cap_file, csv_file = tmp_path / "run.lscap", tmp_path / "ticks.csv"
    run_cli("simulate", TICK, "--duration", "3s", "--capture", cap_file, "--series", csv_file, "-q")
    r = latscope.simulate(TICK, duration="3s", capture=True, series=True)
    ref = latscope.read_capture(cap_file)
    assert r.capture.channels == ref.channels
    for ch in ref.channels:
        assert np.array_equal(r.capture.edges(ch), ref.edges(ch))
        assert r.capture.initial(ch) == ref.initial(ch)
    t, d, rel = r.tick_series
    assert t.dtype == np.int64 and d.dtype == np.int64 and rel.dtype == np.uint32
    csv = pd.read_csv(csv_file)
    assert len(csv) == len(t)
    assert np.allclose(csv["time_ns"], t / 1000)
    assert np.allclose(csv["duration_ns"], d / 1000)
    assert np.array_equal(csv["released"], rel)
    assert list(r.ticks.columns) == ["time_ps", "duration_ps", "released"]


def test_trace_of_the_virtual_capture_equals_cli_trace(tmp_path):
    cap_file = tmp_path / "run.lscap"
    run_cli("simulate", TICK, "--duration", "3s", "--capture", cap_file, "-q")
    r = latscope.simulate(TICK, duration="3s", capture=True)
    mine = latscope.trace(r.capture, pulse="tick", period="tick:rise", nominal="1ms").to_dict()
    ref = cli_json("trace", cap_file, "--pulse", "tick", "--period", "tick:rise", "--nominal", "1ms")
    assert mine["measurements"] == ref["measurements"]


def test_default_duration_is_one_hyperperiod_capped():
    r = latscope.simulate(TICK, duration=None, max_duration="1s")
    assert r.note and "hyperperiod" in r.note
    assert r.to_dict() == cli_json("simulate", TICK, "--max-duration", "1s", "-q")


def test_to_pandas_one_row_per_task():
    r = latscope.simulate(TICK, duration="1s")
    df = r.to_pandas()
    tasks = r.to_dict()["tasks"]
    assert list(df["name"]) == [t["name"] for t in tasks]
    assert list(df["response.max_ns"]) == [t["response"]["max_ns"] for t in tasks]


def test_errors_carry_the_cli_message(tmp_path):
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.simulate(TICK, duration="-1s")
    # the keyword is named without the dashes
    assert str(ei.value) == cli_error("simulate", TICK, "--duration=-1s").replace(
        "--duration", "duration"
    )
    missing = str(tmp_path / "none.toml")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.simulate(missing)
    assert str(ei.value) == cli_error("simulate", missing)
    with pytest.raises(latscope.LatscopeError, match="unknown mode"):
        latscope.simulate(TICK, exec="sometimes")
