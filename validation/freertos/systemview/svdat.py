#!/usr/bin/env python3
"""Turn the RAM dumps of a SystemView recording in the FreeRTOS harness into the .SVDat
file a host would have saved: SystemView's text header, then the bytes of the RTT channel
in the order the host reads them (the SystemView stream, starting with its ten zero sync
bytes).

  svdat.py RTT_CB UP_BUFFER OUT [--host HOST --host-len HOST_LEN] [--title TEXT]

RTT_CB is the dump of _SEGGER_RTT (the RTT control block: 16-byte id, the numbers of up
and down buffers, then 24 bytes per up buffer: name, buffer pointer, size, write offset,
read offset, flags); UP_BUFFER the dump of SystemView's up buffer (_UpBuffer). With
--host, the bytes a probe already read (sv_host, its length in sv_host_len) come first.
"""
import argparse
import struct
import sys

CHANNEL = 1  # SEGGER_SYSVIEW_RTT_CHANNEL in SEGGER_SYSVIEW_Conf.h
# The SystemView target sources' version (SEGGER_SYSVIEW.h: 3.32.0), as the first
# header line of a saved recording names the version that wrote it.
HEADER = ";\n; Version     SEGGER SystemViewer V3.32\n; Author      {title}\n;\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rtt_cb")
    ap.add_argument("up_buffer")
    ap.add_argument("out")
    ap.add_argument("--host")
    ap.add_argument("--host-len")
    ap.add_argument("--title", default="latscope validation/freertos/systemview")
    a = ap.parse_args()
    cb = open(a.rtt_cb, "rb").read()
    if not cb.startswith(b"SEGGER RTT"):
        sys.exit(f"{a.rtt_cb}: not an RTT control block")
    max_up = struct.unpack_from("<i", cb, 16)[0]
    if not 0 <= CHANNEL < max_up:
        sys.exit(f"{a.rtt_cb}: no up buffer {CHANNEL}")
    _name, _ptr, size, wr, rd, _flags = struct.unpack_from("<6I", cb, 24 + 24 * CHANNEL)
    buf = open(a.up_buffer, "rb").read()
    if size != len(buf) or wr >= size or rd >= size:
        sys.exit(f"{a.up_buffer}: {len(buf)} bytes, RTT says size {size}, write {wr}, read {rd}")
    # What the host has not read yet: from the read offset to the write offset, wrapping.
    pending = buf[rd:wr] if rd <= wr else buf[rd:] + buf[:wr]
    stream = b""
    if a.host:
        n = struct.unpack("<I", open(a.host_len, "rb").read()[:4])[0]
        host = open(a.host, "rb").read()
        if n > len(host):
            sys.exit(f"{a.host}: length {n} past the {len(host)} bytes")
        stream = host[:n]
    stream += pending
    with open(a.out, "wb") as f:
        f.write(HEADER.format(title=a.title).encode())
        f.write(stream)
    print(f"{a.out}: {len(stream)} stream bytes ({len(pending)} left in the RTT buffer of {size})")


if __name__ == "__main__":
    main()
