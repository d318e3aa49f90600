//! Miranda, de Oliveira, Carminati, "Analysis of FreeRTOS Overheads on Periodic Tasks",
//! Table 3 / Table 4: the context switch's cost grows with the priority levels
//! `taskSELECT_HIGHEST_PRIORITY_TASK` scans (generic task selection).
//!
//! Calibrate on part, predict the rest, per switch pair by simulating Table 3's task set:
//! * a straight line through the 1- and 2-iteration switches predicts the 3-, 4- and
//!   5-iteration ones (it misses: the first extra level costs far more than the others);
//! * a line with its own first step, calibrated on 1, 2 and 3 iterations, predicts the
//!   4- and 5-iteration ones.
//!
//! Simulated switch times include the entry latency L, which the paper's GPIO timing
//! inside the handler does not see: it is subtracted before comparing.

use crate::freertos_figures::figures;
use crate::row::Figures;
use crate::simulated::{report_json, simulate, simulate_config, write_vcd};
use crate::{run_err, Info, Options, Outcome, Row, ScenarioError};
use latscope_core::Picos;
use latscope_model::overheads::tick::{levels_scanned, TickCosts};
use latscope_model::system::{KernelCosts, System};
use latscope_sim::{from_system, FromSystemOptions, Kernel, Sim, SwitchCost};

pub const INFO: Info = Info {
    name: "freertos-context-switch",
    title: "FreeRTOS context-switch cost by priority levels scanned (Table 3, Table 4)",
    document: &crate::documents::FREERTOS,
    summary: "switch times of 3-5 loop iterations predicted per pair by simulating Table 3 from the 1- and 2-iteration points; a model with its own first step shown as a check",
    live: false,
};

const NAME: &str = "freertos-context-switch";
pub(crate) const SYSTEM: &str =
    include_str!("../../../scenarios/freertos-context-switch/system.toml");

/// A switch from one task to another, by name.
type Pair = (&'static str, &'static str);

/// Table 4: loop iterations, the figure's name, and the switches listed.
pub(crate) const TABLE4: [(u32, &str, &[Pair]); 5] = [
    (
        1,
        "Table 4, 1 iteration",
        &[
            ("A", "B"),
            ("B", "A"),
            ("B", "C"),
            ("C", "A"),
            ("C", "B"),
            ("C", "D"),
            ("D", "A"),
            ("D", "B"),
            ("D", "C"),
            ("IDLE", "A"),
            ("IDLE", "B"),
            ("IDLE", "C"),
            ("IDLE", "D"),
        ],
    ),
    (2, "Table 4, 2 iterations", &[("A", "C"), ("B", "D")]),
    (3, "Table 4, 3 iterations", &[("A", "D"), ("D", "IDLE")]),
    (4, "Table 4, 4 iterations", &[("B", "IDLE"), ("C", "IDLE")]),
    (5, "Table 4, 5 iterations", &[("A", "IDLE")]),
];

/// The paper's resolution: one sample of its 8 MS/s analyzer per time read.
const SAMPLE_US: f64 = crate::freertos_tick::SAMPLE_US;

/// The tolerance of the line through the 1- and 2-iteration points evaluated at `k`
/// levels: each point is read to one sample, the line carries them with weights |2 - k|
/// and k - 1, and the compared figure has its own sample.
fn line_tolerance(k: u32) -> (f64, String) {
    let k = k.max(2) as f64;
    let n = (k - 2.0) + (k - 1.0) + 1.0;
    (
        n * SAMPLE_US,
        format!(
            "±{:.3} us: every Table 4 figure is read to one sample of the 8 MS/s analyzer \
             (0.125 us); the line through 1 and 2 iterations carries those of its two points \
             with weights {} and {} at {} levels, and the compared figure has its own",
            n * SAMPLE_US,
            k - 2.0,
            k - 1.0,
            k
        ),
    )
}

pub(crate) fn system() -> Result<System, ScenarioError> {
    crate::load_system(NAME, SYSTEM)
}

fn us(p: Picos) -> f64 {
    p.as_us_f64()
}

