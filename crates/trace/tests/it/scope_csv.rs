//! The oscilloscope CSV reader on the `csv` crate: quoted cells, CRLF, vendor preambles
//! longer than the read-ahead, pipes, hysteresis, and errors naming line and column.

use latscope_core::capture::Capture;
use latscope_core::time::Picos;
use latscope_trace::import::{self, scope_csv, Format, Options};
use std::io::Read;

/// A square wave at 1 µs sampling: high for samples in [lo, hi) of every 40, with a dip
/// to 2.0 V (inside the hysteresis band of 0–3.3 V) in the middle of each high run, and a
/// ramp sample on each edge so crossings interpolate.
fn wave(n: usize) -> (Vec<i64>, Vec<f32>) {
    let t: Vec<i64> = (0..n as i64).map(|i| i * 1_000_000).collect();
    let v: Vec<f32> = (0..n)
        .map(|i| match i % 40 {
            10 => 1.0,
            11..=18 | 20..=27 => 3.3,
            19 => 2.0,
            28 => 2.5,
            _ => 0.0,
        })
        .collect();
    (t, v)
}

fn read(text: &str, name: &str) -> Capture {
    import::read_bytes(text.as_bytes(), name, &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A reader that hands out one byte at a time, like a slow pipe.
struct Trickle<'a>(&'a [u8]);
impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() || out.is_empty() {
            return Ok(0);
        }
        out[0] = self.0[0];
        self.0 = &self.0[1..];
        Ok(1)
    }
}

fn same(a: &Capture, b: &Capture) {
    assert_eq!(a.channels.len(), b.channels.len());
    for (x, y) in a.channels.iter().zip(&b.channels) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.initial, y.initial);
        assert_eq!(x.edges, y.edges);
    }
    assert_eq!(
        (a.start, a.end, a.samplerate_hz),
        (b.start, b.end, b.samplerate_hz)
    );
    assert_eq!(a.analog.len(), b.analog.len());
    for (x, y) in a.analog.iter().zip(&b.analog) {
        assert_eq!(x.values, y.values);
    }
}

#[test]
fn edges_equal_digitize_on_the_same_samples_with_hysteresis() {
    let (t, v) = wave(400);
    let mut s = String::from("Time [s],CH1\n");
    for (ti, vi) in t.iter().zip(&v) {
        s += &format!("{:e},{vi}\n", *ti as f64 * 1e-12);
    }
    let c = read(&s, "w.csv");
    let want = scope_csv::digitize("CH1", &t, &v, None, None);
    assert_eq!(c.channels[0].edges, want.edges);
    // the dip at sample 19 (2.0 V) stays inside the band: two edges per period, and the
    // rise crosses 1.65 V between 10 (1.0 V) and 11 (3.3 V), the fall between 28 and 29
    assert_eq!(c.channels[0].edges.len(), 20);
    assert_eq!(c.channels[0].edges[0], Picos(10_000_000 + 282_609));
    assert_eq!(c.channels[0].edges[1], Picos(28_000_000 + 340_000));
}

#[test]
fn quoted_cells_and_crlf_read_as_plain() {
    let (t, v) = wave(120);
    let mut plain = String::from("Time [s],Clock main,Other\n");
    let mut quoted = String::from("\"Time [s]\",\"Clock, main\",\"Other\"\r\n");
    for (ti, vi) in t.iter().zip(&v) {
        let ts = format!("{:e}", *ti as f64 * 1e-12);
        plain += &format!("{ts},{vi},{}\n", 3.3 - vi);
        quoted += &format!("\"{ts}\", \"{vi}\",{}\r\n", 3.3 - vi);
    }
    let a = read(&plain, "p.csv");
    let b = read(&quoted, "q.csv");
    assert_eq!(b.channels[0].name, "Clock, main");
    assert_eq!(b.channels[1].name, "Other");
    assert_eq!(a.channels[0].edges, b.channels[0].edges);
    assert_eq!(a.channels[1].edges, b.channels[1].edges);
    assert_eq!(a.channels[0].edges.len(), 6);
    assert_eq!(a.analog[0].values, b.analog[0].values);
}

