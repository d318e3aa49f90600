//! The SystemView packet stream: what SEGGER's target code (`SEGGER_SYSVIEW.c`, the
//! encoder this decoder is written against) puts into its RTT channel, one packet at a
//! time.
//!
//! A packet is an event id, for ids 24 and above a payload length, the parameters, and
//! the time since the previous packet that reached the buffer. Ids, lengths, parameters and
//! time deltas are unsigned variable-length integers: seven bits a byte, least significant
//! group first, the top bit set on every byte but the last (at most five bytes for 32
//! bits). Strings are a length byte (255: a 16-bit length follows, high byte first, as
//! `_EncodeStr` writes it) and the bytes. Ids below 24 have no length: their parameters
//! are fixed by the id, so the decoder must know every one of them; ids from 24 on carry
//! their length, so an id this decoder does not know (module events from 512 on, user
//! events, newer system events) is skipped by its length, never guessed.

use std::io::{self, BufRead, Read};

/// Event ids of `SEGGER_SYSVIEW.h`.
pub mod id {
    pub const NOP: u32 = 0;
    pub const OVERFLOW: u32 = 1;
    pub const ISR_ENTER: u32 = 2;
    pub const ISR_EXIT: u32 = 3;
    pub const TASK_START_EXEC: u32 = 4;
    pub const TASK_STOP_EXEC: u32 = 5;
    pub const TASK_START_READY: u32 = 6;
    pub const TASK_STOP_READY: u32 = 7;
    pub const TASK_CREATE: u32 = 8;
    pub const TASK_INFO: u32 = 9;
    pub const TRACE_START: u32 = 10;
    pub const TRACE_STOP: u32 = 11;
    pub const SYSTIME_CYCLES: u32 = 12;
    pub const SYSTIME_US: u32 = 13;
    pub const SYSDESC: u32 = 14;
    pub const MARK_START: u32 = 15;
    pub const MARK_STOP: u32 = 16;
    pub const IDLE: u32 = 17;
    pub const ISR_TO_SCHEDULER: u32 = 18;
    pub const TIMER_ENTER: u32 = 19;
    pub const TIMER_EXIT: u32 = 20;
    pub const STACK_INFO: u32 = 21;
    pub const MODULEDESC: u32 = 22;
    pub const DATA_SAMPLE: u32 = 23;
    /// The first id whose packets carry a payload length.
    pub const FIRST_WITH_LENGTH: u32 = 24;
    pub const INIT: u32 = 24;
    pub const NAME_RESOURCE: u32 = 25;
    pub const PRINT_FORMATTED: u32 = 26;
    pub const NUMMODULES: u32 = 27;
    pub const END_CALL: u32 = 28;
    pub const TASK_TERMINATE: u32 = 29;
    pub const EX: u32 = 31;
}

/// The largest payload a known length-carrying packet can have: SystemView's largest
/// packet is a string of at most 65,535 bytes plus a few integers. A longer declared
/// length on such a packet is corruption, refused before anything is read.
const MAX_KNOWN_PAYLOAD: u64 = 65_535 + 3 + 16 * 5;

/// One decoded packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Byte offset of the packet's first byte in the file.
    pub offset: u64,
    /// Recorder clock ticks since the previous packet that reached the buffer.
    pub delta: u32,
    pub kind: Kind,
}

