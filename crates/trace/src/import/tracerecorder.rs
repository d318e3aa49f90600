//! Percepio TraceRecorder recordings (Tracealyzer's `.psf` streaming format, protocol
//! versions 10 and 12–14) → the one event-trace model.
//!
//! Two layouts are read, both decoded by the `trace-recorder-parser` crate:
//!
//! * a **PSF stream** as a stream port (RTT, ITM, TCP, file) delivers it: the PSF header,
//!   the timestamp information, the entry table (object names and states), then the events;
//! * a **RingBuffer RAM dump**: the RingBuffer stream port keeps the same header, timestamp
//!   information and entry table between start markers (`05 06 07 08 75 76 77 78 F5 F6 F7
//!   F8`) and end markers, followed by its event buffer (a size word, then a
//!   `TraceEventBuffer_t` — head, tail, size, options, dropped, free, slack, … — and the
//!   event bytes). A debugger's dump of that memory is what Tracealyzer opens as a
//!   snapshot of a ring buffer; here the events between tail and head are cut out and
//!   handed to the same stream decoder. One core, 32-bit target (the crate assumes 32-bit
//!   base types too).
//!
//! What becomes what: `TASK_SWITCH_TASK_BEGIN`, `TASK_ACTIVATE` and (a different task)
//! `TASK_SWITCH_TASK_RESUME` → [`EventKind::Switch`], closing any handler still open (the
//! recorder writes no separate ISR end when the handler returns to a task); `TASK_READY` →
//! [`EventKind::Ready`]; `TASK_DELAY`, `TASK_DELAY_UNTIL`, blocking on a queue, semaphore,
//! mutex, event group, message buffer or notification (the running task) and
//! `TASK_SUSPEND`, `TASK_DELETE` (the task named) → [`EventKind::Block`];
//! `TASK_SWITCH_ISR_BEGIN` → [`EventKind::IsrEnter`], `TASK_SWITCH_ISR_RESUME` → the exit of
//! the nested handler. A handler named `SysTick` (or `tick`, `OS tick`) is the kernel
//! tick; a task whose name starts with `IDLE` is idle. Priorities come from the task
//! events (create, ready, priority change). Times: the recorder's 32-bit timestamps,
//! unwrapped as the crate's `StreamingInstant` does, are ticks of the recorder's timer
//! since its zero; they become picoseconds with integer arithmetic (rounded to the nearest
//! picosecond) at the frequency the recording states (`clock_hz`). Every event carries a
//! 16-bit count that the recorder advances even when its buffer has no room for the event,
//! so a jump in the count (the crate's `TrackingEventCounter`) is a [`LostEvents`] window
//! between the events on either side; a RingBuffer dump whose buffer is full (stop-when-
//! full mode) or whose dropped counter is set says events were lost after its last one.

use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::events::{Actor, ActorKind, Event, EventKind, EventTrace, LostEvents};
use latscope_core::time::Picos;
use std::collections::HashMap;
use std::io::{Cursor, Read, Seek};
use std::num::NonZeroU32;
use trace_recorder_parser::streaming::event::{Event as TrcEvent, EventType, TrackingEventCounter};
use trace_recorder_parser::streaming::{Error as TrcError, RecorderData};
use trace_recorder_parser::time::StreamingInstant;
use trace_recorder_parser::types::ObjectHandle;

