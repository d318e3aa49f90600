//! One test per semantic rule of docs/simulator.md, each on a small timeline whose
//! expected values were worked out by hand (the derivation is in the comments).

use crate::common;
use common::*;
use latscope_core::Picos;
use latscope_sim::*;

fn t(r: &SimReport, name: &str) -> TaskRep {
    let x = r.tasks.iter().find(|t| t.name == name).expect("task");
    TaskRep {
        jobs: x.jobs,
        max: x.max_response_ns.unwrap_or(-1.0),
        min: x.response.min_ns.unwrap_or(-1.0),
        misses: x.deadline_misses,
        preempt: x.preemptions,
    }
}
#[derive(Debug)]
struct TaskRep {
    jobs: u64,
    max: f64,
    min: f64,
    misses: u64,
    preempt: u64,
}

/// Rule: a task whose wake time equals the tick count is released in that tick, and a
/// release that falls between ticks is noticed at the next tick.
#[test]
fn release_in_the_tick_that_equals_the_wake_time() {
    // A: 5 ms period, 1 ms WCET. Jobs at 0, 5, 10, 15 ms, each runs at once.
    // B: 2.5 ms period (not a whole number of 1 ms ticks), 0.2 ms WCET, lower priority.
    //    Arrivals 0, 2.5, 5, 7.5 ms are released at ticks 0(start), 3, 5, 8 ms.
    //    Job 2 (arrival 5 ms) waits for A: runs 6.0..6.2 ms -> response 1.2 ms.
    //    Job 1 (arrival 2.5) released at 3 ms -> done 3.2 -> response 0.7 ms.
    let a = task("A", 2, ms(5), ms(1));
    let b = task("B", 1, Picos(2_500_000_000), us(200));
    let (s, r) = run(free(vec![a, b]), ms(10));
    assert_eq!(
        pulses(&s, "A"),
        vec![(0, ms(1).0), (ms(5).0, ms(6).0)],
        "A runs from the tick at its wake time"
    );
    assert_eq!(
        pulses(&s, "B"),
        vec![
            (ms(1).0, us(1200).0),
            (ms(3).0, us(3200).0),
            (ms(6).0, us(6200).0),
            (ms(8).0, us(8200).0)
        ]
    );
    let rb = t(&r, "B");
    assert_eq!(rb.jobs, 4);
    assert_eq!(rb.max, 1_200_000.0);
    assert_eq!(rb.min, 700_000.0);
    assert_eq!(t(&r, "A").max, 1_000_000.0);
    assert_eq!(t(&r, "A").misses + rb.misses, 0);
}

/// Rule: the tick handler costs L + base + per-released * n, from the cost table.
#[test]
fn tick_cost_grows_with_released_tasks() {
    let mut cfg = tick_cfg(
        vec![task("A", 2, ms(5), us(100)), task("B", 1, ms(10), us(100))],
        Picos(1_500_000),
        Picos(5_907_000),
        Picos::ZERO,
        Picos::ZERO,
    );
    cfg.irq_entry = Picos::from_cycles(12, 84_000_000); // 142857 ps
    let (s, r) = run(cfg, ms(11));
    let rows = s.series();
    assert_eq!(rows.len(), 10, "ticks at 1..=10 ms");
    let l = 142_857;
    for row in rows {
        let k = row.time.0 / ms(1).0;
        let rel = (k % 5 == 0) as i64 + (k % 10 == 0) as i64;
        assert_eq!(row.released as i64, rel, "tick {k}");
        assert_eq!(row.duration.0, l + 1_500_000 + 5_907_000 * rel, "tick {k}");
    }
    assert_eq!(r.tick.count, 10);
    assert_eq!(
        r.tick.max_ns,
        Some((l + 1_500_000 + 2 * 5_907_000) as f64 / 1000.0)
    );
    assert_eq!(r.tick.peaks_at_ns, vec![10_000_000.0]);
}

