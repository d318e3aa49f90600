//! Seed 002: Linux wake-up latency with a naive Python sleep loop on a Raspberry Pi 4 —
//! run live on the machine latscope runs on.
//!
//! The published figures come from other hardware (a Pi 4 with the ondemand governor),
//! so latscope's absolute figures are shown beside them for context (role `input`: never
//! counted as reproduced). What can be predicted is the document's qualitative finding
//! that longer sleeps wake later; the environment diagnosis says why this machine may
//! behave differently (no cpufreq governor in a VM guest, idle states, steal time).

use crate::{Info, Options, Outcome, Row, ScenarioError};
use latscope_measure::session::{execute, prepare, Plan};
use latscope_measure::settings::{LoadKind, LoadSpec, Policy, Settings, Stop, TimerMode};
use latscope_measure::Report;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub const INFO: Info = Info {
    name: "linux-wakeup",
    title:
        "Linux timer wake-up latency: naive sleep vs absolute RT, sleep sweep, idle vs 30 CPU hogs",
    seed: "seed 002",
    summary: "live on this machine, with the environment diagnosis",
    live: true,
};

const NAME: &str = "linux-wakeup";
const MS: i64 = 1_000_000;

fn measure(settings: Settings, compare: Option<LoadSpec>) -> Result<Report, ScenarioError> {
    let mut plan = Plan::new(settings);
    plan.compare_load = compare;
    let prep = prepare(&plan).map_err(crate::run_err(NAME))?;
    let stop = Arc::new(AtomicBool::new(false));
    let out = execute(&plan, &prep, &stop, &mut |_, _| {}).map_err(crate::run_err(NAME))?;
    Ok(out.report)
}

/// The seed's method: a relative sleep of `interval` in an ordinary (SCHED_OTHER) thread.
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

fn us(ns: f64) -> f64 {
    ns / 1000.0
}

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let mut out = Outcome::new(&INFO, opts);
    let src = "seed 002 (Raspberry Pi 4, ondemand governor)";
    let ctx = "measured live on this machine; the published figure is from other hardware";
    let scale = |full: u64, quick: u64| if opts.quick { quick } else { full };

    // 1. The seed's naive loop: 10 ms relative sleeps, SCHED_OTHER.
    let naive10 = measure(naive(10 * MS, scale(100, 30)), None)?;
    out.rows.push(
        Row::input(
            "mean wake-up latency, 10 ms naive sleep",
            105.0,
            us(naive10.total.mean_ns),
            "us",
        )
        .source(src)
        .method(ctx),
    );
    out.rows.push(
        Row::input(
            "stdev, 10 ms naive sleep",
            14.6,
            us(naive10.total.stdev_ns),
            "us",
        )
        .source(src)
        .method(ctx),
    );
    // 2. What latscope measures by default: absolute wake-ups, SCHED_FIFO 80.
    let rt = Settings {
        cpus: vec![0],
        interval_ns: 10 * MS,
        stop: Stop::Loops(scale(100, 30)),
        allow_fallback: true,
        ..Settings::default()
    };
    let rt10 = measure(rt, None)?;
    out.notes.push(format!(
        "Absolute SCHED_FIFO 80 wake-ups at 10 ms on this machine: mean {:.1} us, max {:.1} us (policy {}), against {:.1} us / {:.1} us for the naive relative sleep.",
        us(rt10.total.mean_ns),
        us(rt10.total.max_ns as f64),
        rt10.settings.policy,
        us(naive10.total.mean_ns),
        us(naive10.total.max_ns as f64)
    ));
    // 3. Sleep length: 100 ms and 1 s (the seed's "mysteries remaining").
    let naive100 = measure(naive(100 * MS, scale(30, 8)), None)?;
    let naive1s = measure(naive(1000 * MS, scale(10, 3)), None)?;
    out.rows.push(
        Row::input(
            "mean wake-up latency, 100 ms naive sleep",
            143.0,
            us(naive100.total.mean_ns),
            "us",
        )
        .source(src)
        .method(ctx),
    );
    out.rows.push(
        Row::input(
            "mean wake-up latency, 1 s naive sleep",
            1042.0,
            us(naive1s.total.mean_ns),
            "us",
        )
        .source(src)
        .method(ctx),
    );
    let longer_later = naive1s.total.mean_ns > naive10.total.mean_ns;
    out.rows.push(
        Row::prediction_abs(
            "longer sleeps wake later (1 s vs 10 ms; 1 = yes)",
            1.0,
            if longer_later { 1.0 } else { 0.0 },
            "yes=1",
            0.0,
        )
        .source("seed 002 ('longer sleep times increase wakeup latency')")
        .method("sign of mean(1 s) - mean(10 ms), measured live"),
    );
    // 4. Idle against 30 CPU hogs, back to back.
    let hogs = LoadSpec {
        kind: LoadKind::Cpu,
        threads: 30,
    };
    let cmp = measure(naive(10 * MS, scale(100, 30)), Some(hogs))?;
    if let Some(c) = &cmp.compare {
        out.rows.push(
            Row::input(
                "mean latency, 10 ms sleep, idle",
                105.0,
                us(c.idle.total.mean_ns),
                "us",
            )
            .source(src)
            .method(ctx),
        );
        out.rows.push(
            Row::input(
                "mean latency, 10 ms sleep, 30 CPU hogs",
                67.0,
                us(c.loaded.total.mean_ns),
                "us",
            )
            .source(src)
            .method(ctx),
        );
    }
    let governors: Vec<String> = naive10
        .environment
        .items
        .iter()
        .filter(|i| {
            i.name.contains("cpufreq")
                || i.name.contains("governor")
                || i.name.contains("idle")
                || i.name.contains("hypervisor")
                || i.name.contains("steal")
        })
        .map(|i| format!("{}: {} ({})", i.name, i.value, i.effect))
        .collect();
    if !governors.is_empty() {
        out.notes.push(format!(
            "Why this machine may differ from the Pi 4 — {}",
            governors.join("; ")
        ));
    }
    out.notes.push(
        "The seed's 30 CPU hogs made the Pi faster because the ondemand governor raised the clock; \
         the same run with the performance governor showed no difference (65 vs 67 us). Where no \
         cpufreq governor is exposed (VM guests), load changes latency through idle states and steal time instead."
            .into(),
    );
    for r in [naive10, rt10, naive100, naive1s, cmp] {
        out.results
            .push(serde_json::to_value(&r).map_err(crate::run_err(NAME))?);
    }
    Ok(out)
}
