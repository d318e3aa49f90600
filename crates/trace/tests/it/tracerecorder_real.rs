//! Percepio TraceRecorder v4.11.0 recording of the real FreeRTOS V11.2 kernel (the
//! Table 1 task set of Miranda, de Oliveira, Carminati: "Analysis of FreeRTOS Overheads on
//! Periodic Tasks"), checked against the harness's own instruction-exact event log of the
//! same run (`validation/freertos/traces/tracerecorder/`, made by
//! `validation/freertos/tracerecorder/run.sh`).
//!
//! The recorder ran inside that run, so its own overhead is in both sides. What can still
//! differ is where each side puts an instant: the driver marks the boundaries of the kernel
//! calls it makes (tick start and end, the end of `xTaskDelayUntil`, the end of
//! `vTaskSwitchContext`), the recorder reads DWT_CYCCNT at its trace points inside those
//! calls. So every instant is compared with a tolerance of [`TOL_CYCLES`]: the instructions
//! between a trace point and the call boundary (the rest of `xTaskDelayUntil` after its
//! trace point, the tick wrapper's entry before `xTraceISRBegin` reads the clock, the
//! recorder's exit path), which are a few hundred at most. One timestamp tick is one cycle
//! (84 MHz), so the comparison is far inside a tick period and far outside a cycle.

use latscope_core::events::{ActorKind, EventKind, EventTrace};
use latscope_trace::import::{events, Format, Options};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const CPU_HZ: i64 = 84_000_000;
const TOL_CYCLES: i64 = 400;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/freertos/traces/tracerecorder")
}

fn open(name: &str) -> EventTrace {
    events::open(&dir().join(name), &Options::default()).expect("the fixture imports")
}

/// Picoseconds → cycles of the 84 MHz clock, rounded.
fn cycles(ps: i64) -> i64 {
    ((i128::from(ps) * i128::from(CPU_HZ) + 500_000_000_000) / 1_000_000_000_000) as i64
}

#[derive(Default, Debug)]
struct Truth {
    /// Per task: (release, first switch-in, finish) of every completed job.
    jobs: BTreeMap<String, Vec<(i64, i64, i64)>>,
    /// (start, end) of every tick.
    ticks: Vec<(i64, i64)>,
    /// (start, end) of every run of the peripheral interrupt (the second set).
    isrs: Vec<(i64, i64)>,
}

/// events.csv (or `name`): `cycles,event,task` with release, switch_in, finish,
/// tick_start, tick_end, and in the second set isr_start and isr_end. A release is dated
/// at the start of the handler that made it, the tick or the interrupt, whose end row
/// precedes it (the row carries the tick's nominal instant or the interrupt's arrival,
/// earlier when a kernel call delayed the handler, which no recorder can see).
fn truth_of(name: &str) -> Truth {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    let mut t = Truth::default();
    let mut open: BTreeMap<String, (i64, Option<i64>)> = BTreeMap::new();
    let mut tick_start = None;
    let mut isr_start = None;
    let mut after_isr = false;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let c: i64 = f[0].parse().unwrap();
        let task = f[2].to_string();
        match f[1] {
            "release" => {
                let last = if after_isr {
                    t.isrs.last()
                } else {
                    t.ticks.last()
                };
                let at = match last {
                    Some(&(s, _)) if c > 0 => s.max(c),
                    _ => c,
                };
                open.insert(task, (at, None));
            }
            "switch_in" => {
                if let Some(j) = open.get_mut(&task) {
                    j.1.get_or_insert(c);
                }
            }
            "finish" => {
                let (r, s) = open.remove(&task).unwrap();
                t.jobs.entry(task).or_default().push((r, s.unwrap(), c));
            }
            "tick_start" => tick_start = Some(c),
            "tick_end" => {
                t.ticks.push((tick_start.take().unwrap(), c));
                after_isr = false;
            }
            "isr_start" => isr_start = Some(c),
            "isr_end" => {
                t.isrs.push((isr_start.take().unwrap(), c));
                after_isr = true;
            }
            e => panic!("unknown event {e}"),
        }
    }
    t
}

