//! The kernel's timerlat tracer (`CONFIG_TIMERLAT_TRACER`; tracefs `available_tracers`
//! lists `timerlat`), used where present for the interrupt/thread split; the ordinary
//! tracepoints are the fallback.
//!
//! Format, as documented in the kernel's "Timerlat tracer" page
//! (Documentation/trace/timerlat-tracer.rst, <https://docs.kernel.org/trace/timerlat-tracer.html>):
//! each activation of the per-CPU timerlat thread prints two lines, first from the timer
//! interrupt, then from the thread, with the activation id and the latency from the
//! timer's expiry in ns:
//!
//! ```text
//!   <idle>-0     [000] d.h1    54.029328: #1     context    irq timer_latency       932 ns
//!    <...>-867   [000] ....    54.029339: #1     context thread timer_latency     11700 ns
//! ```
//!
//! (kernels with user-space timerlat add a third, `context user-ret`, ignored here).
//! latscope's split is the one it reports for its own samples: interrupt latency =
//! the irq line's value, thread latency = the thread line's value − the irq line's
//! (handler → thread running).

/// Where the interrupt/thread split of a run came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The timerlat tracer's own activations on the measured CPUs.
    Timerlat,
    /// hrtimer/irq/sched tracepoints matched to latscope's own samples.
    Tracepoints,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Timerlat => "timerlat",
            Source::Tracepoints => "tracepoints",
        }
    }
}

/// The source to use given the text of tracefs `available_tracers`.
pub fn choose(available_tracers: &str) -> Source {
    if available_tracers
        .split_whitespace()
        .any(|t| t == "timerlat")
    {
        Source::Timerlat
    } else {
        Source::Tracepoints
    }
}

/// Which line of an activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Irq,
    Thread,
    UserRet,
}

/// One timerlat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub cpu: u32,
    /// Trace clock time of the line (ns).
    pub ts: i64,
    pub id: u64,
    pub context: Context,
    /// From the timer's expiry (ns).
    pub latency_ns: i64,
}

/// Parses one timerlat line; None for anything else.
pub fn parse_record(line: &str) -> Option<Record> {
    let (cpu, ts, rest) = super::parse::split_prefix(line)?;
    let mut it = rest.split_whitespace();
    let id: u64 = it.next()?.strip_prefix('#')?.parse().ok()?;
    if it.next()? != "context" {
        return None;
    }
    let context = match it.next()? {
        "irq" => Context::Irq,
        "thread" => Context::Thread,
        "user-ret" => Context::UserRet,
        _ => return None,
    };
    if it.next()? != "timer_latency" {
        return None;
    }
    let latency_ns: i64 = it.next()?.parse().ok()?;
    if it.next()? != "ns" || latency_ns < 0 {
        return None;
    }
    Some(Record {
        cpu,
        ts,
        id,
        context,
        latency_ns,
    })
}

/// One activation of the timerlat thread of a CPU, split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activation {
    pub cpu: u32,
    pub id: u64,
    /// The timer's expiry on the trace clock (ns; from the irq line's time less its
    /// latency, µs-exact as the line's time is printed in µs).
    pub expiry: i64,
    /// Expiry → the timer interrupt.
    pub irq_latency_ns: i64,
    /// Interrupt → the timerlat thread running (total − interrupt).
    pub thread_latency_ns: i64,
}

impl Activation {
    pub fn latency_ns(&self) -> i64 {
        self.irq_latency_ns + self.thread_latency_ns
    }
}

/// Pairs the irq and thread lines of each activation, per CPU.
#[derive(Clone, Debug, Default)]
pub struct Pairer {
    open: Vec<Option<Record>>,
    /// Thread lines whose irq line was not seen (lost events), and irq lines left
    /// without their thread line.
    pub unpaired: u64,
}

impl Pairer {
    pub fn new(ncpu: usize) -> Pairer {
        Pairer {
            open: vec![None; ncpu],
            unpaired: 0,
        }
    }

    /// Takes one record; returns the activation it completes.
    pub fn push(&mut self, r: Record) -> Option<Activation> {
        let slot = self.open.get_mut(r.cpu as usize)?;
        match r.context {
            Context::Irq => {
                if slot.replace(r).is_some() {
                    self.unpaired += 1;
                }
                None
            }
            Context::Thread => match slot.take() {
                Some(irq) if irq.id == r.id => Some(Activation {
                    cpu: r.cpu,
                    id: r.id,
                    expiry: irq.ts - irq.latency_ns,
                    irq_latency_ns: irq.latency_ns,
                    thread_latency_ns: (r.latency_ns - irq.latency_ns).max(0),
                }),
                other => {
                    self.unpaired += 1 + u64::from(other.is_some());
                    None
                }
            },
            Context::UserRet => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choose_by_available_tracers() {
        assert_eq!(choose("blk function nop\n"), Source::Tracepoints);
        assert_eq!(
            choose("timerlat osnoise hwlat blk function nop\n"),
            Source::Timerlat
        );
        assert_eq!(choose("timerlatx nop"), Source::Tracepoints);
    }

    #[test]
    fn lines_of_the_documented_format() {
        let r = parse_record(
            "        <idle>-0       [000] d.h1    54.029328: #1     context    irq timer_latency       932 ns",
        )
        .unwrap();
        assert_eq!(
            r,
            Record {
                cpu: 0,
                ts: 54_029_328_000,
                id: 1,
                context: Context::Irq,
                latency_ns: 932
            }
        );
        let r = parse_record(
            "         <...>-867     [000] ....    54.029339: #1     context thread timer_latency     11700 ns",
        )
        .unwrap();
        assert_eq!((r.context, r.latency_ns), (Context::Thread, 11_700));
        for junk in [
            "# tracer: timerlat",
            "  <idle>-0 [000] d.h1 54.0: #x context irq timer_latency 1 ns",
            "  <idle>-0 [000] d.h1 54.0: #1 context softirq timer_latency 1 ns",
            "  <idle>-0 [000] d.h1 54.0: #1 context irq timer_latency 1 us",
            "  <idle>-0 [000] d.h1 54.0: #1 context irq timer_latency -5 ns",
            "  x-1 [001] d... 1.0: sched_switch: prev_comm=a",
        ] {
            assert!(parse_record(junk).is_none(), "{junk}");
        }
    }
}
