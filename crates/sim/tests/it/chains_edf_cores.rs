//! Event links across cores when a core schedules by deadline, simulation against
//! analysis (docs/analysis.md, "Event links across cores with EDF cores"): random
//! partitioned systems of 2 or 3 cores, each core EDF or fixed priority at random with
//! at least one EDF core (1 to 4 tasks a core, UUniFast U 0.1 to 0.6, periods 2 to
//! 50 ms, the FreeRTOS overheads paper's costs or none, an inter-core interrupt of 0 to
//! 20 us), with one or two chains whose event links cross cores, in three shapes: an
//! event chain of two or three tasks on alternating cores, an interrupt releasing a
//! task (on its core or, through the inter-core interrupt, on another) that releases a
//! task on another core, and an event link across cores followed by a sampled one.
//! The bounds: `analyze` (the fixed-priority cores), `analyze_edf_cores` (Spuri's bounds
//! on the EDF cores) and `chains_with_edf` (the chains), all settled by the cross-core
//! fixed point of `chain::edf_cores`. For every bounded figure: no simulated task
//! response above its bound (fixed-priority WCRT or Spuri's bound by the task's core),
//! no simulated chain latency, reaction time or data age above the chain's bound.
//!
//! `LATSCOPE_CHAIN_EDFX_SETS=10000 cargo test --release -p latscope-sim --test it
//! chains_edf_cores:: -- --nocapture` runs more sets and prints the tightness histogram
//! (simulated maximum / bound) recorded in docs/analysis.md.

use latscope_core::Picos;
use latscope_model::chain::edf::chains_with_edf;
use latscope_model::chain::edf_cores::is_mixed;
use latscope_model::chain::{Link, Step};
use latscope_model::edf::analyze_edf_cores;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::overheads::tick::TickCosts;
use latscope_model::rta::analyze;
use latscope_model::system::{CoreSettings, Interrupt, KernelCosts, Scheduler};
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{self, check_chain, run_multi_seeded, sporadic, task_chain};

fn sets() -> usize {
    std::env::var("LATSCOPE_CHAIN_EDFX_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

/// A task not in `used`, on another core than task `x` (any core when `x` is `None`).
fn pick(
    sys: &System,
    rng: &mut ChaCha8Rng,
    used: &[usize],
    x: Option<usize>,
    not: &[usize],
) -> Option<usize> {
    let free: Vec<usize> = (0..sys.tasks.len())
        .filter(|i| !used.contains(i) && !not.contains(i))
        .filter(|&i| x.is_none_or(|x| sys.tasks[i].core != sys.tasks[x].core))
        .collect();
    free.get(rng.gen_range(0..free.len().max(1))).copied()
}

/// One random system with EDF cores and event links across cores, validated by writing
/// and reading it back.
fn system(k: usize) -> Option<System> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xedf_f000 + k as u64);
    let cores: u32 = [2, 2, 3][k % 3];
    let mut sys = freertos_template();
    sys.platform.cores = cores;
    sys.kernel.ipi = Picos::from_ns(rng.gen_range(0..=20_000));
    if k % 4 >= 2 {
        sys.kernel.costs = KernelCosts::Tick(TickCosts::default());
        sys.platform.irq_entry_cycles = 0;
    }
    let mut edf: Vec<bool> = (0..cores).map(|_| rng.gen_bool(0.5)).collect();
    if !edf.contains(&true) {
        let c = rng.gen_range(0..cores as usize);
        edf[c] = true;
    }
    sys.kernel.cores = (0..cores)
        .filter(|&c| edf[c as usize])
        .map(|id| CoreSettings {
            id,
            scheduler: Some(Scheduler::Edf),
        })
        .collect();
    sys.tasks.clear();
    for c in 0..cores {
        let spec = GenerateSpec {
            tasks: rng.gen_range(1..=4),
            utilisation: rng.gen_range(0.1..0.6),
            method: Method::UUniFast,
            max_task_utilisation: 1.0,
            period_min: Picos::from_ms(2),
            period_max: Picos::from_ms(50),
            granularity: Picos::from_ms(1),
            periods: Default::default(),
            seed: 0xedf_f800 + 10 * k as u64 + c as u64,
        };
        let set = generate(&freertos_template(), &spec, 1).ok()?.remove(0);
        for mut t in set.tasks {
            t.name = format!("c{c}{}", t.name);
            t.core = c;
            sys.tasks.push(t);
        }
    }
    let nchains = rng.gen_range(1..=2);
    let mut used: Vec<usize> = Vec::new();
    for ci in 0..nchains {
        let a = pick(&sys, &mut rng, &used, None, &[])?;
        let b = pick(&sys, &mut rng, &used, Some(a), &[])?;
        let c = pick(&sys, &mut rng, &used, Some(b), &[a]);
        let ta = sys.tasks[a].period();
        let (steps, links) = match (k / 3 + ci) % 3 {
            0 => {
                sporadic(&mut sys, b, ta);
                let c = c.filter(|_| rng.gen_bool(0.5));
                if let Some(c) = c {
                    sporadic(&mut sys, c, ta);
                }
                task_chain(a, b, c, Link::Event)
            }
            1 => {
                // On another core than the task half of the time (a cross-core release).
                let core = if rng.gen_bool(0.5) {
                    (sys.tasks[a].core + rng.gen_range(1..cores)) % cores
                } else {
                    sys.tasks[a].core
                };
                sys.interrupts.push(Interrupt {
                    name: format!("irq{ci}"),
                    min_interarrival: ta,
                    wcet: Picos::from_us(rng.gen_range(5..=60)),
                    priority: rng.gen_range(1..=3),
                    above_kernel: false,
                    releases: Some(a),
                    offset: Picos::from_us(rng.gen_range(0..=ta.0 / 1_000_000)),
                    periodic: rng.gen_bool(0.5),
                    core,
                });
                let q = sys.interrupts.len() - 1;
                sys.tasks[a].released_by = Some(q);
                sporadic(&mut sys, a, ta);
                sporadic(&mut sys, b, ta);
                (
                    vec![Step::Interrupt(q), Step::Task(a), Step::Task(b)],
                    vec![Link::Event, Link::Event],
                )
            }
            _ => {
                sporadic(&mut sys, b, ta);
                (
                    vec![Step::Task(a), Step::Task(b), Step::Task(c?)],
                    vec![Link::Event, Link::Sampled],
                )
            }
        };
        common::push_chain(&mut sys, &mut used, format!("chain{ci}"), (steps, links));
    }
    System::from_toml_str(&sys.to_toml_string(), &format!("edfx{k}")).ok()
}

