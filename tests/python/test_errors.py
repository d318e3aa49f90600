"""The exception hierarchy: every error latscope raises is a LatscopeError, and also the
built-in exception that fits, so generic handlers (``except OSError``) catch it; and
``latscope.load`` gives back saved results."""

import errno
import json

import pytest

import latscope
from conftest import FIXTURES, cli_error


def test_the_classes():
    assert issubclass(latscope.LatscopeError, Exception)
    assert issubclass(latscope.InputError, latscope.LatscopeError)
    assert issubclass(latscope.InputError, ValueError)
    assert issubclass(latscope.FileError, latscope.LatscopeError)
    assert issubclass(latscope.FileError, OSError)
    assert not issubclass(latscope.InputError, OSError)
    assert not issubclass(latscope.FileError, ValueError)
    # One set of classes: the compiled module raises the ones the package exports.
    assert latscope._latscope.LatscopeError is latscope.LatscopeError
    assert latscope._latscope.InputError is latscope.InputError
    assert latscope._latscope.FileError is latscope.FileError
    assert latscope.errors.FileError is latscope.FileError


def test_missing_file_is_a_file_error_with_errno(tmp_path):
    missing = str(tmp_path / "missing.toml")
    with pytest.raises(OSError) as ei:
        latscope.analyze(missing)
    e = ei.value
    assert isinstance(e, latscope.FileError)
    assert e.errno == errno.ENOENT
    assert e.filename == missing
    assert str(e) == cli_error("analyze", missing)
    cap = str(tmp_path / "nope.sr")
    with pytest.raises(latscope.FileError) as ei:
        latscope.read_capture(cap)
    assert ei.value.errno == errno.ENOENT
    assert ei.value.filename == cap
    assert str(ei.value) == cli_error("trace", cap, "--pulse", "D0")
    with pytest.raises(OSError) as ei:
        latscope.trace(FIXTURES / "demo8.sr", pulse="D0", spec=tmp_path / "nospec.toml")
    assert isinstance(ei.value, latscope.FileError)
    assert (ei.value.errno, ei.value.filename) == (errno.ENOENT, str(tmp_path / "nospec.toml"))


def test_bad_values_are_input_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[kernel]\ntick = "1ms"\n[[task]]\nname = "A"\nperiod = "nope"\n')
    with pytest.raises(ValueError) as ei:
        latscope.analyze(str(bad))
    assert isinstance(ei.value, latscope.InputError)
    assert not isinstance(ei.value, OSError)
    assert str(ei.value) == cli_error("analyze", str(bad))
    with pytest.raises(ValueError, match="parsecs") as ei:
        latscope.trace(FIXTURES / "demo8.sr", pulse="D0", window="10 parsecs")
    assert isinstance(ei.value, latscope.InputError) and not isinstance(ei.value, OSError)
    # A bad unit says which keyword, the value, and every unit that is accepted.
    assert str(ei.value).startswith("window '10 parsecs': unknown unit 'parsecs'"), str(ei.value)
    assert "µs" in str(ei.value) and "minutes" in str(ei.value)
    with pytest.raises(latscope.InputError, match="samplerate '0 Hz': must be positive"):
        latscope.read_capture(FIXTURES / "demo8.sr", samplerate="0 Hz")
    with pytest.raises(latscope.InputError, match="no channel 'XX'"):
        latscope.read_capture(FIXTURES / "demo8.sr").edges("XX")
    empty = tmp_path / "empty.vcd"
    empty.write_bytes(b"")
    with pytest.raises(latscope.InputError):
        latscope.read_capture(empty)


def test_load_gives_back_what_was_saved(tmp_path):
    r = latscope.trace(FIXTURES / "demo8.sr", pulse="D0")
    p = tmp_path / "t.json"
    r.save(p)
    back = latscope.load(p)
    assert type(back) is latscope.TraceResult
    assert back.to_json() == r.to_json()
    assert back.passed == r.passed
    assert back.to_dict() == r.to_dict()
    # The command line's --json file loads the same way.
    cli = tmp_path / "cli.json"
    from conftest import run_cli

    run_cli("trace", FIXTURES / "demo8.sr", "--pulse", "D0", "--json", cli)
    assert type(latscope.load(str(cli))) is latscope.TraceResult
    assert latscope.load(cli)["kind"] == "trace"


def test_load_refuses_what_is_not_a_result(tmp_path):
    with pytest.raises(latscope.FileError) as ei:
        latscope.load(tmp_path / "missing.json")
    assert ei.value.errno == errno.ENOENT
    assert "missing.json" in str(ei.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(latscope.InputError, match="line 1, column 3"):
        latscope.load(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"kind": "weather"}))
    with pytest.raises(latscope.InputError, match="weather"):
        latscope.load(other)
    nokind = tmp_path / "nokind.json"
    nokind.write_text("[1, 2]")
    with pytest.raises(latscope.InputError, match="kind"):
        latscope.load(nokind)