/// The PSF word as a little-endian target writes it (`0x50534600`), and as a big-endian one.
const PSF_LE: [u8; 4] = [0x00, 0x46, 0x53, 0x50];
const PSF_BE: [u8; 4] = [0x50, 0x53, 0x46, 0x00];
/// The RingBuffer stream port's start markers (trcStreamPort.c).
const RING_START: [u8; 12] = [
    0x05, 0x06, 0x07, 0x08, 0x75, 0x76, 0x77, 0x78, 0xF5, 0xF6, 0xF7, 0xF8,
];
/// PSF header (all supported versions) and timestamp information, in bytes.
const HEADER_BYTES: usize = 32;
const TIMESTAMP_INFO_BYTES: usize = 28;
/// `TraceEventBuffer_t` on a 32-bit target: ten words and the data pointer.
const EVENT_BUFFER_STRUCT_BYTES: usize = 44;
/// Event ids this importer reads, decoded by the crate (start, timestamp configuration,
/// names, priorities, ISR definition, task create, ready, ISR and task switches, the
/// blocking calls) or left generic by it (null, task delete, OS tick, delays, suspend).
const EVENT_ID_DEFINE_ISR: u16 = 0x07;
const KEPT_EVENT_IDS: [u16; 35] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x10, 0x20, 0x30, 0x31, 0x33, 0x34, 0x35, 0x36,
    0x37, 0x79, 0x7A, 0x7B, // delays, suspend
    0x56, 0x66, 0x76, 0xC2, // queue send, receive, peek, send-front blocks
    0x58, 0x68, 0xF6, // mutex give, take, recursive take blocks
    0x57, 0x67, 0x77, // semaphore give, take, peek blocks
    0xB6, 0xB7, // event group sync, wait-bits blocks
    0xDF, 0xE2, // message buffer send, receive blocks
    0xCB, // task notification wait block
];
/// An id no event type uses: the crate returns such events undecoded.
const GENERIC_EVENT_ID: u16 = 0x0FFF;
/// `TRC_EVENT_BUFFER_OPTION_SKIP`: the buffer stops taking events when full.
const EVENT_BUFFER_OPTION_SKIP: u32 = 0;
/// Room the largest fixed-size event needs (header, timestamp, 15 parameters) plus the word
/// the buffer keeps free: less than this left means a stop-when-full buffer was full.
const FULL_MARGIN: u64 = 8 + 15 * 4 + 4;
/// Sanity bounds on the entry table's declared shape (the recorder's defaults are 28-byte
/// symbols and 3 states; these are far above any real configuration).
const MAX_SYMBOL_BYTES: u64 = 4096;
const MAX_STATES: u64 = 64;
/// Largest recording read (the whole file is held in memory).
const MAX_FILE_BYTES: u64 = 1 << 30;

/// True when the first bytes are a PSF stream (either byte order) or a RingBuffer dump
/// (start markers followed by the PSF word).
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(&PSF_LE) || head.starts_with(&PSF_BE) || find_ring(head).is_some()
}

/// Offset of the PSF word that follows the RingBuffer start markers.
fn find_ring(b: &[u8]) -> Option<usize> {
    b.windows(RING_START.len() + 4)
        .position(|w| w[..12] == RING_START && (w[12..] == PSF_LE || w[12..] == PSF_BE))
        .map(|p| p + RING_START.len())
}

/// The stream handed to the decoder, as pieces of the file (for byte offsets in errors).
struct Stream {
    bytes: Vec<u8>,
    /// Where the events start in `bytes` (after the entry table), and the byte order.
    events_at: usize,
    big: bool,
    /// (offset in `bytes`, offset in the file, length), in order.
    pieces: Vec<(usize, usize, usize)>,
    /// A RingBuffer dump: its dropped counter and whether the buffer was full.
    ring: Option<RingState>,
}

struct RingState {
    dropped: u32,
    full: bool,
}

impl Stream {
    /// Guards the decoder: walks the event records (a 16-bit code whose top four bits
    /// count the 32-bit parameters, a 16-bit count, a 32-bit timestamp, the parameters)
    /// and renames every event type this importer does not use to an id the crate decodes
    /// generically (same size, count and timestamp, so lost-event counting is unchanged).
    /// The crate's own decoders of those types (user events with format strings, among
    /// others) and of an ISR definition with fewer than two parameters can underflow a
    /// length and allocate without bound on corrupt input, which no error or
    /// `catch_unwind` can stop; those records never reach them.
    fn neutralise(&mut self, name: &str) -> Result<()> {
        let mut at = self.events_at;
        while at + 8 <= self.bytes.len() {
            let word = &self.bytes[at..at + 4];
            if word == PSF_LE || word == PSF_BE {
                break; // a restarted recording: the decoder says so
            }
            let code = u16_at(&self.bytes, at, self.big).unwrap_or(0);
            let params = usize::from(code >> 12);
            let id = code & 0x0FFF;
            if id == EVENT_ID_DEFINE_ISR && params < 2 {
                return Err(Error::format(
                    name,
                    Place::Byte(self.file_offset(at as u64)),
                    format!("ISR definition with {params} parameters (at least 2)"),
                ));
            }
            if !KEPT_EVENT_IDS.contains(&id) {
                let new = (code & 0xF000) | GENERIC_EVENT_ID;
                let b = if self.big {
                    new.to_be_bytes()
                } else {
                    new.to_le_bytes()
                };
                self.bytes[at..at + 2].copy_from_slice(&b);
            }
            at += 8 + 4 * params;
        }
        Ok(())
    }

