"""CPU time of two latscope binaries' `simulate` runs, alternated (ABBA), on one system file.

Usage: python3 bench/simulate.d/cpu_ab.py BEFORE_BIN AFTER_BIN SYSTEM DURATION RUNS

Prints, for each binary, the median and minimum of the child's user + system CPU time
and of the wall time. Alternating the two keeps a busy host's load changes from
favouring one of them; CPU time is less disturbed by other jobs than wall time.
"""
import resource
import statistics
import subprocess
import sys
import time


def run(binary, system, duration):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([binary, "simulate", system, "-D", duration, "-q", "--json", "/dev/null"],
                   check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    return cpu, wall


def main():
    before, after, system, duration, runs = sys.argv[1:6]
    res = {before: [], after: []}
    for i in range(int(runs)):
        for b in ((before, after) if i % 2 == 0 else (after, before)):
            res[b].append(run(b, system, duration))
    for b, name in ((before, "before"), (after, "after")):
        cpu = [x[0] for x in res[b]]
        wall = [x[1] for x in res[b]]
        print(f"{name}: CPU median {statistics.median(cpu) * 1e3:.2f} ms "
              f"min {min(cpu) * 1e3:.2f} ms; wall median {statistics.median(wall) * 1e3:.2f} ms "
              f"min {min(wall) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