/// What a packet says (the parameters of the events latscope uses; the others are
/// decoded to stay in step and kept only as their id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Packets were dropped: the target's cumulative count of failed overflow-packet
    /// attempts (see `super` for what that means in lost packets).
    Overflow {
        drop_count: u32,
    },
    IsrEnter {
        irq: u32,
    },
    /// ISR_EXIT and ISR_TO_SCHEDULER (an exit that also asks for a task switch).
    IsrExit,
    TaskStartExec {
        task: u32,
    },
    TaskStopExec,
    TaskStartReady {
        task: u32,
    },
    TaskStopReady {
        task: u32,
        cause: u32,
    },
    TaskCreate {
        task: u32,
    },
    TaskTerminate {
        task: u32,
    },
    TaskInfo {
        task: u32,
        prio: u32,
        name: String,
    },
    TraceStart,
    TraceStop,
    /// The target's clock (the timestamp counter) when the packet was made.
    SystimeCycles {
        cycles: u32,
    },
    SystimeUs {
        us: u64,
    },
    SysDesc {
        text: String,
    },
    Idle,
    /// INIT: the recorder's timestamp frequency, CPU frequency, the RAM base and shift
    /// that shrink ids (task id on the wire = (address - ram_base) >> id_shift).
    Init {
        sys_freq: u32,
        cpu_freq: u32,
        ram_base: u32,
        id_shift: u32,
    },
    /// Any other packet (NOP, marks, timers, stack info, prints, module and user events).
    Other {
        id: u32,
    },
}

/// Why decoding stopped.
#[derive(Debug)]
pub enum DecodeError {
    Io(io::Error),
    /// The packet at `offset` is incomplete: the file ends inside it.
    Truncated {
        offset: u64,
        what: String,
    },
    /// The bytes at `offset` cannot be a packet.
    Corrupt {
        offset: u64,
        what: String,
    },
}

/// Reads packets one at a time from a buffered reader, counting bytes.
pub struct Decoder<R> {
    r: R,
    /// Offset of the next unread byte (from the start of the file).
    pos: u64,
}

/// A cursor over a packet's payload (ids from 24 on), with the payload's file offset for
/// messages.
struct Payload<'a> {
    b: &'a [u8],
    at: usize,
}

impl<R: BufRead> Decoder<R> {
    /// `pos`: the file offset of the reader's first byte (after a text header).
    pub fn new(r: R, pos: u64) -> Self {
        Decoder { r, pos }
    }

    /// The offset of the next byte to be decoded.
    pub fn position(&self) -> u64 {
        self.pos
    }

    fn byte(&mut self) -> Result<Option<u8>, DecodeError> {
        let b = loop {
            match self.r.fill_buf() {
                Ok(buf) => break buf.first().copied(),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(DecodeError::Io(e)),
            }
        };
        if b.is_some() {
            self.r.consume(1);
            self.pos += 1;
        }
        Ok(b)
    }

    /// A byte inside the packet that started at `start`: the end of the file here is a
    /// truncation.
    fn need(&mut self, start: u64, what: &str) -> Result<u8, DecodeError> {
        self.byte()?.ok_or_else(|| DecodeError::Truncated {
            offset: start,
            what: format!("the file ends inside {what}"),
        })
    }

