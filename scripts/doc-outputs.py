#!/usr/bin/env python3
"""Printed output in the docs is generated, not pasted: every ```python block that is
followed by a line starting with "Output" and a ```text block is run, and the text block
must be exactly what it printed; every ```console block is a shell session: its lines
starting with "$ " are run in order (through sh, stdout and stderr together, any exit
status), and the lines after each must be exactly what it printed.

    python3 scripts/doc-outputs.py --check docs/python.md    # exit 1 on a difference
    python3 scripts/doc-outputs.py --write docs/python.md    # rewrite the text blocks

Each block runs in a fresh temporary directory in which `scenarios` and `examples` link to
the repository's, so the paths the docs use from the repository root work and the files a
block writes do not land in the checkout. `python` is the interpreter that runs this
script (run it with the one that has latscope installed); `latscope` is the one on PATH
(scripts/test.d puts the release build first). scripts/test.d/60-python runs --check on
docs/python.md, scripts/test.d/80-readme-tour on the docs with console blocks."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = re.compile(r"```console\n(?P<out>.*?)```", re.S)
PAIR = re.compile(r"```python\n(?P<code>.*?)```\n\n(?P<label>Output[^\n]*(?:\n[^\n]+)*)\n\n```text\n(?P<out>.*?)```", re.S)


def run(code):
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("scenarios", "examples"):
            os.symlink(ROOT / name, Path(tmp) / name)
        p = subprocess.run([sys.executable, "-c", code], cwd=tmp, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"a python block failed (exit {p.returncode}):\n{p.stderr}")
    return p.stdout


def session(block):
    """Runs the "$ " lines of a console block in one temporary directory, in order, and
    returns the block as it should read: each command followed by what it printed."""
    cmds = [l[2:] for l in block.splitlines() if l.startswith("$ ")]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("scenarios", "examples"):
            os.symlink(ROOT / name, Path(tmp) / name)
        for c in cmds:
            p = subprocess.run(["sh", "-c", c + " 2>&1"], cwd=tmp, capture_output=True, text=True, timeout=600)
            out.append(f"$ {c}\n" + p.stdout)
    return "".join(out)


def blocks(text):
    """(match, the block's text as it should read) for every generated block of a doc."""
    found = [(m, lambda m=m: run(m.group("code"))) for m in PAIR.finditer(text)]
    found += [(m, lambda m=m: session(m.group("out"))) for m in CONSOLE.finditer(text)]
    return sorted(found, key=lambda x: x[0].start("out"))


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
        pairs = blocks(text)
        if not pairs:
            sys.exit(f"{f}: no ```console block and no ```python block followed by 'Output' and a ```text block")
        new, last, differ = [], 0, 0
        for m, make in pairs:
            printed = make()
            line = text.count("\n", 0, m.start("out")) + 1
            if printed != m.group("out"):
                differ += 1
                print(f"{f}:{line}: the printed output differs from the block (run --write)")
            new.append(text[last:m.start("out")] + printed)
            last = m.end("out")
        new.append(text[last:])
        if a.write:
            Path(f).write_text("".join(new))
        bad += differ
        print(f"{f}: {len(pairs)} block(s) run, {differ} differ" + (" (rewritten)" if a.write and differ else ""))
    sys.exit(1 if bad and a.check else 0)


if __name__ == "__main__":
    main()
