//! The section of a `latscope noise` result: a first-screen verdict per CPU (how much
//! noise and what dominates it), noise % per window (with steal beside it), the split
//! by source and the interrupts and threads that took the most.

use super::{Block, Builder, Cell, Table};
use crate::charts;
use crate::data::{arr, num, text, Tone};
use crate::units::{dur, int};
use crate::ReportError;
use serde_json::Value;

/// Sources in the order of the table; the first five are the contract's.
const SOURCES: [(&str, &str); 7] = [
    ("hw", "hardware / hypervisor"),
    ("nmi", "NMI"),
    ("irq", "IRQ"),
    ("softirq", "softirq"),
    ("thread", "thread"),
    ("unaccounted", "unaccounted"),
    ("unclassified", "unclassified"),
];

fn cpu_name(c: &Value) -> String {
    num(c, "cpu").map_or("CPU ?".into(), |n| format!("CPU {}", int(n)))
}

/// The source with the most time, its share and its top row.
fn dominant(c: &Value) -> Option<(&'static str, f64, Option<String>)> {
    let noise = num(c, "noise_ns")?;
    let b = c.get("by_source")?;
    let (key, label, ns) = SOURCES
        .iter()
        .filter_map(|(k, l)| Some((*k, *l, num(b.get(*k)?, "total_ns")?)))
        .filter(|s| s.2 > 0.0)
        .max_by(|a, b| a.2.total_cmp(&b.2))?;
    let who = arr(&b[key], "rows").first().map(|r| {
        let name = text(r, "name").unwrap_or_default();
        match num(r, "pid") {
            Some(p) => format!("{name} (pid {})", p as i64),
            None => name,
        }
    });
    Some((label, if noise > 0.0 { ns / noise } else { 0.0 }, who))
}

