//! The section of a `latscope noise` result: a first-screen verdict per CPU (how much
//! noise and what dominates it), noise % per window (with steal beside it), the split
//! by source and the interrupts and threads that took the most.

use super::{Block, Builder, Cell, Table};
use crate::charts;
use crate::data::Tone;
use crate::units::{dur, int};
use crate::ReportError;
use latscope_results::noise::{BySource, CpuNoise, NoiseResult, SourceNoise};
use serde::Deserialize;
use serde_json::Value;

/// One source of a CPU's noise, picked from its split.
type Pick = fn(&BySource) -> &SourceNoise;

/// Sources in the order of the table, with their words.
const SOURCES: [(Pick, &str); 7] = [
    (|b| &b.hw, "hardware / hypervisor"),
    (|b| &b.nmi, "NMI"),
    (|b| &b.irq, "IRQ"),
    (|b| &b.softirq, "softirq"),
    (|b| &b.thread, "thread"),
    (|b| &b.unaccounted, "unaccounted"),
    (|b| &b.unclassified, "unclassified"),
];

/// The noise document an input holds (`Input::from_value` has checked that it reads).
fn typed(d: &Value) -> Option<NoiseResult> {
    NoiseResult::deserialize(d).ok()
}

fn cpu_name(c: &CpuNoise) -> String {
    format!("CPU {}", c.cpu)
}

/// The source with the most time, its share and its top row.
fn dominant(c: &CpuNoise) -> Option<(&'static str, f64, Option<String>)> {
    let (src, label) = SOURCES
        .iter()
        .map(|(get, l)| (get(&c.by_source), *l))
        .filter(|s| s.0.total_ns > 0)
        .max_by_key(|s| s.0.total_ns)?;
    let who = src.rows.first().map(|r| match r.pid {
        Some(p) => format!("{} (pid {p})", r.name),
        None => r.name.clone(),
    });
    let share = if c.noise_ns > 0 {
        src.total_ns as f64 / c.noise_ns as f64
    } else {
        0.0
    };
    Some((label, share, who))
}

pub(super) fn noise(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let Some(d) = typed(d) else {
        return Ok(());
    };
    verdicts(b, &d);
    per_window(b, &d, level)?;
    by_source(b, &d.cpus, level);
    // The settings after the figures: the page opens on its answer (issue 26).
    let s = &d.settings;
    b.heading(level + 1, "Settings", None);
    b.facts(vec![
        ("policy".into(), format!("{} {}", s.policy, s.priority)),
        ("threshold".into(), dur(s.threshold_ns as f64)),
        ("window".into(), dur(s.window_ns as f64)),
        ("duration".into(), dur(s.duration_ns as f64)),
        ("classification".into(), d.classification.method.clone()),
    ]);
    Ok(())
}

/// The first screen: per CPU how much noise and what dominates it, a warning when the
/// noise could not be classified, and the run's notes.
fn verdicts(b: &mut Builder, d: &NoiseResult) {
    for c in &d.cpus {
        let pct = c.noise_pct;
        let (tone, what) = match dominant(c) {
            None => (Tone::Good, "no noise above the threshold".to_string()),
            Some((label, share, who)) => (
                if pct >= 1.0 { Tone::Warn } else { Tone::Good },
                format!(
                    "mostly {label} ({:.0} %){}",
                    100.0 * share,
                    who.map(|w| format!(": {w}")).unwrap_or_default()
                ),
            ),
        };
        b.out.push(Block::Verdict(
            tone,
            format!(
                "{}: {pct:.3} % noise, largest single {} — {what}",
                cpu_name(c),
                dur(c.max_single_ns as f64)
            ),
        ));
    }
    if d.classification.method == "none" {
        b.out.push(Block::Verdict(
            Tone::Warn,
            format!(
                "unclassified (no tracer): {}",
                d.classification.reason.as_deref().unwrap_or("")
            ),
        ));
    }
    for n in &d.notes {
        b.note(n);
    }
}

