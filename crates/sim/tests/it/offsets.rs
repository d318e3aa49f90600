//! Phases and offsets: task and interrupt offsets reach the simulator; the offset-aware
//! worst response (simulated feasibility interval of a deterministic set) shows what an
//! offset buys and never exceeds the offset-free bound; random offsets never push a
//! simulated response above the offset-free bound.

use latscope_core::Picos;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::rta::{analyze_mode, AnalysisOptions};
use latscope_model::system::TickMode;
use latscope_model::System;
use latscope_sim::offsets::offset_aware;
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const HEAD: &str = "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\n\
                    tick_hz = 1000\n[kernel.costs]\ntick_base = \"1.5us\"\n\
                    tick_per_release = \"5.907us\"\nswitch_base = \"1.5us\"\n";

/// The case: a lower-priority task phased after the higher one's job responds in
/// about 4 ms, where the offset-free bound (both released together) is about 8 ms.
#[test]
fn an_offset_halves_the_response_and_the_offset_aware_result_shows_it() {
    let text = format!(
        "{HEAD}[[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 2\n\
         [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 1\noffset = \"5ms\"\n"
    );
    let sys = System::from_toml_str(&text, "o.toml").unwrap();
    let bound = analyze_mode(&sys, &AnalysisOptions::default(), TickMode::Partitioned).unwrap();
    let l_bound = bound
        .iter()
        .find(|t| &*t.name == "L")
        .unwrap()
        .wcrt_ns
        .unwrap();
    assert!(l_bound > 8e6, "{l_bound}");
    let o = offset_aware(&sys);
    assert_eq!(o.method, "simulated feasibility interval", "{o:?}");
    let l = o
        .tasks
        .iter()
        .find(|t| t.name == "L")
        .unwrap()
        .worst_ns
        .unwrap();
    assert!(l > 4e6 && l < 4.2e6, "{l}");
    assert!(l <= l_bound);
    // Without the offset the simulated worst is the synchronous one, above 8 ms.
    let sync = System::from_toml_str(&text.replace("offset = \"5ms\"\n", ""), "s.toml").unwrap();
    let s = offset_aware(&sync);
    let ls = s
        .tasks
        .iter()
        .find(|t| t.name == "L")
        .unwrap()
        .worst_ns
        .unwrap();
    assert!(ls > 8e6 && ls <= l_bound, "{ls} vs {l_bound}");
}

#[test]
fn nondeterministic_sets_get_a_reason() {
    let text = format!(
        "{HEAD}[[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 2\n\
         jitter = \"1ms\"\noffset = \"1ms\"\n"
    );
    let o = offset_aware(&System::from_toml_str(&text, "j.toml").unwrap());
    assert_eq!(o.method, "none");
    assert!(o.reason.unwrap().contains("task \"H\" has release jitter"));
}

/// An interrupt's offset is its first arrival in the periodic (worst) mode.
#[test]
fn interrupt_offset_reaches_the_simulator() {
    let text = format!(
        "{HEAD}[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 1\n\
         [[interrupt]]\nname = \"x\"\nmin_interarrival = \"5ms\"\nwcet = \"10us\"\noffset = \"2.5ms\"\n"
    );
    let sys = System::from_toml_str(&text, "i.toml").unwrap();
    assert_eq!(sys.interrupts[0].offset, Picos::from_us(2500));
    let back = System::from_toml_str(&sys.to_toml_string(), "b.toml").unwrap();
    assert_eq!(back.interrupts[0].offset, Picos::from_us(2500));
    let cfg = from_system(&sys, &FromSystemOptions::default()).unwrap();
    assert_eq!(
        cfg.interrupts[0].arrival,
        IrqArrival::Periodic {
            period: Picos::from_ms(5),
            offset: Picos::from_us(2500)
        }
    );
}

/// Random offsets (and in a third of the sets an interrupt with a random phase): the
/// simulated responses never exceed the offset-free bound (both tick modes), and neither
/// does the offset-aware worst response of the deterministic sets.
#[test]
fn random_offsets_stay_below_the_offset_free_bound() {
    let mut compared = 0;
    let mut exact = 0;
    for k in 0..200 {
        let spec = GenerateSpec {
            tasks: 2 + k % 6,
            utilisation: 0.3 + 0.6 * ((k * 37 % 100) as f64 / 100.0),
            method: Method::UUniFast,
            max_task_utilisation: 1.0,
            period_min: Picos::from_ms(2),
            period_max: Picos::from_ms(50),
            granularity: Picos::from_ms(1),
            periods: Default::default(),
            seed: 7000 + k as u64,
        };
        let mut sys = generate(&freertos_template(), &spec, 1).unwrap().remove(0);
        let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
        for t in &mut sys.tasks {
            t.offset = if rng.gen_bool(0.5) {
                Picos::from_ms(rng.gen_range(0..=t.period().0 / 1_000_000_000))
            } else {
                Picos::from_us(rng.gen_range(0..=t.period().0 / 1_000_000))
            };
        }
        if k % 3 == 1 {
            sys.interrupts.push(latscope_model::system::Interrupt {
                name: "irq".into(),
                min_interarrival: Picos::from_us(rng.gen_range(700..=5_000)),
                wcet: Picos::from_us(rng.gen_range(5..=50)),
                priority: 1,
                above_kernel: false,
                releases: None,
                offset: Picos::from_us(rng.gen_range(0..=700)),
                periodic: false,
                core: 0,
            });
        }
        let cfg = from_system(&sys, &FromSystemOptions::default()).unwrap();
        let mut sim = Sim::new(cfg, SimOptions::default()).unwrap();
        sim.run_until(Picos::from_ms(2_000));
        let rep = sim.report();
        let o = offset_aware(&sys);
        for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
            for a in analyze_mode(&sys, &AnalysisOptions::default(), mode).unwrap() {
                let Some(w) = a.wcrt_ns else { continue };
                let s = rep.tasks.iter().find(|t| *t.name == *a.name).unwrap();
                if let Some(m) = s.max_response_ns {
                    compared += 1;
                    assert!(
                        m <= w,
                        "set {k} {mode:?} {}: simulated {m} > bound {w}",
                        a.name
                    );
                }
                if let Some(x) = o.tasks.iter().find(|x| *x.name == *a.name) {
                    let worst = x.worst_ns.unwrap();
                    assert!(
                        worst <= w,
                        "set {k} {}: offset-aware {worst} > bound {w}",
                        a.name
                    );
                    if mode == TickMode::Partitioned {
                        exact += 1;
                    }
                }
            }
        }
    }
    assert!(compared > 800, "{compared}");
    assert!(exact > 300, "{exact}");
}
