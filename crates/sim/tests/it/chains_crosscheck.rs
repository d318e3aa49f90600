//! End-to-end chains, simulation against analysis: 1,000 random single-core systems
//! (UUniFast, 3 to 8 tasks, U 0.2 to 0.7, periods 2 to 100 ms, FreeRTOS costs or none)
//! with one chain each, in five shapes: an event chain of two or three tasks, a sampled
//! chain of two or three tasks, an interrupt releasing a task that releases another
//! (event), an interrupt releasing a task that a periodic task samples, and a task
//! releasing another that a third samples. The interrupt is periodic in half the sets
//! (so the data age is bounded). For every chain with a bound: no simulated latency
//! (event), reaction time or data age (sampled) above the analysed one; and no simulated
//! task response above its analysed (holistic) WCRT. The ratios observed / bound are
//! printed as a histogram (docs/analysis.md, "End-to-end chains").
//!
//! A second harness runs the sampled shape (two or three tasks, random priorities, so
//! about half the links have a writer above its reader) with `read = "start"`: no
//! simulated reaction time or data age above the analysed one, which is Dürr et al.'s
//! where a link qualifies (docs/analysis.md, "Sampled links read at start"), and that
//! never above Davare et al.'s. `LATSCOPE_CHAIN_START_SETS=10000 cargo test --release
//! -p latscope-sim --test it chains_crosscheck:: -- --nocapture` runs more sets.

use latscope_core::Picos;
use latscope_model::chain::{Chain, Link, ReadAt, Step};
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::overheads::tick::TickCosts;
use latscope_model::rta::analyze;
use latscope_model::system::{Interrupt, KernelCosts};
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{check_chain, sporadic, task_chain};

const SETS: usize = 1000;

fn spec(k: usize) -> GenerateSpec {
    GenerateSpec {
        tasks: 3 + k % 6,
        utilisation: 0.2 + 0.5 * ((k * 37 % 100) as f64 / 100.0),
        method: Method::UUniFast,
        max_task_utilisation: 1.0,
        period_min: Picos::from_ms(2),
        period_max: Picos::from_ms(100),
        granularity: Picos::from_ms(1),
        periods: Default::default(),
        seed: 9100 + k as u64,
    }
}

fn add_irq(sys: &mut System, rng: &mut ChaCha8Rng, releases: usize, periodic: bool) {
    let t = sys.tasks[releases].period();
    sys.interrupts.push(Interrupt {
        name: "irq".into(),
        min_interarrival: t,
        wcet: Picos::from_us(rng.gen_range(5..=60)),
        priority: 1,
        above_kernel: false,
        releases: Some(releases),
        offset: Picos::from_us(rng.gen_range(0..=t.0 / 1_000_000)),
        periodic,
        core: 0,
    });
    sys.tasks[releases].released_by = Some(sys.interrupts.len() - 1);
    let t = sys.tasks[releases].period();
    sporadic(sys, releases, t);
}

/// One random system with one chain, validated by writing and reading it back.
fn system(k: usize) -> Option<System> {
    system_read(k, ReadAt::Release)
}

/// [`system`] with the chain's readers reading at `read` (a chain with a sampled link).
fn system_read(k: usize, read: ReadAt) -> Option<System> {
    let mut sys = generate(&freertos_template(), &spec(k), 1).ok()?.remove(0);
    let mut rng = ChaCha8Rng::seed_from_u64(0x28_0000 + k as u64);
    if k % 2 == 1 {
        sys.kernel.costs = KernelCosts::Tick(TickCosts::default());
        sys.platform.irq_entry_cycles = 0;
    }
    let n = sys.tasks.len();
    let mut pick: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        pick.swap(i, rng.gen_range(0..=i));
    }
    let (a, b, c) = (pick[0], pick[1], pick[2]);
    let three = rng.gen_bool(0.5);
    let periodic = k % 4 < 2;
    let (steps, links) = match k % 5 {
        0 => {
            let ta = sys.tasks[a].period();
            sporadic(&mut sys, b, ta);
            if three {
                sporadic(&mut sys, c, ta);
            }
            task_chain(a, b, three.then_some(c), Link::Event)
        }
        1 => task_chain(a, b, three.then_some(c), Link::Sampled),
        2 => {
            add_irq(&mut sys, &mut rng, a, periodic);
            let ta = sys.tasks[a].period();
            sporadic(&mut sys, b, ta);
            (
                vec![Step::Interrupt(0), Step::Task(a), Step::Task(b)],
                vec![Link::Event, Link::Event],
            )
        }
        3 => {
            add_irq(&mut sys, &mut rng, a, periodic);
            (
                vec![Step::Interrupt(0), Step::Task(a), Step::Task(b)],
                vec![Link::Event, Link::Sampled],
            )
        }
        _ => {
            let ta = sys.tasks[a].period();
            sporadic(&mut sys, b, ta);
            (
                vec![Step::Task(a), Step::Task(b), Step::Task(c)],
                vec![Link::Event, Link::Sampled],
            )
        }
    };
    sys.chains.push(Chain {
        name: "c".into(),
        steps,
        read: if links.contains(&Link::Sampled) {
            read
        } else {
            ReadAt::Release
        },
        links,
        deadline: None,
    });
    System::from_toml_str(&sys.to_toml_string(), &format!("set{k}")).ok()
}