    fn varint(&mut self, start: u64, what: &str) -> Result<u32, DecodeError> {
        let at = self.pos;
        let mut v: u64 = 0;
        for i in 0..5 {
            let b = self.need(start, what)?;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(v).map_err(|_| DecodeError::Corrupt {
                    offset: at,
                    what: format!("{what}: a variable-length integer above 32 bits"),
                });
            }
        }
        Err(DecodeError::Corrupt {
            offset: at,
            what: format!("{what}: a variable-length integer longer than 5 bytes"),
        })
    }

    fn string(&mut self, start: u64, what: &str) -> Result<String, DecodeError> {
        let mut n = usize::from(self.need(start, what)?);
        if n == 255 {
            let hi = usize::from(self.need(start, what)?);
            let lo = usize::from(self.need(start, what)?);
            n = hi << 8 | lo;
        }
        // At most 65,535 bytes: the allocation is bounded whatever the input says.
        let mut s = Vec::with_capacity(n.min(4096));
        let got = (&mut self.r)
            .take(n as u64)
            .read_to_end(&mut s)
            .map_err(DecodeError::Io)?;
        self.pos += got as u64;
        if got < n {
            return Err(DecodeError::Truncated {
                offset: start,
                what: format!("the file ends inside {what} ({got} of {n} string bytes)"),
            });
        }
        Ok(String::from_utf8_lossy(&s).into_owned())
    }

    /// The next packet, or None at a clean end of the stream (between packets).
    pub fn next_packet(&mut self) -> Result<Option<Packet>, DecodeError> {
        let start = self.pos;
        // The event id: the first byte decides whether there is a packet at all.
        let first = match self.byte()? {
            None => return Ok(None),
            Some(b) => b,
        };
        let event = if first & 0x80 == 0 {
            u32::from(first)
        } else {
            let mut v = u64::from(first & 0x7f);
            let mut done = false;
            for i in 1..5 {
                let b = self.need(start, "an event id")?;
                v |= u64::from(b & 0x7f) << (7 * i);
                if b & 0x80 == 0 {
                    done = true;
                    break;
                }
            }
            match (done, u32::try_from(v)) {
                (true, Ok(v)) => v,
                _ => {
                    return Err(DecodeError::Corrupt {
                        offset: start,
                        what: "an event id longer than 32 bits".into(),
                    })
                }
            }
        };
        let kind = if event < id::FIRST_WITH_LENGTH {
            self.fixed(event, start)?
        } else {
            self.with_length(event, start)?
        };
        let delta = self.varint(start, &format!("the timestamp of event {event}"))?;
        Ok(Some(Packet {
            offset: start,
            delta,
            kind,
        }))
    }

    /// Ids below 24: parameters fixed by the id (`SEGGER_SYSVIEW.c`'s record functions).
    fn fixed(&mut self, event: u32, start: u64) -> Result<Kind, DecodeError> {
        let name = event_name(event);
        let u = |d: &mut Self| d.varint(start, name);
        Ok(match event {
            id::NOP => Kind::Other { id: event },
            id::OVERFLOW => Kind::Overflow {
                drop_count: u(self)?,
            },
            id::ISR_ENTER => Kind::IsrEnter { irq: u(self)? },
            id::ISR_EXIT | id::ISR_TO_SCHEDULER => Kind::IsrExit,
            id::TASK_START_EXEC => Kind::TaskStartExec { task: u(self)? },
            id::TASK_STOP_EXEC => Kind::TaskStopExec,
            id::TASK_START_READY => Kind::TaskStartReady { task: u(self)? },
            id::TASK_STOP_READY => {
                let task = u(self)?;
                Kind::TaskStopReady {
                    task,
                    cause: u(self)?,
                }
            }
            id::TASK_CREATE => Kind::TaskCreate { task: u(self)? },
            id::TASK_INFO => {
                let task = u(self)?;
                let prio = u(self)?;
                let name = self.string(start, name)?;
                Kind::TaskInfo { task, prio, name }
            }
            id::TRACE_START => Kind::TraceStart,
            id::TRACE_STOP => Kind::TraceStop,
            id::SYSTIME_CYCLES => Kind::SystimeCycles { cycles: u(self)? },
            id::SYSTIME_US => {
                let lo = u64::from(u(self)?);
                let hi = u64::from(u(self)?);
                Kind::SystimeUs { us: hi << 32 | lo }
            }
            id::SYSDESC => Kind::SysDesc {
                text: self.string(start, name)?,
            },
            id::MARK_START | id::MARK_STOP | id::TIMER_ENTER => {
                u(self)?;
                Kind::Other { id: event }
            }
            id::IDLE => Kind::Idle,
            id::TIMER_EXIT => Kind::Other { id: event },
            id::STACK_INFO => {
                for _ in 0..4 {
                    u(self)?;
                }
                Kind::Other { id: event }
            }
            id::MODULEDESC => {
                u(self)?;
                u(self)?;
                self.string(start, name)?;
                Kind::Other { id: event }
            }
            // DATA_SAMPLE: an id and a value (a float's bits, varint-encoded).
            _ => {
                u(self)?;
                u(self)?;
                Kind::Other { id: event }
            }
        })
    }

    /// Ids from 24 on: a length, then that many payload bytes.
    fn with_length(&mut self, event: u32, start: u64) -> Result<Kind, DecodeError> {
        let name = event_name(event);
        let len = u64::from(self.varint(start, name)?);
        let known = matches!(
            event,
            id::INIT
                | id::NAME_RESOURCE
                | id::PRINT_FORMATTED
                | id::NUMMODULES
                | id::END_CALL
                | id::TASK_TERMINATE
        );
        if !known {
            // Skipped by its length: nothing is kept, so nothing is allocated.
            let got =
                io::copy(&mut (&mut self.r).take(len), &mut io::sink()).map_err(DecodeError::Io)?;
            self.pos += got;
            if got < len {
                return Err(DecodeError::Truncated {
                    offset: start,
                    what: format!(
                        "the file ends inside the {len}-byte payload of {name} ({got} bytes \
                         left)"
                    ),
                });
            }
            return Ok(Kind::Other { id: event });
        }
        if len > MAX_KNOWN_PAYLOAD {
            return Err(DecodeError::Corrupt {
                offset: start,
                what: format!("{name} declares a {len}-byte payload; SystemView writes at most {MAX_KNOWN_PAYLOAD}"),
            });
        }
        let payload_at = self.pos;
        let mut b = Vec::with_capacity(len as usize);
        let got = (&mut self.r)
            .take(len)
            .read_to_end(&mut b)
            .map_err(DecodeError::Io)?;
        self.pos += got as u64;
        if (got as u64) < len {
            return Err(DecodeError::Truncated {
                offset: start,
                what: format!(
                    "the file ends inside the {len}-byte payload of {name} ({got} bytes left)"
                ),
            });
        }
        let mut p = Payload { b: &b, at: 0 };
        let bad = |what: &str| DecodeError::Corrupt {
            offset: payload_at,
            what: format!("{name}: {what} past its {len}-byte payload"),
        };
        Ok(match event {
            id::INIT => {
                let sys_freq = p.varint().ok_or_else(|| bad("SysFreq"))?;
                let cpu_freq = p.varint().ok_or_else(|| bad("CPUFreq"))?;
                let ram_base = p.varint().ok_or_else(|| bad("RAMBase"))?;
                let id_shift = p.varint().ok_or_else(|| bad("id shift"))?;
                Kind::Init {
                    sys_freq,
                    cpu_freq,
                    ram_base,
                    id_shift,
                }
            }
            id::TASK_TERMINATE => Kind::TaskTerminate {
                task: p.varint().ok_or_else(|| bad("the task id"))?,
            },
            // NAME_RESOURCE, PRINT_FORMATTED, NUMMODULES, END_CALL: not used; their
            // payload was read whole, which keeps the stream in step.
            _ => Kind::Other { id: event },
        })
    }
}