/// Rigol (start/increment rows), Keysight (`x-axis` + units row) and Tektronix (a
/// preamble in the first three columns of the first rows), each longer than the
/// read-ahead that settles the layout, each equal to digitize on the same samples, and
/// identical when read one byte at a time from a stream.
#[test]
fn vendor_preambles_long_files_and_pipes() {
    let (t, v) = wave(2000);
    let want = scope_csv::digitize("x", &t, &v, None, None).edges;
    let mut rigol =
        String::from("X,CH1,Start,Increment,\nSequence,Volt,0.000000e+00,1.000000e-06,\n");
    let mut keysight = String::from("x-axis,1\nsecond,Volt\n");
    let mut tek = String::new();
    let pre = [
        "Record Length,2.000000e+03,Points",
        "Sample Interval,1.000000e-06,s",
        "Trigger Point,0.000000000000e+00,Samples",
        ",,",
        ",,",
        ",,",
        "Source,CH1,",
        "Vertical Units,V,Vertical Scale",
        "Vertical Offset,0.000000e+00,",
        "Horizontal Units,s,",
        "Horizontal Scale,1.0e-04,",
        "Pt Fmt,Y,",
        "Yzero,0.000000e+00,",
        "Probe Atten,1.000000e+00,",
        "Model Number,TDS2024B,",
        "Serial Number,C000000,",
        "Firmware Version,FV:v22.11,",
    ];
    for (i, (ti, vi)) in t.iter().zip(&v).enumerate() {
        let ts = format!("{:.6e}", *ti as f64 * 1e-12);
        rigol += &format!("{i},{vi:.2e},,\n");
        keysight += &format!("{ts},{vi}\n");
        tek += &format!("{},{ts},{vi}\n", pre.get(i).copied().unwrap_or(",,"));
    }
    for (name, text, n) in [
        ("rigol.csv", &rigol, "CH1"),
        ("keysight.csv", &keysight, "1"),
        ("tek.csv", &tek, "CH1"),
    ] {
        let c = read(text, name);
        assert_eq!(c.channels[0].name, n, "{name}");
        assert_eq!(c.channels[0].edges, want, "{name}");
        assert_eq!(c.analog[0].values.len(), 2000, "{name}");
        let s = import::read_stream(
            Trickle(text.as_bytes()),
            Format::ScopeCsv,
            name,
            "ch",
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        same(&c, &s);
    }
}

/// The file with line `n` (1-based) replaced.
fn with_line(s: &str, n: usize, line: &str) -> String {
    let mut l: Vec<&str> = s.split('\n').collect();
    l[n - 1] = line;
    l.join("\n")
}

fn scope_err(text: &str) -> String {
    import::read_stream(
        text.as_bytes(),
        Format::ScopeCsv,
        "b.csv",
        "ch",
        &Options::default(),
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn malformed_rows_name_line_and_column() {
    let (_, v) = wave(100);
    let mut s = String::from("Time [s],CH1,CH2\n");
    for (i, vi) in v.iter().enumerate() {
        s += &format!("{i}e-6,{vi},{vi}\n");
    }
    let e = scope_err(&with_line(&s, 76, "74e-6,0x,0"));
    assert!(
        e.contains("b.csv: line 76") && e.contains("column 2") && e.contains("'0x'"),
        "{e}"
    );
    let e = scope_err(&with_line(&s, 82, "80e-6s,0,0"));
    assert!(
        e.contains("line 82") && e.contains("column 1") && e.contains("bad time"),
        "{e}"
    );
    let e = scope_err(&with_line(&s, 92, "90e-6,0"));
    assert!(
        e.contains("line 92") && e.contains("column 3: missing"),
        "{e}"
    );
    // a time that does not increase
    let e = scope_err(&with_line(&s, 50, "47e-6,0,0"));
    assert!(
        e.contains("line 50") && e.contains("does not increase"),
        "{e}"
    );
    // an unclosed quote runs to the end: the error names a line, never panics
    let e = scope_err(&with_line(&s, 92, "90e-6,\"0,0"));
    assert!(e.starts_with("b.csv: line "), "{e}");
    // CRLF and a quoted bad cell keep the line numbers
    let crlf = with_line(&s, 76, "74e-6,\"0x\",0").replace('\n', "\r\n");
    let e = scope_err(&crlf);
    assert!(e.contains("line 76") && e.contains("column 2"), "{e}");
}

#[test]
fn a_preamble_past_the_read_ahead_is_refused_with_a_place() {
    let mut s = String::from("Time [s],CH1\n");
    for _ in 0..scope_csv::MAX_HEAD_LINES + 10 {
        s += "note,text\n";
    }
    s += "0,0\n1e-6,1\n";
    let e = scope_err(&s);
    assert!(
        e.contains("b.csv: line ") && e.contains("no time and voltage columns"),
        "{e}"
    );
}