fn truth() -> Truth {
    truth_of("events.csv")
}

/// latscope's side, from the event trace: a job of a task starts at a Ready while the task
/// is not in a job; its release is that Ready's time, or, when a handler (the tick or the
/// peripheral interrupt) made it ready, the start of that handler (the instant the
/// periodic release or the interrupt happened); it starts at the first Switch to it and
/// ends at its Block.
fn from_trace(tr: &EventTrace) -> Truth {
    let mut t = Truth::default();
    let mut open: BTreeMap<u32, (i64, Option<i64>)> = BTreeMap::new();
    let mut tick_enter: Option<i64> = None;
    let mut isr_enter: Option<i64> = None;
    for e in &tr.events {
        let c = cycles(e.t.0);
        let a = e.kind.actor();
        let kind = tr.actors[a as usize].kind;
        match e.kind {
            EventKind::IsrEnter(_) if kind == ActorKind::Tick => tick_enter = Some(c),
            EventKind::IsrExit(_) if kind == ActorKind::Tick => {
                t.ticks.push((tick_enter.take().unwrap(), c))
            }
            EventKind::IsrEnter(_) if kind == ActorKind::Isr => isr_enter = Some(c),
            EventKind::IsrExit(_) if kind == ActorKind::Isr => {
                t.isrs.push((isr_enter.take().unwrap(), c))
            }
            EventKind::Ready(_) if kind == ActorKind::Task => {
                open.entry(a)
                    .or_insert((tick_enter.or(isr_enter).unwrap_or(c), None));
            }
            EventKind::Switch(_) => {
                if let Some(j) = open.get_mut(&a) {
                    j.1.get_or_insert(c);
                }
            }
            EventKind::Block(_) => {
                if let Some((r, s)) = open.remove(&a) {
                    let name = tr.actors[a as usize].name.clone();
                    t.jobs.entry(name).or_default().push((r, s.unwrap_or(c), c));
                }
            }
            _ => {}
        }
    }
    t
}

#[test]
fn ringbuffer_dump_matches_the_ground_truth() {
    let tr = open("ringbuffer.bin");
    assert_eq!(tr.format, "tracerecorder");
    assert_eq!(tr.clock_hz, Some(CPU_HZ as u64));
    assert!(tr.lost.is_empty(), "nothing lost: {:?}", tr.lost);
    let want = truth();
    let got = from_trace(&tr);
    let names: Vec<&String> = want.jobs.keys().collect();
    assert_eq!(names.len(), 10);
    let mut worst = (0i64, 0i64, 0i64);
    for name in names {
        let w = &want.jobs[name];
        let g = got
            .jobs
            .get(name)
            .unwrap_or_else(|| panic!("task {name} not in the trace"));
        assert_eq!(g.len(), w.len(), "jobs of {name}");
        // The first job of each task was made ready while the harness created the tasks,
        // before the scheduler started; the ground truth dates that release 0 by
        // convention, so its timing is not compared.
        for (i, (gj, wj)) in g.iter().zip(w).enumerate().skip(1) {
            let dr = (gj.2 - gj.0) - (wj.2 - wj.0);
            let ds = (gj.1 - gj.0) - (wj.1 - wj.0);
            worst.0 = worst.0.max(dr.abs());
            worst.1 = worst.1.max(ds.abs());
            assert!(
                dr.abs() <= TOL_CYCLES,
                "{name} job {i}: response {gj:?} vs {wj:?}"
            );
            // And on the side the definitions put them: the recorder's instants lie inside
            // the kernel calls whose boundaries the driver marks (release: after the tick
            // started; switch-in: before vTaskSwitchContext returned; block: before
            // xTaskDelayUntil returned).
            assert!(
                gj.0 >= wj.0 && gj.1 <= wj.1 && gj.2 <= wj.2,
                "{name} job {i}: {gj:?} vs {wj:?}"
            );
            assert!(
                ds.abs() <= TOL_CYCLES,
                "{name} job {i}: start latency {gj:?} vs {wj:?}"
            );
        }
    }
    assert_eq!(got.ticks.len(), want.ticks.len(), "ticks");
    for (i, (g, w)) in got.ticks.iter().zip(&want.ticks).enumerate() {
        assert!(g.0 >= w.0 && g.1 <= w.1, "tick {i}: {g:?} inside {w:?}");
        let d = (g.1 - g.0) - (w.1 - w.0);
        worst.2 = worst.2.max(d.abs());
        assert!(d.abs() <= TOL_CYCLES, "tick {i}: {g:?} vs {w:?}");
    }
    eprintln!(
        "largest differences (cycles): response {}, start latency {}, tick {}",
        worst.0, worst.1, worst.2
    );
}

