//! The simulator legs of the scenarios, in one place so they share the conversion from
//! the system description and the way a simulation's JSON is attached.

use crate::{run_err, Options, Outcome, Row, ScenarioError};
use latscope_core::Picos;
use latscope_model::system::System;
use latscope_sim::{from_system, FromSystemOptions, Sim, SimOptions};

/// Runs `sys` for `duration` and returns the finished simulation.
fn simulate(
    scenario: &'static str,
    sys: &System,
    fo: &FromSystemOptions,
    duration: Picos,
    capture: bool,
) -> Result<Sim, ScenarioError> {
    let cfg = from_system(sys, fo).map_err(run_err(scenario))?;
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            seed: 1,
            series: true,
            capture,
            percentiles: true,
            source: sys.source.clone(),
        },
    )
    .map_err(run_err(scenario))?;
    sim.run_until(duration);
    Ok(sim)
}

/// The simulation's JSON with a tick-duration series thinned to at most `points` buckets
/// (each bucket keeps its largest duration, so no peak is lost) under `tick_series`.
fn report_json(
    scenario: &'static str,
    sim: &Sim,
    points: usize,
) -> Result<serde_json::Value, ScenarioError> {
    let mut v = serde_json::to_value(sim.report()).map_err(run_err(scenario))?;
    let rows = sim.series();
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        let span = (last.time.0 - first.time.0).max(1) as f64;
        let mut buckets: Vec<Option<(i64, i64, u32)>> = vec![None; points.max(1)];
        for r in rows {
            let i = (((r.time.0 - first.time.0) as f64 / span) * (points - 1) as f64) as usize;
            let b = &mut buckets[i.min(points - 1)];
            if b.is_none_or(|(_, d, _)| r.duration.0 > d) {
                *b = Some((r.time.0, r.duration.0, r.released));
            }
        }
        let kept: Vec<_> = buckets.into_iter().flatten().collect();
        v["tick_series"] = serde_json::json!({
            "note": "largest tick duration per time bucket",
            "time_ns": kept.iter().map(|k| k.0 as f64 / 1e3).collect::<Vec<_>>(),
            "duration_ns": kept.iter().map(|k| k.1 as f64 / 1e3).collect::<Vec<_>>(),
            "released": kept.iter().map(|k| k.2).collect::<Vec<_>>(),
        });
    }
    Ok(v)
}

fn write_series(
    scenario: &'static str,
    sim: &Sim,
    opts: &Options,
    out: &mut Outcome,
    file: &str,
) -> Result<(), ScenarioError> {
    if opts.out_dir.is_some() {
        let mut buf = Vec::new();
        sim.write_series_csv(&mut buf).map_err(run_err(scenario))?;
        out.artifact(opts, scenario, file, &buf)?;
    }
    Ok(())
}

fn write_vcd(
    scenario: &'static str,
    sim: &Sim,
    opts: &Options,
    out: &mut Outcome,
    file: &str,
) -> Result<(), ScenarioError> {
    if opts.out_dir.is_some() {
        let mut buf = Vec::new();
        latscope_trace::export::vcd::write(&sim.capture(), &mut buf).map_err(run_err(scenario))?;
        out.artifact(opts, scenario, file, &buf)?;
    }
    Ok(())
}

