//! SEGGER SystemView recordings (`.SVDat`) → the one event-trace model.
//!
//! What SystemView's host saves is the byte stream of the target's RTT channel, behind a
//! short text header (`;` lines, the second lone `;` line ends it: `; Version     SEGGER
//! SystemViewer V…` and the like). The stream starts with ten zero bytes (the sync that
//! `SEGGER_SYSVIEW_Start` writes first), then TRACE_START, INIT (timestamp frequency, RAM
//! base and id shift), the system description, the task list, and the events. Packets are
//! decoded by [`packet`]; this file maps them to the model:
//!
//! | SystemView | event-trace model |
//! |---|---|
//! | TASK_START_READY | `Ready(task)` |
//! | TASK_START_EXEC | `Switch(task)` |
//! | TASK_STOP_READY (any cause), TASK_TERMINATE | `Block(task)` |
//! | IDLE | `Switch(idle)` (the task named `IDLE` by TASK_INFO, FreeRTOS's idle task, or an actor `Idle`) |
//! | ISR_ENTER(n), ISR_EXIT / ISR_TO_SCHEDULER | `IsrEnter`/`IsrExit` of the actor of interrupt n: exception 15 (SysTick) is the `Tick`, others `Isr`; named by SYSDESC `I#n=Name` entries |
//! | TASK_INFO | the task's name and priority |
//! | INIT | `clock_hz` = SysFreq; task ids are `RAMBase + (id << shift)` (the TCB address) |
//! | SYSTIME_CYCLES | the time origin: times are the target's cycle counter when it is sent |
//! | OVERFLOW | `LostEvents` |
//!
//! TASK_STOP_EXEC says only that a task stopped running (the next START_EXEC or IDLE
//! says who runs next), so it maps to nothing; timers, marks, prints, module and user
//! events are decoded to stay in step and not kept.
//!
//! Lost events: when the RTT buffer is full the target drops the packet, and from then on
//! tries to send an OVERFLOW packet before each new one; each failed try drops that
//! packet too and counts it in a counter that is never reset. So the packets lost before
//! an OVERFLOW packet are one (the first drop, not counted) plus the growth of the counter
//! since the previous OVERFLOW packet. They were lost between the last packet before the
//! OVERFLOW packet and the OVERFLOW packet itself (it is sent just before the first packet
//! that fits again, with its own timestamp).
//!
//! Detection: the text header. A raw stream without it (an RTT capture saved by another
//! tool) is recognised when it starts with the ten-byte sync followed by TRACE_START;
//! anything else needs `--format systemview`.

pub mod packet;

use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::events::{Actor, ActorKind, Event, EventKind, EventTrace, LostEvents};
use latscope_core::time::Picos;
use packet::{DecodeError, Decoder, Kind};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek};

/// The first line of the header SystemView writes (after a lone `;` line).
const HEADER_MARK: &[u8] = b"; Version     SEGGER SystemView";
/// The sync SEGGER_SYSVIEW_Start writes before everything else.
const SYNC: [u8; 10] = [0; 10];
/// The longest text header accepted (SystemView's own is a few hundred bytes).
const MAX_HEADER: u64 = 64 * 1024;
/// ARM Cortex-M's SysTick exception number: its handler is the kernel tick.
const SYSTICK_IRQ: u32 = 15;

/// True when the first bytes are a SystemView recording: SystemView's text header, or a
/// raw stream that starts with the sync and TRACE_START.
pub fn sniff(head: &[u8]) -> bool {
    let text = head
        .strip_prefix(b";\r\n")
        .or_else(|| head.strip_prefix(b";\n"));
    if let Some(rest) = text {
        return rest.starts_with(HEADER_MARK);
    }
    head.len() > SYNC.len() && head[..SYNC.len()] == SYNC && head[SYNC.len()] == 10
}

/// Reads a whole recording.
pub fn read<R: Read + Seek>(r: R, name: &str, opts: &Options) -> Result<EventTrace> {
    let mut r = BufReader::with_capacity(1 << 16, r);
    let start = skip_header(&mut r, name)?;
    let mut b = Builder::new(name);
    let mut d = Decoder::new(r, start);
    loop {
        let p = match d.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(DecodeError::Io(e)) => return Err(Error::io(name, e)),
            Err(DecodeError::Truncated { offset, what }) => {
                return Err(Error::format(
                    name,
                    Place::Byte(offset),
                    format!("truncated SystemView packet: {what}"),
                ))
            }
            Err(DecodeError::Corrupt { offset, what }) => {
                return Err(Error::format(
                    name,
                    Place::Byte(offset),
                    format!("corrupt SystemView stream: {what}"),
                ))
            }
        };
        b.packet(p)?;
    }
    b.finish(opts, d.position())
}

