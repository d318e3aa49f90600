//! Linux `perf.data` (`perf sched record`, `perf record -e 'sched:*' -e 'irq:*'`) → the one
//! event-trace model.
//!
//! The file structure (header, attributes, sorted records) is read by the
//! `linux-perf-data` / `linux-perf-event-reader` crates; [`super::perf_layout`] checks
//! the declared lengths first, and [`super::perf_tracepoint`] finds each tracepoint's
//! field offsets in the format text perf stored in the file. What becomes what:
//!
//! - one actor per thread (kernel pid = tid), named by its last `comm` (`comm:tid` when
//!   several threads share a name), priority = the kernel's `prio` (lower = more urgent);
//!   the idle threads (pid 0, `swapper/N`) are one actor of kind `Idle`;
//! - `sched_waking` (or `sched_wakeup` when waking was not recorded) and
//!   `sched_wakeup_new` → `Ready(task)` on the target CPU (the event's CPU where the
//!   target is not recorded);
//! - `sched_switch` → `Block(prev)` when `prev_state` is not running (not `R` / `R+`),
//!   then `Switch(next)`;
//! - `irq_handler_entry/exit` → `IsrEnter/IsrExit` of an `Isr` actor per IRQ
//!   (`irq/N-name`), `softirq_entry/exit` likewise (`softirq/NAME`);
//! - `PERF_RECORD_LOST` / `LOST_SAMPLES` → lost-event windows of the ring buffer's CPU
//!   (the record's `cpu`): from the last sample kept on that CPU to the record, which
//!   perf writes as soon as the buffer has room again;
//! - holes perf did not report (a CPU's sample taken in a task its last switch did not
//!   put there, [`super::perf_holes`]) → inferred lost-event windows of that CPU.
//!
//! Times are perf's sample timestamps (ns, the kernel's `perf_clock`, which
//! `perf script` and `perf sched timehist` print), in picoseconds; `clock_hz` is 1 GHz.

use super::perf_holes::Holes;
use super::perf_layout;
use super::perf_tracepoint::{parse_tracing_data, EventFormat, Field};
use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::events::{Actor, ActorKind, Event, EventKind, EventTrace, LostEvents};
use latscope_core::time::Picos;
use linux_perf_data::{Feature, PerfFile, PerfFileReader, PerfFileRecord};
use linux_perf_event_reader::{
    EventRecord, PerfEventType, RawEventRecord, RecordType, SampleRecord,
};
use std::cell::Cell;
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::rc::Rc;

/// True when the first bytes are this format's: the `PERFILE2` magic, in either byte
/// order (a file or pipe-mode header).
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(b"PERFILE2") || head.starts_with(b"2ELIFREP")
}

/// Pipe-mode data with tracepoints: what to do instead.
const PIPE_TRACING: &str = "pipe-mode perf data (perf record -o -) carries the tracepoint \
    formats in a record that linux-perf-data does not read; record to a file instead \
    (perf record -o FILE)";

/// Highest CPU number accepted (a corrupt sample must not size per-CPU tables).
const MAX_CPU: u32 = 4095;

/// The kernel's softirq vector names (`include/linux/interrupt.h`).
const SOFTIRQS: [&str; 10] = [
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
];

/// A reader that remembers how far the crate has read, so an error can name the byte
/// offset it was found at (the crate's errors carry none).
struct Tracked<R> {
    inner: R,
    pos: Rc<Cell<u64>>,
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos.set(self.pos.get().saturating_add(n as u64));
        Ok(n)
    }
}

impl<R: Seek> Seek for Tracked<R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let p = self.inner.seek(to)?;
        self.pos.set(p);
        Ok(p)
    }
}

