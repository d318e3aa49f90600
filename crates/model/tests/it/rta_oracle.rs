//! The fast analysis against plain oracles on random sets (issue 29):
//! * without overheads, the textbook recurrence (Joseph & Pandya; Audsley et al. 1993
//!   with jitter and blocking; Tindell's busy window over q jobs) computed here from
//!   scratch, one ceiling per term per step, no incremental counts, no start hints;
//! * with overheads, both tick modes of `analyze` (the partitioned mode first, its windows
//!   a start for the pessimistic one) against each mode analysed alone (`analyze_mode`);
//! * stopping past the deadline changes no reported bound, and stops only tasks whose
//!   exact response is past it;
//! * a breakdown's interference keeps the largest shares and sums the rest.

use latscope_model::rta::{analyze, analyze_mode, AnalysisOptions, InterferenceDetail};
use latscope_model::system::TickMode;
use latscope_model::System;
use rand::{Rng, SeedableRng};

#[derive(Debug, Clone)]
struct T {
    period_ns: i64,
    wcet_ns: i64,
    prio: u32,
    jitter_ns: i64,
    blocking_ns: i64,
    deadline_ns: i64,
}

fn random_tasks(rng: &mut impl Rng, n: usize, load: f64) -> Vec<T> {
    (0..n)
        .map(|_| {
            let period_ns = rng.gen_range(100..20_000i64) * 1000;
            let u = load / n as f64 * rng.gen_range(0.2..1.8);
            let wcet_ns = ((period_ns as f64 * u) as i64).max(1);
            T {
                period_ns,
                wcet_ns,
                prio: rng.gen_range(0..(n as u32 + 2)),
                jitter_ns: if rng.gen_bool(0.3) {
                    rng.gen_range(0..period_ns)
                } else {
                    0
                },
                blocking_ns: if rng.gen_bool(0.2) {
                    rng.gen_range(0..period_ns / 4)
                } else {
                    0
                },
                deadline_ns: period_ns * rng.gen_range(1..4),
            }
        })
        .collect()
}

fn toml(tasks: &[T], costs: &str) -> String {
    let mut s = format!(
        "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = 1000\n\
         allow_equal_priorities = true\n[kernel.costs]\n{costs}"
    );
    for (i, t) in tasks.iter().enumerate() {
        s += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{}ns\"\nwcet = \"{}ns\"\npriority = {}\n\
             jitter = \"{}ns\"\nblocking = \"{}ns\"\ndeadline = \"{}ns\"\n",
            t.period_ns, t.wcet_ns, t.prio, t.jitter_ns, t.blocking_ns, t.deadline_ns
        );
    }
    s
}

/// The textbook response time in ns (`None`: level utilisation above 1), equal
/// priorities interfering.
fn oracle(tasks: &[T], i: usize) -> Option<i64> {
    let me = &tasks[i];
    let hp: Vec<&T> = tasks
        .iter()
        .enumerate()
        .filter(|&(j, t)| j != i && t.prio >= me.prio)
        .map(|(_, t)| t)
        .collect();
    let util: f64 = hp
        .iter()
        .chain(std::iter::once(&me))
        .map(|t| t.wcet_ns as f64 / t.period_ns as f64)
        .sum();
    if util > 1.0 {
        return None;
    }
    let demand = |w: i64| -> i64 {
        hp.iter()
            .map(|t| (w + t.jitter_ns + t.period_ns - 1).div_euclid(t.period_ns) * t.wcet_ns)
            .sum()
    };
    let mut best = i64::MIN;
    let mut q = 0i64;
    loop {
        let base = me.blocking_ns + (q + 1) * me.wcet_ns;
        let mut w = base;
        loop {
            let next = base + demand(w);
            if next == w {
                break;
            }
            w = next;
        }
        best = best.max(w - q * me.period_ns + me.jitter_ns);
        if w + me.jitter_ns <= (q + 1) * me.period_ns {
            return Some(best);
        }
        q += 1;
    }
}

fn exact() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    }
}

#[test]
fn no_overheads_equals_the_textbook_recurrence() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
    let mut compared = 0;
    for _ in 0..300 {
        let n = rng.gen_range(1..25);
        let load = rng.gen_range(0.1..0.98);
        let tasks = random_tasks(&mut rng, n, load);
        let sys = System::from_toml_str(&toml(&tasks, ""), "oracle.toml").unwrap();
        let got = analyze_mode(&sys, &exact(), TickMode::Pessimistic).unwrap();
        let stopping = AnalysisOptions {
            stop_at_deadline: true,
            ..exact()
        };
        let stopped = analyze_mode(&sys, &stopping, TickMode::Pessimistic).unwrap();
        for (r, s) in got.iter().zip(&stopped) {
            let i: usize = r.name[1..].parse().unwrap();
            let want = oracle(&tasks, i);
            assert_eq!(
                r.wcrt_ps.map(|p| p / 1000),
                want,
                "{} of {:?}",
                r.name,
                tasks
            );
            compared += 1;
            let d = tasks[i].deadline_ns;
            match want {
                Some(x) if x > d => {
                    assert_eq!(s.wcrt_ps, None, "{}", s.name);
                    assert_eq!(s.wcrt_above_ns, Some(d as f64), "{}", s.name);
                    assert!(!s.schedulable);
                }
                _ => {
                    assert_eq!(s.wcrt_ps, r.wcrt_ps, "{}", s.name);
                    assert_eq!(s.wcrt_above_ns, None, "{}", s.name);
                }
            }
        }
    }
    assert!(compared > 2000);
}

