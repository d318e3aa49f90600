//! Synthetic recordings whose figures follow from the event times written here.

use super::*;
use latscope_core::events::{Actor, Event, EventKind::*, LostEvents};

const US: i64 = 1_000_000; // ps

fn actor(name: &str, kind: ActorKind, priority: Option<i64>) -> Actor {
    Actor {
        name: name.into(),
        kind,
        priority,
        id: 0,
    }
}

fn ev(t_us: i64, kind: latscope_core::events::EventKind) -> Event {
    Event {
        t: Picos(t_us * US),
        cpu: 0,
        kind,
    }
}

// Actor indices of `two_tasks`.
const H: u32 = 0;
const L: u32 = 1;
const TICK: u32 = 2;
const IDLE: u32 = 3;
const UART: u32 = 4;

/// Two tasks (H above L), a tick, idle and a UART handler on one CPU over 100 us:
/// * tick at 10..14 releases H (11) and L (12); H runs 15, the UART interrupts it 20..23,
///   H blocks at 25; L runs from 26;
/// * tick at 30..33 releases H (31); L runs 33..34 until H preempts it; H blocks at 40,
///   L resumes at 41 and blocks at 45; idle from 46;
/// * tick at 50..55 releases H (51), the UART nested in it 52..54; H runs from 56 to the
///   end without blocking (cut off).
fn two_tasks() -> EventTrace {
    EventTrace {
        source: "synthetic".into(),
        format: "test".into(),
        clock_hz: Some(1_000_000_000),
        start: Picos(0),
        end: Picos(100 * US),
        cpus: 1,
        actors: vec![
            actor("H", ActorKind::Task, Some(2)),
            actor("L", ActorKind::Task, Some(1)),
            actor("tick", ActorKind::Tick, None),
            actor("idle", ActorKind::Idle, Some(0)),
            actor("uart", ActorKind::Isr, None),
        ],
        events: vec![
            ev(0, Switch(IDLE)),
            ev(10, IsrEnter(TICK)),
            ev(11, Ready(H)),
            ev(12, Ready(L)),
            ev(14, IsrExit(TICK)),
            ev(15, Switch(H)),
            ev(20, IsrEnter(UART)),
            ev(23, IsrExit(UART)),
            ev(25, Block(H)),
            ev(26, Switch(L)),
            ev(30, IsrEnter(TICK)),
            ev(31, Ready(H)),
            ev(33, IsrExit(TICK)),
            ev(34, Switch(H)),
            ev(40, Block(H)),
            ev(41, Switch(L)),
            ev(45, Block(L)),
            ev(46, Switch(IDLE)),
            ev(50, IsrEnter(TICK)),
            ev(51, Ready(H)),
            ev(52, IsrEnter(UART)),
            ev(54, IsrExit(UART)),
            ev(55, IsrExit(TICK)),
            ev(56, Switch(H)),
        ],
        lost: vec![],
    }
}

fn ns(us: i64) -> Option<Option<f64>> {
    Some(Some((us * 1000) as f64))
}

#[test]
fn jobs_response_start_latency_execution_and_preemptions() {
    let t = two_tasks();
    assert!(t.validate().is_ok());
    let r = analyze(&t, &Options::default());
    let h = r.task("H").unwrap();
    // Job 0: released 11, first run 15, blocked 25, ran 15..20 and 23..25 (UART 20..23).
    // Job 1: released 31, first run 34, blocked 40, ran 34..40. Job 2 (51) never blocks.
    let (h0, h1) = ((11, 15, 25), (31, 34, 40));
    assert_eq!((h.jobs, h.cut_off, h.suspect), (2, 1, 0));
    assert_eq!(h.response.max_ns, ns(h0.2 - h0.0));
    assert_eq!(h.response.min_ns, ns(h1.2 - h1.0));
    assert_eq!(h.response.max_at_ns, ns(h0.0));
    assert_eq!(h.start_latency.max_ns, ns(h0.1 - h0.0));
    assert_eq!(h.start_latency.min_ns, ns(h1.1 - h1.0));
    assert_eq!(h.execution.max_ns, ns((20 - 15) + (25 - 23)));
    assert_eq!(h.execution.min_ns, ns(40 - 34));
    assert_eq!(h.preemptions.total, 0);
    assert_eq!(h.worst[0].job, 0);
    assert_eq!(h.worst[0].release_ns, (h0.0 * 1000) as f64);
    assert_eq!(h.worst[1].response_ns, ((h1.2 - h1.0) * 1000) as f64);
    // Releases at 11, 31, 51: two intervals of 20 us.
    assert_eq!(h.inter_arrival.count, 2);
    assert_eq!(h.inter_arrival.max_ns, ns(20));

    let l = r.task("L").unwrap();
    // Released 12, first run 26, ran 26..30, 33..34 (after the tick), preempted by H at
    // 34, resumed 41, blocked 45.
    assert_eq!((l.jobs, l.cut_off), (1, 0));
    assert_eq!(l.start_latency.max_ns, ns(26 - 12));
    assert_eq!(l.response.max_ns, ns(45 - 12));
    assert_eq!(l.execution.max_ns, ns((30 - 26) + (34 - 33) + (45 - 41)));
    assert_eq!((l.preemptions.total, l.preemptions.max), (1, 1));
    assert_eq!(l.preemptions.max_at_ns, Some(12_000.0));
    assert_eq!(l.priority, Some(1));
}

