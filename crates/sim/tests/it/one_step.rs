//! A tick (`Sim::quiet_tick`) and a deferred switch (`Sim::pendsv_in_one_step`) that
//! nothing can interrupt are taken in one step: they must give the same simulation as the
//! long way (the arrival, the handler as a frame, the frame's end in a later turn of the
//! loop) on every system, not only on the ones they were measured on. Random task sets
//! with the features around the tick varied (tick costs up to most of the tick period,
//! time slicing between equal priorities, both task selections, EDF, release jitter and
//! offsets, interrupts below and above the kernel, interrupts-disabled sections, tickless
//! idle, a free kernel whose jobs end exactly at tick instants), each run in pieces that
//! end at random instants (inside tick handlers too) with the steps on and off: the
//! reports, tick series, event counts and clocks must be equal.

use latscope_core::Picos;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::overheads::tick::TickCosts;
use latscope_model::overheads::tickless::SleepState;
use latscope_model::system::{Interrupt, KernelCosts, Scheduler, TaskSelection};
use latscope_model::System;
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SETS: usize = 400;

fn system(k: usize, rng: &mut ChaCha8Rng) -> System {
    let spec = GenerateSpec {
        tasks: 2 + k % 9,
        utilisation: 0.1 + 0.8 * rng.gen::<f64>(),
        method: Method::UUniFast,
        max_task_utilisation: 1.0,
        period_min: Picos::from_ms(2),
        period_max: Picos::from_ms(100),
        granularity: if k.is_multiple_of(2) {
            Picos::from_ms(1)
        } else {
            Picos::from_us(250)
        },
        periods: Default::default(),
        seed: 40_000 + k as u64,
    };
    let mut sys = generate(&freertos_template(), &spec, 1)
        .expect("generated")
        .remove(0);
    if let KernelCosts::Tick(c) = &mut sys.kernel.costs {
        *c = TickCosts {
            // from nothing to most of the 1 ms tick period, so that a handler can still
            // run when the next tick or the end of a piece comes
            tick_base: Picos::from_ns(match k % 4 {
                0 => 0,
                1 => rng.gen_range(500..=5_000),
                2 => rng.gen_range(5_000..=100_000),
                _ => rng.gen_range(100_000..=900_000),
            }),
            tick_per_release: Picos::from_ns(rng.gen_range(0..=10_000)),
            switch_base: Picos::from_ns(rng.gen_range(0..=3_000)),
            switch_per_level: Picos::from_ns(rng.gen_range(0..=1_000)),
            ..*c
        };
    }
    if k % 8 == 4 {
        // free kernel, whole-millisecond execution times: jobs end exactly at tick
        // instants, where the completion's switch must come before the tick
        if let KernelCosts::Tick(c) = &mut sys.kernel.costs {
            *c = TickCosts {
                tick_base: Picos::ZERO,
                tick_per_release: Picos::ZERO,
                switch_base: Picos::ZERO,
                switch_per_level: Picos::ZERO,
                ..*c
            };
        }
        sys.platform.irq_entry_cycles = 0;
        for t in &mut sys.tasks {
            let ms = Picos::from_ms(1).0;
            let half = t.period().0 / 2 / ms * ms;
            t.wcet = Picos(((t.wcet.0 + ms - 1) / ms * ms).min(half).max(ms));
            t.bcet = t.wcet;
        }
    }
    sys.kernel.time_slicing = rng.gen_bool(0.6);
    if rng.gen_bool(0.5) {
        // equal priorities, so that time slicing has something to rotate
        let p = sys.tasks[0].priority;
        for t in sys.tasks.iter_mut().skip(1) {
            if rng.gen_bool(0.5) {
                t.priority = p;
            }
        }
    }
    if rng.gen_bool(0.3) {
        sys.kernel.task_selection = TaskSelection::Optimised;
    }
    if rng.gen_bool(0.15) {
        sys.kernel.scheduler = Scheduler::Edf;
    }
    for t in &mut sys.tasks {
        if rng.gen_bool(0.3) {
            t.jitter = Picos::from_us(rng.gen_range(0..=t.period().0 / 10 / 1_000_000));
        }
        if rng.gen_bool(0.3) {
            t.offset = Picos::from_us(rng.gen_range(0..=3_000));
        }
    }
    if rng.gen_bool(0.3) {
        sys.interrupts.push(Interrupt {
            name: "irq".into(),
            min_interarrival: Picos::from_us(rng.gen_range(300..=5_000)),
            wcet: Picos::from_us(rng.gen_range(5..=80)),
            priority: 1,
            above_kernel: rng.gen_bool(0.5),
            releases: None,
            offset: Picos::from_us(rng.gen_range(0..=1_000)),
            periodic: rng.gen_bool(0.5),
            core: 0,
        });
    }
    if rng.gen_bool(0.3) {
        sys.critical_sections.application = Picos::from_us(rng.gen_range(1..=30));
    }
    if rng.gen_bool(0.2) {
        sys.kernel.sleep_states = vec![SleepState {
            name: "deep".into(),
            parts: vec![(
                "cpu_wake".to_string(),
                Picos::from_us(rng.gen_range(10..=300)),
            )],
            safety_margin_ticks: rng.gen_range(0..=2),
        }];
    }
    sys
}

