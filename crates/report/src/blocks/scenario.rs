//! The section of a `latscope scenario` result, read from its typed document: the
//! scenario's own verdict and predictions first, published against latscope, then each
//! embedded result in its own section.

use super::layout::*;
use super::render;
use super::{Block, Builder, Cell, Table, View};
use crate::charts::{self, Deviation};
use crate::data::{self, Tone};
use crate::units::{dur, int, num as fnum, pct};
use crate::{Document, Input, Kind, ReportError};
use latscope_results::scenario::{banner, Row, ScenarioResult, Verdict};
use serde::Deserialize;
use serde_json::Value;

/// The typed scenario document of a JSON value, or why it is not one.
pub(super) fn typed(name: &str, d: &Value) -> Result<ScenarioResult, ReportError> {
    ScenarioResult::deserialize(d).map_err(|e| ReportError::Invalid {
        file: name.to_string(),
        message: format!("not a valid scenario result: {e}"),
    })
}

/// Embedded measure runs that differ only in their sleep length (the Python sleep-loop
/// report's 10 ms, 100 ms, 1 s naive sleeps) shown together as latency against sleep length.
pub(super) fn runs_as_sweep(
    b: &mut Builder,
    results: &[Input],
    level: u8,
) -> Result<(), ReportError> {
    let mut groups: Vec<(String, Vec<data::SweepPoint>)> = Vec::new();
    for r in results {
        let Some(Document::Measure(m)) = &r.result else {
            continue;
        };
        let s = &m.settings;
        if s.compare_load.is_some() || s.sweep.is_some() {
            continue;
        }
        let key = format!("{} sleep, SCHED_{}", s.timer_mode, s.policy.to_uppercase());
        let point = data::SweepPoint {
            interval_ns: s.interval_ns as f64,
            stats: super::measure::stats(&m.total),
        };
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(point),
            None => groups.push((key, vec![point])),
        }
    }
    for (key, mut pts) in groups {
        pts.sort_by(|a, b| a.interval_ns.total_cmp(&b.interval_ns));
        pts.dedup_by(|a, b| a.interval_ns == b.interval_ns);
        if pts.len() < 3 {
            continue;
        }
        b.heading(
            level + 1,
            &format!("Latency against sleep length: {key}"),
            None,
        );
        let rows: Vec<StatsRow> = pts
            .iter()
            .map(|p| StatsRow {
                label: dur(p.interval_ns),
                stats: p.stats.clone(),
            })
            .collect();
        b.table(stats_table("sleep length", &rows));
        b.figure(
            &format!("Wake-up latency against sleep length ({key})"),
            "The runs above side by side: \"Wakeup Latency, CPU Frequency (Gotcha)\" saw longer sleeps wake up later.",
            || charts::sweep(&pts),
        )?;
    }
    Ok(())
}

/// A short description of an embedded result from its settings, e.g.
/// "relative sleep, 10 ms, SCHED_OTHER", or the file it was made from.
pub(super) fn describe(r: &Document) -> Option<String> {
    let file = |s: &str| {
        std::path::Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| s.to_string())
    };
    let source = match r {
        Document::Measure(m) => {
            let s = &m.settings;
            let mut parts = vec![format!("{} sleep", s.timer_mode), dur(s.interval_ns as f64)];
            parts.push(if s.priority > 0 {
                format!(
                    "SCHED_{} {}",
                    s.policy.to_uppercase(),
                    int(f64::from(s.priority))
                )
            } else {
                format!("SCHED_{}", s.policy.to_uppercase())
            });
            if let Some(l) = &s.compare_load {
                parts.push(format!("idle vs {l}"));
            }
            if s.sweep.is_some() {
                parts.push("sweep".into());
            }
            return Some(parts.join(", "));
        }
        Document::Trace(t) => &t.capture.source,
        Document::Analyze(a) => &a.analysis.source,
        Document::Simulate(s) => &s.source,
        _ => return None,
    };
    (!source.is_empty()).then(|| file(source))
}

