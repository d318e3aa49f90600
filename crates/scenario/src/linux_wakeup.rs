//! "Wakeup Latency, CPU Frequency (Gotcha)": Linux wake-up latency with a naive Python
//! sleep loop on a Raspberry Pi 4, run live on the machine latscope runs on.
//!
//! The published figures come from other hardware (a Pi 4 with the ondemand governor),
//! so latscope's absolute figures are shown beside them, not compared. What is tested is
//! the document's finding that longer sleeps wake later, with statistics one outlier
//! cannot move (median, trimmed mean) over repeated, interleaved rounds; the loaded-vs-
//! idle comparison and the governor experiment are explained by latscope's diagnosis of
//! this machine (a fixed clock or a VM guest has no governor to change).

use crate::documents::WAKEUP;
use crate::robust::{Robust, TRIM};
use crate::row::{Figure, Figures};
use crate::{run_err, Info, Options, Outcome, ScenarioError};
use latscope_measure::session::{execute, prepare, Plan};
use latscope_measure::settings::{
    LoadKind, LoadSpec, Policy, SampleFormat, Settings, Stop, TimerMode,
};
use latscope_measure::Report;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub const INFO: Info = Info {
    name: "linux-wakeup",
    title: "Linux timer wake-up latency: naive sleep, sleep-length curve, idle vs 30 CPU hogs",
    document: &WAKEUP,
    summary: "live on this machine in interleaved rounds (mean, median, trimmed mean), with the environment diagnosis",
    live: true,
};

const NAME: &str = "linux-wakeup";
const MS: i64 = 1_000_000;

const fn fig(id: &'static str, value: f64, unit: &'static str, place: &'static str) -> Figure {
    Figure::new(id, value, unit, place)
}

pub(crate) const FIGURES: &[Figure] = &[
    fig("10 ms mean", 105.2, "us", "'./jitter.py 0.01 100', ondemand governor (mean 105.25 us)"),
    fig("10 ms stdev", 14.6, "us", "'./jitter.py 0.01 100', ondemand governor (stdev 14.64 us)"),
    fig("100 ms mean", 142.6, "us", "mysteries remaining, './jitter.py 0.1 100' (mean 142.65 us)"),
    fig("100 ms stdev", 5.0, "us", "mysteries remaining, './jitter.py 0.1 100' (stdev 4.99 us)"),
    fig("1 s mean", 1042.4, "us", "mysteries remaining, './jitter.py 1 100' (mean 1042.44 us)"),
    fig("1 s stdev", 17.1, "us", "mysteries remaining, './jitter.py 1 100' (stdev 17.12 us)"),
    fig("hogs mean", 67.3, "us", "30 x 'sha1sum /dev/zero', ondemand governor (mean 67.26 us)"),
    fig("hogs stdev", 2.9, "us", "30 x 'sha1sum /dev/zero', ondemand governor (stdev 2.88 us)"),
    fig("performance mean", 67.0, "us", "performance governor, no hogs (mean 67.04 us)"),
    fig("performance stdev", 1.26, "us", "performance governor, no hogs (stdev 1.26 us)"),
    fig("performance hogs mean", 65.2, "us", "performance governor, 30 hogs (mean 65.19 us)"),
    fig("performance hogs stdev", 2.38, "us", "performance governor, 30 hogs (stdev 2.38 us)"),
    fig("longer later", 1.0, "yes=1", "mysteries remaining ('Apparently longer sleep times increase wakeup latency')"),
    fig("faster under load", 1.0, "yes=1", "many runnable processes ('Wakeup time decreases as more processes are runnable', ondemand governor)"),
    fig("governor explains", 1.0, "yes=1", "CPU frequency scaling out of the way (performance governor: 67.04 us idle, 65.19 us with hogs, 'the same')"),
];

fn figures() -> Figures {
    Figures {
        doc: &WAKEUP,
        list: FIGURES,
    }
}

/// The sleep lengths of the curve (the document's 10 ms, 100 ms and 1 s among them) and
/// the loops per round (full, quick).
const CURVE: [(i64, u64, u64); 6] = [
    (1, 20, 10),
    (10, 20, 10),
    (30, 10, 3),
    (100, 6, 3),
    (300, 3, 1),
    (1000, 2, 1),
];

struct Run {
    report: Report,
    /// Latencies in us by phase (0: the run or the idle phase, 1: the loaded phase).
    phases: [Vec<f64>; 2],
}

static RUN_ID: AtomicU64 = AtomicU64::new(0);

