"""analyze(): the same JSON as `latscope analyze --json`; system from path, TOML, dict."""

import json

import pytest

import latscope
from conftest import SCENARIOS, cli_error, cli_json

SYSTEMS = sorted(str(p) for p in SCENARIOS.glob("*/system.toml"))


@pytest.mark.parametrize("path", SYSTEMS)
@pytest.mark.parametrize(
    "kw,args",
    [
        ({}, []),
        ({"tick_mode": "pessimistic"}, ["--tick-mode", "pessimistic"]),
        ({"tick_mode": "partitioned"}, ["--tick-mode", "partitioned"]),
        ({"overheads": False}, ["--no-overheads"]),
    ],
)
def test_same_json_as_cli(path, kw, args):
    assert latscope.analyze(path, **kw).to_dict() == cli_json("analyze", path, *args)


def test_toml_text_and_dict_give_the_same_analysis():
    path = str(SCENARIOS / "freertos-tick" / "system.toml")
    ref = latscope.analyze(path).to_dict()
    text = open(path, encoding="utf-8").read()
    from_text = latscope.analyze(text).to_dict()
    assert from_text["source"] == "<string>"
    # a dict: the description's own JSON form
    as_dict = json.loads(json.dumps(_toml_to_dict(latscope.system_toml(path))))
    from_dict = latscope.analyze(as_dict).to_dict()
    assert from_dict["source"] == "<dict>"
    for r in (from_text, from_dict):
        r["source"] = ref["source"]
        assert r == ref


def _toml_to_dict(text):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    return tomllib.loads(text)


def test_to_pandas_one_row_per_task():
    path = str(SCENARIOS / "freertos-tick" / "system.toml")
    r = latscope.analyze(path)
    df = r.to_pandas()
    tasks = r.to_dict()["tasks"]
    assert list(df["name"]) == [t["name"] for t in tasks]
    assert list(df["wcrt_ns"]) == [t["wcrt_ns"] for t in tasks]
    assert r.schedulable == r.to_dict()["schedulable"]


def test_errors_carry_the_cli_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[kernel]\ntick = \"1ms\"\n[[task]]\nname = \"A\"\nperiod = \"nope\"\n")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.analyze(str(bad))
    assert str(ei.value) == cli_error("analyze", str(bad))
    missing = str(tmp_path / "missing.toml")
    with pytest.raises(latscope.LatscopeError) as ei:
        latscope.analyze(missing)
    assert str(ei.value) == cli_error("analyze", missing)
    with pytest.raises(latscope.LatscopeError, match="tick_mode"):
        latscope.analyze(SYSTEMS[0], tick_mode="sometimes")
    with pytest.raises(TypeError):
        latscope.analyze(3.5)


def test_offsets_give_the_cli_offset_aware_figures(tmp_path):
    text = (SCENARIOS / "freertos-tick" / "system.toml").read_text()
    p = tmp_path / "offsets.toml"
    p.write_text(text.replace('name = "A"\nperiod = "5ms"', 'name = "A"\nperiod = "5ms"\noffset = "1ms"', 1))
    mine = latscope.analyze(str(p)).to_dict()
    assert mine["offset_aware"] is not None
    assert mine == cli_json("analyze", str(p))


def test_labels_as_the_cli_writes_them():
    path = str(SCENARIOS / "freertos-tick" / "system.toml")
    mine = latscope.analyze(path, labels={"board": "rpi4", "rack": "b7"}).to_dict()
    ref = cli_json("analyze", path, "--label", "board=rpi4", "--label", "rack=b7")
    assert mine == ref
    assert mine["labels"]["board"] == "rpi4" and mine["labels"]["rack"] == "b7"
    for key in ("host", "kernel", "cpu_model", "latscope_version"):
        assert key in mine["labels"]


@pytest.mark.parametrize("bad", [{"": "x"}, {"host": "mine"}, {"a-b": "x"}])
def test_bad_labels_are_refused_like_the_cli(bad):
    path = str(SCENARIOS / "freertos-tick" / "system.toml")
    with pytest.raises(latscope.LatscopeError):
        latscope.analyze(path, labels=bad)
    (k, v), = bad.items()
    cli_error("analyze", path, "--label", f"{k}={v}")


IRQ_SET = (
    "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n"
    '[[task]]\nname = "H"\nperiod = "10ms"\nwcet = "2ms"\npriority = 2\n'
    '[[task]]\nname = "L"\nperiod = "10ms"\nwcet = "3ms"\npriority = 1\n'
    '[[interrupt]]\nname = "I"\nmin_interarrival = "10ms"\nwcet = "1ms"\noffset = "5ms"\n'
)


def test_periodic_interrupts_as_the_cli(tmp_path):
    # H runs 0-2 ms, L 2-5 ms; the handler, strictly periodic at 5 ms, cannot reach L's
    # window: L's offset-based bound is 5 ms, against 6 ms with the handler sporadic.
    p = tmp_path / "irq.toml"
    p.write_text(IRQ_SET)
    plain = latscope.analyze(str(p), overheads=False, release_delay=False).to_dict()
    assert plain["offset_bound"] is None
    assert plain == cli_json("analyze", str(p), "--no-overheads", "--no-release-delay")
    mine = latscope.analyze(
        str(p), overheads=False, release_delay=False, periodic_interrupts=True
    ).to_dict()
    ref = cli_json(
        "analyze", str(p), "--no-overheads", "--no-release-delay", "--periodic-interrupts"
    )
    assert mine == ref
    bound = mine["offset_bound"]
    assert bound["interrupts"] == "periodic"
    l = next(t for t in bound["tasks"] if t["name"] == "L")
    assert (l["offset_free_ns"], l["wcrt_ns"]) == (6e6, 5e6)