/// Noise % per window per CPU as a chart, and as a table (with the steal beside it) when
/// there are few enough windows to read.
fn per_window(b: &mut Builder, d: &NoiseResult, level: u8) -> Result<(), ReportError> {
    let cpus = &d.cpus;
    let s = &d.settings;
    let window = if s.window_ns > 0 {
        s.window_ns as f64
    } else {
        1e9
    };
    b.heading(level + 1, "Noise per window", None);
    let lines: Vec<charts::Line> = cpus
        .iter()
        .map(|c| charts::Line {
            name: cpu_name(c),
            points: c
                .windows
                .iter()
                .enumerate()
                .map(|(k, w)| (k as f64 * window, *w))
                .filter(|p| p.1.is_finite())
                .collect(),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    let o = charts::SeriesOpts::new("noise", charts::ValueUnit::Other("%".into()));
    b.figure(
        "Noise % per window",
        &format!(
            "The share of each {} window the spinning thread lost, per CPU; the largest is circled.",
            dur(window)
        ),
        || charts::series_chart(&lines, &o),
    )?;
    let wmax = cpus.iter().map(|c| c.windows.len()).max().unwrap_or(0);
    if wmax > 30 {
        return Ok(());
    }
    let mut headers = vec!["window".to_string()];
    for c in cpus {
        headers.push(format!("{} noise", cpu_name(c)));
        headers.push(format!("{} steal", cpu_name(c)));
    }
    let rows = (0..wmax)
        .map(|k| {
            let mut row = vec![Cell::t(dur(k as f64 * window))];
            for c in cpus {
                let w = c.windows.get(k);
                row.push(Cell::n(w.map_or("–".into(), |p| format!("{p:.3} %"))));
                let st = c.window_steal_ns.get(k);
                row.push(Cell::n(st.map_or("–".into(), |x| dur(*x as f64))));
            }
            row
        })
        .collect();
    b.table(Table { headers, rows });
    Ok(())
}

/// The split by source (count and time per CPU), then per CPU the interrupts, threads and
/// softirqs that took the most.
fn by_source(b: &mut Builder, cpus: &[CpuNoise], level: u8) {
    b.heading(level + 1, "Noise by source", None);
    let mut headers = vec!["source".to_string()];
    for c in cpus {
        headers.push(format!("{} count", cpu_name(c)));
        headers.push(format!("{} time", cpu_name(c)));
    }
    let rows = SOURCES
        .iter()
        .map(|(get, label)| {
            let mut row = vec![Cell::t(*label)];
            for c in cpus {
                let s = get(&c.by_source);
                row.push(Cell::n(int(s.count as f64)));
                row.push(Cell::n(dur(s.total_ns as f64)));
            }
            row
        })
        .collect();
    b.table(Table { headers, rows });
    for c in cpus {
        for (src, word, idh) in [
            (&c.by_source.irq, "Interrupts", "irq / vector"),
            (&c.by_source.thread, "Threads", "pid"),
            (&c.by_source.softirq, "Softirqs", "vec"),
        ] {
            top_rows(b, c, src, word, idh, level);
        }
    }
}

/// The ten largest rows of one source on one CPU (nothing when it has none).
fn top_rows(b: &mut Builder, c: &CpuNoise, src: &SourceNoise, word: &str, idh: &str, level: u8) {
    let rows: Vec<Vec<Cell>> = src
        .rows
        .iter()
        .take(10)
        .map(|r| {
            // Ids are names, not quantities: no digit grouping.
            let id = r
                .pid
                .map(i64::from)
                .or(r.irq.map(i64::from))
                .or(r.vector.map(i64::from))
                .map(|n| n.to_string())
                .unwrap_or_default();
            vec![
                Cell::t(&r.name),
                Cell::n(id),
                Cell::n(int(r.count as f64)),
                Cell::n(dur(r.total_ns as f64)),
            ]
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    b.heading(level + 2, &format!("{word} on {}", cpu_name(c)), None);
    b.table(Table {
        headers: vec!["name".into(), idh.into(), "count".into(), "time".into()],
        rows,
    });
}

/// The overview line: the noisiest CPU.
pub(super) fn headline(d: &Value) -> (String, Option<Tone>) {
    let d = typed(d);
    let worst = d
        .iter()
        .flat_map(|d| d.cpus.iter())
        .max_by(|a, b| a.noise_pct.total_cmp(&b.noise_pct));
    match worst {
        None => ("no CPUs".into(), None),
        Some(c) => (
            format!("{:.3} % noise at most ({})", c.noise_pct, cpu_name(c)),
            Some(if c.noise_pct >= 1.0 {
                Tone::Warn
            } else {
                Tone::Good
            }),
        ),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::{render_markdown, Input, Options};
    use latscope_results::noise::*;

    /// A noise result as `latscope noise --json` writes it (through its type).
    pub(in crate::blocks) fn result() -> NoiseResult {
        let row = |name: &str, pid, vector, count, total_ns| Row {
            name: name.into(),
            pid,
            irq: None,
            vector,
            count,
            total_ns,
        };
        let src = |count, total_ns, rows| SourceNoise {
            count,
            total_ns,
            rows,
        };
        NoiseResult {
            kind: "noise".into(),
            schema_version: 1,
            tool: "latscope test".into(),
            started_unix_s: 0.0,
            kernel: "6.1".into(),
            labels: Default::default(),
            settings: NoiseSettingsJson {
                cpus: vec![1],
                policy: "fifo".into(),
                priority: 10,
                fallback_reason: None,
                duration_ns: 2_000_000_000,
                threshold_ns: 1000,
                window_ns: 1_000_000_000,
                trace_events: vec![],
                memory_locked: true,
                rt_runtime_us: None,
                rt_period_us: None,
            },
            interrupted: false,
            elapsed_ns: 2_000_000_000,
            started_mono_ns: 0,
            classification: Classification {
                method: "tracepoints".into(),
                reason: None,
                lost_events: 0,
                mounted_tracefs: false,
            },
            notes: vec![],
            cpus: vec![CpuNoise {
                cpu: 1,
                noise_ns: 400_000,
                noise_pct: 0.02,
                noise_count: 10,
                max_single_ns: 210_000,
                max_single_at_ns: 5,
                max_single_source: None,
                windows: vec![0.01, 0.03],
                window_steal_ns: vec![0, 10_000_000],
                loops: 1000,
                by_source: BySource {
                    hw: src(3, 30_000, vec![]),
                    irq: src(
                        5,
                        20_000,
                        vec![row("local_timer", None, Some(236), 5, 20_000)],
                    ),
                    thread: src(
                        2,
                        350_000,
                        vec![row("burster", Some(4242), None, 2, 350_000)],
                    ),
                    ..BySource::default()
                },
            }],
        }
    }

    #[test]
    fn the_verdict_names_the_dominant_source_and_the_tables_show_it() {
        let doc = serde_json::to_string(&result()).unwrap();
        let input = Input::parse("n.json", &doc).unwrap();
        let md = render_markdown(&[input], &Options::default()).unwrap();
        // 350 of 400 us: 88 %, named with its pid.
        assert!(
            md.contains("mostly thread (88 %): burster (pid 4242)"),
            "{md}"
        );
        assert!(md.contains("hardware / hypervisor"), "{md}");
        assert!(md.contains("4242"), "{md}");
        assert!(md.contains("local_timer"), "{md}");
        assert!(
            md.contains("10.0 ms") || md.contains("10 ms"),
            "steal beside the window: {md}"
        );
    }

    #[test]
    fn a_noise_result_that_does_not_read_is_an_error_naming_the_member() {
        let mut v = serde_json::to_value(result()).unwrap();
        if let Some(c) = v.pointer_mut("/cpus/0/noise_pct") {
            *c = serde_json::Value::String("lots".into());
        }
        let e = Input::parse("n.json", &v.to_string())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("n.json: `cpus[0].noise_pct`: invalid type"),
            "{e}"
        );
    }
}
