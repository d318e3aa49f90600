//! Shared resources in the simulator, one test per protocol rule (docs/simulator.md
//! section 2a). Every system is small enough to check by hand: the expected times are
//! worked out in the comments. Unless said otherwise: a 1 ms tick of zero cost, zero
//! switch cost, no interrupt entry latency, time slicing off (so equal priorities do not
//! rotate at a tick), zero lock/unlock/inherit costs; tasks released at whole ticks.

use crate::common;

use common::*;
use latscope_core::Picos;
use latscope_sim::*;

fn res(name: &str, protocol: SimProtocol) -> SimResource {
    SimResource {
        name: name.into(),
        protocol,
    }
}

fn sec(resource: usize, at: Picos, duration: Picos) -> SimSection {
    SimSection {
        resource,
        at,
        duration,
    }
}

/// A task released first at `offset`, period 100 ms (one job in the runs below).
fn job(name: &str, prio: u32, offset: Picos, wcet: Picos, sections: Vec<SimSection>) -> SimTask {
    let mut t = task(name, prio, ms(100), wcet);
    t.offset = offset;
    t.sections = sections;
    t
}

fn cfg(tasks: Vec<SimTask>, resources: Vec<SimResource>) -> SimConfig {
    let mut c = free(tasks);
    if let Kernel::Tick(k) = &mut c.kernel {
        k.time_slicing = false;
    }
    c.resources = resources;
    c
}

fn resp(r: &SimReport, name: &str) -> i64 {
    let t = r.tasks.iter().find(|t| t.name == name).expect("task");
    (t.max_response_ns.expect("completed") * 1000.0).round() as i64
}

fn task_rep<'a>(r: &'a SimReport, name: &str) -> &'a latscope_sim::report::TaskReport {
    r.tasks.iter().find(|t| t.name == name).expect("task")
}

fn us_f(x: f64) -> i64 {
    (x * 1000.0).round() as i64
}