/// The genuine predictions of a scenario result: (within, genuine, misses without an
/// explanation), as the scenario crate's one verdict function wrote them (the report
/// never re-decides them); zeros when the value is not a scenario result.
pub(super) fn scenario_score(d: &Value) -> (usize, usize, usize) {
    match ScenarioResult::deserialize(d) {
        Ok(s) => score(&s),
        Err(_) => (0, 0, 0),
    }
}

fn score(s: &ScenarioResult) -> (usize, usize, usize) {
    let unexplained = s
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Outside)
        .count();
    (s.predictions.within, s.predictions.genuine, unexplained)
}

/// The tone of the whole scenario: a miss without explanation is bad (the run exits 1),
/// explained misses a warning, no genuine prediction neutral.
pub fn tone(s: &ScenarioResult) -> Tone {
    let (_, genuine, unexplained) = score(s);
    if unexplained > 0 {
        Tone::Bad
    } else if s.predictions.outside > 0 {
        Tone::Warn
    } else if genuine == 0 {
        Tone::Neutral
    } else {
        Tone::Good
    }
}

/// The tone of a row's verdict.
fn verdict_tone(v: Verdict) -> Tone {
    match v {
        Verdict::Within | Verdict::FindingAgrees => Tone::Good,
        Verdict::Outside => Tone::Bad,
        Verdict::OutsideExplained | Verdict::FindingDiffers => Tone::Warn,
        _ => Tone::Neutral,
    }
}

/// A row's relative deviation: the one written, or (latscope − published) / published.
fn deviation(r: &Row) -> Option<f64> {
    r.deviation.or_else(|| {
        (r.published.is_finite() && r.latscope.is_finite() && r.published != 0.0)
            .then(|| (r.latscope - r.published) / r.published)
    })
}

/// The predictions a scenario compared, for the deviation chart: rows that are not
/// compared (inputs, findings, figures of other hardware) never go on it.
pub fn compared(s: &ScenarioResult) -> Vec<Deviation> {
    s.rows
        .iter()
        .filter(|r| r.verdict.is_compared())
        .filter_map(|r| {
            Some(Deviation {
                label: r.figure.clone(),
                deviation: deviation(r).filter(|d| d.is_finite())?,
                tolerance: r.tolerance,
                within: Some(r.verdict == Verdict::Within),
            })
        })
        .collect()
}

fn table(b: &mut Builder, s: &ScenarioResult) {
    let show = |x: f64| {
        if x.is_finite() {
            fnum(x, 5)
        } else {
            "–".into()
        }
    };
    let has_source = s.rows.iter().any(|r| !r.source.is_empty());
    let rows = s
        .rows
        .iter()
        .map(|r| {
            let tol = match (r.tolerance, r.tolerance_abs) {
                (Some(t), _) => format!("±{}", pct(t)),
                (None, Some(a)) => format!("±{} {}", fnum(a, 4), r.unit),
                _ => "–".into(),
            };
            let mut row = vec![
                Cell::t(&r.figure).bold(),
                Cell::n(show(r.published)),
                Cell::n(show(r.latscope)),
                Cell::t(&r.unit),
                Cell::n(
                    deviation(r)
                        .map(|x| format!("{}{}", if x > 0.0 { "+" } else { "" }, pct(x)))
                        .unwrap_or_else(|| "–".into()),
                ),
                Cell::n(tol),
                Cell::badge(r.verdict.word(), verdict_tone(r.verdict)),
            ];
            if has_source {
                row.push(Cell::t(&r.source));
            }
            row
        })
        .collect();
    let mut headers: Vec<String> = [
        "figure",
        "published",
        "latscope",
        "unit",
        "deviation",
        "tolerance",
        "verdict",
    ]
    .map(String::from)
    .to_vec();
    if has_source {
        headers.push("source".into());
    }
    b.table(Table { headers, rows });
}

