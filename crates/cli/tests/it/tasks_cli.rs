//! `trace --tasks`, `trace --system-out`, `fit TRACE` and `analyze --observed` on a
//! synthetic event recording (latscope's event JSON) made by a small fixed-priority
//! scheduler below, which keeps its own record of every job and tick: the figures the
//! commands print are checked against that record, not against their own output.

use crate::common;

use common::{fails, ok, stdout, task_named};
use latscope_core::events::{Actor, ActorKind, Event, EventKind, EventTrace, LostEvents};
use latscope_core::time::Picos;
use serde_json::Value;
use std::path::{Path, PathBuf};

const US: i64 = 1_000_000; // ps

struct Spec {
    name: &'static str,
    prio: i64,
    period_us: i64,
    exec_us: i64,
}

/// Three tasks (periods 2, 4 and 10 ms: ticks release 0, 1, 2 or 3 of them) on a 1 kHz
/// tick costing 2 us plus 3 us per task released.
const SET: [Spec; 3] = [
    Spec {
        name: "A",
        prio: 3,
        period_us: 2_000,
        exec_us: 300,
    },
    Spec {
        name: "B",
        prio: 2,
        period_us: 4_000,
        exec_us: 800,
    },
    Spec {
        name: "C",
        prio: 1,
        period_us: 10_000,
        exec_us: 2_000,
    },
];
const TICK_US: i64 = 1_000;
const TICK_BASE_US: i64 = 2;
const TICK_PER_US: i64 = 3;

/// What the scheduler did: per task its complete jobs (release, first run, block), per
/// tick (enter, duration, released).
#[derive(Default)]
struct Truth {
    jobs: Vec<Vec<(i64, i64, i64)>>,
    ticks: Vec<(i64, i64, u32)>,
}

struct Sched {
    events: Vec<Event>,
    truth: Truth,
    remaining: Vec<i64>,
    release: Vec<i64>,
    first: Vec<Option<i64>>,
    current: Option<usize>,
    idle: u32,
}

impl Sched {
    fn ev(&mut self, t_us: i64, kind: EventKind) {
        self.events.push(Event {
            t: Picos(t_us * US),
            cpu: 0,
            kind,
        });
    }

    /// Runs the ready tasks, highest priority first, from `now` to `until`.
    fn run(&mut self, mut now: i64, until: i64) {
        loop {
            let next = (0..SET.len())
                .filter(|&i| self.remaining[i] > 0)
                .max_by_key(|&i| SET[i].prio);
            let id = next.map_or(self.idle, |i| i as u32);
            if self.current != Some(id as usize) {
                self.ev(now, EventKind::Switch(id));
                self.current = Some(id as usize);
                if let Some(i) = next {
                    self.first[i].get_or_insert(now);
                }
            }
            let Some(i) = next else { return };
            let run = self.remaining[i].min(until - now);
            now += run;
            self.remaining[i] -= run;
            if self.remaining[i] > 0 {
                return;
            }
            self.ev(now, EventKind::Block(i as u32));
            let first = self.first[i].take().unwrap();
            self.truth.jobs[i].push((self.release[i], first, now));
        }
    }
}

