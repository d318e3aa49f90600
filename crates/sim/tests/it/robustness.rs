//! Random configurations of every kind (tick kernel with interrupts, critical sections,
//! tickless idle, equal priorities; list-scan, overloads): the engine never panics or
//! stalls, the capture is valid (one channel high at a time), the CPU split covers the
//! whole duration, and the job counts are consistent.

use latscope_core::Picos;
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn us(x: i64) -> Picos {
    Picos::from_us(x)
}

fn random_cfg(rng: &mut ChaCha8Rng, k: usize) -> SimConfig {
    let n = rng.gen_range(1..=8);
    let list_scan = k % 5 == 4;
    let tick = us(if list_scan { 8000 } else { 1000 });
    let tasks: Vec<SimTask> = (0..n)
        .map(|i| {
            let period = if list_scan {
                Picos(tick.0 * rng.gen_range(1..=3))
            } else {
                us(rng.gen_range(500..=20_000))
            };
            let wcet = us(rng.gen_range(1..=period.0 / 1_000_000 / 2 + 1));
            SimTask {
                sections: vec![],
                name: format!("t{i}"),
                priority: rng.gen_range(0..=4),
                period,
                offset: us(rng.gen_range(0..=3000)),
                deadline: period,
                jitter: us(rng.gen_range(0..=200)),
                exec: match rng.gen_range(0..3) {
                    0 => ExecTime::Fixed(wcet),
                    1 => ExecTime::Uniform {
                        bcet: Picos(wcet.0 / 2),
                        wcet,
                    },
                    _ => ExecTime::Empirical(vec![wcet, Picos(wcet.0 / 3), Picos::ZERO]),
                },
                critical: us(rng.gen_range(0..=50)),
                activation: Activation::Periodic,
            }
        })
        .collect();
    let mut cfg = SimConfig {
        resources: vec![],
        lock_costs: Default::default(),
        devices: vec![],
        outputs: vec![],
        tick_period: tick,
        tick_hz: None,
        irq_entry: Picos(rng.gen_range(0..=200_000)),
        kernel: if list_scan {
            Kernel::ListScan(ListScanKernel {
                check_cost: us(1),
                insert_cost: (0..8).map(|p| Picos(600_000 + 200_000 * p)).collect(),
                switch_cost: Picos(1_250_000),
            })
        } else {
            Kernel::Tick(TickKernel {
                tick_cost: (0..=n as i64)
                    .map(|r| Picos(1_500_000 + 5_907_000 * r))
                    .collect(),
                switch_cost: if k.is_multiple_of(2) {
                    SwitchCost::PerLevel((0..6).map(|l| Picos(1_500_000 + 700_000 * l)).collect())
                } else {
                    SwitchCost::Constant(Picos(1_500_000))
                },
                time_slicing: !k.is_multiple_of(3),
                edf: false,
            })
        },
        tasks,
        interrupts: vec![],
        tickless: None,
    };
    if !list_scan {
        for q in 0..rng.gen_range(0..=3) {
            cfg.interrupts.push(SimIrq {
                sections: vec![],
                name: format!("irq{q}"),
                priority: rng.gen_range(0..=3),
                above_kernel: rng.gen_bool(0.3),
                wcet: us(rng.gen_range(0..=40)),
                arrival: if rng.gen_bool(0.5) {
                    IrqArrival::Periodic {
                        period: us(rng.gen_range(100..=10_000)),
                        offset: us(rng.gen_range(0..=1000)),
                    }
                } else {
                    IrqArrival::Sporadic {
                        min: us(200),
                        max: us(rng.gen_range(200..=20_000)),
                        offset: us(rng.gen_range(0..=1000)),
                    }
                },
            });
        }
        // an interrupt-released task now and then
        if !cfg.interrupts.is_empty() && !cfg.interrupts[0].above_kernel && rng.gen_bool(0.5) {
            cfg.tasks[0].activation = Activation::Interrupt(0);
        }
        if rng.gen_bool(0.4) {
            cfg.tickless = Some(Tickless {
                min_idle_ticks: rng.gen_range(2..=4),
                margin_ticks: rng.gen_range(0..=2),
                state: "stop".into(),
                exit_latency: us(rng.gen_range(0..=1500)),
                switch_extra: us(rng.gen_range(0..=4)),
            });
        }
    }
    cfg
}

#[test]
fn random_configurations_run_clean() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for k in 0..300 {
        let cfg = random_cfg(&mut rng, k);
        let dur = Picos::from_ms(rng.gen_range(5..=200));
        check(k, cfg, dur);
    }
}