#[test]
fn cpu_shares_add_up_to_the_recording() {
    let t = two_tasks();
    let r = analyze(&t, &Options::default());
    // H: 15..20, 23..26 (current until the switch at 26), 34..41, 56..100.
    let h_run = 5 + 3 + 7 + 44;
    // L: 26..30, 33..34, 41..46.
    let l_run = 4 + 1 + 5;
    // idle: 0..10, 14..15, 46..50, 55..56; ticks 4 + 3 + (5 - 2); UART 3 + 2.
    let idle = 10 + 1 + 4 + 1;
    let (tick, uart) = (4 + 3 + 3, 3 + 2);
    assert_eq!(h_run + l_run + idle + tick + uart, 100);
    assert_eq!(r.task("H").unwrap().cpu_percent, h_run as f64);
    assert_eq!(r.task("L").unwrap().cpu_percent, l_run as f64);
    assert_eq!(r.idle_percent, Some(idle as f64));
    let tk = r.tick().unwrap();
    assert_eq!(tk.cpu_percent, tick as f64);
    let u = r.isrs.iter().find(|i| i.name == "uart").unwrap();
    assert_eq!(u.cpu_percent, uart as f64);
}

#[test]
fn isr_durations_exclude_nested_handlers_and_ticks_count_releases() {
    let t = two_tasks();
    let r = analyze(&t, &Options::default());
    let tk = r.tick().unwrap();
    assert_eq!(tk.count, 3);
    // 10..14; 30..33; 50..55 with the UART nested 52..54.
    assert_eq!(tk.duration.max_ns, ns(4));
    assert_eq!(tk.duration.min_ns, ns(3));
    assert_eq!(tk.duration.max_at_ns, ns(10));
    assert_eq!(tk.released, 2 + 1 + 1);
    assert_eq!(tk.by_released.len(), 2);
    assert_eq!(tk.by_released[0].released, 1);
    assert_eq!(tk.by_released[0].count, 2);
    assert_eq!(tk.by_released[1].max_ns, 4000.0);
    let u = r.isrs.iter().find(|i| i.name == "uart").unwrap();
    assert_eq!(u.kind, "isr");
    assert_eq!(u.count, 2);
    assert_eq!(u.duration.max_ns, ns(3));
    assert_eq!(u.duration.min_ns, ns(54 - 52));

    let rows = tick_rows(&t, &walk(&t));
    let want = [(10, 4, 2), (30, 3, 1), (50, 3, 1)];
    assert_eq!(rows.len(), want.len());
    for (row, (at, d, n)) in rows.iter().zip(want) {
        assert_eq!(
            (row.time.0, row.duration.0, row.released),
            (at * US, d * US, n)
        );
    }
    let mut csv = Vec::new();
    write_tick_series(&rows, &mut csv).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap(),
        "time_ns,duration_ns,released\n10000,4000,2\n30000,3000,1\n50000,3000,1\n"
    );
}