#[test]
fn simulated_chains_never_exceed_their_bounds() {
    let mut hist = [0usize; 11];
    let (mut compared, mut ages, mut tasks_cmp, mut skipped) = (0, 0, 0, 0);
    for k in 0..SETS {
        let Some(sys) = system(k) else {
            skipped += 1;
            continue;
        };
        let res = analyze(&sys, &AnalysisOptions::default()).expect("analysable");
        let cfg = from_system(&sys, &FromSystemOptions::default()).expect("convertible");
        let horizon = cfg
            .hyperperiod()
            .unwrap_or(Picos::from_ms(1_000))
            .min(Picos::from_ms(1_000));
        let mut sim = Sim::new(
            cfg,
            SimOptions {
                seed: k as u64,
                ..Default::default()
            },
        )
        .expect("valid");
        sim.observe_chains(chains::from_system(&sys));
        sim.run_until(horizon);
        let rep = sim.report();
        for t in &res.tasks {
            let (Some(w), Some(o)) = (
                t.wcrt_ns,
                rep.tasks
                    .iter()
                    .find(|x| *x.name == *t.name)
                    .and_then(|x| x.max_response_ns),
            ) else {
                continue;
            };
            tasks_cmp += 1;
            assert!(
                o <= w + 1e-6,
                "set {k}: task {} observed {o} > WCRT {w}",
                t.name
            );
        }
        let (bound, seen) = (&res.chains[0], &rep.chains[0]);
        let Some(aged) = check_chain(k, &sys, bound, seen, &mut hist) else {
            continue;
        };
        compared += 1;
        ages += usize::from(aged);
    }
    eprintln!(
        "chains compared: {compared} (data ages {ages}), task responses {tasks_cmp}, \
         sets skipped {skipped}; observed/bound histogram (tenths): {hist:?}"
    );
    assert!(compared >= SETS / 2, "only {compared} chains compared");
    assert!(ages >= SETS / 10, "only {ages} data ages compared");
}

fn start_sets() -> usize {
    std::env::var("LATSCOPE_CHAIN_START_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600)
}

#[test]
fn start_read_chains_never_exceed_duerrs_bound() {
    let sets = start_sets();
    let mut hist = [0usize; 11];
    let (mut compared, mut tightened, mut ages, mut below_davare) = (0, 0, 0, 0);
    for j in 0..sets {
        // The sampled shape of `system` (k % 5 == 1).
        let k = 5 * j + 1;
        let Some(sys) = system_read(k, ReadAt::Start) else {
            continue;
        };
        let res = analyze(&sys, &AnalysisOptions::default()).expect("analysable");
        let bound = &res.chains[0];
        if let (Some(r), Some(d)) = (bound.bound_ps, bound.davare_reaction_ns) {
            let r = r as f64 / 1000.0;
            assert!(r <= d + 1e-6, "set {k}: Dürr {r} above Davare {d}");
            below_davare += usize::from(r < d);
        }
        if let (Some(a), Some(d)) = (bound.age_ns, bound.davare_age_ns) {
            assert!(a <= d + 1e-6, "set {k}: Dürr age {a} above Davare {d}");
        }
        let used = bound.duerr_links.as_ref().map_or(0, Vec::len);
        let cfg = from_system(&sys, &FromSystemOptions::default()).expect("convertible");
        let horizon = cfg
            .hyperperiod()
            .unwrap_or(Picos::from_ms(1_000))
            .min(Picos::from_ms(1_000));
        let mut sim = Sim::new(
            cfg,
            SimOptions {
                seed: k as u64,
                ..Default::default()
            },
        )
        .expect("valid");
        sim.observe_chains(chains::from_system(&sys));
        sim.run_until(horizon);
        let rep = sim.report();
        let Some(aged) = check_chain(k, &sys, bound, &rep.chains[0], &mut hist) else {
            continue;
        };
        compared += 1;
        tightened += usize::from(used > 0);
        ages += usize::from(aged);
    }
    eprintln!(
        "read = start: chains compared {compared} (with a Dürr link {tightened}, data ages \
         {ages}), reaction below Davare's in {below_davare}; observed/bound histogram \
         (tenths): {hist:?}"
    );
    assert!(compared >= sets / 2, "only {compared} chains compared");
    assert!(
        tightened >= sets / 5,
        "only {tightened} chains with a Dürr link"
    );
}