/// Inheritance chain across two mutexes, FreeRTOS/Zephyr semantics: the holder of a
/// mutex inherits the priority of the task it blocks directly, not along the chain.
///
/// L (1): A from 0 for 3 ms, WCET 4 ms. M (2), released at 1 ms: B from 0 for 2 ms and,
/// nested, A from 0.5 ms for 1 ms; WCET 3 ms. X (3), released at 2 ms: 1 ms, no
/// resource. H (4), released at 2 ms: B from 0, WCET 1 ms (section 0.5 ms).
///
/// * 0..1 L (takes A); 1 M preempts, takes B; 1.5 M asks for A: L inherits 2, M waits.
/// * 1.5..2 L (at 2). 2: H and X released; H asks for B: M (waiting) inherits 4, H
///   waits. L stays at 2 (no propagation), so X (3) runs 2..3.
/// * 3..4.5 L finishes A (3 ms of execution: 1 + 0.5 + 1.5); gives A: M gets it, L is
///   back at 1. M (at 4) 4.5..5.5 A, 5.5..6 rest of B; gives B: H gets it, M back at 2.
/// * H 6..7 (response 5 ms), M 7..8 (7 ms), L 8..9 (9 ms), X 2..3 (1 ms).
///
/// With transitive inheritance L would run at 4 from 2 ms and H would finish at 6 ms
/// (response 4 ms): the extra millisecond is X, a task between H and the chain.
#[test]
fn inheritance_chain_across_two_mutexes() {
    let a = 0;
    let b = 1;
    let c = cfg(
        vec![
            job("L", 1, Picos::ZERO, ms(4), vec![sec(a, Picos::ZERO, ms(3))]),
            job(
                "M",
                2,
                ms(1),
                ms(3),
                vec![sec(b, Picos::ZERO, ms(2)), sec(a, us(500), ms(1))],
            ),
            job("X", 3, ms(2), ms(1), vec![]),
            job("H", 4, ms(2), ms(1), vec![sec(b, Picos::ZERO, us(500))]),
        ],
        vec![
            res("A", SimProtocol::Inheritance),
            res("B", SimProtocol::Inheritance),
        ],
    );
    let (s, r) = run(c, ms(20));
    assert_eq!(resp(&r, "H"), ms(5).0);
    assert_eq!(resp(&r, "M"), ms(7).0);
    assert_eq!(resp(&r, "L"), ms(9).0);
    assert_eq!(resp(&r, "X"), ms(1).0);
    // Episodes: M waits for A held by L (raised to 2) 1.5..4.5; H waits for B held by
    // M (raised to 4) 2..6.
    let ra = &r.resources[a];
    assert_eq!((ra.contended, ra.inheritances), (1, 1));
    let e = &ra.episodes[0];
    assert_eq!((e.task.as_str(), e.holder.as_str()), ("M", "L"));
    assert_eq!((e.holder_priority, e.inherited), (2, true));
    assert_eq!(us_f(e.at_ns), us(1500).0);
    assert_eq!(e.wait_ns.map(us_f), Some(ms(3).0));
    let rb = &r.resources[b];
    let e = &rb.episodes[0];
    assert_eq!((e.task.as_str(), e.holder.as_str()), ("H", "M"));
    assert_eq!((e.holder_priority, e.inherited), (4, true));
    assert_eq!(e.wait_ns.map(us_f), Some(ms(4).0));
    // H's blocking: lower tasks ran 2..6 (X, then L, then M).
    assert_eq!(us_f(task_rep(&r, "H").max_blocking_ns), ms(4).0);
    assert_eq!(us_f(task_rep(&r, "H").blocked_ns), ms(4).0);
    // The capture: A held 0..5.5 (L, then M), B held 1..6.5 (M, then H for its
    // 0.5 ms section); waits.
    assert_eq!(pulses(&s, "held_A"), vec![(0, us(5500).0)]);
    assert_eq!(pulses(&s, "held_B"), vec![(ms(1).0, us(6500).0)]);
    assert_eq!(pulses(&s, "wait_A"), vec![(us(1500).0, us(4500).0)]);
    assert_eq!(pulses(&s, "wait_B"), vec![(ms(2).0, ms(6).0)]);
    assert_eq!(pulses(&s, "X"), vec![(ms(2).0, ms(3).0)]);
    // Switches by priority distance use the priorities at the switch: at 1.5 ms M (2)
    // switches to L raised to 2, distance 0. The four tasks' own priorities differ, so
    // no pair gives 0 by them alone.
    let d = switch_distances(&r);
    assert!(d.iter().any(|g| g.0 == 0), "{d:?}");
}

/// Disinheritance only after the last give (FreeRTOS `uxMutexesHeld`): a holder keeps
/// an inherited priority until it has given back every mutex it holds.
///
/// L (1): A from 0 for 3 ms with B nested from 1 ms for 1.5 ms; WCET 4 ms. H (3) and
/// M (2), released at 2 ms: H takes B from 0 for 0.5 ms, WCET 1 ms; M 1 ms, no resource.
///
/// * 2: H asks for B: L inherits 3, H waits. L 2..2.5 gives B: H gets it, but L still
///   holds A and keeps 3; H (also 3) does not preempt it. L 2.5..3 finishes A and
///   gives it: back to 1, yields.
/// * H 3..4 (response 2 ms), M 4..5 (3 ms), L 5..6 (6 ms).
///
/// Disinheriting at the first give would give H 2.5..3.5 (1.5 ms), M 3.5..4.5 (2.5 ms).
#[test]
fn disinheritance_only_after_the_last_give() {
    let (a, b) = (0, 1);
    let c = cfg(
        vec![
            job(
                "L",
                1,
                Picos::ZERO,
                ms(4),
                vec![sec(a, Picos::ZERO, ms(3)), sec(b, ms(1), us(1500))],
            ),
            job("M", 2, ms(2), ms(1), vec![]),
            job("H", 3, ms(2), ms(1), vec![sec(b, Picos::ZERO, us(500))]),
        ],
        vec![
            res("A", SimProtocol::Inheritance),
            res("B", SimProtocol::Inheritance),
        ],
    );
    let (s, r) = run(c, ms(20));
    assert_eq!(resp(&r, "H"), ms(2).0);
    assert_eq!(resp(&r, "M"), ms(3).0);
    assert_eq!(resp(&r, "L"), ms(6).0);
    assert_eq!(pulses(&s, "L"), vec![(0, ms(3).0), (ms(5).0, ms(6).0)]);
    // H ran for an instant at 2 ms (its zero-cost lock call) before it waited: no
    // pulse of zero width, so H is high only 3..4.
    assert_eq!(pulses(&s, "H"), vec![(ms(3).0, ms(4).0)]);
    let b_ep = &r.resources[b].episodes[0];
    assert_eq!((b_ep.holder.as_str(), b_ep.inherited), ("L", true));
    assert_eq!(b_ep.wait_ns.map(us_f), Some(us(500).0));
    // H's blocking: L ran 2..3 while H was pending (0.5 ms holding B, 0.5 ms still at
    // the inherited priority holding A).
    assert_eq!(us_f(task_rep(&r, "H").max_blocking_ns), ms(1).0);
}