    /// The file offset of a stream offset.
    fn file_offset(&self, at: u64) -> u64 {
        let at = usize::try_from(at).unwrap_or(usize::MAX);
        for &(s, f, len) in &self.pieces {
            if at >= s && at - s <= len {
                return (f + (at - s)) as u64;
            }
        }
        self.pieces
            .last()
            .map(|&(_, f, len)| (f + len) as u64)
            .unwrap_or(0)
    }
}

fn u32_at(b: &[u8], at: usize, big: bool) -> Option<u32> {
    let w: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(if big {
        u32::from_be_bytes(w)
    } else {
        u32::from_le_bytes(w)
    })
}

fn u16_at(b: &[u8], at: usize, big: bool) -> Option<u16> {
    let w: [u8; 2] = b.get(at..at.checked_add(2)?)?.try_into().ok()?;
    Some(if big {
        u16::from_be_bytes(w)
    } else {
        u16::from_le_bytes(w)
    })
}

/// Checks the header and the entry table's declared shape against the file (the decoder
/// allocates what the table declares) and returns where the entry table ends.
fn check_meta(b: &[u8], psf: usize, name: &str) -> Result<(usize, bool)> {
    let big = b.get(psf..psf + 4) == Some(&PSF_BE[..]);
    let short = |what: &str, at: usize| {
        Error::format(
            name,
            Place::Byte(at as u64),
            format!("truncated: the file ends inside the {what}"),
        )
    };
    let version = u16_at(b, psf + 4, big).ok_or_else(|| short("PSF header", psf))?;
    if version != 10 && !(12..=14).contains(&version) {
        return Err(Error::format(
            name,
            Place::Byte(psf as u64 + 4),
            format!(
                "PSF format version {version}; latscope reads TraceRecorder streaming \
                 versions 10 and 12-14"
            ),
        ));
    }
    let table = psf + HEADER_BYTES + TIMESTAMP_INFO_BYTES;
    let (n, sym, states) = match (
        u32_at(b, table, big),
        u32_at(b, table + 4, big),
        u32_at(b, table + 8, big),
    ) {
        (Some(n), Some(s), Some(k)) => (u64::from(n), u64::from(s), u64::from(k)),
        _ => return Err(short("header or entry table", b.len())),
    };
    if sym == 0 || sym > MAX_SYMBOL_BYTES || !(3..=MAX_STATES).contains(&states) {
        return Err(Error::format(
            name,
            Place::Byte(table as u64 + 4),
            format!(
                "entry table declares {sym}-byte symbols and {states} states per entry \
                 (expected 1-{MAX_SYMBOL_BYTES} and 3-{MAX_STATES})"
            ),
        ));
    }
    let entry = 4 + 4 * states + 4 + sym;
    let end = n
        .checked_mul(entry)
        .and_then(|t| t.checked_add(table as u64 + 12))
        .filter(|&e| e <= b.len() as u64)
        .ok_or_else(|| {
            Error::format(
                name,
                Place::Byte(table as u64),
                format!(
                    "entry table declares {n} entries of {entry} bytes, past the end of the \
                     file ({} bytes)",
                    b.len()
                ),
            )
        })?;
    Ok((end as usize, big))
}

