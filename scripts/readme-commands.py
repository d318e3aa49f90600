#!/usr/bin/env python3
"""The commands of README.md's quick start and tour, as written, for the tests that run
them (scripts/test.d/80-readme-tour, scripts/test.d/60-python).

    readme-commands.py --tour     a bash script: every ```sh line of "Quick start" and
                                  "A tour" in order, except the two install lines and
                                  the test-suite line (the suite runs this tour)
    readme-commands.py --pip      the quick start's `pip install` line
    readme-commands.py --python   the quick start's ```python blocks

The install lines are the set-up the tests provide themselves (the built binary on PATH;
the wheel built in a fresh virtual environment), so the tour script leaves them out, and
this script fails unless each is there exactly once, as the README states it."""
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
SECTIONS = ("## Quick start", "## A tour")
CARGO_INSTALL = "cargo install --locked --path crates/cli"
TEST_SUITE = "bash scripts/test.sh"


def sections(text):
    """The text of the quick start and the tour (each up to the next '## ' heading)."""
    out = []
    for title in SECTIONS:
        start = text.find("\n" + title + "\n")
        if start < 0:
            sys.exit(f"README.md: no '{title}' section")
        end = text.find("\n## ", start + 1)
        out.append(text[start:end if end >= 0 else len(text)])
    return "\n".join(out)


def blocks(text, lang):
    return re.findall(r"^```" + lang + r"\n(.*?)^```", text, re.S | re.M)


def commands(block):
    """Lines joined at a trailing backslash; blank lines and comments dropped."""
    out, cur = [], ""
    for line in block.splitlines():
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        if cur.strip() and not cur.lstrip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def main():
    what = sys.argv[1] if len(sys.argv) == 2 else ""
    text = sections(README.read_text())
    cmds = [c for b in blocks(text, "sh") for c in commands(b)]
    pip = [c for c in cmds if c.startswith("pip install")]
    if cmds.count(CARGO_INSTALL) != 1 or len(pip) != 1:
        sys.exit(f"README.md: the quick start must have the line '{CARGO_INSTALL}' and one "
                 f"'pip install' line, once each (found {cmds.count(CARGO_INSTALL)} and {len(pip)})")
    if what == "--pip":
        print(pip[0])
    elif what == "--python":
        print("\n".join(blocks(text, "python")))
    elif what == "--tour":
        # Each line's own exit status decides (under `set -e` alone, a failure before
        # `&&` would pass unnoticed).
        print("set -uo pipefail")
        n = 0
        for c in cmds:
            if c not in (CARGO_INSTALL, TEST_SUITE) and c not in pip:
                n += 1
                quoted = "'" + c.replace("'", "'\\''") + "'"
                print(f"echo '$ '{quoted}")
                print("{ " + c + "\n} || { echo \"README tour: line " + str(n) + " failed: \"" + quoted
                      + " >&2; exit 1; }")
        print(f"echo 'README tour: {n} lines ran'")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