/// Rules: the switch is deferred (PendSV after the tick), its cost follows the levels
/// walked from uxTopReadyPriority, and time slicing happens only among equal priorities.
#[test]
fn deferred_switch_costs_levels_actually_scanned() {
    // A prio 3 (5 ms, 100 us), B prio 1 (5 ms, 2 ms). tick 10 us, switch 2 us + 1 us/level.
    // 0: A runs 0..100; yield -> walk 3,2,1 (2 empty levels) -> 4 us -> B at 104.
    // B: 104..1000, tick 1000..1010, 1010..2000, tick 2000..2010, 2010..2124 -> R_B = 2124.
    // B yields: top is 1, walk 1,0 (1 level) -> 3 us -> idle.
    // 5 ms: tick 5000..5010 releases A and B; A (3) > idle -> PendSV 0 levels, 2 us;
    // A runs 5012..5112 -> R_A = 112 us.
    let cfg = tick_cfg(
        vec![task("A", 3, ms(5), us(100)), task("B", 1, ms(5), ms(2))],
        us(10),
        Picos::ZERO,
        us(2),
        us(1),
    );
    let (s, r) = run(cfg, ms(5) + us(150));
    assert_eq!(t(&r, "A").max, 112_000.0);
    assert_eq!(t(&r, "A").min, 100_000.0);
    assert_eq!(t(&r, "B").max, 2_124_000.0);
    let sw = pulses(&s, "switch");
    assert_eq!(
        sw,
        vec![
            (us(100).0, us(104).0),
            (us(2124).0, us(2127).0),
            (us(5010).0, us(5012).0),
            (us(5112).0, us(5116).0)
        ]
    );
    let lv: Vec<(u32, u64, f64)> = r
        .switches
        .by_levels
        .iter()
        .map(|g| (g.levels.unwrap(), g.count, g.max_ns))
        .collect();
    // loop iterations as the FreeRTOS overheads paper Table 4 counts them: max(1, empty levels walked past)
    assert_eq!(lv, vec![(1, 2, 3000.0), (2, 2, 4000.0)]);
    let pair = |a: &str, b: &str| {
        r.switches
            .by_pair
            .iter()
            .find(|g| g.from.as_deref() == Some(a) && g.to.as_deref() == Some(b))
            .map(|g| (g.count, g.max_ns))
    };
    assert_eq!(pair("A", "B"), Some((2, 4000.0)));
    assert_eq!(pair("B", "idle"), Some((1, 3000.0)));
    assert_eq!(pair("idle", "A"), Some((1, 2000.0)));
    assert_eq!(switch_distances(&r), vec![(-3, 1), (1, 1), (2, 2)]);
    // B is interrupted by ticks but never switched out with work left.
    assert_eq!(t(&r, "B").preempt, 0);
}

/// Port-optimised selection: every switch costs the same.
#[test]
fn optimised_selection_is_constant() {
    let mut cfg = tick_cfg(
        vec![task("A", 3, ms(5), us(100)), task("B", 1, ms(5), ms(2))],
        us(10),
        Picos::ZERO,
        us(2),
        us(1),
    );
    if let Kernel::Tick(k) = &mut cfg.kernel {
        k.switch_cost = SwitchCost::Constant(us(2));
    }
    let (_, r) = run(cfg, ms(5) + us(150));
    assert_eq!(r.switches.count, 4);
    assert_eq!(r.switches.min_ns, Some(2000.0));
    assert_eq!(r.switches.max_ns, Some(2000.0));
    assert_eq!(t(&r, "B").max, 2_122_000.0); // 2 us less than the generic walk
}

/// Rule: a higher-priority release preempts a running lower-priority task through the
/// tick then the deferred switch; the preempted task counts a preemption.
#[test]
fn release_preempts_through_tick_then_switch() {
    // L (prio 1): 3 ms WCET, period 10 ms. H (prio 2): period 2 ms, offset 2 ms, 100 us.
    // tick 10 us, switch 5 us. H released at the 2 ms tick: tick 2000..2010,
    // PendSV 2010..2015, H 2015..2115 -> R_H = 115 us.
    let mut h = task("H", 2, ms(10), us(100));
    h.offset = ms(2);
    let cfg = tick_cfg(
        vec![task("L", 1, ms(10), ms(3)), h],
        us(10),
        Picos::ZERO,
        us(5),
        Picos::ZERO,
    );
    let (s, r) = run(cfg, ms(5));
    assert_eq!(t(&r, "H").max, 115_000.0);
    assert_eq!(t(&r, "L").preempt, 1);
    assert!(pulses(&s, "H").contains(&(us(2015).0, us(2115).0)));
    // L: 0..1000, [tick] 1010..2000, [tick+switch] ... resumes after H's switch-out.
    let l = pulses(&s, "L");
    assert_eq!(l[0], (0, ms(1).0));
    assert_eq!(l[2].0, us(2120).0); // H yields at 2115, PendSV back to L 2115..2120
}

/// Rule: interrupts preempt tasks and lower interrupts; the tick masks kernel-level
/// interrupts but not those above the kernel; same-instant arrivals: higher priority first.
#[test]
fn interrupt_priorities_and_masking() {
    let mut cfg = tick_cfg(
        vec![task("A", 1, ms(10), us(50))],
        us(10),
        Picos::ZERO,
        Picos::ZERO,
        Picos::ZERO,
    );
    cfg.interrupts = vec![
        // arrives with the 1 ms tick: runs first (higher than the tick) 1000..1020
        SimIrq {
            sections: vec![],
            name: "X".into(),
            priority: 5,
            above_kernel: false,
            wcet: us(20),
            arrival: IrqArrival::Periodic {
                period: ms(10),
                offset: ms(1),
            },
        },
        // above the kernel: preempts the tick at 2003
        SimIrq {
            sections: vec![],
            name: "Y".into(),
            priority: 9,
            above_kernel: true,
            wcet: us(3),
            arrival: IrqArrival::Periodic {
                period: ms(10),
                offset: us(2003),
            },
        },
        // kernel level: held off by the tick's masking until the tick ends
        SimIrq {
            sections: vec![],
            name: "Z".into(),
            priority: 8,
            above_kernel: false,
            wcet: us(3),
            arrival: IrqArrival::Periodic {
                period: ms(10),
                offset: us(2004),
            },
        },
    ];
    let (s, r) = run(cfg, ms(3));
    assert_eq!(pulses(&s, "X"), vec![(us(1000).0, us(1020).0)]);
    let tick = pulses(&s, "tick");
    assert_eq!(tick[0], (us(1020).0, us(1030).0));
    // tick 2000..2003, Y 2003..2006, tick 2006..2013, Z 2013..2016
    assert_eq!(tick[1], (us(2000).0, us(2003).0));
    assert_eq!(tick[2], (us(2006).0, us(2013).0));
    assert_eq!(pulses(&s, "Y"), vec![(us(2003).0, us(2006).0)]);
    assert_eq!(pulses(&s, "Z"), vec![(us(2013).0, us(2016).0)]);
    assert_eq!(r.interrupts[1].max_latency_ns, Some(0.0));
    assert_eq!(r.interrupts[2].max_latency_ns, Some(9000.0));
    assert_eq!(r.tick.max_latency_ns, Some(20_000.0));
}

