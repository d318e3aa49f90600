//! The user's choices for one `measure` run, each flag already a typed value
//! ([`crate::values`]: the command line parses them through clap's `value_parser`, the
//! Python binding through the same `FromStr`), turned into a checked [`Plan`]: defaults
//! and every refusal between flags in one place, so that `latscope measure` and
//! `latscope.measure()` cannot drift apart. Errors name the option as the command line
//! spells it (`--duration and --loops cannot be used together`).

use crate::session::{self, Plan};
use crate::settings::{
    self, LoadSpec, OverrunPolicy, Policy, SampleFormat, Settings, Stop, TimerMode,
};
use crate::values::{CpuList, PmQos, PositiveDuration, SweepRange, TraceBuffer, TraceEvents};
use crate::MeasureError;
use latscope_core::labels::{parse_labels, Labels};
use std::path::PathBuf;

/// The "duration" of a run with live metrics and no stop rule: 100 years.
pub const UNTIL_STOPPED_NS: i64 = 100 * 365 * 86_400 * 1_000_000_000;

/// Duration of a run given neither a duration nor a loop count: 10 s.
pub const DEFAULT_DURATION_NS: i64 = 10_000_000_000;

/// Priority used when none is given for `fifo` and `rr`.
pub const DEFAULT_RT_PRIORITY: i32 = 80;

/// One `measure` request as the user wrote it, each flag already parsed into its typed
/// value ([`crate::values`]). `Default` is the command line's defaults.
#[derive(Clone, Debug)]
pub struct PlanSpec {
    /// `--cpus`, e.g. `0,2-3`; `None`: every online CPU (read under `sysroot`, else `/`).
    pub cpus: Option<CpuList>,
    /// `--policy`: fifo, rr or other.
    pub policy: Policy,
    /// `--priority`; `None`: 80 for fifo/rr, 0 for other.
    pub priority: Option<i32>,
    pub allow_fallback: bool,
    /// `--mode`: absolute, relative or timerfd.
    pub mode: TimerMode,
    /// `--interval`.
    pub interval: PositiveDuration,
    /// `--duration`; with `loops` too it is refused.
    pub duration: Option<PositiveDuration>,
    /// `--loops`: wake-ups per CPU.
    pub loops: Option<u64>,
    /// `--overrun`: skip or catch-up.
    pub overrun: OverrunPolicy,
    /// `--pm-qos`: a bare number of µs, or a duration with a unit in whole µs.
    pub pm_qos: Option<PmQos>,
    /// `--load`, every one given (each flag may name several).
    pub loads: Vec<LoadSpec>,
    /// `--compare-load`.
    pub compare_load: Option<LoadSpec>,
    /// `--sweep LOW..HIGH`.
    pub sweep: Option<SweepRange>,
    /// `--sweep-points`.
    pub sweep_points: usize,
    /// `--trace-above`.
    pub trace_above: Option<PositiveDuration>,
    /// `--trace-events LIST`.
    pub trace_events: Option<TraceEvents>,
    /// `--trace-buffer SIZE` per CPU.
    pub trace_buffer: Option<TraceBuffer>,
    pub probe_idle: bool,
    /// `--rounds`.
    pub rounds: Option<usize>,
    /// `--histogram-us`: 1 µs bins of the exact histogram.
    pub histogram_us: usize,
    /// `--samples FILE`.
    pub samples: Option<PathBuf>,
    /// `--samples-format`: binary (or bin) or csv; `None`: csv when the file ends in
    /// `.csv`, else binary.
    pub samples_format: Option<SampleFormat>,
    /// `false` for `--no-mlock`.
    pub lock_memory: bool,
    /// `--timer-slack DUR`: the measuring threads' timer slack (default 1 ns).
    pub timer_slack: Option<PositiveDuration>,
    /// `--sysroot`: must be an existing directory.
    pub sysroot: PathBuf,
    /// `--label KEY=VALUE`, each.
    pub labels: Vec<String>,
    /// Live metrics are published (`--listen`, `--openmetrics`): without a duration or
    /// loop count the run lasts until stopped, and sweeps and compare runs are refused.
    pub live: bool,
}