fn measure(settings: Settings, compare: Option<LoadSpec>) -> Result<Run, ScenarioError> {
    let path = std::env::temp_dir().join(format!(
        "latscope-wakeup-{}-{}.bin",
        std::process::id(),
        RUN_ID.fetch_add(1, Ordering::Relaxed)
    ));
    let mut plan = Plan::new(settings);
    plan.compare_load = compare;
    plan.samples = Some((path.clone(), SampleFormat::Binary));
    let prep = prepare(&plan).map_err(run_err(NAME))?;
    let stop = Arc::new(AtomicBool::new(false));
    let out = execute(&plan, &prep, &stop, &mut |_, _| {});
    let bytes = std::fs::read(&path);
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(run_err(NAME))?;
    let bytes = bytes.map_err(|e| ScenarioError::Io {
        scenario: NAME,
        path: path.clone(),
        source: e,
    })?;
    let raw = latscope_measure::samples::read_binary(&bytes).map_err(run_err(NAME))?;
    let mut phases = [Vec::new(), Vec::new()];
    for s in raw {
        if let Some(p) = phases.get_mut(s.phase as usize) {
            p.push(s.latency_ns as f64 / 1e3);
        }
    }
    Ok(Run {
        report: out.report,
        phases,
    })
}

/// The document's method: a relative sleep of `interval` in an ordinary (SCHED_OTHER) thread.
fn naive(interval_ns: i64, loops: u64) -> Settings {
    Settings {
        cpus: vec![0],
        policy: Policy::Other,
        priority: 0,
        allow_fallback: true,
        mode: TimerMode::Relative,
        interval_ns,
        stop: Stop::Loops(loops),
        ..Settings::default()
    }
}

fn stats_text(r: &Robust) -> String {
    format!(
        "n = {}, mean {:.1}, median {:.1}, {:.0} % trimmed mean {:.1}, stdev {:.1}, max {:.1} us",
        r.count,
        r.mean,
        r.median,
        TRIM * 100.0,
        r.trimmed_mean,
        r.stdev,
        r.max
    )
}

