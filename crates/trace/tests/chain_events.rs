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

fn ns(cycles: u64) -> f64 {
    cycles as f64 * 1e9 / HZ
}

/// Per interrupt (ground truth): cycles from its start to the handler task's next
/// release, switch-in and finish.
fn truth() -> Vec<[u64; 3]> {
    let text = std::fs::read_to_string(dir().join("isr-events.csv")).unwrap();
    let rows: Vec<(u64, String, String)> = text
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
    let next = |from: u64, ev: &str| {
        rows.iter()
            .find(|(c, e, t)| *c >= from && e == ev && t == "Handler")
            .map(|r| r.0)
    };
    rows.iter()
        .filter(|(_, e, t)| e == "isr_start" && t == "Periph")
        .filter_map(|(c, _, _)| {
            let r = next(*c, "release")?;
            let s = next(r, "switch_in")?;
            let f = next(s, "finish")?;
            Some([r - c, s - c, f - c])
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
    let spec =
        parse_chain("Periph:enter->Handler:ready->Handler:switch->Handler:block").unwrap();
    let r = measure(&spec, &src).unwrap();
    let t = truth();
    assert!(t.len() > 200, "{} interrupts in the log", t.len());
    assert_eq!(r.count as usize, t.len());
    assert_eq!(r.unmatched, 0);
    let tol = ns(TOL_CYCLES as u64);
    let max_of = |k: usize| ns(t.iter().map(|x| x[k]).max().unwrap());
    let min_of = |k: usize| ns(t.iter().map(|x| x[k]).min().unwrap());
    let total = (nan(r.total.max_ns), nan(r.total.min_ns));
    assert!((total.0 - max_of(2)).abs() <= tol, "{total:?} vs {}", max_of(2));
    assert!((total.1 - min_of(2)).abs() <= tol, "{total:?} vs {}", min_of(2));
    // hop by hop: enter->ready, ready->switch, switch->block; cumulative in the log
    let hop = |k: usize| -> Vec<u64> {
        t.iter()
            .map(|x| x[k] - if k == 0 { 0 } else { x[k - 1] })
            .collect()
    };
    for k in 0..3 {
        let h = hop(k);
        let mx = ns(*h.iter().max().unwrap());
        let got = nan(r.links[k].summary.max_ns);
        assert!((got - mx).abs() <= tol, "hop {k}: {got} vs {mx}");
        assert_eq!(r.links[k].summary.count, r.count);
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
    assert!(e.contains("'Handler' is a task") && e.contains("enter"), "{e}");
    let e = measure(&parse_chain("Periph:switch->Handler:switch").unwrap(), &src)
        .unwrap_err()
        .to_string();
    assert!(e.contains("'Periph' is an interrupt handler"), "{e}");
}