/// The immediate priority ceiling prevents a second block; under inheritance the same
/// jobs block H twice.
///
/// L (1): A from 0 for 2.5 ms, WCET 3 ms. M (2), released at 1 ms: B from 0 for 1.5 ms,
/// WCET 2 ms. H (3), released at 2 ms: A from 0 for 0.2 ms, B from 0.5 ms for 0.2 ms,
/// WCET 1 ms. Both ceilings are 3.
///
/// Inheritance: 0..1 L (A); 1 M preempts, takes B; 2 H asks for A: L at 3 runs
/// 2..3.5 and gives A; H 3.5..4 asks for B: M at 3 runs 4..4.5 and gives B; H 4.5..5.
/// H: 3 ms, blocked twice (1.5 + 0.5 ms); M 5..5.5 (4.5 ms); L 5.5..6 (6 ms).
///
/// Ceiling: L takes A at 0 and runs at 3: neither M (1 ms) nor H (2 ms, equal) preempt
/// it; L gives A at 2.5 and yields to H, which takes A and B freely: 2.5..3.5, 1.5 ms,
/// blocked once (0.5 ms), no contention. M 3.5..5.5 (4.5 ms), L 5.5..6 (6 ms).
#[test]
fn ceiling_prevents_a_second_block() {
    let tasks = || {
        vec![
            job(
                "L",
                1,
                Picos::ZERO,
                ms(3),
                vec![sec(0, Picos::ZERO, us(2500))],
            ),
            job("M", 2, ms(1), ms(2), vec![sec(1, Picos::ZERO, us(1500))]),
            job(
                "H",
                3,
                ms(2),
                ms(1),
                vec![sec(0, Picos::ZERO, us(200)), sec(1, us(500), us(200))],
            ),
        ]
    };
    let (_, inh) = run(
        cfg(
            tasks(),
            vec![
                res("A", SimProtocol::Inheritance),
                res("B", SimProtocol::Inheritance),
            ],
        ),
        ms(20),
    );
    assert_eq!(resp(&inh, "H"), ms(3).0);
    assert_eq!(resp(&inh, "M"), us(4500).0);
    assert_eq!(resp(&inh, "L"), ms(6).0);
    assert_eq!(inh.resources[0].contended + inh.resources[1].contended, 2);
    assert_eq!(us_f(task_rep(&inh, "H").max_blocking_ns), ms(2).0);

    let (s, ceil) = run(
        cfg(
            tasks(),
            vec![
                res("A", SimProtocol::Ceiling),
                res("B", SimProtocol::Ceiling),
            ],
        ),
        ms(20),
    );
    assert_eq!(resp(&ceil, "H"), us(1500).0);
    assert_eq!(resp(&ceil, "M"), us(4500).0);
    assert_eq!(resp(&ceil, "L"), ms(6).0);
    assert_eq!(ceil.resources[0].ceiling, 3);
    assert_eq!(ceil.resources[0].contended + ceil.resources[1].contended, 0);
    assert_eq!(us_f(task_rep(&ceil, "H").max_blocking_ns), us(500).0);
    assert_eq!(
        pulses(&s, "L"),
        vec![(0, us(2500).0), (us(5500).0, ms(6).0)]
    );
    assert_eq!(pulses(&s, "M"), vec![(us(3500).0, us(5500).0)]);
}

