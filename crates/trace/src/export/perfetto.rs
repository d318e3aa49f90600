//! Perfetto / Chrome trace-event JSON: load it at <https://ui.perfetto.dev>.
//!
//! * one process (pid 1) named after the capture source, one thread (`tid` = channel
//!   index + 1) per digital channel, named after the channel;
//! * every high interval of a channel is a complete event `ph:"X"` named after the
//!   channel, with `ts`/`dur` in microseconds (fractional, exact to the picosecond)
//!   measured from the capture start; intervals cut by the capture start or end are
//!   clipped to it;
//! * each [`CounterTrack`] is a counter `ph:"C"` (one event per point, value in
//!   `args.value`), for measurements such as busy % per tick;
//! * each analog channel is a counter `NAME (V)` with a point wherever the value changes.

use latscope_core::capture::Capture;
use latscope_core::time::Picos;
use std::io::{self, Write};

/// A counter track: a named series of (time, value) points; times are capture times
/// (same origin as the capture's edges).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CounterTrack {
    pub name: String,
    pub points: Vec<(Picos, f64)>,
}

fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

/// Writes `cap` (and optional counter tracks) as Chrome trace-event JSON.
pub fn write<W: Write>(cap: &Capture, counters: &[CounterTrack], w: W) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 16, w);
    let us = |t: Picos| super::ps_decimal(t.0 - cap.start.0, 6);
    writeln!(w, "{{\"traceEvents\":[")?;
    write!(
        w,
        "{{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}",
        js(&cap.source)
    )?;
    for (i, c) in cap.channels.iter().enumerate() {
        let tid = i + 1;
        let name = js(&c.name);
        write!(
            w,
            ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"name\":\"thread_name\",\"args\":{{\"name\":{name}}}}}"
        )?;
        write!(
            w,
            ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{i}}}}}"
        )?;
        // High intervals, clipped to the capture.
        let mut level = c.initial;
        let mut since = cap.start;
        let slice = |a: Picos, b: Picos, w: &mut io::BufWriter<W>| -> io::Result<()> {
            write!(
                w,
                ",\n{{\"ph\":\"X\",\"pid\":1,\"tid\":{tid},\"name\":{name},\"ts\":{},\"dur\":{}}}",
                us(a),
                super::ps_decimal(b.0 - a.0, 6)
            )
        };
        for &e in &c.edges {
            if level {
                slice(since, e, &mut w)?;
            }
            level = !level;
            since = e;
        }
        if level && cap.end > since {
            slice(since, cap.end, &mut w)?;
        }
    }
    // analog channels: one counter each, a point where the value changes
    for a in &cap.analog {
        let name = js(&format!("{} (V)", a.name));
        let mut last: Option<f32> = None;
        for (i, &v) in a.values.iter().enumerate() {
            if last == Some(v) || !v.is_finite() {
                continue;
            }
            last = Some(v);
            let t = Picos(
                a.start
                    .0
                    .saturating_add((i as i64).saturating_mul(a.interval.0)),
            );
            write!(
                w,
                ",\n{{\"ph\":\"C\",\"pid\":1,\"name\":{name},\"ts\":{},\"args\":{{\"value\":{v}}}}}",
                us(t)
            )?;
        }
    }
    for ct in counters {
        let name = js(&ct.name);
        for &(t, v) in &ct.points {
            let v = if v.is_finite() { v } else { 0.0 };
            write!(
                w,
                ",\n{{\"ph\":\"C\",\"pid\":1,\"name\":{name},\"ts\":{},\"args\":{{\"value\":{v}}}}}",
                us(t)
            )?;
        }
    }
    writeln!(w, "\n]}}")?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::capture::DigitalChannel;

    #[test]
    fn slices_and_counters_are_valid_json() {
        let cap = Capture {
            source: "x \"q\"".into(),
            samplerate_hz: None,
            start: Picos(-1_000_000),
            end: Picos::from_us(10),
            channels: vec![DigitalChannel {
                name: "Tick".into(),
                initial: true,
                edges: vec![Picos(500_000), Picos::from_us(2), Picos::from_us(3)],
            }],
            analog: vec![],
        };
        let ct = CounterTrack {
            name: "busy %".into(),
            points: vec![(Picos(0), 12.5)],
        };
        let mut out = Vec::new();
        write(&cap, &[ct], &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        let xs: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(xs.len(), 2);
        assert_eq!(xs[0]["ts"].as_f64().unwrap(), 0.0);
        assert_eq!(xs[0]["dur"].as_f64().unwrap(), 1.5);
        assert_eq!(xs[1]["ts"].as_f64().unwrap(), 3.0);
        assert_eq!(xs[1]["dur"].as_f64().unwrap(), 1.0);
        let c: Vec<_> = ev.iter().filter(|e| e["ph"] == "C").collect();
        assert_eq!(c[0]["args"]["value"].as_f64().unwrap(), 12.5);
        assert_eq!(c[0]["ts"].as_f64().unwrap(), 1.0);
    }
}