pub(crate) fn freertos_tick(
    sys: &System,
    opts: &Options,
    out: &mut Outcome,
) -> Result<(), ScenarioError> {
    const S: &str = "freertos-tick";
    // 250 s as in the paper's Figure 4: cheap enough to run in full even with --quick.
    let dur = Picos::from_ms(250_000);
    let sim = simulate(S, sys, &FromSystemOptions::default(), dur, true)?;
    let rep = sim.report();
    let n = sys.tasks.len() as u32;
    let all: Vec<f64> = sim
        .series()
        .iter()
        .filter(|r| r.released == n && r.time.0 > 0)
        .map(|r| r.time.as_secs_f64())
        .collect();
    let peak = rep.tick.max_ns.unwrap_or(f64::NAN) / 1e3;
    out.rows.push(
        Row::prediction("tick WCET in a 250 s simulation", 60.75, peak, "us", 0.02)
            .source("seed 001, section 7.1 and Figure 4")
            .method("largest simulated tick handler duration (L + C_tick)"),
    );
    out.rows.push(
        Row::prediction_abs(
            "ticks releasing all ten tasks in 250 s (Figure 4 peaks)",
            6.0,
            all.len() as f64,
            "peaks",
            0.0,
        )
        .source("seed 001, Figure 4 ('six execution peaks')")
        .method("simulated ticks with 10 releases, t > 0 (tasks start ready at t = 0)"),
    );
    let spacing = if all.len() >= 2 {
        (all[all.len() - 1] - all[0]) / (all.len() - 1) as f64
    } else {
        f64::NAN
    };
    out.rows.push(
        Row::prediction("spacing of the tick peaks", 41.4, spacing, "s", 0.001)
            .source("seed 001, Figure 4 (LCM of Table 1 periods: 41.4 s)")
            .method("mean distance between simulated ticks releasing all ten tasks"),
    );
    let peaks_at_max = sim
        .series()
        .iter()
        .filter(|r| r.time.0 > 0 && r.duration.as_ns_f64() / 1e3 >= peak - 1e-9)
        .all(|r| r.released == n);
    out.notes.push(format!(
        "Simulated 250 s: {} ticks, longest tick {:.3} us at t = {}; every tick of maximal duration releases all ten tasks: {}.",
        rep.tick.count,
        peak,
        all.iter().map(|t| format!("{t:.1} s")).collect::<Vec<_>>().join(", "),
        peaks_at_max
    ));
    write_series(S, &sim, opts, out, "tick-series.csv")?;
    out.results.push(report_json(S, &sim, 2000)?);
    traced_tick(sys, &sim, opts, out)
}

/// The same figures read off the simulation's virtual logic-analyzer capture by
/// `latscope trace`'s measurements, as an engineer would read a real capture: one set of
/// measurements serves real and simulated runs.
fn traced_tick(
    sys: &System,
    sim: &Sim,
    opts: &Options,
    out: &mut Outcome,
) -> Result<(), ScenarioError> {
    use latscope_trace::measure::{parse_busy, parse_pulse, run, Per, Settings};
    const S: &str = "freertos-tick";
    let cap = sim.capture();
    let reqs = vec![
        parse_pulse("tick").map_err(run_err(S))?,
        parse_busy("tick", &Per::Whole).map_err(run_err(S))?,
    ];
    let ms = run(&cap, &reqs, &Settings::default()).map_err(run_err(S))?;
    let pulse = &ms[0];
    out.rows.push(
        Row::prediction(
            "tick WCET read from the virtual capture (latscope trace)",
            60.75,
            pulse.max_ns / 1e3,
            "us",
            0.02,
        )
        .source("seed 001, section 7.1")
        .method("latscope trace --pulse tick on the simulated capture"),
    );
    out.rows.push(
        Row::prediction(
            "most frequent tick duration (mode)",
            1.5,
            pulse.mode_ns / 1e3,
            "us",
            0.15,
        )
        .source("seed 001, section 7.1 ('the most frequent value ... 1.5 us')")
        .method("latscope trace --pulse tick, mode (includes the 0.143 us entry L)"),
    );
    let n = sys.tasks.len();
    out.notes.push(format!(
        "latscope trace on the virtual capture: {} tick pulses, tick busy {:.3} % of the time, worst at {:.1} s; {} channels for {} tasks.",
        pulse.count,
        ms[1].busy_percent.as_ref().map(|b| b.overall).unwrap_or(f64::NAN),
        pulse.max_at_ns / 1e9,
        cap.channels.len(),
        n
    ));
    if opts.out_dir.is_some() {
        let mut buf = Vec::new();
        latscope_trace::export::native::write(&cap, &mut buf).map_err(run_err(S))?;
        out.artifact(opts, S, "capture.lscap", &buf)?;
    }
    let rep = latscope_trace::report::Report::new(&cap, "simulation", None, None, ms, Vec::new());
    out.results
        .push(serde_json::to_value(&rep).map_err(run_err(S))?);
    Ok(())
}

