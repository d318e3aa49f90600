//! Times the engine alone on a system file (used by bench/simulate next to the CLI run):
//! `cargo run --release -p latscope-sim --example simbench -- FILE DURATION [REPEAT]
//! [--percentiles]`. `--percentiles` keeps the response-time histograms as `latscope
//! simulate` does (without it only min/mean/max, as in the figures before issue 29).
//! Prints one line of `key=value` pairs: events, wall and thread CPU time (best of
//! REPEAT), events/s and jobs/s (from the wall time).

use latscope_core::time::parse_duration;
use latscope_model::System;
use latscope_sim::{from_system, FromSystemOptions, Sim, SimOptions};

/// CPU time of this thread (not counting time spent waiting for a CPU on a busy host).
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: simbench FILE DURATION [REPEAT] [--percentiles]".into());
    }
    let sys = System::from_path(std::path::Path::new(&args[1]))?;
    let cfg = from_system(&sys, &FromSystemOptions::default())?;
    let until = parse_duration(&args[2])?;
    let repeat: u32 = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(5);
    let opts = SimOptions {
        percentiles: args.get(4).is_some_and(|a| a == "--percentiles"),
        ..SimOptions::default()
    };
    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    let mut events = 0;
    let mut jobs = 0;
    for _ in 0..repeat.max(1) {
        let t0 = std::time::Instant::now();
        let c0 = thread_cpu_s();
        let mut sim = Sim::new(cfg.clone(), opts.clone())?;
        sim.run_until(until);
        let r = sim.report();
        let w = t0.elapsed().as_secs_f64();
        best = best.min(w);
        best_cpu = best_cpu.min(thread_cpu_s() - c0);
        events = r.events;
        jobs = r.tasks.iter().map(|t| t.jobs).sum::<u64>();
    }
    println!(
        "simulated_s={} events={} jobs={} wall_ms={:.3} cpu_ms={:.3} events_per_s={:.0} jobs_per_s={:.0}",
        until.as_secs_f64(),
        events,
        jobs,
        best * 1e3,
        best_cpu * 1e3,
        events as f64 / best,
        jobs as f64 / best
    );
    Ok(())
}
