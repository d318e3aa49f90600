#!/usr/bin/env python3
"""Builds the hostile inputs of the malformed corpus at test time (they are small on disk
but claim or inflate to gigabytes, so they are not committed):

    python3 bombs.py OUTDIR

Each file is named for what it tries; crates/cli/tests/it/trace_hostile.rs runs
`latscope trace` on every one under a 2 GB address-space limit and a time limit and
expects exit status 2 with a one-line error naming the file and the place.

The zip files are written by hand (Python's zipfile cannot lie about sizes). A deflate
stream of N MiB of a repeated pattern is built from one compressed MiB: after a sync
flush the compressor emits the same bytes for every further identical MiB, so the stream
is the first segment, the steady segment repeated, and an empty final block.
"""
import os
import struct
import sys
import zlib

MIB = 1 << 20


def deflate_repeat(pattern, mib):
    """Raw deflate of `mib` MiB of `pattern` repeated, and the data's CRC-32."""
    chunk = pattern * (MIB // len(pattern))
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(chunk) + c.flush(zlib.Z_SYNC_FLUSH)
    steady = c.compress(chunk) + c.flush(zlib.Z_SYNC_FLUSH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(chunk, crc)
    return first + steady * (mib - 1) + b"\x03\x00", crc


def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zip_bytes(entries, shared=None):
    """entries: (name, compressed, crc, declared_size). With `shared` = (count, prefix),
    `count` central-directory entries named prefix-1..count all point at the first
    entry's one stream (the overlapping-entries bomb)."""
    out = bytearray()
    central = bytearray()
    n = 0

    def cd(name, comp, crc, size, off):
        nb = name.encode()
        return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc,
                           len(comp), size, len(nb), 0, 0, 0, 0, 0, off) + nb

    for name, comp, crc, size in entries:
        off = len(out)
        nb = name.encode()
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(comp), size,
                           len(nb), 0) + nb + comp
        if shared and name == entries[0][0]:
            for k in range(shared[0]):
                central += cd(f"{shared[1]}-{k + 1}", comp, crc, size, off)
                n += 1
        else:
            central += cd(name, comp, crc, size, off)
            n += 1
    cdo = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), cdo, 0)
    return bytes(out)


def small(name, text):
    data = text.encode() if isinstance(text, str) else text
    return (name, deflate(data), zlib.crc32(data), len(data))


META = ("[device 1]\ncapturefile=logic-1\ntotal probes=8\nsamplerate=1 MHz\n"
        "total analog=1\nanalog9=A0\nunitsize=1\n"
        + "".join(f"probe{i + 1}=D{i}\n" for i in range(8)))


def main(out):
    os.makedirs(out, exist_ok=True)

    def put(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    # metadata that inflates to 3 GiB while declaring 400 bytes
    bomb, _ = deflate_repeat(b"\0", 3072)
    put("metadata_bomb.sr", zip_bytes([small("version", "2"),
                                       ("metadata", bomb, 0, 400),
                                       small("logic-1-1", b"\0\1")]))
    # the same, honestly declaring 3 GiB
    put("metadata_huge.sr", zip_bytes([small("version", "2"),
                                       ("metadata", bomb, 0, 3 << 30),
                                       small("logic-1-1", b"\0\1")]))
    # an analog entry that inflates to 3 GiB while declaring 4 KiB
    put("analog_bomb.sr", zip_bytes([small("version", "2"), small("metadata", META),
                                     small("logic-1-1", b"\0\1" * 512),
                                     ("analog-1-9-1", bomb, 0, 4096)]))
    # an analog entry honestly declaring 3 GiB of float32 samples
    put("analog_huge.sr", zip_bytes([small("version", "2"), small("metadata", META),
                                     small("logic-1-1", b"\0\1" * 512),
                                     ("analog-1-9-1", bomb, 0, 3 << 30)]))
    # 8 channels that all toggle on every sample: 256 Mi samples (honest sizes)
    tog, crc = deflate_repeat(b"\0\xff", 256)
    put("toggle_every_sample.sr", zip_bytes([small("version", "2"),
                                             small("metadata", META.replace("total analog=1\nanalog9=A0\n", "")),
                                             ("logic-1", tog, crc, 256 * MIB)]))
    # 300 central-directory entries sharing one 1 GiB stream
    gib, crc = deflate_repeat(b"\0", 1024)
    put("shared_stream.sr", zip_bytes([("logic-1-1", gib, crc, 1 << 30),
                                       small("version", "2"),
                                       small("metadata", META.replace("total analog=1\nanalog9=A0\n", ""))],
                                      shared=(300, "logic-1")))
    # a VCD declaring 20,000 vectors of 4096 bits
    ids = []
    for k in range(20000):
        s, v = "", k
        while True:
            s += chr(33 + v % 94)
            v //= 94
            if v == 0:
                break
        ids.append(s)
    put("wide_vectors.vcd", ("$timescale 1ns $end\n$scope module m $end\n"
                             + "".join(f"$var wire 4096 {i} v{k} [4095:0] $end\n" for k, i in enumerate(ids))
                             + "$upscope $end\n$enddefinitions $end\n#0\n#1\n").encode())
    # a CSV header of 10 million columns
    with open(os.path.join(out, "ten_million_columns.csv"), "w") as f:
        f.write("time")
        row = "".join(f",c{k}" for k in range(100000))
        for _ in range(100):
            f.write(row)
        f.write("\n0" + ",0" * 10 ** 7 + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
