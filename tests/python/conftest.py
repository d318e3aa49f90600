"""Shared helpers: the CLI binary to compare against, and running it."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "crates" / "trace" / "tests" / "fixtures"
SCENARIOS = ROOT / "scenarios"
CLI = Path(os.environ.get("LATSCOPE_CLI", ROOT / "target" / "release" / "latscope"))


def run_cli(*args, check=True):
    """Runs the CLI; returns the CompletedProcess (text)."""
    p = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"latscope {' '.join(map(str, args))} failed: {p.stderr}")
    return p


def cli_json(*args):
    """The CLI's --json output (written to standard output) as a dict."""
    p = run_cli(*args, "--json", "-")
    return json.loads(p.stdout)


def cli_error(*args):
    """The CLI's error message (the text after 'latscope: error: '), asserting exit 2."""
    p = run_cli(*args, check=False)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    line = [l for l in p.stderr.splitlines() if l.startswith("latscope: error: ")]
    assert line, p.stderr
    return line[-1][len("latscope: error: ") :]


@pytest.fixture(scope="session", autouse=True)
def _cli_exists():
    assert CLI.exists(), f"build the CLI first: cargo build --release -p latscope ({CLI})"