/// Piecewise tick costs where the last release is cheaper than the others make a
/// partitioned tick dearer than the pessimistic one; the analysis must not take the
/// partitioned windows as a start then.
fn random_costs(rng: &mut impl Rng) -> String {
    let mut s = format!(
        "tick_base = \"{}ns\"\ntick_per_release = \"{}ns\"\nswitch_base = \"{}ns\"\n\
         switch_per_level = \"{}ns\"\n",
        rng.gen_range(0..5000),
        rng.gen_range(0..8000),
        rng.gen_range(0..4000),
        rng.gen_range(0..900)
    );
    if rng.gen_bool(0.4) {
        s += &format!(
            "tick_first_release = \"{}ns\"\ntick_last_release = \"{}ns\"\n",
            rng.gen_range(0..12000),
            rng.gen_range(0..3000)
        );
    }
    s
}

#[test]
fn both_modes_together_equal_each_mode_alone() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2929);
    for _ in 0..200 {
        let n = rng.gen_range(1..30);
        let load = rng.gen_range(0.1..0.95);
        let tasks = random_tasks(&mut rng, n, load);
        let sys = System::from_toml_str(&toml(&tasks, &random_costs(&mut rng)), "m.toml").unwrap();
        for stop in [false, true] {
            let opts = AnalysisOptions {
                stop_at_deadline: stop,
                ..Default::default()
            };
            let both = analyze(&sys, &opts).unwrap();
            for (mode, got) in [
                (TickMode::Pessimistic, &both.tick_modes.pessimistic),
                (TickMode::Partitioned, &both.tick_modes.partitioned),
            ] {
                let alone = analyze_mode(&sys, &opts, mode).unwrap();
                for (a, b) in got.iter().zip(&alone) {
                    assert_eq!(a.wcrt_ps, b.wcrt_ps, "{} {mode:?} stop {stop}", a.name);
                    assert_eq!(a.wcrt_above_ns, b.wcrt_above_ns, "{}", a.name);
                    assert_eq!(a.schedulable, b.schedulable, "{}", a.name);
                    assert_eq!(a.breakdown, b.breakdown, "{}", a.name);
                    if a.wcrt_ps.is_some() {
                        assert_eq!(a.critical_job, b.critical_job, "{}", a.name);
                        assert_eq!(a.jobs_examined, b.jobs_examined, "{}", a.name);
                    }
                }
            }
        }
    }
}

#[test]
fn interference_keeps_the_largest_shares_and_sums_the_rest() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
    for _ in 0..40 {
        let n = rng.gen_range(10..40);
        let tasks = random_tasks(&mut rng, n, 0.6);
        let sys = System::from_toml_str(&toml(&tasks, ""), "top.toml").unwrap();
        let full = analyze_mode(
            &sys,
            &AnalysisOptions {
                interference: InterferenceDetail::Full,
                ..exact()
            },
            TickMode::Pessimistic,
        )
        .unwrap();
        let keep = rng.gen_range(0..6);
        let top = analyze_mode(
            &sys,
            &AnalysisOptions {
                interference: InterferenceDetail::Top(keep),
                ..exact()
            },
            TickMode::Pessimistic,
        )
        .unwrap();
        for (f, t) in full.iter().zip(&top) {
            assert_eq!(f.wcrt_ps, t.wcrt_ps);
            let all: Vec<(String, f64)> = f
                .breakdown
                .interference
                .iter()
                .map(|s| (s.name.to_string(), s.ns))
                .collect();
            // The expected shares: the largest `keep` (ties: the earlier, i.e. higher
            // priority), listed in the full list's (priority) order.
            let mut rank: Vec<usize> = (0..all.len()).collect();
            rank.sort_by(|&a, &b| all[b].1.total_cmp(&all[a].1).then(a.cmp(&b)));
            let mut kept: Vec<usize> = rank.into_iter().take(keep).collect();
            kept.sort_unstable();
            let want: Vec<(String, f64)> = kept.iter().map(|&k| all[k].clone()).collect();
            let got: Vec<(String, f64)> = t
                .breakdown
                .interference
                .iter()
                .map(|s| (s.name.to_string(), s.ns))
                .collect();
            assert_eq!(got, want, "{}", f.name);
            let rest: f64 = (0..all.len())
                .filter(|k| !kept.contains(k))
                .map(|k| all[k].1)
                .sum();
            assert!(
                (t.breakdown.interference_others_ns - rest).abs() <= 1e-9 * rest.max(1.0),
                "{}: others {} vs {rest}",
                f.name,
                t.breakdown.interference_others_ns
            );
            assert_eq!(f.breakdown.interference_others_ns, 0.0);
        }
    }
}
