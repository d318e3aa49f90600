//! End-to-end chains across cores, simulation against analysis (docs/analysis.md,
//! "Chains across cores"): random partitioned systems of 2 to 4 cores (UUniFast per
//! core, 1 to 4 tasks each, the FreeRTOS overheads paper's costs, an inter-core
//! interrupt of 0 to 20 us) with one or two chains whose steps sit on different cores,
//! in five shapes: an event chain of two or three tasks, a sampled chain of two or three
//! tasks, an interrupt releasing a task on another core that releases a third (event),
//! an interrupt releasing a task that a task on another core samples, and an event link
//! across cores followed by a sampled one. For every bounded chain: no simulated
//! latency (event), reaction time or data age (sampled) above the analysed one; and no
//! simulated task response above its analysed WCRT.
//!
//! `LATSCOPE_CHAIN_MC_SETS=10000 cargo test --release -p latscope-sim --test
//! it chains_multicore:: -- --nocapture` runs more sets and prints the tightness histogram
//! (simulated maximum / bound) recorded in docs/analysis.md.
//!
//! A second harness (a quarter as many sets) gives every chain with a sampled link
//! `read = "start"` and adds a sampled chain of two tasks on one core (random
//! priorities): no simulated reaction time or data age above the analysed one (Dürr et
//! al.'s terms where a link qualifies, docs/analysis.md, "Sampled links read at start").

use latscope_core::Picos;
use latscope_model::chain::{Chain, Link, ReadAt, Step};
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::rta::analyze;
use latscope_model::system::Interrupt;
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common::{self, check_chain, run_multi_seeded, sporadic, task_chain};

