//! Stable stand-in for the `system` and `measure_json` cargo-fuzz targets (fuzz/): a seeded
//! mutator over the bundled system descriptions and a measure result, fed to the parsers.
//! Any input must give a value or a clean error; an accepted system must be analysable.
//! `LATSCOPE_FUZZ_ITERS` (default 300 per file) raises the count for a longer run.

use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::system::System;
use std::path::Path;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `src`: truncation, byte flips, line deletion or duplication, a number
/// replaced by an extreme one, or a unit swapped.
fn mutate(src: &[u8], rng: &mut XorShift) -> Vec<u8> {
    let mut v = src.to_vec();
    match rng.below(7) {
        0 => v.truncate(rng.below(v.len() + 1)),
        1 => {
            for _ in 0..1 + rng.below(4) {
                if !v.is_empty() {
                    let i = rng.below(v.len());
                    v[i] ^= 1 << rng.below(8);
                }
            }
        }
        2 | 3 => {
            let text = String::from_utf8_lossy(&v).into_owned();
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let i = rng.below(lines.len());
                if rng.below(2) == 0 {
                    lines.remove(i);
                } else {
                    let l = lines[i];
                    lines.insert(i, l);
                }
            }
            v = lines.join("\n").into_bytes();
        }
        4 => {
            let text = String::from_utf8_lossy(&v).into_owned();
            let extremes = [
                "0",
                "-1",
                "18446744073709551616",
                "1e308",
                "99999999999h",
                "0ns",
                "-5ms",
                "nan",
            ];
            let digits: Vec<usize> = text
                .match_indices(|c: char| c.is_ascii_digit())
                .map(|(i, _)| i)
                .collect();
            if let Some(&i) = digits.get(rng.below(digits.len())) {
                let end = text[i..]
                    .find(|c: char| !c.is_ascii_digit() && c != '.')
                    .map_or(text.len(), |e| i + e);
                let e = extremes[rng.below(extremes.len())];
                v = format!("{}{}{}", &text[..i], e, &text[end..]).into_bytes();
            }
        }
        5 => {
            let text = String::from_utf8_lossy(&v).into_owned();
            let units = ["us", "ms", "ns", "s", "cycles", "ps", "parsec", ""];
            v = text
                .replacen(units[rng.below(6)], units[rng.below(units.len())], 1)
                .into_bytes();
        }
        _ => {
            let i = rng.below(v.len() + 1);
            let junk = [b"[[task]]\n".as_slice(), b"\"\n", b"= =", b"{", b"\x00\xff"];
            let j = junk[rng.below(junk.len())];
            v.splice(i..i, j.iter().copied());
        }
    }
    v
}

fn iters() -> usize {
    std::env::var("LATSCOPE_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

#[test]
fn mutated_system_files_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = 0;
    let mut accepted = 0;
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for dir in std::fs::read_dir(&root).unwrap() {
        let p = dir.unwrap().path().join("system.toml");
        let Ok(src) = std::fs::read(&p) else { continue };
        files += 1;
        for _ in 0..iters() {
            let m = mutate(&src, &mut rng);
            let text = String::from_utf8_lossy(&m);
            let parsed = System::from_toml_str(&text, "mutated.toml");
            if let Err(e) = &parsed {
                assert!(!e.to_string().is_empty());
            }
            if let Ok(sys) = parsed {
                accepted += 1;
                let opts = AnalysisOptions {
                    max_iterations: 10_000,
                    ..Default::default()
                };
                // Accepted or refused (out of range), never a panic.
                let _ = analyze(&sys, &opts);
                // The JSON form of an accepted system must parse back.
                let json = sys.to_json_string();
                let _ = System::from_json_str(&json, "roundtrip.json");
            }
        }
    }
    assert!(
        files >= 5,
        "bundled system files not found under {}",
        root.display()
    );
    // The mutator must leave some inputs valid, or the analysis is never exercised.
    assert!(accepted > 0);
}

#[test]
fn mutated_measure_results_never_panic() {
    let src = br#"{"kind":"measure","schema_version":1,"tool":"latscope 0.1.0","started_unix_s":1.0,
"kernel":"k","settings":{"cpus":[0],"policy_requested":"fifo","priority_requested":80,"policy":"fifo",
"priority":80,"fallback":null,"timer_mode":"absolute","interval_ns":1000000,"duration_ns":1000000000,
"loops":null},"interrupted":false,"elapsed_ns":1,"environment":{"items":[]},
"total":{"count":1,"min_ns":1,"mean_ns":1.0,"stdev_ns":0.0,"p50_ns":1,"p90_ns":1,"p99_ns":1,"p999_ns":1,
"p9999_ns":1,"max_ns":1,"max_at_ns":0,"max_cpu":0,"overruns":0,"longest_overrun_run":0,"histogram":[],
"histogram_overflow":0,"histogram_underflow":0,"histogram_highest_ns":10},"cpus":[]}"#;
    let mut rng = XorShift(42);
    for _ in 0..iters() * 4 {
        let m = mutate(src, &mut rng);
        let _ = latscope_measure::Report::from_json(&String::from_utf8_lossy(&m));
    }
}