pub(crate) fn freertos_cs(
    sys: &System,
    opts: &Options,
    out: &mut Outcome,
) -> Result<(), ScenarioError> {
    const S: &str = "freertos-context-switch";
    let dur = Picos::from_ms(if opts.quick { 2_000 } else { 60_000 });
    let sim = simulate(
        S,
        sys,
        &FromSystemOptions::default(),
        dur,
        opts.out_dir.is_some(),
    )?;
    let rep = sim.report();
    let worst = rep
        .switches
        .by_pair
        .iter()
        .max_by(|a, b| a.max_ns.total_cmp(&b.max_ns));
    if let Some(w) = worst {
        let is_a_idle = w.from.as_deref() == Some("A")
            && w.to
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("idle"));
        out.rows.push(
            Row::prediction_abs(
                "the costliest switch is CS(A, IDLE) (1 = yes)",
                1.0,
                if is_a_idle { 1.0 } else { 0.0 },
                "yes=1",
                0.0,
            )
            .source("seed 001, section 6.2 and Table 4")
            .method("simulated switch census by (from, to)"),
        );
    }
    let pairs = rep.switches.by_pair.len();
    out.notes.push(format!(
        "Simulated {} s: {} context switches over {} distinct (from, to) pairs; the census by levels scanned and by priority distance is in the simulate result.",
        dur.as_secs_f64(),
        rep.switches.count,
        pairs
    ));
    write_vcd(S, &sim, opts, out, "capture.vcd")?;
    out.results.push(report_json(S, &sim, 500)?);
    Ok(())
}

/// Time from the event (tick or interrupt) that releases `task` to its start, taken as a
/// response-time statistic of the task minus its own execution time: the worst case
/// (`max_response_ns`) or the median.
fn release_to_start_us(
    rep: &latscope_sim::SimReport,
    sys: &System,
    task: &str,
    median: bool,
) -> f64 {
    let wcet = sys
        .tasks
        .iter()
        .find(|t| t.name == task)
        .map(|t| t.wcet.as_ns_f64())
        .unwrap_or(f64::NAN);
    rep.tasks
        .iter()
        .find(|t| t.name == task)
        .and_then(|t| {
            if median {
                t.response.p50_ns
            } else {
                t.max_response_ns
            }
        })
        .map(|r| (r - wcet) / 1e3)
        .unwrap_or(f64::NAN)
}

fn irq_to_task_us(rep: &latscope_sim::SimReport, sys: &System, task: &str) -> f64 {
    release_to_start_us(rep, sys, task, false)
}

fn typical_tick_to_task_us(rep: &latscope_sim::SimReport, sys: &System, task: &str) -> f64 {
    release_to_start_us(rep, sys, task, true)
}

fn max_response_us(rep: &latscope_sim::SimReport, task: &str) -> f64 {
    rep.tasks
        .iter()
        .find(|t| t.name == task)
        .and_then(|t| t.max_response_ns)
        .map(|r| r / 1e3)
        .unwrap_or(f64::NAN)
}

/// "Doesn't hurt timer operations much": within 1 % of the 807 us wake-up latency.
const TIMER_TOLERANCE_US: f64 = 8.07;