/// The default `--interval`: 1 ms.
pub const DEFAULT_INTERVAL_NS: i64 = 1_000_000;

impl Default for PlanSpec {
    fn default() -> Self {
        PlanSpec {
            cpus: None,
            policy: Policy::Fifo,
            priority: None,
            allow_fallback: false,
            mode: TimerMode::Absolute,
            interval: PositiveDuration::from_ns(DEFAULT_INTERVAL_NS)
                .expect("the default interval is more than zero"),
            duration: None,
            loops: None,
            overrun: OverrunPolicy::Skip,
            pm_qos: None,
            loads: Vec::new(),
            compare_load: None,
            sweep: None,
            sweep_points: 8,
            trace_above: None,
            trace_events: None,
            trace_buffer: None,
            probe_idle: false,
            rounds: None,
            histogram_us: 10_000,
            samples: None,
            samples_format: None,
            lock_memory: true,
            timer_slack: None,
            sysroot: PathBuf::from("/"),
            labels: Vec::new(),
            live: false,
        }
    }
}

fn input(msg: String) -> MeasureError {
    MeasureError::Input(msg)
}

impl PlanSpec {
    /// The checked plan: every option parsed, defaults filled in, and the plan checked
    /// against this machine ([`session::validate`]: CPUs online, priority range,
    /// interval 1 µs..1 h, at least two intervals of duration, sysroot, rounds, sweep).
    /// Nothing is started. The first problem found is the error.
    pub fn build(&self) -> Result<Plan, MeasureError> {
        let plan = self.parse()?;
        session::validate(&plan)?;
        if self.live && (plan.sweep.is_some() || plan.compare_load.is_some()) {
            return Err(input(
                "--listen and --openmetrics publish one configuration's histogram; they cannot be combined with --sweep or --compare-load".into(),
            ));
        }
        Ok(plan)
    }

