"""fit() against `latscope fit`, report() against `latscope report`."""

import html

import pytest

import latscope
from conftest import FIXTURES, SCENARIOS, cli_json, run_cli

TICK = str(SCENARIOS / "freertos-tick" / "system.toml")


def test_fit_arrays_same_as_cli_csv(tmp_path):
    xs = [0, 1, 2, 3, 5, 10, 10, 0]
    ys = [1500.0, 7400.0, 13300.0, 19300.0, 31100.0, 60600.0, 60750.0, 1520.0]
    csv = tmp_path / "s.csv"
    csv.write_text("released,duration\n" + "".join(f"{x},{y}\n" for x, y in zip(xs, ys)))
    ref = cli_json("fit", csv, "--target", "tick", "--x", "released", "--y", "duration", "--unit", "ns")
    mine = latscope.fit("tick", xs, ys).to_dict()
    assert mine["source"] == "<arrays>"
    mine["source"] = ref["source"]
    # `row` is the CSV line for the CLI (header = line 1) and the array index here
    assert ref["worst_sample"]["row"] == 8 and mine["worst_sample"]["row"] == 6
    mine["worst_sample"]["row"] = ref["worst_sample"]["row"]
    assert mine == ref


def test_fit_from_trace_results_same_as_cli(tmp_path):
    files = []
    for k, dur in enumerate(["1s", "2s"]):
        cap = tmp_path / f"c{k}.lscap"
        run_cli("simulate", TICK, "--duration", dur, "--capture", cap, "-q")
        j = tmp_path / f"t{k}.json"
        run_cli("trace", cap, "--pulse", "tick", "--json", j)
        files.append(j)
    ref = cli_json("fit", "--target", "tick", "--trace", f"0={files[0]}", "--trace", f"10={files[1]}",
                   "--measurement", "tick", "--stat", "max")
    mine = latscope.fit("tick", traces=[(0, files[0]), (10, files[1])], measurement="tick").to_dict()
    assert mine == ref


def test_fit_apply_same_as_cli_write(tmp_path):
    xs, ys = [0, 10], [1500.0, 60570.0]
    csv = tmp_path / "s.csv"
    csv.write_text("x,y\n0,1500\n10,60570\n")
    out = tmp_path / "out.toml"
    run_cli("fit", csv, "--target", "tick", "--x", "x", "--y", "y", "--unit", "ns", "--write", TICK, "--out", out)
    assert latscope.fit("tick", xs, ys).apply(TICK) == out.read_text()


def test_report_same_page_as_cli(tmp_path):
    a = tmp_path / "a.json"
    s = tmp_path / "s.json"
    run_cli("analyze", TICK, "--json", a)
    run_cli("simulate", TICK, "--duration", "2s", "--json", s, "-q")
    for fmt, suffix in (("html", ".html"), ("md", ".md")):
        out = tmp_path / ("cli" + suffix)
        run_cli("report", a, s, "-o", out, "--format", fmt)
        mine = tmp_path / ("py" + suffix)
        latscope.report(str(a), str(s)).save(mine)
        assert mine.read_text() == out.read_text()


def test_report_of_result_objects():
    a = latscope.analyze(TICK)
    t = latscope.trace(str(FIXTURES / "demo8.sr"), pulse="D0")
    r = latscope.report(a, t, title="Python report")
    assert "<title>Python report</title>" in r.html
    frame = r._repr_html_()
    assert frame.startswith("<iframe") and html.escape(r.html, quote=True) in frame
    # each result's figures are on the page
    assert t.to_dict()["measurements"][0]["name"] in r.html
    assert a._repr_html_().startswith("<iframe")
    with pytest.raises(latscope.LatscopeError):
        latscope.report()
    with pytest.raises(latscope.LatscopeError):
        latscope.report({"kind": "nonsense"})
