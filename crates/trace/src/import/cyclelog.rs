//! Cycle-counter logs (DWT CYCCNT style): one event per line, `cycles label` (also
//! `label cycles`, comma or whitespace separated, decimal or `0x` hex; `#`/`//`
//! comments). `--cpu-hz` converts cycles to time.
//!
//! * a 32-bit counter wraps: when every value fits in 32 bits, consecutive values are
//!   unwrapped modulo 2^32 (so gaps must stay below 2^32 cycles, 26 s at 168 MHz);
//! * `X_enter` / `X_exit` (also `_begin`/`_end`, `_start`/`_stop`) drive channel `X`
//!   high / low;
//! * any other label is a channel that toggles at each occurrence (measure the time
//!   between occurrences with `--period LABEL:any`).
//!
//! Times are taken from the first event (t = 0).

use super::builder::Builder;
use crate::error::{Error, Place, Result};
use latscope_core::capture::Capture;
use latscope_core::time::{Picos, PS_PER_S};
use std::collections::HashMap;
use std::io::BufRead;

fn parse_cycles(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn split_line(l: &str) -> Option<(u64, &str)> {
    let mut it = l
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|x| !x.is_empty());
    let a = it.next()?;
    let b = it.next()?;
    if it.next().is_some() {
        return None;
    }
    if let Some(c) = parse_cycles(a) {
        Some((c, b))
    } else {
        parse_cycles(b).map(|c| (c, a))
    }
}

/// True when most of the first lines are `number label` pairs with a label.
pub fn sniff(lines: &[&str]) -> bool {
    let data: Vec<_> = lines
        .iter()
        .filter(|l| !l.starts_with('#') && !l.starts_with("//"))
        .collect();
    !data.is_empty()
        && data.iter().all(|l| {
            split_line(l).is_some_and(|(_, lab)| {
                lab.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
            })
        })
}

const SUFFIXES: [(&str, bool); 6] = [
    ("_enter", true),
    ("_exit", false),
    ("_begin", true),
    ("_end", false),
    ("_start", true),
    ("_stop", false),
];

/// Reads a cycle-counter log.
pub fn read<R: BufRead>(r: R, file: &str, cpu_hz: Option<u64>) -> Result<Capture> {
    let hz = cpu_hz.filter(|&h| h > 0).ok_or_else(|| {
        Error::format(
            file,
            Place::File,
            "a cycle-counter log needs the CPU clock: give --cpu-hz (e.g. --cpu-hz 168MHz)",
        )
    })?;
    let mut events: Vec<(u64, u64, String)> = Vec::new(); // (line, cycles, label)
    for (i, l) in r.lines().enumerate() {
        let ln = i as u64 + 1;
        let l = l.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => {
                Error::format(file, Place::Line(ln), "not UTF-8 text")
            }
            _ => Error::io(file, e),
        })?;
        let l = l.trim();
        if events.len() as u64 >= super::limits::DEFAULT_MAX_EDGES {
            return Err(Error::format(
                file,
                Place::Line(ln),
                format!(
                    "more than {} events: more than one import may keep",
                    super::limits::DEFAULT_MAX_EDGES
                ),
            ));
        }
        if l.is_empty() || l.starts_with('#') || l.starts_with("//") {
            continue;
        }
        let (c, lab) = split_line(l).ok_or_else(|| {
            Error::format(
                file,
                Place::Line(ln),
                format!("expected 'cycles label', found '{l}'"),
            )
        })?;
        events.push((ln, c, lab.to_string()));
    }
    if events.is_empty() {
        return Err(Error::format(file, Place::File, "no events"));
    }
    let wrap32 = events.iter().all(|e| e.1 <= u32::MAX as u64);
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // start just before 0 so that an event at t = 0 is an edge, not the initial level
    let mut b = Builder::new(Vec::new(), Picos(-1));
    let mut state: Vec<bool> = Vec::new();
    let mut abs: u128 = 0;
    let mut prev: u64 = events[0].1;
    for (ln, c, lab) in &events {
        if wrap32 {
            abs += (c.wrapping_sub(prev) & 0xffff_ffff) as u128;
        } else {
            if *c < prev {
                return Err(Error::format(file, Place::Line(*ln), format!("cycle count {c} is below the previous {prev} (not a 32-bit counter, so no wrap assumed)")));
            }
            abs += (c - prev) as u128;
        }
        prev = *c;
        let t = abs * PS_PER_S as u128 / hz as u128;
        if t > i64::MAX as u128 {
            return Err(Error::format(file, Place::Line(*ln), "time overflows"));
        }
        let t = Picos(t as i64);
        let (ch, lv) = match SUFFIXES
            .iter()
            .find(|(s, _)| lab.ends_with(s) && lab.len() > s.len())
        {
            Some((s, lv)) => (lab[..lab.len() - s.len()].to_string(), Some(*lv)),
            None => (lab.clone(), None),
        };
        let i = match index.get(&ch) {
            Some(&i) => i,
            None => {
                let i = b.add(ch.clone());
                // a channel first seen leaving is taken as high before
                b.set(i, Picos(-1), lv == Some(false));
                state.push(lv == Some(false));
                names.push(ch.clone());
                index.insert(ch, i);
                i
            }
        };
        let new = lv.unwrap_or(!state[i]);
        b.set(i, t, new);
        state[i] = new;
    }
    let end = Picos((abs * PS_PER_S as u128 / hz as u128).min(i64::MAX as u128) as i64);
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: Some(hz),
        start: Picos(0),
        end,
        channels: b.finish(),
        analog: vec![],
    };
    cap.validate()?;
    Ok(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_enter_exit() {
        let log = "# DWT log\n4294967000 SysTick_enter\n4294967200 SysTick_exit\n100 SysTick_enter\n0x12c SysTick_exit\n";
        let c = read(log.as_bytes(), "l.txt", Some(100_000_000)).unwrap();
        assert_eq!(c.channels.len(), 1);
        assert_eq!(c.channels[0].name, "SysTick");
        assert!(!c.channels[0].initial);
        // 200 cycles = 2 µs high; next enter at 296+100 = 396 cycles
        let p: Vec<_> = c.channels[0].pulses(true).collect();
        assert_eq!(
            p,
            vec![
                (Picos(0), Picos(2_000_000)),
                (Picos(3_960_000), Picos(5_960_000))
            ]
        );
        assert!(read(log.as_bytes(), "l.txt", None)
            .unwrap_err()
            .to_string()
            .contains("--cpu-hz"));
    }
}