/// `ticks` ticks of the set; the recording ends at the last tick's period end.
fn generate(ticks: i64) -> (EventTrace, Truth) {
    let n = SET.len();
    let mut actors: Vec<Actor> = SET
        .iter()
        .map(|s| Actor {
            name: s.name.into(),
            kind: ActorKind::Task,
            priority: Some(s.prio),
            id: 0,
        })
        .collect();
    let tick = n as u32;
    actors.push(Actor {
        name: "SysTick".into(),
        kind: ActorKind::Tick,
        priority: None,
        id: 0,
    });
    actors.push(Actor {
        name: "IDLE".into(),
        kind: ActorKind::Idle,
        priority: Some(0),
        id: 0,
    });
    // A task the recording names but that never runs.
    actors.push(Actor {
        name: "logger".into(),
        kind: ActorKind::Task,
        priority: Some(1),
        id: 0,
    });
    let mut s = Sched {
        events: Vec::new(),
        truth: Truth {
            jobs: vec![Vec::new(); n],
            ticks: Vec::new(),
        },
        remaining: vec![0; n],
        release: vec![0; n],
        first: vec![None; n],
        current: None,
        idle: n as u32 + 1,
    };
    let mut now = 0;
    for k in 0..ticks {
        let t = k * TICK_US;
        s.run(now, t);
        s.ev(t, EventKind::IsrEnter(tick));
        let mut released = 0;
        for (i, spec) in SET.iter().enumerate() {
            if t % spec.period_us == 0 {
                assert_eq!(s.remaining[i], 0, "the set overruns");
                s.ev(t + 1, EventKind::Ready(i as u32));
                s.remaining[i] = spec.exec_us;
                s.release[i] = t + 1;
                released += 1;
            }
        }
        let d = TICK_BASE_US + TICK_PER_US * released as i64;
        s.ev(t + d, EventKind::IsrExit(tick));
        s.truth.ticks.push((t, d, released));
        now = t + d;
    }
    let end = ticks * TICK_US;
    s.run(now, end);
    let trace = EventTrace {
        source: "synthetic".into(),
        format: "test".into(),
        clock_hz: Some(1_000_000),
        start: Picos(0),
        end: Picos(end * US),
        cpus: 1,
        actors,
        events: s.events,
        lost: vec![],
    };
    assert!(trace.validate().is_ok());
    (trace, s.truth)
}

fn write_trace(dir: &Path, t: &EventTrace) -> PathBuf {
    let p = dir.join("rec.json");
    std::fs::write(&p, serde_json::to_string(t).unwrap()).unwrap();
    p
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn tasks_json_and_series_match_the_schedulers_record() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, truth) = generate(40);
    let rec = write_trace(dir.path(), &trace);
    let out = dir.path().join("tasks.json");
    let csv = dir.path().join("ticks.csv");
    ok(&[
        "trace",
        s(&rec),
        "--tasks",
        "--json",
        s(&out),
        "--series",
        s(&csv),
    ]);
    let v = json(&out);
    assert_eq!(v["kind"], "tasks");
    for (i, spec) in SET.iter().enumerate() {
        let t = task_named(&v, spec.name);
        let jobs = &truth.jobs[i];
        assert!(jobs.len() > 2, "{}", spec.name);
        assert_eq!(t["jobs"], jobs.len() as u64, "{}", spec.name);
        assert_eq!(t["priority"], spec.prio);
        let (resp, at) = jobs
            .iter()
            .map(|&(r, _, b)| (b - r, r))
            .fold((0, 0), |m, x| if x.0 > m.0 { x } else { m });
        assert_eq!(t["response"]["max_ns"], resp * 1000, "{}", spec.name);
        assert_eq!(t["response"]["max_at_ns"], at * 1000, "{}", spec.name);
        let lat = jobs.iter().map(|&(r, f, _)| f - r).max().unwrap();
        assert_eq!(t["start_latency"]["max_ns"], lat * 1000, "{}", spec.name);
        // Each job ran its whole execution time, ticks excluded.
        assert_eq!(
            t["execution"]["min_ns"],
            spec.exec_us * 1000,
            "{}",
            spec.name
        );
        for k in ["count", "min_ns", "p50_ns", "p99_ns", "max_ns", "max_at_ns"] {
            assert!(t["response"][k].is_number(), "{k}");
        }
    }
    // The task that never ran is listed, with no jobs.
    let logger = &v["tasks"][3];
    assert_eq!(
        (logger["name"].as_str(), logger["jobs"].as_u64()),
        (Some("logger"), Some(0))
    );
    let tick = &v["isrs"][0];
    assert_eq!(tick["kind"], "tick");
    assert_eq!(tick["count"], truth.ticks.len() as u64);
    let dmax = truth.ticks.iter().map(|x| x.1).max().unwrap();
    assert_eq!(tick["duration"]["max_ns"], dmax * 1000);
    assert_eq!(v["lost_events"]["count"], 0);
    // The series: one row per tick, the columns of `simulate --series`.
    let mut want = String::from("time_ns,duration_ns,released\n");
    for (t, d, r) in &truth.ticks {
        want += &format!("{},{},{}\n", t * 1000, d * 1000, r);
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), want);
}

