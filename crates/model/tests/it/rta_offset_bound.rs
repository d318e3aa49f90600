//! The offset-based bound for non-deterministic sets: what an offset buys with jitter,
//! never above the offset-free bound, and equal to it where no phase can be used.

use latscope_core::Picos;
use latscope_model::generate::{freertos_template, generate, GenerateSpec, Method};
use latscope_model::rta::offsets::offset_bound;
use latscope_model::rta::{analyze_mode, AnalysisOptions};
use latscope_model::system::TickMode;
use latscope_model::System;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const HEAD: &str = "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\n\
                    tick_hz = 1000\n[kernel.costs]\ntick_base = \"1.5us\"\n\
                    tick_per_release = \"5.907us\"\nswitch_base = \"1.5us\"\n";

fn two_tasks(extra_h: &str, extra_l: &str) -> System {
    let text = format!(
        "{HEAD}[[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 2\n{extra_h}\
         [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 1\noffset = \"5ms\"\n{extra_l}"
    );
    System::from_toml_str(&text, "o.toml").unwrap()
}

/// With 1 ms of jitter on H the set is not deterministic; L, phased 5 ms after H, still
/// runs alone: its bound is about 4 ms where the offset-free one is over 8 ms.
#[test]
fn an_offset_with_jitter_halves_the_bound() {
    let sys = two_tasks("jitter = \"1ms\"\n", "");
    for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
        let o = offset_bound(&sys, &AnalysisOptions::default(), mode).unwrap();
        let l = o.tasks.iter().find(|t| t.name == "L").unwrap();
        let free = l.offset_free_ns.unwrap();
        let b = l.wcrt_ns.unwrap();
        assert!(free > 8e6, "{free}");
        assert!(b > 4e6 && b < 4.2e6, "{mode:?}: {b}");
        let h = o.tasks.iter().find(|t| t.name == "H").unwrap();
        assert_eq!(h.wcrt_ns, h.offset_free_ns, "H has nothing above it");
    }
}

/// The phase only holds when the jitter is smaller than the gap: with 6 ms of jitter on
/// H, H's job can be released 1 ms after L's arrival and preempt it.
#[test]
fn jitter_larger_than_the_gap_loses_the_offset() {
    let sys = two_tasks("jitter = \"6ms\"\n", "");
    let o = offset_bound(&sys, &AnalysisOptions::default(), TickMode::Partitioned).unwrap();
    let l = o.tasks.iter().find(|t| t.name == "L").unwrap();
    assert!(l.wcrt_ns.unwrap() > 8e6, "{:?}", l);
}

/// A sporadic task at or above a task's priority can start its window at any moment.
#[test]
fn a_sporadic_higher_priority_task_gives_the_offset_free_bound() {
    let text = format!(
        "{HEAD}[[task]]\nname = \"H\"\nmin_interarrival = \"10ms\"\nwcet = \"4ms\"\npriority = 2\n\
         [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"4ms\"\npriority = 1\noffset = \"5ms\"\n"
    );
    let sys = System::from_toml_str(&text, "s.toml").unwrap();
    let o = offset_bound(&sys, &AnalysisOptions::default(), TickMode::Partitioned).unwrap();
    for t in &o.tasks {
        assert_eq!(t.wcrt_ns, t.offset_free_ns, "{t:?}");
        assert!(t.window_start.is_none());
    }
}

/// On random sets with offsets, jitter and interrupts the bound never exceeds the
/// offset-free one, and it is lower for some tasks.
#[test]
fn never_above_the_offset_free_bound() {
    let (mut lower, mut compared) = (0, 0);
    for k in 0..120u64 {
        let spec = GenerateSpec {
            tasks: 2 + (k % 8) as usize,
            utilisation: 0.3 + 0.6 * ((k * 37 % 100) as f64 / 100.0),
            method: Method::UUniFast,
            max_task_utilisation: 1.0,
            period_min: Picos::from_ms(2),
            period_max: Picos::from_ms(50),
            granularity: Picos::from_ms(1),
            periods: Default::default(),
            seed: 9100 + k,
        };
        let mut sys = generate(&freertos_template(), &spec, 1).unwrap().remove(0);
        let mut rng = ChaCha8Rng::seed_from_u64(k);
        for t in &mut sys.tasks {
            t.offset = Picos::from_us(rng.gen_range(0..=t.period().0 / 1_000_000));
            if rng.gen_bool(0.5) {
                t.jitter = Picos::from_us(rng.gen_range(0..=t.period().0 / 4_000_000));
            }
        }
        for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
            let free = analyze_mode(&sys, &AnalysisOptions::default(), mode).unwrap();
            let o = offset_bound(&sys, &AnalysisOptions::default(), mode).unwrap();
            for (f, b) in free.iter().zip(&o.tasks) {
                assert_eq!(*f.name, *b.name);
                assert_eq!(f.wcrt_ns, b.offset_free_ns);
                if let (Some(f), Some(b)) = (f.wcrt_ps, b.wcrt_ps) {
                    compared += 1;
                    assert!(b <= f, "set {k} {mode:?} {}: {b} > {f}", f_name(&o, &b));
                    if b < f {
                        lower += 1;
                    }
                }
            }
        }
    }
    assert!(compared > 500, "{compared}");
    assert!(lower > 20, "{lower} of {compared}");
}

fn f_name(o: &latscope_model::rta::offsets::OffsetBound, ps: &i64) -> String {
    o.tasks
        .iter()
        .find(|t| t.wcrt_ps == Some(*ps))
        .map_or(String::new(), |t| t.name.clone())
}

/// With lock and unlock costs the offset-free results and the windows both count them
/// once (the top task, with nothing above it, keeps its offset-free bound in the
/// pessimistic mode).
#[test]
fn lock_costs_are_counted_once() {
    let text = format!(
        "{HEAD}lock = \"50us\"\nunlock = \"50us\"\n\
         [[resource]]\nname = \"m\"\nprotocol = \"inheritance\"\n\
         [[task]]\nname = \"H\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 2\njitter = \"1ms\"\n\
         critical = [{{ resource = \"m\", duration = \"100us\" }}]\n\
         [[task]]\nname = \"L\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 1\noffset = \"5ms\"\n\
         critical = [{{ resource = \"m\", duration = \"100us\" }}]\n"
    );
    let sys = System::from_toml_str(&text, "r.toml").unwrap();
    for mode in [TickMode::Partitioned, TickMode::Pessimistic] {
        let free = analyze_mode(&sys, &AnalysisOptions::default(), mode).unwrap();
        let o = offset_bound(&sys, &AnalysisOptions::default(), mode).unwrap();
        assert_eq!(o.tasks[0].name, "H");
        assert_eq!(o.tasks[0].offset_free_ns, free[0].wcrt_ns);
        let (h, hf) = (o.tasks[0].wcrt_ps.unwrap(), free[0].wcrt_ps.unwrap());
        if mode == TickMode::Pessimistic {
            assert_eq!(h, hf);
        } else {
            // Partitioned: L's tick pseudo-task keeps its phase too (at most one
            // per-release tick part less).
            assert!(h <= hf && hf - h <= 5_907_000 + 1, "{h} {hf}");
        }
        // L runs alone: its WCET with the lock costs, H's blocking section, overheads.
        let l = o.tasks[1].wcrt_ns.unwrap();
        assert!(l > 2.1e6 && l < 2.4e6, "{mode:?} {l}");
        assert!(l < free[1].wcrt_ns.unwrap());
    }
}
