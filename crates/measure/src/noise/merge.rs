//! `latscope merge` of noise results: runs of the same settings (one host over a night,
//! or one run split in parts) combined into one. Per CPU, noise time, gap counts, loops
//! and every source's time, count and rows add up exactly; the largest single gap is
//! the largest of all; windows follow each other in input order; the share of noise is
//! recomputed from the summed noise and the summed measured time.

use super::result::{CpuNoise, NoiseReport, Row, SourceNoise, KIND};
use crate::MeasureError;

/// Settings that must agree for two noise results to merge: (name, value as text).
fn settings_key(r: &NoiseReport) -> Vec<(&'static str, String)> {
    let s = &r.settings;
    vec![
        ("cpus", format!("{:?}", s.cpus)),
        ("policy", format!("{} {}", s.policy, s.priority)),
        ("threshold_ns", s.threshold_ns.to_string()),
        ("window_ns", s.window_ns.to_string()),
        ("trace_events", s.trace_events.join(",")),
    ]
}

fn add_rows(into: &mut Vec<Row>, from: &[Row]) {
    for r in from {
        match into
            .iter_mut()
            .find(|x| x.name == r.name && x.pid == r.pid && x.irq == r.irq && x.vector == r.vector)
        {
            Some(x) => {
                x.count = x.count.saturating_add(r.count);
                x.total_ns = x.total_ns.saturating_add(r.total_ns);
            }
            None => into.push(r.clone()),
        }
    }
    into.sort_by_key(|x| std::cmp::Reverse(x.total_ns));
}

fn add_source(into: &mut SourceNoise, from: &SourceNoise) {
    into.count = into.count.saturating_add(from.count);
    into.total_ns = into.total_ns.saturating_add(from.total_ns);
    add_rows(&mut into.rows, &from.rows);
}

/// Adds `b` (a CPU of a later run starting `offset_ns` after the first run) into `a`.
fn add_cpu(a: &mut CpuNoise, b: &CpuNoise, offset_ns: i64) {
    a.noise_ns = a.noise_ns.saturating_add(b.noise_ns);
    a.noise_count = a.noise_count.saturating_add(b.noise_count);
    a.loops = a.loops.saturating_add(b.loops);
    if b.max_single_ns > a.max_single_ns {
        a.max_single_ns = b.max_single_ns;
        a.max_single_at_ns = offset_ns.saturating_add(b.max_single_at_ns);
        a.max_single_source = b.max_single_source.clone();
    }
    a.windows.extend_from_slice(&b.windows);
    a.window_steal_ns.extend_from_slice(&b.window_steal_ns);
    let (x, y) = (&mut a.by_source, &b.by_source);
    add_source(&mut x.hw, &y.hw);
    add_source(&mut x.nmi, &y.nmi);
    add_source(&mut x.irq, &y.irq);
    add_source(&mut x.softirq, &y.softirq);
    add_source(&mut x.thread, &y.thread);
    add_source(&mut x.unaccounted, &y.unaccounted);
    add_source(&mut x.unclassified, &y.unclassified);
}

/// Merges noise results (name, result) of the same settings, in the order given.
pub fn merge(results: &[(String, NoiseReport)]) -> Result<NoiseReport, MeasureError> {
    let Some((first_name, first)) = results.first() else {
        return Err(MeasureError::Input("merge: no noise result given".into()));
    };
    let key = settings_key(first);
    let mut out = first.clone();
    let mut offset = first.elapsed_ns;
    for (name, r) in &results[1..] {
        if r.kind != KIND {
            return Err(MeasureError::Input(format!(
                "merge: {name} is a '{}' result, {first_name} a noise result",
                r.kind
            )));
        }
        for ((k, x), (_, y)) in key.iter().zip(settings_key(r)) {
            if *x != y {
                return Err(MeasureError::Input(format!(
                    "merge: {k} differs ({x} in {first_name}, {y} in {name}): the runs measured different things"
                )));
            }
        }
        for c in &r.cpus {
            match out.cpus.iter_mut().find(|o| o.cpu == c.cpu) {
                Some(o) => add_cpu(o, c, offset),
                None => out.cpus.push(c.clone()),
            }
        }
        out.elapsed_ns = out.elapsed_ns.saturating_add(r.elapsed_ns);
        out.interrupted |= r.interrupted;
        out.classification.lost_events = out
            .classification
            .lost_events
            .saturating_add(r.classification.lost_events);
        out.notes.extend(r.notes.iter().cloned());
        offset = offset.saturating_add(r.elapsed_ns);
    }
    out.notes.dedup();
    let measured = out.elapsed_ns.max(1) as f64;
    for c in &mut out.cpus {
        c.noise_pct = (100_000.0 * c.noise_ns as f64 / measured).round() / 1000.0;
    }
    out.settings.duration_ns = out.elapsed_ns;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> NoiseReport {
        let text = include_str!("../../tests/fixtures/noise_report.json");
        serde_json::from_str(text).expect("fixture")
    }

    #[test]
    fn two_halves_add_up() {
        let a = report();
        let mut b = report();
        b.cpus[0].max_single_ns = a.cpus[0].max_single_ns + 1;
        b.cpus[0].max_single_at_ns = 5;
        let m = merge(&[("a".into(), a.clone()), ("b".into(), b.clone())]).unwrap();
        let (ca, cb, cm) = (&a.cpus[0], &b.cpus[0], &m.cpus[0]);
        assert_eq!(cm.noise_ns, ca.noise_ns + cb.noise_ns);
        assert_eq!(cm.noise_count, ca.noise_count + cb.noise_count);
        assert_eq!(cm.windows.len(), ca.windows.len() + cb.windows.len());
        assert_eq!(cm.max_single_ns, cb.max_single_ns);
        assert_eq!(
            cm.max_single_at_ns,
            a.elapsed_ns + 5,
            "placed in the merged run"
        );
        assert_eq!(m.elapsed_ns, a.elapsed_ns + b.elapsed_ns);
        // The sources still add up to the noise, and the share is the pooled one.
        let s = &cm.by_source;
        let sum: i64 = [
            &s.hw,
            &s.nmi,
            &s.irq,
            &s.softirq,
            &s.thread,
            &s.unaccounted,
            &s.unclassified,
        ]
        .iter()
        .map(|x| x.total_ns)
        .sum();
        assert_eq!(sum, cm.noise_ns);
        let pct = 100.0 * cm.noise_ns as f64 / m.elapsed_ns as f64;
        assert!(
            (cm.noise_pct - pct).abs() < 0.001,
            "{} vs {pct}",
            cm.noise_pct
        );
        let rows: u64 = s.thread.rows.iter().map(|r| r.count).sum();
        let want: u64 = [ca, cb]
            .iter()
            .flat_map(|c| c.by_source.thread.rows.iter())
            .map(|r| r.count)
            .sum();
        assert_eq!(rows, want);
    }

    #[test]
    fn different_settings_are_refused() {
        let a = report();
        let mut b = report();
        b.settings.threshold_ns += 1;
        let e = merge(&[("a.json".into(), a), ("b.json".into(), b)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("threshold_ns differs") && e.contains("b.json"),
            "{e}"
        );
    }
}