/// Rule: an interrupts-disabled section delays the tick (and kernel-level interrupts).
#[test]
fn critical_section_delays_tick() {
    let mut a = task("A", 1, ms(10), ms(3));
    a.critical = Picos(1_500_000_000);
    let (s, r) = run(
        tick_cfg(vec![a], us(10), Picos::ZERO, Picos::ZERO, Picos::ZERO),
        ms(4),
    );
    assert_eq!(pulses(&s, "tick")[0], (us(1500).0, us(1510).0));
    assert_eq!(r.tick.max_latency_ns, Some(500_000.0));
    assert_eq!(s.series()[0].time, ms(1));
    // A: 3 ms + ticks at 1.5, 2, 3 ms (10 us each) -> done at 3.03 ms
    assert_eq!(t(&r, "A").max, 3_030_000.0);
}

/// Rule: with time slicing, equal-priority ready tasks share the CPU tick by tick.
#[test]
fn time_slicing_among_equal_priorities() {
    let tasks = vec![
        task("A", 1, ms(10), us(2500)),
        task("B", 1, ms(10), us(2500)),
    ];
    let (s, r) = run(free(tasks.clone()), ms(6));
    assert_eq!(
        pulses(&s, "A"),
        vec![(0, ms(1).0), (ms(2).0, ms(3).0), (ms(4).0, us(4500).0)]
    );
    assert_eq!(t(&r, "A").max, 4_500_000.0);
    assert_eq!(t(&r, "B").max, 5_000_000.0);
    assert_eq!(t(&r, "A").preempt, 2);
    assert_eq!(t(&r, "B").preempt, 2);
    let mut cfg = free(tasks);
    if let Kernel::Tick(k) = &mut cfg.kernel {
        k.time_slicing = false;
    }
    let (s, r) = run(cfg, ms(6));
    assert_eq!(pulses(&s, "A"), vec![(0, us(2500).0)]);
    assert_eq!(t(&r, "B").max, 5_000_000.0);
    assert_eq!(t(&r, "A").preempt, 0);
}

/// Same-instant rule: a job that completes exactly at a tick completes first; its yield
/// (PendSV) and the tick are then both pending and PendSV (lower exception number) runs
/// first.
#[test]
fn completion_then_pendsv_then_tick_at_same_instant() {
    let cfg = tick_cfg(
        vec![task("A", 2, ms(5), ms(1)), task("B", 1, ms(5), us(500))],
        us(10),
        Picos::ZERO,
        us(2),
        Picos::ZERO,
    );
    let (s, r) = run(cfg, ms(3));
    assert_eq!(pulses(&s, "switch")[0], (ms(1).0, us(1002).0));
    assert_eq!(pulses(&s, "tick")[0], (us(1002).0, us(1012).0));
    assert_eq!(t(&r, "A").max, 1_000_000.0); // completes at the tick instant, not after
    assert_eq!(t(&r, "B").max, 1_512_000.0);
}

/// Rule: deadline misses are counted with the absolute deadline of the first one.
#[test]
fn deadline_misses_and_first_miss() {
    let mut b = task("B", 1, ms(4), ms(2));
    b.deadline = ms(2);
    // A (prio 2, 1 ms every 4 ms) delays B by 1 ms -> R_B = 3 ms > D = 2 ms each job.
    let (_, r) = run(free(vec![task("A", 2, ms(4), ms(1)), b]), us(10_500));
    let rb = r.tasks.iter().find(|t| t.name == "B").unwrap();
    assert_eq!(rb.jobs, 2);
    assert_eq!(
        rb.deadline_misses, 3,
        "two completed late + one unfinished past its deadline"
    );
    assert_eq!(rb.first_miss_ns, Some(2_000_000.0));
}

