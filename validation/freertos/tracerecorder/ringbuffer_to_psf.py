#!/usr/bin/env python3
"""Cut a PSF stream out of a Percepio TraceRecorder RingBuffer RAM dump.

The RingBuffer stream port keeps, between its start markers (05 06 07 08 75 76 77 78 F5 F6
F7 F8) and end markers, the PSF header, the timestamp information, the entry table (object
names and states) and the event buffer: a 32-bit size, then per core a TraceEventBuffer_t
(head, tail, size, options, dropped, free, slack, next head, wraparounds, reserved, data
pointer: 11 words on a 32-bit target) followed by that core's bytes. A streaming port sends
the same header, timestamp information and entry table, then the events in order; this
writes that: the bytes from the PSF word to the end of the entry table, then the event bytes
from tail to head (one core, 32-bit little-endian target, as the harness builds). latscope's
importer reads the dump itself as well; this file is the stream the other recorders' ports
would produce, for tools that read only .psf.
"""
import struct
import sys

START = bytes([0x05, 0x06, 0x07, 0x08, 0x75, 0x76, 0x77, 0x78, 0xF5, 0xF6, 0xF7, 0xF8])


def main():
    src, dst = sys.argv[1], sys.argv[2]
    b = open(src, "rb").read()
    p = b.find(START)
    if p < 0:
        sys.exit(f"{src}: no RingBuffer start markers")
    psf = p + len(START)
    if b[psf:psf + 4] != b"\x00FSP":
        sys.exit(f"{src}: no little-endian PSF header after the start markers")
    cores = struct.unpack_from("<I", b, psf + 12)[0] & 0xFF
    if cores != 1:
        sys.exit(f"{src}: {cores} cores; this cuts one")
    q = psf + 32 + 28  # header, timestamp information
    n, sym, states = struct.unpack_from("<3I", b, q)
    q += 12 + n * (4 + 4 * states + 4 + sym)  # entry table
    meta = b[psf:q]
    q += 4  # event buffer size
    head, tail, size, _opts, _dropped, _free, slack = struct.unpack_from("<7I", b, q)
    data = q + 44
    if head >= tail:
        events = b[data + tail:data + head]
    else:  # wrapped (overwrite mode): tail to the slack, then the start to head
        events = b[data + tail:data + size - slack] + b[data:data + head]
    with open(dst, "wb") as f:
        f.write(meta + events)


if __name__ == "__main__":
    main()
