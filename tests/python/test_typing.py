"""mypy --strict accepts a small program that uses the public API (typed/uses_api.py)
against the installed package's stubs and py.typed marker, and rejects a wrong use, so
the check can fail."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def mypy(path, tmp_path):
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_strict_mypy_accepts_the_program(tmp_path):
    p = mypy(HERE / "typed" / "uses_api.py", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


def test_strict_mypy_rejects_a_wrong_use(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import latscope\n"
        "r = latscope.analyze('x.toml')\n"
        "n: int = r.schedulable + 'x'\n"
        "latscope.trace('cap.sr', worst='five')\n"
    )
    p = mypy(bad, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "bad.py:3" in p.stdout and "bad.py:4" in p.stdout, p.stdout