/// A kernel critical section delays the tick and a kernel-level interrupt; an interrupt
/// above the kernel's mask is not delayed; the lock and unlock calls are charged.
///
/// Tick cost 10 us (1 ms tick), lock 2 us, unlock 3 us. L (1): K (critical) from
/// 950 us for 100 us, WCET 3 ms. H (2) released at 1 ms, 100 us. X (kernel level,
/// priority 1, 5 us) arrives at 1 ms; Y (above the kernel, 4 us) at 1.02 ms.
///
/// * L runs 0..950, its lock call 950..952, holds K from 952 (the tick at 1000 and X
///   wait); Y runs at once 1020..1024; L's 100 us section ends at 1056 and its unlock
///   call (K still held) at 1059.
/// * X 1059..1064 (latency 59 us), the tick 1064..1074 (latency 64 us) releases H;
///   H 1074..1174: response 174 us.
/// * L: 3 ms + 5 us of calls + Y 4 + X 5 + ticks at 1, 2, 3 ms 30 + H 100 = 3.144 ms.
#[test]
fn critical_section_delays_the_tick_and_an_interrupt() {
    let mut c = tick_cfg(
        vec![
            job("L", 1, Picos::ZERO, ms(3), vec![sec(0, us(950), us(100))]),
            job("H", 2, ms(1), us(100), vec![]),
        ],
        us(10),
        Picos::ZERO,
        Picos::ZERO,
        Picos::ZERO,
    );
    if let Kernel::Tick(k) = &mut c.kernel {
        k.time_slicing = false;
    }
    c.resources = vec![res("K", SimProtocol::Critical)];
    c.lock_costs = SimLockCosts {
        lock: us(2),
        unlock: us(3),
        inherit: Picos::ZERO,
    };
    let irq = |name: &str, prio: u32, above: bool, wcet: i64, at: i64| SimIrq {
        name: name.into(),
        priority: prio,
        above_kernel: above,
        wcet: us(wcet),
        arrival: IrqArrival::Periodic {
            period: ms(10),
            offset: us(at),
        },
        sections: vec![],
    };
    c.interrupts = vec![irq("X", 1, false, 5, 1000), irq("Y", 2, true, 4, 1020)];
    let (s, r) = run(c, ms(5));
    assert_eq!(pulses(&s, "held_K"), vec![(us(952).0, us(1059).0)]);
    assert_eq!(pulses(&s, "Y"), vec![(us(1020).0, us(1024).0)]);
    assert_eq!(pulses(&s, "X"), vec![(us(1059).0, us(1064).0)]);
    assert_eq!(r.interrupts[0].max_latency_ns, Some(59_000.0));
    assert_eq!(r.interrupts[1].max_latency_ns, Some(0.0));
    assert_eq!(r.tick.max_latency_ns, Some(64_000.0));
    assert_eq!(resp(&r, "H"), us(174).0);
    assert_eq!(resp(&r, "L"), us(3144).0);
    assert_eq!(r.resources[0].takes, 1);
    assert_eq!(us_f(r.resources[0].max_hold_ns), us(107).0);
}

/// A handler's kernel critical section (`taskENTER_CRITICAL_FROM_ISR`) holds off a
/// higher kernel-level interrupt until it ends.
///
/// Z (priority 1, 20 us, K from 5 us for 10 us; lock 2, unlock 3 us: 25 us in all)
/// arrives at 500 us; W (priority 5, 4 us) at 510 us. Z: 500..505, lock 505..507, holds
/// K 507..520 (10 us of section + 3 us unlock); W waits and runs 520..524 (latency
/// 10 us); Z finishes 524..529 (response 29 us). Without the section W would run at once.
#[test]
fn handler_critical_section_masks_a_higher_interrupt() {
    let mut c = cfg(
        vec![job("T", 1, Picos::ZERO, us(100), vec![])],
        vec![res("K", SimProtocol::Critical)],
    );
    c.lock_costs = SimLockCosts {
        lock: us(2),
        unlock: us(3),
        inherit: Picos::ZERO,
    };
    let irq = |name: &str, prio: u32, wcet: i64, at: i64, sections| SimIrq {
        name: name.into(),
        priority: prio,
        above_kernel: false,
        wcet: us(wcet),
        arrival: IrqArrival::Periodic {
            period: ms(10),
            offset: us(at),
        },
        sections,
    };
    c.interrupts = vec![
        irq("Z", 1, 20, 500, vec![sec(0, us(5), us(10))]),
        irq("W", 5, 4, 510, vec![]),
    ];
    let (s, r) = run(c.clone(), ms(2));
    assert_eq!(pulses(&s, "W"), vec![(us(520).0, us(524).0)]);
    assert_eq!(pulses(&s, "held_K"), vec![(us(507).0, us(520).0)]);
    assert_eq!(r.interrupts[0].response.max_ns, Some(29_000.0));
    assert_eq!(r.interrupts[1].max_latency_ns, Some(10_000.0));
    c.interrupts[0].sections.clear();
    let (_, r) = run(c, ms(2));
    assert_eq!(r.interrupts[1].max_latency_ns, Some(0.0));
}