pub(super) fn noise(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let cpus = arr(d, "cpus");
    for c in cpus {
        let pct = num(c, "noise_pct").unwrap_or(0.0);
        let max = num(c, "max_single_ns").unwrap_or(0.0);
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
                dur(max)
            ),
        ));
    }
    if d.pointer("/classification/method").and_then(Value::as_str) == Some("none") {
        b.out.push(Block::Verdict(
            Tone::Warn,
            format!(
                "unclassified (no tracer): {}",
                d.pointer("/classification/reason")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            ),
        ));
    }
    for n in arr(d, "notes") {
        if let Some(s) = n.as_str() {
            b.note(s);
        }
    }
    let s = d.get("settings").cloned().unwrap_or(Value::Null);
    let mut facts = Vec::new();
    if let Some(p) = text(&s, "policy") {
        facts.push((
            "policy".into(),
            format!("{p} {}", num(&s, "priority").map(int).unwrap_or_default()),
        ));
    }
    for (k, label) in [
        ("threshold_ns", "threshold"),
        ("window_ns", "window"),
        ("duration_ns", "duration"),
    ] {
        if let Some(v) = num(&s, k) {
            facts.push((label.into(), dur(v)));
        }
    }
    if let Some(m) = d.pointer("/classification/method").and_then(Value::as_str) {
        facts.push(("classification".into(), m.to_string()));
    }
    b.facts(facts);

    let window = num(&s, "window_ns").unwrap_or(1e9);
    b.heading(level + 1, "Noise per window", None);
    let lines: Vec<charts::Line> = cpus
        .iter()
        .map(|c| charts::Line {
            name: cpu_name(c),
            points: arr(c, "windows")
                .iter()
                .enumerate()
                .filter_map(|(k, w)| Some((k as f64 * window, w.as_f64()?)))
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
    let wmax = cpus
        .iter()
        .map(|c| arr(c, "windows").len())
        .max()
        .unwrap_or(0);
    if wmax <= 30 {
        let mut headers = vec!["window".to_string()];
        for c in cpus {
            headers.push(format!("{} noise", cpu_name(c)));
            headers.push(format!("{} steal", cpu_name(c)));
        }
        let rows = (0..wmax)
            .map(|k| {
                let mut row = vec![Cell::t(dur(k as f64 * window))];
                for c in cpus {
                    let w = arr(c, "windows").get(k).and_then(Value::as_f64);
                    row.push(Cell::n(w.map_or("–".into(), |p| format!("{p:.3} %"))));
                    let st = arr(c, "window_steal_ns").get(k).and_then(Value::as_f64);
                    row.push(Cell::n(st.map_or("–".into(), dur)));
                }
                row
            })
            .collect();
        b.table(Table { headers, rows });
    }

    b.heading(level + 1, "Noise by source", None);
    let mut headers = vec!["source".to_string()];
    for c in cpus {
        headers.push(format!("{} count", cpu_name(c)));
        headers.push(format!("{} time", cpu_name(c)));
    }
    let rows = SOURCES
        .iter()
        .map(|(k, label)| {
            let mut row = vec![Cell::t(*label)];
            for c in cpus {
                let s = c.get("by_source").and_then(|b| b.get(*k));
                let count = s.and_then(|s| num(s, "count")).unwrap_or(0.0);
                let ns = s.and_then(|s| num(s, "total_ns")).unwrap_or(0.0);
                row.push(Cell::n(int(count)));
                row.push(Cell::n(dur(ns)));
            }
            row
        })
        .collect();
    b.table(Table { headers, rows });
    for c in cpus {
        for (k, word) in [
            ("irq", "Interrupts"),
            ("thread", "Threads"),
            ("softirq", "Softirqs"),
        ] {
            let rows: Vec<Vec<Cell>> = arr(&c["by_source"][k], "rows")
                .iter()
                .take(10)
                .map(|r| {
                    // Ids are names, not quantities: no digit grouping.
                    let id = num(r, "pid")
                        .or_else(|| num(r, "irq"))
                        .or_else(|| num(r, "vector"))
                        .map(|n| (n as i64).to_string())
                        .unwrap_or_default();
                    vec![
                        Cell::t(text(r, "name").unwrap_or_default()),
                        Cell::n(id),
                        Cell::n(int(num(r, "count").unwrap_or(0.0))),
                        Cell::n(dur(num(r, "total_ns").unwrap_or(0.0))),
                    ]
                })
                .collect();
            if rows.is_empty() {
                continue;
            }
            b.heading(level + 2, &format!("{word} on {}", cpu_name(c)), None);
            let idh = match k {
                "thread" => "pid",
                "softirq" => "vec",
                _ => "irq / vector",
            };
            b.table(Table {
                headers: vec!["name".into(), idh.into(), "count".into(), "time".into()],
                rows,
            });
        }
    }
    Ok(())
}

/// The overview line: the noisiest CPU.
pub(super) fn headline(d: &Value) -> (String, Option<Tone>) {
    let worst = arr(d, "cpus")
        .iter()
        .filter_map(|c| Some((num(c, "noise_pct")?, c)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match worst {
        None => ("no CPUs".into(), None),
        Some((p, c)) => (
            format!("{p:.3} % noise at most ({})", cpu_name(c)),
            Some(if p >= 1.0 { Tone::Warn } else { Tone::Good }),
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::{render_markdown, Input, Options};

    #[test]
    fn the_verdict_names_the_dominant_source_and_the_tables_show_it() {
        let doc = r#"{"kind":"noise","schema_version":1,
          "settings":{"policy":"fifo","priority":10,"threshold_ns":1000,"window_ns":1000000000,"duration_ns":2000000000},
          "classification":{"method":"tracepoints","lost_events":0,"mounted_tracefs":false},
          "notes":[],
          "cpus":[{"cpu":1,"noise_ns":400000,"noise_pct":0.02,"max_single_ns":210000,"max_single_at_ns":5,
            "windows":[0.01,0.03],"window_steal_ns":[0,10000000],
            "by_source":{
              "hw":{"count":3,"total_ns":30000,"rows":[]},
              "nmi":{"count":0,"total_ns":0,"rows":[]},
              "irq":{"count":5,"total_ns":20000,"rows":[{"name":"local_timer","vector":236,"count":5,"total_ns":20000}]},
              "softirq":{"count":0,"total_ns":0,"rows":[]},
              "thread":{"count":2,"total_ns":350000,"rows":[{"name":"burster","pid":4242,"count":2,"total_ns":350000}]},
              "unaccounted":{"count":0,"total_ns":0,"rows":[]},
              "unclassified":{"count":0,"total_ns":0,"rows":[]}}}]}"#;
        let input = Input::parse("n.json", doc).unwrap();
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
}
