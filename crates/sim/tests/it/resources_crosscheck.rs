//! Simulation against analysis with shared resources: 1,000 random task sets (UUniFast,
//! 2 to 8 tasks, U 0.3 to 0.9, periods 2 to 200 ms) with two or three resources and
//! critical sections in most tasks, a third of the sets under each protocol
//! (inheritance, immediate ceiling, kernel critical section) and every fourth set
//! mixing them; half with lock/unlock/inherit costs, half with Miranda et al.'s
//! overheads (else overhead-free), a third with an interrupt handler (with a kernel
//! critical section when it is kernel-level), a third with execution times uniform in
//! [WCET / 2, WCET] (sections past a shorter job's end are not run), release jitter in
//! some tasks. For every task and both tick accounting modes: no simulated response
//! above the analysed WCRT, and no job blocked (lower-priority tasks running while it
//! is pending) longer than the analysed blocking.
//!
//! Nesting: resources of every protocol are nested in some sets. FreeRTOS and Zephyr
//! raise only the direct holder of a mutex (no propagation along a chain,
//! `inheritance_chain_across_two_mutexes` in resources.rs), which the
//! Sha–Rajkumar–Lehoczky bound does not cover: the analysis gives the exposed tasks no
//! bound (`NESTED_INHERITANCE`), so they are not compared; every other task is.
//! `inheritance_chain_is_not_given_a_bound` analyses that chain case itself.

use latscope_core::Picos;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::overheads::tick::TickCosts;
use latscope_model::resource::blocking::{
    nested_inheritance_exposed, INHERITANCE_DEADLOCK, NESTED_INHERITANCE,
};
use latscope_model::resource::{LockCosts, Protocol, Resource, Resources, Section};
use latscope_model::rta::analyze_mode;
use latscope_model::system::{Interrupt, KernelCosts, TickMode};
use latscope_model::{AnalysisOptions, System};
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SETS: usize = 1000;

fn spec(k: usize) -> GenerateSpec {
    GenerateSpec {
        tasks: 2 + k % 7,
        utilisation: 0.3 + 0.6 * ((k * 37 % 100) as f64 / 100.0),
        method: Method::UUniFast,
        max_task_utilisation: 1.0,
        period_min: Picos::from_ms(2),
        period_max: Picos::from_ms(200),
        granularity: Picos::from_ms(1),
        periods: Default::default(),
        seed: 7000 + k as u64,
    }
}

fn protocol(k: usize, rng: &mut ChaCha8Rng) -> Protocol {
    let all = [Protocol::Inheritance, Protocol::Ceiling, Protocol::Critical];
    if k % 4 == 3 {
        all[rng.gen_range(0..3)]
    } else {
        all[k % 3]
    }
}

