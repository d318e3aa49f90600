#!/usr/bin/env python3
"""The JSON Schema (docs/system.schema.json) and latscope's parser agree.

* the docs' example and validation/fixtures/*.toml validate against the schema and are
  accepted by `latscope analyze`;
* `latscope generate` JSON output (with the full fixture as template) validates;
* a set of broken variants is rejected by BOTH the schema and latscope (exit 2).

Usage: schema_check.py --latscope PATH
"""

import argparse
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--latscope", required=True)
    a = ap.parse_args()
    schema = json.load(open(os.path.join(ROOT, "docs", "system.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    passed = failed = 0

    def check(cond, what):
        nonlocal passed, failed
        if cond:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    tmp = tempfile.mkdtemp(prefix="latscope-schema-")
    docs = open(os.path.join(ROOT, "docs", "system-format.md")).read()
    blocks = re.findall(r"```toml\n(.*?)```", docs, re.S)
    check(len(blocks) >= 1, "docs/system-format.md has a TOML example")
    sources = {f"docs example {i}": b for i, b in enumerate(blocks)}
    for f in sorted(glob.glob(os.path.join(ROOT, "validation", "fixtures", "*.toml"))):
        sources[os.path.basename(f)] = open(f).read()
    docs_valid = []
    for name, text in sources.items():
        doc = tomllib.loads(text)
        errs = list(v.iter_errors(doc))
        check(not errs, f"{name} validates against the schema: {[e.message for e in errs[:3]]}")
        path = os.path.join(tmp, "s.toml")
        open(path, "w").write(text)
        r = run(a.latscope, "analyze", path, "--json", os.path.join(tmp, "r.json"))
        check(r.returncode == 0, f"latscope accepts {name}: {r.stderr.strip()}")
        docs_valid.append(doc)

    full = os.path.join(ROOT, "validation", "fixtures", "full-system.toml")
    out = os.path.join(tmp, "g.json")
    r = run(a.latscope, "generate", "-n", "6", "-u", "0.5", "--template", full, "--out", out)
    check(r.returncode == 0, f"generate with the full template: {r.stderr.strip()}")
    if r.returncode == 0:
        g = json.load(open(out))
        errs = list(v.iter_errors(g))
        check(not errs, f"generated JSON validates: {[e.message for e in errs[:3]]}")

    base = tomllib.loads(open(full).read())
    broken = {
        "unknown top-level key": lambda d: d.update(extra=1),
        "unknown task key": lambda d: d["task"][0].update(peroid="5ms"),
        "bare number duration": lambda d: d["task"][0].update(wcet=1),
        "missing wcet": lambda d: d["task"][1].pop("wcet"),
        "period and min_interarrival": lambda d: d["task"][1].update(min_interarrival="5ms"),
        "unknown model": lambda d: d["kernel"].update(model="edf"),
        "unknown cost key": lambda d: d["kernel"]["costs"].update(tick_cost="1us"),
        "negative priority": lambda d: d["task"][0].update(priority=-1),
        "no tasks": lambda d: d.update(task=[]),
        "duration without unit string": lambda d: d["task"][0].update(period="5"),
    }
    for what, mutate in broken.items():
        d = copy.deepcopy(base)
        mutate(d)
        schema_rejects = bool(list(v.iter_errors(d)))
        path = os.path.join(tmp, "b.json")
        json.dump(d, open(path, "w"))
        r = run(a.latscope, "analyze", path)
        check(schema_rejects, f"schema rejects: {what}")
        check(r.returncode == 2, f"latscope rejects: {what} (exit {r.returncode})")
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    print(f"system schema: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
