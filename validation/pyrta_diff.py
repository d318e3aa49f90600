#!/usr/bin/env python3
"""Differential test: latscope's response-time analysis against pyRTA.

pyRTA is the PyPI package `response-time-analysis` (Brandenburg et al., the Prosa
family's reference RTAs). Its fixed-priority RTA (`response_time_analysis.fp.rta`) has
no kernel overheads, so latscope runs with `--no-overheads --no-release-delay`, and with
`--exact-unbounded`, since pyRTA also reports response times past the deadline. Both use
the same convention (larger number = higher priority; equal priorities interfere).

Random task sets: n in [2, 16] tasks, total utilisation in [0.05, 0.99] split by
UUniFast, periods log-uniform in [100 us, 1 s] with 1 ns..1 ms granularity (many
non-harmonic), priorities rate-monotonic or a random permutation (which gives long
busy windows with several jobs, exercising arbitrary deadlines). Times are whole
nanoseconds, so both tools compute on the same integers and must agree EXACTLY.

Usage: pyrta_diff.py --latscope PATH [--sets 1000] [--seed 1] [--keep DIR]
Exit status 0 when every response time is identical, 1 otherwise.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

try:
    import response_time_analysis as rta
    from response_time_analysis import model as m
except ImportError:  # pragma: no cover
    sys.exit("pyRTA missing: pip install response-time-analysis")


def uunifast(rng, n, total):
    out, s = [], total
    for i in range(1, n):
        nxt = s * rng.random() ** (1.0 / (n - i))
        out.append(s - nxt)
        s = nxt
    out.append(s)
    return out


def random_set(rng):
    n = rng.randint(2, 16)
    u = rng.uniform(0.05, 0.99)
    gran = rng.choice([1, 1_000, 10_000, 1_000_000])  # ns
    tasks = []
    for i, ui in enumerate(uunifast(rng, n, u)):
        lo, hi = math.log(100_000), math.log(1_000_000_000)
        period = max(gran, int(math.exp(rng.uniform(lo, hi))) // gran * gran)
        wcet = max(1, min(period, int(ui * period)))
        tasks.append({"name": f"t{i}", "period": period, "wcet": wcet})
    prios = list(range(1, n + 1))
    if rng.random() < 0.5:
        order = sorted(range(n), key=lambda k: (tasks[k]["period"], k))
        for rank, k in enumerate(order):
            tasks[k]["priority"] = n - rank
    else:
        rng.shuffle(prios)
        for t, p in zip(tasks, prios):
            t["priority"] = p
    return tasks


def to_toml(tasks):
    lines = [
        "[platform]",
        "cpu_hz = 100_000_000",
        "[kernel]",
        "tick_hz = 1000",
        "",
    ]
    for t in tasks:
        lines += [
            "[[task]]",
            f'name = "{t["name"]}"',
            f'period = "{t["period"]}ns"',
            f'wcet = "{t["wcet"]}ns"',
            f'priority = {t["priority"]}',
            "",
        ]
    return "\n".join(lines)


def pyrta(tasks):
    ts = m.taskset(
        m.Task(
            m.Periodic(t["period"]),
            m.FullyPreemptive(m.WCET(t["wcet"])),
            priority=t["priority"],
        )
        for t in tasks
    )
    horizon = 1000 * max(t["period"] for t in tasks)
    out = {}
    for tsk, t in zip(ts, tasks):
        sol = rta.fp.rta(ts, tsk, m.IdealProcessor(), horizon=horizon)
        out[t["name"]] = sol.response_time_bound
    return out


def latscope(binary, path):
    res = subprocess.run(
        [binary, "analyze", path, "--no-overheads", "--no-release-delay", "--exact-unbounded",
         "--json", "-"],
        capture_output=True,
        text=True,
    )
    if res.returncode != 0:
        raise RuntimeError(f"latscope failed on {path}: {res.stderr}")
    doc = json.loads(res.stdout)
    out = {}
    for t in doc["tasks"]:
        ps = t["wcrt_ps"]
        out[t["name"]] = None if ps is None else (ps // 1000 if ps % 1000 == 0 else ps / 1000)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latscope", required=True, help="path to the latscope binary")
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the generated systems in this directory")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    workdir = a.keep or tempfile.mkdtemp(prefix="latscope-pyrta-")
    os.makedirs(workdir, exist_ok=True)
    passed = failed = compared = multi_job = 0
    t_py = t_ls = 0.0
    for k in range(a.sets):
        tasks = random_set(rng)
        path = os.path.join(workdir, f"set-{k:04d}.toml")
        with open(path, "w") as f:
            f.write(to_toml(tasks))
        t0 = time.perf_counter()
        want = pyrta(tasks)
        t1 = time.perf_counter()
        got = latscope(a.latscope, path)
        t2 = time.perf_counter()
        t_py += t1 - t0
        t_ls += t2 - t1
        bad = [(n, want[n], got.get(n)) for n in want if want[n] != got.get(n)]
        compared += len(want)
        if bad:
            failed += 1
            if failed <= 10:
                print(f"MISMATCH {path}: (task, pyRTA, latscope) {bad[:5]}")
        else:
            passed += 1
    if not a.keep:
        for f in os.listdir(workdir):
            os.remove(os.path.join(workdir, f))
        os.rmdir(workdir)
    print(
        f"pyRTA differential: {compared} response times in {a.sets} sets; "
        f"pyRTA {t_py:.1f} s, latscope {t_ls:.1f} s (process start included)"
    )
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
