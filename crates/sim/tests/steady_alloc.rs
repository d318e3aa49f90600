//! The event loop allocates nothing in steady state (issue 29 item 3).
//!
//! Every array the engine needs is sized when the simulation is built; what grows does
//! so a bounded number of times: a task's response list turns into a histogram after
//! 128 jobs, the histogram grows when a response larger than any before comes, the
//! switch statistics get a row per new number of levels walked, the peak ticks keep at
//! most 100 instants. After one hyperperiod of Table 1 every such value has been seen
//! (all tasks are released together at 0 and again at 41.4 s), so a second hyperperiod
//! must run without a single call into the allocator. The outputs that grow with the
//! simulated time by design (the per-tick series, the virtual capture) are off, as in
//! `latscope simulate --json`; the percentiles are on, as there.
//!
//! The count is per thread, so the test harness's own threads do not disturb it.
//!
//! This file stays its own test binary, outside `tests/it`: it installs a counting global
//! allocator, which would otherwise sit under every integration test of the crate.

use latscope_core::Picos;
use latscope_model::System;
use latscope_sim::*;
use std::alloc::{GlobalAlloc, Layout, System as SysAlloc};
use std::cell::Cell;

struct Counting;

thread_local! {
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the thread's slot may already be gone while it exits.
    let _ = CALLS.try_with(|c| c.set(c.get() + 1));
}

fn calls() -> u64 {
    CALLS.with(|c| c.get())
}

// SAFETY: every method forwards to the system allocator unchanged; counting touches
// only a thread-local `Cell` (const-initialised, no destructor, no allocation).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        bump();
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { SysAlloc.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        bump();
        // SAFETY: as above.
        unsafe { SysAlloc.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        bump();
        // SAFETY: as above.
        unsafe { SysAlloc.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        bump();
        // SAFETY: as above.
        unsafe { SysAlloc.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn table1() -> SimConfig {
    let text = include_str!("data/table1.toml");
    let sys = System::from_toml_str(text, "table1.toml").expect("valid system");
    from_system(&sys, &FromSystemOptions::default()).expect("convertible")
}

#[test]
fn a_second_hyperperiod_of_table1_allocates_nothing() {
    let cfg = table1();
    let h = cfg.hyperperiod().expect("periodic set").0;
    let opts = SimOptions {
        percentiles: true,
        ..Default::default()
    };
    let mut sim = Sim::new(cfg, opts).expect("valid configuration");
    let before_setup = calls();
    sim.run_until(Picos(h + 1));
    let warm = sim.events();
    // The counter sees this thread's calls: the warm-up allocated (lists, histograms),
    // which shows the counting works at all.
    assert!(
        calls() > before_setup,
        "the warm-up allocated nothing: counter broken?"
    );
    let c0 = calls();
    sim.run_until(Picos(2 * h + 1));
    let c1 = calls();
    let steady = sim.events() - warm;
    assert!(
        steady > 100_000,
        "only {steady} events in the second hyperperiod"
    );
    assert_eq!(c1 - c0, 0, "{} allocator calls in {steady} events", c1 - c0);
}
