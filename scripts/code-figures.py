#!/usr/bin/env python3
"""Code figures for latscope: lines per file, longest functions, `Result<_, String>`
count, the copies of shared helpers (human duration formatters, gcd/lcm/hyperperiod,
hand-written CSV), release binary size, and (on request) cold build and test-suite wall
time.

Why a script: issue 24 asks for before/after figures anyone can rerun. The function
lengths come from a small brace matcher over `fn` items (strings, chars and comments
skipped), so the figures need nothing beyond Python 3.

    scripts/code-figures.py [--top N] [--build-time] [--test-time]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A function item: its name is followed by generics or parameters (`fn f(` / `fn f<`), so a
# macro input that merely starts with `fn NAME =` (e.g. `words!(fn kind_word = [...])`) is
# not taken for one.
FN_RE = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)(?=\s*[(<])")


def rust_files():
    """Source files of the workspace crates (tests and benches included, target/ not)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "crates")):
        dirnames[:] = [d for d in dirnames if d != "target"]
        for f in filenames:
            if f.endswith(".rs"):
                out.append(os.path.join(dirpath, f))
    return sorted(out)


def blank_literals(src):
    """The text with comments, strings and char literals replaced by spaces (newlines
    kept), so braces inside them do not count and line numbers stay right."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:i + 20]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'r(#*)"', src[i:])
            end = '"' + m.group(1)
            j = src.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}') or a lifetime ('a); only the former is blanked.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", src[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, line count) of every `fn` with a body in the file."""
    with open(path, encoding="utf-8") as f:
        src = blank_literals(f.read())
    found = []
    for m in FN_RE.finditer(src):
        # The body starts at the first `{` before any `;` at depth 0 (a `;` first means
        # a declaration without a body, as in a trait).
        j, depth = m.end(), 0
        while j < len(src):
            ch = src[j]
            if ch in "([<" and ch != "<":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == ";" and depth == 0:
                j = -1
                break
            elif ch == "{" and depth == 0:
                break
            j += 1
        if j < 0 or j >= len(src):
            continue
        k, braces = j, 0
        while k < len(src):
            if src[k] == "{":
                braces += 1
            elif src[k] == "}":
                braces -= 1
                if braces == 0:
                    break
            k += 1
        first = src.count("\n", 0, m.start()) + 1
        last = src.count("\n", 0, k) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


def result_string_types(src):
    """(all, returned): how many `Result<T, String>` types the text names, and how many
    of them are return types (after `->`). Generic arguments are matched by depth so
    `Result<BTreeMap<String, String>, E>` does not count."""
    total = returned = 0
    for m in re.finditer(r"\bResult<", src):
        i, depth, start, args = m.end(), 1, m.end(), []
        while i < len(src) and depth:
            c = src[i]
            if c == "<":
                depth += 1
            elif c == ">" and src[i - 1] != "-":
                depth -= 1
                if depth == 0:
                    args.append(src[start:i])
            elif c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "," and depth == 1:
                args.append(src[start:i])
                start = i + 1
            i += 1
        if len(args) == 2 and args[1].strip() == "String":
            total += 1
            before = src[: m.start()].rstrip()
            before = re.sub(r"(std::)?(result::)?$", "", before).rstrip()
            if before.endswith("->"):
                returned += 1
    return total, returned


UNIT_RE = re.compile(r'"(ps|ns|us|µs|ms|s)"|\{[^{}"]*\}\s?(ps|ns|us|µs|ms)\b')
CSV_WRITE_RE = re.compile(r'writeln!\([^;]*"[^"\n]*\{[^"\n]*\},\{[^"\n]*"', re.S)
CSV_READ_RE = re.compile(r"\.split\(('[,;]'|sep|\[',', ';'[^)]*)\)")