pub(crate) fn tickless(
    sys: &System,
    opts: &Options,
    out: &mut Outcome,
) -> Result<(), ScenarioError> {
    const S: &str = "tickless-idle";
    let dur = Picos::from_ms(if opts.quick { 3_000 } else { 30_000 });
    let running = simulate(
        S,
        sys,
        &FromSystemOptions {
            no_tickless: true,
            ..Default::default()
        },
        dur,
        false,
    )?;
    let sleeping = simulate(
        S,
        sys,
        &FromSystemOptions::default(),
        dur,
        opts.out_dir.is_some(),
    )?;
    let (r1, r2) = (running.report(), sleeping.report());
    let extra_timer = max_response_us(&r2, "app") - max_response_us(&r1, "app");
    out.rows.push(
        Row::prediction(
            "interrupt-to-task latency, tick running (simulated)",
            8.0,
            typical_tick_to_task_us(&r1, sys, "app"),
            "us",
            0.15,
        )
        .source("seed 000 ('a little more than 8 microseconds')")
        .method("simulation without tickless idle: median response of the timer task minus its WCET (SysTick + PendSV path)"),
    );
    out.rows.push(
        Row::prediction(
            "worst interrupt-to-task latency in tickless sleep (simulated)",
            807.0,
            irq_to_task_us(&r2, sys, "irq_task"),
            "us",
            0.05,
        )
        .source("seed 000 ('about 807 us')")
        .method("simulation with tickless idle: interrupts arrive while the CPU sleeps"),
    );
    out.rows.push(
        Row::prediction_abs(
            "timers on time in tickless mode (simulated, 1 = yes)",
            1.0,
            if extra_timer <= TIMER_TOLERANCE_US { 1.0 } else { 0.0 },
            "yes=1",
            0.0,
        )
        .source("seed 000 ('doesn't hurt timer operations much')")
        .method("worst response of the 150 ms timer task, tickless minus tick running, within 1 % of the 807 us wake-up"),
    );
    out.notes.push(format!(
        "Simulated {} s in tickless mode: {} sleeps, {} timer wake-ups, {} interrupt wake-ups; the timer task's worst response grew by {:.3} us.",
        dur.as_secs_f64(),
        r2.sleep.sleeps,
        r2.sleep.timer_wakeups,
        r2.sleep.interrupt_wakeups,
        extra_timer
    ));
    write_vcd(S, &sleeping, opts, out, "tickless.vcd")?;
    out.results.push(report_json(S, &running, 500)?);
    out.results.push(report_json(S, &sleeping, 500)?);
    Ok(())
}

pub(crate) fn k4perf(sys: &System, opts: &Options, out: &mut Outcome) -> Result<(), ScenarioError> {
    const S: &str = "k4perf";
    let dur = Picos::from_ms(if opts.quick { 1_000 } else { 10_000 });
    let fo = FromSystemOptions::default();
    let with_al = simulate(S, sys, &fo, dur, opts.out_dir.is_some())?;
    let mut quiet = sys.clone();
    quiet.tasks.retain(|t| t.name != "al");
    let without_al = simulate(S, &quiet, &fo, dur, false)?;
    let (a, b) = (with_al.report(), without_al.report());
    let la = irq_to_task_us(&a, sys, "ah");
    let lb = irq_to_task_us(&b, sys, "ah");
    out.rows.push(
        Row::prediction(
            "ah's worst activation latency, al looping / al absent (simulated)",
            1.0,
            la / lb,
            "ratio",
            0.01,
        )
        .source("seed 004 ('has no impact on the above measurements')")
        .method("simulated worst interrupt-to-ah latency with al, divided by the same without al"),
    );
    out.notes.push(format!(
        "Simulated {} s: worst interrupt-to-actor latency {:.3} us with the troublemaker, {:.3} us without: al has no impact, as the document found. The simulated latency is above the 2.25 us path because the simulator also charges a task switch after the handler and lets interrupts coincide with the tick (worst-case phasing); the path itself is the model rows above.",
        dur.as_secs_f64(),
        la,
        lb
    ));
    write_vcd(S, &with_al, opts, out, "k4perf.vcd")?;
    out.results.push(report_json(S, &with_al, 500)?);
    Ok(())
}

