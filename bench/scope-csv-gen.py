#!/usr/bin/env python3
"""Writes a Keysight-style oscilloscope CSV for bench/scope-csv:

    python3 bench/scope-csv-gen.py OUT.csv ROWS [RATE_HZ]

Two header lines (`x-axis,1,2` and `second,Volt,Volt`), then ROWS rows of
`time,CH1,CH2` at RATE_HZ (default 100 MHz): CH1 a 3.3 V square wave with a period of
200 samples (one ramp sample on each edge, ±30 mV of deterministic noise), CH2 a 5 V
square wave with a period of 1,000 samples. Prints the rows and the edges per channel.
"""
import sys


def main():
    out, rows = sys.argv[1], int(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 100e6
    dt = 1.0 / rate
    with open(out, "w") as f:
        f.write("x-axis,1,2\nsecond,Volt,Volt\n")
        chunk = []
        x = 12345
        for i in range(rows):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            noise = ((x >> 8) % 61 - 30) / 1000.0
            p = i % 200
            a = 3.3 if 50 < p < 150 else (1.65 if p in (50, 150) else 0.0)
            b = 5.0 if i % 1000 < 300 else 0.0
            chunk.append(f"{i * dt:.9e},{a + noise:.3f},{b:.2f}\n")
            if len(chunk) == 65536:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))
    print(f"{rows} rows, {2 * (rows // 200)} edges on CH1, {2 * (rows // 1000)} on CH2")


main()