/// Rule (the pico]OS tickless report): tickless idle sleeps until the safety margin before the next timed
/// wake-up; an asynchronous interrupt pays the exit latency before its handler and task.
#[test]
fn tickless_sleep_and_interrupt_wakeup() {
    // A: 10 ms period, 100 us. S: released by IRQ "button" (4.5 ms), 50 us.
    // tick 5 us, switch 3.5 us, exit latency 800 us, extra switch after wake 3.1 us.
    // 0..100 A; PendSV 100..103.5 -> idle: next wake tick 10, 10 ticks away -> sleep,
    // wake timer at 9 ms. IRQ at 4.5 ms: wake 4.5..5.3 ms, handler 5.3..5.305,
    // PendSV 3.5 + 3.1 us -> S 5.3116..5.3616: R_S = 861.6 us. Idle again: sleep; timer
    // 9 ms, wake 9..9.8 ms, tick at 10 ms (5 us) releases A, PendSV 6.6 us, A 100 us:
    // R_A = 111.6 us. Only one tick handler runs in [0, 10.5 ms].
    let mut s_task = task("S", 3, ms(100), us(50));
    s_task.activation = Activation::Interrupt(0);
    let mut cfg = tick_cfg(
        vec![task("A", 2, ms(10), us(100)), s_task],
        us(5),
        Picos::ZERO,
        Picos(3_500_000),
        Picos::ZERO,
    );
    cfg.interrupts = vec![SimIrq {
        sections: vec![],
        name: "button".into(),
        priority: 1,
        above_kernel: false,
        wcet: us(5),
        arrival: IrqArrival::Periodic {
            period: ms(100),
            offset: us(4500),
        },
    }];
    cfg.tickless = Some(Tickless {
        min_idle_ticks: 2,
        margin_ticks: 1,
        state: "stop".into(),
        exit_latency: us(800),
        switch_extra: Picos(3_100_000),
    });
    let (s, r) = run(cfg.clone(), us(10_500));
    assert_eq!(t(&r, "S").max, 861_600.0);
    assert_eq!(t(&r, "A").max, 111_600.0);
    assert_eq!(r.tick.count, 1);
    assert_eq!(r.sleep.interrupt_wakeups, 1);
    assert_eq!(r.sleep.timer_wakeups, 1);
    // sleeps: after A (0.1 ms), after S (5.36 ms), after A again (10.11 ms); not after
    // the 9.8 ms wake-up (the next release is 1 tick away, below the minimum of 2).
    assert_eq!(r.sleep.sleeps, 3);
    assert_eq!(
        pulses(&s, "wake"),
        vec![(us(4500).0, us(5300).0), (ms(9).0, us(9800).0)]
    );
    assert_eq!(pulses(&s, "sleep")[0], (Picos(103_500_000).0, us(4500).0));
    // Without tickless the same interrupt is served at once: 5 + 3.5 + 50 us.
    cfg.tickless = None;
    let (_, r) = run(cfg, us(10_500));
    assert_eq!(t(&r, "S").max, 58_500.0);
    assert_eq!(r.tick.count, 10);
    assert_eq!(r.sleep.sleeps, 0);
}

fn list_scan(tasks: Vec<SimTask>) -> SimConfig {
    SimConfig {
        resources: vec![],
        lock_costs: Default::default(),
        devices: vec![],
        outputs: vec![],
        tick_period: ms(8),
        tick_hz: None,
        irq_entry: Picos::ZERO,
        kernel: Kernel::ListScan(ListScanKernel {
            check_cost: Picos(1_300_000),
            insert_cost: (0..64).map(|k| Picos(600_000 + 200_000 * k)).collect(),
            switch_cost: Picos(1_250_000),
        }),
        tasks,
        interrupts: vec![],
        tickless: None,
    }
}

/// KernelPerf test case 0, 9, 10, 11: scheduler run = 1.3 us per installed thread +
/// (0.6 + 0.2 * position) us per thread put on the run queue.
#[test]
fn list_scan_scheduler_costs() {
    let th = |k: usize, prio: u32, per: i64| task(&format!("t{k}"), prio, ms(per), us(300));
    // case 0: 16 threads every tick, same priority: 16*1.3 + sum(0.6+0.2k) = 54.4 us
    let (_, r) = run(list_scan((0..16).map(|k| th(k, 1, 8)).collect()), ms(80));
    assert_eq!(r.tick.count, 10);
    assert_eq!(
        (r.tick.min_ns, r.tick.max_ns),
        (Some(54_400.0), Some(54_400.0))
    );
    assert!(r
        .tasks
        .iter()
        .all(|t| t.jobs == 10 && t.deadline_misses == 0));
    assert_eq!(r.list_scan.as_ref().unwrap().late_runs, 0);
    // case 9: 8 of 16 at half rate -> alternate 54.4 and 20.8 + 4.8 + 5.6 = 31.2 us
    let (s, _) = run(
        list_scan(
            (0..16)
                .map(|k| th(k, 1, if k < 8 { 8 } else { 16 }))
                .collect(),
        ),
        ms(40),
    );
    let d: Vec<i64> = s.series().iter().map(|r| r.duration.0).collect();
    assert_eq!(
        d,
        vec![54_400_000, 31_200_000, 54_400_000, 31_200_000, 54_400_000]
    );
    // case 10: 8 threads: 10.4 + 4.8 + 5.6 = 20.8 us
    let (_, r) = run(list_scan((0..8).map(|k| th(k, 1, 8)).collect()), ms(16));
    assert_eq!(r.tick.max_ns, Some(20_800.0));
    // case 11: rising priorities: every insertion at the head: 20.8 + 16*0.6 = 30.4 us,
    // and thread 0 (lowest) runs last.
    let (s, r) = run(
        list_scan((0..16).map(|k| th(k, k as u32 + 1, 8)).collect()),
        ms(8),
    );
    assert_eq!(r.tick.max_ns, Some(30_400.0));
    assert!(pulses(&s, "t0")[0].0 > pulses(&s, "t15")[0].0);
}