/// Skips SystemView's text header (if any) and returns the offset of the stream's first
/// byte. Blank lines between the header and the sync are skipped too.
fn skip_header<R: BufRead>(r: &mut R, name: &str) -> Result<u64> {
    let first = r.fill_buf().map_err(|e| Error::io(name, e))?;
    if first.is_empty() {
        return Err(Error::format(name, Place::File, "the file is empty"));
    }
    if first[0] != b';' {
        return Ok(0);
    }
    let mut pos = 0u64;
    let mut lone = 0;
    let mut line = Vec::new();
    while lone < 2 {
        line.clear();
        let n = r
            .by_ref()
            .take(MAX_HEADER + 1 - pos.min(MAX_HEADER))
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(name, e))?;
        if n == 0 || line.last() != Some(&b'\n') {
            return Err(Error::format(
                name,
                Place::Byte(pos),
                if pos + n as u64 > MAX_HEADER {
                    format!("the text header is longer than {MAX_HEADER} bytes")
                } else {
                    "truncated SystemView header: the file ends before the line `;` that \
                     closes it"
                        .to_string()
                },
            ));
        }
        if !line.starts_with(b";") {
            return Err(Error::format(
                name,
                Place::Byte(pos),
                "a SystemView header line must start with `;`",
            ));
        }
        pos += n as u64;
        if line.trim_ascii_end() == b";" {
            lone += 1;
        }
    }
    // Blank lines some writers add before the binary stream, which starts with the sync
    // (zero bytes): a newline is skipped only when it leads to a zero byte, since 0x0A is
    // also an event id.
    loop {
        let buf = r.fill_buf().map_err(|e| Error::io(name, e))?;
        let n = buf
            .iter()
            .take_while(|&&c| c == b'\n' || c == b'\r')
            .count();
        if n == 0 || buf.get(n) != Some(&0) {
            break;
        }
        r.consume(n);
        pos += n as u64;
    }
    Ok(pos)
}

/// Turns packets into actors and events as they come.
struct Builder<'a> {
    name: &'a str,
    /// Absolute time of the last packet, in recorder ticks from the stream's first byte.
    t: u64,
    /// Offset of the last packet (None before the first).
    last_packet: Option<u64>,
    /// INIT's (RAM base, id shift, SysFreq).
    init: Option<(u32, u32, u32)>,
    /// Recorder ticks to add to stream times to get the target's counter (SYSTIME).
    origin: Option<i64>,
    actors: Vec<Actor>,
    tasks: HashMap<u32, u32>,
    isrs: HashMap<u32, u32>,
    idle: Option<u32>,
    /// ISR names from SYSDESC `I#n=Name` entries (they may come before or after the ISR).
    isr_names: HashMap<u32, String>,
    /// Interrupts running now, innermost last.
    isr_stack: Vec<u32>,
    /// (recorder ticks, kind)
    events: Vec<(u64, EventKind)>,
    /// (count, from, to) in recorder ticks.
    lost: Vec<(u64, u64, u64)>,
    last_drop_count: u32,
    first: Option<u64>,
}

impl<'a> Builder<'a> {
    fn new(name: &'a str) -> Self {
        Builder {
            name,
            t: 0,
            last_packet: None,
            init: None,
            origin: None,
            actors: Vec::new(),
            tasks: HashMap::new(),
            isrs: HashMap::new(),
            idle: None,
            isr_names: HashMap::new(),
            isr_stack: Vec::new(),
            events: Vec::new(),
            lost: Vec::new(),
            last_drop_count: 0,
            first: None,
        }
    }

    fn actor(&mut self, name: String, kind: ActorKind, id: u64) -> u32 {
        self.actors.push(Actor {
            name,
            kind,
            priority: None,
            id,
        });
        (self.actors.len() - 1) as u32
    }

    /// The TCB address a shrunk task id stands for (INIT's base and shift; the id itself
    /// before INIT).
    fn address(&self, id: u32) -> u64 {
        match self.init {
            Some((base, shift, _)) => u64::from(base) + (u64::from(id) << shift),
            None => u64::from(id),
        }
    }

