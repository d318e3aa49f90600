//! Parser of ftrace's text output (`trace`, `trace_pipe`) for the events spike
//! attribution needs: `timer:hrtimer_start`, `timer:hrtimer_expire_entry`,
//! `irq:irq_handler_entry/exit`, `irq:softirq_entry/exit`, `sched:sched_switch`,
//! `sched:sched_waking`. Other events and comment lines are skipped.
//!
//! A line looks like
//! `   opt cgu.2-21222   [001] d.h..  4167.541884: hrtimer_expire_entry: hrtimer=… now=…`:
//! task name (may hold spaces and dashes), `-PID`, `[CPU]`, optional flags, timestamp in
//! seconds, event name, fields.

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    HrtimerStart {
        hrtimer: u64,
        function: String,
        expires: i64,
    },
    HrtimerExpire {
        hrtimer: u64,
        function: String,
        now: i64,
    },
    IrqEntry {
        irq: u32,
        name: String,
    },
    IrqExit {
        irq: u32,
    },
    SoftirqEntry {
        vec: u32,
        name: String,
    },
    SoftirqExit {
        vec: u32,
    },
    Switch {
        prev_comm: String,
        prev_pid: i32,
        next_comm: String,
        next_pid: i32,
        /// Kernel priority: 0..=98 real-time (99 − rt priority), 100..=139 normal.
        next_prio: i32,
    },
    Waking {
        comm: String,
        pid: i32,
        prio: i32,
    },
}

/// One event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub cpu: u32,
    /// Trace clock time in ns (CLOCK_MONOTONIC with `trace_clock` = `mono`).
    pub ts: i64,
    /// The task that was current when the event was recorded.
    pub comm: String,
    pub pid: i32,
    pub kind: Kind,
}

/// Parses `12345.678901` (any number of decimals) into ns.
fn parse_ts(t: &str) -> Option<i64> {
    let (s, f) = t.split_once('.').unwrap_or((t, ""));
    let secs: i64 = s.parse().ok()?;
    if f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut frac: i64 = if f.is_empty() { 0 } else { f.parse().ok()? };
    for _ in f.len()..9 {
        frac *= 10;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(frac)
}

/// Value of `key=` in `fields`: up to the next space, or for the names in `long`
/// (task names may hold spaces) up to the next ` KEY=` of `until`.
fn field<'a>(fields: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("{key}=");
    let mut start = 0;
    loop {
        let at = fields[start..].find(&pat)? + start;
        if at == 0 || fields.as_bytes()[at - 1] == b' ' || fields.as_bytes()[at - 1] == b'[' {
            let v = &fields[at + pat.len()..];
            let end = v.find([' ', ']']).unwrap_or(v.len());
            return Some(&v[..end]);
        }
        start = at + pat.len();
    }
}

/// Like [`field`], but the value runs up to ` NEXT=` (for task names with spaces).
fn field_until<'a>(fields: &'a str, key: &str, next: &str) -> Option<&'a str> {
    let pat = format!("{key}=");
    let at = fields.find(&pat)?;
    if at > 0 && fields.as_bytes()[at - 1] != b' ' {
        return None;
    }
    let v = &fields[at + pat.len()..];
    let end = v.find(&format!(" {next}=")).unwrap_or(v.len());
    Some(&v[..end])
}

fn num<T: std::str::FromStr>(fields: &str, key: &str) -> Option<T> {
    field(fields, key)?.parse().ok()
}

fn hex(fields: &str, key: &str) -> Option<u64> {
    let v = field(fields, key)?;
    u64::from_str_radix(v.trim_start_matches("0x"), 16).ok()
}

/// The common head of a trace line: task, `-PID`, `[CPU]`, optional flags and
/// `SECONDS.FRACTION:`. Returns (comm, pid, cpu, ts ns, the rest after the timestamp);
/// None for comments, blank lines and lines of another shape.
pub fn split_head(line: &str) -> Option<(&str, i32, u32, i64, &str)> {
    let line = line.trim_end();
    if line.trim_start().starts_with('#') || line.trim().is_empty() {
        return None;
    }
    // The CPU field `[NNN]` follows the task: find the first ` [digits]`.
    let bytes = line.as_bytes();
    let mut cpu_at = None;
    let mut i = 0;
    while let Some(off) = line[i..].find(" [") {
        let s = i + off + 2;
        let e = line[s..].find(']').map(|x| s + x)?;
        if e > s && bytes[s..e].iter().all(u8::is_ascii_digit) {
            cpu_at = Some((i + off, s, e));
            break;
        }
        i = s;
    }
    let (task_end, cs, ce) = cpu_at?;
    let task = line[..task_end].trim();
    let (comm, pid) = task.rsplit_once('-')?;
    let pid: i32 = pid.parse().ok()?;
    let cpu: u32 = line[cs..ce].parse().ok()?;
    let rest = &line[ce + 1..];
    // Flags (optional), then `SECONDS.FRACTION:`.
    for (pos, tok) in token_positions(rest) {
        if let Some(t) = tok.strip_suffix(':') {
            if let Some(v) = parse_ts(t) {
                return Some((comm, pid, cpu, v, &rest[pos + tok.len()..]));
            }
        }
    }
    None
}

/// (cpu, ts ns, the rest after the timestamp) of a trace line of any tracer.
pub fn split_prefix(line: &str) -> Option<(u32, i64, &str)> {
    split_head(line).map(|(_, _, cpu, ts, rest)| (cpu, ts, rest))
}

