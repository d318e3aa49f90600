//! EDF in the simulator against the EDF analysis (docs/analysis.md, "EDF", simulated),
//! over random sets (UUniFast utilisations, periods of whole milliseconds from 2 to
//! 200 ms, deadlines implicit in half the tasks and constrained, uniform in
//! `[max(C, T/2), T]`, in the rest). What is checked:
//!
//! * with the FreeRTOS overheads (tick by releases, switch, entry latency `L`), release
//!   jitter in a third of the tasks and an interrupt plus an interrupts-disabled section
//!   in a third of the sets: no simulated response (from the nominal arrival) exceeds
//!   the task's Spuri bound, and a set the processor-demand test (QPA) calls schedulable
//!   misses no deadline in the simulation (hyperperiod, at most 2 s);
//! * without overheads and jitter (zero kernel costs, `L` = 0), synchronous release at
//!   0 and periods on the tick grid, where the demand criterion is exact for implicit
//!   and constrained deadlines: a set QPA calls unschedulable, with its first window of
//!   excess demand `t`, misses a deadline in the simulation by `t`; a set it calls
//!   schedulable misses none.
//!
//! The ratio bound / observed maximum per task is collected and printed as the
//! histogram that docs/analysis.md shows (`--nocapture`).

use latscope_core::Picos;
use latscope_model::edf::analyze_edf;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::overheads::tick::TickCosts;
use latscope_model::system::{Interrupt, KernelCosts, Scheduler};
use latscope_model::{AnalysisOptions, System};
use latscope_sim::report::TaskReport;
use latscope_sim::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SETS: usize = 300;
const HORIZON_MS: i64 = 2_000;

fn edf_set(k: usize, u_lo: f64, u_span: f64) -> System {
    let spec = GenerateSpec {
        tasks: 2 + k % 6,
        utilisation: u_lo + u_span * ((k * 37 % 100) as f64 / 100.0),
        method: Method::UUniFast,
        max_task_utilisation: 1.0,
        period_min: Picos::from_ms(2),
        period_max: Picos::from_ms(200),
        granularity: Picos::from_ms(1),
        periods: Default::default(),
        seed: 7000 + k as u64,
    };
    let mut sys = generate(&freertos_template(), &spec, 1)
        .expect("generated")
        .remove(0);
    sys.kernel.scheduler = Scheduler::Edf;
    let mut rng = ChaCha8Rng::seed_from_u64(k as u64 ^ 0xedf);
    for t in &mut sys.tasks {
        let p = t.period().0;
        if rng.gen_bool(0.5) {
            let lo = t.wcet.0.max(p / 2);
            // whole microseconds (rounded up), so that the deadline stays a round figure
            let d = rng.gen_range(lo..=p);
            t.deadline = Picos(((d + 999_999) / 1_000_000 * 1_000_000).min(p));
        } else {
            t.deadline = Picos(p);
        }
    }
    sys
}

/// Runs `sys` over its hyperperiod (at most 2 s) and the first window `extra` beyond.
fn simulate(sys: &System, until: Option<Picos>) -> SimReport {
    let cfg = from_system(sys, &FromSystemOptions::default()).expect("convertible");
    let horizon = until.unwrap_or_else(|| {
        cfg.hyperperiod()
            .unwrap_or(Picos::from_ms(HORIZON_MS))
            .min(Picos::from_ms(HORIZON_MS))
    });
    let mut sim = Sim::new(cfg, SimOptions::default()).expect("valid");
    sim.run_until(horizon);
    sim.report()
}

fn misses(r: &SimReport) -> u64 {
    r.tasks.iter().map(|t| t.deadline_misses).sum()
}

/// Bound / observed ratios in buckets `[1, 1.05)`, `[1.05, 1.1)`, `[1.1, 1.25)`,
/// `[1.25, 1.5)`, `[1.5, 2)`, `[2, inf)`.
fn bucket(r: f64) -> usize {
    [1.05, 1.1, 1.25, 1.5, 2.0]
        .iter()
        .position(|&b| r < b)
        .unwrap_or(5)
}

#[test]
fn with_overheads_simulation_stays_within_the_edf_analysis() {
    let mut compared = 0;
    let mut hist = [0usize; 6];
    let mut schedulable_sets = 0;
    for k in 0..SETS {
        let mut sys = edf_set(k, 0.3, 0.65);
        let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
        for t in &mut sys.tasks {
            if rng.gen_bool(0.3) {
                t.jitter = Picos::from_us(rng.gen_range(0..=t.period().0 / 10 / 1_000_000));
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
            sys.critical_sections.application = Picos::from_us(rng.gen_range(1..=30));
        }
        let e = analyze_edf(&sys, &AnalysisOptions::default()).expect("analysed");
        let rep = simulate(&sys, None);
        if e.schedulable {
            schedulable_sets += 1;
            assert_eq!(misses(&rep), 0, "set {k}: QPA says schedulable, {e:?}");
        }
        for a in &e.tasks {
            let s = rep.tasks.iter().find(|t| t.name == a.name).expect("task");
            let (Some(b), Some(m)) = (a.bound_ns, s.max_response_ns) else {
                continue;
            };
            compared += 1;
            assert!(
                m <= b,
                "set {k} task {}: simulated {m} ns > Spuri bound {b} ns",
                a.name
            );
            if m > 0.0 {
                hist[bucket(b / m)] += 1;
            }
        }
    }
    eprintln!(
        "EDF with overheads: {compared} tasks compared in {SETS} sets ({schedulable_sets} \
         schedulable); bound/observed [1,1.05) {} [1.05,1.1) {} [1.1,1.25) {} [1.25,1.5) {} \
         [1.5,2) {} [2,inf) {}",
        hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]
    );
    assert!(compared > 800, "{compared}");
    assert!(schedulable_sets > SETS / 3, "{schedulable_sets}");
}