/// KernelPerf test cases 1 and 2: when threads need more than a tick the next scheduler
/// run is pushed later, ticks are lost, and everything keeps running (graceful).
#[test]
fn list_scan_overload_degrades_gracefully() {
    let th = |k: usize, c: i64| task(&format!("t{k}"), 1, ms(8), us(c));
    let (_, ok) = run(list_scan((0..16).map(|k| th(k, 400)).collect()), ms(800));
    let (s, r) = run(list_scan((0..16).map(|k| th(k, 600)).collect()), ms(800));
    let ls = r.list_scan.as_ref().unwrap();
    assert!(ls.late_runs > 0 && ls.lost_ticks > 0, "{ls:?}");
    assert!(ls.scheduler_runs < ok.list_scan.as_ref().unwrap().scheduler_runs);
    // every thread still runs, just less often
    assert!(
        r.tasks.iter().all(|t| t.jobs > 40),
        "{:?}",
        r.tasks.iter().map(|t| t.jobs).collect::<Vec<_>>()
    );
    // scheduler runs are spaced more than one tick apart
    let rows = s.series();
    assert!(rows
        .windows(2)
        .all(|w| w[1].time.0 - w[0].time.0 >= ms(8).0));
    assert!(rows.windows(2).any(|w| w[1].time.0 - w[0].time.0 > ms(8).0));
    // heavier overload pushes further (test case 2)
    let (_, r2) = run(list_scan((0..16).map(|k| th(k, 900)).collect()), ms(800));
    assert!(r2.list_scan.as_ref().unwrap().scheduler_runs < ls.scheduler_runs);
}

/// Rule: same inputs and seed give identical results; the seed matters for random
/// execution times.
#[test]
fn seeded_determinism() {
    let mut a = task("A", 2, ms(5), ms(1));
    a.exec = ExecTime::Uniform {
        bcet: us(200),
        wcet: ms(1),
    };
    let mut b = task("B", 1, ms(7), ms(2));
    b.exec = ExecTime::Empirical(vec![us(500), us(1500), ms(2)]);
    let cfg = tick_cfg(vec![a, b], us(2), us(5), us(1), us(1));
    let go = |seed| {
        let mut s = Sim::new(
            cfg.clone(),
            SimOptions {
                seed,
                percentiles: true,
                ..Default::default()
            },
        )
        .unwrap();
        s.run_until(ms(500));
        serde_json::to_string(&s.report()).unwrap()
    };
    assert_eq!(go(7), go(7));
    assert_ne!(go(7), go(8));
}

/// Rule: a tick that is still pending when the next one comes is lost (one pending bit);
/// an interrupt arriving while its request is pending is merged.
#[test]
fn lost_ticks_and_merged_interrupts() {
    let mut a = task("A", 1, ms(10), ms(5));
    a.critical = Picos(2_450_000_000); // ticks at 1 and 2 ms collide while masked
    let mut cfg = free(vec![a]);
    cfg.interrupts = vec![SimIrq {
        sections: vec![],
        name: "Q".into(),
        priority: 1,
        above_kernel: false,
        wcet: us(1),
        arrival: IrqArrival::Periodic {
            period: ms(1),
            offset: us(500),
        },
    }];
    let (_, r) = run(cfg, ms(4));
    assert_eq!(r.tick.lost, 1);
    assert_eq!(r.interrupts[0].lost, 1, "0.5 ms pending, 1.5 ms merged");
    assert_eq!(r.interrupts[0].max_latency_ns, Some(1_950_000.0));
}

#[test]
fn bad_configs_are_errors() {
    let mut a = task("A", 1, ms(0), ms(1));
    assert!(Sim::new(free(vec![a.clone()]), SimOptions::default()).is_err());
    a.period = ms(5);
    a.exec = ExecTime::Uniform {
        bcet: ms(2),
        wcet: ms(1),
    };
    let e = Sim::new(free(vec![a]), SimOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("'A'"), "{e}");
}