#[test]
fn tasks_table_names_tasks_handlers_and_lost_events() {
    let dir = tempfile::tempdir().unwrap();
    let (mut trace, _) = generate(12);
    let o = stdout(&ok(&[
        "trace",
        s(&write_trace(dir.path(), &trace)),
        "--tasks",
    ]));
    for w in ["task", "A", "B", "C", "SysTick", "lost events: none"] {
        assert!(o.contains(w), "{w} in\n{o}");
    }
    trace.lost.push(LostEvents::reported(
        17,
        Picos(3_000 * US),
        Picos(3_001 * US),
    ));
    let o = stdout(&ok(&[
        "trace",
        s(&write_trace(dir.path(), &trace)),
        "--tasks",
    ]));
    assert!(
        o.contains("17 events lost between 3 ms and 3.001 ms"),
        "{o}"
    );
}

/// A hole on a CPU none of the tasks ran on flags nothing but is printed; the same hole
/// on their CPU flags exactly the jobs (from the scheduler's own record) whose release →
/// block spans it, and the output says how many per task.
#[test]
fn holes_are_printed_per_cpu_and_flag_only_jobs_there() {
    let dir = tempfile::tempdir().unwrap();
    let (mut trace, truth) = generate(12);
    trace.cpus = 2;
    let (from, to) = (4_100, 4_200);
    trace.lost.push(LostEvents::inferred(
        1,
        Picos(from * US),
        Picos(to * US),
        None,
    ));
    let json = dir.path().join("r.json");
    let o = stdout(&ok(&[
        "trace",
        s(&write_trace(dir.path(), &trace)),
        "--tasks",
        "--json",
        s(&json),
    ]));
    assert!(
        o.contains("hole inferred on CPU 1 between 4.1 ms and 4.2 ms (test reported no loss)"),
        "{o}"
    );
    assert!(!o.contains("flagged suspect (touch"), "{o}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["lost_events"]["inferred"], 1);
    assert_eq!(v["lost_events"]["windows"][0]["cpu"], 1);
    assert_eq!(v["lost_events"]["windows"][0]["inferred"], true);
    assert_eq!(v["lost_events"]["windows"][0]["count"], 0);
    for t in v["tasks"].as_array().unwrap() {
        assert_eq!(t["suspect"], 0, "{t}");
    }
    trace.lost[0].cpu = Some(0);
    let o = stdout(&ok(&[
        "trace",
        s(&write_trace(dir.path(), &trace)),
        "--tasks",
        "--json",
        s(&json),
    ]));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut flagged = 0;
    for (i, spec) in SET.iter().enumerate() {
        let jobs = &truth.jobs[i];
        let want = jobs
            .iter()
            .filter(|&&(r, _, b)| r <= to && b >= from)
            .count();
        flagged += want;
        assert_eq!(
            task_named(&v, spec.name)["suspect"],
            want as u64,
            "{}",
            spec.name
        );
        if want > 0 {
            let line = format!(
                "{}: {want} of {} job(s) flagged suspect",
                spec.name,
                jobs.len()
            );
            assert!(o.contains(&line), "{line} in\n{o}");
        }
    }
    assert!(
        flagged >= 2,
        "the window spans too few jobs to check anything"
    );
    assert!(
        o.contains("hole inferred on CPU 0 between 4.1 ms and 4.2 ms"),
        "{o}"
    );
}

#[test]
fn a_capture_is_not_an_event_recording() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.csv");
    std::fs::write(&cap, "time,a\n0,0\n1e-6,1\n2e-6,0\n").unwrap();
    let err = fails(&["trace", s(&cap), "--tasks"], 2);
    assert!(err.contains("not an event recording"), "{err}");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"events\": 3}").unwrap();
    let err = fails(&["trace", s(&bad), "--tasks"], 2);
    assert!(err.contains("bad.json:1:"), "{err}");
}