#[test]
fn without_overheads_the_demand_verdict_is_exact() {
    let opts = AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    };
    let (mut missed, mut met) = (0, 0);
    for k in 0..SETS {
        // Utilisations 0.8 to 1.0: constrained deadlines make some of them unschedulable.
        let mut sys = edf_set(k, 0.8, 0.2);
        sys.kernel.costs = KernelCosts::Tick(TickCosts::default());
        sys.platform.irq_entry_cycles = 0;
        let e = analyze_edf(&sys, &opts).expect("analysed");
        if e.schedulable {
            let rep = simulate(&sys, None);
            assert_eq!(misses(&rep), 0, "set {k}: QPA says schedulable, {e:?}");
            met += 1;
            continue;
        }
        let Some(t) = e.demand_exceeded_at_ns else {
            continue;
        };
        // The demand in [0, t] exceeds t: some job with its deadline at or before t
        // finishes after it. Run two longest periods past t, so the late job completes.
        let t_ps = (t * 1000.0).round() as i64;
        let longest = sys.tasks.iter().map(|x| x.period().0).max().unwrap_or(0);
        let rep = simulate(&sys, Some(Picos(t_ps + 2 * longest)));
        let first = rep
            .tasks
            .iter()
            .filter_map(|x| x.first_miss_ns)
            .fold(f64::INFINITY, f64::min);
        assert!(
            first <= t,
            "set {k}: QPA finds excess demand at {t} ns, first simulated miss {first} ns; {e:?}"
        );
        missed += 1;
    }
    eprintln!("EDF without overheads: {met} schedulable sets without a miss, {missed} unschedulable sets missing by the excess window");
    assert!(met > 50 && missed > 20, "met {met}, missed {missed}");
}

fn hand_system(tasks: &str) -> System {
    let text = format!(
        "[platform]\ncpu_hz = \"100 MHz\"\nirq_entry_cycles = 0\n[kernel]\ntick_hz = 1000\n\
         scheduler = \"edf\"\n{tasks}"
    );
    System::from_toml_str(&text, "edf.toml").expect("valid system")
}

fn task<'a>(r: &'a SimReport, name: &str) -> &'a TaskReport {
    r.tasks.iter().find(|t| t.name == name).expect("task")
}

/// Two timelines worked out by hand (no kernel costs; whole-millisecond releases sit on
/// ticks, so every job is released at its arrival).
#[test]
fn hand_checked_timelines() {
    // A (T 5, C 2) and B (T 7, C 4), synchronous. At 0 A's deadline 5 is before B's 7:
    // A 0-2, B 2-6 (A's job at 5 has deadline 10, after B's 7: no preemption), A 6-8,
    // B's job at 7 (deadline 14) 8-12, A's at 10 (deadline 15) 12-14. Under fixed
    // priority with A above B, B's first job would end at 8 and miss.
    let sys = hand_system(
        "[[task]]\nname = \"A\"\nperiod = \"5ms\"\nwcet = \"2ms\"\npriority = 2\n\
         [[task]]\nname = \"B\"\nperiod = \"7ms\"\nwcet = \"4ms\"\npriority = 1\n",
    );
    let r = simulate(&sys, Some(Picos::from_ms(15)));
    let (a, b) = (task(&r, "A"), task(&r, "B"));
    assert_eq!(a.jobs, 3);
    assert_eq!(b.jobs, 2);
    assert_eq!(b.first_response_ns, Some(6e6));
    assert_eq!(b.max_response_ns, Some(6e6)); // 2nd job: 12 - 7 = 5 ms
    assert_eq!(a.max_response_ns, Some(4e6)); // 3rd job: 14 - 10
    assert_eq!(a.deadline_misses + b.deadline_misses, 0);
    assert_eq!(b.preemptions, 0);

    // A job released with an earlier deadline preempts: L (T 20, C 6) runs from 0; H
    // (offset 2, T 20, D 3, C 2) arrives at 2 with deadline 5 < 20: H 2-4, L 4-8.
    let sys = hand_system(
        "[[task]]\nname = \"L\"\nperiod = \"20ms\"\nwcet = \"6ms\"\npriority = 2\n\
         [[task]]\nname = \"H\"\nperiod = \"20ms\"\ndeadline = \"3ms\"\noffset = \"2ms\"\n\
         wcet = \"2ms\"\npriority = 1\n",
    );
    let r = simulate(&sys, Some(Picos::from_ms(20)));
    let (l, h) = (task(&r, "L"), task(&r, "H"));
    assert_eq!(h.first_response_ns, Some(2e6));
    assert_eq!(l.first_response_ns, Some(8e6));
    assert_eq!(l.preemptions, 1);
}
