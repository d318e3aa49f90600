"""read_capture and Capture: metadata as the CLI reports it, edges as zero-copy int64."""

import numpy as np
import pytest

import latscope
from conftest import FIXTURES, cli_error, cli_json

FILES = ["demo8.sr", "demo16.vcd", "demo8.csv"]


@pytest.mark.parametrize("name", FILES)
def test_metadata_matches_cli(name):
    path = str(FIXTURES / name)
    cap = latscope.read_capture(path)
    ref = cli_json("trace", path, "--pulse", "D0", "--pulse", "D5")["capture"]
    assert sum(c["decoded"] for c in ref["channels"]) >= 2
    assert cap.channels == [c["name"] for c in ref["channels"]]
    assert cap.samplerate == ref["samplerate_hz"]
    assert cap.start_ps == round(ref["start_ns"] * 1000)
    assert cap.end_ps == round(ref["end_ns"] * 1000)
    assert cap.format == ref["format"]
    for c in ref["channels"]:
        assert cap.initial(c["name"]) == c["initial"]
        if c["decoded"]:  # the CLI decodes only the channels a measurement reads
            assert cap.edge_count(c["name"]) == c["edges"]
            assert len(cap.edges(c["name"])) == c["edges"]


def test_edges_are_int64_and_zero_copy():
    cap = latscope.read_capture(FIXTURES / "demo8.sr")
    e = cap.edges("D1")
    assert e.dtype == np.int64
    assert e.ndim == 1
    # Borrowed from the capture, not owned: no copy was made.
    assert not e.flags.owndata
    assert e.base is cap
    assert not e.flags.writeable
    with pytest.raises(ValueError):
        e[0] = 1
    # A second call lends the very same memory.
    again = cap.edges("D1")
    assert np.shares_memory(e, again)
    assert e.__array_interface__["data"][0] == again.__array_interface__["data"][0]
    # The array keeps the capture alive.
    del cap
    assert e.sum() == again.sum()
    assert (np.diff(e) > 0).all()


def test_edges_by_index_and_same_edges_in_every_format():
    sr = latscope.read_capture(FIXTURES / "demo8.sr")
    csv = latscope.read_capture(FIXTURES / "demo8.csv")
    for i, name in enumerate(sr.channels):
        assert np.array_equal(sr.edges(name), sr.edges(f"#{i}"))
        assert np.array_equal(sr.edges(name), csv.edges(name))
        assert sr.initial(name) == csv.initial(name)


def test_edges_give_the_cli_pulse_widths():
    """Pulse widths computed with numpy from the edges equal `latscope trace --pulse`."""
    path = str(FIXTURES / "demo8.sr")
    cap = latscope.read_capture(path)
    ref = cli_json("trace", path, "--pulse", "D2")["measurements"][0]
    e = cap.edges("D2")
    # high pulses: rising edges are every other edge, starting where the level goes up
    start = 0 if cap.initial("D2") == 0 else 1
    rises, falls = e[start::2], e[start + 1 :: 2]
    n = min(len(rises), len(falls))
    widths_ns = (falls[:n] - rises[:n]) / 1000
    assert n == ref["count"]
    assert widths_ns.max() == ref["max_ns"]
    assert widths_ns.min() == ref["min_ns"]
    assert widths_ns.mean() == pytest.approx(ref["mean_ns"], rel=1e-12)


def test_samplerate_argument_and_format():
    cap = latscope.read_capture(FIXTURES / "demo8.csv", format="csv", samplerate="1MHz")
    assert cap.samplerate == 1_000_000
    cap2 = latscope.read_capture(FIXTURES / "demo8.csv", samplerate=1_000_000)
    assert np.array_equal(cap.edges("D0"), cap2.edges("D0"))


def test_errors_carry_the_cli_message(tmp_path):
    missing = str(tmp_path / "nope.sr")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.read_capture(missing)
    assert str(ei.value) == cli_error("trace", missing, "--pulse", "D0")

    empty = tmp_path / "empty.vcd"
    empty.write_bytes(b"")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.read_capture(empty)
    assert str(ei.value) == cli_error("trace", str(empty), "--pulse", "D0")

    bad = str(FIXTURES.parent / "corpus" / "vcd_backwards.vcd")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.read_capture(bad)
    assert str(ei.value) == cli_error("trace", bad, "--list")

    cap = latscope.read_capture(FIXTURES / "demo8.sr")
    with pytest.raises(latscope.LatscopeError, match="no channel 'XX'"):
        cap.edges("XX")
    with pytest.raises(latscope.LatscopeError, match="unknown format"):
        latscope.read_capture(FIXTURES / "demo8.sr", format="nope")
