//! "Wakeup Latency, CPU Frequency (Gotcha)": Linux wake-up latency with a naive Python
//! sleep loop on a Raspberry Pi 4, and the mechanism behind its figures: timer slack.
//!
//! The document's loop is Python's `time.sleep` in an ordinary thread, with the default
//! timer slack of 50 us. Python up to 3.10 slept in `select()`, whose slack is
//! max(50 us, timeout / 1000) (the kernel's `select_estimate_accuracy`): 50 us at 10 ms,
//! 100 us at 100 ms, 1000 us at 1 s. That rule predicts the document's 100 ms and 1 s
//! figures from its 10 ms point; the scenario compares them with the document.
//!
//! Live, on the machine it runs on, the scenario runs the same loop (a bundled script,
//! `scenarios/linux-wakeup/sleep_loop.py`, with the system's `python3`) with `time.sleep`
//! and with `select()`, beside latscope's own measurement of the same relative sleep with
//! the thread's slack at the SCHED_OTHER default (50 us) and at 1 ns. Those figures
//! describe this machine, not the Pi: they are shown, not compared. The governor
//! experiment is explained only where a cpufreq driver exists.

use crate::documents::WAKEUP;
use crate::robust::Robust;
use crate::row::{Figure, Figures};
use crate::{run_err, Info, Options, Outcome, ScenarioError};
use latscope_measure::env::Item;
use latscope_measure::session::{execute, prepare, Plan};
use latscope_measure::settings::{
    LoadKind, LoadSpec, Policy, SampleFormat, Settings, Stop, TimerMode,
};
use latscope_measure::Report;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

pub const INFO: Info = Info {
    name: "linux-wakeup",
    title: "Linux timer wake-up latency: the naive Python sleep loop and timer slack",
    document: &WAKEUP,
    summary: "the 100 ms and 1 s figures from the 10 ms point and the select() slack rule; live: the document's loop (time.sleep and select()) beside latscope with 50 us and 1 ns slack",
    live: true,
};

const NAME: &str = "linux-wakeup";
const MS: i64 = 1_000_000;
/// The document's loop, run with the system's python3.
pub const SCRIPT: &str = include_str!("../../../scenarios/linux-wakeup/sleep_loop.py");

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

/// The default timer slack of a SCHED_OTHER thread (ns).
pub const DEFAULT_SLACK_NS: u64 = 50_000;

/// The slack the kernel gives a `select()` sleep of `timeout_us` in an ordinary thread
/// with the default slack, in us: max(50 us, timeout / 1000) (`select_estimate_accuracy`).
pub fn select_slack_us(timeout_us: f64) -> f64 {
    select_slack_niced_us(timeout_us, 0)
}

/// The same for a process of nice value `nice`: a positive one divides the timeout by
/// 200 instead of 1000 (the kernel's `__estimate_accuracy`), so `nice cargo test` or a
/// niced service sleeping 1 s in select() wakes up to 5 ms late.
pub fn select_slack_niced_us(timeout_us: f64, nice: i64) -> f64 {
    let div = if nice > 0 { 200.0 } else { 1000.0 };
    (timeout_us / div).max(DEFAULT_SLACK_NS as f64 / 1e3)
}

