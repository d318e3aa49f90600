//! Oscilloscope CSV: time (or sample index) and one or more voltage columns, converted
//! to digital channels with a threshold and hysteresis; crossing times are
//! interpolated linearly between the samples around the threshold.
//!
//! Header styles recognised (any preamble lines are skipped):
//! * generic / Keysight / Siglent / R&S: `Time,CH1,…`, `x-axis,1` + `second,Volt`,
//!   `in s,C1 in V`, `Second,Volt`;
//! * Rigol: `X,CH1,Start,Increment,` then `Sequence,Volt,<start>,<increment>,`, then
//!   rows of `index,volts`: time = start + index × increment;
//! * Tektronix: every row `label,value,unit,time,volts` (the preamble sits in the first
//!   three columns);
//! * LeCroy: preamble lines, then `Time,Ampl`.
//!
//! Data rows are the lines whose time and voltage columns parse as numbers; the
//! column layout is taken from the last data row. The threshold is given or the
//! midpoint of the 5th and 95th percentile levels; the hysteresis band is given or
//! 10 % of that span. The voltages are also kept as analog channels when uniformly
//! spaced.

use super::text::{header_unit_exp, parse_scaled, sniff_sep, split};
use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::Picos;
use std::io::BufRead;

/// True for headers of the common scope vendors.
pub fn sniff(lines: &[&str]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let l = first.to_ascii_lowercase();
    l.starts_with("record length")
        || l.starts_with("x,ch")
        || l.starts_with("x-axis")
        || l.starts_with("lecroy")
        || l.starts_with("in s,")
        || l.starts_with("second,volt")
        || lines
            .iter()
            .any(|x| x.to_ascii_lowercase().starts_with("sequence,volt"))
}

fn num(s: &str) -> Option<f64> {
    let v: f64 = s.trim().parse().ok()?;
    v.is_finite().then_some(v)
}

/// Most rows of an oscilloscope CSV (read whole, as thresholds come from its levels).
pub const MAX_ROWS: usize = 10_000_000;