/// Adds resources and sections to a generated set.
fn add_resources(sys: &mut System, k: usize, rng: &mut ChaCha8Rng) {
    let nres = 2 + k % 2;
    let list: Vec<Resource> = (0..nres)
        .map(|r| Resource {
            name: format!("r{r}"),
            protocol: protocol(k, rng),
        })
        .collect();
    let mut tasks = Vec::with_capacity(sys.tasks.len());
    for t in &sys.tasks {
        let mut secs: Vec<Section> = Vec::new();
        if rng.gen_bool(0.75) {
            // one to three sections in order through the job, each at most a fifth of
            // the WCET (kernel critical sections at most 200 us, as real ones are short)
            let c = t.wcet.0;
            let mut pos = rng.gen_range(0..=c / 4);
            for _ in 0..rng.gen_range(1..=3) {
                let r = rng.gen_range(0..nres);
                let cap = if list[r].protocol == Protocol::Critical {
                    (c / 5).min(200_000_000)
                } else {
                    c / 5
                };
                if cap < 1_000_000 || pos + cap > c {
                    break;
                }
                let d = rng.gen_range(1_000_000..=cap);
                let outer = secs.len();
                secs.push(Section {
                    resource: r,
                    duration: Picos(d),
                    at: Picos(pos),
                    inside: None,
                });
                // nest another resource of the same protocol inside
                let p = list[r].protocol;
                let inner = (0..nres).find(|&o| o != r && list[o].protocol == p);
                if let (Some(o), true) = (inner, rng.gen_bool(0.3)) {
                    let at = pos + rng.gen_range(0..=d / 2);
                    let dd = rng.gen_range(1..=(pos + d - at));
                    secs.push(Section {
                        resource: o,
                        duration: Picos(dd),
                        at: Picos(at),
                        inside: Some(outer),
                    });
                }
                pos += d + rng.gen_range(0..=c / 4);
            }
        }
        tasks.push(secs);
    }
    let costs = if k.is_multiple_of(2) {
        LockCosts {
            lock: Picos::from_ns(rng.gen_range(0..=2_000)),
            unlock: Picos::from_ns(rng.gen_range(0..=2_000)),
            inherit: Picos::from_ns(rng.gen_range(0..=2_000)),
        }
    } else {
        LockCosts::default()
    };
    let mut interrupts = vec![Vec::new(); sys.interrupts.len()];
    let crit = list.iter().position(|r| r.protocol == Protocol::Critical);
    for (x, q) in sys.interrupts.iter().enumerate() {
        if let (false, Some(r)) = (q.above_kernel, crit) {
            let d = rng.gen_range(1_000_000..=q.wcet.0 / 2);
            interrupts[x].push(Section {
                resource: r,
                duration: Picos(d),
                at: Picos(rng.gen_range(0..=q.wcet.0 - d)),
                inside: None,
            });
        }
    }
    sys.resources = Resources {
        list,
        tasks,
        interrupts,
        costs,
    };
}

fn simulate(sys: &System, seed: u64, uniform: bool) -> SimReport {
    let o = FromSystemOptions {
        exec: if uniform {
            ExecMode::Uniform
        } else {
            ExecMode::Auto
        },
        ..Default::default()
    };
    let cfg = from_system(sys, &o).expect("convertible");
    let horizon = cfg
        .hyperperiod()
        .unwrap_or(Picos::from_ms(2_000))
        .min(Picos::from_ms(2_000));
    let mut sim = Sim::new(
        cfg,
        SimOptions {
            seed,
            ..Default::default()
        },
    )
    .expect("valid");
    sim.run_until(horizon);
    sim.report()
}