#[test]
fn switch_series_measures_block_or_exit_to_switch() {
    let t = two_tasks();
    let rows = switch_rows(&t);
    // Caused switches: 14 exit → 15 H; 25 block → 26 L; 33 exit → 34 H; 40 block → 41 L;
    // 45 block → 46 idle; 55 exit → 56 H. The first switch (to idle at 0) has no cause.
    let want = [
        (15, "H"),
        (26, "L"),
        (34, "H"),
        (41, "L"),
        (46, "idle"),
        (56, "H"),
    ];
    assert_eq!(rows.len(), want.len());
    for (r, (at, name)) in rows.iter().zip(want) {
        assert_eq!(
            (r.time.0, r.duration.0, r.task.as_str()),
            (at * US, US, name)
        );
    }
    assert_eq!(
        (rows[1].from_priority, rows[1].to_priority),
        (Some(2), Some(1))
    );
}

#[test]
fn a_switch_written_before_the_block_at_the_same_instant_is_no_preemption() {
    let mut t = two_tasks();
    // H blocks at 25 and L runs from 25: the recorder writes the switch first.
    let at = |t: &EventTrace, k| t.events.iter().position(|e| e.kind == k).unwrap();
    let b = at(&t, Block(H));
    t.events[b + 1].t = Picos(25 * US);
    t.events.swap(b, b + 1);
    assert_eq!(t.events[b].kind, Switch(L));
    assert!(t.validate().is_ok());
    let r = analyze(&t, &Options::default());
    let h = r.task("H").unwrap();
    assert_eq!(h.preemptions.total, 0);
    assert_eq!(h.response.max_ns, ns(25 - 11));
    // L's real preemption (by H at 34) still counts.
    assert_eq!(r.task("L").unwrap().preemptions.total, 1);
}

#[test]
fn jobs_in_progress_at_the_start_are_cut_off() {
    let mut t = two_tasks();
    // L was already running when the recording started: its first event is a switch.
    t.events.insert(1, ev(1, Switch(L)));
    t.events.insert(2, ev(2, Block(L)));
    t.events.insert(3, ev(3, Switch(IDLE)));
    let r = analyze(&t, &Options::default());
    let l = r.task("L").unwrap();
    // The cut-off job is not counted; the job released at 12 still is.
    assert_eq!((l.jobs, l.cut_off), (1, 1));
    assert_eq!(l.response.max_ns, ns(45 - 12));
}

#[test]
fn lost_events_flag_the_jobs_they_touch() {
    let mut t = two_tasks();
    t.lost = vec![LostEvents::reported(7, Picos(38 * US), Picos(39 * US))];
    let r = analyze(&t, &Options::default());
    assert_eq!(r.lost_events.count, 7);
    assert_eq!(r.lost_events.windows[0].from_ns, 38_000.0);
    // H's job 1 (31..40) and L's job (12..45) touch 38..39; H's job 0 (11..25) does not.
    let h = r.task("H").unwrap();
    assert_eq!(h.suspect, 1);
    assert!(!h.worst[0].suspect && h.worst[1].suspect);
    let l = r.task("L").unwrap();
    assert_eq!(l.suspect, 1);
    assert!(l.worst[0].suspect);
    assert_eq!(r.tick().unwrap().suspect, 0);
}

#[test]
fn a_task_moving_between_cpus_is_one_task() {
    // CPU 0 readies W; CPU 1 runs it; it blocks there.
    let mut t = EventTrace {
        source: "smp".into(),
        format: "test".into(),
        clock_hz: None,
        start: Picos(0),
        end: Picos(20 * US),
        cpus: 2,
        actors: vec![
            actor("W", ActorKind::Task, Some(120)),
            actor("swapper", ActorKind::Idle, None),
        ],
        events: vec![
            ev(0, Switch(1)),
            ev(1, Block(0)),
            ev(4, Ready(0)),
            ev(6, Switch(0)),
            ev(9, Block(0)),
            ev(9, Switch(1)),
        ],
        lost: vec![],
    };
    t.events[3].cpu = 1;
    t.events[4].cpu = 1;
    t.events[5].cpu = 1;
    let r = analyze(&t, &Options::default());
    let w = r.task("W").unwrap();
    assert_eq!((w.jobs, w.cut_off), (1, 1));
    assert_eq!(w.start_latency.max_ns, ns(6 - 4));
    assert_eq!(w.response.max_ns, ns(9 - 4));
    assert_eq!(w.execution.max_ns, ns(9 - 6));
}

