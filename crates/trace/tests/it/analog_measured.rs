//! Analog channels measured while they are read (`Options::only_channels` names them)
//! give exactly the edges of the same channel kept whole and thresholded afterwards, for
//! every analog source: sigrok `analog-1-N-k`, Saleae analog binary v0 and v1, VCD `real`
//! variables and oscilloscope CSV; with the default levels (spooled, two passes) and with a given
//! threshold and band (straight through). And in that mode no sample is kept: analog
//! channels are listed without their samples.

use latscope_core::capture::{Capture, DigitalChannel};
use latscope_trace::import::{self, analog, saleae_bin, Format, Options};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Levels to try: the defaults, a given threshold only, both given.
const LEVELS: [(Option<f64>, Option<f64>); 3] =
    [(None, None), (Some(1.2), None), (Some(1.65), Some(0.4))];

/// The channel `name` of a whole-capture read, thresholded afterwards.
fn kept_then_thresholded(
    read: &dyn Fn(&Options) -> Capture,
    name: &str,
    th: Option<f64>,
    h: Option<f64>,
) -> DigitalChannel {
    let mut cap = read(&Options::default());
    assert!(
        cap.analog.iter().any(|a| a.name == name),
        "{name} is not analog when kept"
    );
    analog::add_thresholded(&mut cap, &[name], th, h);
    cap.channels
        .into_iter()
        .find(|c| c.name == name)
        .expect("thresholded")
}

/// The channel `name` of a read that measures only it.
fn measured(
    read: &dyn Fn(&Options) -> Capture,
    name: &str,
    th: Option<f64>,
    h: Option<f64>,
) -> DigitalChannel {
    let cap = read(&Options {
        only_channels: Some(vec![name.to_string()]),
        threshold: th,
        hysteresis: h,
        ..Default::default()
    });
    // every analog channel is listed, none with its samples
    assert!(
        cap.analog.iter().any(|a| a.name == name),
        "{name} not listed"
    );
    assert!(
        cap.analog.iter().all(|a| a.values.is_empty()),
        "samples kept while measuring {name}"
    );
    let hits: Vec<&DigitalChannel> = cap.channels.iter().filter(|c| c.name == name).collect();
    assert_eq!(hits.len(), 1, "{name} once");
    hits[0].clone()
}

fn check(read: &dyn Fn(&Options) -> Capture, name: &str, min_edges: usize) {
    for (th, h) in LEVELS {
        let want = kept_then_thresholded(read, name, th, h);
        assert!(
            want.edges.len() >= min_edges,
            "{name} {th:?} {h:?}: only {} edges",
            want.edges.len()
        );
        assert_eq!(measured(read, name, th, h), want, "{name} {th:?} {h:?}");
    }
}

#[test]
fn sigrok_analog_measured_while_read_equals_kept() {
    let path = fixture("demo_analog.sr");
    let read = |o: &Options| import::open(&path, o).unwrap();
    check(&read, "A0", 10);
    // the logic channels are untouched by an analog one being measured
    let both = import::open(
        &path,
        &Options {
            only_channels: Some(vec!["D1".into(), "A0".into()]),
            ..Default::default()
        },
    )
    .unwrap();
    let all = import::open(&path, &Options::default()).unwrap();
    assert_eq!(both.channels[1], all.channels[1]);
    assert_eq!(both.channels.last().map(|c| c.name.as_str()), Some("A0"));
}

/// A slow, noisy square wave (deterministic).
fn volts(n: usize) -> Vec<f32> {
    let mut x: u32 = 7;
    (0..n)
        .map(|i| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let noise = (x >> 24) as f32 / 255.0 * 0.3 - 0.15;
            let p = i % 97;
            let base = match p {
                0..=3 => p as f32 * 0.8,
                4..=50 => 3.3,
                51..=54 => 3.3 - (p - 50) as f32 * 0.8,
                _ => 0.0,
            };
            base + noise
        })
        .collect()
}

