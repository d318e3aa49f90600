#!/usr/bin/env python3
"""Builds a large, honest sigrok session with one analog channel (built at test time: a
few hundred KB on disk, hundreds of MB of samples once inflated):

    python3 big_analog.py OUT.sr PARTS MIB_PER_PART

Channel A0 at 1 MHz is a square wave between 0 V and 3.3 V: entry `analog-1-1-k`
(k = 1..PARTS) holds MIB_PER_PART MiB of float32 samples, all 0.0 for odd k and all 3.3
for even k. So an edge sits between every two entries, at the midpoint of the two
samples around it, and with an even PARTS the 5th and 95th percentile levels are 0 V
and 3.3 V. crates/cli/tests/it/trace_analog_bounded.rs measures it in an address space
smaller than its samples.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bombs import deflate_repeat, small, zip_bytes  # noqa: E402

META = ("[device 1]\ncapturefile=logic-1\ntotal probes=1\nsamplerate=1 MHz\n"
        "total analog=1\nanalog2=A0\nunitsize=1\nprobe1=D0\n")


def main(out, parts, mib):
    low = deflate_repeat(struct.pack("<f", 0.0), mib)
    high = deflate_repeat(struct.pack("<f", 3.3), mib)
    entries = [small("version", "2"), small("metadata", META), small("logic-1-1", b"\0\1")]
    for k in range(1, parts + 1):
        comp, crc = low if k % 2 == 1 else high
        entries.append((f"analog-1-2-{k}", comp, crc, mib << 20))
    with open(out, "wb") as f:
        f.write(zip_bytes(entries))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
