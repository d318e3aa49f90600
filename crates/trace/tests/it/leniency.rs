//! libsigrok's leniency: the shapes of real `.sr` files (public sigrok-dumps) and of
//! sigrok-cli's own exports that latscope must read, each with a small generated file.

use latscope_core::time::Picos;
use latscope_trace::import::{self, Options};

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

/// Edge sample indices of bit `bit` in `unit`-byte little-endian samples.
fn naive(data: &[u8], unit: usize, bit: u32) -> (bool, Vec<u64>) {
    let mut out = Vec::new();
    let mut prev = None;
    let mut first = false;
    for (i, c) in data.chunks_exact(unit).enumerate() {
        let mut b = [0u8; 8];
        b[..unit].copy_from_slice(c);
        let v = (u64::from_le_bytes(b) >> bit) & 1 == 1;
        match prev {
            None => first = v,
            Some(p) if p != v => out.push(i as u64),
            _ => {}
        }
        prev = Some(v);
    }
    (first, out)
}

#[test]
fn version1_session_declares_more_probes_than_it_stores() {
    // sigrok 0.2 sessions: `total probes = 16`, `unitsize = 1`, only probe1 enabled
    let meta = "[global]\nsigrok version = 0.2.0\n\n[device 1]\ncapturefile = logic-1\ntotal probes = 16\nsamplerate = 1 MHz\nprobe1 = CLK\nunitsize = 1\n";
    let data = vec![0u8, 1, 1, 0, 1, 0, 0, 0];
    let sr = make_sr("1", meta, &[("logic-1", data.clone())]);
    let c = import::read_bytes(&sr, "v1.sr", &Options::default()).unwrap();
    assert_eq!(c.channels.len(), 1);
    assert_eq!(c.channels[0].name, "CLK");
    let (_, want) = naive(&data, 1, 0);
    let want: Vec<Picos> = want.iter().map(|&i| Picos::from_us(i as i64)).collect();
    assert_eq!(c.channels[0].edges, want);
    // the same without a unitsize: the unit is sized for the enabled probes, not the 16
    let meta = meta.replace("unitsize = 1\n", "");
    let c = import::read_bytes(
        &make_sr("1", &meta, &[("logic-1", data)]),
        "v1.sr",
        &Options::default(),
    )
    .unwrap();
    assert_eq!(c.channels[0].edges, want);
    // a probe that is enabled but does not fit the unit is still refused
    let bad = "[device 1]\ntotal probes = 16\nsamplerate = 1 MHz\nprobe9 = X\nunitsize = 1\n";
    let e = import::read_bytes(
        &make_sr("2", bad, &[("logic-1-1", vec![0, 1])]),
        "bad.sr",
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("probe9") && e.contains("unitsize 1"), "{e}");
}

#[test]
fn every_unit_size_from_1_to_8() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for unit in 1usize..=8 {
        let nbits = unit as u32 * 8;
        let mut data = Vec::new();
        let mut w = 0u64;
        for _ in 0..4001 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(5) {
                w ^= 1 << (x % nbits as u64);
            }
            data.extend_from_slice(&w.to_le_bytes()[..unit]);
        }
        let probes: Vec<u32> = [0, 1, nbits / 2, nbits - 1]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let meta = format!(
            "[device 1]\ncapturefile=logic-1\ntotal probes={nbits}\nsamplerate=2 MHz\n{}unitsize={unit}\n",
            probes
                .iter()
                .map(|b| format!("probe{}=P{b}\n", b + 1))
                .collect::<String>()
        );
        // numbered chunks of odd sizes (split inside samples)
        let chunks: Vec<(String, Vec<u8>)> = data
            .chunks(unit * 777)
            .enumerate()
            .map(|(i, c)| (format!("logic-1-{}", i + 1), c.to_vec()))
            .collect();
        let entries: Vec<(&str, Vec<u8>)> = chunks
            .iter()
            .map(|(n, d)| (n.as_str(), d.clone()))
            .collect();
        let c = import::read_bytes(&make_sr("2", &meta, &entries), "u.sr", &Options::default())
            .unwrap_or_else(|e| panic!("unitsize {unit}: {e}"));
        assert_eq!(c.channels.len(), probes.len());
        for (ch, &bit) in c.channels.iter().zip(&probes) {
            let (first, idx) = naive(&data, unit, bit);
            assert_eq!(ch.initial, first, "unit {unit} bit {bit}");
            let want: Vec<Picos> = idx.iter().map(|&i| Picos(i as i64 * 500_000)).collect();
            assert_eq!(ch.edges, want, "unit {unit} bit {bit}");
        }
        assert_eq!(c.end, Picos(4001 * 500_000));
    }
}