    fn task(&mut self, id: u32) -> u32 {
        if let Some(&a) = self.tasks.get(&id) {
            return a;
        }
        let addr = self.address(id);
        let a = self.actor(format!("task 0x{addr:08X}"), ActorKind::Task, addr);
        self.tasks.insert(id, a);
        a
    }

    fn isr(&mut self, irq: u32) -> u32 {
        if let Some(&a) = self.isrs.get(&irq) {
            return a;
        }
        let (kind, default) = if irq == SYSTICK_IRQ {
            (ActorKind::Tick, "SysTick".to_string())
        } else {
            (ActorKind::Isr, format!("ISR {irq}"))
        };
        let name = self.isr_names.get(&irq).cloned().unwrap_or(default);
        let a = self.actor(name, kind, u64::from(irq));
        self.isrs.insert(irq, a);
        a
    }

    fn idle(&mut self) -> u32 {
        match self.idle {
            Some(a) => a,
            None => {
                let a = self.actor("Idle".into(), ActorKind::Idle, 0);
                self.idle = Some(a);
                a
            }
        }
    }

    fn push(&mut self, kind: EventKind) {
        self.events.push((self.t, kind));
    }

    fn packet(&mut self, p: packet::Packet) -> Result<()> {
        let before = self.last_packet.map(|_| self.t);
        self.t = self.t.checked_add(u64::from(p.delta)).ok_or_else(|| {
            Error::format(
                self.name,
                Place::Byte(p.offset),
                "time past 2^64 recorder ticks",
            )
        })?;
        self.last_packet = Some(p.offset);
        if self.first.is_none() {
            self.first = Some(self.t);
        }
        match p.kind {
            Kind::Init {
                sys_freq,
                ram_base,
                id_shift,
                ..
            } => {
                if id_shift > 31 {
                    return Err(Error::format(
                        self.name,
                        Place::Byte(p.offset),
                        format!("INIT gives an id shift of {id_shift} bits (at most 31)"),
                    ));
                }
                if sys_freq == 0 {
                    return Err(Error::format(
                        self.name,
                        Place::Byte(p.offset),
                        "INIT gives a timestamp frequency of 0 Hz",
                    ));
                }
                // A restarted recording repeats INIT; the first one holds.
                if self.init.is_none() {
                    if !self.tasks.is_empty() {
                        return Err(Error::format(
                            self.name,
                            Place::Byte(p.offset),
                            "INIT after task events: their ids cannot be expanded",
                        ));
                    }
                    self.init = Some((ram_base, id_shift, sys_freq));
                }
            }
            Kind::SystimeCycles { cycles } => {
                if self.origin.is_none() {
                    // The target's counter is 32 bits; the stream's time is not: the
                    // origin is where the counter was 0 the last time before this packet.
                    let t32 = (self.t & 0xFFFF_FFFF) as i64;
                    let mut o = i64::from(cycles) - t32;
                    if o < 0 {
                        o += 1 << 32;
                    }
                    self.origin = Some(o);
                }
            }
            Kind::SysDesc { text } => {
                // Comma-separated `K=V` items; `I#n=Name` names interrupt n.
                for item in text.split(',') {
                    if let Some((k, v)) = item.trim().split_once('=') {
                        if let Some(n) = k.strip_prefix("I#").and_then(|n| n.parse().ok()) {
                            if let Some(&a) = self.isrs.get(&n) {
                                self.actors[a as usize].name = v.to_string();
                            }
                            self.isr_names.insert(n, v.to_string());
                        }
                    }
                }
            }
            Kind::TaskInfo { task, prio, name } => {
                let a = self.task(task);
                // FreeRTOS names its idle task IDLE: IDLE packets switch to it (it may
                // have been created, as a task, by TASK_CREATE just before).
                if name.eq_ignore_ascii_case("idle") && self.idle.is_none() {
                    self.actors[a as usize].kind = ActorKind::Idle;
                    self.idle = Some(a);
                }
                let actor = &mut self.actors[a as usize];
                actor.name = name;
                actor.priority = Some(i64::from(prio));
            }
            Kind::TaskCreate { task } => {
                self.task(task);
            }
            Kind::TaskStartReady { task } => {
                let a = self.task(task);
                self.push(EventKind::Ready(a));
            }
            Kind::TaskStartExec { task } => {
                let a = self.task(task);
                self.push(EventKind::Switch(a));
            }
            Kind::TaskStopReady { task, .. } | Kind::TaskTerminate { task } => {
                let a = self.task(task);
                self.push(EventKind::Block(a));
            }
            Kind::Idle => {
                let a = self.idle();
                self.push(EventKind::Switch(a));
            }
            Kind::IsrEnter { irq } => {
                let a = self.isr(irq);
                self.isr_stack.push(a);
                self.push(EventKind::IsrEnter(a));
            }
            Kind::IsrExit => {
                // An exit whose entry was lost (or before the recording began) exits
                // nothing.
                if let Some(a) = self.isr_stack.pop() {
                    self.push(EventKind::IsrExit(a));
                }
            }
            Kind::Overflow { drop_count } => {
                let grown = drop_count.checked_sub(self.last_drop_count);
                // A counter that went down was reset (a restarted target): all it says
                // is new.
                let count = 1 + u64::from(grown.unwrap_or(drop_count));
                self.last_drop_count = drop_count;
                // Entries in flight when packets were lost may have lost their exits.
                self.isr_stack.clear();
                self.lost.push((count, before.unwrap_or(self.t), self.t));
            }
            Kind::TaskStopExec
            | Kind::TraceStart
            | Kind::TraceStop
            | Kind::SystimeUs { .. }
            | Kind::Other { .. } => {}
        }
        Ok(())
    }

