//! The offset-based bound for non-deterministic sets (latscope_model::rta::offsets) is
//! at or above every simulated response on random sets with offsets, release jitter and
//! sporadic interrupts, and at or below the offset-free bound.

use latscope_core::Picos;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::rta::offsets::{offset_bound, offset_bound_with, IrqPhasing, OffsetBound};
use latscope_model::rta::{analyze_mode, AnalysisOptions};
use latscope_model::system::TickMode;
use latscope_model::System;
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn offset_bound_is_above_every_simulated_response() {
    let (mut compared, mut tighter) = (0u32, 0u32);
    let mut closest = f64::INFINITY;
    for k in 0..300u64 {
        let spec = GenerateSpec {
            tasks: 2 + (k % 6) as usize,
            utilisation: 0.4 + 0.5 * ((k * 37 % 100) as f64 / 100.0),
            method: Method::UUniFast,
            max_task_utilisation: 1.0,
            period_min: Picos::from_ms(2),
            period_max: Picos::from_ms(40),
            // Periods with large common divisors, so that offsets keep tasks apart.
            granularity: Picos::from_ms(if k % 2 == 0 { 2 } else { 5 }),
            periods: Default::default(),
            seed: 8800 + k,
        };
        let mut sys = generate(&freertos_template(), &spec, 1).unwrap().remove(0);
        let mut rng = ChaCha8Rng::seed_from_u64(k);
        for t in &mut sys.tasks {
            t.offset = Picos::from_us(rng.gen_range(0..=t.period().0 / 1_000_000));
            if rng.gen_bool(0.6) {
                t.jitter = Picos::from_us(rng.gen_range(0..=t.period().0 / 5_000_000));
            }
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
        let bounds: Vec<_> = [TickMode::Partitioned, TickMode::Pessimistic]
            .into_iter()
            .map(|m| {
                let o = offset_bound(&sys, &AnalysisOptions::default(), m).unwrap();
                let free = analyze_mode(&sys, &AnalysisOptions::default(), m).unwrap();
                for (b, f) in o.tasks.iter().zip(&free) {
                    if let (Some(b), Some(f)) = (b.wcrt_ps, f.wcrt_ps) {
                        assert!(b <= f, "set {k} {m:?}: offset bound {b} > offset-free {f}");
                        tighter += (b < f) as u32;
                    }
                }
                o
            })
            .collect();
        let (n, c) = check_against_simulation(&sys, &bounds, "offset bound", k);
        compared += n;
        closest = closest.min(c);
    }
    assert!(compared > 2000, "{compared}");
    assert!(tighter > 100, "{tighter}");
    eprintln!(
        "{compared} comparisons, {tighter} tighter bounds, closest bound/simulated {closest:.3}"
    );
}

/// Interrupts declared strictly periodic (the simulator's worst mode: every
/// `min_interarrival`, first at `offset`): random sets with phased handlers and tasks
/// they release, both tick modes; the bound with the handlers phased is at or above every
/// simulated response and at or below the bound with them sporadic.
#[test]
fn offset_bound_with_periodic_interrupts_is_above_every_simulated_response() {
    let (mut compared, mut tighter) = (0u32, 0u32);
    for k in 0..200u64 {
        let sys = set_with_interrupts(&SetRecipe {
            k,
            utilisation: 0.3 + 0.5 * ((k * 37 % 100) as f64 / 100.0),
            seed: 9900 + k,
            rng: k ^ 0x1e9,
            jitter: Some(0.4),
            interrupts: 1 + (k % 2) as usize,
            periodic: &|_| false,
        });
        let opts = AnalysisOptions::default();
        let bounds: Vec<_> = [TickMode::Partitioned, TickMode::Pessimistic]
            .into_iter()
            .map(|m| {
                let p = offset_bound_with(&sys, &opts, m, IrqPhasing::Periodic).unwrap();
                let s = offset_bound(&sys, &opts, m).unwrap();
                for (b, f) in p.tasks.iter().zip(&s.tasks) {
                    if let (Some(b), Some(f)) = (b.wcrt_ps, f.wcrt_ps) {
                        assert!(
                            b <= f,
                            "set {k} {m:?}: periodic-irq bound {b} > sporadic {f}"
                        );
                        tighter += (b < f) as u32;
                    }
                }
                p
            })
            .collect();
        compared += check_against_simulation(&sys, &bounds, "periodic-irq bound", k).0;
    }
    assert!(compared > 1000, "{compared}");
    assert!(tighter > 30, "{tighter}");
    eprintln!("{compared} comparisons with periodic interrupts, {tighter} tighter than sporadic");
}

/// How [`set_with_interrupts`] builds random set `k`.
struct SetRecipe<'a> {
    k: u64,
    utilisation: f64,
    /// Generator seed of the tasks.
    seed: u64,
    /// Seed of the offsets, jitters and interrupts.
    rng: u64,
    /// Probability that a task gets release jitter (None: no jitter, nothing drawn).
    jitter: Option<f64>,
    interrupts: usize,
    /// Which interrupts the system file declares `periodic = true`.
    periodic: &'a dyn Fn(usize) -> bool,
}