#[test]
fn result_json_has_the_contract_keys_and_reads_back() {
    let r = analyze(&two_tasks(), &Options::default());
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["kind"], "tasks");
    let t0 = &v["tasks"][0];
    for k in ["name", "priority", "jobs"] {
        assert!(!t0[k].is_null(), "{k}");
    }
    for s in ["start_latency", "response", "execution"] {
        for k in ["count", "min_ns", "p50_ns", "p99_ns", "max_ns", "max_at_ns"] {
            assert!(t0[s][k].is_number(), "{s}.{k}");
        }
    }
    assert!(v["isrs"][0]["duration"]["max_ns"].is_number());
    assert!(v["lost_events"]["count"].is_number());
    assert!(v["lost_events"]["windows"].is_array());
    let back = TaskTimingResult::from_json(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn empty_and_hostile_recordings_do_not_panic() {
    let mut t = two_tasks();
    t.events.clear();
    let r = analyze(&t, &Options::default());
    assert_eq!(r.task("H").unwrap().jobs, 0);
    assert_eq!(r.task("H").unwrap().response.max_ns, Some(None));
    // Unknown actors, CPUs past the count, an exit without an enter, extreme times.
    let mut t = two_tasks();
    t.events.push(ev(60, IsrExit(UART)));
    t.events.push(Event {
        t: Picos(61 * US),
        cpu: 9,
        kind: Switch(99),
    });
    t.start = Picos(i64::MIN);
    t.end = Picos(i64::MAX);
    let r = analyze(&t, &Options::default());
    assert_eq!(r.recording.unmatched_isr_exits, 1);
}

#[test]
fn checked_in_schema_is_generated_from_the_type() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/tasks.schema.json");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    if std::env::var_os("LATSCOPE_WRITE_SCHEMAS").is_some() {
        std::fs::write(path, result::schema_json()).unwrap();
        return;
    }
    assert!(
        on_disk == result::schema_json(),
        "docs/tasks.schema.json is stale: regenerate it with \
         `LATSCOPE_WRITE_SCHEMAS=1 cargo test --release -p latscope-trace --lib tasks`"
    );
}

/// Two CPUs, one task each, both with jobs across 40..50 us: A on CPU 0 (released 35,
/// runs 36..44), B on CPU 1 (released 38, runs 39..47), C released on CPU 0 at 60 and
/// blocking at 70 on CPU 1 (it migrated).
fn two_cpus() -> EventTrace {
    let on = |cpu: u16, t: i64, kind| Event {
        t: Picos(t * US),
        cpu,
        kind,
    };
    EventTrace {
        source: "synthetic".into(),
        format: "test".into(),
        clock_hz: Some(1_000_000_000),
        start: Picos(0),
        end: Picos(100 * US),
        cpus: 2,
        actors: vec![
            actor("A", ActorKind::Task, Some(1)),
            actor("B", ActorKind::Task, Some(1)),
            actor("C", ActorKind::Task, Some(1)),
            actor("idle", ActorKind::Idle, None),
        ],
        events: vec![
            on(0, 0, Switch(3)),
            on(1, 0, Switch(3)),
            on(0, 35, Ready(0)),
            on(0, 36, Switch(0)),
            on(1, 38, Ready(1)),
            on(1, 39, Switch(1)),
            on(0, 44, Block(0)),
            on(0, 44, Switch(3)),
            on(1, 47, Block(1)),
            on(1, 47, Switch(3)),
            on(0, 60, Ready(2)),
            on(1, 61, Switch(2)),
            on(1, 70, Block(2)),
            on(1, 70, Switch(3)),
        ],
        lost: vec![],
    }
}

#[test]
fn a_loss_on_one_cpu_flags_only_the_jobs_on_that_cpu() {
    let mut t = two_cpus();
    // A hole on CPU 1 over 40..42 us: B's job ran there, A's (same time) did not.
    t.lost = vec![LostEvents::inferred(
        1,
        Picos(40 * US),
        Picos(42 * US),
        None,
    )];
    t.validate().unwrap();
    let r = analyze(&t, &Options::default());
    assert_eq!(r.task("A").unwrap().suspect, 0);
    assert_eq!(r.task("B").unwrap().suspect, 1);
    assert_eq!(r.task("C").unwrap().suspect, 0);
    assert_eq!(r.lost_events.inferred, 1);
    let w = &r.lost_events.windows[0];
    assert_eq!((w.cpu, w.inferred, w.count), (Some(1), true, 0));
    // The same window on CPU 0 flags A instead; without a CPU it flags both.
    t.lost[0].cpu = Some(0);
    let r = analyze(&t, &Options::default());
    assert_eq!(r.task("A").unwrap().suspect, 1);
    assert_eq!(r.task("B").unwrap().suspect, 0);
    t.lost = vec![LostEvents::reported(3, Picos(40 * US), Picos(42 * US))];
    let r = analyze(&t, &Options::default());
    assert_eq!(r.task("A").unwrap().suspect, 1);
    assert_eq!(r.task("B").unwrap().suspect, 1);
    assert_eq!((r.lost_events.count, r.lost_events.inferred), (3, 0));
}