/// Reads an oscilloscope CSV.
pub fn read<R: BufRead>(r: R, file: &str, opts: &Options) -> Result<Capture> {
    let mut lines: Vec<(u64, String)> = Vec::new();
    for (i, l) in r.lines().enumerate() {
        let l = l.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => {
                Error::format(file, Place::Line(i as u64 + 1), "not UTF-8 text")
            }
            _ => Error::io(file, e),
        })?;
        let t = l.trim().trim_start_matches('\u{feff}');
        if !t.is_empty() {
            if lines.len() >= MAX_ROWS {
                return Err(Error::format(
                    file,
                    Place::Line(i as u64 + 1),
                    format!(
                        "more than {MAX_ROWS} rows: an oscilloscope CSV is read whole, and this \
                         one is larger than one import may hold (export fewer points)"
                    ),
                ));
            }
            lines.push((i as u64 + 1, t.to_string()));
        }
    }
    let Some((_, last)) = lines.last() else {
        return Err(Error::format(file, Place::File, "the file is empty"));
    };
    let sep = sniff_sep(last);
    let mut f = Vec::new();
    split(last, sep, &mut f);
    let cols: Vec<usize> = (0..f.len()).filter(|&i| num(f[i]).is_some()).collect();
    if cols.len() < 2 {
        return Err(Error::format(
            file,
            Place::Line(lines.last().map(|l| l.0).unwrap_or(0)),
            "no time and voltage columns found in the last row",
        ));
    }
    let tcol = cols[0];
    let vcols = &cols[1..];
    // Rigol start/increment and header names
    let mut rigol: Option<(f64, f64)> = None;
    let mut names: Vec<String> = vcols
        .iter()
        .enumerate()
        .map(|(k, _)| format!("CH{}", k + 1))
        .collect();
    let mut exp = 12;
    let mut first_data = None;
    for (idx, (_, l)) in lines.iter().enumerate() {
        split(l, sep, &mut f);
        let is_data =
            f.len() > *cols.last().unwrap_or(&0) && cols.iter().all(|&c| num(f[c]).is_some());
        if is_data {
            first_data = Some(idx);
            break;
        }
        let lower: Vec<String> = f.iter().map(|x| x.to_ascii_lowercase()).collect();
        if let (Some(si), Some(ii)) = (
            lower.iter().position(|x| x == "start"),
            lower.iter().position(|x| x == "increment"),
        ) {
            // next line carries the values
            if let Some((_, nl)) = lines.get(idx + 1) {
                let mut g = Vec::new();
                split(nl, sep, &mut g);
                if let (Some(s), Some(i)) = (
                    g.get(si).and_then(|x| num(x)),
                    g.get(ii).and_then(|x| num(x)),
                ) {
                    rigol = Some((s, i));
                }
            }
        }
        if f.len() > tcol && vcols.iter().all(|&c| c < f.len()) && !f[tcol].is_empty() {
            if let Some(e) = header_unit_exp(f[tcol]) {
                exp = e;
            }
            let cand: Vec<String> = vcols.iter().map(|&c| f[c].to_string()).collect();
            let looks_units = cand.iter().all(|c| {
                let c = c.to_ascii_lowercase();
                c == "volt" || c == "v" || c == "(v)" || c.is_empty()
            });
            if !looks_units && !lower[tcol].starts_with("record") {
                names = cand
                    .iter()
                    .enumerate()
                    .map(|(k, c)| {
                        let c = c.strip_suffix(" in V").unwrap_or(c);
                        if c.is_empty() {
                            format!("CH{}", k + 1)
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
            }
        }
    }
    let Some(fd) = first_data else {
        return Err(Error::format(file, Place::File, "no data rows"));
    };
    let mut times: Vec<i64> = Vec::with_capacity(lines.len() - fd);
    let mut volts: Vec<Vec<f32>> = vec![Vec::with_capacity(lines.len() - fd); vcols.len()];
    for (ln, l) in &lines[fd..] {
        split(l, sep, &mut f);
        let bad = |what: &str| Error::format(file, Place::Line(*ln), format!("{what} in '{l}'"));
        if f.len() <= *cols.last().unwrap_or(&0) {
            return Err(bad("too few columns"));
        }
        let t = match rigol {
            Some((s, inc)) => {
                let i = num(f[tcol]).ok_or_else(|| bad("bad sample index"))?;
                let secs = s + i * inc;
                (secs * 1e12).round() as i64
            }
            None => parse_scaled(f[tcol], exp).ok_or_else(|| bad("bad time"))?,
        };
        if t.unsigned_abs() > 1 << 62 {
            return Err(Error::format(
                file,
                Place::Line(*ln),
                "time out of range (beyond ±53 days)",
            ));
        }
        if let Some(&p) = times.last() {
            if t <= p {
                return Err(Error::format(
                    file,
                    Place::Line(*ln),
                    "time does not increase",
                ));
            }
        }
        times.push(t);
        for (k, &c) in vcols.iter().enumerate() {
            volts[k].push(num(f[c]).ok_or_else(|| bad("bad voltage"))? as f32);
        }
    }
    let start = times[0];
    let end = *times.last().unwrap_or(&start);
    let uniform = times.len() >= 2 && {
        let iv = times[1] - times[0];
        times
            .windows(2)
            .all(|w| (w[1] - w[0] - iv).abs() <= iv / 1000 + 1)
    };
    let interval = if times.len() >= 2 {
        (end - start) / (times.len() as i64 - 1)
    } else {
        0
    };
    let mut channels = Vec::new();
    let mut analog = Vec::new();
    for (k, v) in volts.into_iter().enumerate() {
        channels.push(digitize(
            &names[k],
            &times,
            &v,
            opts.threshold,
            opts.hysteresis,
        ));
        if uniform && interval > 0 {
            analog.push(AnalogChannel {
                name: names[k].clone(),
                start: Picos(start),
                interval: Picos(interval),
                values: v,
            });
        }
    }
    let rate = if uniform && interval > 0 {
        Some((1e12 / interval as f64).round() as u64)
    } else {
        None
    };
    let cap = Capture {
        source: file.to_string(),
        samplerate_hz: rate,
        start: Picos(start),
        end: Picos(end),
        channels,
        analog,
    };
    cap.validate()?;
    Ok(cap)
}

/// Threshold and hysteresis (total band width) for a voltage trace.
pub fn levels(v: &[f32], threshold: Option<f64>, hysteresis: Option<f64>) -> (f64, f64) {
    let mut s: Vec<f32> = v.iter().copied().filter(|x| x.is_finite()).collect();
    s.sort_by(|a, b| a.total_cmp(b));
    let pick = |p: f64| -> f64 {
        if s.is_empty() {
            0.0
        } else {
            s[latscope_core::stats::rank_index(p, s.len() as u64) as usize] as f64
        }
    };
    let (lo, hi) = (pick(5.0), pick(95.0));
    let th = threshold.unwrap_or((lo + hi) / 2.0);
    let h = hysteresis.unwrap_or((hi - lo) * 0.1).max(0.0);
    (th, h)
}

/// Converts a sampled voltage to edges: high above th + h/2, low below th − h/2; each
/// edge time is interpolated where the trace last crossed `th` itself.
pub fn digitize(
    name: &str,
    t: &[i64],
    v: &[f32],
    threshold: Option<f64>,
    hysteresis: Option<f64>,
) -> DigitalChannel {
    let (th, h) = levels(v, threshold, hysteresis);
    digitize_at(name, |i| t[i], v, th, h)
}

/// [`digitize`] for a trace sampled at `start + i × interval` (no time array), with the
/// threshold and hysteresis already chosen (see [`levels`]).
pub fn digitize_uniform(
    name: &str,
    start: i64,
    interval: i64,
    v: &[f32],
    th: f64,
    h: f64,
) -> DigitalChannel {
    digitize_at(
        name,
        |i| start.saturating_add((i as i64).saturating_mul(interval)),
        v,
        th,
        h,
    )
}

fn digitize_at(name: &str, t: impl Fn(usize) -> i64, v: &[f32], th: f64, h: f64) -> DigitalChannel {
    let (hi, lo) = (th + h / 2.0, th - h / 2.0);
    let mut ch = DigitalChannel {
        name: name.to_string(),
        initial: v.first().map(|&x| x as f64 >= th).unwrap_or(false),
        edges: Vec::new(),
    };
    let mut level = ch.initial;
    // index of the last sample on the other side of th
    let mut last_other = 0usize;
    for i in 1..v.len() {
        let x = v[i] as f64;
        let prev = v[i - 1] as f64;
        if level {
            if prev >= th && x < th {
                last_other = i - 1;
            }
            if x < lo {
                let j = last_other.min(i - 1);
                let te =
                    cross(&t, v, j, th).max(ch.edges.last().map(|e| e.0 + 1).unwrap_or(i64::MIN));
                ch.edges.push(Picos(te.min(t(i))));
                level = false;
                last_other = i;
            }
        } else {
            if prev < th && x >= th {
                last_other = i - 1;
            }
            if x > hi {
                let j = last_other.min(i - 1);
                let te =
                    cross(&t, v, j, th).max(ch.edges.last().map(|e| e.0 + 1).unwrap_or(i64::MIN));
                ch.edges.push(Picos(te.min(t(i))));
                level = true;
                last_other = i;
            }
        }
    }
    ch
}

/// Time at which the segment j..j+1 crosses th (clamped to the segment).
fn cross(t: &impl Fn(usize) -> i64, v: &[f32], j: usize, th: f64) -> i64 {
    let (a, b) = (v[j] as f64, v[j + 1] as f64);
    let (tj, tk) = (t(j), t(j + 1));
    if (b - a).abs() < f64::EPSILON {
        return tk;
    }
    let f = ((th - a) / (b - a)).clamp(0.0, 1.0);
    tj + ((tk - tj) as f64 * f).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolated_crossings_with_hysteresis() {
        // 0 V low, 3.3 V high, 1 µs sampling; a slow rise over samples 10..12 and a noisy top
        let t: Vec<i64> = (0..40).map(|i| i * 1_000_000).collect();
        let mut v = vec![0.0f32; 40];
        v[10] = 1.0;
        v[11] = 2.3;
        for x in v.iter_mut().take(30).skip(12) {
            *x = 3.3;
        }
        v[20] = 1.7; // dip inside the hysteresis band: no edge
        let c = digitize("x", &t, &v, Some(1.65), Some(0.5));
        // rise crosses 1.65 V between samples 10 (1.0) and 11 (2.3): 10.5 µs
        assert_eq!(c.edges[0], Picos(10_500_000));
        // fall between 29 (3.3) and 30 (0): 29.5 µs
        assert_eq!(c.edges, vec![Picos(10_500_000), Picos(29_500_000)]);
        assert!(!c.initial);
    }
}
