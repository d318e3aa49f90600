//! Shared resources: the `[[resource]]` / `critical = [..]` format and its errors, the
//! blocking computed from the sections (priority inheritance, immediate ceiling, kernel
//! critical sections), and properties.
//!
//! The known answers are worked by hand here with the published bounds, not copied from
//! a table: priority inheritance with the Sha–Rajkumar–Lehoczky bound B_i = min(B_l, B_s)
//! (Sha, Rajkumar & Lehoczky, IEEE Trans. Computers 39(9), 1990; the min-of-sums form as
//! in Buttazzo, "Hard Real-Time Computing Systems", section 7.6.3), the immediate
//! ceiling / SRP bound (one section, the longest of a lower-priority task on a resource
//! whose ceiling is at or above the task; Buttazzo section 7.7, Baker 1991).

use latscope_model::resource::blocking::effect;
use latscope_model::rta::{analyze, analyze_mode, AnalysisOptions};
use latscope_model::system::TickMode;
use latscope_model::System;
use proptest::prelude::*;

const HEAD: &str = "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n";

fn four_tasks(protocol: &str) -> String {
    format!(
        "{HEAD}\
         [[resource]]\nname = \"A\"\nprotocol = \"{protocol}\"\n\
         [[resource]]\nname = \"B\"\nprotocol = \"{protocol}\"\n\
         [[resource]]\nname = \"C\"\nprotocol = \"{protocol}\"\n\
         [[task]]\nname = \"t1\"\nperiod = \"100ms\"\nwcet = \"3ms\"\npriority = 4\n\
         critical = [{{ resource = \"A\", duration = \"1ms\" }}, {{ resource = \"B\", duration = \"1ms\", at = \"1ms\" }}]\n\
         [[task]]\nname = \"t2\"\nperiod = \"100ms\"\nwcet = \"10ms\"\npriority = 3\n\
         critical = [{{ resource = \"A\", duration = \"2ms\" }}, {{ resource = \"C\", duration = \"5ms\", at = \"3ms\" }}]\n\
         [[task]]\nname = \"t3\"\nperiod = \"100ms\"\nwcet = \"10ms\"\npriority = 2\n\
         critical = [{{ resource = \"B\", duration = \"3ms\" }}, {{ resource = \"C\", duration = \"4ms\", at = \"5ms\" }}]\n\
         [[task]]\nname = \"t4\"\nperiod = \"100ms\"\nwcet = \"10ms\"\npriority = 1\n\
         critical = [{{ resource = \"A\", duration = \"4ms\" }}, {{ resource = \"B\", duration = \"1ms\", at = \"5ms\" }}]\n"
    )
}

fn ms(x: f64) -> i64 {
    (x * 1e9).round() as i64
}

/// Ceilings: A 4 (t1), B 4 (t1), C 3 (t2).
/// t1: lower sections reaching priority 4: t2 A 2; t3 B 3; t4 A 4, B 1.
///     B_l = 2 + 3 + 4 = 9, B_s = A 4 + B 3 = 7: 7 ms, from t4 on A and t3 on B.
/// t2: everything reaches 3. B_l = t3 max(3, 4) + t4 max(4, 1) = 8;
///     B_s = A 4 + B 3 + C 4 = 11: 8 ms.
/// t3: only t4 below: B_l = 4, B_s = A 4 + B 1 = 5: 4 ms.  t4: 0.
/// Ceiling protocol: the longest single section: 4, 4, 4, 0 ms.
#[test]
fn known_answer_inheritance_and_ceiling() {
    let s = System::from_toml_str(&four_tasks("inheritance"), "pip.toml").unwrap();
    let e = effect(&s);
    let got: Vec<i64> = e.tasks.iter().map(|b| b.total.0).collect();
    assert_eq!(got, [ms(7.0), ms(8.0), ms(4.0), 0]);
    let from: Vec<(&str, &str)> = e.tasks[0]
        .from
        .iter()
        .map(|p| (p.task.as_str(), p.resource.as_str()))
        .collect();
    assert_eq!(from, [("t4", "A"), ("t3", "B")]);

    let c = System::from_toml_str(&four_tasks("ceiling"), "pcp.toml").unwrap();
    let got: Vec<i64> = effect(&c).tasks.iter().map(|b| b.total.0).collect();
    assert_eq!(got, [ms(4.0), ms(4.0), ms(4.0), 0]);

    // In the analysis: t1 (no overheads) R = C + B = 3 + 7 ms, and the JSON fields.
    let opts = AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    };
    let r = analyze(&s, &opts).unwrap();
    assert_eq!(r.tasks[0].wcrt_ps, Some(ms(10.0)));
    assert_eq!(r.tasks[0].blocking_ns, 7e6);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["tasks"][0]["blocking_from"][0]["task"], "t4");
    assert_eq!(v["tasks"][0]["blocking_from"][0]["resource"], "A");
    assert_eq!(v["tasks"][0]["blocking_from"][0]["duration_ns"], 4e6);
}