#[test]
fn psf_stream_and_ringbuffer_dump_are_the_same_recording() {
    // recording.psf is cut from the dump by run.sh's Python script (a second, independent
    // reading of the RingBuffer layout); the importer cuts the dump itself.
    let a = open("ringbuffer.bin");
    let b = open("recording.psf");
    assert!(a.events.len() > 10_000, "{} events", a.events.len());
    assert_eq!(a.actors, b.actors);
    assert_eq!(a.events, b.events);
    assert_eq!(
        (a.start, a.end, a.lost.clone()),
        (b.start, b.end, b.lost.clone())
    );
    for name in ["ringbuffer.bin", "recording.psf", "ringbuffer-full.bin"] {
        let head = std::fs::read(dir().join(name)).unwrap();
        let head = &head[..head.len().min(4096)];
        assert_eq!(events::detect(head), Some(Format::TraceRecorder), "{name}");
    }
}

#[test]
fn actors_kinds_and_priorities() {
    let tr = open("ringbuffer.bin");
    // run.py's priorities: rate monotonic over the Table 1 periods, 10 (shortest) .. 1.
    let periods = [5, 10, 15, 20, 30, 40, 23, 12, 45, 50];
    let mut order: Vec<usize> = (0..10).collect();
    order.sort_by_key(|&i| periods[i]);
    for (rank, &i) in order.iter().enumerate() {
        let name = ((b'A' + i as u8) as char).to_string();
        let a = &tr.actors[tr.actor_index(&name).unwrap() as usize];
        assert_eq!(a.kind, ActorKind::Task, "{name}");
        assert_eq!(a.priority, Some(10 - rank as i64), "{name}");
    }
    let tick = &tr.actors[tr.actor_index("SysTick").unwrap() as usize];
    assert_eq!(tick.kind, ActorKind::Tick);
    let idle = &tr.actors[tr.actor_index("IDLE").unwrap() as usize];
    assert_eq!(idle.kind, ActorKind::Idle);
    // The capture view has a channel per actor.
    assert_eq!(tr.to_capture().channels.len(), tr.actors.len());
}

#[test]
fn a_full_ring_buffer_reports_its_loss() {
    // 200 ticks into a 16 KiB buffer that stops when full: the run goes on after the
    // buffer filled, so the recording ends early and says events were lost after it.
    let tr = open("ringbuffer-full.bin");
    assert_eq!(tr.lost.len(), 1, "{:?}", tr.lost);
    let l = tr.lost[0];
    let last = tr.events.last().unwrap().t;
    assert_eq!(l.from, last);
    // The run was 200 ticks of 1 ms; what was kept ends well before, and the loss runs to
    // the last tick the recorder counted (tick 200, at 200 ms plus the tick's entry).
    assert!(last.0 < 150 * 1_000_000_000, "kept until {} ps", last.0);
    let ms = |p: i64| p / 1_000_000_000;
    assert_eq!(ms(l.to.0), 200, "lost until {} ps", l.to.0);
    assert_eq!(tr.end, l.to);
    let truth_prefix = from_trace(&tr);
    assert!(!truth_prefix.ticks.is_empty());
}