#[test]
fn fit_from_the_recording_equals_fit_from_its_series() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = generate(40);
    let rec = write_trace(dir.path(), &trace);
    let csv = dir.path().join("ticks.csv");
    ok(&["trace", s(&rec), "--tasks", "--series", s(&csv)]);
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    ok(&["fit", s(&rec), "--target", "tick", "--json", s(&a)]);
    ok(&[
        "fit",
        s(&csv),
        "--target",
        "tick",
        "--x",
        "released",
        "--y",
        "duration_ns",
        "--unit",
        "ns",
        "--json",
        s(&b),
    ]);
    let (mut a, mut b) = (json(&a), json(&b));
    a["source"] = Value::Null;
    b["source"] = Value::Null;
    assert_eq!(a, b);
    // The tick model is exact here: 2 us + 3 us per task released.
    let p = &a["piecewise"]["safe"];
    assert_eq!(p["base_ns"], 2000.0);
    assert_eq!(p["first_ns"], 3000.0);
    assert_eq!(p["per_ns"], 3000.0);
    // The switch fit reads the same recording.
    ok(&["fit", s(&rec), "--target", "switch"]);
    let err = fails(&["fit", s(&rec), "--target", "lock"], 2);
    assert!(err.contains("tick and the switch only"), "{err}");
}

/// The set as a system file; `wcet_c` is C's WCET.
fn system(wcet_c: &str, extra: &str) -> String {
    format!(
        "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n[kernel.costs]\n\
         tick_base = \"2us\"\ntick_per_release = \"3us\"\n\
         [[task]]\nname = \"A\"\nperiod = \"2ms\"\nwcet = \"300us\"\npriority = 3\n\
         [[task]]\nname = \"B\"\nperiod = \"4ms\"\nwcet = \"800us\"\npriority = 2\n\
         [[task]]\nname = \"C\"\nperiod = \"10ms\"\nwcet = \"{wcet_c}\"\npriority = 1\n{extra}"
    )
}

#[test]
fn analyze_observed_ratio_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, truth) = generate(40);
    let rec = write_trace(dir.path(), &trace);
    let sys = dir.path().join("sys.toml");
    let extra = "[[task]]\nname = \"E\"\nperiod = \"20ms\"\nwcet = \"10us\"\npriority = 4\n";
    std::fs::write(&sys, system("2ms", extra)).unwrap();
    let out = dir.path().join("a.json");
    let o = stdout(&ok(&[
        "analyze",
        s(&sys),
        "--observed",
        s(&rec),
        "--json",
        s(&out),
    ]));
    assert!(
        o.contains("every observed response is within its bound"),
        "{o}"
    );
    assert!(o.contains("logger") && o.contains("E"), "{o}");
    let v = json(&out);
    for (i, spec) in SET.iter().enumerate() {
        let t = task_named(&v, spec.name);
        let worst = truth.jobs[i].iter().map(|&(r, _, b)| b - r).max().unwrap();
        assert_eq!(t["observed_max_ns"].as_f64(), Some((worst * 1000) as f64));
        let ratio = t["bound_ratio"].as_f64().unwrap();
        let bound = t["wcrt_ns"].as_f64().unwrap();
        assert!(ratio <= 1.0, "{}: {ratio}", spec.name);
        assert!((ratio - (worst * 1000) as f64 / bound).abs() < 1e-12);
        assert!(t["observed_at_ns"].is_number());
    }
    assert_eq!(
        v["observed"]["not_in_system"],
        serde_json::json!(["logger"])
    );
    assert_eq!(v["observed"]["not_observed"], serde_json::json!(["E"]));
    // C's WCET below the execution it was seen to need: its bound falls below what was
    // observed.
    std::fs::write(&sys, system("1ms", "")).unwrap();
    let out2 = dir.path().join("b.json");
    let err = fails(
        &[
            "analyze",
            s(&sys),
            "--observed",
            s(&rec),
            "--json",
            s(&out2),
        ],
        1,
    );
    let _ = err;
    let o = stdout(&common::run(&["analyze", s(&sys), "--observed", s(&rec)]));
    assert!(
        o.contains("EXCEEDED: C") && o.contains("the WCET or the model is wrong"),
        "{o}"
    );
    let v = json(&out2);
    let c = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "C")
        .unwrap();
    assert!(c["bound_ratio"].as_f64().unwrap() > 1.0, "{c}");
    assert_eq!(v["observed"]["exceeded"], serde_json::json!(["C"]));
}