/// Parses one line; None for comments, blank lines, other events and malformed lines.
pub fn parse_line(line: &str) -> Option<Event> {
    let (comm, pid, cpu, ts, after) = split_head(line)?;
    let after = after.trim_start();
    let (name, fields) = after
        .split_once(": ")
        .unwrap_or((after.trim_end_matches(':'), ""));
    let fields = fields.trim();
    let kind = match name {
        "hrtimer_start" => Kind::HrtimerStart {
            hrtimer: hex(fields, "hrtimer")?,
            function: field(fields, "function")?.to_string(),
            expires: num(fields, "expires")?,
        },
        "hrtimer_expire_entry" => Kind::HrtimerExpire {
            hrtimer: hex(fields, "hrtimer")?,
            function: field(fields, "function")?.to_string(),
            now: num(fields, "now")?,
        },
        "irq_handler_entry" => Kind::IrqEntry {
            irq: num(fields, "irq")?,
            name: field(fields, "name")?.to_string(),
        },
        "irq_handler_exit" => Kind::IrqExit {
            irq: num(fields, "irq")?,
        },
        "softirq_entry" => Kind::SoftirqEntry {
            vec: num(fields, "vec")?,
            name: field(fields, "action")?.to_string(),
        },
        "softirq_exit" => Kind::SoftirqExit {
            vec: num(fields, "vec")?,
        },
        "sched_switch" => Kind::Switch {
            prev_comm: field_until(fields, "prev_comm", "prev_pid")?.to_string(),
            prev_pid: num(fields, "prev_pid")?,
            next_comm: field_until(fields, "next_comm", "next_pid")?.to_string(),
            next_pid: num(fields, "next_pid")?,
            next_prio: num(fields, "next_prio")?,
        },
        "sched_waking" => Kind::Waking {
            comm: field_until(fields, "comm", "pid")?.to_string(),
            pid: num(fields, "pid")?,
            prio: num(fields, "prio")?,
        },
        _ => return None,
    };
    Some(Event {
        cpu,
        ts,
        comm: comm.to_string(),
        pid,
        kind,
    })
}

/// Whitespace-separated tokens with their byte offsets.
fn token_positions(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        let rest = &s[pos..];
        let start = pos + (rest.len() - rest.trim_start().len());
        if start >= s.len() {
            return None;
        }
        let end = s[start..]
            .find(char::is_whitespace)
            .map(|e| start + e)
            .unwrap_or(s.len());
        pos = end;
        Some((start, &s[start..end]))
    })
}

/// The scheduling class and priority a kernel priority stands for: `FIFO 90`-style for
/// real-time (the trace does not tell FIFO from RR: `RT`), `OTHER` (nice) otherwise.
pub fn describe_prio(prio: i32) -> (String, i32) {
    if (0..100).contains(&prio) {
        ("RT".into(), 99 - prio)
    } else {
        ("OTHER".into(), prio - 120)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_lines_parse() {
        let e = parse_line("       opt cgu.2-21222   [001] d.h..  4167.541884: hrtimer_expire_entry: hrtimer=0000000011a0dab7 function=hrtimer_wakeup now=4167541882911").unwrap();
        assert_eq!(e.cpu, 1);
        assert_eq!(e.comm, "opt cgu.2");
        assert_eq!(e.pid, 21222);
        assert_eq!(e.ts, 4_167_541_884_000);
        assert_eq!(
            e.kind,
            Kind::HrtimerExpire {
                hrtimer: 0x11a0dab7,
                function: "hrtimer_wakeup".into(),
                now: 4_167_541_882_911
            }
        );
        let e = parse_line("        latscope-21236   [001] d..2.  4167.540888: sched_switch: prev_comm=latscope prev_pid=21236 prev_prio=120 prev_state=S ==> next_comm=opt cgu.2 next_pid=21222 next_prio=125").unwrap();
        assert_eq!(
            e.kind,
            Kind::Switch {
                prev_comm: "latscope".into(),
                prev_pid: 21236,
                next_comm: "opt cgu.2".into(),
                next_pid: 21222,
                next_prio: 125
            }
        );
        let e = parse_line("   latscope-cpu1-21243   [001] d..1.  4167.541899: hrtimer_start: hrtimer=00000000cb1a70b8 function=hrtimer_wakeup expires=4167542866575 softexpires=4167542866575 mode=ABS was_armed=0").unwrap();
        assert_eq!(e.comm, "latscope-cpu1");
        assert!(matches!(
            e.kind,
            Kind::HrtimerStart {
                expires: 4_167_542_866_575,
                ..
            }
        ));
        let e = parse_line("          <idle>-0       [000] ..s1.   100.000010: softirq_entry: vec=3 [action=NET_RX]").unwrap();
        assert_eq!(
            e.kind,
            Kind::SoftirqEntry {
                vec: 3,
                name: "NET_RX".into()
            }
        );
        // Without the flags column.
        let e = parse_line(
            "  kworker/1:2-55 [001] 100.5: irq_handler_entry: irq=36 name=virtio1-req.0",
        )
        .unwrap();
        assert_eq!(e.ts, 100_500_000_000);
        assert_eq!(e.comm, "kworker/1:2");
        for junk in [
            "# tracer: nop",
            "",
            "garbage",
            "  x-1 [001] d... 1.0: sched_wakeup_new: comm=a pid=1",
            "  x-1 [001] d... 1.0: hrtimer_start: hrtimer=zz function=f expires=1",
            "  x-y [001] d... 1.0: irq_handler_exit: irq=1 ret=handled",
        ] {
            assert!(parse_line(junk).is_none(), "{junk}");
        }
    }

    #[test]
    fn priorities() {
        assert_eq!(describe_prio(9), ("RT".into(), 90));
        assert_eq!(describe_prio(120), ("OTHER".into(), 0));
    }
}