/// What one recorded tracepoint means here, with its fields resolved by name.
enum Decoder {
    Switch {
        prev_pid: Field,
        prev_state: Field,
        prev_comm: Option<Field>,
        prev_prio: Option<Field>,
        next_pid: Field,
        next_comm: Option<Field>,
        next_prio: Option<Field>,
    },
    Wake {
        pid: Field,
        comm: Option<Field>,
        prio: Option<Field>,
        target_cpu: Option<Field>,
    },
    Irq {
        enter: bool,
        irq: Field,
        name: Option<Field>,
    },
    Softirq {
        enter: bool,
        vec: Field,
    },
}

impl Decoder {
    /// The decoder for a tracepoint, or None when it is not one this importer uses (or
    /// its format lacks a field it needs). `wakeup` is used only when `waking` was not
    /// recorded: both mark one wake-up, and waking is the earlier.
    fn new(f: &EventFormat, have_waking: bool) -> Option<Decoder> {
        let get = |n: &str| f.field(n).cloned();
        Some(match (f.system.as_str(), f.name.as_str()) {
            ("sched", "sched_switch") => Decoder::Switch {
                prev_pid: get("prev_pid")?,
                prev_state: get("prev_state")?,
                prev_comm: get("prev_comm"),
                prev_prio: get("prev_prio"),
                next_pid: get("next_pid")?,
                next_comm: get("next_comm"),
                next_prio: get("next_prio"),
            },
            ("sched", "sched_waking" | "sched_wakeup_new") | ("sched", "sched_wakeup")
                if f.name != "sched_wakeup" || !have_waking =>
            {
                Decoder::Wake {
                    pid: get("pid")?,
                    comm: get("comm"),
                    prio: get("prio"),
                    target_cpu: get("target_cpu"),
                }
            }
            ("irq", "irq_handler_entry") => Decoder::Irq {
                enter: true,
                irq: get("irq")?,
                name: get("name"),
            },
            ("irq", "irq_handler_exit") => Decoder::Irq {
                enter: false,
                irq: get("irq")?,
                name: None,
            },
            ("irq", "softirq_entry") => Decoder::Softirq {
                enter: true,
                vec: get("vec")?,
            },
            ("irq", "softirq_exit") => Decoder::Softirq {
                enter: false,
                vec: get("vec")?,
            },
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Idle,
    Task(i64),
    Irq(i64),
    Softirq(i64),
}

/// Actors in order of first appearance.
#[derive(Default)]
struct Actors {
    index: HashMap<Key, u32>,
    list: Vec<(Key, Actor)>,
}

impl Actors {
    fn get(&mut self, key: Key) -> u32 {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let (name, kind, id) = match key {
            Key::Idle => ("swapper".to_string(), ActorKind::Idle, 0),
            Key::Task(pid) => (format!("pid{pid}"), ActorKind::Task, pid as u64),
            Key::Irq(n) => (format!("irq/{n}"), ActorKind::Isr, n as u64),
            Key::Softirq(v) => (
                match usize::try_from(v).ok().and_then(|v| SOFTIRQS.get(v)) {
                    Some(s) => format!("softirq/{s}"),
                    None => format!("softirq/{v}"),
                },
                ActorKind::Isr,
                v as u64,
            ),
        };
        let i = self.list.len() as u32;
        self.list.push((
            key,
            Actor {
                name,
                kind,
                priority: None,
                id,
            },
        ));
        self.index.insert(key, i);
        i
    }

    /// A task (pid 0: idle), with the comm and prio this event gives it.
    fn task(&mut self, pid: i64, comm: Option<&[u8]>, prio: Option<i64>) -> u32 {
        if pid == 0 {
            return self.get(Key::Idle);
        }
        let i = self.get(Key::Task(pid));
        let a = &mut self.list[i as usize].1;
        // (compared first: a new String per event would cost more than the rest)
        if let Some(c) = comm.filter(|c| !c.is_empty() && *c != a.name.as_bytes()) {
            a.name = String::from_utf8_lossy(c).into_owned();
        }
        if prio.is_some() {
            a.priority = prio;
        }
        i
    }

    /// The final actor list: a name several threads share gets `:tid` on each of them.
    fn finish(self) -> Vec<Actor> {
        let mut count = HashMap::<String, usize>::new();
        for (k, a) in &self.list {
            if matches!(k, Key::Task(_)) {
                *count.entry(a.name.clone()).or_default() += 1;
            }
        }
        self.list
            .into_iter()
            .map(|(k, mut a)| {
                if let Key::Task(pid) = k {
                    if count.get(&a.name).copied().unwrap_or(0) > 1 {
                        a.name = format!("{}:{pid}", a.name);
                    }
                }
                a
            })
            .collect()
    }
}

/// Reads a whole recording (a perf.data file, or pipe-mode data spooled to a file).
pub fn read<R: Read + Seek>(mut r: R, name: &str, opts: &Options) -> Result<EventTrace> {
    let (pipe, big) = check_structure(&mut r, name)?;
    r.seek(SeekFrom::Start(0)).map_err(|e| Error::io(name, e))?;
    let pos = Rc::new(Cell::new(0u64));
    let tracked = Tracked {
        inner: r,
        pos: pos.clone(),
    };
    let at = |e: linux_perf_data::Error| {
        Error::format(
            name,
            Place::Byte(pos.get()),
            format!("perf.data is corrupt or truncated: {e}"),
        )
    };
    let parsed = if pipe {
        PerfFileReader::parse_pipe(tracked)
    } else {
        PerfFileReader::parse_file(tracked)
    };
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = parsed.map_err(at)?;
    let decoders = decoders(&perf_file, name, pipe)?;
    let mut c = Collect::new(name, pos.clone(), big, opts.edge_budget());
    while let Some(rec) = record_iter.next_record(&mut perf_file).map_err(at)? {
        let PerfFileRecord::EventRecord { attr_index, record } = rec else {
            continue;
        };
        c.record(decoders.get(attr_index).and_then(Option::as_ref), &record)?;
    }
    c.finish()
}

/// Checks the magic and every declared length before the crate reads the file; returns
/// whether it is pipe-mode data and whether it is big-endian.
fn check_structure<R: Read + Seek>(r: &mut R, name: &str) -> Result<(bool, bool)> {
    let len = r.seek(SeekFrom::End(0)).map_err(|e| Error::io(name, e))?;
    r.seek(SeekFrom::Start(0)).map_err(|e| Error::io(name, e))?;
    let mut head = [0u8; 16];
    let got = read_up_to(r, &mut head).map_err(|e| Error::io(name, e))?;
    if !sniff(&head[..got]) {
        return Err(Error::format(
            name,
            Place::Byte(0),
            "not a perf.data file (no PERFILE2 magic)",
        ));
    }
    let pipe = perf_layout::is_pipe(&head[..got]);
    let big = head.starts_with(b"2ELIFREP");
    let tracing_record = if pipe {
        perf_layout::check_records(r, name, big, 16, len.saturating_sub(16))?
    } else {
        let layout = perf_layout::check(r, name, len)?;
        perf_layout::check_records(r, name, big, layout.data_offset, layout.data_size)?
    };
    if let Some(at) = tracing_record {
        return Err(Error::format(name, Place::Byte(at), PIPE_TRACING));
    }
    Ok((pipe, big))
}

/// Tracepoint formats → a decoder per attribute (None for the tracepoints not read);
/// refused when none is one latscope reads.
fn decoders(perf_file: &PerfFile, name: &str, pipe: bool) -> Result<Vec<Option<Decoder>>> {
    let Some(tracing) = perf_file.feature_section_data(Feature::TRACING_DATA) else {
        return Err(Error::format(
            name,
            Place::File,
            if pipe {
                PIPE_TRACING
            } else {
                "the file has no tracepoint formats (TRACING_DATA): record scheduler \
                 tracepoints with perf sched record or perf record -e 'sched:*'"
            },
        ));
    };
    let formats =
        parse_tracing_data(tracing).map_err(|m| Error::format(name, Place::File, m.to_string()))?;
    let attrs = perf_file.event_attributes();
    let tracepoint_id = |i: usize| match attrs[i].attr.type_ {
        PerfEventType::Tracepoint(id) => Some(id),
        _ => None,
    };
    let format_of = |i: usize| {
        let id = tracepoint_id(i)?;
        formats.iter().find(|f| f.id == id)
    };
    let have_waking = (0..attrs.len())
        .filter_map(format_of)
        .any(|f| f.system == "sched" && f.name == "sched_waking");
    let decoders: Vec<Option<Decoder>> = (0..attrs.len())
        .map(|i| format_of(i).and_then(|f| Decoder::new(f, have_waking)))
        .collect();
    if decoders.iter().all(Option::is_none) {
        return Err(Error::format(
            name,
            Place::File,
            "the file records no scheduler or interrupt tracepoint latscope reads \
             (sched_switch, sched_waking/wakeup, irq_handler_entry/exit, softirq_entry/exit): \
             record with perf sched record or perf record -e 'sched:*' -e 'irq:*'",
        ));
    }
    Ok(decoders)
}

/// A tracepoint sample's payload, read through its format's fields.
struct Payload<'r> {
    raw: &'r [u8],
    big: bool,
}

impl<'r> Payload<'r> {
    fn int(&self, f: &Field) -> Option<i64> {
        f.int(self.raw, self.big)
    }
    fn opt_int(&self, f: &Option<Field>) -> Option<i64> {
        f.as_ref().and_then(|f| f.int(self.raw, self.big))
    }
    fn opt_text(&self, f: &Option<Field>) -> Option<&'r [u8]> {
        f.as_ref().and_then(|f| f.text_bytes(self.raw, self.big))
    }
}

/// The events, actors, lost-event records and holes gathered while the records are read.
struct Collect<'a> {
    name: &'a str,
    /// The byte offset the crate has read to (for errors).
    pos: Rc<Cell<u64>>,
    big: bool,
    budget: u64,
    actors: Actors,
    events: Vec<Event>,
    lost: Vec<LostRecord>,
    holes: Holes,
    /// Per CPU: the time of the last sample read from it.
    last_on: Vec<Option<u64>>,
    first: u64,
    last: u64,
    max_cpu: u32,
}