/// A hand-given `blocking` adds to the computed one; lock, unlock and inherit costs:
/// every section's calls grow its task's WCET, a blocking section counts its unlock and
/// (inheritance) the priority raise.
#[test]
fn given_blocking_and_lock_costs_add() {
    let text = format!(
        "{HEAD}[kernel.costs]\nlock = \"1us\"\nunlock = \"2us\"\ninherit = \"3us\"\n\
         [[resource]]\nname = \"m\"\nprotocol = \"inheritance\"\n\
         [[task]]\nname = \"hi\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 2\nblocking = \"100us\"\n\
         critical = [{{ resource = \"m\", duration = \"10us\" }}]\n\
         [[task]]\nname = \"lo\"\nperiod = \"20ms\"\nwcet = \"2ms\"\npriority = 1\n\
         critical = [{{ resource = \"m\", duration = \"50us\", at = \"1ms\" }}]\n"
    );
    let s = System::from_toml_str(&text, "lock.toml").unwrap();
    let opts = AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    };
    let r = analyze(&s, &opts).unwrap();
    // hi: B = 100 (given) + 50 + 2 + 3 = 155 us; C = 1 ms + lock 1 + unlock 2 + inherit
    // 3 us (a taker that finds the mutex taken runs the inherit call itself).
    assert_eq!(r.tasks[0].blocking_ns, 155_000.0);
    assert_eq!(
        r.tasks[0].wcrt_ps,
        Some(1_000_000_000 + 6_000_000 + 155_000_000)
    );
    // lo: nothing below; R = 2.006 + 1.006 ms.
    assert_eq!(r.tasks[1].blocking_ns, 0.0);
    assert_eq!(r.tasks[1].wcrt_ps, Some(3_012_000_000));
}

/// Kernel critical sections (hand-checkable): a low task's 50 us section blocks the
/// high task once, and masks the tick: the high task's release is noticed up to 50 us
/// late (jitter), and one more tick can fall into its window.
/// Tick 10 us every 1 ms, high task C 100 us, T 10 ms (on the tick grid: no release
/// delay of its own). Without the section: w = 100 + 10 = 110 us. With it:
/// w = B 50 + C 100 + tick 10 + one delayed tick 10 = 170 us, R = w + J 50 = 220 us.
#[test]
fn kernel_critical_section_blocks_and_delays_the_tick() {
    let base = "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n[kernel.costs]\ntick_base = \"10us\"\n";
    let tasks = "[[task]]\nname = \"hi\"\nperiod = \"10ms\"\nwcet = \"100us\"\npriority = 2\n\
                 [[task]]\nname = \"lo\"\nperiod = \"20ms\"\nwcet = \"1ms\"\npriority = 1\n";
    let plain = System::from_toml_str(&format!("{base}{tasks}"), "a.toml").unwrap();
    let with = System::from_toml_str(
        &format!(
            "{base}[[resource]]\nname = \"k\"\nprotocol = \"critical\"\n{tasks}\
             critical = [{{ resource = \"k\", duration = \"50us\", at = \"200us\" }}]\n"
        ),
        "b.toml",
    )
    .unwrap();
    let opts = AnalysisOptions::default();
    let a = analyze_mode(&plain, &opts, TickMode::Pessimistic).unwrap();
    let b = analyze_mode(&with, &opts, TickMode::Pessimistic).unwrap();
    assert_eq!(a[0].wcrt_ps, Some(110_000_000));
    assert_eq!(b[0].wcrt_ps, Some(220_000_000));
    assert_eq!(b[0].jitter.critical_ns, 50_000.0);
    assert_eq!(b[0].blocking_ns, 50_000.0);
    // The low task is not blocked by its own section, but its release is masked too.
    assert_eq!(b[1].blocking_ns, 0.0);
    assert_eq!(b[1].jitter.critical_ns, 50_000.0);
}

