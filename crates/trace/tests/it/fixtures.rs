//! Files written by the real tools decode to the same edges in every format.

use latscope_core::capture::Capture;
use latscope_core::time::Picos;
use latscope_trace::import::{self, saleae_bin, Format, Options};
use std::path::PathBuf;

fn fx(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn open(name: &str) -> Capture {
    import::open(&fx(name), &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn same_edges(a: &Capture, b: &Capture) {
    assert_eq!(a.channels.len(), b.channels.len());
    for (x, y) in a.channels.iter().zip(&b.channels) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.initial, y.initial, "{}", x.name);
        assert_eq!(x.edges, y.edges, "{}", x.name);
    }
}

#[test]
fn sigrok_sr_vcd_and_csv_agree() {
    let sr = open("demo8.sr");
    assert_eq!(sr.samplerate_hz, Some(1_000_000));
    assert_eq!(sr.channels.len(), 8);
    assert_eq!(sr.end, Picos::from_us(5000));
    assert!(sr.channels.iter().map(|c| c.edges.len()).sum::<usize>() > 1000);
    let vcd = open("demo8.vcd");
    same_edges(&sr, &vcd);
    assert_eq!(vcd.end, sr.end);
    // sigrok-cli's CSV: time column one sample late; the importer uses the row index
    let csv = open("demo8.csv");
    same_edges(&sr, &csv);
    assert_eq!(csv.end, sr.end);
}

#[test]
fn sigrok_unitsize_2_matches_its_vcd() {
    let sr = open("demo16.sr");
    assert_eq!(sr.channels.len(), 16);
    assert_eq!(sr.samplerate_hz, Some(2_000_000));
    let vcd = open("demo16.vcd");
    same_edges(&sr, &vcd);
}

#[test]
fn sigrok_with_analog() {
    let sr = open("demo_analog.sr");
    assert_eq!(sr.channels.len(), 4);
    assert_eq!(sr.analog.len(), 1);
    assert_eq!(sr.analog[0].values.len(), 2000);
    assert_eq!(sr.analog[0].interval, Picos::from_us(10));
}

#[test]
fn native_and_vcd_exports_of_a_real_capture_round_trip() {
    let sr = open("demo8.sr");
    let mut v = Vec::new();
    latscope_trace::export::vcd::write(&sr, &mut v).unwrap();
    let back = import::vcd::read(&v[..], "x.vcd").unwrap();
    same_edges(&sr, &back);
    let mut n = Vec::new();
    latscope_trace::export::native::write(&sr, &mut n).unwrap();
    assert_eq!(import::native::read(&n, "x").unwrap(), sr);
}

#[test]
fn saleae_binary_v0_v1_and_csv_agree() {
    // a 1 kHz tick, 3 µs high, sampled at 25 MHz, 0.5 ms pre-trigger
    let times: Vec<f64> = (0..20)
        .flat_map(|i| [i as f64 * 1e-3, i as f64 * 1e-3 + 3e-6])
        .collect();
    let v0 = saleae_bin::write::digital_v0(false, -0.5e-3, 0.02, &times);
    let opts = Options {
        samplerate_hz: Some(25_000_000),
        ..Default::default()
    };
    let a = import::read_bytes(&v0, "digital_0.bin", &opts).unwrap();
    assert_eq!(a.start, Picos::from_us(-500));
    assert_eq!(a.channels[0].edges.len(), 40);
    assert_eq!(a.channels[0].edges[1], Picos::from_us(3));
    assert_eq!(a.channels[0].edges[3], Picos::from_us(1003));
    let v1 = saleae_bin::write::digital_v1(&[(false, 25e6, -0.5e-3, 0.02, times.clone())]);
    let b = import::read_bytes(&v1, "digital_0.bin", &Options::default()).unwrap();
    same_edges(&a, &b);
    assert_eq!(b.samplerate_hz, Some(25_000_000));
    // Saleae CSV of the same signal
    let mut csv = String::from("Time [s],Channel 0\n-0.000500000,0\n");
    for (i, t) in times.iter().enumerate() {
        csv += &format!("{:.9},{}\n", t, (i + 1) % 2);
    }
    let c = import::read_bytes(csv.as_bytes(), "x.csv", &Options::default()).unwrap();
    assert_eq!(c.channels[0].edges, a.channels[0].edges);
    // every truncation of a binary file is a clean error
    for n in 0..v0.len() {
        assert!(import::read_bytes(
            &v0[..n],
            "t.bin",
            &Options {
                format: Some(Format::SaleaeBin),
                ..Default::default()
            }
        )
        .is_err());
    }
}

#[test]
fn saleae_analog_v0_and_v1() {
    let volts: Vec<f32> = (0..100)
        .map(|i| if (i / 10) % 2 == 1 { 3.3 } else { 0.0 })
        .collect();
    let a0 = saleae_bin::write::analog_v0(0.0, 1_000_000, 1, &volts);
    let a = import::read_bytes(&a0, "analog_0.bin", &Options::default()).unwrap();
    assert_eq!(a.analog[0].values, volts);
    assert_eq!(a.analog[0].interval, Picos::from_us(1));
    let a1 = saleae_bin::write::analog_v1(0.0, 0.0, 2e6, 2, &volts);
    let b = import::read_bytes(&a1, "analog_0.bin", &Options::default()).unwrap();
    assert_eq!(b.analog[0].values, volts);
    assert_eq!(b.analog[0].interval, Picos::from_us(1));
}

#[test]
fn saleae_csv_with_iso_times_and_x() {
    let csv = "\"Time [s]\", \"CLK\" ,DATA\n2024-05-01T10:00:00.000000000+00:00,0,X\n2024-05-01T10:00:00.000001000+00:00,1,1\n2024-05-01T10:00:00.000003500+00:00,0,X\n";
    let c = import::read_bytes(csv.as_bytes(), "s.csv", &Options::default()).unwrap();
    assert_eq!(c.channels[0].name, "CLK");
    assert_eq!(
        c.channels[0].edges,
        vec![Picos::from_ns(1000), Picos::from_ns(3500)]
    );
    assert!(c.channels[1].initial);
    assert!(c.channels[1].edges.is_empty());
}

#[test]
fn generic_csv_scope_csv_and_cycle_log() {
    let csv = "time_us,SysTick,Task\n0,0,0\n10,1,0\n13,0,1\n20,0,0\n";
    let c = import::read_bytes(csv.as_bytes(), "g.csv", &Options::default()).unwrap();
    assert_eq!(
        c.channels[0].edges,
        vec![Picos::from_us(10), Picos::from_us(13)]
    );
    assert_eq!(
        c.channels[1].edges,
        vec![Picos::from_us(13), Picos::from_us(20)]
    );
    // Rigol-style scope CSV: a 3.3 V pulse from 2.5 to 6.5 µs (interpolated)
    let mut s = String::from("X,CH1,Start,Increment,\nSequence,Volt,0.000000e+00,1.000000e-06,\n");
    for i in 0..10 {
        let v = match i {
            0..=1 => 0.0,
            2 => 0.0,
            3..=6 => 3.3,
            _ => 0.0,
        };
        s += &format!("{i},{v:.2e},,\n");
    }
    let c = import::read_bytes(s.as_bytes(), "r.csv", &Options::default()).unwrap();
    assert_eq!(c.channels[0].name, "CH1");
    assert_eq!(
        c.channels[0].edges,
        vec![Picos(2_500_000), Picos(6_500_000)]
    );
    // Tektronix: time and volts in columns 4 and 5
    let mut t = String::new();
    for i in 0..10 {
        let v = if (3..7).contains(&i) { 5.0 } else { 0.0 };
        let pre = if i == 0 {
            "Record Length,10,Points"
        } else {
            ",,"
        };
        t += &format!("{pre},{:e},{v}\n", i as f64 * 1e-6);
    }
    let c = import::read_bytes(t.as_bytes(), "tek.csv", &Options::default()).unwrap();
    assert_eq!(
        c.channels[0].edges,
        vec![Picos(2_500_000), Picos(6_500_000)]
    );
    let log = "1000 IRQ_enter\n1168 IRQ_exit\n";
    let c = import::read_bytes(
        log.as_bytes(),
        "d.log",
        &Options {
            cpu_hz: Some(168_000_000),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        c.channels[0].pulses(true).next(),
        Some((Picos(0), Picos::from_us(1)))
    );
}

#[test]
fn sigrok_decodes_only_the_channels_asked_for() {
    let all = open("demo8.sr");
    let o = Options {
        only_channels: Some(vec!["D2".into(), "#5".into()]),
        ..Default::default()
    };
    let some = import::open(&fx("demo8.sr"), &o).unwrap();
    assert_eq!(some.channels.len(), 8);
    assert!(all.channels[0].edges.len() > 100);
    for (i, (a, b)) in all.channels.iter().zip(&some.channels).enumerate() {
        if i == 2 || i == 5 {
            assert_eq!(a, b);
        } else {
            assert!(b.edges.is_empty(), "#{i}");
            assert_eq!(a.initial, b.initial);
        }
    }
}

fn make_sr(version: &str, meta: &str, entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    use std::io::Write;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("version", o).unwrap();
        z.write_all(version.as_bytes()).unwrap();
        z.start_file("metadata", o).unwrap();
        z.write_all(meta.as_bytes()).unwrap();
        for (n, d) in entries {
            z.start_file(*n, o).unwrap();
            z.write_all(d).unwrap();
        }
        z.finish().unwrap();
    }
    buf.into_inner()
}

#[test]
fn sigrok_v1_old_metadata_sparse_probes_and_wide_units() {
    // v1: a single logic-1, "key = value", probes 1 and 3 enabled (bits 0 and 2)
    let meta = "[global]\nsigrok version = 0.2.0\n\n[device 1]\ncapturefile = logic-1\ntotal probes = 3\nsamplerate = 200 kHz\nprobe1 = Clock line\nprobe3 = data\nunitsize = 1\n";
    let data = vec![0b000u8, 0b001, 0b011, 0b111, 0b110, 0b100, 0b000];
    let sr = make_sr("1", meta, &[("logic-1", data)]);
    let c = import::read_bytes(&sr, "v1.sr", &Options::default()).unwrap();
    let names: Vec<_> = c.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Clock line", "data"]);
    let us5 = |k: i64| Picos::from_us(5 * k);
    assert_eq!(c.channels[0].edges, vec![us5(1), us5(4)]);
    assert_eq!(c.channels[1].edges, vec![us5(3), us5(6)]);
    assert_eq!(c.end, us5(7));
    // unitsize 4 and 8, split over numbered chunks of odd sizes, with probe 33/64
    for unit in [4usize, 8] {
        let nbits = unit * 8;
        let meta = format!(
            "[device 1]\ncapturefile=logic-1\ntotal probes={nbits}\nsamplerate=1 MHz\nprobe1=a\nprobe{nbits}=top\nunitsize={unit}\n"
        );
        let mut raw = Vec::new();
        for i in 0..1000u64 {
            let w: u64 = if (i / 7) % 2 == 1 {
                1 | (1 << (nbits - 1))
            } else {
                0
            };
            let w = if i % 100 == 50 { w ^ 1 } else { w };
            raw.extend_from_slice(&w.to_le_bytes()[..unit]);
        }
        let chunks: Vec<(String, Vec<u8>)> = raw
            .chunks(unit * 37)
            .enumerate()
            .map(|(k, c)| (format!("logic-1-{}", k + 1), c.to_vec()))
            .collect();
        // store them out of order: the reader sorts by chunk number
        let mut e: Vec<(&str, Vec<u8>)> = chunks
            .iter()
            .map(|(n, d)| (n.as_str(), d.clone()))
            .collect();
        e.reverse();
        let sr = make_sr("2", &meta, &e);
        let c = import::read_bytes(&sr, "w.sr", &Options::default()).unwrap();
        assert_eq!(c.channels.len(), 2);
        let top = &c.channels[1];
        assert_eq!(top.name, "top");
        assert_eq!(top.edges.len(), 999 / 7, "unit {unit}");
        assert_eq!(top.edges[0], Picos::from_us(7));
        assert!(c.channels[0].edges.len() > top.edges.len());
    }
}

#[test]
fn saleae_analog_csv_is_read_as_scope_data() {
    let mut s = String::from("Time [s],Channel 0\n");
    for i in 0..20 {
        let v = if (5..12).contains(&i) { 3.3 } else { 0.02 };
        s += &format!("{:.6},{v}\n", i as f64 * 1e-6);
    }
    let c = import::read_bytes(s.as_bytes(), "a.csv", &Options::default()).unwrap();
    assert_eq!(c.channels[0].name, "Channel 0");
    assert_eq!(c.channels[0].edges.len(), 2);
    assert_eq!(c.analog.len(), 1);
}

/// A session with a missing chunk would shift every later sample: it is an error that
/// names the file and the missing entry (audit D4).
#[test]
fn sigrok_missing_or_contradictory_chunks_are_errors() {
    let meta =
        "[device 1]\ncapturefile=logic-1\ntotal probes=1\nsamplerate=1 MHz\nprobe1=a\nunitsize=1\n";
    let d = vec![0u8, 1, 1, 0];
    let cases: [(&[&str], &str); 4] = [
        (
            &["logic-1-2"],
            "entry 'logic-1-1': missing (found logic-1-2)",
        ),
        (
            &["logic-1-1", "logic-1-3"],
            "entry 'logic-1-2': missing (found logic-1-3)",
        ),
        (
            &["logic-1", "logic-1-1"],
            "entry 'logic-1': present together",
        ),
        (&["logic-1-1", "logic-1-2"], ""),
    ];
    for (names, want) in cases {
        let e: Vec<(&str, Vec<u8>)> = names.iter().map(|n| (*n, d.clone())).collect();
        let sr = make_sr("2", meta, &e);
        let r = import::read_bytes(&sr, "gap.sr", &Options::default());
        if want.is_empty() {
            let c = r.unwrap();
            assert_eq!(c.channels[0].edges.len(), 4);
        } else {
            let msg = r.unwrap_err().to_string();
            assert!(msg.starts_with("gap.sr: ") && msg.contains(want), "{msg}");
        }
    }
    // analog chunks too
    let meta = "[device 1]\ntotal analog=1\nsamplerate=1 MHz\nanalog1=A0\n";
    let f = 1.0f32.to_le_bytes().to_vec();
    let sr = make_sr("2", meta, &[("analog-1-1-2", f)]);
    let msg = import::read_bytes(&sr, "ga.sr", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("entry 'analog-1-1-1': missing"), "{msg}");
}

/// A number too large for the time axis is "out of range", not "not a number" (D19.5).
#[test]
fn csv_time_out_of_range_is_named_so() {
    let o = Options {
        format: Format::parse("csv"),
        ..Default::default()
    };
    for big in ["9e15", "1e400"] {
        let text = format!("time_s,a\n0,0\n{big},1\n");
        let msg = import::read_bytes(text.as_bytes(), "t.csv", &o)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("line 3") && msg.contains(&format!("time '{big}' is out of range")),
            "{msg}"
        );
    }
    let msg = import::read_bytes(b"time_s,a\n0,0\nabc,1\n", "t.csv", &o)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("neither a number"), "{msg}");
}

