//! Transmit devices: a writer thread that busy-waits for FIFO room or suspends until the
//! FIFO-empty flag, on hand-checked list-scan timelines (zero scheduler costs, so every
//! instant below follows from the item time, the FIFO depth and the tick alone).

use crate::common;
use common::*;
use latscope_core::Picos;
use latscope_sim::*;

/// Tick 1 ms; writer `w` (first in the run queue) prints `items` items per job and has no
/// other work; worker `x` runs `work` after it. Device: `tau` per item, FIFO of 4.
fn cfg(items: u32, tau: Picos, work: Picos, wait: WaitMode) -> SimConfig {
    let mut w = task("w", 1, ms(1), Picos::ZERO);
    w.deadline = ms(10);
    SimConfig {
        resources: vec![],
        lock_costs: Default::default(),
        tick_period: ms(1),
        tick_hz: None,
        irq_entry: Picos::ZERO,
        kernel: Kernel::ListScan(ListScanKernel {
            check_cost: Picos::ZERO,
            insert_cost: vec![Picos::ZERO],
            switch_cost: Picos::ZERO,
        }),
        tasks: vec![w, task("x", 1, ms(1), work)],
        interrupts: vec![],
        tickless: None,
        devices: vec![SimDevice {
            name: "uart".into(),
            item_time: tau,
            capacity: 4,
        }],
        outputs: vec![SimOutput {
            task: 0,
            device: 0,
            items,
            put_cost: Picos::ZERO,
            wait,
        }],
    }
}

fn resp(r: &SimReport, name: &str) -> Option<f64> {
    r.tasks
        .iter()
        .find(|t| t.name == name)
        .and_then(|t| t.max_response_ns)
}

/// 8 items, 5 fit at once (4 in the FIFO, one on the line): the busy-waiting writer keeps
/// the CPU until the 8th is in, at 3 x 100 us; the worker starts only then.
#[test]
fn spinning_writer_keeps_the_cpu() {
    let (s, r) = run(cfg(8, us(100), us(500), WaitMode::Spin), ms(3));
    assert_eq!(resp(&r, "w"), Some(300_000.0));
    assert_eq!(resp(&r, "x"), Some(800_000.0));
    assert_eq!(pulses(&s, "w")[0], (0, us(300).0));
    let d = &s.device_stats()[0];
    assert_eq!((d.items, d.spins, d.spin_ps), (24, 9, us(900).0));
    assert_eq!((d.suspensions, d.resumes, d.flag_clear_scans), (0, 0, 0));
    let ls = r.list_scan.unwrap();
    assert_eq!((ls.late_runs, ls.overruns), (0, 0));
}

/// The same output with a suspending writer: 5 items at 0, then off the CPU (the worker
/// starts at once); the 1 ms status check finds the FIFO empty (since 400 us) and puts the
/// writer back, it writes the last 3 and completes. Its 1 ms release is skipped.
#[test]
fn suspending_writer_leaves_the_cpu() {
    let (s, r) = run(cfg(8, us(100), us(500), WaitMode::Suspend), ms(2) + us(1));
    assert_eq!(resp(&r, "x"), Some(500_000.0));
    assert_eq!(resp(&r, "w"), Some(1_000_000.0));
    let d = &s.device_stats()[0];
    assert_eq!(d.items, 8 + 5);
    assert_eq!((d.suspensions, d.resumes, d.flag_clear_scans), (2, 1, 0));
    assert_eq!((d.spins, d.spin_ps), (0, 0));
    assert_eq!(r.list_scan.unwrap().overruns, 1);
}

/// A slow line: 5 items of 300 us leave the FIFO empty at 1.2 ms, so the 1 ms check finds
/// the flag clear (the writer misses that cycle) and the 2 ms one resumes it; the
/// scheduler itself keeps its period.
#[test]
fn flag_clear_at_a_check_skips_the_writer() {
    let (s, r) = run(cfg(8, us(300), us(500), WaitMode::Suspend), ms(2) + us(1));
    let d = &s.device_stats()[0];
    assert_eq!((d.suspensions, d.resumes, d.flag_clear_scans), (1, 1, 1));
    assert_eq!(resp(&r, "w"), Some(2_000_000.0));
    let ls = r.list_scan.unwrap();
    assert_eq!((ls.scheduler_runs, ls.late_runs), (3, 0));
    assert_eq!(ls.delay.max_ns, Some(0.0));
    // Busy-waiting instead holds the CPU for 3 x 300 us and pushes the worker, and with
    // it the 1 ms scheduler run, back to 1.4 ms.
    let (_, r) = run(cfg(8, us(300), us(500), WaitMode::Spin), ms(2));
    assert_eq!(resp(&r, "x"), Some(1_400_000.0));
    assert_eq!(r.list_scan.unwrap().delay.max_ns, Some(400_000.0));
}

#[test]
fn outputs_are_validated() {
    let mut c = cfg(8, us(100), us(500), WaitMode::Spin);
    c.outputs[0].device = 3;
    assert!(c.validate().is_err());
    let mut c = cfg(0, us(100), us(500), WaitMode::Spin);
    assert!(c.validate().is_err());
    c = cfg(8, Picos::ZERO, us(500), WaitMode::Spin);
    assert!(c.validate().is_err());
    c = cfg(8, Picos(i64::MAX / 2), us(500), WaitMode::Spin);
    assert!(c.validate().is_err());
    c = cfg(8, us(100), us(500), WaitMode::Spin);
    c.outputs.push(c.outputs[0].clone());
    assert!(c.validate().is_err());
    let mut t = free(vec![task("w", 1, ms(1), us(1))]);
    t.devices = c.devices.clone();
    t.outputs = vec![c.outputs[0].clone()];
    assert!(t.validate().is_err(), "tick kernel");
}
