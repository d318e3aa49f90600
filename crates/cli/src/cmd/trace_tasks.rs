//! `latscope trace FILE --tasks`: task timing of an event recording (logic:
//! `latscope_trace::tasks`); this file loads, prints the table and writes the outputs.

use super::trace::Args;
use anyhow::Context;
use latscope_core::summary::ResultSummary;
use latscope_core::time::format_ns_f64;
use latscope_trace::tasks::{self, TaskTimingResult};
use std::io::Write;
use std::process::ExitCode;

/// A statistic of a summary for the table ("-" without instances).
fn st(s: &ResultSummary, name: &str) -> String {
    s.get(name).map_or_else(|| "-".into(), format_ns_f64)
}

/// Windows listed one a line; the rest are counted (all of them are in `--json`).
const LOST_LINES: usize = 20;

/// The lost-event lines: never silent. A reported loss reads "N events lost between T1
/// and T2 [on CPU c]"; a hole the recorder did not report reads "hole inferred on CPU c
/// between T1 and T2 (perf reported no loss)".
pub fn lost_lines(r: &TaskTimingResult) -> Vec<String> {
    let l = &r.lost_events;
    if l.windows.is_empty() {
        return vec!["lost events: none reported by the recorder, no hole inferred".into()];
    }
    // Exact times: a gap is often shorter than three significant digits show.
    let exact = |ns: f64| {
        latscope_core::time::human::exact(latscope_core::time::Picos((ns * 1000.0).round() as i64))
    };
    let on = |cpu: Option<u16>| cpu.map(|c| format!(" on CPU {c}")).unwrap_or_default();
    let mut out: Vec<String> = l
        .windows
        .iter()
        .take(LOST_LINES)
        .map(|w| {
            if w.inferred {
                let who = w
                    .actor
                    .as_ref()
                    .map(|a| format!("; {a} ran there unseen"))
                    .unwrap_or_default();
                format!(
                    "LOST: hole inferred{} between {} and {} ({} reported no loss{who})",
                    on(w.cpu),
                    exact(w.from_ns),
                    exact(w.to_ns),
                    r.recording.format
                )
            } else {
                let n = if w.count > 0 {
                    format!("{} events", w.count)
                } else {
                    "events (number unknown)".into()
                };
                format!(
                    "LOST: {n} lost between {} and {}{}",
                    exact(w.from_ns),
                    exact(w.to_ns),
                    on(w.cpu)
                )
            }
        })
        .collect();
    if l.windows.len() > LOST_LINES {
        out.push(format!(
            "LOST: … {} more window(s), every one in --json",
            l.windows.len() - LOST_LINES
        ));
    }
    let suspect: u64 = r.tasks.iter().map(|t| t.suspect).sum::<u64>()
        + r.isrs.iter().map(|i| i.suspect).sum::<u64>();
    let inferred = if l.inferred > 0 {
        format!(" ({} of them inferred holes, count unknown)", l.inferred)
    } else {
        String::new()
    };
    out.push(format!(
        "lost events: {} in {} window(s){inferred}; {suspect} job(s)/handler run(s) touch a \
         gap on a CPU they ran on and are flagged suspect (`*`)",
        l.count,
        l.windows.len()
    ));
    out
}

fn table(rows: &[Vec<String>], left: usize) -> String {
    let mut w = vec![0usize; rows.iter().map(Vec::len).max().unwrap_or(0)];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut s = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let wi = w[i];
                if i < left {
                    format!("{c:<wi$}")
                } else {
                    format!("{c:>wi$}")
                }
            })
            .collect();
        s += line.join("  ").trim_end();
        s.push('\n');
    }
    s
}