#[test]
fn samplerate_option_overrides_the_file_with_a_warning() {
    // D22: `--samplerate 2MHz` on a 1 MHz sigrok session silently halved every time; now
    // it overrides the stated rate (libsigrok lets a user correct a wrong one), never
    // silently: the warning names both rates.
    let with = |hz: u64| Options {
        samplerate_hz: Some(hz),
        ..Options::default()
    };
    for f in ["demo8.sr", "demo8.csv"] {
        let o = with(2_000_000);
        let c = import::open(&fx(f), &o).unwrap();
        let w = o.warnings.take();
        let want = format!(
            "{} states samplerate 1 MHz; --samplerate 2 MHz overrides it (every time is rescaled)",
            fx(f).display()
        );
        assert_eq!(w, vec![want], "{f}");
        let base = open(f);
        assert_eq!(c.samplerate_hz, Some(2_000_000));
        assert_eq!(c.end, Picos::from_us(2500));
        for (a, b) in c.channels.iter().zip(&base.channels) {
            let halved: Vec<Picos> = b.edges.iter().map(|e| Picos(e.0 / 2)).collect();
            assert_eq!(a.edges, halved, "{f} {}", a.name);
        }
        // The same rate is fine and changes nothing.
        let o = with(1_000_000);
        let same = import::open(&fx(f), &o).unwrap();
        assert!(o.warnings.take().is_empty());
        same_edges(&same, &base);
        assert_eq!(same.end, Picos::from_us(5000));
    }
    assert_eq!(import::format_hz(1_000_000), "1 MHz");
    assert_eq!(import::format_hz(12_500_000), "12.5 MHz");
    assert_eq!(import::format_hz(200_000), "200 kHz");
    assert_eq!(import::format_hz(999), "999 Hz");
    assert_eq!(import::format_hz(1_000_001), "1.000001 MHz");
}

