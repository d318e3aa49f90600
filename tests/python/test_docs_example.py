"""The worked example in docs/python.md runs as written and prints the figures the
document states (the FreeRTOS overheads paper's Table 2 costs recovered, Figure 4's tick WCET and peaks)."""

import os
import re
import subprocess
import sys

from conftest import ROOT


def test_worked_example(tmp_path):
    doc = (ROOT / "docs" / "python.md").read_text()
    section = doc.split("## Worked example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    os.symlink(ROOT / "scenarios", tmp_path / "scenarios")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "tick = 1500.0 ns + 5907.0 ns per released task" in out
    assert "tick max 60.71 us at 6 instants, first at 41.4 s" in out
    assert "schedulable: True" in out
    page = (tmp_path / "freertos-tick.html").read_text()
    assert "<title>FreeRTOS tick overhead</title>" in page
