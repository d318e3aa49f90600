//! The section of a `latscope trace` result: limits, measurements, per-measurement charts.

use super::layout::*;
use super::{Block, Builder, Cell, Table};
use crate::charts::{self};
use crate::data::{self, arr, num, num_any, text, Bucket, Stats, Tone};
use crate::units::{dur, int, num as fnum};
use crate::ReportError;
use serde_json::Value;

/// Whether a trace measurement's values are durations (ns) rather than counts or fractions.
pub(super) fn is_time_measurement(m: &Value) -> bool {
    match text(m, "unit") {
        None => true,
        Some(u) => matches!(u.as_str(), "ns" | "s" | "time" | "duration"),
    }
}

pub(super) fn trace(b: &mut Builder, d: &Value, level: u8) -> Result<(), ReportError> {
    let mut f = data::scalars(d, &["kind", "schema_version"]);
    if let Some(c) = d.get("capture") {
        f.extend(data::scalars(c, &[]));
    }
    b.facts(f);
    let limits = arr(d, "limits");
    if !limits.is_empty() {
        b.heading(level + 1, "Limits", None);
        match data::flag(d, "pass") {
            Some(true) => b
                .out
                .push(Block::Verdict(Tone::Good, "every limit holds".into())),
            Some(false) => b
                .out
                .push(Block::Verdict(Tone::Bad, "a limit is exceeded".into())),
            None => {}
        }
        b.table(generic_table(limits));
    }
    let ms = arr(d, "measurements");
    if ms.is_empty() {
        b.note("This result holds no measurements.");
        return Ok(());
    }
    b.heading(level + 1, "Measurements", None);
    let mut rows = Vec::new();
    for m in ms {
        let timed = is_time_measurement(m);
        let unit = text(m, "unit").unwrap_or_default();
        let v = |keys: &[&str]| -> Cell {
            match num_any(m, keys) {
                Some(x) if timed => Cell::n(dur(x)),
                Some(x) => Cell::n(format!("{} {unit}", fnum(x, 4)).trim().to_string()),
                None => Cell::n("–"),
            }
        };
        let at = |keys: &[&str]| -> Cell {
            Cell::n(num_any(m, keys).map(dur).unwrap_or_else(|| "–".into()))
        };
        rows.push(vec![
            Cell::t(text(m, "name").unwrap_or_default()).bold(),
            Cell::t(text(m, "kind").unwrap_or_default()),
            Cell::n(num(m, "count").map(int).unwrap_or_else(|| "–".into())),
            v(&["min_ns", "min"]),
            at(&["min_at_ns"]),
            v(&["mean_ns", "mean"]),
            v(&["p50_ns", "p50"]),
            v(&["p99_ns", "p99"]),
            v(&["max_ns", "max"]).bold(),
            at(&["max_at_ns"]),
        ]);
    }
    b.table(Table {
        headers: [
            "measurement",
            "kind",
            "count",
            "min",
            "min at",
            "mean",
            "p50",
            "p99",
            "max",
            "max at",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
    for m in ms {
        let name = text(m, "name").unwrap_or_else(|| "measurement".into());
        let timed = is_time_measurement(m);
        let hist = data::buckets(m.get("histogram"));
        let series = data::series(m.get("series"));
        let worst = data::worst(m);
        if hist.is_empty() && series.is_empty() && worst.is_empty() {
            continue;
        }
        let kind = text(m, "kind").unwrap_or_default();
        b.heading(level + 1, &name, Some(&kind));
        let link = b.link_id(&name);
        let mut facts = Vec::new();
        for (k, label) in [
            ("resolution_ns", "resolution (±1 sample)"),
            ("unmatched", "unmatched events"),
            ("stdev_ns", "stdev"),
            ("mode_ns", "mode"),
        ] {
            if let Some(x) = num(m, k) {
                facts.push((
                    label.to_string(),
                    if k.ends_with("_ns") { dur(x) } else { int(x) },
                ));
            }
        }
        // Busy fraction: `busy_percent` {overall, min, max, …} and a per-window series.
        let busy = m.get("busy_percent");
        if let Some(bp) = busy {
            for (k, label) in [
                ("overall", "busy overall"),
                ("min", "busy, least window"),
                ("mean", "busy, mean window"),
                ("max", "busy, busiest window"),
            ] {
                if let Some(x) = num(bp, k) {
                    facts.push((label.to_string(), format!("{} %", fnum(x, 4))));
                }
            }
        }
        // The lines the terminal prints for a period: its frequency and its jitter against
        // the nominal period.
        let jitter = m.get("jitter").filter(|j| j.is_object());
        if let Some(f) = num(m, "frequency_hz") {
            facts.push(("frequency".into(), format!("{} Hz", fnum(f, 7))));
        }
        if let Some(j) = jitter {
            if let Some(nom) = num(j, "nominal_ns") {
                facts.push(("nominal period".into(), dur(nom)));
            }
            for (k, label) in [
                ("min_ns", "jitter, min"),
                ("max_ns", "jitter, max"),
                ("rms_ns", "jitter, rms"),
                ("abs_max_ns", "jitter, largest |deviation|"),
            ] {
                if let Some(x) = num(j, k) {
                    facts.push((label.into(), dur(x)));
                }
            }
        }
        b.facts(facts);
        let is_period = text(m, "kind").as_deref() == Some("period");
        if is_period && !hist.is_empty() {
            let nominal = jitter.and_then(|j| num(j, "nominal_ns"));
            let (centre, what) = match nominal {
                Some(n) => (n, format!("deviation from the nominal {}", dur(n))),
                None => (
                    num_any(m, &["mean_ns", "mean"]).unwrap_or(0.0),
                    "deviation from the mean period".to_string(),
                ),
            };
            let shifted: Vec<Bucket> = hist
                .iter()
                .map(|k| Bucket {
                    low: k.low - centre,
                    high: k.high - centre,
                    count: k.count,
                })
                .collect();
            let lo = num_any(m, &["min_ns", "min"]).map(|v| v - centre);
            let hi = num_any(m, &["max_ns", "max"]).map(|v| v - centre);
            b.figure(
                &format!("{name}: jitter"),
                &format!(
                    "Each period's {what}, on a linear axis so the jitter is not hidden by the period itself; count on a log axis."
                ),
                || charts::jitter_histogram(&name, &shifted, lo, hi, &what),
            )?;
        }
        if busy.is_some() {
            let pct_series: Vec<data::Point> = arr(m, "series")
                .iter()
                .filter_map(|p| Some((num_any(p, &["at_ns", "t_ns"])?, num(p, "percent")?)))
                .collect();
            if pct_series.len() >= 2 {
                b.figure(
                    &format!("{name}: busy share per window"),
                    "Share of each window the channel was high: the kernel's overhead in percent, over time; the busiest window is circled.",
                    || {
                        let o = charts::SeriesOpts::new(
                            "busy share",
                            charts::ValueUnit::Other("%".into()),
                        );
                        charts::series_chart(
                            &[charts::Line {
                                name: format!("{name}: busy share"),
                                points: pct_series,
                            }],
                            &o,
                        )
                    },
                )?;
            }
        }
        // A distribution needs a few values to be worth a chart.
        let enough = !matches!(num(m, "count"), Some(c) if c < 5.0);
        if timed && !hist.is_empty() && enough && busy.is_none() && !is_period {
            let res = num(m, "resolution_ns");
            let quantised = data::quantised(&hist, res).is_some();
            // The first and last buckets reach no further than the exact min and max: a
            // bucket [9 µs, 12 µs) whose largest value is the max 9 µs is drawn up to 9 µs.
            let mut drawn = hist.clone();
            if let (true, Some(r)) = (quantised, res) {
                let lo = num_any(m, &["min_ns", "min"]);
                let hi = num_any(m, &["max_ns", "max"]);
                for k in &mut drawn {
                    if let Some(hi) = hi.filter(|h| *h >= k.low) {
                        k.high = k.high.min(hi + r);
                    }
                    if let Some(lo) = lo.filter(|l| *l < k.high) {
                        k.low = k.low.max(lo);
                    }
                }
                if data::quantised(&drawn, res).is_none() {
                    drawn = hist.clone();
                }
            } else {
                // Edges off the sample grid: the bucket holding the exact min starts there,
                // the one holding the exact max ends there.
                drawn = clip_to_extremes(
                    &hist,
                    num_any(m, &["min_ns", "min"]),
                    num_any(m, &["max_ns", "max"]),
                );
            }
            let sets = vec![(name.clone(), drawn, res)];
            b.figure(
                &format!("{name}: histogram"),
                if quantised {
                    "Count on a log axis, so that single outliers stay visible; values are whole samples and each bar spans the values it counts, half a sample either side (a one-sample bar is centred on its value)."
                } else {
                    "Count on a log axis, so that single outliers stay visible."
                },
                || charts::histogram_res(&sets, &name),
            )?;
            let sets = vec![(name.clone(), hist, Stats::from_value(m))];
            b.figure(
                &format!("{name}: by percentile"),
                "Each step to the right is ten times rarer; dots are the exact percentiles. The last stretch, to the axis end labelled max, is the largest sample.",
                || charts::cdf(&sets, &name),
            )?;
        }
        if !series.is_empty() && enough && busy.is_none() {
            // The instance the tables name (`max_at_ns`), else the first worst.
            let hl = match (num(m, "max_at_ns"), num_any(m, &["max_ns", "max"])) {
                (Some(t), Some(v)) => Some((t, v)),
                _ => worst.first().copied(),
            };
            let mut o = charts::SeriesOpts::new(
                &name,
                if timed {
                    charts::ValueUnit::Time
                } else {
                    charts::ValueUnit::Other(text(m, "unit").unwrap_or_default())
                },
            );
            o.highlight = hl;
            o.link = Some(link.clone());
            let line = charts::Line {
                name: name.clone(),
                points: series.clone(),
            };
            b.figure(
                &format!("{name} over time"),
                "Value of each instance against its time in the capture (each pixel column shows the minimum and maximum of all instances in it); the worst case the tables name is circled.",
                || charts::series_chart(&[line], &o),
            )?;
        }
        if !worst.is_empty() && enough {
            let rows = worst
                .iter()
                .take(10)
                .enumerate()
                .map(|(i, (t, v))| {
                    vec![
                        Cell::n(format!("{}", i + 1)),
                        Cell::n(if timed { dur(*v) } else { fnum(*v, 4) }),
                        Cell::n(dur(*t)),
                    ]
                })
                .collect();
            b.table(Table {
                headers: vec![
                    "rank".into(),
                    "value".into(),
                    "at (from capture start)".into(),
                ],
                rows,
            });
            b.link(&link, worst.iter().take(10).map(|w| Some(w.0)).collect());
        }
    }
    Ok(())
}
