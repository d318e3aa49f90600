//! Malformed inputs give clean errors that name the file and the problem; randomly
//! mutated and truncated inputs never panic (the stable, bounded stand-in for the
//! cargo-fuzz targets in fuzz/).

use latscope_trace::import::{self, Format, Options};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

fn dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
}

fn opts_for(name: &str) -> Options {
    let mut o = Options::default();
    if name.starts_with("cyclelog") {
        o.format = Some(Format::CycleLog);
        if !name.contains("no_cpu") {
            o.cpu_hz = Some(100_000_000);
        }
    }
    o
}

#[test]
fn every_corpus_file_is_a_clean_error() {
    let expect = std::fs::read_to_string(dir("corpus").join("EXPECT")).unwrap();
    let mut n = 0;
    for line in expect.lines() {
        let (name, want) = line.split_once('\t').unwrap();
        let path = dir("corpus").join(name);
        let r = import::open(&path, &opts_for(name));
        let e = match r {
            Ok(c) => panic!(
                "{name}: expected an error, got a capture with {} channels",
                c.channels.len()
            ),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(name),
            "{name}: error does not name the file: {e}"
        );
        assert!(e.contains(want), "{name}: error lacks '{want}': {e}");
        n += 1;
    }
    assert!(n >= 40, "only {n} corpus files");
}

/// Inputs of every format to mutate: fixtures, corpus files and a few built here.
fn seeds() -> Vec<(String, Vec<u8>, Option<Format>)> {
    let mut v = Vec::new();
    for d in ["fixtures", "corpus"] {
        for e in std::fs::read_dir(dir(d)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".md") || name.ends_with(".py") || name == "EXPECT" {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            if bytes.len() > 120_000 {
                // keep the mutation test fast: use the first part of big text files
                v.push((name, bytes[..20_000].to_vec(), None));
            } else {
                v.push((name, bytes, None));
            }
        }
    }
    let sal = latscope_trace::import::saleae_bin::write::digital_v1(&[(
        true,
        1e6,
        0.0,
        1e-3,
        vec![1e-4, 2e-4, 5e-4],
    )]);
    v.push(("v1.bin".into(), sal, Some(Format::SaleaeBin)));
    v.push((
        "scope.csv".into(),
        b"X,CH1,Start,Increment,\nSequence,Volt,0,1e-6,\n0,0.0,,\n1,3.3,,\n2,3.3,,\n3,0.1,,\n"
            .to_vec(),
        Some(Format::ScopeCsv),
    ));
    v.push((
        "d.log".into(),
        b"10 A_enter\n20 A_exit\n0x30 B\n".to_vec(),
        Some(Format::CycleLog),
    ));
    let cap = import::open(&dir("fixtures").join("demo8.sr"), &Options::default()).unwrap();
    let mut n = Vec::new();
    latscope_trace::export::native::write(&cap, &mut n).unwrap();
    v.push(("x.lscap".into(), n, Some(Format::Native)));
    v
}

fn mutate(rng: &mut ChaCha8Rng, b: &[u8]) -> Vec<u8> {
    let mut m = b.to_vec();
    match rng.gen_range(0..6) {
        0 => m.truncate(rng.gen_range(0..=m.len())),
        1 => {
            for _ in 0..rng.gen_range(1..8) {
                if !m.is_empty() {
                    let i = rng.gen_range(0..m.len());
                    m[i] ^= 1 << rng.gen_range(0..8);
                }
            }
        }
        2 => {
            if !m.is_empty() {
                let i = rng.gen_range(0..m.len());
                m[i] = [0u8, 0xff, b'#', b'$', b',', b'\n', b'-', b'9'][rng.gen_range(0..8)];
            }
        }
        3 => {
            let i = rng.gen_range(0..=m.len());
            let extra: Vec<u8> = (0..rng.gen_range(1..16)).map(|_| rng.gen()).collect();
            m.splice(i..i, extra);
        }
        4 => {
            if m.len() > 2 {
                let a = rng.gen_range(0..m.len());
                let b2 = rng.gen_range(a..m.len());
                m.drain(a..b2);
            }
        }
        _ => {
            if m.len() > 8 {
                let a = rng.gen_range(0..m.len() - 4);
                let chunk = m[a..a + 4].to_vec();
                let i = rng.gen_range(0..m.len());
                m.splice(i..i, chunk);
            }
        }
    }
    m
}

fn try_all(name: &str, bytes: &[u8], forced: Option<Format>) {
    let mut o = Options {
        cpu_hz: Some(1_000_000),
        samplerate_hz: None,
        ..Default::default()
    };
    o.format = forced;
    let _ = import::read_bytes(bytes, name, &o);
    // also each text/binary reader directly, whatever the content
    for f in [
        Format::Vcd,
        Format::Csv,
        Format::SaleaeBin,
        Format::Native,
        Format::ScopeCsv,
    ] {
        o.format = Some(f);
        let _ = import::read_bytes(bytes, name, &o);
    }
}

#[test]
fn mutated_inputs_never_panic() {
    let iters: usize = std::env::var("LATSCOPE_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let seed: u64 = std::env::var("LATSCOPE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let seeds = seeds();
    assert!(seeds.len() > 40);
    for (name, bytes, forced) in &seeds {
        for _ in 0..iters {
            let m = mutate(&mut rng, bytes);
            try_all(name, &m, *forced);
        }
    }
}

#[test]
fn sigrok_mutations_inside_entries_never_panic() {
    // mutate the uncompressed metadata and logic entries (zip CRCs would catch
    // mutations of the compressed bytes before the parser sees them)
    use std::io::Write;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let meta = "[global]\nsigrok version=0.5.2\n[device 1]\ncapturefile=logic-1\ntotal probes=16\nsamplerate=1 MHz\nprobe1=A\nprobe9=B B\nunitsize=2\ntotal analog=1\nanalog17=V\n";
    for _ in 0..150 {
        let m = mutate(&mut rng, meta.as_bytes());
        let data = mutate(&mut rng, &[0u8, 1, 1, 1, 3, 1, 3, 0, 0, 0][..]);
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            let o = zip::write::SimpleFileOptions::default();
            z.start_file("version", o).unwrap();
            z.write_all(b"2").unwrap();
            z.start_file("metadata", o).unwrap();
            z.write_all(&m).unwrap();
            z.start_file("logic-1-1", o).unwrap();
            z.write_all(&data).unwrap();
            z.start_file("analog-1-17-1", o).unwrap();
            z.write_all(&[0, 0, 128, 63]).unwrap();
            z.finish().unwrap();
        }
        let _ = import::read_bytes(buf.get_ref(), "m.sr", &Options::default());
    }
    let _ = Path::new("");
}
