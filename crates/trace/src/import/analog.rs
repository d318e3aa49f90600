//! Analog channels measured as logic: a channel named in a measurement that is analog
//! (sigrok `analog-1-N-k`, Saleae analog binary, VCD `real`) is thresholded with hysteresis
//! and interpolated crossings, exactly as an oscilloscope CSV is (see [`super::threshold`]),
//! and added as a digital channel of the same name after the others (so `#N` indices do
//! not move).
//!
//! This is the path for a capture whose analog samples were kept (a Perfetto export, a
//! conversion, the Python API's whole capture). An import that decodes only measured
//! channels (`Options::only_channels`) thresholds them while reading instead
//! ([`super::analog_input`]), never holding the samples.

use super::threshold::{digitize_uniform, levels};
use latscope_core::capture::Capture;

/// Adds a thresholded digital channel for every name in `names` that is an analog channel
/// and not already a digital one. `threshold` / `hysteresis` in volts: None picks them from
/// the trace (midpoint of the 5th and 95th percentile levels; 10 % of that span). Returns
/// the names added, in order.
pub fn add_thresholded(
    cap: &mut Capture,
    names: &[&str],
    threshold: Option<f64>,
    hysteresis: Option<f64>,
) -> Vec<String> {
    let mut added = Vec::new();
    for &n in names {
        if cap.channels.iter().any(|c| c.name == n) || added.iter().any(|a| a == n) {
            continue;
        }
        let Some(a) = cap.analog.iter().find(|a| a.name == n) else {
            continue;
        };
        let (th, h) = levels(&a.values, threshold, hysteresis);
        let mut ch = digitize_uniform(n, a.start.0, a.interval.0, &a.values, th, h);
        // a capture's edges lie inside [start, end]
        ch.edges.retain(|e| *e >= cap.start && *e <= cap.end);
        cap.channels.push(ch);
        added.push(n.to_string());
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_core::capture::AnalogChannel;
    use latscope_core::time::Picos;

    #[test]
    fn analog_square_wave_becomes_interpolated_edges() {
        // 0 V / 3.3 V, 1 µs sampling, rising between samples 10 and 11 (crossing 1.65 V
        // halfway), falling between 20 and 21
        let mut v = vec![0.0f32; 40];
        for x in v.iter_mut().take(21).skip(11) {
            *x = 3.3;
        }
        let mut cap = Capture {
            source: "a.sr".into(),
            samplerate_hz: Some(1_000_000),
            start: Picos(0),
            end: Picos::from_us(40),
            channels: vec![],
            analog: vec![AnalogChannel {
                name: "A0".into(),
                start: Picos(0),
                interval: Picos::from_us(1),
                values: v,
            }],
        };
        let added = add_thresholded(&mut cap, &["A0", "D9"], None, None);
        assert_eq!(added, ["A0"]);
        assert_eq!(
            cap.channels[0].edges,
            vec![Picos(10_500_000), Picos(20_500_000)]
        );
        assert!(!cap.channels[0].initial);
        // asked twice: added once
        assert!(add_thresholded(&mut cap, &["A0"], None, None).is_empty());
    }
}