    fn finish(self, opts: &Options, end_offset: u64) -> Result<EventTrace> {
        super::check_stated_rate(
            self.name,
            self.init.map(|(_, _, f)| u64::from(f)),
            opts.samplerate_hz,
            &opts.warnings,
        )?;
        let hz = match (self.init, opts.samplerate_hz) {
            (_, Some(hz)) if hz > 0 => hz,
            (Some((_, _, f)), _) => u64::from(f),
            _ => {
                return Err(Error::format(
                    self.name,
                    Place::Byte(end_offset),
                    "no INIT packet (the recorder's timestamp frequency) in the recording; \
                     give it with --samplerate",
                ))
            }
        };
        let origin = self.origin.unwrap_or(0);
        let name = self.name;
        let ps = |ticks: u64| -> Result<Picos> {
            let abs = i64::try_from(ticks)
                .ok()
                .and_then(|t| t.checked_add(origin))
                .and_then(|t| u64::try_from(t).ok())
                .ok_or_else(|| {
                    Error::format(name, Place::File, "a time past 2^63 recorder ticks")
                })?;
            let p = Picos::from_cycles(abs, hz);
            if p.0 == i64::MAX {
                return Err(Error::format(
                    name,
                    Place::File,
                    "a time past 2^63 picoseconds (about 106 days)",
                ));
            }
            Ok(p)
        };
        let mut events = Vec::with_capacity(self.events.len());
        for &(t, kind) in &self.events {
            events.push(Event {
                t: ps(t)?,
                cpu: 0,
                kind,
            });
        }
        let mut lost = Vec::with_capacity(self.lost.len());
        for &(count, from, to) in &self.lost {
            lost.push(LostEvents::reported(count, ps(from)?, ps(to)?));
        }
        let start = ps(self.first.unwrap_or(0))?;
        let end = ps(self.t)?;
        Ok(EventTrace {
            source: self.name.to_string(),
            format: "systemview".into(),
            clock_hz: Some(hz),
            start,
            end,
            cpus: 1,
            actors: self.actors,
            events,
            lost,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::packet::tests::enc;
    use super::*;
    use std::io::Cursor;

    /// A small stream: the sync, TRACE_START, INIT (1 MHz, base 0x20000000, shift 2), a
    /// SYSDESC naming ISR 15 and 40, TASK_INFO for one task and IDLE, then `body`.
    fn stream(body: &[(u32, &[u32], u32)]) -> Vec<u8> {
        let mut b = b";\r\n; Version     SEGGER SystemViewer V3.32\r\n;\r\n\r\n".to_vec();
        b.extend([0; 10]);
        b.extend([10, 0]);
        let mut init = Vec::new();
        for v in [1_000_000, 1_000_000, 0x2000_0000, 2] {
            enc(v, &mut init);
        }
        b.push(24);
        b.push(init.len() as u8);
        b.extend(&init);
        b.push(0);
        let desc = b"I#15=SysTick,I#40=UART";
        b.extend([14, desc.len() as u8]);
        b.extend(desc);
        b.push(0);
        for (task, prio, name) in [(0x100u32, 3u32, &b"T1"[..]), (0x200, 0, b"IDLE")] {
            // TASK_CREATE, then TASK_INFO, as SystemView's FreeRTOS glue sends them.
            b.push(8);
            enc(task, &mut b);
            b.push(0);
            b.push(9);
            enc(task, &mut b);
            enc(prio, &mut b);
            b.push(name.len() as u8);
            b.extend(name);
            b.push(0);
        }
        for &(id, args, delta) in body {
            enc(id, &mut b);
            for &a in args {
                enc(a, &mut b);
            }
            enc(delta, &mut b);
        }
        b
    }

    fn read_stream(b: &[u8]) -> Result<EventTrace> {
        read(Cursor::new(b), "t.SVDat", &Options::default())
    }

    #[test]
    fn header_with_crlf_and_a_blank_line_is_skipped_and_sniffed() {
        let b = stream(&[]);
        assert!(sniff(&b));
        assert!(!sniff(b"; CSV, generated by libsigrok\n"));
        let t = read_stream(&b).unwrap();
        assert_eq!(t.clock_hz, Some(1_000_000));
        assert!(t.events.is_empty());
    }

    #[test]
    fn packets_map_to_the_model() {
        use EventKind::*;
        let b = stream(&[
            (6, &[0x100], 10),     // T1 ready
            (2, &[15], 5),         // SysTick enter
            (2, &[40], 1),         // UART nests
            (3, &[], 2),           // UART exit
            (3, &[], 2),           // SysTick exit
            (4, &[0x100], 1),      // T1 runs
            (7, &[0x100, 2], 100), // T1 blocks
            (17, &[], 1),          // idle
            (3, &[], 1),           // an exit with no entry: nothing
        ]);
        let t = read_stream(&b).unwrap();
        let name = |a: u32| t.actors[a as usize].name.as_str();
        let kinds: Vec<(i64, EventKind)> = t.events.iter().map(|e| (e.t.0, e.kind)).collect();
        let us = 1_000_000; // ps per tick at 1 MHz
        assert_eq!(kinds.len(), 8);
        assert_eq!(kinds[0], (10 * us, Ready(t.actor_index("T1").unwrap())));
        assert!(matches!(kinds[1].1, IsrEnter(a) if name(a) == "SysTick"));
        assert!(matches!(kinds[2].1, IsrEnter(a) if name(a) == "UART"));
        assert!(matches!(kinds[3].1, IsrExit(a) if name(a) == "UART"));
        assert!(matches!(kinds[4].1, IsrExit(a) if name(a) == "SysTick"));
        assert!(matches!(kinds[6], (t, Block(a)) if name(a) == "T1" && t == 121 * us));
        assert!(matches!(kinds[7].1, Switch(a) if name(a) == "IDLE"));
        let t1 = &t.actors[t.actor_index("T1").unwrap() as usize];
        assert_eq!((t1.id, t1.priority), (0x2000_0400, Some(3)));
        let kind = |n: &str| t.actors[t.actor_index(n).unwrap() as usize].kind;
        assert_eq!(kind("SysTick"), ActorKind::Tick);
        assert_eq!(kind("UART"), ActorKind::Isr);
        assert_eq!(kind("IDLE"), ActorKind::Idle);
        assert_eq!(t.actors.len(), 4, "T1, IDLE, SysTick, UART: {:?}", t.actors);
    }

    #[test]
    fn overflow_counts_one_plus_the_counters_growth() {
        let b = stream(&[
            (6, &[0x100], 10),
            (1, &[0], 50), // one packet lost between 10 and 60
            (4, &[0x100], 1),
            (1, &[4], 100), // five more between 61 and 161
            (1, &[4], 10),  // one more
        ]);
        let t = read_stream(&b).unwrap();
        let us = 1_000_000;
        let lost: Vec<(u64, i64, i64)> = t
            .lost
            .iter()
            .map(|l| (l.count, l.from.0 / us, l.to.0 / us))
            .collect();
        assert_eq!(lost, vec![(1, 10, 60), (5, 61, 161), (1, 161, 171)]);
        assert_eq!(t.lost_total(), 7);
    }

    #[test]
    fn impossible_init_is_refused_at_its_offset() {
        let mut b = stream(&[]);
        let at = b.len();
        b.extend([24, 4, 1, 1, 0, 40, 0]);
        let e = read_stream(&b).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("t.SVDat: byte offset {at}: INIT")),
            "{e}"
        );
    }
}