/// The inherit call runs in the taker's context before it blocks; lock, unlock.
///
/// Lock 1, unlock 2, inherit 3 us. L (1): M from 900 us for 500 us, WCET 2 ms. H (2),
/// released at 1 ms: M from 0 for 100 us, WCET 200 us.
/// * L: lock call 900..901, holds M from 901; H at 1000: lock call 1000..1001, finds M
///   taken, inherit call 1001..1004, blocks at 1004 (L inherits 2).
/// * L: 99 us of its section done, 401 left + unlock 2: gives M at 1407.
/// * H: holds M 1407..1507, unlock 1507..1509, rest 100 us: ends at 1609 (609 us).
#[test]
fn inherit_call_is_paid_by_the_taker() {
    let mut c = cfg(
        vec![
            job("L", 1, Picos::ZERO, ms(2), vec![sec(0, us(900), us(500))]),
            job("H", 2, ms(1), us(200), vec![sec(0, Picos::ZERO, us(100))]),
        ],
        vec![res("M", SimProtocol::Inheritance)],
    );
    c.lock_costs = SimLockCosts {
        lock: us(1),
        unlock: us(2),
        inherit: us(3),
    };
    let (s, r) = run(c, ms(10));
    assert_eq!(resp(&r, "H"), us(609).0);
    let e = &r.resources[0].episodes[0];
    assert_eq!(us_f(e.at_ns), us(1004).0);
    assert_eq!(e.wait_ns.map(us_f), Some(us(403).0));
    assert_eq!(pulses(&s, "held_M"), vec![(us(901).0, us(1509).0)]);
    // L: 2 ms + 3 us of calls + H's 206 us (200 + lock 1 + inherit 3 + unlock 2).
    assert_eq!(resp(&r, "L"), us(2209).0);
}