#[test]
fn simulation_with_resources_never_exceeds_rta() {
    let mut compared = 0;
    let mut contended = 0u64;
    let mut inherited = 0u64;
    let mut blocked_jobs = 0;
    let mut exposed = 0;
    let (mut deadlock, mut newly_bounded, mut still_unbounded) = (0, 0, 0);
    let mut worst = (0.0f64, 0usize, String::new());
    for k in 0..SETS {
        let mut sys = generate(&freertos_template(), &spec(k), 1)
            .expect("generated")
            .remove(0);
        let mut rng = ChaCha8Rng::seed_from_u64(0x16_0000 + k as u64);
        if k % 2 == 1 {
            sys.kernel.costs = KernelCosts::Tick(TickCosts::default());
            sys.platform.irq_entry_cycles = 0;
        }
        for t in &mut sys.tasks {
            if rng.gen_bool(0.2) {
                t.jitter = Picos::from_us(rng.gen_range(0..=t.period().0 / 10 / 1_000_000));
            }
        }
        let uniform = k % 3 == 2;
        if uniform {
            for t in &mut sys.tasks {
                t.bcet = Picos(t.wcet.0 / 2);
            }
        }
        if k % 3 == 1 {
            sys.interrupts.push(Interrupt {
                name: "irq".into(),
                min_interarrival: Picos::from_us(rng.gen_range(700..=5_000)),
                wcet: Picos::from_us(rng.gen_range(5..=50)),
                priority: 1,
                above_kernel: k % 2 == 0,
                releases: None,
                offset: Picos::ZERO,
                periodic: false,
                core: 0,
            });
        }
        add_resources(&mut sys, k, &mut rng);
        let rep = simulate(&sys, k as u64, uniform);
        for r in &rep.resources {
            contended += r.contended;
            inherited += r.inheritances;
        }
        let opts = AnalysisOptions::default();
        let nested = nested_inheritance_exposed(&sys);
        for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
            for a in analyze_mode(&sys, &opts, mode).unwrap() {
                let s = rep.tasks.iter().find(|t| *t.name == *a.name).expect("task");
                let why = a.unbounded_reason.as_deref();
                if why == Some(INHERITANCE_DEADLOCK) {
                    assert!(a.wcrt_ps.is_none() && !a.schedulable);
                    deadlock += 1;
                    continue;
                }
                // Formerly unbounded: exposed to a chain of nested inheritance mutexes.
                let idx = sys
                    .tasks
                    .iter()
                    .position(|t| *t.name == *a.name)
                    .expect("task");
                let chain = nested[idx];
                assert_ne!(why, Some(NESTED_INHERITANCE), "set {k}: {}", a.name);
                if chain {
                    exposed += 1;
                    match (a.wcrt_ps, s.max_response_ns) {
                        (Some(w), Some(m)) => {
                            let ratio = m / (w as f64 / 1000.0);
                            if ratio > worst.0 {
                                worst = (ratio, k, a.name.to_string());
                            }
                            newly_bounded += 1;
                        }
                        (Some(_), None) => newly_bounded += 1,
                        (None, _) => still_unbounded += 1,
                    }
                }
                if s.max_blocking_ns > 0.0 {
                    blocked_jobs += 1;
                }
                let Some(w) = a.wcrt_ps else { continue };
                compared += 1;
                let wns = w as f64 / 1000.0;
                if let Some(m) = s.max_response_ns {
                    assert!(
                        m <= wns,
                        "set {k} ({mode:?}) task {}: simulated {m} ns > WCRT {wns} ns",
                        a.name
                    );
                }
                assert!(
                    s.max_blocking_ns <= a.blocking_ns,
                    "set {k} ({mode:?}) task {}: blocked {} ns > analysed blocking {} ns",
                    a.name,
                    s.max_blocking_ns,
                    a.blocking_ns
                );
            }
        }
    }
    eprintln!("compared {compared} WCRTs; {contended} contentions, {inherited} inheritances; {blocked_jobs} task-mode pairs with blocking; {deadlock} task-mode pairs unbounded by a possible deadlock");
    eprintln!(
        "nested inheritance chains: {exposed} task-mode pairs exposed (formerly unbounded), \
         {newly_bounded} now bounded and compared, {still_unbounded} unbounded (fixed point \
         diverges); worst simulated/bound {:.3} (set {}, task {})",
        worst.0, worst.1, worst.2
    );
    assert!(newly_bounded > 100, "{newly_bounded}");
    // The sets exercise the protocols: contention, inheritance, blocking all happen.
    assert!(compared > 4000, "{compared}");
    assert!(contended > 100, "{contended}");
    assert!(inherited > 50, "{inherited}");
    assert!(blocked_jobs > 500, "{blocked_jobs}");
    assert!(exposed > 20, "{exposed}");
}