/// The document's sleep lengths with loops per run (full, quick).
const LENGTHS: [(i64, &str, u64, u64); 3] = [
    (10, "10 ms", 100, 30),
    (100, "100 ms", 20, 5),
    (1000, "1 s", 7, 5),
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

/// The document's method in latscope: a relative sleep of `interval` in an ordinary
/// (SCHED_OTHER) thread with `slack_ns` of timer slack.
fn naive(interval_ns: i64, loops: u64, slack_ns: u64) -> Settings {
    Settings {
        cpus: vec![0],
        policy: Policy::Other,
        priority: 0,
        allow_fallback: true,
        mode: TimerMode::Relative,
        interval_ns,
        stop: Stop::Loops(loops),
        timer_slack_ns: slack_ns,
        ..Settings::default()
    }
}

/// One run of the bundled loop: the late times (us) and the slack the script's thread had.
pub struct PyRun {
    pub late_us: Vec<f64>,
    pub slack_ns: Option<u64>,
    /// The process's nice value (select()'s slack divides by 200 above 0).
    pub nice: i64,
    pub python: String,
}

/// Why the bundled loop gave no samples; each message names the file or program.
#[derive(Debug, thiserror::Error)]
pub enum PyLoopError {
    #[error("{}: {source}", path.display())]
    File {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("cannot run python3: {0}")]
    Spawn(std::io::Error),
    #[error("python3 sleep_loop.py failed ({status}): {stderr}")]
    Failed {
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("sleep_loop.py printed no JSON: {0}")]
    NoJson(serde_json::Error),
    #[error("sleep_loop.py gave no samples")]
    NoSamples,
}

/// Runs the bundled script with the system's `python3` (`select`: sleep in select()).
pub fn python_loop(interval_ms: i64, loops: u64, select: bool) -> Result<PyRun, PyLoopError> {
    let dir = std::env::temp_dir().join(format!(
        "latscope-sleep-loop-{}-{}",
        std::process::id(),
        RUN_ID.fetch_add(1, Ordering::Relaxed)
    ));
    let file = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| PyLoopError::File { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(file(&dir))?;
    let script = dir.join("sleep_loop.py");
    std::fs::write(&script, SCRIPT).map_err(file(&script))?;
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(&script)
        .arg(format!("{}", interval_ms as f64 / 1e3))
        .arg(loops.to_string());
    if select {
        cmd.arg("--select");
    }
    let out = cmd.output();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.map_err(PyLoopError::Spawn)?;
    if !out.status.success() {
        return Err(PyLoopError::Failed {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(PyLoopError::NoJson)?;
    let late_us: Vec<f64> = v["late_us"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
        .unwrap_or_default();
    if late_us.is_empty() {
        return Err(PyLoopError::NoSamples);
    }
    Ok(PyRun {
        late_us,
        slack_ns: v["timer_slack_ns"].as_u64(),
        nice: v["nice"].as_i64().unwrap_or(0),
        python: v["python"].as_str().unwrap_or("?").to_string(),
    })
}

fn stats_text(r: &Robust) -> String {
    format!(
        "n = {}, median {:.1}, mean {:.1}, stdev {:.1}, min {:.1}, max {:.1} µs",
        r.count, r.median, r.mean, r.stdev, r.min, r.max
    )
}

const ELSEWHERE: &str = "Measured live on this machine; the published figure is a Raspberry Pi 4 \
    with the ondemand governor: shown side by side, not compared.";

/// The live medians of one sleep length: the document's loop with time.sleep and with
/// select(), latscope with 50 us and with 1 ns slack (us; NaN where a run failed).
#[derive(Clone, Copy, Debug)]
pub struct Live {
    pub ms: i64,
    pub sleep: f64,
    pub select: f64,
    pub slack50: f64,
    pub slack1: f64,
}

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let f = figures();
    let mut out = Outcome::new(&INFO, f.list, opts);
    document_rows(&f, &mut out);
    let mut reports: Vec<Report> = Vec::new();
    let live = live_rows(&f, opts, &mut out, &mut reports)?;
    // The governor experiment and the machine note read the first run's diagnosis.
    let env = reports
        .first()
        .map(|r| r.environment.items.clone())
        .unwrap_or_default();
    governor_rows(&f, opts, &env, &mut out, &mut reports)?;
    machine_note(&env, &mut out);
    if opts.out_dir.is_some() {
        out.artifact(opts, NAME, "sleep-lengths.csv", &lengths_csv(&f, &live)?)?;
    }
    for r in reports {
        out.results
            .push(serde_json::to_value(&r).map_err(run_err(NAME))?);
    }
    Ok(out)
}

/// A figure of the document by its id (NaN when it has none).
fn value(f: &Figures, id: &str) -> f64 {
    f.get(id).map(|g| g.value).unwrap_or(f64::NAN)
}

/// The document's figures and the slack rule: the 100 ms and 1 s means predicted from
/// the shorter sleeps, and the finding that longer sleeps wake later.
fn document_rows(f: &Figures, out: &mut Outcome) {
    let value = |id: &str| value(f, id);
    out.rows.push(
        f.input(
            "10 ms sleep, mean (the base point)",
            "10 ms mean",
            value("10 ms mean"),
        )
        .method("the document's './jitter.py 0.01 100'"),
    );
    // A mean of 100 wake-ups is known to its standard error, stdev / sqrt(100); a
    // prediction from one mean to another carries both.
    let se = |id: &str| value(id) / 10.0;
    let tol = |a: &str, b: &str| 2.0 * (se(a).powi(2) + se(b).powi(2)).sqrt();
    let miss_why = format!(
        "The slack part follows the rule: from 100 ms to 1 s the document's means grow by \
         {:.1} us where the rule adds 900 us. The rest, the wake-up itself, is not constant: \
         {:.1} us at 10 ms (105.2 - 50) against {:.1} us at 100 ms and {:.1} us at 1 s. The \
         document ran the ondemand governor; with the performance governor its 10 ms figure \
         is 67.0 us, i.e. 17 us plus the 50 us slack. The rule predicts the slack, not the \
         governor's share.",
        value("1 s mean") - value("100 ms mean"),
        value("10 ms mean") - select_slack_us(10_000.0),
        value("100 ms mean") - select_slack_us(100_000.0),
        value("1 s mean") - select_slack_us(1_000_000.0),
    );
    for (target, from, from_us, to_us, words) in [
        (
            "100 ms mean",
            "10 ms mean",
            10_000.0,
            100_000.0,
            "100 ms sleep, mean: the 10 ms point + select() slack rule",
        ),
        (
            "1 s mean",
            "10 ms mean",
            10_000.0,
            1_000_000.0,
            "1 s sleep, mean: the 10 ms point + select() slack rule",
        ),
        (
            "1 s mean",
            "100 ms mean",
            100_000.0,
            1_000_000.0,
            "1 s sleep, mean: the 100 ms point + select() slack rule",
        ),
    ] {
        let pred = value(from) - select_slack_us(from_us) + select_slack_us(to_us);
        let stdev_of = |m: &str| m.replace("mean", "stdev");
        let t = tol(&stdev_of(from), &stdev_of(target));
        let row = f
            .prediction_abs(words, target, pred, t, &[from])
            .tolerance_because(&format!(
                "±{t:.2} us: each figure is the mean of 100 wake-ups, known to its standard error \
                 (stdev / 10: {:.2} and {:.2} us); two standard errors of the difference",
                se(&stdev_of(from)),
                se(&stdev_of(target))
            ))
            .method(&format!(
                "{from} {:.1} us - slack {:.0} us + slack {:.0} us; select() slack = max(50 us, timeout / 1000)",
                value(from),
                select_slack_us(from_us),
                select_slack_us(to_us)
            ));
        out.rows.push(if row.is_miss() {
            row.explain(&miss_why)
        } else {
            row
        });
    }
    out.rows.push(
        f.finding(
            "longer sleeps wake later (by construction of the select() slack rule)",
            "longer later",
            select_slack_us(1_000_000.0) > select_slack_us(10_000.0),
            &[],
        )
        .method("select() slack: 50 us at 10 ms, 1000 us at 1 s. The document's guess, a deeper idle state after a longer sleep, is not needed to explain its figures"),
    );
}

/// Which Python ran the document's loop: (version, thread timer slack ns, nice).
type PyInfo = (String, Option<u64>, i64);

/// Live: the document's loop and latscope, side by side, at every sleep length; then
/// the notes that compare them.
fn live_rows(
    f: &Figures,
    opts: &Options,
    out: &mut Outcome,
    reports: &mut Vec<Report>,
) -> Result<Vec<Live>, ScenarioError> {
    let mut live: Vec<Live> = Vec::new();
    let mut py_info: Option<PyInfo> = None;
    let mut py_error = None;
    for (ms, label, full, quick) in LENGTHS {
        let loops = if opts.quick { quick } else { full };
        let mut l = Live {
            ms,
            sleep: f64::NAN,
            select: f64::NAN,
            slack50: f64::NAN,
            slack1: f64::NAN,
        };
        for select in [false, true] {
            match python_loop(ms, loops, select) {
                Ok(r) => {
                    python_row(f, out, label, select, &r, &mut l);
                    py_info.get_or_insert((r.python.clone(), r.slack_ns, r.nice));
                }
                Err(e) => {
                    py_error.get_or_insert(e.to_string());
                }
            }
        }
        // latscope's own runs at 1 s are shorter: the slack does not grow there (clock_nanosleep).
        let lat_loops = if ms >= 1000 { loops.min(3) } else { loops };
        for slack in [DEFAULT_SLACK_NS, 1] {
            reports.push(latscope_row(f, out, (ms, label), lat_loops, slack, &mut l)?);
        }
        live.push(l);
    }
    live_notes(out, &live, py_info.as_ref(), py_error.as_deref());
    Ok(live)
}

/// One row of the document's loop on this machine (time.sleep or select()).
fn python_row(f: &Figures, out: &mut Outcome, label: &str, select: bool, r: &PyRun, l: &mut Live) {
    let st = Robust::of(&r.late_us);
    if select {
        l.select = st.median;
    } else {
        l.sleep = st.median;
    }
    let how = if select {
        "select() (as Python up to 3.10 slept)"
    } else {
        "time.sleep (clock_nanosleep since Python 3.11)"
    };
    let mut row = f.not_compared(
        &format!("{label} sleep, this machine: the document's loop, {how}, median"),
        &format!("{label} mean"),
        &[],
        ELSEWHERE,
    );
    row.latscope = st.median;
    out.rows.push(row.method(&format!(
        "python3 {} sleep_loop.py{}: thread slack {} ns, nice {}; {}",
        r.python,
        if select { " --select" } else { "" },
        r.slack_ns.map_or("unknown".into(), |s| s.to_string()),
        r.nice,
        stats_text(&st)
    )));
}

/// One row of latscope measuring the same sleep with this timer slack; returns its
/// report.
fn latscope_row(
    f: &Figures,
    out: &mut Outcome,
    (ms, label): (i64, &str),
    loops: u64,
    slack: u64,
    l: &mut Live,
) -> Result<Report, ScenarioError> {
    let r = measure(naive(ms * MS, loops, slack), None)?;
    let st = Robust::of(&r.phases[0]);
    if slack == 1 {
        l.slack1 = st.median;
    } else {
        l.slack50 = st.median;
    }
    let mut row = f.not_compared(
        &format!(
            "{label} sleep, this machine: latscope measure, slack {}, median",
            if slack == 1 { "1 ns" } else { "50 us" }
        ),
        &format!("{label} mean"),
        &[],
        ELSEWHERE,
    );
    row.latscope = st.median;
    out.rows.push(row.method(&format!(
        "latscope measure --policy other --mode relative --interval {label} --timer-slack {}: {}",
        if slack == 1 { "1ns" } else { "50us" },
        stats_text(&st)
    )));
    Ok(r.report)
}

/// The notes on the live runs: why the document's loop could not run, the medians side
/// by side, the slack rule on this machine's own loop, and which Python ran it.
fn live_notes(out: &mut Outcome, live: &[Live], py_info: Option<&PyInfo>, py_error: Option<&str>) {
    if let Some(e) = py_error {
        out.notes.push(format!(
            "The document's loop could not run here ({e}): its live rows are missing; latscope's are shown."
        ));
    }
    let at = |ms: i64| live.iter().find(|l| l.ms == ms).copied();
    if let (Some(a), Some(b), Some(c)) = (at(10), at(100), at(1000)) {
        out.notes.push(format!(
            "Live on this machine, medians in us (the document's loop with time.sleep / with select() / latscope with 50 us slack / with 1 ns slack): 10 ms {:.1} / {:.1} / {:.1} / {:.1}; 100 ms {:.1} / {:.1} / {:.1} / {:.1}; 1 s {:.1} / {:.1} / {:.1} / {:.1}.",
            a.sleep, a.select, a.slack50, a.slack1,
            b.sleep, b.select, b.slack50, b.slack1,
            c.sleep, c.select, c.slack50, c.slack1,
        ));
        let nice = py_info.map_or(0, |p| p.2);
        let rule = |us: f64| select_slack_niced_us(us, nice);
        out.notes.push(format!(
            "The slack rule on this machine's own select() loop (nice {nice}: timeout / {}): from its 10 ms median {:.1} us it predicts {:.1} us at 100 ms and {:.1} us at 1 s; measured {:.1} and {:.1} us. The default slack shows as the gap between latscope with 50 us and with 1 ns: {:.1} us at 10 ms.",
            if nice > 0 { 200 } else { 1000 },
            a.select,
            a.select - rule(10_000.0) + rule(100_000.0),
            a.select - rule(10_000.0) + rule(1_000_000.0),
            b.select,
            c.select,
            a.slack50 - a.slack1
        ));
    }
    if let Some((py, slack, nice)) = py_info {
        out.notes.push(format!(
            "The document's loop ran with python3 {py}, thread timer slack {} ns, nice {nice}. Python 3.11 and later sleep in clock_nanosleep (the thread's slack only, 50 us by default); up to 3.10 in select(), whose slack grows with the timeout: the document's 1042 us at 1 s is 1000 us of slack plus the wake-up.{}",
            slack.map_or("unknown".into(), |s| s.to_string()),
            if *nice > 0 {
                " This process runs niced, so the kernel gives its select() timeout / 200 of slack, five times the document's (5 ms at 1 s)."
            } else {
                ""
            }
        ));
    }
}

/// The document's governor rows: (words, figure id).
const GOV_ROWS: [(&str, &str); 5] = [
    ("10 ms sleep with 30 CPU hogs (ondemand): mean", "hogs mean"),
    ("performance governor, idle: mean", "performance mean"),
    (
        "performance governor, 30 hogs: mean",
        "performance hogs mean",
    ),
    (
        "30 CPU hogs make wake-ups faster (ondemand governor)",
        "faster under load",
    ),
    (
        "the governor explains the faster wake-ups under load",
        "governor explains",
    ),
];

/// The governor experiment: measured (idle against 30 CPU hogs) only where a cpufreq
/// driver exists; otherwise every row says why not.
fn governor_rows(
    f: &Figures,
    opts: &Options,
    env: &[Item],
    out: &mut Outcome,
    reports: &mut Vec<Report>,
) -> Result<(), ScenarioError> {
    let cpufreq = env.iter().find(|i| i.name == "cpufreq");
    let governor = cpufreq.map(|i| i.value.clone()).unwrap_or_default();
    if cpufreq.is_none() || governor.contains("not exposed") {
        let why = format!(
            "Not measurable on this host: there is no cpufreq driver, so no governor to change \
             ({}). The document's own figures: the governor moves only the wake-up part (55 us \
             ondemand, 17 us performance at 10 ms); the 50 us of slack stays.",
            cpufreq
                .map(|i| format!("{}: {}", i.name, i.value))
                .unwrap_or_else(|| "cpufreq not diagnosed".into())
        );
        for (words, id) in GOV_ROWS {
            out.rows.push(f.not_compared(words, id, &[], &why));
        }
        return Ok(());
    }
    let hogs = LoadSpec {
        kind: LoadKind::Cpu,
        threads: 30,
    };
    let c = measure(
        naive(10 * MS, if opts.quick { 30 } else { 100 }, DEFAULT_SLACK_NS),
        Some(hogs),
    )?;
    let (si, sl) = (Robust::of(&c.phases[0]), Robust::of(&c.phases[1]));
    let mut r = f.not_compared(GOV_ROWS[0].0, GOV_ROWS[0].1, &[], ELSEWHERE);
    r.latscope = sl.median;
    out.rows.push(r.method(&format!(
        "latscope measure --timer-slack 50us --compare-load cpu:30 at 10 ms: idle {}; loaded {}",
        stats_text(&si),
        stats_text(&sl)
    )));
    let how = format!(
        "latscope does not change the governor itself (current: {governor}); as root, write \
         'performance' to /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor and run the \
         scenario again."
    );
    for (words, id) in &GOV_ROWS[1..3] {
        out.rows.push(f.not_compared(words, id, &[], &how));
    }
    out.rows.push(
        f.finding(GOV_ROWS[3].0, GOV_ROWS[3].1, sl.median < si.median, &[])
            .method(&format!(
                "governor {governor}; medians {:.1} us idle, {:.1} us with 30 hogs",
                si.median, sl.median
            )),
    );
    out.rows
        .push(f.not_compared(GOV_ROWS[4].0, GOV_ROWS[4].1, &[], &how));
    reports.push(c.report);
    Ok(())
}

/// This machine's diagnosis that matters against the document's Pi 4.
fn machine_note(env: &[Item], out: &mut Outcome) {
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
        .map(|i| format!("{}: {}", i.name, i.value))
        .collect();
    if !why.is_empty() {
        out.notes.push(format!(
            "This machine against the Pi 4 — {}",
            why.join("; ")
        ));
    }
}

/// sleep-lengths.csv: per sleep length, the published mean beside the live medians.
fn lengths_csv(f: &Figures, live: &[Live]) -> Result<Vec<u8>, ScenarioError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "sleep_ms",
        "published_mean_us",
        "python_sleep_median_us",
        "python_select_median_us",
        "latscope_slack50us_median_us",
        "latscope_slack1ns_median_us",
    ])
    .map_err(run_err(NAME))?;
    for l in live {
        let published = match l.ms {
            10 => value(f, "10 ms mean"),
            100 => value(f, "100 ms mean"),
            _ => value(f, "1 s mean"),
        };
        w.write_record([
            l.ms.to_string(),
            published.to_string(),
            format!("{:.3}", l.sleep),
            format!("{:.3}", l.select),
            format!("{:.3}", l.slack50),
            format!("{:.3}", l.slack1),
        ])
        .map_err(run_err(NAME))?;
    }
    w.into_inner().map_err(run_err(NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_lengths_csv_reads_back_as_written() {
        let live = [
            Live {
                ms: 10,
                sleep: 61.25,
                select: 112.5,
                slack50: 58.0,
                slack1: 7.125,
            },
            Live {
                ms: 1000,
                sleep: f64::NAN,
                select: 1061.0,
                slack50: 60.5,
                slack1: 9.0,
            },
        ];
        let f = figures();
        let bytes = lengths_csv(&f, &live).unwrap();
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        assert_eq!(r.headers().unwrap().len(), 6);
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(rows.len(), live.len());
        for (row, l) in rows.iter().zip(&live) {
            let num = |i: usize| row[i].parse::<f64>().unwrap();
            assert_eq!(num(0), l.ms as f64);
            let published = f
                .get(if l.ms == 10 { "10 ms mean" } else { "1 s mean" })
                .unwrap()
                .value;
            assert_eq!(num(1), published);
            for (i, v) in [l.sleep, l.select, l.slack50, l.slack1]
                .into_iter()
                .enumerate()
            {
                let got = num(2 + i);
                assert!(
                    (got.is_nan() && v.is_nan()) || (got - v).abs() < 5e-4,
                    "column {}: {got} for {v}",
                    2 + i
                );
            }
        }
    }
}