/// The human-readable result.
pub fn text(r: &TaskTimingResult) -> String {
    let rec = &r.recording;
    let mut s = format!(
        "{} ({}): {} recorded, {} CPU(s), {} events{}\n\n",
        rec.source,
        rec.format,
        format_ns_f64(rec.length_ns),
        rec.cpus.max(1),
        rec.events,
        rec.resolution_ns
            .map(|x| format!(", timestamp resolution {}", format_ns_f64(x)))
            .unwrap_or_default()
    );
    let mut rows = vec![[
        "task",
        "prio",
        "jobs",
        "start lat. p50",
        "max",
        "response p50",
        "p99",
        "max",
        "exec max",
        "preempt.",
        "CPU %",
    ]
    .map(String::from)
    .to_vec()];
    for t in &r.tasks {
        let flag = if t.worst.first().is_some_and(|w| w.suspect) {
            "*"
        } else {
            ""
        };
        rows.push(vec![
            t.name.clone(),
            t.priority.map_or_else(|| "-".into(), |p| p.to_string()),
            t.jobs.to_string(),
            st(&t.start_latency, "p50"),
            st(&t.start_latency, "max"),
            st(&t.response, "p50"),
            st(&t.response, "p99"),
            format!("{}{flag}", st(&t.response, "max")),
            st(&t.execution, "max"),
            t.preemptions.total.to_string(),
            format!("{:.2}", t.cpu_percent),
        ]);
    }
    s += &table(&rows, 1);
    for t in &r.tasks {
        if let Some(w) = t.worst.first() {
            s += &format!(
                "  {}: worst response {} in job {} released at {}{}\n",
                t.name,
                format_ns_f64(w.response_ns),
                w.job,
                format_ns_f64(w.release_ns),
                if w.suspect {
                    " (suspect: touches lost events)"
                } else {
                    ""
                }
            );
        }
        if t.suspect > 0 {
            s += &format!(
                "  {}: {} of {} job(s) flagged suspect (touch lost events on a CPU they ran on)\n",
                t.name, t.suspect, t.jobs
            );
        }
        if t.cut_off > 0 {
            s += &format!(
                "  {}: {} job(s) cut off by the recording's start or end, not counted\n",
                t.name, t.cut_off
            );
        }
    }
    if !r.isrs.is_empty() {
        s.push('\n');
        let mut rows = vec![[
            "handler",
            "kind",
            "count",
            "duration p50",
            "p99",
            "max",
            "at",
            "CPU %",
        ]
        .map(String::from)
        .to_vec()];
        for i in &r.isrs {
            rows.push(vec![
                i.name.clone(),
                i.kind.to_string(),
                i.count.to_string(),
                st(&i.duration, "p50"),
                st(&i.duration, "p99"),
                st(&i.duration, "max"),
                i.duration
                    .max_at_ns
                    .flatten()
                    .map_or_else(|| "-".into(), format_ns_f64),
                format!("{:.2}", i.cpu_percent),
            ]);
        }
        s += &table(&rows, 2);
        if let Some(t) = r.tick() {
            let parts: Vec<String> = t
                .by_released
                .iter()
                .map(|b| {
                    format!(
                        "{} released: {} tick(s), max {}",
                        b.released,
                        b.count,
                        format_ns_f64(b.max_ns)
                    )
                })
                .collect();
            if !parts.is_empty() {
                s += &format!("  {}: {}\n", t.name, parts.join("; "));
            }
        }
    }
    if let Some(p) = r.idle_percent {
        s += &format!("\nidle: {p:.2}% of the recording\n");
    }
    s.push('\n');
    for l in lost_lines(r) {
        s += &l;
        s.push('\n');
    }
    s
}

pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        a.files.len() == 1,
        "--tasks and --system-out read one event recording; {} files given",
        a.files.len()
    );
    let path = &a.files[0];
    let opts = a.input.options()?;
    let trace = crate::events_input::open(path, &opts)?;
    for w in opts.warnings.take() {
        crate::ui::warn(w);
    }
    let tl = tasks::walk(&trace);
    let set = tasks::Options {
        worst: a.worst,
        bins: a.bins.max(1),
    };
    let r = tasks::analyze_walked(&trace, &tl, &set);
    if let Some(p) = &a.series {
        let rows = tasks::tick_rows(&trace, &tl);
        crate::out::stream(p, "--series", |w| Ok(tasks::write_tick_series(&rows, w)?))?;
    }
    if let Some(p) = &a.switch_series {
        let rows = tasks::switch_rows(&trace);
        crate::out::stream(p, "--switch-series", |w| {
            Ok(tasks::write_switch_series(&rows, w)?)
        })?;
    }
    let json_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(p) = &a.system_out {
        let (text, notes) = super::trace_draft::draft(&trace, &tl, &r)
            .with_context(|| format!("--system-out {}", p.display()))?;
        crate::out::write(p, "--system-out", text)?;
        if !json_stdout {
            for n in notes {
                crate::ui::note(format_args!("note: {n}"));
            }
            crate::ui::note(format_args!(
                "wrote a system description draft to {} (its WCETs are observations, not bounds)",
                p.display()
            ));
        }
    }
    if let Some(p) = &a.json {
        crate::labels::write_json(p, &r, &a.labels.resolve()?)?;
    }
    if !json_stdout && (a.tasks || a.system_out.is_none()) {
        let mut out = std::io::stdout().lock();
        out.write_all(text(&r).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