/// The inheritance chain of `inheritance_chain_across_two_mutexes` (resources.rs) as a
/// system file: L (1) holds A 0..3 ms; M (2, released at 1 ms) takes B for 2 ms and,
/// inside it, A at 0.5 ms; X (3) and H (4) released at 2 ms, H takes B. M holds B while
/// it waits for A held by L, which FreeRTOS raises only to 2: X runs while H waits, and
/// H responds in 5 ms, 1 ms more than the Sha–Rajkumar–Lehoczky bound allows (its
/// blocking B_l = M's B section, 2 ms).
///
/// The nested bound (docs/resources.md), worked by hand: the only task that holds an
/// inheritance mutex while waiting for another is M, so the floor is f = 2 and H is
/// analysed at priority 2: X (3 > 2) and M (2, equal) interfere with whole jobs, 1 ms +
/// 3 ms (one job each: the window is below their 20 ms periods); L (1 < 2) blocks by
/// the classic bound with its A section (ceiling of A = 2 >= f), 3 ms. Overhead-free:
/// R = C_H + B + I = 1 + 3 + (1 + 3) = 8 ms, of which 7 ms is lower-priority tasks
/// (L holding A 3 ms, X and M preempting the chain 1 ms and 3 ms). Simulated: 5 ms.
/// The others keep their classic bounds, at or above their simulated responses.
#[test]
fn inheritance_chain_gets_the_nested_bound() {
    let toml = "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n\
        [[resource]]\nname = \"A\"\nprotocol = \"inheritance\"\n\
        [[resource]]\nname = \"B\"\nprotocol = \"inheritance\"\n\
        [[task]]\nname = \"L\"\nperiod = \"20ms\"\nwcet = \"4ms\"\npriority = 1\n\
        critical = [{ resource = \"A\", duration = \"3ms\" }]\n\
        [[task]]\nname = \"M\"\nperiod = \"20ms\"\nwcet = \"3ms\"\npriority = 2\noffset = \"1ms\"\n\
        critical = [{ resource = \"B\", duration = \"2ms\" }, \
        { resource = \"A\", duration = \"1ms\", at = \"500us\", inside = \"B\" }]\n\
        [[task]]\nname = \"X\"\nperiod = \"20ms\"\nwcet = \"1ms\"\npriority = 3\noffset = \"2ms\"\n\
        [[task]]\nname = \"H\"\nperiod = \"20ms\"\nwcet = \"1ms\"\npriority = 4\noffset = \"2ms\"\n\
        critical = [{ resource = \"B\", duration = \"500us\" }]\n";
    let mut sys = System::from_toml_str(toml, "chain.toml").expect("valid");
    // Overhead-free, as the hand-worked timeline.
    sys.kernel.costs = KernelCosts::Tick(TickCosts::default());
    sys.platform.irq_entry_cycles = 0;
    let a = latscope_model::rta::analyze(&sys, &AnalysisOptions::default()).unwrap();
    assert!(
        a.notes
            .iter()
            .any(|n| n.starts_with("nested inheritance mutexes: H: ")),
        "{:?}",
        a.notes
    );
    let cfg = from_system(&sys, &FromSystemOptions::default()).expect("convertible");
    let mut sim = Sim::new(cfg, SimOptions::default()).expect("valid");
    sim.run_until(Picos::from_ms(20));
    let rep = sim.report();
    let sim_resp = |n: &str| {
        let t = rep.tasks.iter().find(|t| t.name == n).expect("task");
        t.max_response_ns.expect("completed")
    };
    // The simulator reproduces the chain: H waits 4 ms (X, L and M run meanwhile).
    assert_eq!(sim_resp("H"), 5e6);
    for t in &a.tasks {
        let w = t.wcrt_ns.expect("bounded");
        assert!(t.unbounded_reason.is_none(), "{}", t.name);
        assert!(
            w >= sim_resp(&t.name),
            "{}: {w} < {}",
            t.name,
            sim_resp(&t.name)
        );
        if &*t.name == "H" {
            assert_eq!(t.wcrt_ps, Some(8_000_000_000));
            assert_eq!(t.blocking_ns, 7e6);
            let mut from: Vec<(String, String, f64)> = t
                .blocking_from
                .iter()
                .map(|b| (b.task.clone(), b.resource.clone(), b.duration_ns))
                .collect();
            from.sort_by(|x, y| x.0.cmp(&y.0));
            let chain = latscope_model::resource::nested::PREEMPTS_CHAIN.to_string();
            assert_eq!(
                from,
                [
                    ("L".into(), "A".into(), 3e6),
                    ("M".into(), chain.clone(), 3e6),
                    ("X".into(), chain, 1e6),
                ]
            );
            // The priority reported is H's own.
            assert_eq!(t.priority, 4);
        }
    }
}