/// The four-task priority-inversion example taught from Burns & Wellings ("Real-Time
/// Systems and Programming Languages"; the book's own pages were not at hand, so its
/// figures are not cited): tasks a..d of priorities 1..4 released at 0, 2, 2, 4 (one
/// unit = 1 ms here), executing one unit per letter: a `EQQQQE`, b `EE`, c `EVVE`,
/// d `EEQVE` (`Q`, `V`: a unit holding that resource, `E`: a unit holding none). Rows d
/// (priority 4, `EEQVE`, released at 4) and c (3, `EVVE`, 2) were read in a stored copy
/// of the ROS01 lecture slides of Hogeschool Rotterdam, "Real-Time Operating Systems,
/// Week 7: RT Analyses (part 2)", slide "Priority inversion example"
/// (https://bitbucket.org/HR_ELEKTRO/ros01/wiki/Presentaties/Week7.pdf), whose stored
/// text breaks off at row b; rows a and b are the example as commonly given, not read.
/// Every completion time below was worked by hand from the protocols' rules: none is a
/// published figure.
///
/// Inheritance: a takes Q at 1; c runs 2..4 (takes V at 3); d runs 4..6 and asks for
/// Q: a inherits 4 and runs 6..9; d 9..10 holds Q, asks for V: c inherits 4, 10..11;
/// d 11..13 (completes at 13), c 13..14, b 14..16, a 16..17.
///
/// Immediate ceiling (both ceilings 4): a runs at 4 from 1 to 5, so neither c nor d
/// starts; d 5..10, c 10..14, b 14..16, a 16..17. d is blocked once (1 unit, 4..5)
/// instead of twice (4 units).
#[test]
fn four_task_inversion_example_worked_by_hand() {
    let u = |x: i64| ms(x);
    let tasks = || {
        vec![
            job("a", 1, u(0), u(6), vec![sec(0, u(1), u(4))]),
            job("b", 2, u(2), u(2), vec![]),
            job("c", 3, u(2), u(4), vec![sec(1, u(1), u(2))]),
            job(
                "d",
                4,
                u(4),
                u(5),
                vec![sec(0, u(2), u(1)), sec(1, u(3), u(1))],
            ),
        ]
    };
    let done = |r: &SimReport, name: &str, release: i64| (resp(r, name) + u(release).0) / u(1).0;
    for (proto, d, c, b, a, d_blocking) in [
        (SimProtocol::Inheritance, 13, 14, 16, 17, 4),
        (SimProtocol::Ceiling, 10, 14, 16, 17, 1),
    ] {
        let (_, r) = run(cfg(tasks(), vec![res("Q", proto), res("V", proto)]), ms(30));
        assert_eq!(
            [
                done(&r, "d", 4),
                done(&r, "c", 2),
                done(&r, "b", 2),
                done(&r, "a", 0)
            ],
            [d, c, b, a],
            "{proto:?}"
        );
        assert_eq!(
            us_f(task_rep(&r, "d").max_blocking_ns),
            u(d_blocking).0,
            "{proto:?}"
        );
    }
}

/// The worst case behind Buttazzo's Table 7.1 ("Hard Real-Time Computing Systems", 3rd
/// ed., section 7.6.3; the published B1 = 15 is asserted against the analysis in
/// crates/model/tests/it/published_blocking.rs), played out under priority inheritance.
/// τ1..τ3 (priorities 4..2) with the table's sections: τ1 Sa 1 then Sb 2; τ2 Sb 9 then
/// Sc 3; τ3 Sa 8 then Sb 7 (τ4 does not take part in τ1's worst case and is left out).
///
/// Whole units (1 unit = 1 ms, the 1 ms tick): τ3 takes Sa at 0; τ2, released at 1,
/// preempts it and takes Sb; τ1, released at 2, asks for Sa: τ3 inherits and runs its
/// remaining 7 (2..9); τ1 holds Sa 9..10 and asks for Sb: τ2 inherits and runs its
/// remaining 8 (10..18); τ1 holds Sb 18..20. Blocked 7 + 8 = 15: the book's B1 exactly,
/// with its "one unit subtracted from each duration" (each lower task must have entered
/// its section a unit before τ1 arrives).
///
/// Releases 1 us apart instead (a 1 us tick): blocked (8 ms − 1 us) + (9 ms − 1 us) =
/// 17 ms − 2 us, approaching latscope's continuous-time bound of 17 ms for the table as
/// written (B1^s = 8 + 9).
#[test]
fn buttazzo_table_7_1_worst_case_for_tau1() {
    let (sa, sb, sc) = (0, 1, 2);
    let tasks = |step: Picos| {
        vec![
            job(
                "t1",
                4,
                Picos(2 * step.0),
                ms(3),
                vec![sec(sa, Picos::ZERO, ms(1)), sec(sb, ms(1), ms(2))],
            ),
            job(
                "t2",
                3,
                step,
                ms(12),
                vec![sec(sb, Picos::ZERO, ms(9)), sec(sc, ms(9), ms(3))],
            ),
            job(
                "t3",
                2,
                Picos::ZERO,
                ms(15),
                vec![sec(sa, Picos::ZERO, ms(8)), sec(sb, ms(8), ms(7))],
            ),
        ]
    };
    let resources = || {
        vec![
            res("Sa", SimProtocol::Inheritance),
            res("Sb", SimProtocol::Inheritance),
            res("Sc", SimProtocol::Inheritance),
        ]
    };
    // Whole units.
    let (_, r) = run(cfg(tasks(ms(1)), resources()), ms(40));
    assert_eq!(us_f(task_rep(&r, "t1").max_blocking_ns), ms(15).0);
    assert_eq!(resp(&r, "t1"), ms(18).0);
    // Releases 1 us apart.
    let mut c = cfg(tasks(us(1)), resources());
    c.tick_period = us(1);
    let (_, r) = run(c, ms(40));
    assert_eq!(us_f(task_rep(&r, "t1").max_blocking_ns), ms(17).0 - us(2).0);
    assert_eq!(resp(&r, "t1"), ms(20).0 - us(2).0);
}