impl Payload<'_> {
    fn varint(&mut self) -> Option<u32> {
        let mut v: u64 = 0;
        for i in 0..5 {
            let b = *self.b.get(self.at)?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(v).ok();
            }
        }
        None
    }
}

/// SEGGER's name of an event id, for messages.
pub fn event_name(event: u32) -> &'static str {
    const NAMES: [&str; 32] = [
        "NOP",
        "OVERFLOW",
        "ISR_ENTER",
        "ISR_EXIT",
        "TASK_START_EXEC",
        "TASK_STOP_EXEC",
        "TASK_START_READY",
        "TASK_STOP_READY",
        "TASK_CREATE",
        "TASK_INFO",
        "TRACE_START",
        "TRACE_STOP",
        "SYSTIME_CYCLES",
        "SYSTIME_US",
        "SYSDESC",
        "MARK_START",
        "MARK_STOP",
        "IDLE",
        "ISR_TO_SCHEDULER",
        "TIMER_ENTER",
        "TIMER_EXIT",
        "STACK_INFO",
        "MODULEDESC",
        "DATA_SAMPLE",
        "INIT",
        "NAME_RESOURCE",
        "PRINT_FORMATTED",
        "NUMMODULES",
        "END_CALL",
        "TASK_TERMINATE",
        "event 30",
        "EX",
    ];
    NAMES
        .get(event as usize)
        .copied()
        .unwrap_or("a module or user event")
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Encodes as `SEGGER_SYSVIEW.c`'s ENCODE_U32 does (written here for the tests; the
    /// mapping's tests use it too).
    pub(in crate::import::systemview) fn enc(mut v: u32, out: &mut Vec<u8>) {
        while v > 0x7f {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn decode_all(b: &[u8]) -> Result<Vec<Packet>, DecodeError> {
        let mut d = Decoder::new(b, 0);
        let mut v = Vec::new();
        while let Some(p) = d.next_packet()? {
            v.push(p);
        }
        Ok(v)
    }

    #[test]
    fn the_encoders_own_example_packets_decode() {
        // The example in SEGGER_SYSVIEW.c's header comment: an overflow packet (500
        // dropped, timestamp 0x40000), ISR 15 entered at +80, an ISR exit at +32.
        let b = [
            0x01, 0xF4, 0x03, 0x80, 0x80, 0x10, 0x02, 0x0F, 0x50, 0x03, 0x20,
        ];
        let p = decode_all(&b).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].kind, Kind::Overflow { drop_count: 500 });
        assert_eq!(p[0].delta, 0x40000);
        assert_eq!(p[1].kind, Kind::IsrEnter { irq: 15 });
        assert_eq!((p[1].offset, p[1].delta), (6, 80));
        assert_eq!(p[2].kind, Kind::IsrExit);
        assert_eq!(p[2].delta, 32);
    }

    #[test]
    fn long_ids_lengths_and_strings_round_trip() {
        let mut b = Vec::new();
        // A module event (id 600: two-byte id) with a 200-byte payload (two-byte length).
        enc(600, &mut b);
        enc(200, &mut b);
        b.extend(std::iter::repeat_n(0xAA, 200));
        enc(7, &mut b);
        // TASK_INFO with a 300-byte name (255, high, low).
        b.push(id::TASK_INFO as u8);
        enc(0x1234, &mut b);
        enc(3, &mut b);
        b.extend([255, 0x01, 0x2C]);
        b.extend(std::iter::repeat_n(b'x', 300));
        enc(u32::MAX, &mut b);
        let p = decode_all(&b).unwrap();
        assert_eq!(p[0].kind, Kind::Other { id: 600 });
        assert_eq!(p[0].delta, 7);
        match &p[1].kind {
            Kind::TaskInfo { task, prio, name } => {
                assert_eq!((*task, *prio, name.len()), (0x1234, 3, 300));
            }
            k => panic!("{k:?}"),
        }
        assert_eq!(p[1].delta, u32::MAX);
    }

    #[test]
    fn truncation_and_overlong_integers_are_errors_with_offsets() {
        // An ISR_ENTER cut after its id.
        assert!(matches!(
            decode_all(&[0x03, 0x01, 0x02]),
            Err(DecodeError::Truncated { offset: 2, .. })
        ));
        // A delta of six continuation bytes.
        assert!(matches!(
            decode_all(&[0x03, 0x81, 0x81, 0x81, 0x81, 0x81, 0x01]),
            Err(DecodeError::Corrupt { offset: 1, .. })
        ));
        // INIT declaring 100 bytes with 3 present.
        assert!(matches!(
            decode_all(&[24, 100, 1, 2, 3]),
            Err(DecodeError::Truncated { offset: 0, .. })
        ));
        // An unknown event declaring 4 GB: skipped by length, reported as truncated
        // without allocating it.
        assert!(matches!(
            decode_all(&[0x80, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 1]),
            Err(DecodeError::Truncated { offset: 0, .. })
        ));
        // INIT whose payload is shorter than its four fields.
        assert!(matches!(
            decode_all(&[24, 2, 1, 2, 0]),
            Err(DecodeError::Corrupt { offset: 2, .. })
        ));
    }
}
