"""Ctrl-C: a long simulate or measure in a child Python ends with KeyboardInterrupt
soon after SIGINT; while it runs, other Python threads keep running (GIL released)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import SCENARIOS

TICK = str(SCENARIOS / "freertos-tick" / "system.toml")

# The child restores Python's own SIGINT handler first: started from a shell without job
# control (a background CI job), it inherits SIGINT ignored, and Python then leaves it
# ignored, so Ctrl-C could not be tested at all.
CHILD = r"""
import signal, sys, threading, time, latscope
signal.signal(signal.SIGINT, signal.default_int_handler)
ticks = []
def other():
    while True:
        ticks.append(time.monotonic()); time.sleep(0.01)
threading.Thread(target=other, daemon=True).start()
print("started", flush=True)
try:
    CALL
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", len(ticks), flush=True)
"""

CALLS = {
    # about 3e9 simulated events: hours of work
    "simulate": f"latscope.simulate({TICK!r}, duration='1000000s')",
    "measure": "latscope.measure(duration='600s', interval='1ms', cpus='0', allow_fallback=True, lock_memory=False)",
}


@pytest.mark.parametrize("what", sorted(CALLS))
def test_sigint_interrupts(what):
    if what == "measure" and not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    code = CHILD.replace("CALL", CALLS[what])
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(1.5)
        assert p.poll() is None, p.stderr.read()
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
    assert out.startswith("interrupted"), (out, err)
    # the other thread ran while the call was working: the GIL was released
    assert int(out.split()[1]) >= 20, out
    # generous: a loaded 2-core machine; without signal checks it would run for hours
    assert took < 30