fn err(text: &str) -> String {
    System::from_toml_str(text, "bad.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn errors_name_file_line_table_and_key() {
    let res = "[[resource]]\nname = \"uart\"\nprotocol = \"inheritance\"\n";
    let task = |crit: &str| {
        format!("[[task]]\nname = \"a\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 1\ncritical = [{crit}]\n")
    };
    let e = err(&format!(
        "{HEAD}{res}{}",
        task("{ resource = \"spi\", duration = \"10us\" }")
    ));
    assert!(e.starts_with("bad.toml:13:"), "{e}");
    assert!(
        e.contains("task[0] \"a\"") && e.contains("critical[0].resource"),
        "{e}"
    );
    assert!(
        e.contains("unknown resource \"spi\" (declared: uart)"),
        "{e}"
    );

    let e = err(&format!(
        "{HEAD}{res}{}",
        task("{ resource = \"uart\", duration = \"600us\", at = \"500us\" }")
    ));
    assert!(
        e.contains("critical[0].duration") && e.contains("past the WCET 1ms"),
        "{e}"
    );

    let e = err(&format!(
        "{HEAD}{res}{}[[interrupt]]\nname = \"rx\"\nmin_interarrival = \"1ms\"\nwcet = \"5us\"\n\
         critical = [{{ resource = \"uart\", duration = \"1us\" }}]\n",
        task("")
    ));
    assert!(
        e.contains("interrupt[0] \"rx\"") && e.contains("inheritance mutex"),
        "{e}"
    );

    let e = err(&format!(
        "{HEAD}[[resource]]\nname = \"x\"\nprotocol = \"semaphore\"\n{}",
        task("")
    ));
    assert!(e.contains("resource") && e.contains("semaphore"), "{e}");

    let two = "[[resource]]\nname = \"i2c\"\nprotocol = \"inheritance\"\n";
    // Overlapping without `inside`, then a good nesting, then a nesting that sticks out.
    let e = err(&format!(
        "{HEAD}{res}{two}{}",
        task("{ resource = \"uart\", duration = \"100us\" }, { resource = \"i2c\", duration = \"10us\", at = \"50us\" }")
    ));
    assert!(e.contains("critical[1].at") && e.contains("inside"), "{e}");
    let ok = System::from_toml_str(
        &format!(
            "{HEAD}{res}{two}{}",
            task("{ resource = \"uart\", duration = \"100us\" }, { resource = \"i2c\", duration = \"10us\", at = \"50us\", inside = \"uart\" }")
        ),
        "ok.toml",
    );
    assert!(ok.is_ok(), "{:?}", ok.err());
    let e = err(&format!(
        "{HEAD}{res}{two}{}",
        task("{ resource = \"uart\", duration = \"100us\" }, { resource = \"i2c\", duration = \"60us\", at = \"50us\", inside = \"uart\" }")
    ));
    assert!(
        e.contains("critical[1].inside") && e.contains("not within"),
        "{e}"
    );
}

/// The written description reads back equal (TOML and JSON).
#[test]
fn round_trip() {
    let text = format!(
        "{}[kernel.costs]\nlock = \"1us\"\nunlock = \"1.5us\"\ninherit = \"700ns\"\n",
        four_tasks("inheritance").replacen(HEAD, "", 1)
    );
    let text = format!("{HEAD}{text}");
    let s = System::from_toml_str(&text, "rt.toml").unwrap();
    assert_eq!(s.resources.list.len(), 3);
    assert_eq!(s.resources.costs.unlock.0, 1_500_000);
    let back = System::from_toml_str(&s.to_toml_string(), "rt.toml").unwrap();
    assert_eq!(back, s);
    let json = System::from_json_str(&s.to_json_string(), "rt.toml").unwrap();
    assert_eq!(json, s);
}

#[derive(Debug, Clone)]
struct T {
    period_us: u32,
    wcet_permille: u32,
    prio: u32,
    sections: Vec<(usize, u32)>, // (resource, permille of the WCET)
}

fn task_strategy() -> impl Strategy<Value = T> {
    (
        1000u32..50_000,
        10u32..250,
        0u32..6,
        prop::collection::vec((0usize..3, 1u32..300), 0..3),
    )
        .prop_map(|(p, c, prio, sections)| T {
            period_us: p,
            wcet_permille: c,
            prio,
            sections,
        })
}

fn build(tasks: &[T], protocols: [&str; 3], extra: Option<(usize, usize, u32)>) -> System {
    let mut s = "[platform]\ncpu_hz = 84_000_000\nirq_entry_cycles = 12\n[kernel]\ntick_hz = 1000\n\
                 [kernel.costs]\ntick_base = \"3us\"\ntick_per_release = \"2us\"\nswitch_base = \"1us\"\n\
                 switch_per_level = \"200ns\"\nlock = \"300ns\"\nunlock = \"400ns\"\ninherit = \"500ns\"\n"
        .to_string();
    for (k, p) in protocols.iter().enumerate() {
        s += &format!("[[resource]]\nname = \"r{k}\"\nprotocol = \"{p}\"\n");
    }
    for (i, t) in tasks.iter().enumerate() {
        let c = (t.period_us as u64 * t.wcet_permille as u64 / 1000).max(10);
        s += &format!(
            "[[task]]\nname = \"t{i}\"\nperiod = \"{}us\"\nwcet = \"{c}us\"\npriority = {}\n",
            t.period_us, t.prio
        );
        // Sections one after the other, each a share of the WCET (in ns).
        let mut secs: Vec<(usize, u64)> = t
            .sections
            .iter()
            .map(|&(r, pm)| (r, (c * 1000 * pm as u64 / 1000 / 3).max(1)))
            .collect();
        if let Some((ti, r, pm)) = extra {
            if ti % tasks.len() == i {
                secs.push((r, (c * 1000 * pm as u64 / 1000 / 3).max(1)));
            }
        }
        if !secs.is_empty() {
            let mut at = 0u64;
            let list: Vec<String> = secs
                .iter()
                .map(|&(r, d)| {
                    let x =
                        format!("{{ resource = \"r{r}\", duration = \"{d}ns\", at = \"{at}ns\" }}");
                    at += d;
                    x
                })
                .collect();
            s += &format!("critical = [{}]\n", list.join(", "));
        }
    }
    System::from_toml_str(&s, "prop.toml").unwrap()
}

fn r(x: Option<i64>) -> i128 {
    x.map_or(i128::MAX, |v| v as i128)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    /// Adding a critical section to a task never lowers any response time.
    #[test]
    fn adding_a_section_never_lowers_a_response_time(
        tasks in prop::collection::vec(task_strategy(), 1..6),
        protocols in prop::sample::select(vec![
            ["inheritance", "inheritance", "inheritance"],
            ["ceiling", "ceiling", "ceiling"],
            ["critical", "inheritance", "ceiling"],
            ["critical", "critical", "critical"],
        ]),
        extra in (0usize..6, 0usize..3, 1u32..300),
    ) {
        let a = build(&tasks, protocols, None);
        let b = build(&tasks, protocols, Some(extra));
        for mode in [TickMode::Pessimistic, TickMode::Partitioned] {
            let x = analyze_mode(&a, &AnalysisOptions::default(), mode).unwrap();
            let y = analyze_mode(&b, &AnalysisOptions::default(), mode).unwrap();
            for (p, q) in x.iter().zip(&y) {
                prop_assert!(r(q.wcrt_ps) >= r(p.wcrt_ps), "{}: {:?} -> {:?}", p.name, p.wcrt_ps, q.wcrt_ps);
            }
        }
    }

    /// On the same set, ceiling blocking is never above inheritance blocking, and so
    /// neither is any response time.
    #[test]
    fn ceiling_never_above_inheritance(tasks in prop::collection::vec(task_strategy(), 1..7)) {
        let inh = build(&tasks, ["inheritance"; 3], None);
        let ceil = build(&tasks, ["ceiling"; 3], None);
        let (a, b) = (effect(&inh), effect(&ceil));
        for (x, y) in a.tasks.iter().zip(&b.tasks) {
            prop_assert!(y.total <= x.total);
        }
        let x = analyze_mode(&inh, &AnalysisOptions::default(), TickMode::Partitioned).unwrap();
        let y = analyze_mode(&ceil, &AnalysisOptions::default(), TickMode::Partitioned).unwrap();
        for (p, q) in x.iter().zip(&y) {
            prop_assert!(r(q.wcrt_ps) <= r(p.wcrt_ps));
        }
    }

    /// The breakdown still adds up with resources.
    #[test]
    fn breakdown_adds_up_with_resources(tasks in prop::collection::vec(task_strategy(), 1..6)) {
        let s = build(&tasks, ["critical", "inheritance", "ceiling"], None);
        let res = analyze(&s, &AnalysisOptions::default()).unwrap();
        for t in &res.tasks {
            if let Some(w) = t.wcrt_ns {
                let b = &t.breakdown;
                let sum = b.wcet_ns + b.own_previous_jobs_ns + b.window_offset_ns
                    + b.interference.iter().map(|x| x.ns).sum::<f64>() + b.interference_others_ns
                    + b.tick_ns + b.context_switch_ns + b.interrupts_ns + b.blocking_ns + b.jitter_ns;
                prop_assert!((sum - w).abs() < 1e-3 * w.max(1.0), "{}: {} vs {}", t.name, sum, w);
                prop_assert_eq!(b.blocking_ns, t.blocking_ns);
            }
        }
    }
}

/// Which tasks nested inheritance mutexes leave without a bound (docs/resources.md,
/// "Nested inheritance mutexes"): `lo` (1) takes B inside A. `hi` (3) takes A: exposed.
/// `mid` (2) takes only B (the inner mutex: its holder is raised to `mid`): not exposed;
/// `lo` itself: nothing below it. Nesting the other way round in `mid` (A inside B)
/// makes a cycle: every task that takes an inheritance mutex is unbounded.
#[test]
fn nested_inheritance_exposure_and_deadlock() {
    use latscope_model::resource::blocking::{
        inheritance_deadlock_possible, nested_inheritance_exposed, INHERITANCE_DEADLOCK,
        NESTED_INHERITANCE,
    };
    let sys = |mid: &str| {
        let t = format!(
            "{HEAD}\
             [[resource]]\nname = \"A\"\nprotocol = \"inheritance\"\n\
             [[resource]]\nname = \"B\"\nprotocol = \"inheritance\"\n\
             [[task]]\nname = \"hi\"\nperiod = \"100ms\"\nwcet = \"1ms\"\npriority = 3\n\
             critical = [{{ resource = \"A\", duration = \"500us\" }}]\n\
             [[task]]\nname = \"mid\"\nperiod = \"100ms\"\nwcet = \"2ms\"\npriority = 2\n\
             critical = [{mid}]\n\
             [[task]]\nname = \"lo\"\nperiod = \"100ms\"\nwcet = \"4ms\"\npriority = 1\n\
             critical = [{{ resource = \"A\", duration = \"2ms\" }}, \
             {{ resource = \"B\", duration = \"1ms\", at = \"500us\", inside = \"A\" }}]\n"
        );
        System::from_toml_str(&t, "nest.toml").unwrap()
    };
    let plain = sys("{ resource = \"B\", duration = \"1ms\" }");
    assert_eq!(nested_inheritance_exposed(&plain), [true, false, false]);
    assert!(!inheritance_deadlock_possible(&plain));
    let r = analyze(&plain, &AnalysisOptions::default()).unwrap();
    let why: Vec<Option<&str>> = r
        .tasks
        .iter()
        .map(|t| t.unbounded_reason.as_deref())
        .collect();
    // Formerly unbounded; now the nested bound: lo holds A while it waits for B, so the
    // floor is lo's priority 1 and hi is analysed at 1: mid and lo interfere with whole
    // jobs (2 ms + 4 ms), charged as blocking by tasks preempting the chain.
    assert_eq!(why, [None, None, None]);
    assert!(!why.contains(&Some(NESTED_INHERITANCE)));
    let hi = &r.tasks[0];
    assert!(hi.wcrt_ns.is_some_and(|w| w >= 7e6), "{:?}", hi.wcrt_ns);
    assert!(hi.blocking_ns >= 6e6, "{}", hi.blocking_ns);
    let chain = latscope_model::resource::nested::PREEMPTS_CHAIN;
    let mut from: Vec<&str> = hi
        .blocking_from
        .iter()
        .filter(|b| b.resource == chain)
        .map(|b| b.task.as_str())
        .collect();
    from.sort_unstable();
    assert_eq!(from, ["lo", "mid"]);
    assert!(r.tasks[1].wcrt_ns.is_some() && r.tasks[2].wcrt_ns.is_some());
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("nested inheritance mutexes: hi: ")));

    let cycle = sys("{ resource = \"B\", duration = \"1ms\" }, \
         { resource = \"A\", duration = \"500us\", at = \"200us\", inside = \"B\" }");
    assert!(inheritance_deadlock_possible(&cycle));
    let r = analyze(&cycle, &AnalysisOptions::default()).unwrap();
    assert!(r
        .tasks
        .iter()
        .all(|t| t.unbounded_reason.as_deref() == Some(INHERITANCE_DEADLOCK)));
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("warning: hi, mid, lo: ")));
}
