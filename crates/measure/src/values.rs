//! The text forms of `measure`'s and `noise`'s flags as typed values: each parses with
//! `FromStr` (clap's `value_parser` on the command line, the same `FromStr` on a Python
//! keyword) and prints back with `Display`, so a bad value is refused where it is read,
//! naming what was wrong and the forms accepted, and a [`crate::PlanSpec`] holds only
//! values that already parsed. The errors do not name the flag: the front end puts
//! `--flag 'value': ` in front ([`latscope_core::flag::refusal`]).
//!
//! Durations go through the one duration parser, [`latscope_core::time::parse_duration_ns`]
//! (its unit list is the error's); the checks that need more than the text (a CPU
//! online, an interval against the duration) stay in [`crate::PlanSpec::build`].

use crate::ftrace::live::TraceSetup;
use crate::settings::{self, LoadSpec, OverrunPolicy, Policy, SampleFormat, TimerMode};
use crate::MeasureError;
use latscope_core::time::parse_duration_ns;
use std::fmt;
use std::str::FromStr;

fn input(msg: String) -> MeasureError {
    MeasureError::Input(msg)
}

impl FromStr for Policy {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<Policy, MeasureError> {
        Policy::parse(s)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TimerMode {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<TimerMode, MeasureError> {
        TimerMode::parse(s)
    }
}

impl fmt::Display for TimerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for OverrunPolicy {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<OverrunPolicy, MeasureError> {
        OverrunPolicy::parse(s)
    }
}

impl fmt::Display for OverrunPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `--samples-format`: `binary` (or `bin`) or `csv`.
impl FromStr for SampleFormat {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<SampleFormat, MeasureError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "binary" | "bin" => Ok(SampleFormat::Binary),
            "csv" => Ok(SampleFormat::Csv),
            _ => Err(input("use binary or csv".into())),
        }
    }
}

impl fmt::Display for SampleFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SampleFormat::Binary => "binary",
            SampleFormat::Csv => "csv",
        })
    }
}

/// A Linux CPU list such as `0,2-3` (the form of /sys/devices/system/cpu/online):
/// sorted, without duplicates, never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList(pub Vec<u32>);

impl FromStr for CpuList {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<CpuList, MeasureError> {
        settings::cpu_list(s)
            .map(CpuList)
            .map_err(|why| input(format!("malformed CPU list: {why} (write e.g. 0,2-3)")))
    }
}

impl fmt::Display for CpuList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&settings::format_cpu_list(&self.0))
    }
}

/// A duration of more than zero with its unit (`1ms`, `250 us`, `1.5s`) in whole
/// nanoseconds, as written: messages quote the text the user typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositiveDuration {
    ns: i64,
    text: String,
}

impl PositiveDuration {
    /// `ns` nanoseconds written in the largest unit that keeps them whole (`1ms`,
    /// `1500ns`); `None` unless `ns` is more than zero.
    pub fn from_ns(ns: i64) -> Option<PositiveDuration> {
        if ns <= 0 {
            return None;
        }
        let text = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")]
            .iter()
            .find(|(unit, _)| ns % unit == 0)
            .map_or_else(
                || format!("{ns}ns"),
                |(unit, u)| format!("{}{u}", ns / unit),
            );
        Some(PositiveDuration { ns, text })
    }
    pub fn ns(&self) -> i64 {
        self.ns
    }
    /// The text as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl FromStr for PositiveDuration {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<PositiveDuration, MeasureError> {
        let ns = parse_duration_ns(s).map_err(|e| input(e.to_string()))?.0;
        if ns <= 0 {
            return Err(input("must be greater than zero".into()));
        }
        Ok(PositiveDuration {
            ns,
            text: s.to_string(),
        })
    }
}

impl fmt::Display for PositiveDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `--pm-qos`: the latency limit held on /dev/cpu_dma_latency, in µs (0..=i32::MAX). A
/// bare number is µs; a duration with a unit must be whole µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmQos(pub i32);