/// Same-instant pairs not covered above: job completion + interrupt + PendSV + tick at
/// one instant; a job start with an interrupt pending at that instant.
#[test]
fn same_instant_completion_interrupt_pendsv_tick() {
    // A (2): 1 ms at 0; B (1): 0.5 ms. X arrives at 1 ms (10 us). Switch 2 us, tick 0.
    // At 1 ms: A completes (response exactly 1 ms), then X and the tick become pending
    // with A's PendSV: X 1000..1010, PendSV 1010..1012, tick (0 us), B 1012..1512.
    let mut cfg = tick_cfg(
        vec![task("A", 2, ms(10), ms(1)), task("B", 1, ms(10), us(500))],
        Picos::ZERO,
        Picos::ZERO,
        us(2),
        Picos::ZERO,
    );
    cfg.interrupts = vec![SimIrq {
        sections: vec![],
        name: "X".into(),
        priority: 1,
        above_kernel: false,
        wcet: us(10),
        arrival: IrqArrival::Periodic {
            period: ms(10),
            offset: ms(1),
        },
    }];
    let (s, r) = run(cfg, ms(3));
    assert_eq!(t(&r, "A").max, 1_000_000.0);
    assert_eq!(pulses(&s, "X"), vec![(ms(1).0, us(1010).0)]);
    assert_eq!(pulses(&s, "switch")[0], (us(1010).0, us(1012).0));
    assert_eq!(pulses(&s, "B"), vec![(us(1012).0, us(1512).0)]);

    // A job with a critical section starts at 0 while X is pending at 0: X runs first.
    let mut a = task("A", 1, ms(10), ms(1));
    a.critical = us(500);
    let mut cfg = free(vec![a]);
    cfg.interrupts = vec![SimIrq {
        sections: vec![],
        name: "X".into(),
        priority: 1,
        above_kernel: false,
        wcet: us(10),
        arrival: IrqArrival::Periodic {
            period: ms(10),
            offset: Picos::ZERO,
        },
    }];
    let (s, r) = run(cfg, ms(2));
    assert_eq!(pulses(&s, "X"), vec![(0, us(10).0)]);
    assert_eq!(pulses(&s, "A")[0].0, us(10).0);
    assert_eq!(r.interrupts[0].max_latency_ns, Some(0.0));
}

/// Tasks released by the same tick enter their ready list in the order they blocked.
#[test]
fn same_tick_releases_in_blocking_order() {
    // B and C (both 1): B 0..1 ms blocks first, C 1..2 ms; both due at 5 ms: B first.
    let (s, _) = run(
        free(vec![task("B", 1, ms(5), ms(1)), task("C", 1, ms(5), ms(1))]),
        ms(8),
    );
    assert_eq!(pulses(&s, "B"), vec![(0, ms(1).0), (ms(5).0, ms(6).0)]);
    assert_eq!(
        pulses(&s, "C"),
        vec![(ms(1).0, ms(2).0), (ms(6).0, ms(7).0)]
    );
    // Declared the other way round, C blocks first and runs first at 5 ms.
    let (s, _) = run(
        free(vec![task("C", 1, ms(5), ms(1)), task("B", 1, ms(5), ms(1))]),
        ms(8),
    );
    assert_eq!(pulses(&s, "C")[1], (ms(5).0, ms(6).0));
}

/// Tickless: the wake-up timer and an interrupt at the same instant give one (timer)
/// wake-up; an arrival at the instant the idle task is entered prevents the sleep.
#[test]
fn same_instant_tickless_pairs() {
    let mk = |irq_at: Picos, exit: Picos| {
        let mut cfg = tick_cfg(
            vec![task("A", 2, ms(10), us(100))],
            Picos::ZERO,
            Picos::ZERO,
            Picos(3_500_000),
            Picos::ZERO,
        );
        cfg.interrupts = vec![SimIrq {
            sections: vec![],
            name: "X".into(),
            priority: 1,
            above_kernel: false,
            wcet: us(5),
            arrival: IrqArrival::Periodic {
                period: ms(100),
                offset: irq_at,
            },
        }];
        cfg.tickless = Some(Tickless {
            min_idle_ticks: 2,
            margin_ticks: 1,
            state: "stop".into(),
            exit_latency: exit,
            switch_extra: Picos::ZERO,
        });
        cfg
    };
    // timer at 9 ms (next wake 10 ms, margin 1) and X at 9 ms
    let (s, r) = run(mk(ms(9), us(800)), us(9_900));
    assert_eq!((r.sleep.timer_wakeups, r.sleep.interrupt_wakeups), (1, 0));
    assert_eq!(pulses(&s, "X"), vec![(us(9800).0, us(9805).0)]);
    // X at 103.5 us, the instant A's switch to idle ends: X is served at once, no sleep
    // before it (latency 0), the CPU sleeps after it.
    let (_, r) = run(mk(Picos(103_500_000), us(800)), ms(5));
    assert_eq!(r.interrupts[0].max_latency_ns, Some(0.0));
    assert_eq!((r.sleep.sleeps, r.sleep.interrupt_wakeups), (1, 0));
    // A wake-up that ends exactly at a tick instant (9 ms + 1 ms): that tick fires and
    // releases A on time: response = switch 3.5 us + 100 us.
    let (_, r) = run(mk(ms(50), ms(1)), us(10_500));
    assert_eq!(t(&r, "A").max, 103_500.0);
    assert_eq!(r.tick.count, 1);
}

/// List-scan: a thread that ends exactly at the tick instant ends first; the queue is
/// empty, so the scheduler runs at that instant (no lateness, no lost tick).
#[test]
fn list_scan_thread_end_at_tick_instant() {
    let cfg = SimConfig {
        resources: vec![],
        lock_costs: Default::default(),
        devices: vec![],
        outputs: vec![],
        tick_period: ms(8),
        tick_hz: None,
        irq_entry: Picos::ZERO,
        kernel: Kernel::ListScan(ListScanKernel {
            check_cost: Picos::ZERO,
            insert_cost: vec![Picos::ZERO],
            switch_cost: Picos::ZERO,
        }),
        tasks: vec![task("T", 1, ms(8), ms(8))],
        interrupts: vec![],
        tickless: None,
    };
    let (s, r) = run(cfg, ms(24) + Picos(1));
    assert_eq!(t(&r, "T").jobs, 3);
    assert_eq!(t(&r, "T").max, 8_000_000.0);
    let ls = r.list_scan.unwrap();
    assert_eq!((ls.late_runs, ls.lost_ticks), (0, 0));
    assert_eq!(s.series().len(), 4);
}