/// A RingBuffer dump → the PSF stream it holds (header to entry table, then the events from
/// tail to head).
fn ring_stream(b: &[u8], psf: usize, name: &str) -> Result<Stream> {
    let (meta_end, big) = check_meta(b, psf, name)?;
    let cores = u32_at(b, psf + 12, big).unwrap_or(0) & 0xFF;
    if cores != 1 {
        return Err(Error::format(
            name,
            Place::Byte(psf as u64 + 12),
            format!(
                "RingBuffer dump of {cores} cores; latscope reads single-core dumps (record \
                 per core, or stream through RTT)"
            ),
        ));
    }
    let bad = |at: usize, msg: String| Error::format(name, Place::Byte(at as u64), msg);
    let st = meta_end + 4;
    let word = |i: usize| {
        u32_at(b, st + 4 * i, big).ok_or_else(|| {
            bad(
                st,
                "truncated: the file ends inside the RingBuffer's event buffer header".into(),
            )
        })
    };
    let (head, tail, size, options, dropped, slack) =
        (word(0)?, word(1)?, word(2)?, word(3)?, word(4)?, word(6)?);
    let (head, tail, size, slack) = (head as usize, tail as usize, size as usize, slack as usize);
    let data = st + EVENT_BUFFER_STRUCT_BYTES;
    if data.checked_add(size).is_none_or(|e| e > b.len()) {
        return Err(bad(
            st + 8,
            format!(
                "RingBuffer event buffer of {size} bytes runs past the end of the file ({} \
                 bytes)",
                b.len()
            ),
        ));
    }
    if head > size || tail > size || slack > size || (head < tail && tail > size - slack) {
        return Err(bad(
            st,
            format!(
                "RingBuffer head {head}, tail {tail}, slack {slack} do not fit its {size}-byte \
                 buffer"
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta_end - psf + size);
    let mut pieces = Vec::new();
    let mut add = |from: usize, to: usize, bytes: &mut Vec<u8>| {
        pieces.push((bytes.len(), from, to - from));
        bytes.extend_from_slice(&b[from..to]);
    };
    add(psf, meta_end, &mut bytes);
    let free = if head >= tail {
        add(data + tail, data + head, &mut bytes);
        size - head + tail
    } else {
        // Wrapped (overwrite mode): tail up to the unused slack at the end, then the start.
        add(data + tail, data + size - slack, &mut bytes);
        add(data, data + head, &mut bytes);
        tail - head
    };
    let events_at = meta_end - psf;
    Ok(Stream {
        bytes,
        events_at,
        big,
        pieces,
        ring: Some(RingState {
            dropped,
            // Only a stop-when-full buffer (option 0, "skip") loses the newest events; one
            // that overwrites when full keeps them and starts later instead.
            full: options == EVENT_BUFFER_OPTION_SKIP && (free as u64) < FULL_MARGIN,
        }),
    })
}

/// The file as the decoder's stream: a PSF stream as it is, a RingBuffer dump cut.
fn stream(b: Vec<u8>, name: &str) -> Result<Stream> {
    if b.starts_with(&PSF_LE) || b.starts_with(&PSF_BE) {
        let (events_at, big) = check_meta(&b, 0, name)?;
        let len = b.len();
        return Ok(Stream {
            bytes: b,
            events_at,
            big,
            pieces: vec![(0, 0, len)],
            ring: None,
        });
    }
    match find_ring(&b) {
        Some(psf) => ring_stream(&b, psf, name),
        None => Err(Error::format(
            name,
            Place::Byte(0),
            "not a Percepio TraceRecorder recording: no PSF header at the start and no \
             RingBuffer start markers",
        )),
    }
}

/// Reads a whole recording.
pub fn read<R: Read + Seek>(r: R, name: &str, _opts: &Options) -> Result<EventTrace> {
    let mut b = Vec::new();
    r.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut b)
        .map_err(|e| Error::io(name, e))?;
    if b.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::format(
            name,
            Place::File,
            format!("larger than {MAX_FILE_BYTES} bytes; latscope reads recordings up to that"),
        ));
    }
    let mut s = stream(b, name)?;
    s.neutralise(name)?;
    // Last resort: the decoder is a third-party crate; the checks above keep its
    // allocations within the file, and a panic it might still raise on a hostile recording
    // becomes an error naming the file instead of taking the caller down.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(&s, name))) {
        Ok(r) => r,
        Err(_) => Err(Error::format(
            name,
            Place::File,
            "the TraceRecorder decoder failed on this recording (corrupt data)",
        )),
    }
}