pub(crate) fn kernelperf(
    sys: &System,
    opts: &Options,
    out: &mut Outcome,
) -> Result<(), ScenarioError> {
    const S: &str = "kernelperf";
    let dur = Picos::from_ms(if opts.quick { 2_000 } else { 20_000 });
    let tc0 = simulate(
        S,
        sys,
        &FromSystemOptions::default(),
        dur,
        opts.out_dir.is_some(),
    )?;
    let r0 = tc0.report();
    out.rows.push(
        Row::prediction(
            "TC0: scheduler run per tick (simulated)",
            58.0,
            r0.tick.max_ns.unwrap_or(f64::NAN) / 1e3,
            "us",
            0.15,
        )
        .source("seed 003, test case 0")
        .method("list-scan simulation, longest scheduler run"),
    );
    // Test case 9: threads 8..15 at half the tick rate.
    let mut tc9 = sys.clone();
    for t in tc9.tasks.iter_mut().skip(8) {
        t.arrival = latscope_model::system::Arrival::Periodic(Picos::from_ms(16));
        t.deadline = Picos::from_ms(16);
    }
    let s9 = simulate(S, &tc9, &FromSystemOptions::default(), dur, false)?;
    out.rows.push(
        Row::prediction(
            "TC9: scheduler run when 8 of 16 are released (simulated)",
            32.0,
            s9.report().tick.min_ns.unwrap_or(f64::NAN) / 1e3,
            "us",
            0.15,
        )
        .source("seed 003, test case 9")
        .method("list-scan simulation, shortest scheduler run"),
    );
    // Test cases 1 and 2: the threads' loops grow until they need more than a tick.
    for (case, wcet_us) in [(1, 520), (2, 600)] {
        let mut over = sys.clone();
        for t in over.tasks.iter_mut() {
            t.wcet = Picos::from_us(wcet_us);
            t.bcet = t.wcet;
        }
        let s = simulate(S, &over, &FromSystemOptions::default(), dur, false)?;
        let r = s.report();
        let ls = r.list_scan.clone().unwrap_or_default();
        let jobs: Vec<u64> = r.tasks.iter().map(|t| t.jobs).collect();
        let (lo, hi) = (
            jobs.iter().copied().min().unwrap_or(0),
            jobs.iter().copied().max().unwrap_or(0),
        );
        let fair = hi > 0 && lo as f64 >= 0.9 * hi as f64;
        out.rows.push(
            Row::prediction_abs(
                &format!("TC{case}: every thread keeps running under overload (1 = yes)"),
                1.0,
                if fair { 1.0 } else { 0.0 },
                "yes=1",
                0.0,
            )
            .source(&format!("seed 003, test case {case} ('nothing breaks')"))
            .method("each of the 16 threads completes at least 90 % of the jobs of the busiest"),
        );
        let period_ms = dur.as_secs_f64() * 1e3 / ls.scheduler_runs.max(1) as f64;
        out.rows.push(
            Row::prediction_abs(
                &format!("TC{case}: scheduler pushed past the 8 ms tick (1 = yes)"),
                1.0,
                if ls.late_runs > 0 && period_ms > 8.0 {
                    1.0
                } else {
                    0.0
                },
                "yes=1",
                0.0,
            )
            .source(&format!("seed 003, test case {case}"))
            .method("late scheduler runs in the simulation"),
        );
        out.notes.push(format!(
            "Test case {case} (16 x {wcet_us} us of thread work per 8 ms tick): the scheduler ran every {period_ms:.2} ms on average, {} runs late, {} ticks lost, jobs per thread {lo}..{hi}.",
            ls.late_runs, ls.lost_ticks
        ));
    }
    write_vcd(S, &tc0, opts, out, "kernelperf-tc0.vcd")?;
    out.results.push(report_json(S, &tc0, 500)?);
    Ok(())
}