fn sets() -> usize {
    std::env::var("LATSCOPE_CHAIN_MC_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// Three tasks on pairwise different cores where there are enough cores (a task of
/// core `c0`, then one of another core, then one of a third or the first).
fn pick_across(sys: &System, rng: &mut ChaCha8Rng, used: &[usize]) -> Option<[usize; 3]> {
    let free: Vec<usize> = (0..sys.tasks.len()).filter(|i| !used.contains(i)).collect();
    let a = *free.get(rng.gen_range(0..free.len().max(1)))?;
    let other = |x: usize, not: &[usize]| -> Vec<usize> {
        free.iter()
            .copied()
            .filter(|&i| sys.tasks[i].core != sys.tasks[x].core && !not.contains(&i))
            .collect()
    };
    let bs = other(a, &[]);
    let b = *bs.get(rng.gen_range(0..bs.len().max(1)))?;
    let cs = other(b, &[a]);
    let c = *cs.get(rng.gen_range(0..cs.len().max(1)))?;
    Some([a, b, c])
}

/// One random multicore system with chains across cores, validated by writing and
/// reading it back.
fn system(k: usize) -> Option<System> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x28_c000 + k as u64);
    let cores: u32 = [2, 2, 3, 4][k % 4];
    let mut sys = freertos_template();
    sys.platform.cores = cores;
    sys.kernel.ipi = Picos::from_ns(rng.gen_range(0..=20_000));
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
            seed: 0x28_d000 + 10 * k as u64 + c as u64,
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
        let [a, b, c] = pick_across(&sys, &mut rng, &used)?;
        let three = rng.gen_bool(0.5);
        let periodic = rng.gen_bool(0.5);
        let add_irq = |sys: &mut System, rng: &mut ChaCha8Rng, releases: usize| {
            let t = sys.tasks[releases].period();
            // On another core than the task half of the time (a cross-core release).
            let core = if rng.gen_bool(0.5) {
                (sys.tasks[releases].core + rng.gen_range(1..cores)) % cores
            } else {
                sys.tasks[releases].core
            };
            sys.interrupts.push(Interrupt {
                name: format!("irq{ci}"),
                min_interarrival: t,
                wcet: Picos::from_us(rng.gen_range(5..=60)),
                priority: rng.gen_range(1..=3),
                above_kernel: false,
                releases: Some(releases),
                offset: Picos::from_us(rng.gen_range(0..=t.0 / 1_000_000)),
                periodic,
                core,
            });
            sys.tasks[releases].released_by = Some(sys.interrupts.len() - 1);
            sporadic(sys, releases, t);
            Step::Interrupt(sys.interrupts.len() - 1)
        };
        let (steps, links) = match (k / 4 + ci) % 5 {
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
                let q = add_irq(&mut sys, &mut rng, a);
                let ta = sys.tasks[a].period();
                sporadic(&mut sys, b, ta);
                (
                    vec![q, Step::Task(a), Step::Task(b)],
                    vec![Link::Event, Link::Event],
                )
            }
            3 => {
                let q = add_irq(&mut sys, &mut rng, a);
                (
                    vec![q, Step::Task(a), Step::Task(b)],
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
        common::push_chain(&mut sys, &mut used, format!("chain{ci}"), (steps, links));
    }
    System::from_toml_str(&sys.to_toml_string(), &format!("mcchain{k}")).ok()
}

#[test]
fn simulated_chains_across_cores_never_exceed_their_bounds() {
    let n = sets();
    let mut hist = [0usize; 11];
    let (mut compared, mut ages, mut tasks_cmp, mut skipped, mut crossing) = (0, 0, 0, 0, 0);
    for k in 0..n {
        let Some(sys) = system(k) else {
            skipped += 1;
            continue;
        };
        let res = analyze(&sys, &AnalysisOptions::default()).expect("analysable");
        let exec = if k.is_multiple_of(2) {
            ExecMode::Uniform
        } else {
            ExecMode::Auto
        };
        let rep = run_multi_seeded(&sys, k, Some(exec), Picos::from_ms(300));
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
                "set {k}: task {} observed {o} > WCRT {w}\n{}",
                t.name,
                sys.to_toml_string()
            );
        }
        assert_eq!(rep.chains.len(), sys.chains.len(), "set {k}");
        for (ci, (bound, seen)) in res.chains.iter().zip(&rep.chains).enumerate() {
            let c = &sys.chains[ci];
            let cores: std::collections::BTreeSet<u32> = c
                .steps
                .iter()
                .map(|s| match *s {
                    Step::Task(i) => sys.tasks[i].core,
                    Step::Interrupt(q) => sys.interrupts[q].core,
                })
                .collect();
            assert!(cores.len() > 1, "set {k}: chain {ci} on one core");
            let Some(aged) = check_chain(k, &sys, bound, seen, &mut hist) else {
                continue;
            };
            compared += 1;
            if c.links.contains(&Link::Event) {
                crossing += 1;
            }
            ages += usize::from(aged);
        }
    }
    println!(
        "{n} sets: chains compared {compared} (with an event link {crossing}, data ages \
         {ages}), task responses {tasks_cmp}, sets skipped {skipped}"
    );
    for (b, c) in hist.iter().enumerate() {
        if b == 10 {
            println!("  1.0 (equal): {c}");
        } else {
            println!("  {:.1}-{:.1}: {c}", b as f64 / 10.0, (b + 1) as f64 / 10.0);
        }
    }
    assert!(compared >= n / 2, "only {compared} chains compared");
    assert!(crossing >= n / 4, "only {crossing} event chains compared");
    assert!(ages >= n / 20, "only {ages} data ages compared");
}

/// An event link across cores: the inter-core interrupt runs on the successor's core
/// once per completed predecessor job, the successor's response counts from the chain
/// head's release, and the chain is observed end to end.
#[test]
fn event_link_across_cores_raises_the_ipi() {
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
period = "10ms"
wcet = "1ms"
priority = 3
[[task]]
name = "B"
min_interarrival = "10ms"
wcet = "2ms"
priority = 2
core = 1
[[chain]]
name = "ab"
steps = ["A", "B"]
links = ["event"]
"#;
    let sys = System::from_toml_str(text, "ab.toml").expect("valid");
    let res = analyze(&sys, &AnalysisOptions::default()).expect("analysed");
    let mut sim =
        MultiSim::new(&sys, &FromSystemOptions::default(), SimOptions::default()).expect("sim");
    sim.run_until(Picos::from_ms(1000));
    let rep = sim.report();
    let ipi = rep
        .interrupts
        .iter()
        .find(|x| x.name == "ipi<A")
        .expect("the inter-core interrupt of A's completions");
    let a = rep.tasks.iter().find(|t| t.name == "A").expect("A");
    let b = rep.tasks.iter().find(|t| t.name == "B").expect("B");
    assert!(a.jobs >= 99, "{}", a.jobs);
    assert!(
        ipi.count + 1 >= a.jobs && ipi.count <= a.jobs,
        "{}",
        ipi.count
    );
    assert!(b.jobs + 1 >= a.jobs, "{} {}", b.jobs, a.jobs);
    // B's response counts from A's release: at least A's and B's execution.
    let bmin = b.max_response_ns.expect("B ran");
    assert!(bmin >= 3_000_000.0, "{bmin}");
    let ch = &rep.chains[0];
    assert_eq!(ch.count, b.jobs);
    let bound = res.chains[0].bound_ns.expect("bounded");
    let seen = ch.max_ns.expect("observed");
    assert!(seen <= bound, "{seen} > {bound}");
    // The bound holds B's response with A's as release jitter and the inter-core
    // interrupt in front: above A's bound plus B's WCET plus the ipi cost.
    let ra = res
        .tasks
        .iter()
        .find(|t| &*t.name == "A")
        .and_then(|t| t.wcrt_ns);
    let ra = ra.expect("A bounded");
    assert!(bound >= ra + 2_000_000.0 + 3_000.0, "{bound} vs {ra}");
    assert_eq!(
        Some(bound),
        res.tasks
            .iter()
            .find(|t| &*t.name == "B")
            .and_then(|t| t.wcrt_ns)
    );
}

