//! Thread 0's string output in KernelPerf's test cases 3 to 8: a UART with a transmit
//! FIFO, drained at the baud rate, fed once per scheduler cycle by a cooperative thread
//! that either busy-waits for room (`UARTstr.PutString`) or suspends until the FIFO is
//! empty (`UARTkstr.PutString`).
//!
//! The model runs cycle by cycle: the scheduler runs at a tick (or late, when the
//! threads overran the tick), then thread 0 writes, then the other threads run their
//! work; the next scheduler run is at the first tick at or after the end of that work.

use latscope_core::Picos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PutString {
    /// Waits in a loop for room in the FIFO (the thread keeps the CPU).
    BusyWait,
    /// Writes what fits, then suspends until the FIFO-empty flag is set; the scheduler
    /// does not run the thread while the flag is clear.
    Suspend,
}

#[derive(Clone, Copy, Debug)]
pub struct Uart {
    pub baud: u64,
    /// Bits per character on the line (start + data + parity + stop).
    pub frame_bits: u64,
    pub fifo: u64,
}

impl Uart {
    /// Time to send one character.
    pub fn char_time(&self) -> Picos {
        Picos((self.frame_bits as i64 * 1_000_000_000_000) / self.baud.max(1) as i64)
    }
    /// Time to send `n` characters back to back.
    pub fn send_time(&self, n: u64) -> Picos {
        Picos(self.char_time().0.saturating_mul(n as i64))
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Cycle {
    pub tick: Picos,
    /// Scheduler run before the threads (status checks and insertions).
    pub scheduler: Picos,
    /// The other threads' work after thread 0, switches included.
    pub others: Picos,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub runs: u64,
    /// Longest time between two scheduler runs.
    pub max_interval: Picos,
    /// Mean time between scheduler runs.
    pub mean_interval: Picos,
    /// Scheduler runs in which thread 0 was suspended (no "green spike").
    pub thread0_skipped: u64,
    /// Strings completely written.
    pub strings: u64,
}

/// Runs `runs` scheduler cycles printing strings of `len` characters.
pub fn run(uart: &Uart, cyc: &Cycle, len: u64, mode: PutString, runs: u64) -> Outcome {
    let tau = uart.char_time().0.max(1);
    let tick = cyc.tick.0.max(1);
    // The FIFO empties at `fifo_empty_at`; at time t it holds ceil((empty_at - t) / tau).
    let mut fifo_empty_at: i64 = 0;
    let held =
        |empty_at: i64, t: i64| -> u64 { ((empty_at - t).max(0) + tau - 1) as u64 / tau as u64 };
    let mut t: i64 = 0;
    let mut left = len; // characters of the current string still to write
    let mut out = Outcome::default();
    let mut last_run: Option<i64> = None;
    let mut sum: i64 = 0;
    for _ in 0..runs {
        if let Some(prev) = last_run {
            let d = t - prev;
            sum += d;
            out.max_interval = Picos(out.max_interval.0.max(d));
        }
        last_run = Some(t);
        out.runs += 1;
        let mut now = t + cyc.scheduler.0;
        let ready = match mode {
            PutString::BusyWait => true,
            // Suspended until the FIFO-empty flag, checked by the scheduler's scan.
            PutString::Suspend => left == len || fifo_empty_at <= t,
        };
        if ready {
            let room = uart.fifo.saturating_sub(held(fifo_empty_at, now));
            let first = room.min(left);
            fifo_empty_at = fifo_empty_at.max(now) + first as i64 * tau;
            left -= first;
            if mode == PutString::BusyWait {
                // Each further character waits for one slot to free.
                while left > 0 {
                    let h = held(fifo_empty_at, now);
                    if h < uart.fifo {
                        fifo_empty_at = fifo_empty_at.max(now) + tau;
                        left -= 1;
                    } else {
                        // The next slot frees when the oldest character has gone.
                        now = fifo_empty_at - (uart.fifo as i64 - 1) * tau;
                    }
                }
            }
            if left == 0 {
                out.strings += 1;
                left = len;
            }
        } else {
            out.thread0_skipped += 1;
        }
        let end = now + cyc.others.0;
        // Next scheduler run: the first tick at or after the end of the threads' work.
        t = ((end + tick - 1) / tick).max(t / tick + 1) * tick;
    }
    if out.runs > 1 {
        out.mean_interval = Picos(sum / (out.runs as i64 - 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const UART: Uart = Uart {
        baud: 38_400,
        frame_bits: 10,
        fifo: 32,
    };
    fn cyc() -> Cycle {
        Cycle {
            tick: Picos::from_ms(8),
            scheduler: Picos::from_us(58),
            others: Picos::from_us(7_220),
        }
    }

    #[test]
    fn char_and_fifo_times() {
        assert_eq!(UART.char_time(), Picos(260_416_666));
        // 32 characters: 8.333 ms, the document's "about 8.3 ms".
        assert_eq!(UART.send_time(32).as_us_f64().round(), 8333.0);
    }

    #[test]
    fn busy_wait_stretches_only_when_the_string_does_not_fit() {
        let c = cyc();
        let fits = run(&UART, &c, 30, PutString::BusyWait, 50);
        assert_eq!(fits.max_interval, Picos::from_ms(8));
        assert_eq!(fits.strings, 50);
        let long = run(&UART, &c, 40, PutString::BusyWait, 50);
        assert!(long.max_interval > Picos::from_ms(8), "{long:?}");
        // The UART is the bottleneck: 40 characters every 10.4 ms at best.
        assert!(long.mean_interval >= UART.send_time(40), "{long:?}");
        assert_eq!(long.thread0_skipped, 0);
    }

    #[test]
    fn suspending_keeps_the_tick_and_skips_thread0() {
        let c = cyc();
        for len in [40, 50] {
            let s = run(&UART, &c, len, PutString::Suspend, 60);
            assert_eq!(s.max_interval, Picos::from_ms(8), "{len}: {s:?}");
            assert!(s.thread0_skipped > 0, "{len}: {s:?}");
        }
        let s = run(&UART, &c, 30, PutString::Suspend, 60);
        assert_eq!((s.max_interval, s.thread0_skipped), (Picos::from_ms(8), 0));
    }
}