#[test]
fn one_hertz_and_an_overriding_samplerate() {
    let meta =
        "[device 1]\ncapturefile=logic-1\ntotal probes=1\nsamplerate=1 Hz\nprobe1=S\nunitsize=1\n";
    let sr = make_sr("2", meta, &[("logic-1-1", vec![0, 0, 1, 1, 0])]);
    let c = import::read_bytes(&sr, "slow.sr", &Options::default()).unwrap();
    assert_eq!(c.samplerate_hz, Some(1));
    assert_eq!(
        c.channels[0].edges,
        vec![Picos(2_000_000_000_000), Picos(4_000_000_000_000)]
    );
    assert_eq!(c.end, Picos(5_000_000_000_000));
    let o = Options {
        samplerate_hz: Some(1_000_000),
        ..Default::default()
    };
    let c = import::read_bytes(&sr, "slow.sr", &o).unwrap();
    assert_eq!(
        c.channels[0].edges,
        vec![Picos::from_us(2), Picos::from_us(4)]
    );
    let w = o.warnings.take();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("states samplerate 1 Hz") && w[0].contains("overrides"));
}

#[test]
fn too_long_at_the_stated_rate_asks_for_the_real_one() {
    // 5 M samples at 1 Hz are 58 days: beyond what a capture may span
    let meta =
        "[device 1]\ncapturefile=logic-1\ntotal probes=1\nsamplerate=1 Hz\nprobe1=S\nunitsize=1\n";
    let sr = make_sr("2", meta, &[("logic-1-1", vec![0u8; 5_000_000])]);
    let e = import::read_bytes(&sr, "slow.sr", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("slow.sr: entry 'metadata'") && e.contains("--samplerate"),
        "{e}"
    );
}

#[test]
fn sigrok_cli_mixed_signal_vcd_skips_text_lines_with_one_warning() {
    // what `sigrok-cli -d demo:logic_channels=2:analog_channels=1 -O vcd` writes
    let clean = "$date x $end\n$version libsigrok 0.5.2 $end\n$timescale 1 ms $end\n$scope module libsigrok $end\n$var wire 1 ! D0 $end\n$var wire 1 \" D1 $end\n$upscope $end\n$enddefinitions $end\n#0 1! 0\"\n#1 0! 1\"\n#4 1! 0\"\n#5 1\"\n#8\n";
    let mixed = clean.replace(
        "#5 1\"\n",
        "#5 1\"\nA0: -10.0000 V DC\nA0: -10.0000 V DC\nA0: 10.0000 V DC\n",
    );
    let a = import::read_bytes(clean.as_bytes(), "c.vcd", &Options::default()).unwrap();
    let o = Options::default();
    let b = import::read_bytes(mixed.as_bytes(), "m.vcd", &o).unwrap();
    assert_eq!(a.channels, b.channels);
    assert_eq!(a.end, b.end);
    let w = o.warnings.take();
    assert_eq!(
        w,
        vec!["m.vcd: skipped 3 line(s) that are not VCD, the first at line 13 (sigrok-cli writes analog values as such text lines)".to_string()]
    );
    // a stray token in the middle of a value-change line is still an error
    let bad = clean.replace("#4 1! 0\"", "#4 1! junk 0\"");
    let e = import::read_bytes(bad.as_bytes(), "b.vcd", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 11") && e.contains("unexpected token 'junk'"),
        "{e}"
    );
}