#[test]
fn system_out_drafts_a_system_that_analyze_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = generate(40);
    let rec = write_trace(dir.path(), &trace);
    let draft = dir.path().join("draft.toml");
    ok(&["trace", s(&rec), "--system-out", s(&draft)]);
    let text = std::fs::read_to_string(&draft).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(doc["kernel"]["tick_hz"].as_integer(), Some(1000));
    let tasks = doc["task"].as_array().unwrap();
    assert_eq!(tasks.len(), SET.len(), "{text}");
    for spec in &SET {
        let t = tasks
            .iter()
            .find(|t| t["name"].as_str() == Some(spec.name))
            .unwrap();
        let d = |k: &str| latscope_core::time::parse_duration(t[k].as_str().unwrap()).unwrap();
        assert_eq!(d("period"), Picos(spec.period_us * US), "{text}");
        assert_eq!(d("wcet"), Picos(spec.exec_us * US), "{text}");
        assert_eq!(t["priority"].as_integer(), Some(spec.prio));
    }
    assert!(text.contains("OBSERVED maximum execution"), "{text}");
    assert!(
        text.contains("logger"),
        "the left-out task is named: {text}"
    );
    // The tick costs fitted from the ticks.
    assert_eq!(
        doc["kernel"]["costs"]["tick_base"].as_str(),
        Some("2us"),
        "{text}"
    );
    let o = stdout(&ok(&["analyze", s(&draft)]));
    assert!(o.contains("schedulable"), "{o}");
    ok(&["analyze", s(&draft), "--observed", s(&rec)]);
}

#[test]
fn system_out_ranks_linux_priorities_into_the_system_convention() {
    let dir = tempfile::tempdir().unwrap();
    let (mut trace, _) = generate(40);
    // perf: the kernel's prio, smaller = more urgent; B and C share one.
    trace.format = "perf".into();
    for (a, p) in trace.actors.iter_mut().zip([90, 120, 120]) {
        a.priority = Some(p);
    }
    let rec = write_trace(dir.path(), &trace);
    let draft = dir.path().join("draft.toml");
    ok(&["trace", s(&rec), "--system-out", s(&draft)]);
    let doc: toml::Value = toml::from_str(&std::fs::read_to_string(&draft).unwrap()).unwrap();
    let prio = |n: &str| {
        doc["task"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str() == Some(n))
            .and_then(|t| t["priority"].as_integer())
    };
    assert_eq!(
        (prio("A"), prio("B"), prio("C")),
        (Some(2), Some(1), Some(1))
    );
    ok(&["analyze", s(&draft)]);
}

#[test]
fn system_out_links_an_interrupt_to_the_task_it_releases() {
    let dir = tempfile::tempdir().unwrap();
    // An interrupt every 3 ms (4 us long) readies D, which runs 100 us.
    let (d, uart, idle) = (0u32, 1u32, 2u32);
    let e = |t_us: i64, kind| Event {
        t: Picos(t_us * US),
        cpu: 0,
        kind,
    };
    let mut events = vec![e(0, EventKind::Switch(idle))];
    for k in 0..6 {
        let t = 500 + k * 3_000;
        events.extend([
            e(t, EventKind::IsrEnter(uart)),
            e(t + 1, EventKind::Ready(d)),
            e(t + 4, EventKind::IsrExit(uart)),
            e(t + 4, EventKind::Switch(d)),
            e(t + 104, EventKind::Block(d)),
            e(t + 104, EventKind::Switch(idle)),
        ]);
    }
    let actor = |name: &str, kind, priority| Actor {
        name: name.into(),
        kind,
        priority,
        id: 0,
    };
    let trace = EventTrace {
        source: "irq".into(),
        format: "test".into(),
        clock_hz: Some(1_000_000),
        start: Picos(0),
        end: Picos(20_000 * US),
        cpus: 1,
        actors: vec![
            actor("D", ActorKind::Task, Some(2)),
            actor("uart", ActorKind::Isr, None),
            actor("IDLE", ActorKind::Idle, Some(0)),
        ],
        events,
        lost: vec![],
    };
    let rec = write_trace(dir.path(), &trace);
    let draft = dir.path().join("draft.toml");
    ok(&["trace", s(&rec), "--system-out", s(&draft)]);
    let text = std::fs::read_to_string(&draft).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    let irq = &doc["interrupt"][0];
    assert_eq!(irq["name"].as_str(), Some("uart"), "{text}");
    assert_eq!(irq["releases"].as_str(), Some("D"), "{text}");
    assert_eq!(irq["min_interarrival"].as_str(), Some("3ms"), "{text}");
    assert_eq!(irq["wcet"].as_str(), Some("4us"), "{text}");
    let task = &doc["task"][0];
    assert_eq!(task["min_interarrival"].as_str(), Some("3ms"), "{text}");
    assert_eq!(task["wcet"].as_str(), Some("100us"), "{text}");
    ok(&["analyze", s(&draft)]);
}

