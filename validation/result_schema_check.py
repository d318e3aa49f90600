#!/usr/bin/env python3
"""The JSON every latscope command writes validates against the JSON Schemas generated
from the result types (docs/<kind>.schema.json, written by
`LATSCOPE_WRITE_SCHEMAS=1 cargo test -p latscope --test it result_schemas::`).

Runs measure and noise (short, unprivileged), trace (every measurement kind, limits), trace --tasks
(a synthetic event recording), analyze (offsets, margins, priority assignment, --observed),
simulate, fit (CSV, trace and event-recording inputs) and every
scenario that does not measure this machine (quick), validates each document and every
result nested in a scenario's `results`, and checks that a broken document is rejected
(the check can fail).

Usage: result_schema_check.py --latscope PATH
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ["measure", "noise", "trace", "tasks", "analyze", "simulate", "scenario", "fit", "compare"]


def event_recording():
    """latscope's event JSON: a task T (released by every other tick of a 1 kHz tick,
    runs 300 us) and idle, 10 ms, with one window of lost events."""
    us = 1_000_000
    ev = [{"t": 0, "cpu": 0, "kind": "switch", "actor": 2}]
    for k in range(10):
        t = k * 1000
        if k % 2:
            ev += [
                {"t": t * us, "cpu": 0, "kind": "isr_enter", "actor": 1},
                {"t": (t + 2) * us, "cpu": 0, "kind": "isr_exit", "actor": 1},
            ]
            continue
        ev += [
            {"t": t * us, "cpu": 0, "kind": "isr_enter", "actor": 1},
            {"t": (t + 1) * us, "cpu": 0, "kind": "ready", "actor": 0},
            {"t": (t + 5) * us, "cpu": 0, "kind": "isr_exit", "actor": 1},
            {"t": (t + 5) * us, "cpu": 0, "kind": "switch", "actor": 0},
            {"t": (t + 305) * us, "cpu": 0, "kind": "block", "actor": 0},
            {"t": (t + 305) * us, "cpu": 0, "kind": "switch", "actor": 2},
        ]
    return {
        "source": "synthetic", "format": "test", "clock_hz": 1000000,
        "start": 0, "end": 10000 * us, "cpus": 1,
        "actors": [
            {"name": "T", "kind": "task", "priority": 1, "id": 0},
            {"name": "SysTick", "kind": "tick", "priority": None, "id": 0},
            {"name": "IDLE", "kind": "idle", "priority": 0, "id": 0},
        ],
        "events": ev,
        "lost": [{"count": 3, "from": 4100 * us, "to": 4200 * us}],
    }


OBSERVED_SYSTEM = """
[platform]
cpu_hz = 1_000_000
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
tick_per_release = "3us"
[[task]]
name = "T"
period = "2ms"
wcet = "300us"
priority = 1
"""


def validators():
    out = {}
    for k in KINDS + ["summary"]:
        schema = json.load(open(os.path.join(ROOT, "docs", f"{k}.schema.json")))
        jsonschema.Draft202012Validator.check_schema(schema)
        out[k] = jsonschema.Draft202012Validator(schema)
    return out


SYSTEM_WITH_OFFSETS = """
[platform]
cpu_hz = 84_000_000
[kernel]
tick_hz = 1000
model = "tick"
[kernel.costs]
tick_base = "5us"
tick_per_release = "1us"
switch_base = "3us"
switch_per_level = "0.2us"
[[task]]
name = "a"
period = "5ms"
offset = "1ms"
wcet = "400us"
priority = 1
[[task]]
name = "b"
period = "10ms"
wcet = "2ms"
priority = 2
"""

LISTSCAN = """
[platform]
cpu_hz = 125_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 125
model = "listscan"
allow_equal_priorities = true
[kernel.costs]
check_per_thread = "1.3us"
insert_base = "0.6us"
insert_per_position = "0.2us"
switch = "1.25us"
[[task]]
name = "t0"
period = "8ms"
wcet = "400us"
priority = 1
[[task]]
name = "t1"
period = "16ms"
wcet = "1ms"
priority = 2
"""

FIT_CSV = "released,duration\n0,5000\n1,6100\n2,7000\n3,8200\n4,9100\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--latscope", required=True)
    a = ap.parse_args()
    v = validators()
    passed = failed = 0

    def check(cond, what):
        nonlocal passed, failed
        if cond:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    def validate(kind, doc, what):
        errs = sorted(v[kind].iter_errors(doc), key=lambda e: list(e.path))
        for e in errs[:5]:
            print(f"  {what}: {'/'.join(map(str, e.path))}: {e.message[:200]}")
        check(not errs, f"{what} validates against docs/{kind}.schema.json")

    tmp = tempfile.mkdtemp(prefix="latscope-results-")
    trace_fix = os.path.join(ROOT, "crates", "trace", "tests", "fixtures")
    system = os.path.join(tmp, "offsets.toml")
    open(system, "w").write(SYSTEM_WITH_OFFSETS)
    csv = os.path.join(tmp, "fit.csv")
    open(csv, "w").write(FIT_CSV)
    full = os.path.join(ROOT, "validation", "fixtures", "full-system.toml")
    listscan = os.path.join(tmp, "listscan.toml")
    open(listscan, "w").write(LISTSCAN)
    rec = os.path.join(tmp, "rec.json")
    json.dump(event_recording(), open(rec, "w"))
    obs_system = os.path.join(tmp, "observed.toml")
    open(obs_system, "w").write(OBSERVED_SYSTEM)

    def out(name):
        return os.path.join(tmp, name)

    runs = [
        ("measure", ["measure", "--duration", "300ms", "--allow-fallback", "--json", out("m.json")], "m.json"),
        ("measure", ["measure", "--duration", "200ms", "--rounds", "2", "--allow-fallback", "--json", out("mr.json")], "mr.json"),
        ("compare", ["compare", out("m.json"), out("mr.json"), "--json", out("c.json")], "c.json"),
        ("noise", ["noise", "--duration", "200ms", "--window", "50ms", "--json", out("n.json")], "n.json"),
        ("trace", ["trace", os.path.join(trace_fix, "demo8.vcd"), "--pulse", "D0", "--pulse", "D7",
                   "--latency", "D0:rise->D1:rise", "--period", "D1:rise", "--busy", "D2,window=1ms",
                   "--count", "D3,window=1ms", "--limit", "D0.max<1ms", "--limit", "D2.busy.percent<90%",
                   "--json", out("t.json")], "t.json"),
        ("trace", ["trace", os.path.join(trace_fix, "demo16.sr"), "--pulse", "D0", "--json", out("t2.json")], "t2.json"),
        ("analyze", ["analyze", system, "--sensitivity", "--assign-priorities", "--json", out("a.json")], "a.json"),
        ("analyze", ["analyze", full, "--json", out("a2.json")], "a2.json"),
        ("tasks", ["trace", rec, "--tasks", "--json", out("k.json")], "k.json"),
        ("analyze", ["analyze", obs_system, "--observed", rec, "--json", out("a3.json")], "a3.json"),
        ("fit", ["fit", rec, "--target", "tick", "--json", out("f3.json")], "f3.json"),
        ("simulate", ["simulate", system, "--duration", "2s", "--json", out("s.json")], "s.json"),
        ("simulate", ["simulate", listscan, "--duration", "1s", "--json", out("s2.json")], "s2.json"),
        ("fit", ["fit", csv, "--target", "tick", "--x", "released", "--y", "duration", "--unit", "ns", "--json", out("f.json")], "f.json"),
        ("fit", ["fit", csv, "--target", "switch", "--x", "released", "--y", "duration", "--unit", "ns", "--json", out("f2.json")], "f2.json"),
    ]
    scen = subprocess.run([a.latscope, "scenario", "list"], capture_output=True, text=True).stdout
    for line in scen.splitlines()[1:]:
        name = line.split()[0] if line and not line.startswith(" ") else None
        if name and name != "linux-wakeup":
            runs.append(("scenario", ["scenario", "run", name, "--quick", "--json", out(f"sc-{name}.json")], f"sc-{name}.json"))

    docs = {}
    for kind, args, file in runs:
        r = subprocess.run([a.latscope, *args], capture_output=True, text=True)
        what = "latscope " + " ".join(x.replace(tmp + "/", "").replace(ROOT + "/", "") for x in args)
        # trace exits 1 when a limit fails; the JSON is still written
        if not os.path.exists(out(file)):
            check(False, f"{what}: no JSON written (exit {r.returncode}): {r.stderr.strip()[:300]}")
            continue
        doc = json.load(open(out(file)))
        check(doc.get("kind") == kind, f"{what}: kind {doc.get('kind')!r}")
        validate(kind, doc, what)
        docs.setdefault(kind, doc)
        if kind == "scenario":
            for i, nested in enumerate(doc.get("results", [])):
                k = nested.get("kind")
                check(k in v, f"{what}: results[{i}] has a known kind ({k!r})")
                if k in v:
                    validate(k, nested, f"{what}: results[{i}] ({k})")

    # The summaries inside the results validate against the shared summary schema.
    if "trace" in docs:
        for m in docs["trace"]["measurements"]:
            validate("summary", m, f"trace measurement {m['name']} as a summary")
    if "measure" in docs:
        validate("summary", docs["measure"]["total"], "measure total as a summary")
    if "tasks" in docs:
        for t in docs["tasks"]["tasks"]:
            for s in ["start_latency", "response", "execution"]:
                validate("summary", t[s], f"tasks {t['name']} {s} as a summary")
        for i in docs["tasks"]["isrs"]:
            validate("summary", i["duration"], f"tasks handler {i['name']} duration as a summary")
    if "simulate" in docs:
        for t in docs["simulate"]["tasks"]:
            validate("summary", t["response"], f"simulate task {t['name']} response as a summary")

    # The check can fail: broken documents are rejected.
    broken = []
    if "trace" in docs:
        d = copy.deepcopy(docs["trace"]); d["measurements"][0]["max_ns"] = "big"; broken.append(("trace", d, "max_ns a string"))
        d = copy.deepcopy(docs["trace"]); d["kind"] = "simulate"; broken.append(("trace", d, "wrong kind"))
        d = copy.deepcopy(docs["trace"]); del d["measurements"]; broken.append(("trace", d, "no measurements"))
    if "measure" in docs:
        d = copy.deepcopy(docs["measure"]); d["total"]["histogram"] = [{"low_ns": 0}]; broken.append(("measure", d, "histogram bin without high_ns/count"))
        d = copy.deepcopy(docs["measure"]); d["cpus"][0]["cpu"] = -1; broken.append(("measure", d, "negative cpu"))
    if "noise" in docs:
        d = copy.deepcopy(docs["noise"]); del d["cpus"][0]["by_source"]["hw"]; broken.append(("noise", d, "no hw source"))
        d = copy.deepcopy(docs["noise"]); d["cpus"][0]["windows"] = ["1%"]; broken.append(("noise", d, "a window as a string"))
    if "simulate" in docs:
        d = copy.deepcopy(docs["simulate"]); d["tasks"][0]["jobs"] = 1.5; broken.append(("simulate", d, "fractional job count"))
    if "analyze" in docs:
        d = copy.deepcopy(docs["analyze"]); d["tasks"][0]["schedulable"] = "yes"; broken.append(("analyze", d, "schedulable a string"))
    if "fit" in docs:
        d = copy.deepcopy(docs["fit"]); del d["least_squares"]; broken.append(("fit", d, "no least_squares"))
    if "tasks" in docs:
        d = copy.deepcopy(docs["tasks"]); d["tasks"][0]["response"]["max_ns"] = "big"; broken.append(("tasks", d, "max_ns a string"))
        d = copy.deepcopy(docs["tasks"]); del d["lost_events"]; broken.append(("tasks", d, "no lost_events"))
    for kind, d, why in broken:
        check(not v[kind].is_valid(d), f"a {kind} document with {why} is rejected")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
