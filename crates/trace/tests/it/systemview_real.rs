//! Proof: SEGGER SystemView recordings of the real FreeRTOS kernel
//! (validation/freertos/systemview/run.sh: FreeRTOS V11.2 and SEGGER's own SystemView
//! target sources, run instruction by instruction in unicorn) read back to what the
//! harness's own event log (events.csv, the ground truth of the same run) says happened.
//!
//! latscope's side is computed here with short code over the imported events: a job
//! starts at a task's Ready while it has no job and ends at its Block; its start latency
//! runs to the first Switch to it. A job released by the tick is released when the tick's
//! ISR began (the instant the analysis and the ground truth use), so the Ready inside a
//! tick ISR counts from that ISR's entry.

use latscope_core::events::{ActorKind, EventKind, EventTrace};
use latscope_trace::import::{events, Format, Options};
use std::collections::BTreeMap;
use std::path::PathBuf;

const HZ: u64 = 84_000_000;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../validation/freertos/traces/systemview")
}

fn open(name: &str) -> EventTrace {
    events::open(&dir().join(name), &Options::default()).unwrap()
}

/// events.csv: (cycles, event, task).
fn truth(name: &str) -> Vec<(u64, String, String)> {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split(',');
            let c = f.next().unwrap().parse().unwrap();
            (
                c,
                f.next().unwrap().to_string(),
                f.next().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Picoseconds back to the recorder's cycles (exact: times were made from cycles).
fn cycles(ps: latscope_core::time::Picos) -> u64 {
    ((ps.0 as i128 * HZ as i128 + 500_000_000_000) / 1_000_000_000_000) as u64
}

#[derive(Default, Debug)]
struct Jobs {
    /// Per task: (release, first run, end) in cycles, completed jobs only.
    jobs: BTreeMap<String, Vec<(u64, u64, u64)>>,
    releases: BTreeMap<String, usize>,
    /// (start, end) of every tick.
    ticks: Vec<(u64, u64)>,
    /// Tasks released per tick, by the tick's start.
    tick_releases: BTreeMap<u64, usize>,
    /// (start, end) of every run of the peripheral interrupt (the second set).
    isrs: Vec<(u64, u64)>,
    /// Per task: (release, first run, end) of its completed jobs released by that
    /// interrupt (every job but the first of the second set's handler task).
    isr_jobs: BTreeMap<String, Vec<(u64, u64, u64)>>,
}

/// Ground-truth jobs: release row → first switch_in → finish row.
fn truth_jobs(rows: &[(u64, String, String)]) -> Jobs {
    let mut j = Jobs::default();
    let mut open: BTreeMap<String, (u64, Option<u64>, bool)> = BTreeMap::new();
    let mut tick_start = None;
    let mut isr_start = None;
    // Whether the last handler that ended was the peripheral interrupt (not the tick).
    let mut after_isr = false;
    for (t, ev, task) in rows {
        match ev.as_str() {
            "release" => {
                *j.releases.entry(task.clone()).or_default() += 1;
                // Released by the handler that just ended (its start row came first); the
                // row's own time is the tick's nominal instant or the interrupt's
                // arrival, which is earlier when a kernel call delayed the handler (no
                // recorder can see that).
                let last = if after_isr {
                    j.isrs.last()
                } else {
                    j.ticks.last()
                };
                let at = last.map_or(*t, |&(s, _)| s.max(*t));
                open.insert(
                    task.clone(),
                    (if *t == 0 { 0 } else { at }, None, *t > 0 && after_isr),
                );
                if *t > 0 && !after_isr {
                    *j.tick_releases.entry(at).or_default() += 1;
                }
            }
            "switch_in" => {
                if let Some((_, run @ None, _)) = open.get_mut(task) {
                    *run = Some(*t);
                }
            }
            "finish" => {
                let (r, run, by_isr) = open.remove(task).expect("finish without release");
                let job = (r, run.expect("finished before it ran"), *t);
                j.jobs.entry(task.clone()).or_default().push(job);
                if by_isr {
                    j.isr_jobs.entry(task.clone()).or_default().push(job);
                }
            }
            "tick_start" => tick_start = Some(*t),
            "tick_end" => {
                j.ticks.push((tick_start.take().unwrap(), *t));
                after_isr = false;
            }
            "isr_start" => isr_start = Some(*t),
            "isr_end" => {
                j.isrs.push((isr_start.take().unwrap(), *t));
                after_isr = true;
            }
            e => panic!("unknown ground-truth event {e}"),
        }
    }
    j
}

/// latscope's jobs from the imported recording. A job made ready inside a handler is
/// released at that handler's entry.
fn trace_jobs(tr: &EventTrace) -> Jobs {
    let mut j = Jobs::default();
    let mut open: BTreeMap<u32, (u64, Option<u64>, bool)> = BTreeMap::new();
    let mut tick_entry = None;
    let mut isr_entry = None;
    for e in &tr.events {
        let t = cycles(e.t);
        let a = e.kind.actor();
        let actor = &tr.actors[a as usize];
        match e.kind {
            EventKind::IsrEnter(_) if actor.kind == ActorKind::Tick => tick_entry = Some(t),
            EventKind::IsrExit(_) if actor.kind == ActorKind::Tick => {
                j.ticks.push((tick_entry.take().unwrap(), t));
            }
            EventKind::IsrEnter(_) if actor.kind == ActorKind::Isr => isr_entry = Some(t),
            EventKind::IsrExit(_) if actor.kind == ActorKind::Isr => {
                j.isrs.push((isr_entry.take().unwrap(), t));
            }
            EventKind::Ready(_) if actor.kind == ActorKind::Task && !open.contains_key(&a) => {
                *j.releases.entry(actor.name.clone()).or_default() += 1;
                open.insert(
                    a,
                    (
                        tick_entry.or(isr_entry).unwrap_or(t),
                        None,
                        isr_entry.is_some(),
                    ),
                );
                if let Some(s) = tick_entry {
                    *j.tick_releases.entry(s).or_default() += 1;
                }
            }
            EventKind::Switch(_) => {
                if let Some((_, run @ None, _)) = open.get_mut(&a) {
                    *run = Some(t);
                }
            }
            EventKind::Block(_) => {
                if let Some((r, run, by_isr)) = open.remove(&a) {
                    let job = (r, run.unwrap(), t);
                    j.jobs.entry(actor.name.clone()).or_default().push(job);
                    if by_isr {
                        j.isr_jobs.entry(actor.name.clone()).or_default().push(job);
                    }
                }
            }
            _ => {}
        }
    }
    j
}

/// Truth minus trace for one figure over every job but each task's first (released at 0
/// while the harness initialised: the driver's clock restarts at 0 after harness_init,
/// the recorder's did not).
fn diffs(truth: &Jobs, mine: &Jobs, f: fn(&(u64, u64, u64)) -> u64) -> Vec<i64> {
    let mut d = Vec::new();
    for (task, tj) in &truth.jobs {
        let mj = &mine.jobs[task];
        for (a, b) in tj.iter().zip(mj).skip(1) {
            d.push(f(a) as i64 - f(b) as i64);
        }
    }
    d
}

fn response(j: &(u64, u64, u64)) -> u64 {
    j.2 - j.0
}

fn start_latency(j: &(u64, u64, u64)) -> u64 {
    j.1 - j.0
}

/// Tolerances, in cycles at 84 MHz (the timestamp resolution is one cycle). A recorded
/// instant is the cycle counter read inside SystemView's packet code; the harness's
/// instant is where the driver's call starts or ends. Between the two run the same
/// instructions every time for the tick's entry and exit and for a switch (the rest of
/// the recorder call and of vTaskSwitchContext): those figures must differ from the truth
/// by one constant, to the cycle, and that constant is less than one recorder call and
/// the kernel's epilogue (< 250 cycles, 3 us). A job's end is recorded by the hook in
/// xTaskDelayUntil before the kernel puts the task on the (sorted) delayed list and
/// resumes the scheduler, which takes longer the more tasks are delayed: the response
/// differs by between that constant and it plus that list work (< 500 cycles, 6 us).
const CALL_BOUND: i64 = 250;
const DELAY_TAIL_BOUND: i64 = 500;

#[test]
fn main_recording_matches_the_ground_truth() {
    let tr = open("main.SVDat");
    let truth_rows = truth("main-events.csv");
    let truth = truth_jobs(&truth_rows);
    let mine = trace_jobs(&tr);
    assert_eq!(tr.format, "systemview");
    assert_eq!(tr.clock_hz, Some(HZ), "INIT's SysFreq");
    assert!(
        tr.lost.is_empty(),
        "the main recording's buffer never filled"
    );
    // Names and priorities from TASK_INFO; the SysTick is the tick, named by SYSDESC.
    let tick: Vec<_> = tr
        .actors
        .iter()
        .filter(|a| a.kind == ActorKind::Tick)
        .collect();
    assert_eq!(tick.len(), 1);
    assert_eq!((tick[0].name.as_str(), tick[0].id), ("SysTick", 15));
    assert_eq!(
        tr.actors
            .iter()
            .filter(|a| a.kind == ActorKind::Idle)
            .count(),
        1
    );
    let prio: BTreeMap<&str, i64> = [
        ("A", 10),
        ("B", 9),
        ("C", 7),
        ("D", 6),
        ("E", 4),
        ("F", 3),
        ("G", 5),
        ("H", 8),
        ("I", 2),
        ("J", 1),
    ]
    .into();
    for (name, p) in &prio {
        let a = &tr.actors[tr.actor_index(name).unwrap() as usize];
        assert_eq!((a.kind, a.priority), (ActorKind::Task, Some(*p)), "{name}");
        // The id is the TCB address, expanded with INIT's RAM base and id shift.
        assert!(
            (0x2000_0000..0x2010_0000).contains(&a.id),
            "{name}: {:#x}",
            a.id
        );
    }
    // Jobs and releases: exactly the ground truth's, per task and per tick.
    assert_eq!(truth.jobs.len(), 10);
    for (task, tj) in &truth.jobs {
        assert_eq!(mine.jobs[task].len(), tj.len(), "{task}: jobs");
        assert_eq!(
            mine.releases[task], truth.releases[task],
            "{task}: releases"
        );
    }
    assert_eq!(mine.ticks.len(), truth.ticks.len());
    assert_eq!(mine.ticks.len(), 1000);
    let released: Vec<usize> = truth.tick_releases.values().copied().collect();
    let seen: Vec<usize> = mine.tick_releases.values().copied().collect();
    assert_eq!(seen, released, "tasks released per tick");
    // Tick durations and start latencies: truth = trace + one constant, to the cycle.
    let ticks: Vec<i64> = truth
        .ticks
        .iter()
        .zip(&mine.ticks)
        .map(|(a, b)| (a.1 - a.0) as i64 - (b.1 - b.0) as i64)
        .collect();
    for (what, d) in [
        ("tick duration", ticks),
        ("start latency", diffs(&truth, &mine, start_latency)),
    ] {
        let (lo, hi) = (*d.iter().min().unwrap(), *d.iter().max().unwrap());
        eprintln!("{what}: truth - trace {lo}..{hi} cycles over {}", d.len());
        assert!(
            hi - lo <= 1,
            "{what}: truth - trace spans {lo}..{hi} cycles"
        );
        assert!(
            0 < lo && hi < CALL_BOUND,
            "{what}: truth - trace {lo}..{hi} cycles"
        );
    }
    // Responses: within the delayed-list work after the hook.
    let d = diffs(&truth, &mine, response);
    let (lo, hi) = (*d.iter().min().unwrap(), *d.iter().max().unwrap());
    eprintln!("response: truth - trace {lo}..{hi} cycles over {}", d.len());
    assert!(
        0 < lo && hi < DELAY_TAIL_BOUND,
        "response: truth - trace {lo}..{hi} cycles"
    );
    // Each task's worst response: the same job, within the same bound.
    for (task, tj) in &truth.jobs {
        let mj = &mine.jobs[task];
        let worst = |j: &[(u64, u64, u64)]| {
            j.iter()
                .enumerate()
                .skip(1)
                .max_by_key(|(i, x)| (response(x), std::cmp::Reverse(*i)))
                .map(|(i, x)| (i, response(x) as i64))
                .unwrap()
        };
        let ((it, wt), (im, wm)) = (worst(tj), worst(mj));
        eprintln!(
            "{task}: {} jobs, worst response {wt} cycles (job {it}) truth, {wm} (job {im}) trace",
            tj.len()
        );
        assert!(
            (0..DELAY_TAIL_BOUND).contains(&(wt - wm)),
            "{task}: worst response {wt} (truth) vs {wm} (trace) cycles"
        );
    }
    // The capture view works on it (a channel per actor).
    let cap = tr.to_capture();
    assert_eq!(cap.channels.len(), tr.actors.len());
}

/// Every ground-truth row is one SystemView packet: a tick's start and end (ISR enter and
/// exit), a release (start ready), a switch (start exec or idle), a job's end (stop
/// ready). So the packets that arrived and the ones the OVERFLOW packets count as lost
/// must add up to the rows.
#[test]
fn overflow_recording_reports_every_lost_packet_where_it_was_lost() {
    use latscope_trace::import::systemview::packet::{Decoder, Kind};
    let tr = open("overflow.SVDat");
    let rows = truth("overflow-events.csv");
    assert!(tr.lost.len() > 10, "{} overflow packets", tr.lost.len());
    // Count the event packets that arrived, as packets (an ISR exit whose entry was lost
    // is a packet that arrived, though it makes no event), with their stream times.
    let bytes = std::fs::read(dir().join("overflow.SVDat")).unwrap();
    let header = bytes.windows(3).position(|w| w == b";\n\0").unwrap() + 2;
    let mut d = Decoder::new(&bytes[header..], header as u64);
    let mut arrived = Vec::new();
    let mut last_tick = 0;
    let mut idle_task = None;
    let mut t = 0u64;
    while let Some(p) = d.next_packet().unwrap() {
        t += u64::from(p.delta);
        match p.kind {
            Kind::TaskInfo { task, ref name, .. } if name == "IDLE" => idle_task = Some(task),
            // The idle task's creation has no ground-truth row.
            Kind::TaskStartReady { task } if Some(task) == idle_task => {}
            Kind::IsrEnter { .. } => {
                last_tick = t;
                arrived.push(t);
            }
            Kind::IsrExit
            | Kind::TaskStartReady { .. }
            | Kind::TaskStartExec { .. }
            | Kind::Idle
            | Kind::TaskStopReady { .. } => arrived.push(t),
            _ => {}
        }
    }
    // The recording ended with the buffer full, inside the last tick: what was lost
    // there has no OVERFLOW packet (the target sends one only once space frees up), so
    // the count is checked up to the last tick's entry.
    let arrived = arrived.iter().filter(|&&t| t < last_tick).count() as u64;
    let truth_last_tick = rows.iter().rfind(|r| r.1 == "tick_start").unwrap().0;
    // When each row's event happened: a release row carries its tick's nominal instant,
    // the kernel released the task somewhere inside that tick's ISR.
    let mut tick = (0, 0);
    let mut truth_times: Vec<(u64, u64)> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if r.0 >= truth_last_tick {
            continue;
        }
        match r.1.as_str() {
            "tick_start" => tick = (r.0, rows[i + 1].0),
            "release" if r.0 > 0 => {
                truth_times.push(tick);
                continue;
            }
            _ => {}
        }
        truth_times.push((r.0, r.0));
    }
    let lost: u64 = tr.lost.iter().map(|l| l.count).sum();
    eprintln!(
        "{} overflow packets, {lost} packets lost, {arrived} arrived, {} events happened",
        tr.lost.len(),
        truth_times.len()
    );
    assert!(lost > 100, "{lost} lost");
    assert_eq!(
        arrived + lost,
        truth_times.len() as u64,
        "packets that arrived + packets reported lost = events that happened"
    );
    // Each window holds its lost events: the ground-truth events strictly inside it,
    // give or take the recorder's offsets at its two ends (E cycles).
    const E: u64 = 500;
    let within = |a: u64, b: u64| {
        truth_times
            .iter()
            .filter(|&&(s, e)| a <= s && e <= b)
            .count() as u64
    };
    let touching = |a: u64, b: u64| {
        truth_times
            .iter()
            .filter(|&&(s, e)| s <= b && a <= e)
            .count() as u64
    };
    for l in &tr.lost {
        let (from, to) = (cycles(l.from), cycles(l.to));
        assert!(from < to);
        let lo = within(from + E, to.saturating_sub(E));
        let hi = touching(from.saturating_sub(E), to + E);
        assert!(
            lo <= l.count && l.count <= hi,
            "{} lost in {from}..{to}: ground truth has {lo}..{hi} there",
            l.count
        );
    }
}

fn fixture_bytes() -> Vec<u8> {
    std::fs::read(dir().join("main.SVDat")).unwrap()
}

fn read_bytes(b: &[u8], name: &str) -> latscope_trace::Result<EventTrace> {
    events::read(
        std::io::Cursor::new(b),
        Format::SystemView,
        name,
        &Options::default(),
    )
}

#[test]
fn detection_finds_the_header_and_a_raw_stream() {
    let b = fixture_bytes();
    assert_eq!(events::detect(&b[..512]), Some(Format::SystemView));
    let header = b.windows(3).position(|w| w == b";\n\0").unwrap() + 2;
    let raw = &b[header..];
    assert_eq!(events::detect(&raw[..512]), Some(Format::SystemView));
    let (a, r) = (read_bytes(&b, "x").unwrap(), read_bytes(raw, "x").unwrap());
    assert_eq!(a.events, r.events);
    assert_eq!(a.actors, r.actors);
}

#[test]
fn every_97th_byte_truncation_is_an_error_naming_the_file_or_a_packet_boundary() {
    use latscope_trace::import::systemview::packet::Decoder;
    let b = fixture_bytes();
    let header = b.windows(3).position(|w| w == b";\n\0").unwrap() + 2;
    let mut d = Decoder::new(&b[header..], header as u64);
    let mut boundaries = std::collections::HashSet::new();
    while let Some(p) = d.next_packet().unwrap() {
        boundaries.insert(p.offset as usize);
    }
    let mut errors = 0;
    for cut in (1..b.len()).step_by(97) {
        match read_bytes(&b[..cut], "cut.SVDat") {
            Err(e) => {
                let m = e.to_string();
                assert!(m.starts_with("cut.SVDat: "), "{m}");
                assert!(!m.contains('\n'), "{m}");
                errors += 1;
            }
            Ok(_) => assert!(boundaries.contains(&cut), "cut at {cut} read as whole"),
        }
    }
    assert!(errors > 150, "{errors} errors");
}

#[test]
fn flipped_bytes_never_panic() {
    let b = fixture_bytes();
    for (i, pos) in (0..b.len()).step_by(53).enumerate() {
        let mut c = b.clone();
        c[pos] ^= [0xFF, 0x80, 0x01][i % 3];
        if let Err(e) = read_bytes(&c, "flip.SVDat") {
            assert!(e.to_string().starts_with("flip.SVDat: "), "{e}");
        }
    }
}

#[test]
fn lengths_past_the_end_are_errors_at_the_packet() {
    let b = fixture_bytes();
    // A module event (id 600) declaring 1,000 payload bytes with 10 present.
    let mut c = b.clone();
    c.extend([0xD8, 0x04, 0xE8, 0x07]);
    c.extend([0; 10]);
    let e = read_bytes(&c, "long.SVDat").unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("long.SVDat: byte offset {}: truncated", b.len())),
        "{e}"
    );
    // A task name declaring 200 bytes with 5 present.
    let mut c = b.clone();
    c.extend([9, 1, 1, 200, b'a', b'b', b'c', b'd', b'e']);
    let e = read_bytes(&c, "name.SVDat").unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("name.SVDat: byte offset {}:", b.len())),
        "{e}"
    );
    // A declared 4 GB payload on a known packet: refused before reading.
    let mut c = b.clone();
    c.extend([24, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0]);
    let e = read_bytes(&c, "init.SVDat").unwrap_err().to_string();
    assert!(e.contains("corrupt"), "{e}");
}

