"""mypy --strict accepts a small program that uses the public API (typed/uses_api.py)
against the installed package's stubs, py.typed marker and typed result documents
(latscope.results), and rejects wrong uses, so the check can fail."""

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _mypy_python():
    """An interpreter that has mypy: this one, or the python3 on PATH, where
    scripts/test.sh's setup step installs it (60-python's fresh environment does not
    have it; mypy reads that environment's packages through --python-executable)."""
    for py in (sys.executable, shutil.which("python3")):
        if py and subprocess.run([py, "-c", "import mypy"], capture_output=True).returncode == 0:
            return py
    raise AssertionError("mypy is missing: run 'bash scripts/test.sh --setup'")


def mypy(path, tmp_path):
    return subprocess.run(
        [_mypy_python(), "-m", "mypy", "--strict", "--no-incremental",
         "--python-executable", sys.executable,
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
        "name: int = r.doc.tasks[0].name\n"
        "m = latscope.trace('cap.sr').doc.measurements[0].no_such_field\n"
    )
    p = mypy(bad, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    for line in (3, 4, 5, 6):
        assert f"bad.py:{line}" in p.stdout, p.stdout