/// A handler task as FreeRTOS runs one: made ready when it is created, it runs once to
/// its first wait, then every job comes from the interrupt. The draft still links the two
/// (the first release is outside every run of the handler); a release from elsewhere
/// after the first breaks the link.
#[test]
fn system_out_links_a_handler_task_whose_first_release_was_its_creation() {
    let dir = tempfile::tempdir().unwrap();
    let (d, uart, idle) = (0u32, 1u32, 2u32);
    let e = |t_us: i64, kind| Event {
        t: Picos(t_us * US),
        cpu: 0,
        kind,
    };
    let trace = |stray: bool| {
        // Created and run to its first wait at 0..20 us.
        let mut events = vec![
            e(0, EventKind::Ready(d)),
            e(10, EventKind::Switch(d)),
            e(20, EventKind::Block(d)),
            e(20, EventKind::Switch(idle)),
        ];
        for k in 0..6 {
            let t = 500 + k * 3_000;
            let by_isr = !(stray && k == 3);
            if by_isr {
                events.push(e(t, EventKind::IsrEnter(uart)));
            }
            events.push(e(t + 1, EventKind::Ready(d)));
            if by_isr {
                events.push(e(t + 4, EventKind::IsrExit(uart)));
            }
            events.extend([
                e(t + 4, EventKind::Switch(d)),
                e(t + 104, EventKind::Block(d)),
                e(t + 104, EventKind::Switch(idle)),
            ]);
        }
        let actor = |name: &str, kind, priority| Actor {
            name: name.into(),
            kind,
            priority,
            id: 0,
        };
        EventTrace {
            source: "irq".into(),
            format: "test".into(),
            clock_hz: Some(1_000_000),
            start: Picos(0),
            end: Picos(20_000 * US),
            cpus: 1,
            actors: vec![
                actor("D", ActorKind::Task, Some(2)),
                actor("uart", ActorKind::Isr, None),
                actor("IDLE", ActorKind::Idle, Some(0)),
            ],
            events,
            lost: vec![],
        }
    };
    for stray in [false, true] {
        let sub = dir.path().join(if stray { "stray" } else { "start" });
        std::fs::create_dir_all(&sub).unwrap();
        let rec = write_trace(&sub, &trace(stray));
        let draft = sub.join("draft.toml");
        ok(&["trace", s(&rec), "--system-out", s(&draft)]);
        let text = std::fs::read_to_string(&draft).unwrap();
        let doc: toml::Value = toml::from_str(&text).unwrap();
        let releases = doc["interrupt"][0].get("releases").and_then(|v| v.as_str());
        assert_eq!(releases, (!stray).then_some("D"), "{text}");
        ok(&["analyze", s(&draft)]);
    }
}

/// `examples/recording.json` and `examples/recording.toml`, which docs/event-traces.md's
/// generated sessions read, are this file's scheduler's 40 ms recording and the set's
/// system file, exactly. `LATSCOPE_BLESS_EXAMPLES=1` writes them.
#[test]
fn the_shipped_example_recording_is_the_schedulers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let (trace, _) = generate(40);
    let rec = serde_json::to_string(&trace).unwrap() + "\n";
    let sys = system("2ms", "");
    let (rec_path, sys_path) = (root.join("recording.json"), root.join("recording.toml"));
    if std::env::var_os("LATSCOPE_BLESS_EXAMPLES").is_some() {
        std::fs::write(&rec_path, &rec).unwrap();
        std::fs::write(&sys_path, &sys).unwrap();
    }
    let shipped: EventTrace =
        serde_json::from_str(&std::fs::read_to_string(&rec_path).unwrap()).unwrap();
    assert!(
        shipped == trace,
        "examples/recording.json is not the scheduler's recording"
    );
    assert_eq!(std::fs::read_to_string(&sys_path).unwrap(), sys);
}