#[test]
fn simulated_chains_across_edf_cores_never_exceed_their_bounds() {
    let n = sets();
    let mut hist = [0usize; 11];
    let (mut compared, mut ages, mut skipped, mut mixed) = (0, 0, 0, 0);
    let (mut fp_cmp, mut edf_cmp, mut edf_events) = (0, 0, 0);
    for k in 0..n {
        let Some(sys) = system(k) else {
            skipped += 1;
            continue;
        };
        mixed += usize::from(is_mixed(&sys));
        let opts = AnalysisOptions::default();
        let res = analyze(&sys, &opts).expect("analysable");
        let edf: Vec<_> = analyze_edf_cores(&sys, &opts)
            .expect("EDF cores")
            .into_iter()
            .flat_map(|c| c.result.tasks)
            .collect();
        let chains = chains_with_edf(&sys, &opts, &res, &edf);
        let exec = if k.is_multiple_of(2) {
            ExecMode::Uniform
        } else {
            ExecMode::Auto
        };
        let rep = run_multi_seeded(&sys, k, Some(exec), Picos::from_ms(300));
        for (i, t) in sys.tasks.iter().enumerate() {
            let on_edf = sys.kernel.scheduler_of(t.core) == Scheduler::Edf;
            let bound = if on_edf {
                edf.iter()
                    .find(|e| e.name == t.name)
                    .and_then(|e| e.bound_ns)
            } else {
                res.tasks
                    .iter()
                    .find(|r| *r.name == *t.name)
                    .and_then(|r| r.wcrt_ns)
            };
            let (Some(b), Some(o)) = (bound, rep.tasks[i].max_response_ns) else {
                continue;
            };
            if on_edf {
                edf_cmp += 1;
            } else {
                fp_cmp += 1;
            }
            assert!(
                o <= b + 1e-6,
                "set {k}: task {} (core {}, {}) observed {o} > bound {b}\n{}",
                t.name,
                t.core,
                if on_edf { "EDF" } else { "FP" },
                sys.to_toml_string()
            );
        }
        assert_eq!(rep.chains.len(), sys.chains.len(), "set {k}");
        for (ci, (bound, seen)) in chains.iter().zip(&rep.chains).enumerate() {
            let Some(aged) = check_chain(k, &sys, bound, seen, &mut hist) else {
                continue;
            };
            compared += 1;
            ages += usize::from(aged);
            let c = &sys.chains[ci];
            let through_edf_across =
                c.links
                    .iter()
                    .enumerate()
                    .any(|(j, l)| match (l, c.steps[j], c.steps[j + 1]) {
                        (Link::Event, Step::Task(a), Step::Task(b)) => {
                            let (ca, cb) = (sys.tasks[a].core, sys.tasks[b].core);
                            ca != cb
                                && (sys.kernel.scheduler_of(ca) == Scheduler::Edf
                                    || sys.kernel.scheduler_of(cb) == Scheduler::Edf)
                        }
                        _ => false,
                    });
            edf_events += usize::from(through_edf_across);
        }
    }
    println!(
        "{n} sets ({mixed} with an event link across cores into or out of an EDF core, \
         {skipped} skipped): chains compared {compared} (an event link across cores at an \
         EDF core {edf_events}, data ages {ages}), task responses FP {fp_cmp}, EDF {edf_cmp}"
    );
    for (b, c) in hist.iter().enumerate() {
        if b == 10 {
            println!("  1.0 (equal): {c}");
        } else {
            println!("  {:.1}-{:.1}: {c}", b as f64 / 10.0, (b + 1) as f64 / 10.0);
        }
    }
    assert!(mixed >= n / 2, "only {mixed} mixed systems");
    assert!(compared >= n / 3, "only {compared} chains compared");
    assert!(
        edf_events >= n / 5,
        "only {edf_events} chains with an event link across cores at an EDF core compared"
    );
    assert!(edf_cmp >= n, "only {edf_cmp} EDF task responses compared");
}