impl FromStr for PmQos {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<PmQos, MeasureError> {
        let t = s.trim();
        let us: i64 = match t.parse::<i64>() {
            Ok(v) => v,
            Err(_) => {
                let ns = parse_duration_ns(t).map_err(|e| input(e.to_string()))?.0;
                if ns % 1000 != 0 {
                    return Err(input("PM QoS is set in whole µs".into()));
                }
                ns / 1000
            }
        };
        i32::try_from(us)
            .ok()
            .filter(|v| *v >= 0)
            .map(PmQos)
            .ok_or_else(|| input(format!("must be 0..={} µs", i32::MAX)))
    }
}

impl fmt::Display for PmQos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One `kind:N` load (`--compare-load cpu:4`).
impl FromStr for LoadSpec {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<LoadSpec, MeasureError> {
        settings::parse_load(s.trim())
    }
}

/// `--load cpu:2,mem:1`: one or more loads, comma-separated (kinds may repeat and add up).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadList(pub Vec<LoadSpec>);

impl FromStr for LoadList {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<LoadList, MeasureError> {
        settings::parse_loads(s).map(LoadList)
    }
}

impl fmt::Display for LoadList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(LoadSpec::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

/// `--sweep LOW..HIGH`: sleep lengths from LOW to HIGH (both more than zero, LOW below
/// HIGH), as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepRange {
    pub low_ns: i64,
    pub high_ns: i64,
    text: String,
}

impl FromStr for SweepRange {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<SweepRange, MeasureError> {
        let (a, b) = s
            .split_once("..")
            .ok_or_else(|| input("expected LOW..HIGH, e.g. 10us..1s".into()))?;
        let end = |name: &str, t: &str| {
            t.parse::<PositiveDuration>()
                .map(|d| d.ns())
                .map_err(|e| input(format!("the {name} end '{t}': {e}")))
        };
        let (low_ns, high_ns) = (end("low", a)?, end("high", b)?);
        if high_ns <= low_ns {
            return Err(input(
                "the high end must be larger than the low end (LOW..HIGH, e.g. 10us..1s)".into(),
            ));
        }
        Ok(SweepRange {
            low_ns,
            high_ns,
            text: s.to_string(),
        })
    }
}

impl fmt::Display for SweepRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `--trace-events LIST` of `measure --trace-above`: the tracepoints besides the timer
/// and scheduler ones always traced, as `group/event` ([`TraceSetup::parse_events`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvents(pub Vec<String>);

impl FromStr for TraceEvents {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<TraceEvents, MeasureError> {
        TraceSetup::parse_events(s).map(TraceEvents)
    }
}

impl fmt::Display for TraceEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.0.join(","))
    }
}

/// `--trace-buffer SIZE`: the trace ring buffer per CPU (64 KiB to 1 GiB; a bare number
/// is KiB; K, M, G binary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceBuffer {
    pub kib: u32,
}

impl FromStr for TraceBuffer {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<TraceBuffer, MeasureError> {
        settings::parse_trace_buffer_kb(s).map(|kib| TraceBuffer { kib })
    }
}

impl fmt::Display for TraceBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}K", self.kib)
    }
}

/// `noise --trace-events LIST`: the event groups that classify the gaps, comma-separated
/// of [`crate::noise::tracer::GROUPS`], or `all` or `none`; duplicates dropped. Empty: no
/// tracing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoiseGroups(pub Vec<String>);

impl NoiseGroups {
    /// Every group the tracer knows (`all`, the default).
    pub fn all() -> NoiseGroups {
        NoiseGroups(
            crate::noise::tracer::GROUPS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        )
    }
}

impl FromStr for NoiseGroups {
    type Err = MeasureError;
    fn from_str(s: &str) -> Result<NoiseGroups, MeasureError> {
        use crate::noise::tracer::GROUPS;
        match s.trim() {
            "all" => return Ok(NoiseGroups::all()),
            "none" => return Ok(NoiseGroups(Vec::new())),
            _ => {}
        }
        let mut g: Vec<String> = Vec::new();
        for part in s.split(',').map(str::trim) {
            if !GROUPS.contains(&part) {
                return Err(input(format!(
                    "unknown group '{part}' (use {}, all or none)",
                    GROUPS.join(", ")
                )));
            }
            if !g.iter().any(|x| x == part) {
                g.push(part.to_string());
            }
        }
        Ok(NoiseGroups(g))
    }
}

