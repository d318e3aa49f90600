#!/usr/bin/env python3
"""The measuring method of "Wakeup Latency, CPU Frequency (Gotcha)", rewritten for latscope.

Sleeps INTERVAL seconds LOOPS times and records, for each sleep, how much later than asked
the loop got control back (wall clock after minus before, minus the interval), as that
document's script does. With --select the sleep is select() with no file descriptors, the
way Python up to 3.10 implemented time.sleep; the kernel then gives the timer a slack of
max(the thread's slack, timeout / 1000) instead of the thread's slack alone.

Prints one JSON object: the interval, the sleep call, this thread's timer slack as the
kernel reports it, the process's nice value (a positive one makes select()'s slack
timeout / 200 instead of timeout / 1000), and every late time in microseconds.

    python3 sleep_loop.py 0.01 100
    python3 sleep_loop.py 1 5 --select
"""

import json
import os
import select
import sys
import time


def thread_slack_ns():
    """This thread's timer slack (ns), or None where /proc does not say."""
    for path in ("/proc/thread-self/timerslack_ns", "/proc/self/timerslack_ns"):
        try:
            with open(path) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            continue
    return None


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    use_select = "--select" in argv
    if len(args) != 2:
        sys.stderr.write("usage: sleep_loop.py INTERVAL_S LOOPS [--select]\n")
        return 2
    interval = float(args[0])
    loops = int(args[1])
    if not (0 < interval <= 10) or not (1 <= loops <= 100000):
        sys.stderr.write("sleep_loop.py: interval 0..10 s and 1..100000 loops\n")
        return 2
    late_us = []
    for _ in range(loops):
        before = time.time()
        if use_select:
            select.select([], [], [], interval)
        else:
            time.sleep(interval)
        after = time.time()
        late_us.append((after - before - interval) * 1e6)
    json.dump(
        {
            "interval_s": interval,
            "sleep": "select" if use_select else "time.sleep",
            "python": sys.version.split()[0],
            "timer_slack_ns": thread_slack_ns(),
            "nice": os.nice(0),
            "late_us": late_us,
        },
        sys.stdout,
    )
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