/// Worst simulated time of the switch `from` -> `to`, in us, without L.
fn pair_us(sim: &Sim, l: Picos, from: &str, to: &str) -> f64 {
    let same =
        |a: &Option<String>, b: &str| a.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(b));
    sim.report()
        .switches
        .by_pair
        .iter()
        .find(|g| same(&g.from, from) && same(&g.to, to))
        .map(|g| g.max_ns / 1e3 - us(l))
        .unwrap_or(f64::NAN)
}

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let f = figures();
    let sys = system()?;
    let mut out = Outcome::new(&INFO, f.list, opts);
    let KernelCosts::Tick(c) = sys.kernel.costs else {
        return Err(run_err(NAME)("system.toml does not use the tick model"));
    };
    inputs(&f, &sys, &c, &mut out);
    let dur = Picos::from_ms(if opts.quick { 2_000 } else { 60_000 });
    let sim = simulate(
        NAME,
        &sys,
        &FromSystemOptions::default(),
        dur,
        opts.out_dir.is_some(),
    )?;
    line_rows(&f, &sys, &sim, &mut out);
    let sim2 = first_step_rows(&f, &sys, dur, &mut out)?;
    out.notes.push(format!(
        "Table 4's 3.255 us is {:.2} samples of the 8 MS/s analyzer (0.125 us each): not a time it can read between two edges. The neighbouring figures are whole numbers of samples (1.5 = 12, 2.875 = 23, 3.875 = 31, 4.375 = 35), so 3.255 is most likely 3.25 us (26 samples) with a stray digit; the rows compare with the printed 3.255.",
        3.255 / SAMPLE_US
    ));
    loop_rule(&sys, &mut out);
    census(&sys, &sim2, &mut out);
    out.notes.push(format!(
        "Why a simulated CS(A,IDLE) took 5.344 us against the published 4.375 us with the earlier least-squares line (1.826 us + 0.675 us per level): +0.151 us because that line gives {:.3} us at 5 iterations, +0.675 us because the paper's own rule scans 6 levels (6 - 0) where Table 4 lists 5, and +0.143 us for the entry latency L, which the paper's timing inside the handler does not see.",
        1.826 + 4.0 * 0.675
    ));
    write_vcd(NAME, &sim, opts, &mut out, "capture.vcd")?;
    out.results.push(report_json(NAME, &sim, 500)?);
    out.results.push(report_json(NAME, &sim2, 500)?);
    Ok(out)
}

/// A figure of the paper by its name, in its unit (NaN when the list has no such figure).
fn value(f: &Figures, id: &str) -> f64 {
    f.get(id).map(|g| g.value).unwrap_or(f64::NAN)
}

/// The task set, the entry latency and the calibration of system.toml's line through the
/// 1- and 2-iteration switches (calibration 1).
fn inputs(f: &Figures, sys: &System, c: &TickCosts, out: &mut Outcome) {
    out.rows.push(f.input(
        "tasks of Table 3 above idle",
        "Table 3",
        sys.tasks.len() as f64,
    ));
    out.rows.push(f.input(
        "interrupt entry latency L",
        "L",
        sys.platform.irq_entry_cycles as f64,
    ));
    for (k, id) in [(1, "Table 4, 1 iteration"), (2, "Table 4, 2 iterations")] {
        out.rows.push(
            f.input(
                &format!("switch with {k} iteration(s): calibration"),
                id,
                us(c.switch_cost(k)),
            )
            .method(
                "system.toml: switch_base and switch_per_level through Table 4's first two points",
            ),
        );
    }
}

/// What the line through the 1- and 2-iteration points uses.
const CAL12: [&str; 4] = [
    "Table 3",
    "loop rule",
    "Table 4, 1 iteration",
    "Table 4, 2 iterations",
];