impl fmt::Display for NoiseGroups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.0.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::LoadKind;

    fn refused<T: FromStr<Err = MeasureError> + fmt::Debug>(s: &str) -> String {
        match s.parse::<T>() {
            Ok(v) => panic!("'{s}' accepted as {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn enums_parse_their_spellings_and_print_the_canonical_one() {
        assert_eq!("SCHED_RR".parse::<Policy>().unwrap(), Policy::Rr);
        assert_eq!("normal".parse::<Policy>().unwrap().to_string(), "other");
        let e = refused::<Policy>("deadline");
        assert!(
            e.contains("'deadline'") && e.contains("fifo, rr or other"),
            "{e}"
        );
        assert_eq!("rel".parse::<TimerMode>().unwrap(), TimerMode::Relative);
        assert_eq!(TimerMode::Timerfd.to_string(), "timerfd");
        let e = refused::<TimerMode>("busy");
        assert!(
            e.contains("'busy'") && e.contains("absolute, relative or timerfd"),
            "{e}"
        );
        assert_eq!(
            "catch_up".parse::<OverrunPolicy>().unwrap().to_string(),
            "catch-up"
        );
        let e = refused::<OverrunPolicy>("drop");
        assert!(
            e.contains("'drop'") && e.contains("skip or catch-up"),
            "{e}"
        );
        assert_eq!("BIN".parse::<SampleFormat>().unwrap(), SampleFormat::Binary);
        assert_eq!("csv".parse::<SampleFormat>().unwrap().to_string(), "csv");
        assert_eq!(refused::<SampleFormat>("parquet"), "use binary or csv");
    }

    #[test]
    fn cpu_lists_round_trip() {
        let c: CpuList = " 3,0-1,1 ".parse().unwrap();
        assert_eq!(c, CpuList(vec![0, 1, 3]));
        assert_eq!(c.to_string(), "0-1,3");
        assert_eq!(c.to_string().parse::<CpuList>().unwrap(), c);
        assert!(refused::<CpuList>("3-1").contains("goes backwards"));
        assert!(refused::<CpuList>("a").contains("'a' is not a CPU number"));
        assert!(refused::<CpuList>("1,,2").contains("empty element"));
        assert!(refused::<CpuList>("").contains("empty element"));
    }

    #[test]
    fn durations_go_through_the_core_parser_and_must_be_positive() {
        let d: PositiveDuration = "1.5 us".parse().unwrap();
        assert_eq!((d.ns(), d.to_string().as_str()), (1_500, "1.5 us"));
        assert_eq!(
            "2min".parse::<PositiveDuration>().unwrap().ns(),
            120_000_000_000
        );
        assert_eq!(
            refused::<PositiveDuration>("-1ms"),
            "must be greater than zero"
        );
        assert_eq!(
            refused::<PositiveDuration>("0s"),
            "must be greater than zero"
        );
        // The core parser's own words, with its full unit list.
        let e = refused::<PositiveDuration>("10 parsecs");
        assert!(
            e.contains("unknown unit 'parsecs'") && e.contains("hours"),
            "{e}"
        );
        assert!(refused::<PositiveDuration>("1000").contains("has no unit"));
        assert!(refused::<PositiveDuration>("1.5ns").contains("whole number of nanoseconds"));
        for ns in [1, 1_500, 250_000, 1_000_000, 3_000_000_000] {
            let d = PositiveDuration::from_ns(ns).unwrap();
            assert_eq!(d.to_string().parse::<PositiveDuration>().unwrap().ns(), ns);
        }
        assert_eq!(
            PositiveDuration::from_ns(1_000_000).unwrap().as_str(),
            "1ms"
        );
        assert!(PositiveDuration::from_ns(0).is_none());
    }

    #[test]
    fn pm_qos_is_whole_microseconds() {
        assert_eq!("7".parse::<PmQos>().unwrap(), PmQos(7));
        assert_eq!("20us".parse::<PmQos>().unwrap(), PmQos(20));
        assert_eq!("1ms".parse::<PmQos>().unwrap().to_string(), "1000");
        assert_eq!(refused::<PmQos>("1500ns"), "PM QoS is set in whole µs");
        let range = format!("must be 0..={} µs", i32::MAX);
        assert_eq!(refused::<PmQos>("-1"), range);
        assert_eq!(refused::<PmQos>("3000000000"), range);
        assert!(refused::<PmQos>("low").contains("'low' is not a number"));
    }

    #[test]
    fn loads_one_and_many() {
        let l: LoadList = "cpu:2, mem:1".parse().unwrap();
        assert_eq!(l.0.len(), 2);
        assert_eq!(l.0[1].kind, LoadKind::Mem);
        assert_eq!(l.to_string(), "cpu:2,mem:1");
        assert!(refused::<LoadList>("gpu:1").contains("unknown kind"));
        assert!(refused::<LoadList>(",").contains("names no load"));
        let one: LoadSpec = " syscall:3 ".parse().unwrap();
        assert_eq!((one.kind, one.threads), (LoadKind::Syscall, 3));
        assert!(refused::<LoadSpec>("cpu:x").contains("not a whole number"));
        assert!(refused::<LoadSpec>("cpu:0").contains("1..=1024"));
    }

    #[test]
    fn sweep_ranges() {
        let r: SweepRange = "10us..1s".parse().unwrap();
        assert_eq!((r.low_ns, r.high_ns), (10_000, 1_000_000_000));
        assert_eq!(r.to_string(), "10us..1s");
        assert_eq!(
            refused::<SweepRange>("1ms"),
            "expected LOW..HIGH, e.g. 10us..1s"
        );
        assert!(refused::<SweepRange>("1ms..10us").starts_with("the high end must be larger"));
        assert!(refused::<SweepRange>("1ms..1ms").starts_with("the high end must be larger"));
        assert_eq!(
            refused::<SweepRange>("0us..1s"),
            "the low end '0us': must be greater than zero"
        );
        assert!(refused::<SweepRange>("10us..fast").starts_with("the high end 'fast': "));
        for bad in [
            "10us", "1s..10us", "0us..1s", "10..1s", "10us..", "..1s", "-1ms..1s",
        ] {
            assert!(bad.parse::<SweepRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn trace_events_and_buffer() {
        let e: TraceEvents = "irq, sched:sched_process_exec".parse().unwrap();
        assert_eq!(e.0.len(), 3, "{e:?}");
        assert!(e.0.contains(&"sched/sched_process_exec".to_string()));
        assert_eq!("none".parse::<TraceEvents>().unwrap().to_string(), "none");
        assert!(refused::<TraceEvents>("irq,bogus").contains("'bogus' is not a tracepoint"));
        assert_eq!("16M".parse::<TraceBuffer>().unwrap().kib, 16 * 1024);
        assert_eq!("16M".parse::<TraceBuffer>().unwrap().to_string(), "16384K");
        assert!(refused::<TraceBuffer>("5T").contains("unknown unit 't'"));
        assert!(refused::<TraceBuffer>("2G").contains("64K to 1G"));
    }

    #[test]
    fn noise_groups() {
        let all = NoiseGroups::all();
        assert!(!all.0.is_empty());
        assert_eq!("all".parse::<NoiseGroups>().unwrap(), all);
        assert_eq!("none".parse::<NoiseGroups>().unwrap(), NoiseGroups(vec![]));
        let g: NoiseGroups = "irq, irq,softirq".parse().unwrap();
        assert_eq!(g.to_string(), "irq,softirq");
        let e = refused::<NoiseGroups>("irq,bogus");
        assert!(
            e.contains("unknown group 'bogus'") && e.contains("all or none"),
            "{e}"
        );
    }
}