const ELSEWHERE: &str = "Measured live on this machine; the published figure is a Raspberry Pi 4 \
    with the ondemand governor: shown side by side, not compared.";

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let f = figures();
    let mut out = Outcome::new(&INFO, f.list, opts);
    let rounds = if opts.quick { 2 } else { 5 };
    // Interleaved rounds: every sleep length once per round, so a disturbance of a few
    // seconds touches all lengths alike instead of one.
    let mut pooled: Vec<Vec<f64>> = vec![Vec::new(); CURVE.len()];
    let mut medians: Vec<Vec<f64>> = vec![Vec::new(); CURVE.len()];
    let mut first: Vec<Option<Report>> = vec![None; CURVE.len()];
    let mut idle = Vec::new();
    let mut loaded = Vec::new();
    let mut round_idle_loaded = Vec::new();
    let mut cmp_report = None;
    let hogs = LoadSpec {
        kind: LoadKind::Cpu,
        threads: 30,
    };
    for _ in 0..rounds {
        for (i, (ms, full, quick)) in CURVE.iter().enumerate() {
            let r = measure(
                naive(ms * MS, if opts.quick { *quick } else { *full }),
                None,
            )?;
            medians[i].push(Robust::of(&r.phases[0]).median);
            pooled[i].extend_from_slice(&r.phases[0]);
            if first[i].is_none() {
                first[i] = Some(r.report);
            }
        }
        let c = measure(naive(10 * MS, if opts.quick { 10 } else { 30 }), Some(hogs))?;
        round_idle_loaded.push((
            Robust::of(&c.phases[0]).median,
            Robust::of(&c.phases[1]).median,
        ));
        idle.extend_from_slice(&c.phases[0]);
        loaded.extend_from_slice(&c.phases[1]);
        cmp_report.get_or_insert(c.report);
    }
    let at = |ms: i64| CURVE.iter().position(|c| c.0 == ms).unwrap_or(0);
    let stat = |ms: i64| Robust::of(&pooled[at(ms)]);

    // The document's points on the curve, and their spread.
    for (ms, label, mean_id, stdev_id) in [
        (10, "10 ms", "10 ms mean", "10 ms stdev"),
        (100, "100 ms", "100 ms mean", "100 ms stdev"),
        (1000, "1 s", "1 s mean", "1 s stdev"),
    ] {
        let s = stat(ms);
        let m = format!("{rounds} interleaved rounds, pooled: {}", stats_text(&s));
        for (what, v) in [
            ("mean", s.mean),
            ("median", s.median),
            ("trimmed mean", s.trimmed_mean),
        ] {
            let mut r = f.not_compared(
                &format!("{label} naive sleep: {what} wake-up latency"),
                mean_id,
                &[],
                ELSEWHERE,
            );
            r.latscope = v;
            out.rows.push(r.method(&m));
        }
        let mut r = f.not_compared(
            &format!("{label} naive sleep: stdev"),
            stdev_id,
            &[],
            ELSEWHERE,
        );
        r.latscope = s.stdev;
        out.rows.push(r.method(&m));
    }

    // Longer sleeps wake later: the medians, pooled and round by round.
    let (s10, s1000) = (stat(10), stat(1000));
    let rounds_later = medians[at(1000)]
        .iter()
        .zip(&medians[at(10)])
        .filter(|(a, b)| a > b)
        .count();
    let later = s1000.median > s10.median && 2 * rounds_later > rounds;
    let env = first[at(10)]
        .as_ref()
        .map(|r| r.environment.items.clone())
        .unwrap_or_default();
    let item = |name: &str| {
        env.iter()
            .find(|i| i.name == name)
            .map(|i| format!("{}: {}", i.name, i.value))
    };
    let mut row = f
        .finding(
            "longer sleeps wake later (1 s vs 10 ms, medians)",
            "longer later",
            later,
            &[],
        )
        .method(&format!(
            "median of 1 s sleeps {:.1} us vs 10 ms sleeps {:.1} us pooled; later in {rounds_later} of {rounds} rounds (yes when later pooled and in most rounds)",
            s1000.median, s10.median
        ));
    if !later {
        row = row.explain(&format!(
            "The document's explanation is deep sleep: a CPU idle for a second sits in a deeper \
             idle state and takes longer to wake. This machine does not show it; its diagnosis: \
             {}.",
            [item("cpuidle"), item("cpufreq"), item("hypervisor")]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    out.rows.push(row);

    // Idle against 30 CPU hogs, and the governor experiment.
    let (si, sl) = (Robust::of(&idle), Robust::of(&loaded));
    let cmp_m = format!(
        "{rounds} rounds of idle then 30 hogs, 10 ms sleeps; idle {}; loaded {}",
        stats_text(&si),
        stats_text(&sl)
    );
    for (words, id, v) in [
        ("10 ms sleep with 30 CPU hogs: mean", "hogs mean", sl.mean),
        (
            "10 ms sleep with 30 CPU hogs: median",
            "hogs mean",
            sl.median,
        ),
        (
            "10 ms sleep with 30 CPU hogs: stdev",
            "hogs stdev",
            sl.stdev,
        ),
    ] {
        let mut r = f.not_compared(words, id, &[], ELSEWHERE);
        r.latscope = v;
        out.rows.push(r.method(&cmp_m));
    }
    let cpufreq = env.iter().find(|i| i.name == "cpufreq");
    let governor = cpufreq.map(|i| i.value.clone()).unwrap_or_default();
    let no_cpufreq = cpufreq.is_none() || governor.contains("not exposed");
    let faster_rounds = round_idle_loaded.iter().filter(|(i, l)| l < i).count();
    let measured = format!(
        "measured here: median {:.1} us idle, {:.1} us with 30 hogs (faster under load in {faster_rounds} of {rounds} rounds)",
        si.median, sl.median
    );
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let steal = if sl.median > si.median {
        format!(
            "here load makes wake-ups later: 30 hogs share {cpus} CPU(s) with the sleeping \
             thread, which as a SCHED_OTHER thread waits for its turn once woken (the Pi had 4 \
             cores, and a governor that raised the clock under load)"
        )
    } else {
        format!(
            "here load makes wake-ups earlier without any governor: a busy CPU does not enter \
             an idle state and a busy vCPU is descheduled by the hypervisor less often ({})",
            [item("cpuidle"), item("steal_time")]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    if no_cpufreq {
        out.rows.push(
            f.not_compared(
                "30 CPU hogs make wake-ups faster (ondemand governor)",
                "faster under load",
                &[],
                &format!(
                    "Not measurable on this host: the effect is the ondemand governor raising the \
                     clock under load, and the diagnosis finds {}; {measured}; {steal}.",
                    item("cpufreq").unwrap_or_else(|| "no cpufreq item".into())
                ),
            )
            .method(&cmp_m),
        );
    } else if governor.contains("performance") {
        out.rows.push(
            f.not_compared(
                "30 CPU hogs make wake-ups faster (ondemand governor)",
                "faster under load",
                &[],
                &format!(
                    "This host runs the performance governor ({governor}): the clock cannot rise \
                     under load, which is the document's own control experiment; {measured}."
                ),
            )
            .method(&cmp_m),
        );
    } else {
        out.rows.push(
            f.finding(
                "30 CPU hogs make wake-ups faster (a governor that lowers the idle clock)",
                "faster under load",
                sl.median < si.median && 2 * faster_rounds > rounds,
                &[],
            )
            .method(&format!("governor {governor}; {measured}")),
        );
    }
    let how = if no_cpufreq {
        format!(
            "Not measurable on this host: there is no cpufreq driver to switch to the performance \
             governor ({}). Run the scenario where one exists, once per governor.",
            item("cpufreq").unwrap_or_else(|| "cpufreq not diagnosed".into())
        )
    } else {
        format!(
            "latscope does not change the governor itself (current: {governor}); as root, write \
             'performance' to /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor and run the \
             scenario again."
        )
    };
    for (words, id) in [
        ("performance governor, idle: mean", "performance mean"),
        ("performance governor, idle: stdev", "performance stdev"),
        (
            "performance governor, 30 hogs: mean",
            "performance hogs mean",
        ),
        (
            "performance governor, 30 hogs: stdev",
            "performance hogs stdev",
        ),
    ] {
        out.rows.push(f.not_compared(words, id, &[], &how));
    }
    out.rows.push(f.not_compared(
        "the governor explains the faster wake-ups under load",
        "governor explains",
        &[],
        &how,
    ));

    // What latscope measures by default, for contrast: absolute SCHED_FIFO wake-ups.
    let rt = Settings {
        cpus: vec![0],
        interval_ns: 10 * MS,
        stop: Stop::Loops(if opts.quick { 30 } else { 100 }),
        allow_fallback: true,
        ..Settings::default()
    };
    let rt10 = measure(rt, None)?;
    let srt = Robust::of(&rt10.phases[0]);
    out.notes.push(format!(
        "Absolute SCHED_FIFO 80 wake-ups at 10 ms on this machine (policy {}): {}; the naive relative sleep: {}.",
        rt10.report.settings.policy,
        stats_text(&srt),
        stats_text(&s10)
    ));
    let curve: Vec<String> = CURVE
        .iter()
        .enumerate()
        .map(|(i, (ms, _, _))| {
            let s = Robust::of(&pooled[i]);
            format!("{ms} ms: median {:.1} us (mean {:.1})", s.median, s.mean)
        })
        .collect();
    out.notes.push(format!(
        "Sleep-length curve on this machine: {}. The document's points: 10 ms 105.2 us, 100 ms 142.6 us, 1 s 1042.4 us (means, Raspberry Pi 4).",
        curve.join(", ")
    ));
    let why: Vec<String> = env
        .iter()
        .filter(|i| {
            [
                "cpufreq",
                "cpuidle",
                "hypervisor",
                "steal_time",
                "timer_slack",
            ]
            .iter()
            .any(|k| i.name.contains(k))
        })
        .map(|i| format!("{}: {} ({})", i.name, i.value, i.effect))
        .collect();
    if !why.is_empty() {
        out.notes.push(format!(
            "Why this machine may differ from the Pi 4 — {}",
            why.join("; ")
        ));
    }
    if opts.out_dir.is_some() {
        let mut csv = String::from(
            "sleep_ms,published_mean_us,count,mean_us,median_us,trimmed_mean_us,stdev_us,max_us\n",
        );
        for (i, (ms, _, _)) in CURVE.iter().enumerate() {
            let s = Robust::of(&pooled[i]);
            let published = match ms {
                10 => "105.2",
                100 => "142.6",
                1000 => "1042.4",
                _ => "",
            };
            csv.push_str(&format!(
                "{ms},{published},{},{:.3},{:.3},{:.3},{:.3},{:.3}\n",
                s.count, s.mean, s.median, s.trimmed_mean, s.stdev, s.max
            ));
        }
        out.artifact(opts, NAME, "sleep-curve.csv", csv.as_bytes())?;
    }
    // One run per sleep length (the first round), the comparison and the RT run: the
    // report draws the sleep-length chart from the first ones.
    for r in first.into_iter().flatten() {
        out.results
            .push(serde_json::to_value(&r).map_err(run_err(NAME))?);
    }
    if let Some(c) = cmp_report {
        out.results
            .push(serde_json::to_value(&c).map_err(run_err(NAME))?);
    }
    out.results
        .push(serde_json::to_value(&rt10.report).map_err(run_err(NAME))?);
    Ok(out)
}