/// The report (as JSON) and the tick series, the events and the clock after running
/// `cfg` to each of `stops` in turn, with the one-step tick and switch on or off; and
/// how many steps were taken so.
fn run(
    cfg: &SimConfig,
    seed: u64,
    stops: &[Picos],
    one_step: bool,
) -> (String, u64, Picos, (u64, u64)) {
    let mut sim = Sim::new(
        cfg.clone(),
        SimOptions {
            seed,
            series: true,
            ..Default::default()
        },
    )
    .expect("valid");
    sim.set_one_step(one_step);
    for &s in stops {
        sim.run_until(s);
    }
    let json = serde_json::to_string(&sim.report()).expect("serialisable");
    let series = format!("{:?}", sim.series());
    (
        json + &series,
        sim.events(),
        sim.now(),
        sim.one_steps_taken(),
    )
}

#[test]
fn one_step_ticks_and_switches_equal_the_long_way() {
    let mut taken = (0, 0);
    let mut cut_sets = 0;
    for k in 0..SETS {
        let mut rng = ChaCha8Rng::seed_from_u64(k as u64 ^ 0x9e37);
        let sys = system(k, &mut rng);
        let cfg = from_system(&sys, &FromSystemOptions::default()).expect("convertible");
        // pieces of random length, some ending a few microseconds after a tick (inside
        // its handler when the handler is long enough)
        let mut stops = Vec::new();
        let mut at = 0i64;
        for _ in 0..rng.gen_range(1..=6) {
            at += if rng.gen_bool(0.5) {
                rng.gen_range(1..=400) * 1_000_000_000 + rng.gen_range(0..=20) * 1_000_000
            } else {
                rng.gen_range(1_000_000..=300_000_000_000)
            };
            stops.push(Picos(at));
        }
        if stops.len() > 1 {
            cut_sets += 1;
        }
        let on = run(&cfg, k as u64, &stops, true);
        let off = run(&cfg, k as u64, &stops, false);
        assert_eq!(off.3, (0, 0), "set {k}: the long way took a step in one");
        assert_eq!(on.1, off.1, "set {k}: events");
        assert_eq!(on.2, off.2, "set {k}: clock");
        assert!(
            on.0 == off.0,
            "set {k}: reports differ\n{}\n{}",
            on.0,
            off.0
        );
        taken.0 += on.3 .0;
        taken.1 += on.3 .1;
    }
    assert!(cut_sets > SETS / 2, "{cut_sets}");
    // the step must have been exercised, not only declined
    assert!(taken.0 > 50_000, "only {} ticks in one step", taken.0);
    assert!(taken.1 > 100_000, "only {} switches in one step", taken.1);
}