/// Builds the model while the decoder walks the events.
struct Builder {
    actors: Vec<Actor>,
    by_handle: HashMap<(bool, u32), u32>,
    events: Vec<Event>,
    lost: Vec<LostEvents>,
    running: Option<u32>,
    isr_stack: Vec<u32>,
}

fn handle_id(h: ObjectHandle) -> u32 {
    NonZeroU32::from(h).get()
}

fn is_tick_name(n: &str) -> bool {
    let l = n.trim().to_ascii_lowercase();
    l == "systick" || l == "tick" || l == "os tick" || l == "ostick" || l.contains("systick")
}

impl Builder {
    /// The actor for a task (`isr` false) or ISR handle, created on first sight.
    fn actor(&mut self, isr: bool, id: u32, name: &str, priority: Option<i64>) -> u32 {
        if let Some(&a) = self.by_handle.get(&(isr, id)) {
            return a;
        }
        let name = if name.is_empty() {
            format!("{} 0x{id:08x}", if isr { "isr" } else { "task" })
        } else {
            name.to_string()
        };
        let kind = if isr {
            if is_tick_name(&name) {
                ActorKind::Tick
            } else {
                ActorKind::Isr
            }
        } else if name.starts_with("IDLE") {
            ActorKind::Idle
        } else {
            ActorKind::Task
        };
        let a = self.actors.len() as u32;
        self.actors.push(Actor {
            name,
            kind,
            priority,
            id: u64::from(id),
        });
        self.by_handle.insert((isr, id), a);
        a
    }

    fn push(&mut self, t: Picos, kind: EventKind) {
        self.events.push(Event { t, cpu: 0, kind });
    }

    /// Handlers still open when a task runs again have returned.
    fn close_isrs(&mut self, t: Picos) {
        while let Some(i) = self.isr_stack.pop() {
            self.push(t, EventKind::IsrExit(i));
        }
    }

    fn switch(&mut self, t: Picos, a: u32, only_if_other: bool) {
        self.close_isrs(t);
        if !(only_if_other && self.running == Some(a)) {
            self.push(t, EventKind::Switch(a));
        }
        self.running = Some(a);
    }

    fn block_running(&mut self, t: Picos) {
        if let Some(a) = self.running {
            self.push(t, EventKind::Block(a));
        }
    }
}

/// Ticks of a `hz` clock → picoseconds, rounded to the nearest, exactly (integer arithmetic).
fn ticks_to_picos(ticks: u64, hz: u64) -> Option<Picos> {
    let ps = (u128::from(ticks) * 1_000_000_000_000 + u128::from(hz / 2)) / u128::from(hz);
    i64::try_from(ps).ok().map(Picos)
}