impl<'a> Collect<'a> {
    fn new(name: &'a str, pos: Rc<Cell<u64>>, big: bool, budget: u64) -> Collect<'a> {
        Collect {
            name,
            pos,
            big,
            budget,
            actors: Actors::default(),
            events: Vec::new(),
            lost: Vec::new(),
            holes: Holes::default(),
            last_on: Vec::new(),
            first: u64::MAX,
            last: 0,
            max_cpu: 0,
        }
    }

    fn bad(&self, msg: String) -> Error {
        Error::format(self.name, Place::Byte(self.pos.get()), msg)
    }

    /// One event (times still in ns), against the budget.
    fn push(&mut self, t: u64, cpu: u32, kind: EventKind) -> Result<()> {
        let budget = self.budget;
        if self.events.len() as u64 >= budget {
            return Err(self.bad(format!(
                "more than {budget} events: refused to keep them all in memory \
                 (--max-edges raises the limit)"
            )));
        }
        self.max_cpu = self.max_cpu.max(cpu);
        self.events.push(Event {
            t: Picos(t as i64),
            cpu: cpu as u16,
            kind,
        });
        Ok(())
    }

    /// One event record: a sample of a tracepoint read (`dec`), or a lost-event count.
    fn record(&mut self, dec: Option<&Decoder>, record: &RawEventRecord) -> Result<()> {
        match record.record_type {
            RecordType::SAMPLE => {
                let Some(dec) = dec else {
                    return Ok(());
                };
                let Ok(EventRecord::Sample(s)) = record.parse() else {
                    return Err(self.bad("a sample record is cut short".into()));
                };
                self.sample(dec, &s)
            }
            RecordType::LOST => {
                if let Ok(EventRecord::Lost(l)) = record.parse() {
                    let on = buffer_cpu(record, &self.last_on);
                    self.lost
                        .push((record.timestamp(), l.count, self.events.len(), on));
                }
                Ok(())
            }
            RecordType::LOST_SAMPLES => {
                // struct { u64 lost; sample_id }
                let body = record.data.as_slice();
                if let Some(b) = body.get(..8) {
                    let a: [u8; 8] = b.try_into().unwrap_or([0; 8]);
                    let n = if self.big {
                        u64::from_be_bytes(a)
                    } else {
                        u64::from_le_bytes(a)
                    };
                    let on = buffer_cpu(record, &self.last_on);
                    self.lost
                        .push((record.timestamp(), n, self.events.len(), on));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A tracepoint sample: its time, CPU and payload checked, then decoded.
    fn sample(&mut self, dec: &Decoder, s: &SampleRecord) -> Result<()> {
        let t = s
            .timestamp
            .ok_or_else(|| self.bad("samples carry no timestamp (sample_type TIME)".into()))?;
        if t > i64::MAX as u64 {
            return Err(self.bad(format!("sample time {t} ns is out of range")));
        }
        let cpu = s
            .cpu
            .ok_or_else(|| self.bad("samples carry no CPU (sample_type CPU)".into()))?;
        if cpu > MAX_CPU {
            return Err(self.bad(format!("sample names CPU {cpu}")));
        }
        let Some(raw) = &s.raw else {
            return Err(self.bad("a tracepoint sample has no payload (RAW)".into()));
        };
        let raw = raw.as_slice();
        self.first = self.first.min(t);
        self.last = self.last.max(t);
        let ci = cpu as usize;
        if ci >= self.last_on.len() {
            self.last_on.resize(ci + 1, None);
        }
        self.last_on[ci] = Some(t);
        let tid = s.tid.map(i64::from);
        let p = Payload {
            raw: &raw[..],
            big: self.big,
        };
        match dec {
            Decoder::Switch { .. } => self.switch(dec, &p, t, cpu, tid),
            Decoder::Wake { .. } => self.wake(dec, &p, t, cpu, tid),
            Decoder::Irq { .. } | Decoder::Softirq { .. } => self.irq(dec, &p, t, cpu, tid),
        }
    }

    fn short(&self) -> Error {
        self.bad("a tracepoint payload is shorter than its format".into())
    }

    /// `sched_switch`: `Block(prev)` unless it is still runnable, then `Switch(next)`.
    fn switch(
        &mut self,
        dec: &Decoder,
        p: &Payload,
        t: u64,
        cpu: u32,
        tid: Option<i64>,
    ) -> Result<()> {
        let Decoder::Switch {
            prev_pid,
            prev_state,
            prev_comm,
            prev_prio,
            next_pid,
            next_comm,
            next_prio,
        } = dec
        else {
            return Ok(());
        };
        let pp = p.int(prev_pid).ok_or_else(|| self.short())?;
        let st = p.int(prev_state).ok_or_else(|| self.short())?;
        let np = p.int(next_pid).ok_or_else(|| self.short())?;
        self.holes.switch(t, cpu, pp, np, tid);
        let prev = self
            .actors
            .task(pp, p.opt_text(prev_comm), p.opt_int(prev_prio));
        let next = self
            .actors
            .task(np, p.opt_text(next_comm), p.opt_int(next_prio));
        if pp != 0 && !still_runnable(st) {
            self.push(t, cpu, EventKind::Block(prev))?;
        }
        self.push(t, cpu, EventKind::Switch(next))
    }

    /// A wake-up: `Ready(task)` on the target CPU (the event's when not recorded).
    fn wake(
        &mut self,
        dec: &Decoder,
        p: &Payload,
        t: u64,
        cpu: u32,
        tid: Option<i64>,
    ) -> Result<()> {
        let Decoder::Wake {
            pid,
            comm,
            prio,
            target_cpu,
        } = dec
        else {
            return Ok(());
        };
        let pid = p.int(pid).ok_or_else(|| self.short())?;
        self.holes.other(t, cpu, tid);
        self.holes.woken(t, pid);
        if pid == 0 {
            return Ok(());
        }
        let a = self.actors.task(pid, p.opt_text(comm), p.opt_int(prio));
        let on = p
            .opt_int(target_cpu)
            .and_then(|c| u32::try_from(c).ok())
            .filter(|&c| c <= MAX_CPU)
            .unwrap_or(cpu);
        self.push(t, on, EventKind::Ready(a))
    }

    /// A hard or soft interrupt handler's entry or exit.
    fn irq(
        &mut self,
        dec: &Decoder,
        p: &Payload,
        t: u64,
        cpu: u32,
        tid: Option<i64>,
    ) -> Result<()> {
        let (enter, a) = match dec {
            Decoder::Irq {
                enter,
                irq,
                name: irq_name,
            } => {
                let n = p.int(irq).ok_or_else(|| self.short())?;
                self.holes.other(t, cpu, tid);
                let a = self.actors.get(Key::Irq(n));
                if let Some(s) = p.opt_text(irq_name).filter(|s| !s.is_empty()) {
                    let s = String::from_utf8_lossy(s);
                    let named = &mut self.actors.list[a as usize].1.name;
                    let want = format!("irq/{n}-{s}");
                    if *named != want {
                        *named = want;
                    }
                }
                (*enter, a)
            }
            Decoder::Softirq { enter, vec } => {
                let v = p.int(vec).ok_or_else(|| self.short())?;
                self.holes.other(t, cpu, tid);
                (*enter, self.actors.get(Key::Softirq(v)))
            }
            _ => return Ok(()),
        };
        let k = if enter {
            EventKind::IsrEnter(a)
        } else {
            EventKind::IsrExit(a)
        };
        self.push(t, cpu, k)
    }

    /// The trace: times in picoseconds, events in time order, lost-event windows from
    /// the LOST records and the holes.
    fn finish(self) -> Result<EventTrace> {
        let Collect {
            name,
            actors,
            mut events,
            lost,
            holes,
            mut first,
            mut last,
            max_cpu,
            ..
        } = self;
        if first > last {
            first = 0;
            last = 0;
        }
        let clock = Clock::new(name, first, last);
        for e in &mut events {
            e.t = clock.ps(e.t.0 as u64)?;
        }
        let (start, end) = (clock.ps(first)?, clock.ps(last)?);
        if !events.windows(2).all(|w| w[0].t <= w[1].t) {
            events.sort_by_key(|e| e.t);
        }
        let cpus = if events.is_empty() {
            0
        } else {
            max_cpu as u16 + 1
        };
        let holes = holes.finish(last);
        let mut windows = Vec::with_capacity(lost.len().saturating_add(holes.len()));
        for rec in lost {
            windows.push(lost_window(rec, &events, &clock, (start, end), cpus)?);
        }
        for h in holes {
            if h.cpu >= u32::from(cpus) || h.from_ns < clock.base {
                continue;
            }
            let key = if h.found == 0 {
                Key::Idle
            } else {
                Key::Task(h.found)
            };
            let actor = actors.index.get(&key).copied();
            windows.push(LostEvents::inferred(
                h.cpu as u16,
                clock.ps(h.from_ns)?,
                clock.ps(h.to_ns)?,
                actor,
            ));
        }
        Ok(EventTrace {
            source: name.to_string(),
            format: "perf".to_string(),
            clock_hz: Some(1_000_000_000),
            start,
            end,
            cpus,
            actors: actors.finish(),
            events,
            lost: windows,
        })
    }
}

/// perf's nanoseconds → picoseconds from the recording's origin.
struct Clock<'a> {
    name: &'a str,
    base: u64,
    first: u64,
    last: u64,
}

impl<'a> Clock<'a> {
    /// Picoseconds on perf's own clock when they fit in i64 (106 days of uptime);
    /// otherwise from the whole second before the first sample, so the digits below the
    /// second still match perf's output.
    fn new(name: &'a str, first: u64, last: u64) -> Clock<'a> {
        let base = if last > (i64::MAX / 1000) as u64 {
            first - first % 1_000_000_000
        } else {
            0
        };
        Clock {
            name,
            base,
            first,
            last,
        }
    }

    fn ps(&self, ns: u64) -> Result<Picos> {
        ns.checked_sub(self.base)
            .and_then(|d| i64::try_from(d).ok())
            .and_then(|d| d.checked_mul(1000))
            .map(Picos)
            .ok_or_else(|| {
                Error::format(
                    self.name,
                    Place::File,
                    format!(
                        "sample times span more than 106 days ({} to {} ns)",
                        self.first, self.last
                    ),
                )
            })
    }
}

/// The window of one LOST record: on its buffer's CPU when known, else between the events
/// around it.
fn lost_window(
    (t, count, seen, on): LostRecord,
    events: &[Event],
    clock: &Clock,
    (start, end): (Picos, Picos),
    cpus: u16,
) -> Result<LostEvents> {
    let tl = t
        .filter(|&t| t >= clock.base)
        .map(|t| clock.ps(t))
        .transpose()?;
    // The buffer's CPU: its events were lost after the last sample kept from it, and
    // before the record (written as soon as the buffer had room again).
    // (A record dated before the first sample says nothing about where: all CPUs.)
    let dated = tl.filter(|&tl| tl >= start);
    if let (Some(tl), Some((c, kept))) = (dated, on.filter(|&(c, _)| c < u32::from(cpus))) {
        let from = match kept.filter(|&k| k >= clock.base) {
            Some(k) => clock.ps(k)?.min(tl),
            None => start.min(tl),
        };
        return Ok(LostEvents {
            cpu: Some(c as u16),
            ..LostEvents::reported(count, from, tl)
        });
    }
    let (from, to) = match tl {
        Some(tl) => {
            let k = events.partition_point(|e| e.t <= tl);
            let from = k.checked_sub(1).map_or(start, |i| events[i].t);
            let to = events.get(k).map_or(end, |e| e.t);
            (from, to)
        }
        None => {
            let from = seen.checked_sub(1).map_or(start, |i| events[i].t);
            let to = events.get(seen).map_or(end, |e| e.t);
            (from, to)
        }
    };
    Ok(LostEvents::reported(count, from, to))
}

/// A LOST record: its time, its count, the events seen before it, and the ring buffer's
/// CPU with the time of the last sample kept from it.
type LostRecord = (Option<u64>, u64, usize, Option<(u32, Option<u64>)>);

/// The CPU of the ring buffer a LOST record came from (its `sample_id`, present when the
/// file was recorded with `sample_id_all`, as perf always does), with the time of the last
/// sample read from that CPU before it.
fn buffer_cpu(record: &RawEventRecord, last_on: &[Option<u64>]) -> Option<(u32, Option<u64>)> {
    let c = record.common_data().ok()?.cpu?;
    (c <= MAX_CPU).then(|| (c, last_on.get(c as usize).copied().flatten()))
}

/// `prev_state` of a task switched out while still runnable: `R` (0), or `R+` (only
/// the preemption marker, a bit above the state bits: 0x100 since Linux 4.14, larger
/// before). Any of the low eight bits (S, D, T, t, X, Z, P, I) means it blocked.
fn still_runnable(prev_state: i64) -> bool {
    prev_state & 0xff == 0
}

fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