/// The idle task yields at once to a ready priority-0 task (configIDLE_SHOULD_YIELD).
#[test]
fn idle_yields_to_priority_zero_tasks() {
    // H (1): 0..1 ms; Z (0) released at 0 too. After H, PendSV -> Z (next after H's
    // level walk; idle is behind Z in the level-0 list) runs 2 ms with ticks rotating it
    // with idle: idle yields immediately each time, so Z finishes at 3 ms plus switches.
    let cfg = tick_cfg(
        vec![task("H", 1, ms(10), ms(1)), task("Z", 0, ms(10), ms(2))],
        Picos::ZERO,
        Picos::ZERO,
        us(1),
        Picos::ZERO,
    );
    let (s, r) = run(cfg, ms(5));
    // H ends at 1 ms, its PendSV (1000..1001) runs before the 1 ms tick: H->Z. The tick
    // (1001) time-slices level 0: Z->idle 1001..1002, idle yields at once: idle->Z
    // 1002..1003. The same two switches at 2 ms and 3 ms. Z runs 1003..2000 (997 us),
    // 2002..3000 (998 us), 3002..3007 (5 us): R_Z = 3.007 ms. Idle never runs a slice.
    assert_eq!(t(&r, "Z").max, 3_007_000.0);
    let idle = pulses(&s, "idle");
    assert!(idle.iter().all(|(a, _)| *a >= us(3007).0), "{idle:?}");
}

/// Interrupts nest by priority: a higher one preempts a running handler, an equal or
/// lower one waits for it.
#[test]
fn interrupts_nest_by_priority() {
    let irq = |name: &str, prio: u32, wcet: i64, at: i64| SimIrq {
        sections: vec![],
        name: name.into(),
        priority: prio,
        above_kernel: false,
        wcet: us(wcet),
        arrival: IrqArrival::Periodic {
            period: ms(10),
            offset: us(at),
        },
    };
    let mut cfg = free(vec![task("A", 1, ms(10), ms(2))]);
    // LOW 100..: preempted by HIGH at 105 (5 us), then resumes; PEER (same priority as
    // LOW) arriving at 110 waits until LOW ends at 125, then runs 125..128.
    cfg.interrupts = vec![
        irq("LOW", 1, 20, 100),
        irq("HIGH", 5, 5, 105),
        irq("PEER", 1, 3, 110),
    ];
    let (s, r) = run(cfg, ms(3));
    assert_eq!(
        pulses(&s, "LOW"),
        vec![(us(100).0, us(105).0), (us(110).0, us(125).0)]
    );
    assert_eq!(pulses(&s, "HIGH"), vec![(us(105).0, us(110).0)]);
    assert_eq!(pulses(&s, "PEER"), vec![(us(125).0, us(128).0)]);
    assert_eq!(r.interrupts[0].response.max_ns, Some(25_000.0));
    assert_eq!(r.interrupts[2].max_latency_ns, Some(15_000.0));
    // the task was interrupted for 28 us: done at 2.028 ms; its channel is low while
    // the handlers run (zero-cost ticks leave no edge)
    assert_eq!(
        pulses(&s, "A"),
        vec![(0, us(100).0), (us(128).0, us(2028).0)]
    );
    assert_eq!(t(&r, "A").max, 2_028_000.0);
}