fn decode(s: &Stream, name: &str) -> Result<EventTrace> {
    let mut cur = Cursor::new(&s.bytes[..]);
    let at_err = |at: u64, msg: String| Error::format(name, Place::Byte(s.file_offset(at)), msg);
    let mut rd = RecorderData::read(&mut cur)
        .map_err(|e| at_err(cur.position(), format!("PSF header: {e}")))?;
    let mut hz = u64::from(rd.timestamp_info.timer_frequency.get_raw());
    let mut b = Builder {
        actors: Vec::new(),
        by_handle: HashMap::new(),
        events: Vec::new(),
        lost: Vec::new(),
        running: None,
        isr_stack: Vec::new(),
    };
    let mut clock = StreamingInstant::zero();
    let mut counter = TrackingEventCounter::zero();
    let mut first_count = true;
    let mut last_t: Option<Picos> = None;
    // The last OS tick the recording shows (tick count, timer ticks): dates the end of a
    // RingBuffer dump whose buffer filled up.
    let mut last_os_tick: Option<(u32, u64)> = None;
    let mut index = 0usize;
    loop {
        let at = cur.position();
        let (_, ev) = match rd.read_event(&mut cur) {
            Ok(Some(e)) => e,
            Ok(None) => {
                let left = s.bytes.len() as u64 - at.min(s.bytes.len() as u64);
                if left > 0 {
                    return Err(at_err(
                        at,
                        format!("truncated: {left} bytes of a partial event at the end"),
                    ));
                }
                break;
            }
            Err(TrcError::Io(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(at_err(
                    at,
                    format!("truncated: the file ends inside event {index}"),
                ))
            }
            Err(e) => return Err(at_err(at, format!("event {index}: {e}"))),
        };
        index += 1;
        if let TrcEvent::Unknown(be) = &ev {
            if be.code.event_type() == EventType::Null {
                continue; // padding
            }
        }
        if let TrcEvent::TsConfig(c) = &ev {
            if c.frequency.get_raw() != 0 {
                hz = u64::from(c.frequency.get_raw());
            }
        }
        if hz == 0 {
            return Err(at_err(
                at,
                "the recording states no timestamp frequency (0 Hz): its times cannot be \
                 converted"
                    .into(),
            ));
        }
        let ticks = clock.elapsed(ev.timestamp()).ticks();
        let t = ticks_to_picos(ticks, hz).ok_or_else(|| {
            at_err(
                at,
                format!("event {index}: timestamp {ticks} ticks is out of range"),
            )
        })?;
        if first_count {
            counter.set_initial_count(ev.event_count());
            first_count = false;
        } else if let Some(n) = counter.update(ev.event_count()) {
            b.lost.push(LostEvents::reported(n, last_t.unwrap_or(t), t));
        }
        last_t = Some(t);
        if let TrcEvent::Unknown(be) = &ev {
            if be.code.event_type() == EventType::Unknown(PSF_EVENT_NEW_TIME.into()) {
                if let Some(&k) = be.parameters().first() {
                    last_os_tick = Some((k, ticks));
                }
            }
        }
        map_event(&mut b, t, &ev);
    }
    let mut end = last_t;
    if let (Some(ring), Some(t)) = (&s.ring, last_t) {
        let counted: u64 = b.lost.iter().map(|l| l.count).sum();
        if u64::from(ring.dropped) > counted || ring.full {
            // Lost after the last event kept: the count is the recorder's (0 = unknown);
            // the window runs to the OS tick the live timestamp information had reached
            // when the memory was dumped (the recorder counts ticks even when it has no
            // room for their events), dated from the last tick event kept.
            let ts = &rd.timestamp_info;
            let rate = u64::from(ts.os_tick_rate_hz.get_raw());
            let to = last_os_tick
                .filter(|&(k, _)| rate > 0 && ts.os_tick_count > k)
                .and_then(|(k, at)| {
                    let more = u64::from(ts.os_tick_count - k).checked_mul(hz)? / rate;
                    ticks_to_picos(at.checked_add(more)?, hz)
                })
                .filter(|&to| to > t)
                .unwrap_or(t);
            b.lost.push(LostEvents::reported(
                u64::from(ring.dropped).saturating_sub(counted),
                t,
                to,
            ));
            end = Some(to);
        }
    }
    let start = b.events.first().map(|e| e.t).unwrap_or(Picos(0));
    let end = end.unwrap_or(start).max(start);
    Ok(EventTrace {
        source: name.to_string(),
        format: "tracerecorder".into(),
        clock_hz: Some(hz),
        start,
        end,
        cpus: 1,
        actors: b.actors,
        events: b.events,
        lost: b.lost,
    })
}

/// One decoded event → model events.
fn map_event(b: &mut Builder, t: Picos, ev: &TrcEvent) {
    let prio = |p: trace_recorder_parser::types::Priority| Some(i64::from(u32::from(p)));
    match ev {
        TrcEvent::TaskCreate(e) | TrcEvent::TaskPriority(e) => {
            let a = b.actor(false, handle_id(e.handle), &e.name, prio(e.priority));
            b.actors[a as usize].priority = prio(e.priority);
        }
        TrcEvent::TaskReady(e) => {
            let a = b.actor(false, handle_id(e.handle), &e.name, prio(e.priority));
            b.push(t, EventKind::Ready(a));
        }
        TrcEvent::TaskBegin(e) | TrcEvent::TaskActivate(e) => {
            let a = b.actor(false, handle_id(e.handle), &e.name, prio(e.priority));
            b.switch(t, a, false);
        }
        TrcEvent::TaskResume(e) => {
            let a = b.actor(false, handle_id(e.handle), &e.name, prio(e.priority));
            b.switch(t, a, true);
        }
        TrcEvent::IsrBegin(e) => {
            let a = b.actor(true, handle_id(e.handle), &e.name, prio(e.priority));
            b.push(t, EventKind::IsrEnter(a));
            b.isr_stack.push(a);
        }
        TrcEvent::IsrResume(_) => {
            // Back in the interrupted handler: the nested one has ended.
            if let Some(i) = b.isr_stack.pop() {
                b.push(t, EventKind::IsrExit(i));
            }
        }
        TrcEvent::IsrDefine(e) => {
            b.actor(true, handle_id(e.handle), &e.name, prio(e.priority));
        }
        TrcEvent::QueueSendBlock(_)
        | TrcEvent::QueueReceiveBlock(_)
        | TrcEvent::QueuePeekBlock(_)
        | TrcEvent::QueueSendFrontBlock(_)
        | TrcEvent::MutexGiveBlock(_)
        | TrcEvent::MutexTakeBlock(_)
        | TrcEvent::MutexTakeRecursiveBlock(_)
        | TrcEvent::SemaphoreGiveBlock(_)
        | TrcEvent::SemaphoreTakeBlock(_)
        | TrcEvent::SemaphorePeekBlock(_)
        | TrcEvent::EventGroupSyncBlock(_)
        | TrcEvent::EventGroupWaitBitsBlock(_)
        | TrcEvent::MessageBufferSendBlock(_)
        | TrcEvent::MessageBufferReceiveBlock(_)
        | TrcEvent::TaskNotifyWaitBlock(_) => b.block_running(t),
        TrcEvent::Unknown(be) => match be.code.event_type() {
            EventType::TaskDelay | EventType::TaskDelayUntil => b.block_running(t),
            EventType::TaskSuspend => {
                // The task named leaves the ready state (it may be another than the
                // running one); an unknown handle names nothing here.
                if let Some(&a) = be
                    .parameters()
                    .first()
                    .and_then(|&h| b.by_handle.get(&(false, h)))
                {
                    b.push(t, EventKind::Block(a));
                }
            }
            EventType::Unknown(id) if u16::from(id) == PSF_EVENT_TASK_DELETE => {
                if let Some(&a) = be
                    .parameters()
                    .first()
                    .and_then(|&h| b.by_handle.get(&(false, h)))
                {
                    b.push(t, EventKind::Block(a));
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// `PSF_EVENT_TASK_DELETE` and `PSF_EVENT_NEW_TIME` (the OS tick, with the tick count) of
/// the FreeRTOS kernel port, which the crate leaves undecoded.
const PSF_EVENT_TASK_DELETE: u16 = 0x20;
const PSF_EVENT_NEW_TIME: u16 = 0x31;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_both_byte_orders_and_ring_dumps() {
        assert!(sniff(&[0x00, 0x46, 0x53, 0x50, 14, 0]));
        assert!(sniff(b"PSF\0\0\x0e"));
        let mut dump = vec![0u8; 4];
        dump.extend_from_slice(&RING_START);
        dump.extend_from_slice(&PSF_LE);
        assert!(sniff(&dump));
        assert!(!sniff(b"PSX\0"));
        assert!(!sniff(&RING_START));
    }

    #[test]
    fn tick_conversion_is_exact_and_rounds() {
        // 84 MHz: one tick is 11904.76 ps.
        assert_eq!(
            ticks_to_picos(84_000_000, 84_000_000),
            Some(Picos(1_000_000_000_000))
        );
        assert_eq!(ticks_to_picos(1, 84_000_000), Some(Picos(11_905)));
        assert_eq!(ticks_to_picos(u64::MAX, 1), None);
    }
}