#[test]
fn a_hole_flags_the_task_it_found_running_unseen_and_migrated_jobs() {
    let mut t = two_cpus();
    // A hole on CPU 1 at 40..42 naming A as the task found there afterwards: A's job is
    // flagged though none of its events is on CPU 1.
    t.lost = vec![LostEvents::inferred(
        1,
        Picos(40 * US),
        Picos(42 * US),
        Some(0),
    )];
    let r = analyze(&t, &Options::default());
    assert_eq!(r.task("A").unwrap().suspect, 1);
    assert_eq!(r.task("B").unwrap().suspect, 1);
    // C was released on CPU 0 and ran on CPU 1: a loss on either CPU during its job
    // touches it.
    for cpu in [0, 1] {
        t.lost = vec![LostEvents::inferred(
            cpu,
            Picos(65 * US),
            Picos(66 * US),
            None,
        )];
        let r = analyze(&t, &Options::default());
        assert_eq!(r.task("C").unwrap().suspect, 1, "CPU {cpu}");
        assert_eq!(
            r.task("A").unwrap().suspect + r.task("B").unwrap().suspect,
            0
        );
    }
    let tl = walk(&t);
    assert_eq!(tl.actors[2].jobs[0].cpus, vec![0, 1]);
}

#[test]
fn lost_windows_naming_unknown_cpus_or_actors_are_refused() {
    let mut t = two_cpus();
    t.lost = vec![LostEvents::inferred(2, Picos(1), Picos(2), None)];
    assert!(t.validate().unwrap_err().to_string().contains("CPU 2"));
    t.lost = vec![LostEvents::inferred(0, Picos(1), Picos(2), Some(9))];
    assert!(t.validate().unwrap_err().to_string().contains("actor 9"));
    t.lost = vec![LostEvents::reported(1, Picos(3), Picos(2))];
    assert!(t.validate().unwrap_err().to_string().contains("backwards"));
}

/// Events JSON written before windows had a CPU or a kind still reads: every CPU,
/// reported.
#[test]
fn old_lost_windows_read_as_reported_on_every_cpu() {
    let w: LostEvents = serde_json::from_str(r#"{"count":4,"from":10,"to":20}"#).unwrap();
    assert_eq!(w, LostEvents::reported(4, Picos(10), Picos(20)));
    let back =
        serde_json::to_string(&LostEvents::inferred(1, Picos(1), Picos(2), Some(3))).unwrap();
    assert!(
        back.contains(r#""kind":"inferred""#) && back.contains(r#""cpu":1"#),
        "{back}"
    );
}

/// The index over the windows gives what checking every window gives, for jobs and
/// windows placed every which way (nested, overlapping, on other CPUs).
#[test]
fn the_loss_index_agrees_with_checking_every_window() {
    let mut t = two_cpus();
    let spans = [
        (0, 100),
        (10, 12),
        (30, 39),
        (44, 44),
        (46, 80),
        (5, 36),
        (61, 61),
    ];
    for (k, &(a, b)) in spans.iter().enumerate() {
        let cpu = (k % 2) as u16;
        t.lost = spans[..=k]
            .iter()
            .enumerate()
            .map(|(i, &(f, to))| {
                let mut l =
                    LostEvents::inferred(cpu ^ (i as u16 % 2), Picos(f * US), Picos(to * US), None);
                if i % 3 == 2 {
                    l.cpu = None;
                }
                l
            })
            .collect();
        let tl = walk(&t);
        let r = analyze(&t, &Options::default());
        for (i, actor) in t.actors.iter().enumerate() {
            if actor.kind != ActorKind::Task {
                continue;
            }
            let want = tl.actors[i]
                .jobs
                .iter()
                .filter(|j| touches_loss(&t.lost, j.release, j.end, &j.cpus, i as u32))
                .count() as u64;
            assert_eq!(
                r.task(&actor.name).unwrap().suspect,
                want,
                "{a}..{b} {}",
                actor.name
            );
        }
    }
}