pub(super) fn scenario(b: &mut Builder, input: &View, level: u8) -> Result<(), ReportError> {
    let name = input.name.as_str();
    let s = typed(name, input.doc)?;
    b.out.push(Block::Verdict(Tone::Neutral, s.title.clone()));
    b.facts(vec![
        ("scenario".into(), s.name.clone()),
        ("source".into(), s.source.clone()),
        (
            "quick run".into(),
            if s.quick { "yes" } else { "no" }.into(),
        ),
    ]);
    if !s.rows.is_empty() {
        b.heading(level + 1, "Published against latscope", None);
        // The scenario's own verdict, in the words the terminal prints.
        b.out.push(Block::Verdict(tone(&s), banner(&s.summary)));
        if !s.headline.is_empty() {
            b.note(s.headline.clone());
        }
        table(b, &s);
        // Each explanation once, with the rows it explains.
        let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
        for r in &s.rows {
            if let Some(e) = r.explanation.as_deref() {
                match why.iter_mut().find(|(x, _)| *x == e) {
                    Some((_, fs)) => fs.push(&r.figure),
                    None => why.push((e, vec![&r.figure])),
                }
            }
        }
        for (e, fs) in why {
            b.note(format!("Why ({}): {e}", fs.join("; ")));
        }
        let devs = compared(&s);
        b.figure(
            "Predictions against published figures",
            "Deviation of each genuine prediction from the document's figure (rows not compared are not drawn); the green band is the tolerance stated in the scenario's README.",
            || charts::deviations(&devs),
        )?;
    }
    for n in &s.notes {
        b.note(n.clone());
    }
    let mut focus = None;
    let mut seen: Vec<String> = Vec::new();
    let mut subs: Vec<Input> = Vec::new();
    for (i, r) in s.results.iter().enumerate() {
        match Input::from_value(&format!("{name} · results[{i}]"), r.clone()) {
            Ok(mut sub) => {
                let label = sub
                    .result
                    .as_ref()
                    .and_then(describe)
                    .unwrap_or_else(|| sub.name.clone());
                sub.name = label.clone();
                let mut title = format!("{}: {label}", sub.kind.name());
                // Two results that describe alike get their position, never the same title.
                if seen.contains(&title) {
                    title = format!("{title} (result {} of the scenario)", i + 1);
                }
                seen.push(title.clone());
                b.heading(level + 1, &title, Some(sub.kind.name()));
                if sub.kind == Kind::Simulate {
                    // The last simulation with interrupts (the tickless run, the actor path)
                    // or else the first one names the instant of the capture's timeline.
                    let w = match &sub.result {
                        Some(crate::Document::Simulate(s)) => super::simulate::worst_instant(s),
                        _ => None,
                    };
                    let irq = w.as_ref().is_some_and(|w| w.1.contains("interrupt"));
                    if focus.is_none() || irq {
                        focus = w;
                    }
                    // The scenario's full tick series belongs to its tick-driven simulation.
                    if sub.result.is_some() {
                        sub.attachments = input
                            .attachments
                            .iter()
                            .filter(|a| a.kind == Kind::Series)
                            .cloned()
                            .collect();
                    }
                }
                render(b, &View::of(&sub), level + 1, &[])?;
                subs.push(sub);
            }
            Err(e) => b.note(format!("results[{i}] skipped: {e}")),
        }
    }
    runs_as_sweep(b, &subs, level)?;
    // The scenario's own captures (VCD, .lscap): a timeline around the simulation's worst
    // case (the tickless wake-up, the interrupt-to-actor path, the list-scan run).
    for cap in input.attachments.iter().filter(|a| a.kind == Kind::Capture) {
        let file = std::path::Path::new(&cap.name)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| cap.name.clone());
        super::simulate::timeline_from_capture(
            b,
            &cap.doc,
            focus.clone(),
            level,
            &format!("Timeline of the scenario's capture {file}"),
        )?;
    }
    if input.attachments.is_empty() && !s.artifacts.is_empty() {
        b.note(
            "The scenario's artifacts (tick series, captures) were not found next to this \
             result; give them to latscope report together with it to draw the full series and \
             timelines.",
        );
    }
    Ok(())
}