/// The hand-worked system of `latscope-model`'s `chain_edf_cores` test (a fixed-priority
/// core, an EDF core, the chain `A -> B -> C` crossing there and back), simulated: the
/// inter-core interrupts run on both cores, the chain is observed end to end and stays
/// within its bound (with the kernel's overheads, as the simulator runs them), `B` within
/// its Spuri bound.
#[test]
fn the_worked_example_runs_within_its_bounds() {
    let text = "[platform]\ncpu_hz = 1_000_000\ncores = 2\n[kernel]\ntick_hz = 1000\n\
[kernel.costs]\nipi = \"10us\"\n\
[[core]]\nid = 1\nscheduler = \"edf\"\n\
[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
[[task]]\nname = \"C\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\npriority = 3\n\
[[task]]\nname = \"X\"\nperiod = \"5ms\"\nwcet = \"1ms\"\npriority = 1\ncore = 1\n\
[[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 2\ncore = 1\n\
[[chain]]\nname = \"abc\"\nsteps = [\"A\", \"B\", \"C\"]\nlinks = [\"event\", \"event\"]\n";
    let sys = System::from_toml_str(text, "edfx.toml").expect("valid");
    let opts = AnalysisOptions::default();
    let res = analyze(&sys, &opts).expect("analysed");
    let edf = analyze_edf_cores(&sys, &opts).expect("EDF");
    let chains = chains_with_edf(&sys, &opts, &res, &edf[0].result.tasks);
    let bound = chains[0].bound_ns.expect("bounded");
    let mut sim =
        MultiSim::new(&sys, &FromSystemOptions::default(), SimOptions::default()).expect("sim");
    sim.run_until(Picos::from_ms(1000));
    let rep = sim.report();
    let count = |n: &str| {
        rep.interrupts
            .iter()
            .find(|x| x.name == n)
            .map_or(0, |x| x.count)
    };
    assert!(count("ipi<A") >= 99, "{}", count("ipi<A"));
    assert!(count("ipi<B") >= 99, "{}", count("ipi<B"));
    let ch = &rep.chains[0];
    assert!(ch.count >= 99, "{}", ch.count);
    let seen = ch.max_ns.expect("observed");
    assert!(seen <= bound, "{seen} > {bound}");
    // At least A's, B's and C's execution.
    assert!(seen >= 6_000_000.0, "{seen}");
    let b = rep.tasks.iter().find(|t| t.name == "B").expect("B");
    let bb = edf[0].result.tasks.iter().find(|t| t.name == "B");
    let bb = bb.and_then(|t| t.bound_ns).expect("B bounded");
    assert!(b.max_response_ns.expect("ran") <= bb);
}