/// The second recorded set (`run.py --set isr`, `isr.psf`): tasks A-D of Table 1 below a
/// handler task that the ISR "Periph" releases with `vTaskNotifyGiveFromISR` at seeded
/// sporadic instants at least 2.7 ms apart. The recorder writes the interrupt's
/// `TASK_SWITCH_ISR_BEGIN`, the `TASK_READY` of the handler task inside it and, at its end
/// (no pending switch passed, as for the tick), the return to the interrupted task; the
/// handler task's wait is `TASK_NOTIFY_WAIT_BLOCK` (`ulTaskNotifyTake`).
#[test]
fn isr_set_matches_the_ground_truth() {
    let tr = open("isr.psf");
    assert!(tr.lost.is_empty(), "nothing lost: {:?}", tr.lost);
    let isr = &tr.actors[tr.actor_index("Periph").unwrap() as usize];
    assert_eq!(isr.kind, ActorKind::Isr);
    for (name, p) in [("A", 4), ("B", 3), ("C", 2), ("D", 1), ("Handler", 5)] {
        let a = &tr.actors[tr.actor_index(name).unwrap() as usize];
        assert_eq!((a.kind, a.priority), (ActorKind::Task, Some(p)), "{name}");
    }
    let want = truth_of("isr-events.csv");
    let got = from_trace(&tr);
    assert_eq!(want.jobs.len(), 5);
    // Interrupt runs: as many, each inside the driver's call and as long within the
    // wrapper's instructions around the recorder's timestamps.
    assert!(want.isrs.len() > 200, "{} interrupts", want.isrs.len());
    assert_eq!(got.isrs.len(), want.isrs.len(), "interrupt runs");
    let mut worst = (0i64, 0i64, 0i64);
    for (i, (g, w)) in got.isrs.iter().zip(&want.isrs).enumerate() {
        assert!(
            g.0 >= w.0 && g.1 <= w.1,
            "interrupt {i}: {g:?} inside {w:?}"
        );
        let d = (g.1 - g.0) - (w.1 - w.0);
        worst.2 = worst.2.max(d.abs());
        assert!(d.abs() <= TOL_CYCLES, "interrupt {i}: {g:?} vs {w:?}");
    }
    assert_eq!(got.ticks.len(), want.ticks.len(), "ticks");
    for (name, w) in &want.jobs {
        let g = &got.jobs[name];
        assert_eq!(g.len(), w.len(), "jobs of {name}");
        for (i, (gj, wj)) in g.iter().zip(w).enumerate().skip(1) {
            let dr = (gj.2 - gj.0) - (wj.2 - wj.0);
            let ds = (gj.1 - gj.0) - (wj.1 - wj.0);
            worst.0 = worst.0.max(dr.abs());
            worst.1 = worst.1.max(ds.abs());
            assert!(
                gj.0 >= wj.0 && gj.1 <= wj.1 && gj.2 <= wj.2,
                "{name} job {i}: {gj:?} vs {wj:?}"
            );
            assert!(
                dr.abs() <= TOL_CYCLES,
                "{name} job {i}: response {gj:?} vs {wj:?}"
            );
            assert!(
                ds.abs() <= TOL_CYCLES,
                "{name} job {i}: start latency {gj:?} vs {wj:?}"
            );
        }
    }
    // Every job of the handler task after its first (its start) was released by the
    // interrupt run of the same rank, on both sides: the Ready was inside the ISR.
    for (side, t) in [("truth", &want), ("trace", &got)] {
        let rel: Vec<i64> = t.jobs["Handler"].iter().skip(1).map(|j| j.0).collect();
        let starts: Vec<i64> = t.isrs.iter().take(rel.len()).map(|r| r.0).collect();
        assert!(rel.len() + 1 >= t.isrs.len(), "{side}: {} jobs", rel.len());
        assert_eq!(rel, starts, "{side}: handler releases");
    }
    eprintln!(
        "largest differences (cycles): response {}, start latency {}, interrupt {}",
        worst.0, worst.1, worst.2
    );
}