/// The same with tick rates whose period is not a whole number of picoseconds and
/// sparse, large priorities: every tick handler runs at an exact grid instant
/// round(k * 1e12 / tick_hz).
#[test]
fn exact_tick_grid_and_sparse_priorities_run_clean() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for k in 0..150 {
        let mut cfg = random_cfg(&mut rng, k);
        if matches!(cfg.kernel, Kernel::ListScan(_)) {
            continue;
        }
        let hz = [300u64, 3, 7, 32_768, 1_024][(k / 5) % 5];
        cfg.tick_hz = Some(hz);
        cfg.tick_period = Picos(1_000_000_000_000 / hz as i64);
        for t in cfg.tasks.iter_mut() {
            t.priority = t.priority * 1_000 + rng.gen_range(0..3);
        }
        let dur = Picos::from_ms(rng.gen_range(5..=200));
        let sim = check(k, cfg, dur);
        for row in sim.series() {
            let t = row.time.0 as i128;
            let kk = (t * hz as i128 + 500_000_000_000) / 1_000_000_000_000;
            let exact = (2 * kk * 1_000_000_000_000 + hz as i128) / (2 * hz as i128);
            assert_eq!(
                t, exact,
                "config {k}: tick at {t} ps is off the {hz} Hz grid"
            );
        }
    }
}

/// List-scan configurations with a transmit device and writers that busy-wait or
/// suspend (any item time, FIFO depth, string length and put cost): the same checks, and
/// every item counted by the device was written by a job.
#[test]
fn list_scan_with_devices_runs_clean() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut dev_rng = ChaCha8Rng::seed_from_u64(12);
    for k in (4..400).step_by(5) {
        let mut cfg = random_cfg(&mut rng, k);
        let r = &mut dev_rng;
        cfg.devices = vec![SimDevice {
            name: "uart".into(),
            item_time: us(r.gen_range(1..=2_000)),
            capacity: r.gen_range(0..=40),
        }];
        for t in 0..cfg.tasks.len() {
            if r.gen_bool(0.5) {
                cfg.outputs.push(SimOutput {
                    task: t,
                    device: 0,
                    items: r.gen_range(1..=80),
                    put_cost: us(r.gen_range(0..=3)),
                    wait: if r.gen_bool(0.5) {
                        WaitMode::Spin
                    } else {
                        WaitMode::Suspend
                    },
                });
            }
        }
        let dur = Picos::from_ms(r.gen_range(5..=300));
        let most: u64 = cfg
            .outputs
            .iter()
            .map(|o| o.items as u64 * (dur.0 / cfg.tasks[o.task].period.0 + 1) as u64)
            .sum();
        let sim = check(k, cfg, dur);
        let d = &sim.device_stats()[0];
        assert!(d.items <= most, "config {k}: {d:?}");
        assert!(d.resumes <= d.suspensions, "config {k}: {d:?}");
    }
}

fn check(k: usize, cfg: SimConfig, dur: Picos) -> Sim {
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            seed: k as u64,
            capture: true,
            series: true,
            percentiles: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("config {k}: {e}"));
    sim.run_until(dur);
    assert_eq!(sim.now(), dur, "config {k}");
    let r = sim.report();
    let c = &r.cpu;
    let total = c.tasks_ns
        + c.tick_ns
        + c.switch_ns
        + c.interrupts_ns
        + c.scheduler_ns
        + c.idle_ns
        + c.sleep_ns
        + c.wake_ns;
    assert!(
        (total - r.duration_ns).abs() < 1e-3,
        "config {k}: {total} vs {}",
        r.duration_ns
    );
    for t in &r.tasks {
        assert!(
            t.jobs <= t.released && t.released <= t.jobs + 1,
            "config {k}: {t:?}"
        );
        if let (Some(lo), Some(hi)) = (t.response.min_ns, t.max_response_ns) {
            assert!(lo >= 0.0 && lo <= hi, "config {k}");
        }
    }
    let cap = sim.capture();
    cap.validate().unwrap_or_else(|e| panic!("config {k}: {e}"));
    // exactly one channel is high at any time: the levels at the edges sum to 1
    let mut times: Vec<Picos> = cap
        .channels
        .iter()
        .flat_map(|ch| ch.edges.clone())
        .collect();
    times.sort();
    times.dedup();
    for t in times.iter().step_by(7) {
        let high = cap.channels.iter().filter(|ch| ch.level_at(*t)).count();
        assert_eq!(high, 1, "config {k} at {t:?}");
    }
    assert_eq!(sim.series().len() as u64, r.tick.count, "config {k}");
    sim
}