#[test]
fn saleae_analog_v0_and_v1_measured_while_read_equal_kept() {
    let v = volts(5000);
    let v0 = saleae_bin::write::analog_v0(-0.001, 1_000_000, 1, &v);
    let v1 = saleae_bin::write::analog_v1(0.0, 0.0, 2e6, 2, &v);
    for bytes in [v0, v1] {
        let read = |o: &Options| {
            let o = Options {
                format: Some(Format::SaleaeBin),
                ..o.clone()
            };
            import::read_format(
                std::io::Cursor::new(&bytes),
                Format::SaleaeBin,
                "analog_0.bin",
                "analog_0",
                &o,
            )
            .unwrap()
        };
        check(&read, "analog_0", 80);
        // a selection that does not name the waveform reads past it
        let none = read(&Options {
            only_channels: Some(vec!["other".into()]),
            ..Default::default()
        });
        assert!(none.channels.is_empty());
        assert_eq!(none.analog.len(), 1);
        assert!(none.analog[0].values.is_empty());
    }
}

#[test]
fn scope_csv_measured_while_read_equals_kept() {
    let v = volts(3000);
    let w = volts(3100);
    // uneven times, two voltage columns
    let mut s = String::from("Time [s],CH1,CH2\n");
    for i in 0..v.len() {
        let t = i as f64 * 1e-6 + (i % 5) as f64 * 1e-9;
        s += &format!("{t:e},{},{}\n", v[i], w[i + 50]);
    }
    let read = |o: &Options| import::read_bytes(s.as_bytes(), "s.csv", o).unwrap();
    for (th, h) in LEVELS {
        let all = read(&Options {
            threshold: th,
            hysteresis: h,
            ..Default::default()
        });
        let one = read(&Options {
            only_channels: Some(vec!["CH2".into()]),
            threshold: th,
            hysteresis: h,
            ..Default::default()
        });
        assert!(all.channels[1].edges.len() > 50);
        assert_eq!(one.channels[1], all.channels[1], "{th:?} {h:?}");
        // the column not asked for is listed, without edges
        assert_eq!(one.channels[0].name, "CH1");
        assert!(one.channels[0].edges.is_empty());
        // listed as a kept read lists them (uneven times: not as analog channels)
        assert_eq!(one.analog.len(), all.analog.len());
        assert!(one.analog.iter().all(|a| a.values.is_empty()));
        assert_eq!(
            (one.start, one.end, one.samplerate_hz),
            (all.start, all.end, all.samplerate_hz)
        );
    }
}

#[test]
fn a_measured_scope_csv_honours_the_edge_budget() {
    // a column that toggles on every row, measured with a budget of 100 edges
    let mut s = String::from("Time [s],CH1\n");
    for i in 0..2000 {
        s += &format!("{:e},{}\n", i as f64 * 1e-6, if i % 2 == 0 { 0 } else { 3 });
    }
    let e = import::read_bytes(
        s.as_bytes(),
        "t.csv",
        &Options {
            only_channels: Some(vec!["CH1".into()]),
            max_edges: Some(100),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("t.csv: "), "{e}");
    assert!(e.contains("more than 100 edges"), "{e}");
}

#[test]
fn a_damaged_analog_entry_is_refused_the_same_when_measured() {
    // entry 'analog-1-3-1' holds 3 bytes; the metadata names no analog channel, so it
    // goes by its number: A3
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/sr_analog_odd.sr");
    let kept = import::open(&p, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(kept.contains("entry 'analog-1-3-1'") && kept.contains("not a multiple of 4"));
    for (th, h) in LEVELS {
        let o = Options {
            only_channels: Some(vec!["A3".to_string()]),
            threshold: th,
            hysteresis: h,
            ..Default::default()
        };
        let e = import::open(&p, &o).unwrap_err().to_string();
        assert_eq!(e, kept, "{th:?} {h:?}");
    }
}

#[test]
fn a_measured_uniform_scope_csv_lists_its_columns_as_analog() {
    let v = volts(500);
    let mut s = String::from("Time [s],CH1,CH2\n");
    for (i, x) in v.iter().enumerate() {
        s += &format!("{:e},{x},0\n", i as f64 * 1e-6);
    }
    let kept = import::read_bytes(s.as_bytes(), "u.csv", &Options::default()).unwrap();
    let one = import::read_bytes(
        s.as_bytes(),
        "u.csv",
        &Options {
            only_channels: Some(vec!["CH1".into()]),
            ..Default::default()
        },
    )
    .unwrap();
    let names = |c: &Capture| c.analog.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&one), ["CH1", "CH2"]);
    assert_eq!(names(&one), names(&kept));
    for (a, b) in one.analog.iter().zip(&kept.analog) {
        assert_eq!((a.start, a.interval), (b.start, b.interval));
        assert!(a.values.is_empty() && b.values.len() == 500);
    }
    assert_eq!(one.channels[0], kept.channels[0]);
}

