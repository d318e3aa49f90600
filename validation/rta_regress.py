#!/usr/bin/env python3
"""Regression check of `latscope analyze` between two builds (e.g. before and after a
change to the analysis): random system descriptions exercising every feature of the
tick-driven and interrupt-path models (generic and optimised task selection, both tick
modes, equal priorities, time slicing, jitter, blocking, deadlines beyond the period,
off-grid tick rates, tickless sleep states, interrupts), analysed by both binaries with
several option sets. Every integer of the JSON must agree; iteration counts may differ
and the interference lists are compared as sets.

A task stopped past its deadline (`--stop-at-deadline`, the default since issue 29) is
compared by its verdict alone: which job the two report and the reason's wording may
differ. `--new-args` passes options to the new build only (e.g. `--exact-unbounded
--interference full` to compare a build from before those defaults with one after).

Usage: validation/rta_regress.py OLD_BIN NEW_BIN [--sets 400] [--seed 7] [--new-args ARGS]
Exit status 1 on any difference. Not part of CI (it needs a second build); record the
run in the commit message of an analysis change.
"""
import argparse, json, random, subprocess, sys, tempfile, os


def system(rng):
    model = rng.choice(["tick", "tick", "tick", "irqpath"])
    n = rng.randint(1, 40)
    out = ["[platform]", "cpu_hz = 84_000_000", f"irq_entry_cycles = {rng.randint(0, 40)}"]
    out += ["[kernel]", f"tick_hz = {rng.choice([100, 250, 300, 1000, 1000])}", f'model = "{model}"',
            f'task_selection = "{rng.choice(["generic", "optimised"])}"',
            f'tick_mode = "{rng.choice(["partitioned", "pessimistic"])}"',
            f"time_slicing = {str(rng.random() < 0.3).lower()}", "allow_equal_priorities = true",
            "[kernel.costs]"]
    if model == "tick":
        out += [f'tick_base = "{rng.randint(0, 5000)}ns"', f'tick_per_release = "{rng.randint(0, 8000)}ns"',
                f'switch_base = "{rng.randint(0, 4000)}ns"', f'switch_per_level = "{rng.randint(0, 900)}ns"']
        if rng.random() < 0.2:
            out += ["[[kernel.sleep_state]]", 'name = "stop"', f"safety_margin_ticks = {rng.randint(0, 3)}",
                    f'parts = {{ cpu_wake = "{rng.randint(1, 100)}us", context_switch = "{rng.randint(1, 10)}us" }}']
    else:
        out += [f'tick = "{rng.randint(0, 5000)}ns"', f'switch = "{rng.randint(0, 4000)}ns"']
    u = rng.uniform(0.2, 0.98)
    shares = [rng.random() for _ in range(n)]
    for i in range(n):
        period = rng.choice([rng.randint(2, 2000) * 1000, rng.randint(2000, 2_000_000)])  # us
        wcet = max(1, int(period * u * shares[i] / sum(shares)))
        prio = rng.randint(0, 12) if rng.random() < 0.5 else i + 1
        out += ["[[task]]", f'name = "t{i}"', f'period = "{period}us"', f'wcet = "{wcet}us"', f"priority = {prio}"]
        if rng.random() < 0.3:
            out.append(f'jitter = "{rng.randint(0, period // 2)}us"')
        if rng.random() < 0.2:
            out.append(f'blocking = "{rng.randint(0, 2000)}us"')
        if rng.random() < 0.1:
            out.append(f'deadline = "{period * rng.randint(1, 4)}us"')
    for x in range(rng.randint(0, 2)):
        out += ["[[interrupt]]", f'name = "irq{x}"', f'min_interarrival = "{rng.randint(50, 20000)}us"',
                f'wcet = "{rng.randint(1, 50)}us"']
    return "\n".join(out) + "\n"


def stopped(t):
    r = t.get("unbounded_reason") or ""
    return r.startswith("stopped: past the deadline") or r.startswith("unbounded past D")


def run(binary, path, opts, tmp):
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([binary, "analyze", path, "--json", out, *opts], capture_output=True, text=True)
    d = json.load(open(out)) if os.path.exists(out) else None
    if d is not None:
        for tasks in [d["tasks"], *d["tick_modes"].values()]:
            for t in tasks:
                t.pop("iterations")
                t.pop("wcrt_above_ns", None)
                if stopped(t):
                    t["unbounded_reason"] = "stopped past the deadline"
                    t.pop("jobs_examined")
                t["breakdown"]["interference"].sort(key=lambda x: x["name"])
    return p.returncode, d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--sets", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--new-args", default="", help="options for the new build only")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    option_sets = [[], ["--no-overheads"], ["--stop-at-deadline"], ["--tick-mode", "pessimistic", "--no-release-delay"]]
    bad = 0
    tasks = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sys.toml")
        for s in range(a.sets):
            open(path, "w").write(system(rng))
            for opts in option_sets:
                ro, do = run(a.old, path, opts, tmp)
                rn, dn = run(a.new, path, opts + a.new_args.split(), tmp)
                if (ro, do) != (rn, dn):
                    bad += 1
                    keep = os.path.join(tempfile.gettempdir(), f"rta-regress-{s}.toml")
                    open(keep, "w").write(open(path).read())
                    print(f"set {s} {' '.join(opts)}: differs (exit {ro} vs {rn}); kept as {keep}")
                elif dn:
                    tasks += len(dn["tasks"])
    print(f"{a.sets} sets x {len(option_sets)} option sets, {tasks} task results compared: "
          f"{a.sets * len(option_sets) - bad} identical, {bad} different")
    sys.exit(1 if bad else 0)


main()