/// Rule (tickless idle): after a wake-up, the tick count is stepped over the ticks slept
/// through and, when a delayed task's wake time has come, that tick is processed at once
/// (vTaskStepTick + the pending tick), so the due task does not wait for the next tick.
#[test]
fn tickless_wakeup_releases_due_tasks_at_once() {
    // A (prio 1): 10 ms, 100 us. tick 5 us, switch 3 us, no entry latency, exit latency
    // 200 us, margin 0, no extra switch cost.
    let mk = |irq: Option<Picos>| {
        let mut cfg = tick_cfg(
            vec![task("A", 1, ms(10), us(100))],
            us(5),
            Picos::ZERO,
            us(3),
            Picos::ZERO,
        );
        cfg.tickless = Some(Tickless {
            min_idle_ticks: 2,
            margin_ticks: 0,
            state: "deep".into(),
            exit_latency: us(200),
            switch_extra: Picos::ZERO,
        });
        if let Some(at) = irq {
            cfg.interrupts = vec![SimIrq {
                sections: vec![],
                name: "X".into(),
                priority: 1,
                above_kernel: false,
                wcet: us(10),
                arrival: IrqArrival::Periodic {
                    period: ms(100),
                    offset: at,
                },
            }];
        }
        cfg
    };
    // Timer wake-up. 0..100 A (job 0, R = 100 us); PendSV 100..103 -> idle; next wake
    // tick 10 is 10 ticks away (>= 2) -> sleep, wake timer at (10 - 0) * 1 ms = 10 ms.
    // Wake 10..10.2 ms; the last tick instant at or before 10.2 ms is 10, A's wake
    // tick: the count is stepped to 9 and tick 10 runs at once, 10.2..10.205 ms (its
    // latency 200 us), releasing A; PendSV 10.205..10.208; A 10.208..10.308:
    // R = 308 us (it was 1.108 ms when A waited for the tick at 11 ms).
    let (s, r) = run(mk(None), us(10_500));
    assert_eq!(t(&r, "A").jobs, 2);
    assert_eq!(t(&r, "A").max, 308_000.0);
    assert_eq!(r.tick.count, 1);
    assert_eq!(r.tick.max_latency_ns, Some(200_000.0));
    assert_eq!(r.sleep.timer_wakeups, 1);
    assert_eq!(pulses(&s, "wake"), vec![(ms(10).0, us(10_200).0)]);
    assert_eq!(pulses(&s, "tick"), vec![(us(10_200).0, us(10_205).0)]);
    assert_eq!(pulses(&s, "A")[1], (us(10_208).0, us(10_308).0));
    // The tick grid goes on: the next ticks are at 11, 12 ms (A then sleeps again at
    // 10.311 ms: next wake tick 20 is 10 ticks away, so no tick runs before 10.5 ms).
    assert_eq!(r.sleep.sleeps, 2);

    // Interrupt wake-up that ends after A's wake tick: X at 9.9 ms wakes the CPU (the
    // timer at 10 ms is cancelled), wake 9.9..10.1 ms; X's handler runs first
    // (10.1..10.11), then tick 10 (10.11..10.115) releases A, PendSV ..10.118, A
    // 10.118..10.218: R = 218 us.
    let (s, r) = run(mk(Some(us(9_900))), us(10_500));
    assert_eq!((r.sleep.timer_wakeups, r.sleep.interrupt_wakeups), (0, 1));
    assert_eq!(t(&r, "A").max, 218_000.0);
    assert_eq!(pulses(&s, "X"), vec![(us(10_100).0, us(10_110).0)]);
    assert_eq!(pulses(&s, "tick"), vec![(us(10_110).0, us(10_115).0)]);

    // Interrupt wake-up that ends before A's wake tick: no tick is processed at the
    // wake-up (X at 5 ms, wake 5..5.2 ms, handler 5.2..5.21); the count steps to 5, A's
    // wake tick is 5 ticks away, so the CPU sleeps again at 5.21 ms until the timer at
    // 10 ms, and A's job runs as in the first case.
    let (s, r) = run(mk(Some(ms(5))), us(10_500));
    assert_eq!(pulses(&s, "tick"), vec![(us(10_200).0, us(10_205).0)]);
    assert_eq!(r.sleep.sleeps, 3);
    assert_eq!(t(&r, "A").max, 308_000.0);
}

/// Priorities are any u32: ready lists exist only for the priorities present, while the
/// generic selection still walks (and is charged for) every priority number in between,
/// as FreeRTOS's loop does.
#[test]
fn sparse_priorities_walk_every_number() {
    // A prio 5000 (5 ms, 100 us), B prio 4990 (5 ms, 1 ms). tick 10 us, switch
    // 2 us + 1 ns per level (the table's last entry is used beyond its length, so give
    // it all 5002 entries).
    let mut cfg = tick_cfg(
        vec![
            task("A", 5000, ms(5), us(100)),
            task("B", 4990, ms(5), us(500)),
        ],
        us(10),
        Picos::ZERO,
        us(2),
        Picos::ZERO,
    );
    if let Kernel::Tick(k) = &mut cfg.kernel {
        k.switch_cost =
            SwitchCost::PerLevel((0..5002).map(|k| Picos(2_000_000 + 1_000 * k)).collect());
    }
    // 0..100 A; yield: walk 5000 -> 4990, 10 numbers: 2.01 us -> B 102.01..602.01 us;
    // yield: walk 4990 -> 0 (4990 numbers): 2 + 4.99 = 6.99 us -> idle.
    let (_, r) = run(cfg.clone(), ms(1));
    assert_eq!(t(&r, "B").max, 602_010.0);
    let lv: Vec<(u32, f64)> = r
        .switches
        .by_levels
        .iter()
        .map(|g| (g.levels.unwrap(), g.max_ns))
        .collect();
    assert_eq!(lv, vec![(10, 2010.0), (4990, 6990.0)]);
    let d: Vec<i64> = switch_distances(&r).iter().map(|g| g.0).collect();
    assert_eq!(d, vec![10, 4990]);
    // Port-optimised selection with priorities up to u32::MAX: constant cost.
    cfg.tasks[0].priority = u32::MAX;
    cfg.tasks[1].priority = 1 << 31;
    if let Kernel::Tick(k) = &mut cfg.kernel {
        k.switch_cost = SwitchCost::Constant(us(2));
    }
    let (_, r) = run(cfg, ms(1));
    assert_eq!(t(&r, "B").max, 602_000.0);
    assert_eq!(r.switches.count, 2);
}
