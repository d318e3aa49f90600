//! Hostile TraceRecorder recordings: the real fixtures truncated, with flipped bytes, with
//! declared lengths past the end, and with a storm of lost events. Every one is an `Ok`
//! that passes the model's checks or an `Err` naming the file — never a panic.

use latscope_trace::import::{events, Format, Options};
use std::io::Cursor;
use std::path::Path;

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../validation/freertos/traces/tracerecorder")
        .join(name);
    std::fs::read(p).unwrap()
}

const NAME: &str = "hostile.psf";

fn read(b: &[u8]) -> Result<latscope_core::events::EventTrace, String> {
    events::read(
        Cursor::new(b),
        Format::TraceRecorder,
        NAME,
        &Options::default(),
    )
    .map_err(|e| e.to_string())
}

/// Imports `b`; an error must name the file and be one line.
fn check(b: &[u8], what: &str) -> bool {
    match read(b) {
        Ok(t) => {
            t.validate().unwrap();
            true
        }
        Err(e) => {
            assert!(
                e.contains(NAME),
                "{what}: error does not name the file: {e}"
            );
            assert!(!e.contains('\n'), "{what}: error is not one line: {e}");
            false
        }
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Where the events start in a PSF stream: after the 32-byte header, the 28-byte
/// timestamp information and the entry table (12 bytes, then entries of address, states,
/// options and symbol).
fn events_start(b: &[u8]) -> usize {
    let (n, sym, states) = (u32_at(b, 60), u32_at(b, 64), u32_at(b, 68));
    72 + (n * (8 + 4 * states + sym)) as usize
}

#[test]
fn truncated_at_every_97th_byte() {
    for name in ["recording.psf", "ringbuffer.bin", "ringbuffer-full.bin"] {
        let b = fixture(name);
        // A dump is whole once its event buffer is (the recorder's other data follows).
        let whole = if name.ends_with(".bin") {
            ring_buffer_end(&b)
        } else {
            b.len()
        };
        let mut errors = 0;
        let mut n = 0;
        for cut in (0..b.len()).step_by(97) {
            let ok = check(&b[..cut], &format!("{name} cut at {cut}"));
            if cut < whole {
                n += 1;
                errors += usize::from(!ok);
            }
        }
        // A dump cut before the end of its event buffer is an error; a stream cut inside
        // its header or entry table, or inside an event, is an error (cuts exactly between
        // two events are valid, shorter recordings).
        if name.ends_with(".bin") {
            assert_eq!(errors, n, "{name}: every dump cut short is an error");
        } else {
            let meta = events_start(&b);
            assert!(errors >= meta / 97, "{name}: {errors} errors of {n}");
        }
    }
    // The place is given: a cut inside an event names its byte offset.
    let b = fixture("recording.psf");
    let e = read(&b[..events_start(&b) + 10]).unwrap_err();
    assert!(e.contains("byte offset") && e.contains("truncated"), "{e}");
}

/// The end of a RingBuffer dump's event buffer (the size word's buffer after the event
/// buffer header), and where that header starts.
fn ring_header(d: &[u8]) -> usize {
    let psf = d
        .windows(4)
        .position(|w| w == [0x00, 0x46, 0x53, 0x50])
        .unwrap();
    let (n, sym, states) = (
        u32_at(d, psf + 60),
        u32_at(d, psf + 64),
        u32_at(d, psf + 68),
    );
    psf + 72 + (n * (8 + 4 * states + sym)) as usize + 4
}

fn ring_buffer_end(d: &[u8]) -> usize {
    let st = ring_header(d);
    st + 44 + u32_at(d, st + 8) as usize
}

#[test]
fn flipped_bytes() {
    for name in ["recording.psf", "ringbuffer-full.bin"] {
        let b = fixture(name);
        for at in (0..b.len()).step_by(97) {
            for mask in [0xFF, 0x01, 0x80] {
                let mut m = b.clone();
                m[at] ^= mask;
                check(&m, &format!("{name} byte {at} ^ {mask:#x}"));
            }
        }
    }
}

#[test]
fn declared_lengths_past_the_end() {
    let b = fixture("recording.psf");
    for (at, value, want) in [
        (60, u32::MAX, "entry table declares"),    // entries
        (64, 0x7FFF_FFFF, "entry table declares"), // symbol bytes
        (68, 0x7FFF_FFFF, "entry table declares"), // states per entry
        (64, 0, "entry table declares"),
        (4, 99, "PSF format version"), // version (u16) and platform
    ] {
        let mut m = b.clone();
        m[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let e = read(&m).unwrap_err();
        assert!(e.contains(NAME) && e.contains(want), "offset {at}: {e}");
        assert!(e.contains("byte offset"), "offset {at}: {e}");
    }
    // The RingBuffer's event buffer size and head.
    let d = fixture("ringbuffer-full.bin");
    let st = ring_header(&d);
    for (off, value, want) in [
        (8, u32::MAX, "runs past the end"),
        (0, 1 << 20, "do not fit"),
        (4, 1 << 20, "do not fit"),
    ] {
        let mut m = d.clone();
        m[st + off..st + off + 4].copy_from_slice(&value.to_le_bytes());
        let e = read(&m).unwrap_err();
        assert!(e.contains(NAME) && e.contains(want), "field +{off}: {e}");
    }
}

#[test]
fn a_storm_of_lost_events_is_counted() {
    // Every third event taken out of the stream: each gap in the recorder's event count
    // is a lost window, and the counts add up to what was taken out.
    let b = fixture("recording.psf");
    let start = events_start(&b);
    let mut out = b[..start].to_vec();
    let (mut at, mut i, mut removed, mut kept) = (start, 0usize, 0u64, 0u64);
    while at < b.len() {
        let code = u16::from_le_bytes([b[at], b[at + 1]]);
        let len = 8 + 4 * usize::from(code >> 12);
        // Keep the first events (names, the ISR definition) and the last one.
        if i > 20 && i % 3 == 0 && at + len < b.len() {
            removed += 1;
        } else {
            out.extend_from_slice(&b[at..at + len]);
            kept += 1;
        }
        at += len;
        i += 1;
    }
    assert!(removed > 1000 && kept > 1000);
    let t = read(&out).unwrap();
    assert_eq!(t.lost_total(), removed);
    assert!(t.lost.iter().all(|l| l.count >= 1 && l.from <= l.to));
    assert!(read(&b).unwrap().lost.is_empty());
}

#[test]
fn not_a_recording() {
    for b in [
        &b""[..],
        b"PSF",
        b"\0FSP",
        b"hello world, not a trace recorder file",
    ] {
        let e = read(b).unwrap_err();
        assert!(e.contains(NAME), "{e}");
    }
}

#[test]
fn user_events_and_short_isr_definitions_do_not_reach_the_decoder() {
    // Fuzz finding: an ISR definition with one parameter made the crate's decoder
    // underflow its name length (an unbounded allocation in a release build). Found with
    // the fuzz target on a mutated ringbuffer-full.bin; rebuilt here from the fixture.
    let b = fixture("recording.psf");
    let mut at = events_start(&b);
    let mut patched = None;
    while at < b.len() {
        let code = u16::from_le_bytes([b[at], b[at + 1]]);
        if code & 0x0FFF == 0x07 {
            for params in [0u16, 1] {
                let mut m = b.clone();
                m[at..at + 2].copy_from_slice(&((params << 12) | 0x07).to_le_bytes());
                let e = read(&m).unwrap_err();
                assert!(e.contains("ISR definition") && e.contains(NAME), "{e}");
            }
            patched = Some(at);
        }
        // Every event turned into a user event (ids 0x90-0x9F, format strings decoded by
        // the crate) with a too-short parameter count: not decoded as such, no panic.
        at += 8 + 4 * usize::from(code >> 12);
    }
    assert!(patched.is_some(), "the fixture defines its ISR");
    let mut m = b.clone();
    let mut at = events_start(&b);
    while at < m.len() {
        let code = u16::from_le_bytes([m[at], m[at + 1]]);
        if code & 0x0FFF == 0x36 {
            m[at..at + 2].copy_from_slice(&((code & 0xF000) | 0x9F).to_le_bytes());
        }
        at += 8 + 4 * usize::from(code >> 12);
    }
    check(&m, "task resumes as user events");
}