/// D28: `only_channels` names channels of the merged capture; `#N` is mapped to its file
/// before selective decoding, and the result does not depend on what else is requested.
#[test]
fn open_merged_maps_index_to_file_and_channel() {
    let d8 = fx("demo8.sr");
    let alone = import::open(&d8, &Options::default()).unwrap();
    let files = [
        (d8.as_path(), Some(Format::Sigrok)),
        (d8.as_path(), Some(Format::Sigrok)),
    ];
    for only in [
        vec!["#9"],
        vec!["#9", "#0"],
        vec!["#9", "D3"],
        vec!["#13", "#9"],
    ] {
        let opts = Options {
            only_channels: Some(only.iter().map(|s| s.to_string()).collect()),
            ..Options::default()
        };
        let m = import::open_merged(&files, &opts).unwrap();
        assert_eq!(m.capture.channels.len(), 16);
        assert_eq!(m.capture.channels[9], alone.channels[1], "{only:?}");
        assert!(!m.capture.channels[9].edges.is_empty());
        assert!(m.decoded[9], "{only:?}");
        // a channel nobody asked for stays undecoded (and says so)
        assert!(!m.decoded[10] && m.capture.channels[10].edges.is_empty());
        // a name selects that channel in every file
        if only.contains(&"D3") {
            assert!(m.decoded[3] && m.decoded[11]);
            assert_eq!(m.capture.channels[11], alone.channels[3]);
        }
    }
}

