#!/usr/bin/env python3
"""Regenerates the malformed-input corpus. Each file must give a clean error (never a
panic); EXPECT lists a substring the error message must contain."""
import io
import struct
import zipfile

expect = []

def put(name, data, want):
    with open(name, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    expect.append((name, want))

META = ("[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\n"
        "total probes=8\nsamplerate=1 MHz\nprobe1=A\nprobe2=B\nunitsize=1\n")

def sr(entries):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in entries:
            z.writestr(k, v)
    return b.getvalue()

good = sr([("version", "2"), ("metadata", META), ("logic-1-1", bytes([0, 1, 1, 3, 2] * 400))])
put("sr_truncated.sr", good[: len(good) // 2], "zip")
put("sr_not_zip.sr", b"PK\x03\x04 this is not really a zip archive", "zip")
put("sr_no_metadata.sr", sr([("version", "2"), ("logic-1-1", b"\0\1")]), "no 'metadata' entry")
put("sr_bad_version.sr", sr([("version", "7"), ("metadata", META)]), "unsupported session version")
put("sr_no_samplerate.sr", sr([("version", "2"), ("metadata", META.replace("samplerate=1 MHz\n", "")),
                               ("logic-1-1", b"\0\1")]), "--samplerate")
put("sr_bad_unitsize.sr", sr([("version", "2"), ("metadata", META.replace("unitsize=1", "unitsize=9")),
                              ("logic-1-1", b"\0" * 9)]), "unitsize 9")
put("sr_contradictory.sr", sr([("version", "2"), ("metadata", META + "probe12=X\n"),
                               ("logic-1-1", b"\0\1")]), "contradictory metadata")
put("sr_chunk_not_multiple.sr", sr([("version", "2"),
                                    ("metadata", META.replace("unitsize=1", "unitsize=2")),
                                    ("logic-1-1", b"\0\1\2")]), "not a multiple of the unit size")
put("sr_no_logic.sr", sr([("version", "2"), ("metadata", META)]), "no logic data")
put("sr_bad_samplerate.sr", sr([("version", "2"), ("metadata", META.replace("1 MHz", "fast")),
                                ("logic-1-1", b"\0")]), "samplerate 'fast'")
put("sr_analog_odd.sr", sr([("version", "2"), ("metadata", META), ("logic-1-1", b"\0\1"),
                            ("analog-1-3-1", b"\0\0\0")]), "multiple of 4")
# corrupt deflate stream: flip bytes in the middle of the logic entry's data
raw = bytearray(sr([("version", "2"), ("metadata", META), ("logic-1-1", bytes(range(256)) * 64)]))
pos = raw.find(b"logic-1-1") + 40
for i in range(pos, pos + 40):
    raw[i] ^= 0x5A
put("sr_corrupt_deflate.sr", bytes(raw), "logic-1-1")

VH = "$timescale 1ns $end\n$var wire 1 ! a $end\n$enddefinitions $end\n"
put("vcd_unknown_id.vcd", VH + "#0\n0!\n#5\n1?\n", "unknown identifier")
put("vcd_backwards.vcd", VH + "#10\n1!\n#5\n0!\n", "backwards")
put("vcd_no_enddefs.vcd", "$timescale 1ns $end\n$var wire 1 ! a $end\n", "no $enddefinitions")
put("vcd_bad_timescale.vcd", "$timescale 3 parsecs $end\n$var wire 1 ! a $end\n$enddefinitions $end\n",
    "timescale")
put("vcd_unclosed.vcd", "$timescale 1ns $end\n$var wire 1 ! a\n", "not closed by $end")
put("vcd_no_vars.vcd", "$timescale 1ns $end\n$enddefinitions $end\n#0\n", "no $var")
put("vcd_bad_time.vcd", VH + "#12x\n", "bad timestamp")
put("vcd_bad_size.vcd", "$var wire zero ! a $end\n$enddefinitions $end\n", "not a number")
put("vcd_dangling_vector.vcd", VH.replace("wire 1", "wire 2") + "#0\nb01", "without an identifier")

put("csv_backwards.csv", "Time [s],A\n0.5,0\n0.4,1\n", "backwards")
put("csv_bad_level.csv", "Time [s],A\n0,0\n1,maybe\n", "not a logic level")
put("csv_no_rows.csv", "Time [s],A,B\n", "no data rows")
put("csv_short_row.csv", "Time [s],A,B\n0,1,0\n1,1\n", "line 3")
put("csv_bad_time.csv", "time_ns,A\nabc,1\n", "neither a number")
put("csv_huge_time.csv", "Time [s],A\n-9000000,0\n9000000,1\n", "out of range")

def sal(version, typ, body):
    return b"<SALEAE>" + struct.pack("<ii", version, typ) + body

d0 = struct.pack("<Iddq", 0, 0.0, 1.0, 3) + struct.pack("<ddd", 0.1, 0.2, 0.3)
put("saleae_truncated.bin", sal(0, 0, d0)[:-5], "truncated")
put("saleae_bad_version.bin", sal(9, 0, d0), "unsupported export version 9")
put("saleae_bad_type.bin", sal(0, 4, d0), "unknown data type 4")
put("saleae_backwards.bin", sal(0, 0, struct.pack("<Iddq", 0, 0.0, 1.0, 2) + struct.pack("<dd", 0.5, 0.2)),
    "before the previous")
put("saleae_after_end.bin", sal(0, 0, struct.pack("<Iddq", 0, 0.0, 1.0, 1) + struct.pack("<d", 5.0)),
    "after end_time")
put("saleae_nan.bin", sal(0, 0, struct.pack("<Iddq", 0, float("nan"), 1.0, 0)), "not a usable time")
put("saleae_trailing.bin", sal(0, 0, d0) + b"junk", "unexpected bytes")
put("saleae_analog_trunc.bin", sal(0, 1, struct.pack("<dqqq", 0.0, 1000, 1, 100) + b"\0" * 40),
    "truncated")

native = (b"LSCAP\0" + struct.pack("<HQqqQII", 1, 0, 0, 100, 1, 1, 0) + struct.pack("<I", 1) + b"s"
          + struct.pack("<I", 1) + b"a" + b"\x01" + struct.pack("<QQ", 3, 3) + b"\x05\x05")
put("native_truncated.lscap", native, "truncated")
put("native_bad_version.lscap", b"LSCAP\0" + struct.pack("<H", 9) + b"\0" * 40, "unsupported version 9")
put("native_zero_delta.lscap", native[:-2] + b"\x05\x00\x05", "not after the previous one")

put("cyclelog_bad_line.log", "100 A_enter\nhello\n", "line 2")
put("cyclelog_no_cpu.log", "100 A_enter\n200 A_exit\n", "--cpu-hz")
put("unknown_format.bin", b"\x00\x01\x02\x03 nothing recognisable", "unrecognised capture format")
put("empty.txt", b"", "empty")

with open("EXPECT", "w") as f:
    for n, w in expect:
        f.write("%s\t%s\n" % (n, w))