/// A deadlock (two mutexes nested in opposite orders) is simulated as it happens: both
/// tasks stay blocked and miss their deadlines; the run ends on time.
///
/// L (1): A from 0 for 2 ms with B nested from 1.5 ms for 0.2 ms. H (2), released at
/// 1 ms: B from 0 for 0.5 ms with A nested from 0.2 ms for 0.1 ms. H takes B at 1 ms,
/// asks for A at 1.2 (L inherits 2); L runs 1.2..1.7 and asks for B: deadlock.
#[test]
fn deadlock_is_simulated_not_hung() {
    let (a, b) = (0, 1);
    let c = cfg(
        vec![
            job(
                "L",
                1,
                Picos::ZERO,
                ms(3),
                vec![sec(a, Picos::ZERO, ms(2)), sec(b, us(1500), us(200))],
            ),
            job(
                "H",
                2,
                ms(1),
                ms(1),
                vec![sec(b, Picos::ZERO, us(500)), sec(a, us(200), us(100))],
            ),
        ],
        vec![
            res("A", SimProtocol::Inheritance),
            res("B", SimProtocol::Inheritance),
        ],
    );
    let (s, r) = run(c, ms(250));
    assert_eq!(s.now(), ms(250));
    for name in ["L", "H"] {
        let t = task_rep(&r, name);
        assert_eq!((t.jobs, t.deadline_misses), (0, 1), "{name}");
    }
    assert_eq!(us_f(r.resources[a].episodes[0].at_ns), us(1200).0);
    assert_eq!(us_f(r.resources[b].episodes[0].at_ns), us(1700).0);
    assert_eq!(r.resources[a].episodes[0].wait_ns, None);
    // H waits from 1.2 ms to the end of the run.
    assert_eq!(us_f(task_rep(&r, "H").blocked_ns), ms(250).0 - us(1200).0);
}