/// VCD and CSV decode selectively too: merged (names from the headers, `#N` mapped to
/// its file) and alone, a selected channel has the edges of a full read, the others none.
#[test]
fn vcd_and_csv_decode_only_the_selected_channels() {
    let (v, c) = (fx("demo16.vcd"), fx("demo8.csv"));
    let sr = Options {
        samplerate_hz: Some(1_000_000),
        ..Options::default()
    };
    let full_v = import::open(&v, &sr).unwrap();
    let full_c = import::open(&c, &sr).unwrap();
    let nv = full_v.channels.len();
    assert!(nv > 3 && full_c.channels.len() > 3);
    let files = [(v.as_path(), None), (c.as_path(), None)];
    let c2 = format!("#{}", nv + 2);
    let opts = Options {
        only_channels: Some(vec!["#1".into(), c2]),
        ..sr.clone()
    };
    let m = import::open_merged(&files, &opts).unwrap();
    assert_eq!(m.formats, [Format::Vcd, Format::Csv]);
    let all: Vec<_> = full_v.channels.iter().chain(&full_c.channels).collect();
    assert_eq!(m.capture.channels.len(), all.len());
    for (k, ch) in m.capture.channels.iter().enumerate() {
        let want = k == 1 || k == nv + 2;
        assert_eq!(m.decoded[k], want, "channel {k}");
        assert_eq!(ch.name, all[k].name);
        if want {
            assert!(!ch.edges.is_empty(), "channel {k}");
            assert_eq!(ch, all[k], "channel {k}");
        } else {
            assert!(ch.edges.is_empty(), "channel {k}");
        }
    }
    // alone, by name
    for (p, full) in [(&v, &full_v), (&c, &full_c)] {
        let name = full.channels[2].name.clone();
        let opts = Options {
            only_channels: Some(vec![name]),
            ..sr.clone()
        };
        let m = import::open_merged(&[(p.as_path(), None)], &opts).unwrap();
        assert_eq!(m.decoded.iter().filter(|d| **d).count(), 1);
        assert!(m.decoded[2]);
        assert_eq!(m.capture.channels[2], full.channels[2]);
        assert!(m.capture.channels[3].edges.is_empty());
        assert_eq!((m.capture.start, m.capture.end), (full.start, full.end));
    }
}

