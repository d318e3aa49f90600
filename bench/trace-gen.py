#!/usr/bin/env python3
"""Writes a sigrok session (.sr, version 2) with N samples on 8 channels, fast.

Channels: D0 SysTick (1 kHz, 2-6 us high), D1 PendSV (after each tick), D2 IRQ
(pseudo-random), D3 Task (busy after each IRQ), D4 idle, D5 heartbeat (10 Hz),
D6 always low, D7 a 100 kHz clock. Built from a few dozen different 1 ms periods,
so that pulse widths vary, and stored in 4 MiB deflated chunks like sigrok does.

With SHAPE `dense` (4th argument) D0 instead toggles every 3 samples (an edge every 3
samples, 33 M edges per 100 M samples) and the other channels stay low: the worst case for
an edge-list decoder.

usage: trace-gen.py OUT.sr [SAMPLES] [SAMPLERATE_HZ] [sparse|dense]
"""
import random
import sys
import zipfile

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000_000
rate = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
shape = sys.argv[4] if len(sys.argv) > 4 else "sparse"
per = rate // 1000  # one 1 ms tick
us = rate // 1_000_000
rng = random.Random(1)

clock = bytearray(per)
half = rate // 200_000  # 100 kHz clock half period
for i in range(per):
    if (i // half) % 2:
        clock[i] = 0x80

def period(k):
    b = bytearray(clock)
    def hi(bit, a, w):
        for i in range(a, min(a + w, per)):
            b[i] |= 1 << bit
    w = (2 + k % 5) * us  # SysTick 2..6 us
    hi(0, 0, w)
    hi(1, w + us, (3 + k % 3) * us)  # PendSV
    irq = (100 + rng.randrange(600)) * us
    hi(2, irq, 1 * us)
    hi(3, irq + (5 + rng.randrange(20)) * us, (50 + rng.randrange(150)) * us)
    return bytes(b)

variants = [period(k) for k in range(40)]
hb_on = bytes(x | 0x20 for x in variants[0])

with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
    z.writestr("version", "2")
    z.writestr(
        "metadata",
        "[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\n"
        "total probes=8\nsamplerate=%d MHz\ntotal analog=0\n" % (rate // 1_000_000)
        + "".join("probe%d=%s\n" % (i + 1, nm) for i, nm in enumerate(
            ["SysTick", "PendSV", "IRQ", "Task", "idle", "heartbeat", "D6", "clk"]))
        + "unitsize=1\n",
    )
    chunk = bytearray()
    written = 0
    idx = 1
    p = 0
    if shape == "dense":
        block = b"\x01\x01\x01\x00\x00\x00" * 699050  # 4 MiB - 4 bytes, whole periods
        while written < n:
            take = min(len(block), n - written)
            z.writestr("logic-1-%d" % idx, block[:take])
            idx += 1
            written += take
    while written < n:
        v = variants[rng.randrange(len(variants))]
        if (p // 50) % 2:  # heartbeat: 50 ms on, 50 ms off
            v = bytes(x | 0x20 for x in v)
        take = min(per, n - written)
        chunk += v[:take]
        written += take
        p += 1
        if len(chunk) >= 4 << 20 or written >= n:
            z.writestr("logic-1-%d" % idx, bytes(chunk))
            idx += 1
            chunk = bytearray()
print("wrote %s: %d samples at %d Hz" % (out, n, rate))