/// Robustness over random configurations the cross-check does not generate: equal
/// priorities with time slicing, nested inheritance mutexes (deadlocks possible), every
/// protocol mixed, handlers' critical sections, the list-scan kernel, random lock
/// costs and uniform execution times. No panic or stall; a valid capture in which the
/// context channels are high one at a time; the CPU split covers the run; each
/// `held_` channel is high exactly as long as the JSON's `held_ns`.
#[test]
fn random_resource_configurations_are_robust() {
    use rand::{Rng, SeedableRng};
    let protos = [
        SimProtocol::Inheritance,
        SimProtocol::Ceiling,
        SimProtocol::Critical,
    ];
    for k in 0..300u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5e55 + k);
        let nres = rng.gen_range(1..=3);
        let resources: Vec<SimResource> = (0..nres)
            .map(|r| res(&format!("r{r}"), protos[rng.gen_range(0..3)]))
            .collect();
        let n = rng.gen_range(1..=6);
        let mut tasks = Vec::new();
        for i in 0..n {
            let period = ms(rng.gen_range(2..=20));
            let wcet = Picos(rng.gen_range(period.0 / 20..=period.0 / 3));
            let mut secs = Vec::new();
            let mut pos = 0;
            while secs.len() < 4 && rng.gen_bool(0.7) {
                let at = pos + rng.gen_range(0..=wcet.0 / 4);
                let d = rng.gen_range(1..=wcet.0 / 3);
                if at + d > wcet.0 {
                    break;
                }
                let r = rng.gen_range(0..nres);
                secs.push(sec(r, Picos(at), Picos(d)));
                // sometimes nest another resource of the same protocol
                let inner =
                    (0..nres).find(|&o| o != r && resources[o].protocol == resources[r].protocol);
                if let (Some(o), true) = (inner, rng.gen_bool(0.4)) {
                    let ia = at + rng.gen_range(0..=d / 2);
                    secs.push(sec(o, Picos(ia), Picos(rng.gen_range(1..=at + d - ia))));
                }
                pos = at + d;
            }
            let mut t = job(
                &format!("t{i}"),
                rng.gen_range(1..=3),
                Picos::ZERO,
                wcet,
                secs,
            );
            t.period = period;
            t.deadline = period;
            t.offset = ms(rng.gen_range(0..=3));
            if rng.gen_bool(0.3) {
                t.exec = ExecTime::Uniform {
                    bcet: Picos(wcet.0 / 2),
                    wcet,
                };
            }
            tasks.push(t);
        }
        let list_scan = k % 5 == 4;
        let mut c = free(tasks);
        if list_scan {
            c.tick_period = ms(1);
            c.kernel = Kernel::ListScan(ListScanKernel {
                check_cost: us(1),
                insert_cost: vec![us(1)],
                switch_cost: us(2),
            });
        } else if let Kernel::Tick(t) = &mut c.kernel {
            t.time_slicing = rng.gen_bool(0.5);
            t.tick_cost = vec![us(3), us(8)];
        }
        c.lock_costs = SimLockCosts {
            lock: Picos::from_ns(rng.gen_range(0..=3_000)),
            unlock: Picos::from_ns(rng.gen_range(0..=3_000)),
            inherit: Picos::from_ns(rng.gen_range(0..=3_000)),
        };
        let crit = (0..nres).find(|&r| resources[r].protocol == SimProtocol::Critical);
        c.resources = resources;
        for q in 0..rng.gen_range(0..=2) {
            let above = rng.gen_bool(0.3);
            let wcet = us(rng.gen_range(5..=60));
            let sections = match (crit, above) {
                (Some(r), false) => vec![sec(r, us(1), us(3))],
                _ => vec![],
            };
            c.interrupts.push(SimIrq {
                name: format!("irq{q}"),
                priority: rng.gen_range(0..=3),
                above_kernel: above,
                wcet,
                arrival: IrqArrival::Sporadic {
                    min: us(300),
                    max: us(3000),
                    offset: us(rng.gen_range(0..=500)),
                },
                sections,
            });
        }
        let nirq = c.interrupts.len();
        let dur = ms(200);
        let (s, r) = run(c, dur);
        assert_eq!(s.now(), dur, "config {k}");
        let cap = s.capture();
        cap.validate().expect("valid capture");
        // context channels: one high at a time
        let ctx = n + 5 + nirq;
        let mut level = vec![false; ctx];
        let mut ev: Vec<(i64, usize)> = cap.channels[..ctx]
            .iter()
            .enumerate()
            .flat_map(|(c, ch)| ch.edges.iter().map(move |e| (e.0, c)))
            .collect();
        ev.sort();
        let mut i = 0;
        while i < ev.len() {
            let t = ev[i].0;
            while i < ev.len() && ev[i].0 == t {
                level[ev[i].1] ^= true;
                i += 1;
            }
            assert_eq!(level.iter().filter(|&&x| x).count(), 1, "config {k} at {t}");
        }
        let c = &r.cpu;
        let sum = c.tasks_ns
            + c.tick_ns
            + c.switch_ns
            + c.interrupts_ns
            + c.scheduler_ns
            + c.idle_ns
            + c.sleep_ns
            + c.wake_ns;
        assert!((sum - r.duration_ns).abs() < 1e-3, "config {k}: {sum}");
        for (x, rr) in r.resources.iter().enumerate() {
            let ch = &cap.channels[ctx + x];
            // edges toggle from low; a hold still open ends with the run
            let mut e: Vec<i64> = ch.edges.iter().map(|p| p.0).collect();
            if e.len() % 2 == 1 {
                e.push(dur.0);
            }
            let high: i64 = e.chunks(2).map(|w| w[1] - w[0]).sum();
            assert_eq!(high, us_f(rr.held_ns), "config {k} resource {x}");
        }
    }
}
