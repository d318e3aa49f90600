//! End-to-end chains through EDF cores, simulation against analysis (docs/analysis.md,
//! "Chains on EDF cores"): random systems, half on one EDF core (3 to 7 tasks, UUniFast
//! U 0.2 to 0.6, periods 2 to 100 ms, the FreeRTOS overheads paper's costs or none),
//! half on two cores with core 1 EDF and core 0 fixed priority (1 to 4 tasks each), with
//! one chain each in four shapes: an event chain of two or three tasks on one core, a
//! sampled chain of two or three tasks (on either core), an interrupt releasing a task
//! that releases another (event), and a task releasing another that a third samples.
//! The chain bound takes the EDF tasks' Spuri bounds with the release jitter their event
//! links induce (`chain::edf`, `edf::holistic`). For every bounded chain: no simulated
//! latency (event), reaction time or data age (sampled) above it; and no simulated task
//! response on an EDF core above its Spuri bound.
//!
//! `LATSCOPE_CHAIN_EDF_SETS=5000 cargo test --release -p latscope-sim --test chains_edf
//! -- --nocapture` runs more sets and prints the tightness histogram.

use latscope_core::Picos;
use latscope_model::chain::edf::chains_with_edf;
use latscope_model::chain::{Chain, Link, Step};
use latscope_model::edf::{analyze_edf, analyze_edf_cores, EdfTask};
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::overheads::tick::TickCosts;
use latscope_model::rta::analyze;
use latscope_model::system::{Arrival, CoreSettings, Interrupt, KernelCosts, Scheduler};
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn sets() -> usize {
    std::env::var("LATSCOPE_CHAIN_EDF_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600)
}

/// Makes task `b` released by a source of period `t`: sporadic at that period.
fn sporadic(sys: &mut System, b: usize, t: Picos) {
    let task = &mut sys.tasks[b];
    task.arrival = Arrival::Sporadic(t);
    task.deadline = t;
    if task.wcet > t {
        task.wcet = Picos(t.0 / 4);
    }
    task.bcet = task.bcet.min(task.wcet);
}

fn tasks_of(spec_seed: u64, n: usize, u: f64) -> Option<Vec<latscope_model::system::Task>> {
    let spec = GenerateSpec {
        tasks: n,
        utilisation: u,
        method: Method::UUniFast,
        max_task_utilisation: 1.0,
        period_min: Picos::from_ms(2),
        period_max: Picos::from_ms(100),
        granularity: Picos::from_ms(1),
        periods: Default::default(),
        seed: spec_seed,
    };
    Some(
        generate(&freertos_template(), &spec, 1)
            .ok()?
            .remove(0)
            .tasks,
    )
}

/// One random system with one chain through the EDF core, validated by writing and
/// reading it back.
fn system(k: usize) -> Option<System> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xedf_c000 + k as u64);
    let mut sys = freertos_template();
    sys.tasks.clear();
    let two = k % 2 == 1;
    if two {
        sys.platform.cores = 2;
        sys.kernel.cores = vec![CoreSettings {
            id: 1,
            scheduler: Some(Scheduler::Edf),
        }];
        for c in 0..2u32 {
            let n = rng.gen_range(1..=4);
            for mut t in tasks_of(
                0xedf_d000 + 10 * k as u64 + c as u64,
                n,
                rng.gen_range(0.1..0.6),
            )? {
                t.name = format!("c{c}{}", t.name);
                t.core = c;
                sys.tasks.push(t);
            }
        }
    } else {
        sys.kernel.scheduler = Scheduler::Edf;
        sys.tasks = tasks_of(
            0xedf_e000 + k as u64,
            rng.gen_range(3..=7),
            rng.gen_range(0.2..0.6),
        )?;
    }
    if k % 4 >= 2 {
        sys.kernel.costs = KernelCosts::Tick(TickCosts::default());
        sys.platform.irq_entry_cycles = 0;
    }
    // Tasks of the EDF core, shuffled; the chain starts there.
    let edf_core = if two { 1 } else { 0 };
    let mut on: Vec<usize> = (0..sys.tasks.len())
        .filter(|&i| sys.tasks[i].core == edf_core)
        .collect();
    for i in (1..on.len()).rev() {
        on.swap(i, rng.gen_range(0..=i));
    }
    let anywhere: Vec<usize> = (0..sys.tasks.len())
        .filter(|i| !on[..1].contains(i))
        .collect();
    let three = rng.gen_bool(0.5);
    let (steps, links) = match (k / 2) % 4 {
        0 if on.len() >= 2 => {
            let (a, b) = (on[0], on[1]);
            let ta = sys.tasks[a].period();
            sporadic(&mut sys, b, ta);
            if three && on.len() >= 3 {
                sporadic(&mut sys, on[2], ta);
                (
                    vec![Step::Task(a), Step::Task(b), Step::Task(on[2])],
                    vec![Link::Event, Link::Event],
                )
            } else {
                (vec![Step::Task(a), Step::Task(b)], vec![Link::Event])
            }
        }
        2 if on.len() >= 2 => {
            let a = on[0];
            sys.interrupts.push(Interrupt {
                name: "irq".into(),
                min_interarrival: sys.tasks[a].period(),
                wcet: Picos::from_us(rng.gen_range(5..=60)),
                priority: 1,
                above_kernel: false,
                releases: Some(a),
                offset: Picos::from_us(rng.gen_range(0..=1000)),
                periodic: rng.gen_bool(0.5),
                core: edf_core,
            });
            sys.tasks[a].released_by = Some(0);
            let ta = sys.tasks[a].period();
            sporadic(&mut sys, a, ta);
            sporadic(&mut sys, on[1], ta);
            (
                vec![Step::Interrupt(0), Step::Task(a), Step::Task(on[1])],
                vec![Link::Event, Link::Event],
            )
        }
        3 if on.len() >= 2 => {
            let (a, b) = (on[0], on[1]);
            let ta = sys.tasks[a].period();
            sporadic(&mut sys, b, ta);
            let c = *anywhere
                .iter()
                .find(|&&i| i != b && sys.tasks[i].released_by.is_none())?;
            (
                vec![Step::Task(a), Step::Task(b), Step::Task(c)],
                vec![Link::Event, Link::Sampled],
            )
        }
        _ => {
            // Sampled: the EDF task first, then one or two tasks of any core.
            let a = on[0];
            let rest: Vec<usize> = anywhere.iter().copied().filter(|&i| i != a).collect();
            let b = *rest.get(rng.gen_range(0..rest.len().max(1)))?;
            let c = rest.iter().copied().find(|&i| i != b);
            match c {
                Some(c) if three => (
                    vec![Step::Task(a), Step::Task(b), Step::Task(c)],
                    vec![Link::Sampled, Link::Sampled],
                ),
                _ => (vec![Step::Task(a), Step::Task(b)], vec![Link::Sampled]),
            }
        }
    };
    sys.chains.push(Chain {
        name: "c".into(),
        steps,
        links,
        deadline: None,
        read: latscope_model::chain::ReadAt::Release,
    });
    System::from_toml_str(&sys.to_toml_string(), &format!("set{k}")).ok()
}

