//! The random cross-check of `crosscheck.rs` extended to partitioned multicore
//! (docs/analysis.md, Multicore): random 2- and 4-core systems with the FreeRTOS
//! overheads paper's costs, each core a UUniFast set, local interrupts, and interrupts
//! that release a sporadic task on another core through the inter-core interrupt. No
//! simulated maximum may exceed the per-core bound, in either tick mode.
//!
//! `LATSCOPE_MC_SETS=10000 cargo test --release -p latscope-sim --test
//! it crosscheck_multicore:: -- --nocapture` runs more sets and prints the tightness
//! histogram (simulated maximum / bound) recorded in docs/analysis.md.

use latscope_core::Picos;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::rta::analyze;
use latscope_model::system::{Arrival, Interrupt, Task};
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::run_multi_seeded;

fn sets() -> usize {
    std::env::var("LATSCOPE_MC_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// A random partitioned system: `cores` cores, 1 to 4 tasks each.
pub(crate) fn system(k: usize) -> System {
    let mut rng = ChaCha8Rng::seed_from_u64(77_000 + k as u64);
    let cores: u32 = if k.is_multiple_of(2) { 2 } else { 4 };
    let mut sys = freertos_template();
    sys.platform.cores = cores;
    sys.kernel.ipi = Picos::from_ns(rng.gen_range(0..=20_000));
    sys.tasks.clear();
    for c in 0..cores {
        let spec = GenerateSpec {
            tasks: rng.gen_range(1..=4),
            utilisation: rng.gen_range(0.1..0.7),
            method: Method::UUniFast,
            max_task_utilisation: 1.0,
            period_min: Picos::from_ms(2),
            period_max: Picos::from_ms(50),
            granularity: if rng.gen_bool(0.5) {
                Picos::from_ms(1)
            } else {
                Picos::from_us(500)
            },
            periods: Default::default(),
            seed: 91_000 + 10 * k as u64 + c as u64,
        };
        let set = generate(&freertos_template(), &spec, 1)
            .expect("generated")
            .remove(0);
        for mut t in set.tasks {
            t.name = format!("c{c}{}", t.name);
            t.core = c;
            sys.tasks.push(t);
        }
    }
    // Interrupts: some local, some releasing a sporadic task on another core.
    let nirq = rng.gen_range(0..=3);
    for q in 0..nirq {
        let core = rng.gen_range(0..cores);
        let t_irq = Picos::from_us(rng.gen_range(1_000..=8_000));
        let cross = rng.gen_bool(0.7);
        let releases = if cross {
            let target = (core + rng.gen_range(1..cores)) % cores;
            let wcet = Picos::from_us(rng.gen_range(20..=200));
            sys.tasks.push(Task {
                name: format!("rx{q}"),
                arrival: Arrival::Sporadic(t_irq),
                wcet,
                bcet: wcet,
                priority: rng.gen_range(1..=6),
                deadline: t_irq,
                offset: Picos::ZERO,
                jitter: Picos::ZERO,
                blocking: Picos::ZERO,
                exec_time_file: None,
                released_by: Some(q),
                core: target,
            });
            Some(sys.tasks.len() - 1)
        } else {
            None
        };
        sys.interrupts.push(Interrupt {
            name: format!("irq{q}"),
            min_interarrival: t_irq,
            wcet: Picos::from_us(rng.gen_range(5..=60)),
            priority: rng.gen_range(1..=3),
            above_kernel: false,
            releases,
            offset: Picos::from_us(rng.gen_range(0..=500)),
            periodic: false,
            core,
        });
    }
    // Round-trip through the file format: the system is one a user could write.
    System::from_toml_str(&sys.to_toml_string(), &format!("mc{k}")).expect("valid system")
}

#[test]
fn multicore_simulation_never_exceeds_per_core_bounds() {
    let n = sets();
    let mut compared = 0usize;
    let mut crossing = 0usize;
    // tightness: simulated maximum / bound, in tenths
    let mut hist = [0usize; 11];
    for k in 0..n {
        let sys = system(k);
        let r = analyze(&sys, &AnalysisOptions::default()).expect("analysed");
        assert_eq!(r.cores.len(), sys.platform.cores as usize);
        let rep = run_multi_seeded(&sys, k, None, Picos::from_ms(400));
        for mode in [&r.tick_modes.partitioned, &r.tick_modes.pessimistic] {
            for a in mode {
                let s = rep.tasks.iter().find(|t| *t.name == *a.name).expect("task");
                let (Some(w), Some(m)) = (a.wcrt_ns, s.max_response_ns) else {
                    continue;
                };
                assert!(
                    m <= w,
                    "set {k} task {} (core {}): simulated {m} ns > bound {w} ns\n{}",
                    a.name,
                    sys.tasks[sys.task_index(&a.name).unwrap_or(0)].core,
                    sys.to_toml_string()
                );
                compared += 1;
                if std::ptr::eq(mode, &r.tick_modes.partitioned) {
                    hist[((m / w) * 10.0).floor().clamp(0.0, 10.0) as usize] += 1;
                    if a.name.starts_with("rx") {
                        crossing += 1;
                        assert!(s.jobs > 0, "set {k}: {} never ran", a.name);
                    }
                }
            }
        }
    }
    println!("{n} sets, {compared} comparisons, {crossing} cross-core released tasks");
    for (b, c) in hist.iter().enumerate() {
        if b == 10 {
            println!("  1.0 (equal): {c}");
        } else {
            println!("  {:.1}-{:.1}: {c}", b as f64 / 10.0, (b + 1) as f64 / 10.0);
        }
    }
    assert!(compared > 4 * n, "{compared}");
    assert!(crossing > n / 4, "{crossing}");
}

/// The whole path of a cross-core release happens in the simulation: the inter-core
/// interrupt runs on the task's core once per releasing interrupt, and a one-core
/// system simulated through the multicore driver gives the one-engine report.
#[test]
fn cross_core_release_runs_the_ipi_on_the_target_core() {
    let text = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 12
cores = 2
[kernel]
tick_hz = 1000
[kernel.costs]
ipi = "3us"
[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 3
[[task]]
name = "B"
min_interarrival = "10ms"
wcet = "2ms"
priority = 2
core = 1
[[interrupt]]
name = "rx"
min_interarrival = "10ms"
wcet = "20us"
priority = 1
releases = "B"
"#;
    let sys = System::from_toml_str(text, "x.toml").unwrap();
    let mut sim = MultiSim::new(&sys, &FromSystemOptions::default(), SimOptions::default())
        .expect("simulable");
    sim.run_until(Picos::from_ms(100));
    let rep = sim.report();
    let ipi = rep
        .interrupts
        .iter()
        .find(|x| x.name == "ipi<rx")
        .expect("ipi");
    let rx = rep.interrupts.iter().find(|x| x.name == "rx").expect("rx");
    assert_eq!(rx.count, 10);
    assert_eq!(ipi.count, rx.count);
    let b = rep.tasks.iter().find(|t| t.name == "B").unwrap();
    assert_eq!(b.jobs, 10);
    // B's response from rx's arrival: L + 20 us on core 0, then L + 3 us on core 1,
    // then B's own 2 ms, alone on core 1 (L = 0.12 us at 100 MHz), plus the switch in
    // and core 1's ticks (L each, no other cost here).
    let path = 120.0 + 20_000.0 + 120.0 + 3_000.0 + 2_000_000.0;
    let min = b.response.min_ns.unwrap();
    assert!(min >= path && min <= path + 1_000.0, "{min} vs {path}");
    assert_eq!(rep.cores.len(), 2);
    assert_eq!(rep.cores[1].tasks, ["B"]);
    // One core through the driver: the same report as one engine.
    let one = System::from_toml_str(
        &text.replace("cores = 2\n", "").replace("core = 1\n", ""),
        "x.toml",
    )
    .unwrap();
    let mut m = MultiSim::new(&one, &FromSystemOptions::default(), SimOptions::default()).unwrap();
    m.run_until(Picos::from_ms(100));
    let cfg = from_system(&one, &FromSystemOptions::default()).unwrap();
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(100));
    assert_eq!(
        serde_json::to_value(m.report()).unwrap(),
        serde_json::to_value(s.report()).unwrap()
    );
    // The capture has a channel per core.
    let mut sim = MultiSim::new(
        &sys,
        &FromSystemOptions::default(),
        SimOptions {
            capture: true,
            ..Default::default()
        },
    )
    .unwrap();
    sim.run_until(Picos::from_ms(20));
    let cap = sim.capture();
    let names: Vec<&str> = cap.channels.iter().map(|c| c.name.as_str()).collect();
    assert!(
        names.contains(&"core0") && names.contains(&"core1"),
        "{names:?}"
    );
    assert!(
        names.contains(&"B") && names.contains(&"core1.ipi<rx"),
        "{names:?}"
    );
}
