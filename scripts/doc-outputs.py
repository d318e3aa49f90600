#!/usr/bin/env python3
"""Printed output in the docs is generated, not pasted: every ```python block that is
followed by a line starting with "Output" and a ```text block is run, and the text block
must be exactly what it printed.

    python3 scripts/doc-outputs.py --check docs/python.md    # exit 1 on a difference
    python3 scripts/doc-outputs.py --write docs/python.md    # rewrite the text blocks

Each block runs in a fresh temporary directory in which `scenarios` and `examples` link to
the repository's, so the paths the docs use from the repository root work and the files a
block writes do not land in the checkout. `python` is the interpreter that runs this
script (run it with the one that has latscope installed). scripts/test.d/60-python runs
--check."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAIR = re.compile(r"```python\n(?P<code>.*?)```\n\n(?P<label>Output[^\n]*(?:\n[^\n]+)*)\n\n```text\n(?P<out>.*?)```", re.S)


def run(code):
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("scenarios", "examples"):
            os.symlink(ROOT / name, Path(tmp) / name)
        p = subprocess.run([sys.executable, "-c", code], cwd=tmp, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"a python block failed (exit {p.returncode}):\n{p.stderr}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    bad = 0
    for f in a.files:
        text = Path(f).read_text()
        pairs = list(PAIR.finditer(text))
        if not pairs:
            sys.exit(f"{f}: no ```python block followed by 'Output' and a ```text block")
        new, last = [], 0
        for m in pairs:
            printed = run(m.group("code"))
            line = text.count("\n", 0, m.start("out")) + 1
            if printed != m.group("out"):
                bad += 1
                print(f"{f}:{line}: the printed output differs from the block (run --write)")
            new.append(text[last:m.start("out")] + printed)
            last = m.end("out")
        new.append(text[last:])
        if a.write:
            Path(f).write_text("".join(new))
        print(f"{f}: {len(pairs)} block(s) run, {bad} differ" + (" (rewritten)" if a.write and bad else ""))
    sys.exit(1 if bad and a.check else 0)


if __name__ == "__main__":
    main()