/// The EDF tasks' bounds of `sys` (every EDF core).
fn edf_tasks(sys: &System, opts: &AnalysisOptions) -> Vec<EdfTask> {
    if sys.platform.cores > 1 {
        analyze_edf_cores(sys, opts)
            .expect("analysed")
            .into_iter()
            .flat_map(|c| c.result.tasks)
            .collect()
    } else {
        analyze_edf(sys, opts).expect("analysed").tasks
    }
}

#[test]
fn simulated_chains_through_edf_cores_never_exceed_their_bounds() {
    let n = sets();
    let mut hist = [0usize; 11];
    let (mut compared, mut events, mut ages, mut tasks_cmp, mut skipped) = (0, 0, 0, 0, 0);
    for k in 0..n {
        let Some(sys) = system(k) else {
            skipped += 1;
            continue;
        };
        let opts = AnalysisOptions::default();
        let res = analyze(&sys, &opts).expect("analysable");
        let edf = edf_tasks(&sys, &opts);
        let chains = chains_with_edf(&sys, &opts, &res, &edf);
        assert!(
            latscope_model::chain::edf::through_edf(&sys, 0),
            "set {k}: the chain does not pass the EDF core"
        );
        let o = FromSystemOptions {
            seed: k as u64,
            ..Default::default()
        };
        let so = SimOptions {
            seed: k as u64,
            ..Default::default()
        };
        let rep = if sys.platform.cores > 1 {
            let mut sim = MultiSim::new(&sys, &o, so).expect("simulable");
            sim.run_until(Picos::from_ms(300));
            sim.report()
        } else {
            let cfg = from_system(&sys, &o).expect("convertible");
            let mut sim = Sim::new(cfg, so).expect("valid");
            sim.observe_chains(chains::from_system(&sys));
            sim.run_until(Picos::from_ms(300));
            sim.report()
        };
        for t in &edf {
            let (Some(b), Some(m)) = (
                t.bound_ns,
                rep.tasks
                    .iter()
                    .find(|x| x.name == t.name)
                    .and_then(|x| x.max_response_ns),
            ) else {
                continue;
            };
            tasks_cmp += 1;
            assert!(
                m <= b + 1e-6,
                "set {k}: EDF task {} observed {m} > Spuri bound {b}\n{}",
                t.name,
                sys.to_toml_string()
            );
        }
        let (bound, seen) = (&chains[0], &rep.chains[0]);
        let Some(b) = bound.bound_ps.map(|p| p as f64 / 1000.0) else {
            continue;
        };
        let Some(o) = seen.max_ns else { continue };
        compared += 1;
        if sys.chains[0].links.contains(&Link::Event) {
            events += 1;
        }
        assert!(
            o <= b + 1e-6,
            "set {k}: chain {:?} observed {o} ns > bound {b} ns\n{}",
            bound.steps,
            sys.to_toml_string()
        );
        hist[((o / b) * 10.0).floor().clamp(0.0, 10.0) as usize] += 1;
        if let (Some(ab), Some(ao)) = (bound.age_ns, seen.age_max_ns) {
            ages += 1;
            assert!(
                ao <= ab + 1e-6,
                "set {k}: chain {:?} data age {ao} ns > bound {ab} ns\n{}",
                bound.steps,
                sys.to_toml_string()
            );
        }
    }
    println!(
        "{n} sets: chains compared {compared} (with an event link {events}, data ages {ages}), \
         EDF task responses {tasks_cmp}, sets skipped {skipped}; observed/bound (tenths): \
         {hist:?}"
    );
    assert!(compared >= n / 3, "only {compared} chains compared");
    assert!(
        events >= n / 6,
        "only {events} chains with an event link compared"
    );
    assert!(ages >= n / 20, "only {ages} data ages compared");
}