def helper_copies(path, text):
    """Functions of the file that re-implement a shared helper: (duration formatters,
    gcd/lcm/hyperperiod, hand-written CSV writers or readers). A duration formatter
    returns a String and names two or more time units in its literals (it picks one);
    gcd/lcm/hyperperiod count by name; a CSV writer formats `{},{}` rows itself and a
    reader splits the lines of a text on a separator itself."""
    lines = text.split("\n")
    fmt = arith = csv = 0
    for name, first, count in functions(path):
        body = "\n".join(lines[first - 1 : first - 1 + count])
        head = body.split("{", 1)[0]
        units = {m.group(1) or m.group(2) for m in UNIT_RE.finditer(body)}
        units = {"µs" if u == "us" else u for u in units}
        if "-> String" in head and len(units) >= 2:
            fmt += 1
        if name in ("gcd", "lcm", "lcm_all", "hyperperiod"):
            arith += 1
        if CSV_WRITE_RE.search(body) or (".lines()" in body and CSV_READ_RE.search(body)):
            csv += 1
    return fmt, arith, csv


def rel(path):
    return os.path.relpath(path, ROOT)


def module_path(path):
    """crate::module spelling of a file, for naming a function."""
    r = rel(path).split(os.sep)
    crate = r[1]
    rest = r[2:]
    if rest and rest[0] == "src":
        rest = rest[1:]
    rest = [p[:-3] if p.endswith(".rs") else p for p in rest]
    rest = [p for p in rest if p not in ("lib", "mod", "main")]
    return "::".join([crate] + rest)


def timed(cmd, env=None):
    t0 = time.monotonic()
    subprocess.run(cmd, cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=20, help="rows per table (default 20)")
    ap.add_argument("--build-time", action="store_true",
                    help="cold `cargo build --release` into an empty temporary target dir")
    ap.add_argument("--test-time", action="store_true",
                    help="wall time of `scripts/test.sh` (the whole suite)")
    args = ap.parse_args()

    files = rust_files()
    lines = []
    fns = []
    result_string = [0, 0]
    copies = [0, 0, 0]
    for p in files:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        lines.append((text.count("\n"), rel(p)))
        # Integration-test files count for size; their functions and `Result`s do not
        # (the figures are about the libraries and the binary).
        if "/tests/" not in p:
            for name, first, count in functions(p):
                fns.append((count, f"{module_path(p)}::{name}", f"{rel(p)}:{first}"))
            total_rs, returned_rs = result_string_types(blank_literals(text))
            result_string[0] += total_rs
            result_string[1] += returned_rs
            for i, n in enumerate(helper_copies(p, text)):
                copies[i] += n

    total = sum(n for n, _ in lines)
    print(f"Rust files: {len(files)}, lines: {total}")
    print(f"\nLargest {args.top} files (lines):")
    for n, p in sorted(lines, reverse=True)[: args.top]:
        print(f"  {n:6}  {p}")
    print(f"\nLongest {args.top} functions outside tests/ (lines, name, place):")
    for n, name, place in sorted(fns, reverse=True)[: args.top]:
        print(f"  {n:6}  {name}  ({place})")
    print(f"\nFunctions of 150+ lines: {sum(1 for n, _, _ in fns if n >= 150)}")
    print(f"Functions of 100+ lines: {sum(1 for n, _, _ in fns if n >= 100)}")
    print(f"`Result<_, String>` outside tests: {result_string[0]} mentions, "
          f"{result_string[1]} as a return type")
    print(f"Human duration formatters (fn -> String naming 2+ time units) outside tests: {copies[0]}")
    print(f"gcd/lcm/hyperperiod functions outside tests: {copies[1]}")
    print(f"Hand-written CSV writers/readers outside tests: {copies[2]}")

    binary = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                          "release", "latscope")
    if os.path.exists(binary):
        size = os.path.getsize(binary)
        print(f"Release binary: {size} bytes ({size / 1e6:.1f} MB), {rel(binary) if binary.startswith(ROOT) else binary}")
    else:
        print("Release binary: not built (cargo build --release -p latscope)")

    if args.build_time:
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, CARGO_TARGET_DIR=tmp)
            secs = timed(["cargo", "build", "--release"], env)
        print(f"Cold `cargo build --release`: {secs:.0f} s")
    if args.test_time:
        secs = timed([os.path.join(ROOT, "scripts", "test.sh")])
        print(f"`scripts/test.sh` wall time: {secs:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
