//! The section of a `latscope scenario` result: published against latscope, then each
//! embedded result in its own section.

use super::layout::*;
use super::render;
use super::{Block, Builder, Cell, Table, View};
use crate::charts::{self, Deviation};
use crate::data::{self, arr, num, text, text_any, Stats, Tone};
use crate::units::{dur, int, num as fnum, pct};
use crate::{Input, Kind, ReportError};
use serde_json::Value;

/// Embedded measure runs that differ only in their sleep length (the Python sleep-loop report's 10 ms, 100 ms,
/// 1 s naive sleeps) shown together as latency against sleep length.
pub(super) fn runs_as_sweep(
    b: &mut Builder,
    results: &[Value],
    level: u8,
) -> Result<(), ReportError> {
    let mut groups: Vec<(String, Vec<data::SweepPoint>)> = Vec::new();
    for r in results {
        if text(r, "kind").as_deref() != Some("measure") {
            continue;
        }
        let Some(s) = r.get("settings") else { continue };
        if text(s, "compare_load").is_some() || s.get("sweep").is_some_and(|v| !v.is_null()) {
            continue;
        }
        let (Some(interval_ns), Some(stats)) = (
            num(s, "interval_ns"),
            r.get("total").and_then(Stats::from_value),
        ) else {
            continue;
        };
        let key = format!(
            "{} sleep, SCHED_{}",
            text(s, "timer_mode").unwrap_or_default(),
            text(s, "policy").unwrap_or_default().to_uppercase()
        );
        let point = data::SweepPoint { interval_ns, stats };
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
/// "relative sleep, 10 ms, SCHED_OTHER".
pub(super) fn describe(r: &Value) -> Option<String> {
    match text(r, "kind")?.as_str() {
        "measure" => {
            let s = r.get("settings")?;
            let mut parts = Vec::new();
            if let Some(m) = text(s, "timer_mode") {
                parts.push(format!("{m} sleep"));
            }
            if let Some(i) = num(s, "interval_ns") {
                parts.push(dur(i));
            }
            if let Some(p) = text(s, "policy") {
                let prio = num(s, "priority").filter(|p| *p > 0.0);
                parts.push(match prio {
                    Some(x) => format!("SCHED_{} {}", p.to_uppercase(), int(x)),
                    None => format!("SCHED_{}", p.to_uppercase()),
                });
            }
            if let Some(l) = text(s, "compare_load") {
                parts.push(format!("idle vs {l}"));
            }
            if s.get("sweep").is_some_and(|v| !v.is_null()) {
                parts.push("sweep".into());
            }
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        _ => text_any(r, &["source"]).map(|s| {
            std::path::Path::new(&s)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or(s)
        }),
    }
}

/// The genuine predictions of a scenario result: (within, compared, misses without an
/// explanation), read from the JSON's `predictions` and the rows' `verdict` words, which
/// the scenario crate's one verdict function wrote (the report never re-decides them).
pub(super) fn scenario_score(d: &Value) -> (usize, usize, usize) {
    let p = d.get("predictions");
    let get = |k: &str| p.and_then(|p| num(p, k)).unwrap_or(0.0) as usize;
    let unexplained = arr(d, "rows")
        .iter()
        .filter(|r| text(r, "verdict").as_deref() == Some("outside"))
        .count();
    (get("within"), get("genuine"), unexplained)
}

/// The tone of a row's verdict word.
fn verdict_tone(v: &str) -> Tone {
    match v {
        "within" | "finding agrees" => Tone::Good,
        "outside" => Tone::Bad,
        "outside (explained)" | "finding differs" => Tone::Warn,
        _ => Tone::Neutral,
    }
}

/// Whether a verdict word belongs to a compared prediction (drawn on the deviation chart).
fn is_compared(v: &str) -> bool {
    matches!(v, "within" | "outside" | "outside (explained)")
}

pub(super) fn scenario(b: &mut Builder, input: &View, level: u8) -> Result<(), ReportError> {
    let d = input.doc;
    let name = input.name.as_str();
    let f = data::scalars(
        d,
        &[
            "kind",
            "schema_version",
            "description",
            "summary",
            "title",
            "readme",
        ],
    );
    if let Some(t) = text(d, "title") {
        b.out.push(Block::Verdict(Tone::Neutral, t));
    }
    b.facts(f);
    if let Some(desc) = text_any(d, &["description", "summary"]) {
        b.note(desc);
    }
    for n in arr(d, "notes") {
        if let Some(t) = n.as_str() {
            b.note(t.to_string());
        }
    }
    let rows = arr(d, "rows");
    if !rows.is_empty() {
        b.heading(level + 1, "Published against latscope", None);
        let (within, preds, unexplained) = scenario_score(d);
        let outside = preds.saturating_sub(within);
        let tone = match (outside, unexplained) {
            (0, _) => Tone::Good,
            (_, 0) => Tone::Warn,
            _ => Tone::Bad,
        };
        let count = |v: &str| {
            rows.iter()
                .filter(|r| text(r, "verdict").as_deref() == Some(v))
                .count()
        };
        let others: Vec<String> = [
            ("finding agrees", "findings agreeing"),
            ("finding differs", "findings differing"),
            ("not compared", "not compared"),
            ("input", "input"),
            ("derived", "derived"),
            ("check", "check"),
        ]
        .iter()
        .filter_map(|(k, w)| {
            let n = count(k);
            (n > 0).then(|| format!("{n} {w}"))
        })
        .collect();
        let head = if preds == 0 {
            "no genuine prediction".to_string()
        } else {
            format!(
                "{within} of {preds} predictions within tolerance ({outside} outside{})",
                match (outside, outside - unexplained.min(outside)) {
                    (0, _) => String::new(),
                    (o, e) if o == e => ", explained".to_string(),
                    (_, e) => format!(", {e} explained"),
                }
            )
        };
        b.out.push(Block::Verdict(
            tone,
            format!(
                "{head}; {}",
                if others.is_empty() {
                    "no other rows".to_string()
                } else {
                    format!("{} rows shown, never counted", others.join(", "))
                }
            ),
        ));
        if let Some(h) = text(d, "headline") {
            b.note(h);
        }
        let show = |r: &Value, k: &str| -> String {
            match r.get(k) {
                Some(Value::Number(n)) => fnum(n.as_f64().unwrap_or(f64::NAN), 5),
                Some(Value::Null) | None => "–".into(),
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
            }
        };
        let mut devs = Vec::new();
        let has_source = rows
            .iter()
            .any(|r| text(r, "source").is_some_and(|s| !s.is_empty()));
        let trows = rows
            .iter()
            .map(|r| {
                let unit = text(r, "unit").unwrap_or_default();
                let pubv = num(r, "published");
                let lat = num(r, "latscope");
                let dev = num(r, "deviation").or(match (pubv, lat) {
                    (Some(p), Some(l)) if p != 0.0 => Some((l - p) / p),
                    _ => None,
                });
                let tol = num(r, "tolerance");
                let tol_text = match (tol, num(r, "tolerance_abs")) {
                    (Some(t), _) => format!("±{}", pct(t)),
                    (None, Some(a)) => format!("±{} {unit}", fnum(a, 4)),
                    _ => "–".into(),
                };
                let word = text(r, "verdict").unwrap_or_default();
                let verdict = if word.is_empty() {
                    Cell::t("–")
                } else {
                    Cell::badge(word.clone(), verdict_tone(&word))
                };
                let figure = text(r, "figure").unwrap_or_default();
                // Only compared predictions go on the deviation chart.
                if is_compared(&word) {
                    if let Some(dv) = dev {
                        devs.push(Deviation {
                            label: figure.clone(),
                            deviation: dv,
                            tolerance: tol,
                            within: Some(word == "within"),
                        });
                    }
                }
                let mut row = vec![
                    Cell::t(figure).bold(),
                    Cell::n(show(r, "published")),
                    Cell::n(show(r, "latscope")),
                    Cell::t(unit),
                    Cell::n(
                        dev.map(|x| format!("{}{}", if x > 0.0 { "+" } else { "" }, pct(x)))
                            .unwrap_or_else(|| "–".into()),
                    ),
                    Cell::n(tol_text),
                    verdict,
                ];
                if has_source {
                    row.push(Cell::t(text(r, "source").unwrap_or_default()));
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
        b.table(Table {
            headers,
            rows: trows,
        });
        // Each explanation once, with the rows it explains.
        let mut why: Vec<(String, Vec<String>)> = Vec::new();
        for r in rows.iter() {
            if let (Some(f), Some(e)) = (text(r, "figure"), text(r, "explanation")) {
                match why.iter_mut().find(|(x, _)| *x == e) {
                    Some((_, fs)) => fs.push(f),
                    None => why.push((e, vec![f])),
                }
            }
        }
        for (e, fs) in why {
            b.note(format!("Why ({}): {e}", fs.join("; ")));
        }
        b.figure(
            "Predictions against published figures",
            "Deviation of each latscope prediction from the document's figure; the green band is the tolerance stated in the scenario's README.",
            || charts::deviations(&devs),
        )?;
    }
    let mut focus = None;
    let mut seen: Vec<String> = Vec::new();
    for (i, r) in arr(d, "results").iter().enumerate() {
        let label = text_any(r, &["name", "title", "label"])
            .or_else(|| describe(r))
            .unwrap_or_else(|| format!("{name} · results[{i}]"));
        match Input::from_value(&label, r.clone()) {
            Ok(mut sub) => {
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
            }
            Err(e) => b.note(format!("results[{i}] skipped: {e}")),
        }
    }
    runs_as_sweep(b, arr(d, "results"), level)?;
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
    if input.attachments.is_empty() && !arr(d, "artifacts").is_empty() {
        b.note(
            "The scenario's artifacts (tick series, captures) were not found next to this \
             result; give them to latscope report together with it to draw the full series and \
             timelines.",
        );
    }
    Ok(())
}
