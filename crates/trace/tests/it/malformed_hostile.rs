//! Malformed inputs that older versions read silently (issue 29): each now gives a clear
//! error naming the file and the place, or a warning carried in the import's warnings.
//! Every input is built here, from the format's documented layout.

use latscope_trace::import::saleae_bin::write;
use latscope_trace::import::{self, Format, Options};

fn make_sr(meta: &str, entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    use std::io::Write;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        z.start_file("version", o).unwrap();
        z.write_all(b"2").unwrap();
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

fn err_of(bytes: &[u8], name: &str, opts: &Options) -> String {
    match import::read_bytes(bytes, name, opts) {
        Ok(c) => panic!(
            "{name}: expected an error, got a capture with {} channels",
            c.channels.len()
        ),
        Err(e) => e.to_string(),
    }
}

fn has_all(e: &str, want: &[&str]) {
    for w in want {
        assert!(e.contains(w), "'{w}' missing from: {e}");
    }
}

const META_1MHZ: &str =
    "[device 1]\ncapturefile=logic-1\ntotal probes=8\nsamplerate=1 MHz\nprobe1=D0\nunitsize=1\n";

#[test]
fn saleae_v0_initial_state_other_than_0_or_1_is_refused() {
    let mut v = write::digital_v0(true, 0.0, 1e-3, &[1e-4, 2e-4]);
    // initial_state sits after the identifier (8), version (4) and type (4)
    v[16..20].copy_from_slice(&7u32.to_le_bytes());
    let e = err_of(&v, "v0.bin", &Options::default());
    has_all(&e, &["v0.bin", "byte offset 16", "initial_state 7"]);
    // 0 and 1 still read
    for init in [false, true] {
        let ok = write::digital_v0(init, 0.0, 1e-3, &[1e-4]);
        let c = import::read_bytes(&ok, "ok.bin", &Options::default()).unwrap();
        assert_eq!(c.channels[0].initial, init);
    }
}

#[test]
fn saleae_v1_initial_state_other_than_0_or_1_is_refused() {
    let mut v = write::digital_v1(&[(false, 1e6, 0.0, 1e-3, vec![1e-4])]);
    // identifier, version, type, chunk count: the first chunk starts at byte 24
    v[24..28].copy_from_slice(&2u32.to_le_bytes());
    let e = err_of(&v, "v1.bin", &Options::default());
    has_all(&e, &["v1.bin", "byte offset 24", "initial_state 2"]);
}

#[test]
fn saleae_v1_rate_nan_negative_or_above_1_thz_is_refused() {
    for (rate, shown) in [
        (f64::NAN, "NaN"),
        (-1e6, "-1000000"),
        (f64::INFINITY, "inf"),
        (2e12, "2000000000000"),
    ] {
        let v = write::digital_v1(&[(false, rate, 0.0, 1e-3, vec![1e-4])]);
        let e = err_of(&v, "rate.bin", &Options::default());
        // sample_rate follows initial_state: byte 28
        has_all(&e, &["rate.bin", "byte offset 28", "sample_rate", shown]);
    }
    // a normal rate and the "unknown" 0 still read
    for rate in [1e6, 0.0] {
        let v = write::digital_v1(&[(false, rate, 0.0, 1e-3, vec![1e-4])]);
        import::read_bytes(&v, "ok.bin", &Options::default()).unwrap();
    }
}

#[test]
fn sigrok_two_entries_of_one_name_are_refused() {
    // written under two names of one length, then renamed in place to one name (a zip
    // writer refuses duplicates; a damaged or hostile archive has them)
    let mut v = make_sr(
        META_1MHZ,
        &[("logic-1", vec![0, 1, 0, 1]), ("logic-X", vec![1, 1, 1, 1])],
    );
    let mut n = 0;
    for i in 0..v.len() - 7 {
        if &v[i..i + 7] == b"logic-X" {
            v[i + 6] = b'1';
            n += 1;
        }
    }
    assert_eq!(n, 2, "local and central header renamed");
    let e = err_of(&v, "dup.sr", &Options::default());
    has_all(&e, &["dup.sr", "entry 'logic-1'", "twice"]);
}

#[test]
fn sigrok_rate_finer_than_1_ps_is_refused() {
    let meta = META_1MHZ.replace("1 MHz", "2000 GHz");
    let v = make_sr(&meta, &[("logic-1", vec![0, 1, 0, 1, 0, 1])]);
    let e = err_of(&v, "fast.sr", &Options::default());
    has_all(&e, &["fast.sr", "entry 'metadata'", "1 THz"]);
    // 1 THz exactly is one sample per picosecond: fine
    let meta = META_1MHZ.replace("1 MHz", "1000 GHz");
    let v = make_sr(&meta, &[("logic-1", vec![0, 1, 0, 1, 0, 1])]);
    let c = import::read_bytes(&v, "thz.sr", &Options::default()).unwrap();
    assert_eq!(c.channels[0].edges.len(), 5);
    // --samplerate above 1 THz on a file without a rate: refused too
    let meta = "[device 1]\ncapturefile=logic-1\ntotal probes=8\nprobe1=D0\nunitsize=1\n";
    let v = make_sr(meta, &[("logic-1", vec![0, 1, 0, 1])]);
    let opts = Options {
        samplerate_hz: Some(5_000_000_000_000),
        ..Default::default()
    };
    let e = err_of(&v, "given.sr", &opts);
    has_all(&e, &["1 THz"]);
}

#[test]
fn csv_samplerate_finer_than_1_ps_is_refused() {
    let opts = Options {
        samplerate_hz: Some(2_000_000_000_000),
        format: Some(Format::Csv),
        ..Default::default()
    };
    let e = err_of(b"sample,D0\n0,0\n1,1\n2,0\n", "idx.csv", &opts);
    has_all(&e, &["1 THz"]);
}

#[test]
fn sigrok_total_probes_beyond_any_device_is_refused() {
    let meta = META_1MHZ.replace("total probes=8", "total probes=4294967295");
    let v = make_sr(&meta, &[("logic-1", vec![0, 1, 0, 1])]);
    let e = err_of(&v, "probes.sr", &Options::default());
    has_all(
        &e,
        &["probes.sr", "entry 'metadata'", "total probes 4294967295"],
    );
}

#[test]
fn vcd_identifier_declared_with_two_widths_is_a_warning() {
    let v = "$var wire 2 # bus [1:0] $end\n$var wire 1 # alias $end\n$var wire 1 ! a $end\n\
             $var wire 1 ! b $end\n$enddefinitions $end\n#0 b00 # 0!\n#3 b10 #\n";
    let opts = Options::default();
    let c = import::read_bytes(v.as_bytes(), "w.vcd", &opts).unwrap();
    assert_eq!(c.channels.len(), 5);
    let w = opts.warnings.take();
    assert_eq!(w.len(), 1, "one warning, for '#' only: {w:?}");
    has_all(&w[0], &["w.vcd", "line 2", "'#'", "2 bits", "1 bit"]);
}