/// D28 (note): captures with different sample rates are refused, naming both.
#[test]
fn merge_refuses_different_sample_rates() {
    let (d8, d16) = (fx("demo8.sr"), fx("demo16.sr"));
    let files = [
        (d8.as_path(), Some(Format::Sigrok)),
        (d16.as_path(), Some(Format::Sigrok)),
    ];
    let e = import::open_merged(&files, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("different sample rates")
            && e.contains("demo8.sr is sampled at 1 MHz")
            && e.contains("demo16.sr at 2 MHz"),
        "{e}"
    );
    // the same rate merges, keeping it
    let same = [
        (d8.as_path(), Some(Format::Sigrok)),
        (d8.as_path(), Some(Format::Sigrok)),
    ];
    let m = import::open_merged(&same, &Options::default()).unwrap();
    assert_eq!(m.capture.samplerate_hz, Some(1_000_000));
}

#[test]
fn csv_quoted_separators_in_names_and_fields() {
    // Saleae-style header whose channel name holds the separator, quoted values
    let csv = "Time [s],\"Clock, main\",\"D;1\"\n0.000000,\"0\",1\n0.000002,\"1\",1\n0.000005,\"0\",0\n0.000009,\"1\",0\n";
    let c = import::read_bytes(csv.as_bytes(), "q.csv", &Options::default()).unwrap();
    let names: Vec<_> = c.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Clock, main", "D;1"]);
    assert_eq!(
        c.channels[0].edges,
        vec![Picos::from_us(2), Picos::from_us(5), Picos::from_us(9)]
    );
    assert_eq!(c.channels[1].edges, vec![Picos::from_us(5)]);
    // semicolon-separated with a quoted comma
    let csv = "time_us;\"a,b\"\n0;0\n3;1\n";
    let c = import::read_bytes(csv.as_bytes(), "s.csv", &Options::default()).unwrap();
    assert_eq!(c.channels[0].name, "a,b");
    assert_eq!(c.channels[0].edges, vec![Picos::from_us(3)]);
}