/// Found by the `saleae_bin` fuzz target: an analog file whose effective sample rate is
/// above 1 THz put every sample at one time, and a measured read made edges that did not
/// increase. Refused now, kept or measured, naming the rate.
#[test]
fn fuzz_found_saleae_analog_faster_than_one_thz_is_refused() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/saleae_analog_too_fast.bin");
    let bytes = std::fs::read(&p).unwrap();
    let read = |o: Options| {
        import::read_format(
            std::io::Cursor::new(&bytes),
            Format::SaleaeBin,
            "f.bin",
            "ch",
            &o,
        )
    };
    for only in [None, Some(vec!["ch".to_string()])] {
        let e = read(Options {
            only_channels: only.clone(),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("f.bin: byte offset "), "{only:?}: {e}");
        assert!(e.contains("above 1 THz"), "{only:?}: {e}");
    }
}

/// A VCD with an evenly sampled `real` variable `v` (1 µs apart), a digital wire `d`, and
/// a `real` variable `u` whose values change at uneven times.
fn vcd_text() -> String {
    let v = volts(3000);
    let mut s = String::from(
        "$timescale 1ns $end\n$scope module top $end\n$var real 64 ! v $end\n\
         $var wire 1 \" d $end\n$var real 64 # u $end\n$upscope $end\n$enddefinitions $end\n",
    );
    for (i, x) in v.iter().enumerate() {
        s += &format!("#{}\nr{x} !\n", i * 1000);
        if i % 100 == 0 {
            s += &format!("{}\"\n", (i / 100) % 2);
        }
        if i % 7 == 0 || i % 11 == 0 {
            s += &format!("r{} #\n", (i % 3) as f32);
        }
    }
    s
}

#[test]
fn vcd_real_measured_while_read_equals_kept() {
    let s = vcd_text();
    let read = |o: &Options| import::read_bytes(s.as_bytes(), "r.vcd", o).unwrap();
    check(&read, "v", 40);
    // the wire is untouched by the real being measured alongside it
    let both = read(&Options {
        only_channels: Some(vec!["d".into(), "v".into()]),
        ..Default::default()
    });
    let all = read(&Options::default());
    assert_eq!(both.channels[0], all.channels[0]);
    // an unevenly changing real is no analog channel, kept or measured
    assert!(all.analog.iter().all(|a| a.name != "u"));
    let u = read(&Options {
        only_channels: Some(vec!["u".into()]),
        ..Default::default()
    });
    assert!(u.channels.iter().all(|c| c.name != "u"));
    assert!(u.analog.iter().all(|a| a.name != "u"));
}

/// Several Saleae files, one digital and one analog, merged: the analog one measured by
/// name is thresholded while read and comes after the digital channel, both flagged as
/// decoded, with the edges of a whole read thresholded afterwards.
#[test]
fn merged_saleae_files_with_an_analog_one_measured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("digital_0.bin");
    let a = dir.path().join("analog_1.bin");
    let times: Vec<f64> = (1..40).map(|k| k as f64 * 1e-4).collect();
    std::fs::write(&d, saleae_bin::write::digital_v0(false, 0.0, 0.005, &times)).unwrap();
    std::fs::write(
        &a,
        saleae_bin::write::analog_v0(0.0, 1_000_000, 1, &volts(5000)),
    )
    .unwrap();
    let files = [(d.as_path(), None), (a.as_path(), None)];
    let only = Options {
        only_channels: Some(vec!["digital_0".into(), "analog_1".into()]),
        ..Default::default()
    };
    let m = import::open_merged(&files, &only).unwrap();
    let names: Vec<&str> = m.capture.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["digital_0", "analog_1"]);
    assert_eq!(m.decoded, [true, true]);
    assert!(m.capture.analog.iter().all(|x| x.values.is_empty()));
    let mut whole = import::open_merged(&files, &Options::default())
        .unwrap()
        .capture;
    analog::add_thresholded(&mut whole, &["analog_1"], None, None);
    assert_eq!(m.capture.channels, whole.channels);
    assert!(m.capture.channels[1].edges.len() > 80);
}