/// The line through 1 and 2 iterations on the simulated Table 3 set: a check row over the
/// calibration points' pairs, and a prediction per pair of 3 to 5 iterations.
fn line_rows(f: &Figures, sys: &System, sim: &Sim, out: &mut Outcome) {
    let l = sys.platform.irq_entry();
    let line = "line through 1 and 2 iterations";
    for (k, id, pairs) in TABLE4 {
        if k <= 2 {
            // The calibration points: one check row over all their pairs.
            let got: Vec<f64> = pairs.iter().map(|(a, b)| pair_us(sim, l, a, b)).collect();
            let worst = got.iter().copied().fold(f64::NAN, f64::max);
            let all_there = got.iter().all(|g| g.is_finite());
            out.rows.push(
                f.check(
                    &format!("worst of Table 4's {}-iteration switches: {line}", k),
                    id,
                    if all_there { worst } else { f64::NAN },
                    &CAL12,
                )
                .method(&format!(
                    "simulated Table 3 set, worst of {} over the {} pairs listed, minus L",
                    pairs
                        .iter()
                        .map(|(a, b)| format!("CS({a},{b})"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    pairs.len()
                )),
            );
            continue;
        }
        for (from, to) in pairs {
            let got = pair_us(sim, l, from, to);
            let words = format!("CS({from},{to}), {k} iterations in Table 4: {line}");
            let rule = levels_scanned(prio(sys, from), prio(sys, to));
            let method = format!(
                "simulated Table 3 set, worst CS({from},{to}) minus L; the rule scans {rule} level(s)"
            );
            let (tol, why) = line_tolerance(rule);
            let r = f
                .prediction_abs(&words, id, got, tol, &CAL12)
                .tolerance_because(&why);
            let row = if r.is_miss() {
                r.explain(&line_miss(f, rule, k))
            } else {
                r
            };
            out.rows.push(row.method(&method));
        }
    }
}

/// Why the line misses a deeper switch: the step from 1 to 2 iterations is not a
/// per-level cost (and the paper's rule may scan another number of levels than Table 4
/// lists).
fn line_miss(f: &Figures, rule: u32, k: u32) -> String {
    format!(
        "The step from 1 to 2 iterations ({:.3} us) is not a per-level cost: \
         Table 4's further levels add {:.3}, {:.3} and {:.3} us. Extrapolating the \
         first step overestimates every deeper scan{}.",
        value(f, "Table 4, 2 iterations") - value(f, "Table 4, 1 iteration"),
        value(f, "Table 4, 3 iterations") - value(f, "Table 4, 2 iterations"),
        value(f, "Table 4, 4 iterations") - value(f, "Table 4, 3 iterations"),
        value(f, "Table 4, 5 iterations") - value(f, "Table 4, 4 iterations"),
        if rule != k {
            format!(
                "; and the paper's own rule (priority difference) gives this \
                 switch {rule} levels, not the {k} Table 4 lists"
            )
        } else {
            String::new()
        }
    )
}

/// Calibration 2: a first step, then a constant cost per further level (through 1, 2 and
/// 3 iterations); Table 3's set simulated again with it and checked against the 4- and
/// 5-iteration switches. Returns that simulation.
fn first_step_rows(
    f: &Figures,
    sys: &System,
    dur: Picos,
    out: &mut Outcome,
) -> Result<Sim, ScenarioError> {
    let (t1, t2, t3) = (
        value(f, "Table 4, 1 iteration"),
        value(f, "Table 4, 2 iterations"),
        value(f, "Table 4, 3 iterations"),
    );
    let cost = |k: u32| -> Picos {
        let us = match k {
            0 | 1 => t1,
            2 => t2,
            _ => t2 + (k - 2) as f64 * (t3 - t2),
        };
        Picos((us * 1e6).round() as i64)
    };
    let mut cfg = from_system(sys, &FromSystemOptions::default()).map_err(run_err(NAME))?;
    if let Kernel::Tick(k) = &mut cfg.kernel {
        if let SwitchCost::PerLevel(t) = &mut k.switch_cost {
            for (i, p) in t.iter_mut().enumerate() {
                *p = cost(i as u32);
            }
        }
    }
    let sim2 = simulate_config(NAME, cfg, &sys.source, dur, false)?;
    let step = format!(
        "first step {:.3} us, then {:.3} us per level",
        t2 - t1,
        t3 - t2
    );
    // Its form (a first step of its own) was chosen after seeing all five Table 4
    // points, so its agreement at 4 and 5 iterations is a check, not a prediction.
    let all5 = [
        "Table 3",
        "loop rule",
        "Table 4, 1 iteration",
        "Table 4, 2 iterations",
        "Table 4, 3 iterations",
        "Table 4, 4 iterations",
        "Table 4, 5 iterations",
    ];
    let l = sys.platform.irq_entry();
    for (k, id, pairs) in TABLE4.iter().skip(3) {
        for (from, to) in pairs.iter() {
            let rule = levels_scanned(prio(sys, from), prio(sys, to));
            out.rows.push(
                f.check(
                    &format!("CS({from},{to}), {k} iterations in Table 4: {step}"),
                    id,
                    pair_us(&sim2, l, from, to),
                    &all5,
                )
                .method(&format!(
                    "simulated Table 3 set with costs calibrated on 1-3 iterations, worst CS({from},{to}) minus L; the rule scans {rule} level(s). The model's form (its own first step) was chosen after seeing all five Table 4 points: a check of consistency, not a prediction"
                )),
            );
        }
    }
    Ok(sim2)
}

fn prio(sys: &System, name: &str) -> u32 {
    sys.tasks
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.priority)
        .unwrap_or(0)
}

/// The loop-count rule against the pairs Table 4 lists (the paper's arithmetic).
fn loop_rule(sys: &System, out: &mut Outcome) {
    let f = figures();
    let mut listed = 0;
    let mut matching = 0;
    let mut mismatches = Vec::new();
    for (k, _, pairs) in TABLE4 {
        for (from, to) in pairs {
            listed += 1;
            let got = levels_scanned(prio(sys, from), prio(sys, to));
            if got == k {
                matching += 1;
            } else {
                mismatches.push(format!("CS({from},{to}): rule {got}, Table 4 {k}"));
            }
        }
    }
    out.rows.push(
        f.derived(
            "Table 4 switches whose loop count the paper's rule gives",
            "Table 4 pairs",
            matching as f64,
            &["Table 3", "loop rule", "Table 4 pairs"],
        )
        .method("levels_scanned(from, to) with Table 3 priorities, idle = 0"),
    );
    debug_assert!(listed == 20);
    if !mismatches.is_empty() {
        out.notes.push(format!(
            "Table 4 is not fully consistent with its own rule ('subtracting the priority'): {}. latscope's simulator follows the rule.",
            mismatches.join("; ")
        ));
    }
}

/// Which switch is costliest, and how many distinct switch times each task has.
fn census(sys: &System, sim: &Sim, out: &mut Outcome) {
    let f = figures();
    let rep = sim.report();
    let worst = rep
        .switches
        .by_pair
        .iter()
        .max_by(|a, b| a.max_ns.total_cmp(&b.max_ns));
    let is = |s: &Option<String>, n: &str| s.as_deref().is_some_and(|s| s.eq_ignore_ascii_case(n));
    out.rows.push(
        f.finding(
            "the costliest switch is CS(A,IDLE) (by construction: most levels scanned)",
            "costliest switch",
            worst.is_some_and(|w| is(&w.from, "A") && is(&w.to, "IDLE")),
            &[
                "Table 3",
                "loop rule",
                "Table 4, 1 iteration",
                "Table 4, 2 iterations",
                "Table 4, 3 iterations",
            ],
        )
        .method("simulated switch census by (from, to), costs calibrated on 1-3 iterations"),
    );
    let mut grouped = Vec::new();
    for (task, id) in [
        ("A", "distinct A"),
        ("B", "distinct B"),
        ("C", "distinct C"),
    ] {
        let mut costs: Vec<i64> = rep
            .switches
            .by_pair
            .iter()
            .filter(|g| is(&g.from, task) || is(&g.to, task))
            .map(|g| (g.max_ns * 1e3).round() as i64)
            .collect();
        costs.sort_unstable();
        costs.dedup();
        let r: Row = f
            .by_construction(
                &format!("distinct switch times involving task {task}"),
                id,
                costs.len() as f64,
                &[
                    "Table 3",
                    "loop rule",
                    "Table 4, 1 iteration",
                    "Table 4, 2 iterations",
                    "Table 4, 3 iterations",
                ],
            )
            .method("distinct worst simulated times over the pairs that involve the task: with a cost by loop count alone, the number of distinct loop counts (by construction)");
        let r = if r.within == Some(false) {
            r.explain(
                "latscope's switch cost depends on the loop count alone, so switches with the same \
                 count cost the same. The paper counts measured times: it lists as distinct \
                 switches with equal counts (CS(A,B) and CS(B,A), both 1 iteration), separated by \
                 what it calls the processor's acceleration mechanisms and by the path that asked \
                 for the switch (a task blocking in vTaskDelayUntil, or the tick readying a \
                 higher task) — neither is in the paper's model or in latscope's.",
            )
        } else {
            r
        };
        out.rows.push(r);
        grouped.push(
            f.derived(
                &format!("distinct switch times of task {task}, by the paper's grouping"),
                id,
                paper_grouping(sys, &rep, task) as f64,
                &["Table 3", "loop rule"],
            )
            .method(
                "the paper's section 7.2 rule (switches into the task from lower ones alike, its \
                 switches up to higher ones alike, every other pair distinct) over the pairs \
                 that occur in the simulation",
            ),
        );
    }
    out.rows.extend(grouped);
}

/// Distinct switch times of `task` under the paper's grouping of section 7.2.
fn paper_grouping(sys: &System, rep: &latscope_sim::SimReport, task: &str) -> usize {
    let p = |n: &str| prio(sys, n);
    let name = |s: &Option<String>| s.clone().unwrap_or_default().to_uppercase();
    let mut up_into = false;
    let mut up_from = false;
    let mut others = 0;
    for g in &rep.switches.by_pair {
        let (from, to) = (name(&g.from), name(&g.to));
        if to == task && p(&from) < p(task) {
            up_into = true;
        } else if from == task && p(&to) > p(task) {
            up_from = true;
        } else if from == task || to == task {
            others += 1;
        }
    }
    up_into as usize + up_from as usize + others
}