/// [`system`] with its sampled chains reading at start, plus a sampled chain reading at
/// start between two tasks of one core that no chain uses.
fn start_system(k: usize) -> Option<System> {
    let mut sys = system(k)?;
    for c in &mut sys.chains {
        if c.links.contains(&Link::Sampled) {
            c.read = ReadAt::Start;
        }
    }
    let used: Vec<usize> = sys
        .chains
        .iter()
        .flat_map(|c| c.steps.iter())
        .filter_map(|s| match *s {
            Step::Task(i) => Some(i),
            Step::Interrupt(_) => None,
        })
        .collect();
    let free: Vec<usize> = (0..sys.tasks.len()).filter(|i| !used.contains(i)).collect();
    let pair = free.iter().find_map(|&a| {
        free.iter()
            .find(|&&b| b != a && sys.tasks[b].core == sys.tasks[a].core)
            .map(|&b| (a, b))
    });
    if let Some((a, b)) = pair {
        // Writer first by index: the generator's priorities make it above or below.
        sys.chains.push(Chain {
            name: "local".into(),
            steps: vec![Step::Task(a), Step::Task(b)],
            links: vec![Link::Sampled],
            deadline: None,
            read: ReadAt::Start,
        });
    }
    System::from_toml_str(&sys.to_toml_string(), &format!("mcstart{k}")).ok()
}

#[test]
fn start_read_chains_on_cores_never_exceed_their_bounds() {
    let n = sets() / 4;
    let mut hist = [0usize; 11];
    let (mut compared, mut tightened, mut ages) = (0, 0, 0);
    for k in 0..n {
        let Some(sys) = start_system(k) else {
            continue;
        };
        let res = analyze(&sys, &AnalysisOptions::default()).expect("analysable");
        let rep = run_multi_seeded(&sys, k, Some(ExecMode::Uniform), Picos::from_ms(300));
        assert_eq!(rep.chains.len(), sys.chains.len(), "set {k}");
        for (bound, seen) in res.chains.iter().zip(&rep.chains) {
            if let (Some(r), Some(d)) = (bound.reaction_ns, bound.davare_reaction_ns) {
                assert!(r <= d + 1e-6, "set {k}: Dürr {r} above Davare {d}");
            }
            let Some(aged) = check_chain(k, &sys, bound, seen, &mut hist) else {
                continue;
            };
            compared += 1;
            tightened += usize::from(bound.duerr_links.as_ref().is_some_and(|l| !l.is_empty()));
            ages += usize::from(aged);
        }
    }
    println!(
        "read = start, {n} sets: chains compared {compared} (with a Dürr link {tightened}, \
         data ages {ages})"
    );
    for (b, c) in hist.iter().enumerate() {
        if b == 10 {
            println!("  1.0 (equal): {c}");
        } else {
            println!("  {:.1}-{:.1}: {c}", b as f64 / 10.0, (b + 1) as f64 / 10.0);
        }
    }
    assert!(compared >= n / 2, "only {compared} chains compared");
    assert!(
        tightened >= n / 10,
        "only {tightened} chains with a Dürr link"
    );
}
