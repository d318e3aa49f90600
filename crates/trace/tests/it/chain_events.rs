//! `--chain` on a real event recording: the SystemView recording of FreeRTOS V11.2 where
//! the peripheral interrupt "Periph" releases the "Handler" task
//! (validation/freertos/traces/systemview/isr.SVDat), measured from the interrupt's
//! entry through the task's release and switch-in to its block, and set against the
//! harness's own instruction-exact event log of the same run (isr-events.csv).
//!
//! The expected figures come from that log, not from latscope: each interrupt's start to
//! the handler task's next release, switch-in and finish. The recorder stamps each
//! instant a few instructions away from the harness's call boundary (the SystemView
//! proof, `systemview_real.rs`, bounds that by 250 cycles), so figures agree within it.

use latscope_core::summary::nan;
use latscope_trace::chain::{measure, parse_chain, Sources};
use latscope_trace::import::{events, Options};
use std::path::PathBuf;

const HZ: f64 = 84_000_000.0;
/// Cycles between a harness boundary and the recorder's timestamp, each side.
const TOL_CYCLES: f64 = 2.0 * 250.0;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../validation/freertos/traces/systemview")
}

fn ns(cycles: i64) -> f64 {
    cycles as f64 * 1e9 / HZ
}

/// Per interrupt (ground truth): cycles from its start to the handler task's next
/// release, switch-in and finish, each the first such row after the previous one in the
/// log's order (the log lists a release made inside the handler after the handler's
/// start even where the harness stamped it a few cycles earlier: relative times may be
/// negative).
fn truth() -> Vec<[i64; 3]> {
    let text = std::fs::read_to_string(dir().join("isr-events.csv")).unwrap();
    let rows: Vec<(i64, String, String)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split(',');
            (
                f.next().unwrap().parse().unwrap(),
                f.next().unwrap().to_string(),
                f.next().unwrap_or("").to_string(),
            )
        })
        .collect();
    let next = |from: usize, ev: &str| {
        (from..rows.len()).find(|&k| rows[k].1 == ev && rows[k].2 == "Handler")
    };
    (0..rows.len())
        .filter(|&i| rows[i].1 == "isr_start" && rows[i].2 == "Periph")
        .filter_map(|i| {
            let r = next(i + 1, "release")?;
            let s = next(r + 1, "switch_in")?;
            let f = next(s + 1, "finish")?;
            let c = rows[i].0;
            Some([rows[r].0 - c, rows[s].0 - c, rows[f].0 - c])
        })
        .collect()
}

#[test]
fn interrupt_to_task_chain_matches_the_ground_truth() {
    let tr = events::open(&dir().join("isr.SVDat"), &Options::default()).unwrap();
    let cap = tr.to_capture();
    let src = Sources {
        cap: &cap,
        events: Some(&tr),
        from: None,
        to: None,
        worst: 5,
        bins: 20,
    };
    let spec = parse_chain("Periph:enter->Handler:ready->Handler:switch->Handler:block").unwrap();
    let r = measure(&spec, &src).unwrap();
    let t = truth();
    assert!(t.len() > 200, "{} interrupts in the log", t.len());
    assert_eq!(r.count as usize, t.len());
    assert_eq!(r.unmatched, 0);
    let tol = ns(TOL_CYCLES as i64);
    let max_of = |k: usize| ns(*t.iter().map(|x| &x[k]).max().unwrap());
    let min_of = |k: usize| ns(*t.iter().map(|x| &x[k]).min().unwrap());
    let total = (nan(r.total.max_ns), nan(r.total.min_ns));
    assert!(
        (total.0 - max_of(2)).abs() <= tol,
        "{total:?} vs {}",
        max_of(2)
    );
    assert!(
        (total.1 - min_of(2)).abs() <= tol,
        "{total:?} vs {}",
        min_of(2)
    );
    // hops: enter->switch (the release inside the handler is between, stamped where the
    // recorder and the harness differ most) and switch->block
    let hops = [
        (
            t.iter().map(|x| x[1]).max().unwrap(),
            nan(r.links[0].summary.max_ns) + nan(r.links[1].summary.max_ns),
            nan(r.links[0].summary.min_ns) + nan(r.links[1].summary.min_ns),
            t.iter().map(|x| x[1]).min().unwrap(),
        ),
        (
            t.iter().map(|x| x[2] - x[1]).max().unwrap(),
            nan(r.links[2].summary.max_ns),
            nan(r.links[2].summary.min_ns),
            t.iter().map(|x| x[2] - x[1]).min().unwrap(),
        ),
    ];
    for (k, (tmax, gmax, gmin, tmin)) in hops.into_iter().enumerate() {
        // the max of a sum of hops is at most the sum of their maxima
        assert!(gmax + tol >= ns(tmax), "hop {k}: {gmax} vs {}", ns(tmax));
        assert!(gmin - tol <= ns(tmin), "hop {k}: {gmin} vs {}", ns(tmin));
    }
    assert!(
        (nan(r.links[2].summary.max_ns) - ns(hops[1].0)).abs() <= tol,
        "switch->block"
    );
    for l in &r.links {
        assert_eq!(l.summary.count, r.count);
    }
    // the interrupt's start to the switch-in, as a chain of its own
    let es = measure(&parse_chain("Periph:enter->Handler:switch").unwrap(), &src).unwrap();
    for (got, want) in [
        (nan(es.total.max_ns), ns(hops[0].0)),
        (nan(es.total.min_ns), ns(hops[0].3)),
    ] {
        assert!((got - want).abs() <= tol, "enter->switch: {got} vs {want}");
    }
    // the same chain through the task's channel edges (rise = runs again, fall = stops)
    // can only be as long or shorter at its start hop and ends no later than the block
    let edges = parse_chain("Periph:rise->Handler:rise->Handler:fall").unwrap();
    let e = measure(&edges, &src).unwrap();
    assert_eq!(e.count, r.count);
    assert!(nan(e.total.max_ns) <= nan(r.total.max_ns) + 1e-9);
}

#[test]
fn event_steps_name_the_actor_and_kind_clearly() {
    let tr = events::open(&dir().join("isr.SVDat"), &Options::default()).unwrap();
    let cap = tr.to_capture();
    let src = Sources {
        cap: &cap,
        events: Some(&tr),
        from: None,
        to: None,
        worst: 5,
        bins: 20,
    };
    let e = measure(&parse_chain("Periph:enter->Nobody:switch").unwrap(), &src)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no actor 'Nobody'") && e.contains("Handler"),
        "{e}"
    );
    let e = measure(&parse_chain("Handler:enter->Handler:switch").unwrap(), &src)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'Handler' is a task") && e.contains("enter"),
        "{e}"
    );
    let e = measure(&parse_chain("Periph:switch->Handler:switch").unwrap(), &src)
        .unwrap_err()
        .to_string();
    assert!(e.contains("'Periph' is an interrupt handler"), "{e}");
}
