//! A noise result as Prometheus text (`latscope noise --openmetrics FILE`, the same
//! format `measure --openmetrics` writes, which node_exporter's textfile collector and
//! `promtool check metrics` read): per CPU the noise share, the time and
//! count per source, and the largest single gap, with the result's labels on every
//! sample — the same families and label rules as `measure`'s exposition.

use super::result::{CpuNoise, NoiseReport, SourceNoise};
use crate::exposition::{header, label_set, seconds, Format};
use std::fmt::Write as _;

fn sources(c: &CpuNoise) -> [(&'static str, &SourceNoise); 7] {
    let b = &c.by_source;
    [
        ("hw", &b.hw),
        ("nmi", &b.nmi),
        ("irq", &b.irq),
        ("softirq", &b.softirq),
        ("thread", &b.thread),
        ("unaccounted", &b.unaccounted),
        ("unclassified", &b.unclassified),
    ]
}

/// The Prometheus text of a finished noise run.
pub fn render(r: &NoiseReport) -> String {
    let fmt = Format::Prometheus;
    let labels: Vec<(&str, &str)> = r.labels.iter().collect();
    let with = |extra: &[(&str, &str)]| {
        let mut l = labels.clone();
        l.extend_from_slice(extra);
        label_set(&l)
    };
    let mut out = String::new();
    header(
        &mut out,
        fmt,
        "latscope_noise_ratio",
        "gauge",
        "Share of the measured time the spinning thread did not run (0..1).",
    );
    for c in &r.cpus {
        let cpu = c.cpu.to_string();
        let _ = writeln!(
            out,
            "latscope_noise_ratio{} {}",
            with(&[("cpu", &cpu)]),
            c.noise_pct / 100.0
        );
    }
    header(
        &mut out,
        fmt,
        "latscope_noise_seconds_total",
        "counter",
        "Noise time by source: hw, nmi, irq, softirq, thread, unaccounted, unclassified.",
    );
    for c in &r.cpus {
        let cpu = c.cpu.to_string();
        for (name, s) in sources(c) {
            let _ = writeln!(
                out,
                "latscope_noise_seconds_total{} {}",
                with(&[("cpu", &cpu), ("source", name)]),
                seconds(s.total_ns)
            );
        }
    }
    header(
        &mut out,
        fmt,
        "latscope_noise_events_total",
        "counter",
        "Noise occurrences by source (handler runs for interrupts, switches for threads).",
    );
    for c in &r.cpus {
        let cpu = c.cpu.to_string();
        for (name, s) in sources(c) {
            let _ = writeln!(
                out,
                "latscope_noise_events_total{} {}",
                with(&[("cpu", &cpu), ("source", name)]),
                s.count
            );
        }
    }
    header(
        &mut out,
        fmt,
        "latscope_noise_max_single_seconds",
        "gauge",
        "The longest single gap the spinning thread saw.",
    );
    for c in &r.cpus {
        let cpu = c.cpu.to_string();
        let _ = writeln!(
            out,
            "latscope_noise_max_single_seconds{} {}",
            with(&[("cpu", &cpu)]),
            seconds(c.max_single_ns)
        );
    }
    out
}