    /// Defaults and the checks between flags, in the order the command line has always
    /// reported them (each flag's own text was checked when it was parsed).
    fn parse(&self) -> Result<Plan, MeasureError> {
        let policy = self.policy;
        let priority = self.priority.unwrap_or(match policy {
            Policy::Other => 0,
            _ => DEFAULT_RT_PRIORITY,
        });
        let online = crate::env::online_cpus(&self.sysroot)
            .or_else(|| crate::env::online_cpus(std::path::Path::new("/")))
            .unwrap_or_else(|| vec![0]);
        let cpus = match &self.cpus {
            Some(c) => c.0.clone(),
            None => online,
        };
        let stop = match (self.loops, &self.duration) {
            (Some(_), Some(_)) => {
                return Err(input(
                    "--duration and --loops cannot be used together".into(),
                ))
            }
            (Some(l), None) => Stop::Loops(l),
            (None, Some(d)) => Stop::Duration(d.ns()),
            // Live metrics without a stop rule: until SIGINT/SIGTERM.
            (None, None) if self.live => Stop::Duration(UNTIL_STOPPED_NS),
            (None, None) => Stop::Duration(DEFAULT_DURATION_NS),
        };
        let s = Settings {
            cpus,
            policy,
            priority,
            allow_fallback: self.allow_fallback,
            mode: self.mode,
            interval_ns: self.interval.ns(),
            stop,
            overrun: self.overrun,
            us_bins: self.histogram_us,
            lock_memory: self.lock_memory,
            timer_slack_ns: match &self.timer_slack {
                None => settings::DEFAULT_TIMER_SLACK_NS,
                Some(t) => match u64::try_from(t.ns()) {
                    Ok(v) if v <= settings::MAX_TIMER_SLACK_NS => v,
                    _ => {
                        return Err(input(format!(
                            "--timer-slack {t}: at most 1s (the kernel's default is 50us)"
                        )))
                    }
                },
            },
        };
        let mut plan = Plan::new(s);
        plan.labels =
            Labels::with_host(parse_labels(&self.labels).map_err(|e| input(e.to_string()))?);
        plan.root = self.sysroot.clone();
        plan.rounds = self.rounds;
        plan.probe_idle = self.probe_idle;
        plan.trace_above_ns = self.trace_above.as_ref().map(PositiveDuration::ns);
        if (self.trace_events.is_some() || self.trace_buffer.is_some())
            && self.trace_above.is_none()
        {
            return Err(input(
                "--trace-events and --trace-buffer set up --trace-above's tracing: give --trace-above too".into(),
            ));
        }
        if let Some(e) = &self.trace_events {
            plan.trace.optional = e.0.clone();
        }
        if let Some(b) = &self.trace_buffer {
            plan.trace.buffer_kb = b.kib;
        }
        plan.loads.extend(self.loads.iter().copied());
        plan.compare_load = self.compare_load;
        if let Some(sw) = &self.sweep {
            plan.sweep = Some((sw.low_ns, sw.high_ns, self.sweep_points));
            plan.sweep_text = Some(sw.to_string());
        }
        plan.pm_qos_us = self.pm_qos.map(|q| q.0);
        if let Some(p) = &self.samples {
            let fmt = match self.samples_format {
                Some(f) => f,
                None if p.extension().map(|e| e.eq_ignore_ascii_case("csv")) == Some(true) => {
                    SampleFormat::Csv
                }
                None => SampleFormat::Binary,
            };
            plan.samples = Some((p.clone(), fmt));
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::LoadList;

    /// A flag's value as clap or Python parses it.
    fn v<T: std::str::FromStr>(s: &str) -> T
    where
        T::Err: std::fmt::Debug,
    {
        s.parse().unwrap()
    }

    /// A sysroot whose online CPUs are 0-3, and a spec measuring in it.
    fn fixture() -> (tempfile::TempDir, PlanSpec) {
        let d = tempfile::tempdir().unwrap();
        let cpu = d.path().join("sys/devices/system/cpu");
        std::fs::create_dir_all(&cpu).unwrap();
        std::fs::write(cpu.join("online"), "0-3\n").unwrap();
        let spec = PlanSpec {
            sysroot: d.path().to_path_buf(),
            ..PlanSpec::default()
        };
        (d, spec)
    }

    /// The refusal of `spec` with `f` applied, as the command line prints it.
    fn refusal(f: impl FnOnce(&mut PlanSpec)) -> String {
        let (_d, mut spec) = fixture();
        f(&mut spec);
        match spec.build() {
            Ok(p) => panic!("accepted: {p:?}"),
            Err(e) => {
                assert!(matches!(e, MeasureError::Input(_)), "{e:?}");
                e.to_string()
            }
        }
    }

    #[test]
    fn defaults_are_the_command_lines() {
        let (_d, spec) = fixture();
        let p = spec.build().unwrap();
        let s = &p.settings;
        assert_eq!(s.cpus, vec![0, 1, 2, 3], "all online CPUs of the sysroot");
        assert_eq!((s.policy, s.priority), (Policy::Fifo, 80));
        assert_eq!(s.mode, TimerMode::Absolute);
        assert_eq!(s.overrun, OverrunPolicy::Skip);
        assert_eq!(s.interval_ns, 1_000_000);
        assert_eq!(s.stop, Stop::Duration(DEFAULT_DURATION_NS));
        assert_eq!(s.us_bins, 10_000);
        assert!(s.lock_memory && !s.allow_fallback);
        assert!(p.sweep.is_none() && p.compare_load.is_none() && p.pm_qos_us.is_none());
        assert!(p.labels.iter().any(|(k, _)| k == "latscope_version"));
    }

    #[test]
    fn other_defaults_to_priority_zero_and_rr_to_80() {
        let (_d, mut spec) = fixture();
        spec.policy = v("other");
        assert_eq!(spec.build().unwrap().settings.priority, 0);
        spec.policy = v("rr");
        assert_eq!(spec.build().unwrap().settings.priority, 80);
        spec.priority = Some(10);
        assert_eq!(spec.build().unwrap().settings.priority, 10);
    }

    #[test]
    fn everything_given_is_parsed() {
        let (_d, mut spec) = fixture();
        spec.cpus = Some(v("1,3"));
        spec.interval = v("250us");
        spec.loops = Some(1000);
        spec.mode = v("timerfd");
        spec.overrun = v("catch-up");
        spec.pm_qos = Some(v("20us"));
        spec.loads = v::<LoadList>("cpu:2,mem:1").0;
        spec.trace_above = Some(v("500us"));
        spec.rounds = Some(10);
        spec.samples = Some(PathBuf::from("raw.CSV"));
        spec.labels = vec!["board=rpi4".into()];
        let p = spec.build().unwrap();
        assert_eq!(p.settings.cpus, vec![1, 3]);
        assert_eq!(p.settings.interval_ns, 250_000);
        assert_eq!(p.settings.stop, Stop::Loops(1000));
        assert_eq!(p.settings.mode, TimerMode::Timerfd);
        assert_eq!(p.settings.overrun, OverrunPolicy::CatchUp);
        assert_eq!(p.pm_qos_us, Some(20));
        assert_eq!(p.loads.len(), 2);
        assert_eq!(p.trace_above_ns, Some(500_000));
        assert_eq!(p.rounds, Some(10));
        assert_eq!(p.samples.as_ref().unwrap().1, SampleFormat::Csv);
        assert!(p.labels.user().any(|(k, v)| k == "board" && v == "rpi4"));
        spec.pm_qos = Some(v("7"));
        spec.samples_format = Some(v("bin"));
        let p = spec.build().unwrap();
        assert_eq!(p.pm_qos_us, Some(7), "a bare number is µs");
        assert_eq!(p.samples.unwrap().1, SampleFormat::Binary);
    }

    #[test]
    fn a_sweep_shares_the_duration() {
        let (_d, mut spec) = fixture();
        spec.sweep = Some(v("10us..1ms"));
        spec.sweep_points = 3;
        spec.duration = Some(v("3s"));
        let p = spec.build().unwrap();
        assert_eq!(p.sweep, Some((10_000, 1_000_000, 3)));
        assert_eq!(p.sweep_text.as_deref(), Some("10us..1ms"));
    }

    #[test]
    fn live_without_a_stop_rule_runs_until_stopped() {
        let (_d, mut spec) = fixture();
        spec.live = true;
        assert_eq!(
            spec.build().unwrap().settings.stop,
            Stop::Duration(UNTIL_STOPPED_NS)
        );
        spec.duration = Some(v("2s"));
        assert_eq!(
            spec.build().unwrap().settings.stop,
            Stop::Duration(2_000_000_000)
        );
    }

    #[test]
    fn refuses_a_cpu_that_is_not_online() {
        let m = refusal(|s| s.cpus = Some(v("9")));
        assert_eq!(m, "CPU 9 is not online (online CPUs: 0-3)");
    }

    #[test]
    fn refuses_an_interval_below_one_microsecond() {
        let m = refusal(|s| s.interval = v("999ns"));
        assert!(
            m.starts_with("interval 999 ns is below the smallest accepted, 1 µs"),
            "{m}"
        );
    }

    #[test]
    fn refuses_an_interval_above_one_hour() {
        assert_eq!(
            refusal(|s| s.interval = v("2h")),
            "interval must be at most 1 h"
        );
    }

    #[test]
    fn refuses_a_duration_shorter_than_two_intervals() {
        let m = refusal(|s| {
            s.interval = v("1s");
            s.duration = Some(v("1500ms"));
        });
        assert!(m.contains("shorter than two intervals"), "{m}");
    }

    #[test]
    fn refuses_duration_and_loops_together() {
        let m = refusal(|s| {
            s.duration = Some(v("1s"));
            s.loops = Some(10);
        });
        assert_eq!(m, "--duration and --loops cannot be used together");
    }

    #[test]
    fn refuses_zero_loops() {
        assert_eq!(
            refusal(|s| s.loops = Some(0)),
            "loops must be greater than zero"
        );
    }

    #[test]
    fn refuses_a_priority_out_of_range() {
        let m = refusal(|s| s.priority = Some(100));
        assert!(
            m.starts_with("priority 100 is out of range for policy fifo"),
            "{m}"
        );
        let m = refusal(|s| {
            s.policy = v("other");
            s.priority = Some(5);
        });
        assert!(
            m.starts_with("priority 5 is out of range for policy other"),
            "{m}"
        );
    }

    #[test]
    fn refuses_a_histogram_of_no_bins() {
        let m = refusal(|s| s.histogram_us = 0);
        assert!(m.starts_with("histogram size must be"), "{m}");
    }

    #[test]
    fn refuses_a_missing_sysroot() {
        let (d, mut spec) = fixture();
        spec.sysroot = d.path().join("nowhere");
        spec.cpus = Some(v("0"));
        let m = spec.build().unwrap_err().to_string();
        assert_eq!(
            m,
            format!(
                "--sysroot {}: not an existing directory",
                spec.sysroot.display()
            )
        );
    }

    #[test]
    fn refuses_a_sweep_outside_one_microsecond_to_one_hour() {
        let m = refusal(|s| s.sweep = Some(v("100ns..1ms")));
        assert!(m.starts_with("--sweep range must be increasing"), "{m}");
    }

    #[test]
    fn refuses_zero_sweep_points() {
        let m = refusal(|s| {
            s.sweep = Some(v("10us..1ms"));
            s.sweep_points = 0;
        });
        assert!(m.starts_with("--sweep-points must be 1..="), "{m}");
    }

    #[test]
    fn refuses_a_sweep_with_a_compare_load() {
        let m = refusal(|s| {
            s.sweep = Some(v("10us..1ms"));
            s.compare_load = Some(v("cpu:1"));
        });
        assert_eq!(m, "--sweep and --compare-load cannot be combined");
    }

    #[test]
    fn refuses_zero_rounds() {
        let m = refusal(|s| s.rounds = Some(0));
        assert!(m.starts_with("--rounds must be 1..="), "{m}");
    }

    #[test]
    fn refuses_rounds_with_a_sweep() {
        let m = refusal(|s| {
            s.rounds = Some(2);
            s.sweep = Some(v("10us..1ms"));
        });
        assert_eq!(
            m,
            "--rounds cannot be combined with --sweep or --compare-load"
        );
    }

    #[test]
    fn trace_events_and_buffer_need_trace_above() {
        let m = refusal(|s| s.trace_buffer = Some(v("16M")));
        assert!(m.contains("give --trace-above too"), "{m}");
        let m = refusal(|s| s.trace_events = Some(v("irq")));
        assert!(m.contains("give --trace-above too"), "{m}");
        let (_d, mut spec) = fixture();
        spec.trace_above = Some(v("1ms"));
        spec.trace_events = Some(v("none"));
        spec.trace_buffer = Some(v("32M"));
        let p = spec.build().unwrap();
        assert!(p.trace.optional.is_empty());
        assert_eq!(p.trace.buffer_kb, 32 * 1024);
    }

    #[test]
    fn refuses_fewer_loops_than_rounds() {
        let m = refusal(|s| {
            s.rounds = Some(5);
            s.loops = Some(4);
        });
        assert!(
            m.starts_with("--loops must be at least --rounds (5)"),
            "{m}"
        );
    }

    #[test]
    fn refuses_rounds_shorter_than_two_intervals() {
        let m = refusal(|s| {
            s.rounds = Some(10);
            s.duration = Some(v("10ms"));
        });
        assert!(m.starts_with("--duration shared among 10 rounds"), "{m}");
    }

    #[test]
    fn refuses_a_bad_label() {
        let m = refusal(|s| s.labels = vec!["host=x".into()]);
        assert!(m.contains("reserved"), "{m}");
    }

    #[test]
    fn refuses_live_metrics_with_a_sweep_or_compare_load() {
        for f in [
            (|s: &mut PlanSpec| s.sweep = Some(v("10us..1ms"))) as fn(&mut PlanSpec),
            |s: &mut PlanSpec| s.compare_load = Some(v("cpu:1")),
        ] {
            let m = refusal(|s| {
                s.live = true;
                f(s)
            });
            assert!(m.starts_with("--listen and --openmetrics publish"), "{m}");
        }
    }
}