/// A random set of 2–6 tasks (periods 2–40 ms on a 2 or 5 ms grid, random offsets, jitter
/// as asked) with interrupts whose periods lie on the same grid, at random offsets; in
/// every other pair of sets the first interrupt releases the lowest task of the set's
/// first half, which then arrives with it (sporadic at the handler's period).
fn set_with_interrupts(r: &SetRecipe) -> System {
    let k = r.k;
    let spec = GenerateSpec {
        tasks: 2 + (k % 5) as usize,
        utilisation: r.utilisation,
        method: Method::UUniFast,
        max_task_utilisation: 1.0,
        period_min: Picos::from_ms(2),
        period_max: Picos::from_ms(40),
        granularity: Picos::from_ms(if k.is_multiple_of(2) { 2 } else { 5 }),
        periods: Default::default(),
        seed: r.seed,
    };
    let mut sys = generate(&freertos_template(), &spec, 1).unwrap().remove(0);
    let mut rng = ChaCha8Rng::seed_from_u64(r.rng);
    for t in &mut sys.tasks {
        t.offset = Picos::from_us(rng.gen_range(0..=t.period().0 / 1_000_000));
        if let Some(p) = r.jitter {
            if rng.gen_bool(p) {
                t.jitter = Picos::from_us(rng.gen_range(0..=t.period().0 / 10_000_000));
            }
        }
    }
    let gran = if k.is_multiple_of(2) { 2 } else { 5 };
    for q in 0..r.interrupts {
        let period = Picos::from_ms(gran * rng.gen_range(1..=4));
        let releases = (k % 4 >= 2 && q == 0).then_some(sys.tasks.len() / 2);
        if let Some(i) = releases {
            let t = &mut sys.tasks[i];
            t.arrival = latscope_model::system::Arrival::Sporadic(period);
            t.deadline = period;
            t.offset = Picos::ZERO;
            t.jitter = Picos::ZERO;
            t.wcet = t.wcet.min(Picos(period.0 / 4));
            t.bcet = t.bcet.min(t.wcet);
            t.released_by = Some(sys.interrupts.len());
        }
        sys.interrupts.push(latscope_model::system::Interrupt {
            name: format!("irq{q}"),
            min_interarrival: period,
            wcet: Picos::from_us(rng.gen_range(20..=300)),
            priority: 1 + q as u32,
            above_kernel: false,
            releases,
            offset: Picos::from_us(rng.gen_range(0..period.0 / 1_000_000)),
            periodic: (r.periodic)(q),
            core: 0,
        });
    }
    sys
}

/// Simulates `sys` for 1 s with two seeds and checks every finite bound of `bounds`
/// against the task's worst simulated response. Returns the number of comparisons and the
/// smallest bound/simulated ratio among the bounds tighter than the offset-free one.
fn check_against_simulation(
    sys: &System,
    bounds: &[OffsetBound],
    what: &str,
    k: u64,
) -> (u32, f64) {
    check_against_simulation_with(sys, bounds, what, k, IrqMode::Worst)
}

/// [`check_against_simulation`] with the interrupts arriving as `irq` says.
fn check_against_simulation_with(
    sys: &System,
    bounds: &[OffsetBound],
    what: &str,
    k: u64,
    irq: IrqMode,
) -> (u32, f64) {
    let (mut compared, mut closest) = (0u32, f64::INFINITY);
    for seed in 0..2 {
        let fo = FromSystemOptions {
            irq,
            seed,
            ..Default::default()
        };
        let cfg = from_system(sys, &fo).unwrap();
        let mut sim = Sim::new(
            cfg,
            SimOptions {
                seed,
                ..Default::default()
            },
        )
        .unwrap();
        sim.run_until(Picos::from_ms(1_000));
        let rep = sim.report();
        for o in bounds {
            for b in &o.tasks {
                let Some(w) = b.wcrt_ns else { continue };
                let s = rep.tasks.iter().find(|t| t.name == b.name).unwrap();
                if let Some(m) = s.max_response_ns {
                    compared += 1;
                    assert!(
                        m <= w,
                        "set {k} seed {seed} {} {}: simulated {m} > {what} {w} \
                         (window from {:?}; offset-free {:?})",
                        o.tick_mode,
                        b.name,
                        b.window_start,
                        b.offset_free_ns
                    );
                    if b.wcrt_ns < b.offset_free_ns {
                        closest = closest.min(w / m);
                    }
                }
            }
        }
    }
    (compared, closest)
}