/// Truth minus trace for one figure over the jobs a handler released, per task (all jobs
/// of a task in `tasks`).
fn diffs_of(
    truth: &BTreeMap<String, Vec<(u64, u64, u64)>>,
    mine: &BTreeMap<String, Vec<(u64, u64, u64)>>,
    tasks: &[&str],
    f: fn(&(u64, u64, u64)) -> u64,
) -> Vec<i64> {
    let mut d = Vec::new();
    for task in tasks {
        for (a, b) in truth[*task].iter().zip(&mine[*task]) {
            d.push(f(a) as i64 - f(b) as i64);
        }
    }
    d
}

fn span(what: &str, d: &[i64]) -> (i64, i64) {
    let (lo, hi) = (*d.iter().min().unwrap(), *d.iter().max().unwrap());
    eprintln!("{what}: truth - trace {lo}..{hi} cycles over {}", d.len());
    (lo, hi)
}

/// The second recorded set (`run.py --set isr`): tasks A-D of Table 1 below a handler
/// task that the peripheral interrupt "Periph" (external interrupt 5, exception 21)
/// releases with `vTaskNotifyGiveFromISR`, at seeded sporadic instants at least 2.7 ms
/// apart. Its entry and exit are RecordEnterISR/RecordExitISR, the release it makes is
/// OnTaskStartReady inside it, the handler task's wait is a stop-ready (cause 3) from
/// `ulTaskNotifyTake`.
#[test]
fn isr_recording_matches_the_ground_truth() {
    let tr = open("isr.SVDat");
    let truth = truth_jobs(&truth("isr-events.csv"));
    let mine = trace_jobs(&tr);
    assert!(tr.lost.is_empty(), "{:?}", tr.lost);
    let isr: Vec<_> = tr
        .actors
        .iter()
        .filter(|a| a.kind == ActorKind::Isr)
        .collect();
    assert_eq!(isr.len(), 1, "{:?}", tr.actors);
    assert_eq!((isr[0].name.as_str(), isr[0].id), ("Periph", 21));
    // run.py's priorities: the handler task above A-D (rate monotonic 4..1).
    for (name, p) in [("A", 4), ("B", 3), ("C", 2), ("D", 1), ("Handler", 5)] {
        let a = &tr.actors[tr.actor_index(name).unwrap() as usize];
        assert_eq!((a.kind, a.priority), (ActorKind::Task, Some(p)), "{name}");
    }
    // Jobs and releases per task, ticks and the tasks each released, interrupt runs and
    // the handler task's jobs they released: exactly the ground truth's.
    assert_eq!(truth.jobs.len(), 5);
    for (task, tj) in &truth.jobs {
        assert_eq!(mine.jobs[task].len(), tj.len(), "{task}: jobs");
        assert_eq!(
            mine.releases[task], truth.releases[task],
            "{task}: releases"
        );
    }
    assert_eq!(mine.ticks.len(), truth.ticks.len());
    let released: Vec<usize> = truth.tick_releases.values().copied().collect();
    let seen: Vec<usize> = mine.tick_releases.values().copied().collect();
    assert_eq!(seen, released, "tasks released per tick");
    assert!(truth.isrs.len() > 200, "{} interrupts", truth.isrs.len());
    assert_eq!(mine.isrs.len(), truth.isrs.len(), "interrupt runs");
    assert_eq!(truth.isr_jobs.keys().collect::<Vec<_>>(), ["Handler"]);
    assert_eq!(truth.isr_jobs["Handler"].len(), truth.isrs.len());
    assert_eq!(mine.isr_jobs["Handler"].len(), truth.isrs.len());
    // Every interrupt came while the handler task waited: its job is exactly one run.
    let periods = ["A", "B", "C", "D"];
    // The tick's and the interrupt's durations, the handler task's start latency from the
    // interrupt, the periodic tasks' start latencies from the tick: truth = trace + one
    // constant, to the cycle
    // (the same instructions run between each boundary and its recorded instant).
    let isr_d: Vec<i64> = truth
        .isrs
        .iter()
        .zip(&mine.isrs)
        .map(|(a, b)| (a.1 - a.0) as i64 - (b.1 - b.0) as i64)
        .collect();
    let tick_d: Vec<i64> = truth
        .ticks
        .iter()
        .zip(&mine.ticks)
        .map(|(a, b)| (a.1 - a.0) as i64 - (b.1 - b.0) as i64)
        .collect();
    let handler = ["Handler"];
    for (what, d) in [
        ("tick duration", tick_d),
        ("interrupt duration", isr_d),
        (
            "handler start latency",
            diffs_of(&truth.isr_jobs, &mine.isr_jobs, &handler, start_latency),
        ),
    ] {
        let (lo, hi) = span(what, &d);
        assert!(
            hi - lo <= 1,
            "{what}: truth - trace spans {lo}..{hi} cycles"
        );
        assert!(0 < lo && hi < CALL_BOUND, "{what}: {lo}..{hi} cycles");
    }
    let mut truth_p = truth.jobs.clone();
    let mut mine_p = mine.jobs.clone();
    for m in [&mut truth_p, &mut mine_p] {
        for v in m.values_mut() {
            v.remove(0);
        }
    }
    let (lo, hi) = span(
        "periodic start latency",
        &diffs_of(&truth_p, &mine_p, &periods, start_latency),
    );
    assert!(hi - lo <= 1 && 0 < lo && hi < CALL_BOUND, "{lo}..{hi}");
    // Responses: within the blocking call's work after its hook.
    for (what, tasks, t, m) in [
        (
            "handler response",
            &handler[..],
            &truth.isr_jobs,
            &mine.isr_jobs,
        ),
        ("periodic response", &periods[..], &truth_p, &mine_p),
    ] {
        let (lo, hi) = span(what, &diffs_of(t, m, tasks, response));
        assert!(0 < lo && hi < DELAY_TAIL_BOUND, "{what}: {lo}..{hi} cycles");
    }
}