/// Interrupts declared periodic one by one in the system file (`periodic = true`): the
/// bound phases only those. It lies between the all-sporadic and the all-periodic bound,
/// and at or above every simulated response both when every interrupt arrives strictly
/// periodically and when the undeclared ones arrive at random (gaps in [T, 2T], random
/// first arrival) while the declared ones keep their period and offset.
#[test]
fn per_interrupt_periodic_keys_are_sound() {
    let (mut compared, mut tighter, mut mixed) = (0u32, 0u32, 0u32);
    for k in 0..160u64 {
        // the first interrupt a timer, the second sporadic
        let sys = set_with_interrupts(&SetRecipe {
            k,
            utilisation: 0.35 + 0.45 * ((k * 29 % 100) as f64 / 100.0),
            seed: 7100 + k,
            rng: k ^ 0x9e71,
            jitter: None,
            interrupts: 2,
            periodic: &|q| q == 0,
        });
        let opts = AnalysisOptions::default();
        let mut all_sporadic = sys.clone();
        all_sporadic
            .interrupts
            .iter_mut()
            .for_each(|x| x.periodic = false);
        let bounds: Vec<_> = [TickMode::Partitioned, TickMode::Pessimistic]
            .into_iter()
            .map(|m| {
                let b = offset_bound_with(&sys, &opts, m, IrqPhasing::Sporadic).unwrap();
                assert_eq!(b.interrupts, "mixed");
                let s = offset_bound(&all_sporadic, &opts, m).unwrap();
                assert_eq!(s.interrupts, "sporadic");
                let p = offset_bound_with(&sys, &opts, m, IrqPhasing::Periodic).unwrap();
                for ((b, s), p) in b.tasks.iter().zip(&s.tasks).zip(&p.tasks) {
                    if let (Some(b), Some(s)) = (b.wcrt_ps, s.wcrt_ps) {
                        assert!(b <= s, "set {k} {m:?}: mixed {b} > all-sporadic {s}");
                        tighter += (b < s) as u32;
                    }
                    if let (Some(b), Some(p)) = (b.wcrt_ps, p.wcrt_ps) {
                        assert!(p <= b, "set {k} {m:?}: all-periodic {p} > mixed {b}");
                        mixed += (p < b) as u32;
                    }
                }
                b
            })
            .collect();
        compared += check_against_simulation(&sys, &bounds, "mixed-irq bound", k).0;
        compared +=
            check_against_simulation_with(&sys, &bounds, "mixed-irq bound", k, IrqMode::Random).0;
    }
    assert!(compared > 1000, "{compared}");
    // the declaration matters both ways: some bounds tighter than all-sporadic, some
    // looser than all-periodic
    assert!(tighter > 10, "{tighter}");
    assert!(mixed > 10, "{mixed}");
    eprintln!(
        "{compared} comparisons with one periodic and one sporadic interrupt; {tighter} \
         tighter than all-sporadic, {mixed} looser than all-periodic"
    );
}

/// `simulate --irq-arrivals random` keeps an interrupt the system file declares periodic
/// strictly periodic at its offset; the others get a random first arrival and gaps.
#[test]
fn random_arrivals_keep_declared_periodic_interrupts_periodic() {
    let text = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                [[task]]\nname = \"T\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 1\n\
                [[interrupt]]\nname = \"timer\"\nmin_interarrival = \"2ms\"\nwcet = \"10us\"\n\
                offset = \"300us\"\nperiodic = true\n\
                [[interrupt]]\nname = \"gpio\"\nmin_interarrival = \"3ms\"\nwcet = \"10us\"\n";
    let sys = System::from_toml_str(text, "i.toml").unwrap();
    for seed in 0..4 {
        let o = FromSystemOptions {
            irq: IrqMode::Random,
            seed,
            ..Default::default()
        };
        let cfg = from_system(&sys, &o).unwrap();
        assert_eq!(
            cfg.interrupts[0].arrival,
            IrqArrival::Periodic {
                period: Picos::from_ms(2),
                offset: Picos::from_us(300)
            }
        );
        assert!(
            matches!(cfg.interrupts[1].arrival, IrqArrival::Sporadic { min, .. } if min == Picos::from_ms(3)),
            "{:?}",
            cfg.interrupts[1].arrival
        );
    }
}
